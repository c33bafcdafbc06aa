"""What every storage engine is: `StorageEngine` (the engines in engines.py and the metadata
engine in metadata.py derive from it) and the `StorageError` they raise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pyspark.sql import DataFrame, SparkSession

from drillspark.errors import ExecutionError
from drillspark.plugin_configs.base import PluginConfig, PluginConfigError
from drillspark.spark.storage.writers import WriteReport


class StorageError(ExecutionError, ValueError):
    """A storage engine configuration, selection or target that cannot be used."""


@dataclass
class StorageEngine:
    name: str
    config: Mapping[str, Any]

    readable = False
    sink = False  # console/queue: `store` returns the rows instead of writing
    # Spark's own aggregates over its scans run in the source (Spark's JDBC source hands MAX,
    # MIN, SUM, COUNT and AVG to the database): the translator keeps them there
    pushes_aggregates = False

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        raise StorageError(f"storage engine {self.name!r} ({self.kind}) cannot be scanned")

    def write(self, df: DataFrame, target: Any) -> WriteReport:
        raise StorageError(f"storage engine {self.name!r} ({self.kind}) cannot be written to")

    @property
    def kind(self) -> str:
        return str(self.config.get("type", "?"))


C = TypeVar("C", bound=PluginConfig)


def parsed_config(kind: type[C], name: str, raw: Mapping[str, Any], error: type[Exception]) -> C:
    """Plugin `name`'s config as `kind` reads it, its refusal raised as the engine's `error`
    (the message, naming plugin and field, kept)."""
    try:
        cfg = kind.from_json(name, raw)
    except PluginConfigError as e:
        raise error(str(e)) from None
    assert isinstance(cfg, kind)
    return cfg
