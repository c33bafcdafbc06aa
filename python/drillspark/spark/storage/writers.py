"""Atomic writes for `store`: data goes to a hidden temporary directory beside the target,
which is renamed into place only when the whole write succeeded; nothing partial is left.

The directory work (listing, renaming, removing) happens in this Python process, so the
target must be on a file system this process shares with Spark's executors: local mode and a
local cluster, or a Spark Connect server on the same machine (docs/running-plans.md)."""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

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
    # the rows are counted while they are written (one pass; works on Spark Connect too)
    counted = Observation(f"drillspark_store_{uuid.uuid4().hex}")
    try:
        writer = df.observe(counted, F.count(F.lit(1)).alias("rows")).write.mode("error")
        if FORMATS[fmt] == "csv":
            writer = writer.option("header", "true").option("sep", _DELIMITERS[fmt])
            if len(df.columns) == 1:
                # a NULL is an empty field, and a row of one empty field an empty line, which
                # the CSV writer (and readers) skip: write it as "" so the row survives
                writer = writer.option("nullValue", '""')
        if fmt == "json":
            writer = writer.option("ignoreNullFields", "true")  # Drill: skip_null_fields
        writer.format(FORMATS[fmt]).save(tmp)
        rows = int(counted.get.get("rows", 0))
        files = sorted(n for n in os.listdir(tmp) if not n.startswith((".", "_")))
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
