"""Drill's runtime operator protocol over Arrow record batches (docs/operators.md).

    from drillspark.operators import SingleInputOperator, run_fragment
    from drillspark.operators.spark import apply_operator, function_column   # Spark glue
    from drillspark.operators.testing import assert_conforms                 # the kit

See docs/operators.md.
"""

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
