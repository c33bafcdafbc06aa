"""Drill's implicit columns on the Python readers (text, Parquet); the JSON `drill` source has
its own (jvm ImplicitColumns).

`dir0`, `dir1`, ... are the directories between the table root and each file (NULL for a file
at a shallower level); `select *` has them (first for Parquet, last for text, as in Drill).
`filename`, `filepath`, `fqn` and `suffix` exist only when the query names them (the scan's
`implicit` list); a data column of the same name wins.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from drillspark.spark.scope import IMPLICIT_COLUMN, quote

FILE_COLUMNS = ("filename", "filepath", "fqn", "suffix")


def dir_depth(roots: Sequence[str], files: Sequence[str]) -> int:
    """How many `dirN` columns a selection has: the deepest file's directories below its root."""
    depth = 0
    for f in files:
        for r in roots:
            if os.path.isdir(r) and (f + os.sep).startswith(r.rstrip(os.sep) + os.sep):
                rel = os.path.relpath(os.path.dirname(f), r)
                depth = max(depth, 0 if rel == "." else len(rel.split(os.sep)))
                break
    return depth


def local_path(uri: Column) -> Column:
    """The local path of a `file:` URI column (Spark's `_metadata.file_path`); a `+` in a URI
    path is a plus, not a space."""
    decoded = F.url_decode(F.regexp_replace(uri, r"\+", "%2B"))
    return F.regexp_replace(decoded, r"^file:/*", "/")


def with_implicit(
    df: DataFrame,
    path: Column,
    roots: Sequence[str],
    files: Sequence[str],
    wanted: Sequence[str],
    dirs_first: bool,
    drop: str | None = None,
) -> DataFrame:
    """`df` (whose file is `path`, a URI) with its dirN columns and the `wanted` file columns."""
    columns = df.columns
    own = [c for c in columns if c != drop]
    have = {c.lower() for c in own}
    root = next((r for r in roots if os.path.isdir(r)), None)
    depth = dir_depth(roots, files) if root is not None else 0
    dir_names = [(i, f"dir{i}") for i in range(depth) if f"dir{i}" not in have]
    file_names = [
        n for n in dict.fromkeys(x.lower() for x in wanted) if n in FILE_COLUMNS and n not in have
    ]
    if not dir_names and not file_names:
        # nothing to add: no expression built (each a few py4j round trips; a CSV scan paid
        # about 80 for them), and no select at all when there is no column to drop
        return df.select(*[F.col(quote(c)) for c in own]) if drop in columns else df
    p = local_path(path)
    dirs: list[Column] = []
    if root is not None and dir_names:
        rel = F.substring(p, len(root.rstrip("/")) + 2, 1 << 30)  # past "<root>/"
        parts = F.split(rel, "/")
        dirs = [F.when(F.size(parts) > i + 1, F.get(parts, i)).alias(name) for i, name in dir_names]
    extra = [_file_column(n, p).alias(n, metadata={IMPLICIT_COLUMN: True}) for n in file_names]
    data = [F.col(quote(c)) for c in own]
    cols = [*dirs, *data] if dirs_first else [*data, *dirs]
    return df.select(*cols, *extra)


def _file_column(name: str, p: Column) -> Column:
    """Drill's implicit file column `name` of the file at local path `p`."""
    if name == "fqn":
        return p
    if name == "filepath":
        return F.regexp_replace(p, r"/[^/]*$", "")
    base = F.element_at(F.split(p, "/"), -1)
    if name == "filename":
        return base
    return F.when(base.contains("."), F.regexp_extract(base, r"\.([^.]*)$", 1)).otherwise(F.lit(""))
