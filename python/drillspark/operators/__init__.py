"""Drill's runtime operator protocol over Arrow record batches (seed 000)."""

from drillspark.operators.outcome import IterOutcome

__all__ = ["IterOutcome"]
