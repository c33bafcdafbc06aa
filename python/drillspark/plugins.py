"""User extensions: operators and functions registered by name.

    @drillspark.operator("my_op")        # a logical-plan operator run inside Spark
    class MyOp(...): ...

    @drillspark.function("my_fn", kind="scalar")   # usable in plan expressions and Drill SQL
    def my_fn(...): ...

The plan validator, the translator and the SQL front end look names up here, so a registered
operator or function is known everywhere at once.
"""

from __future__ import annotations

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


def operator(name: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: register `cls` as the logical-plan operator `name` (case-insensitive)."""

    def register(cls: type[T]) -> type[T]:
        _operators[name.lower()] = cls
        return cls

    return register


def function(name: str, kind: FunctionKind = "scalar", **options: Any) -> Callable[[T], T]:
    """Decorator: register a vectorized function `name` (case-insensitive)."""
    if kind not in ("scalar", "aggregate"):
        raise ValueError(f"function kind must be 'scalar' or 'aggregate', not {kind!r}")

    def register(fn: T) -> T:
        _functions[name.lower()] = RegisteredFunction(name.lower(), kind, fn, dict(options))  # type: ignore[arg-type]
        return fn

    return register


def registered_operator(name: str) -> type | None:
    return _operators.get(name.lower())


def registered_function(name: str) -> RegisteredFunction | None:
    return _functions.get(name.lower())


def operator_names() -> list[str]:
    return sorted(_operators)


def function_names() -> list[str]:
    return sorted(_functions)


def unregister(name: str) -> None:
    """Forget an operator or function (tests use this to keep the registry clean)."""
    _operators.pop(name.lower(), None)
    _functions.pop(name.lower(), None)
