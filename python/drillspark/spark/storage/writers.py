"""Atomic writes for `store`: data goes to a hidden temporary directory beside the target,
which is renamed into place only when the whole write succeeded; nothing partial is left."""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass, field

from pyspark.sql import DataFrame

FORMATS = {"json": "json", "parquet": "parquet", "csv": "csv", "tsv": "csv", "psv": "csv"}
_DELIMITERS = {"csv": ",", "tsv": "\t", "psv": "|"}


class WriteError(RuntimeError):
    pass


@dataclass(frozen=True)
class WriteReport:
    path: str
    format: str
    rows: int
    files: list[str] = field(default_factory=list)


def write_atomic(df: DataFrame, path: str, fmt: str, overwrite: bool = False) -> WriteReport:
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise WriteError(f"cannot store as {fmt!r}; formats: {', '.join(sorted(FORMATS))}")
    if os.path.exists(path) and not overwrite:
        raise WriteError(f"store target already exists: {path}")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, f".{os.path.basename(path)}.drillspark-{uuid.uuid4().hex}")
    try:
        writer = df.write.mode("error")
        if FORMATS[fmt] == "csv":
            writer = writer.option("header", "true").option("sep", _DELIMITERS[fmt])
        if fmt == "json":
            writer = writer.option("ignoreNullFields", "true")  # Drill: skip_null_fields
        writer.format(FORMATS[fmt]).save(tmp)
        files = sorted(n for n in os.listdir(tmp) if not n.startswith((".", "_")))
        reader = df.sparkSession.read.format(FORMATS[fmt])
        if FORMATS[fmt] == "csv":
            reader = reader.option("header", "true").option("sep", _DELIMITERS[fmt])
        rows = reader.load(tmp).count() if files else 0
        for n in os.listdir(tmp):  # Spark's bookkeeping files are not output
            if n.startswith((".", "_")):
                os.remove(os.path.join(tmp, n))
        if os.path.exists(path):
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return WriteReport(path=path, format=fmt, rows=rows,
                       files=[os.path.join(path, n) for n in files])
