"""Storage engines (the plan's `storage` section) and the file readers/writers behind them."""

from drillspark.spark.storage.base import StorageEngine, StorageError
from drillspark.spark.storage.engines import SCREEN, StorageRegistry, make_engine
from drillspark.spark.storage.writers import WriteReport

__all__ = [
    "SCREEN",
    "StorageEngine",
    "StorageError",
    "StorageRegistry",
    "WriteReport",
    "make_engine",
]
