"""A static method of a JVM class as py4j reaches it, looked up once per JVM view (#37): each
step of a py4j lookup (`jvm.org`, `.apache`, ... the class, the method) is a round trip of its
own, several per statement when looked up at each call. The callers hold the JVM view (the
exceptions listed in tests/foundation/test_no_jvm_access.py)."""

from __future__ import annotations

from typing import Any

# (JVM view by id, dotted path) -> (the view, kept alive here; the method)
_KEPT: dict[tuple[int, str], tuple[Any, Any]] = {}


def static(jvm: Any, path: str) -> Any:
    """The method at `path` ("package.Class.method") of `jvm`; py4j's stand-in for a class
    the jar lacks is no method (calling it raises TypeError: see `forget`)."""
    key = (id(jvm), path)
    hit = _KEPT.get(key)
    if hit is None or hit[0] is not jvm:
        found = jvm
        for part in path.split("."):
            found = getattr(found, part)
        hit = _KEPT[key] = (jvm, found)
    return hit[1]


def forget(jvm: Any, path: str) -> None:
    """`jvm`'s jar lacks `path` (an older jar answered for it): from now on calling it raises
    TypeError at once, as py4j's stand-in does, without a lookup's round trips."""
    _KEPT[(id(jvm), path)] = (jvm, _absent)


def _absent(*_args: Any) -> Any:
    raise TypeError("not in this JVM's drillspark jar")
