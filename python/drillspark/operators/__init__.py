"""Drill's runtime operator protocol over Arrow record batches (docs/operators.md).

    from drillspark.operators import SingleInputOperator, run_fragment
    from drillspark.operators.spark import apply_operator, function_column   # Spark glue
    from drillspark.operators.testing import assert_conforms                 # the kit

See docs/operators.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drillspark.operators.base import BatchSource, Operator, SingleInputOperator
    from drillspark.operators.errors import (
        InputPosition,
        OperatorError,
        OperatorPropertyError,
        ProtocolError,
    )
    from drillspark.operators.fragment import Fragment, chain, chain_output_schema, run_fragment
    from drillspark.operators.limits import DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS, BatchLimits
    from drillspark.operators.outcome import IterOutcome

# Each name loads its module on first use (PEP 562): `drillspark.operators.outcome` (which
# drillspark.result needs) then costs no pyarrow.
_LAZY = {
    "BatchSource": "base",
    "Operator": "base",
    "SingleInputOperator": "base",
    "InputPosition": "errors",
    "OperatorError": "errors",
    "OperatorPropertyError": "errors",
    "ProtocolError": "errors",
    "Fragment": "fragment",
    "chain": "fragment",
    "chain_output_schema": "fragment",
    "run_fragment": "fragment",
    "DEFAULT_BATCH_BYTES": "limits",
    "DEFAULT_BATCH_ROWS": "limits",
    "BatchLimits": "limits",
    "IterOutcome": "outcome",
}

__all__ = [
    "DEFAULT_BATCH_BYTES",
    "DEFAULT_BATCH_ROWS",
    "BatchLimits",
    "BatchSource",
    "Fragment",
    "InputPosition",
    "IterOutcome",
    "Operator",
    "OperatorError",
    "OperatorPropertyError",
    "ProtocolError",
    "SingleInputOperator",
    "chain",
    "chain_output_schema",
    "run_fragment",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
