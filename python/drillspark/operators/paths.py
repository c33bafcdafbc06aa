"""Field paths such as `a.x` or `` `a.b`.c `` split into their names (Drill: a backquoted name
is one name even when it holds a dot; names match case-insensitively)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from drillspark.errors import ExecutionError
from drillspark.names import fold


class PathError(ExecutionError, ValueError):
    pass


def parse_path(path: str | Sequence[str]) -> tuple[str, ...]:
    """`"a.x"` -> ("a", "x"); a list of names is taken as is."""
    if not isinstance(path, str):
        given = tuple(path)
        if not given or not all(isinstance(n, str) and n for n in given):
            raise PathError(f"a path must be a non-empty list of names, not {list(path)!r}")
        return given
    names: list[str] = []
    current: list[str] = []
    quoted = False
    for i, ch in enumerate(path):
        if ch == "`":
            quoted = not quoted
        elif ch == "." and not quoted:
            if not current:
                raise PathError(f"empty name at column {i + 1} of path {path!r}")
            names.append("".join(current))
            current = []
        else:
            current.append(ch)
    if quoted:
        raise PathError(f"unclosed backquote in path {path!r}")
    if not current:
        raise PathError(f"path {path!r} ends without a name")
    names.append("".join(current))
    return tuple(names)


def format_path(names: Sequence[str]) -> str:
    return ".".join(f"`{n}`" if "." in n else n for n in names)


def field_index(struct: pa.StructType | pa.Schema, name: str) -> int | None:
    """Index of the field called `name`, matched case-insensitively (exact match first; `fold`,
    the extension's rule)."""
    names = [f.name for f in struct]
    if name in names:
        return names.index(name)
    key = fold(name)
    for i, n in enumerate(names):
        if fold(n) == key:
            return i
    return None
