"""User extensions: operators and functions registered by name.

    @drillspark.operator("my_op")        # a logical-plan operator run inside Spark
    class MyOp(drillspark.operators.SingleInputOperator): ...

    @drillspark.function("drill_my_fn", kind="scalar", returns="double")
    def my_fn(x: pa.Array) -> pa.Array: ...      # vectorized: Arrow arrays in and out

The plan validator, the translator and the SQL front end look names up here, so a registered
operator or function is known everywhere at once. This module is the bottom of the package: it
imports nothing of drillspark. The built-in Python operators (drillspark.operators.builtin, which
needs pyarrow) register themselves here on the registry's first use: the package hands over a
loader (`defer`), so `import drillspark` alone loads no Arrow (docs/performance.md).

Function options understood by drillspark.operators.spark: `returns` (the Spark result type,
a DDL string such as "double" or a DataType; required to run it) and `style` ("arrow", the
default: pyarrow arrays in and out; or "pandas": pandas Series in and out).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

T = TypeVar("T")
FunctionKind = Literal["scalar", "aggregate"]


@dataclass(frozen=True)
class RegisteredFunction:
    name: str
    kind: FunctionKind
    impl: Callable[..., Any]
    options: dict[str, Any]


_operators: dict[str, type] = {}
_functions: dict[str, RegisteredFunction] = {}
# Registrations to run before the registry is first read (the built-ins).
_deferred: list[Callable[[], object]] = []
_deferred_lock = threading.RLock()
_loaded = True  # no loader is waiting
_loading = threading.local()  # set in the thread running the loaders (they register too)


def defer(loader: Callable[[], object]) -> None:
    """Run `loader` (which registers names) on the registry's first use."""
    global _loaded
    with _deferred_lock:
        _deferred.append(loader)
        _loaded = False


def _load_deferred() -> None:
    global _loaded
    if _loaded or getattr(_loading, "active", False):
        return
    with _deferred_lock:  # another thread's lookup waits until the names are in
        _loading.active = True
        try:
            while _deferred:
                _deferred.pop(0)()
        finally:
            _loading.active = False
            _loaded = True


def _store(registry: dict[str, Any], key: str, value: Any) -> None:
    """A registration; one made by a deferred loader keeps a name the user registered first."""
    if getattr(_loading, "active", False):
        registry.setdefault(key, value)
    else:
        registry[key] = value


def operator(name: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: register `cls` as the logical-plan operator `name` (case-insensitive).

    The class may define a classmethod `validate_properties(props: dict) -> list[str]`
    (error messages), which the plan validator calls for every plan node naming it."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"an operator name must be a non-empty string, not {name!r}")

    def register(cls: type[T]) -> type[T]:
        _store(_operators, name.lower(), cls)
        if isinstance(cls, type) and getattr(cls, "drill_name", None) is None:
            with contextlib.suppress(TypeError, AttributeError):  # built-in types refuse
                cls.drill_name = name  # type: ignore[attr-defined]
        return cls

    return register


def function(name: str, kind: FunctionKind = "scalar", **options: Any) -> Callable[[T], T]:
    """Decorator: register a vectorized function `name` (case-insensitive)."""
    if kind not in ("scalar", "aggregate"):
        raise ValueError(f"function kind must be 'scalar' or 'aggregate', not {kind!r}")
    style = options.get("style", "arrow")
    if style not in ("arrow", "pandas"):
        raise ValueError(f"function style must be 'arrow' or 'pandas', not {style!r}")

    def register(fn: T) -> T:
        _store(_functions, name.lower(), RegisteredFunction(name.lower(), kind, fn, dict(options)))  # type: ignore[arg-type]
        return fn

    return register


def registered_operator(name: str) -> type | None:
    _load_deferred()
    return _operators.get(name.lower())


def registered_function(name: str) -> RegisteredFunction | None:
    _load_deferred()
    return _functions.get(name.lower())


def operator_names() -> list[str]:
    _load_deferred()
    return sorted(_operators)


def function_names() -> list[str]:
    _load_deferred()
    return sorted(_functions)


def unregister(name: str) -> None:
    """Forget an operator or function (tests use this to keep the registry clean)."""
    _load_deferred()
    _operators.pop(name.lower(), None)
    _functions.pop(name.lower(), None)
