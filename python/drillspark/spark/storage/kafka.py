"""The `kafka` storage plugin: a Kafka cluster's topics read as schema-free records, with Apache
Drill 1.22's config (plugin_configs/kafka.py), names and metadata columns (docs/storage.md).

A table is a topic: ``kafka.`topic` `` (the plugin is the one schema; SHOW TABLES IN kafka lists
the topics). A topic is read as one bounded snapshot: when the scan is planned, each partition's
[first, end) offsets are fixed through the plain Kafka Java client
(`drillspark.records.KafkaPages`, which calls it by reflection), narrowed by the filter's
conjuncts on `kafkaPartitionId`, `kafkaMsgOffset` and `kafkaMsgTimestamp` (the selection's
`pushed`, as Drill's KafkaPushDownFilterIntoScan, by the JVM's `KafkaPushDown`, the rule's one
owner for both doors; the filter stays to check every row), and cut
into pages; each page's messages are fetched in the Spark task that reads it (a partition's
range, 50,000 messages a page), never by the driver. Each message must be one JSON object (Drill's default record reader,
`JsonMessageReader`); it is typed by the extension's `drill` reader, the one reader of files
too, with Drill's metadata columns after the message's own: `kafkaTopic` VARCHAR,
`kafkaPartitionId` BIGINT, `kafkaMsgOffset` BIGINT, `kafkaMsgTimestamp` BIGINT, `kafkaMsgKey`
VARCHAR. The session's `store.kafka.*` options travel in the plan's selection. Errors name the
plugin, topic, partition and offset, never a credential of the consumer properties.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from drillspark.plugin_configs.kafka import KafkaConfig, is_secret
from drillspark.spark.storage.base import StorageEngine, StorageError, parsed_config
from drillspark.spark.storage.record_pages import classic_jvm, failure_line

TYPE = "kafka"
PAGE_MESSAGES = 50_000  # messages to a page of records (one input split, one Spark task)
# the columns whose comparisons the SQL lowering pushes (folded name -> Drill's name); what
# they narrow is the JVM's rule, drillspark.records.KafkaPushDown (one owner for both doors)
PUSHABLE = {
    "kafkapartitionid": "kafkaPartitionId",
    "kafkamsgoffset": "kafkaMsgOffset",
    "kafkamsgtimestamp": "kafkaMsgTimestamp",
}
# Drill's metadata columns, in its order, with the Spark type each is read as
METADATA = (
    ("kafkaTopic", "string"),
    ("kafkaPartitionId", "bigint"),
    ("kafkaMsgOffset", "bigint"),
    ("kafkaMsgTimestamp", "bigint"),
    ("kafkaMsgKey", "string"),
)
# Drill's `store.kafka.*` session options -> the scan selection's keys (sql/catalog.py puts
# them there when the scan is planned) with Drill's defaults
OPTIONS = {
    "store.kafka.all_text_mode": ("allTextMode", False),
    "store.kafka.read_numbers_as_double": ("readNumbersAsDouble", False),
    "store.kafka.reader.allow_nan_inf": ("nanInf", True),
    "store.kafka.reader.allow_escape_any_char": ("escapeAnyChar", False),
    "store.kafka.reader.skip_invalid_records": ("skipInvalidRecords", False),
    "store.kafka.poll.timeout": ("pollTimeout", 200),
    "store.kafka.record.reader": ("recordReader", ""),  # "": Drill's default, the JSON reader
}
# the record reader read here: Drill's org.apache.drill.exec.store.kafka.decoders class
JSON_READER = "JsonMessageReader"


class KafkaError(StorageError):
    """A cluster or topic that cannot be read; the message names the plugin (and the topic,
    partition and offset of a message)."""


def config_of(name: str, config: Mapping[str, Any]) -> KafkaConfig:
    return parsed_config(KafkaConfig, name, config, KafkaError)


def _props(name: str, cfg: KafkaConfig) -> dict[str, str]:
    props = cfg.consumer_props()
    if not props.get("bootstrap.servers", "").strip():
        raise KafkaError(
            f"kafka plugin '{name}': kafkaConsumerProps gives no 'bootstrap.servers' "
            "(host:port of the cluster's brokers)"
        )
    return props


def _jvm(spark: SparkSession, name: str) -> Any:
    return classic_jvm(spark, f"kafka plugin '{name}'", KafkaError)


def _failure(name: str, cfg: KafkaConfig, e: Exception, what: str) -> KafkaError:
    line = failure_line(e, cfg.secrets())
    if line.startswith("Timeout expired") or "Timeout of" in line:
        line += " (is the cluster at bootstrap.servers up?)"
    if line.startswith(f"kafka plugin '{name}'"):  # a message's place says it all
        return KafkaError(line)
    return KafkaError(f"kafka plugin '{name}': {what}: {line}")


def topics(spark: SparkSession, name: str, config: Mapping[str, Any]) -> list[str]:
    """The cluster's topics (internal ones too, as Drill lists them), sorted."""
    cfg = config_of(name, config)
    props = _props(name, cfg)
    try:
        return list(_jvm(spark, name).drillspark.records.KafkaPages.topics(props))
    except KafkaError:
        raise
    except Exception as e:  # the client's failure, from the JVM
        raise _failure(name, cfg, e, "cannot list the topics") from None


def table_selection(
    spark: SparkSession, name: str, config: Mapping[str, Any], parts: tuple[str, ...]
) -> dict[str, Any]:
    """The scan selection of ``name.`topic` `` (the topic exactly as the cluster spells it, as
    Drill matches it), or KafkaError."""
    if len(parts) != 1:
        raise KafkaError(
            f"kafka plugin '{name}': name a topic as {name}.`TOPIC`, not {'.'.join((name, *parts))}"
        )
    if parts[0] not in topics(spark, name, config):  # case-sensitive, as in Drill
        raise KafkaError(f"Table '{parts[0]}' does not exist")
    return {"topic": parts[0]}


def selection_options(option: Any) -> dict[str, Any]:
    """The scan selection's reader options from a session's `option(name)` lookup."""
    out: dict[str, Any] = {}
    for drill_name, (key, default) in OPTIONS.items():
        value = option(drill_name)
        out[key] = default if value is None else value
    return out


def _flag(value: Any) -> bool:
    return str(value).strip().lower() in ("true", "1")


PLUGIN_CATALOG_CLASS = "drillspark.catalog.KafkaPluginCatalog"


def catalog_confs(name: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The confs of plugin `name`'s Spark catalog of its own name (spark.sql's door,
    plugin_catalogs.py): what `KafkaEngine.read` gives KafkaPages.plan and the drill reader,
    with Drill's defaults of the `store.kafka.*` options (a Spark session has no Drill
    session options). Consumer properties are `prop.<key>`, the secret ones `secret.<key>`,
    a name Spark's SET redacts."""
    cfg = config_of(name, config)
    out = {("secret." if is_secret(k) else "prop.") + k: v for k, v in _props(name, cfg).items()}
    defaults = {key: default for key, default in OPTIONS.values()}
    out["pollTimeout"] = str(defaults["pollTimeout"])
    out["pageMessages"] = str(PAGE_MESSAGES)
    out["skipInvalidRecords"] = str(_flag(defaults["skipInvalidRecords"])).lower()
    for key in ("allTextMode", "readNumbersAsDouble", "nanInf", "escapeAnyChar"):
        out[f"reader.{key}"] = str(_flag(defaults[key])).lower()
    return out


@dataclass
class KafkaEngine(StorageEngine):
    """The `kafka` storage engine of a plan: a scan reads one topic."""

    readable = True

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        if not isinstance(selection, Mapping) or not selection.get("topic"):
            raise KafkaError(f'scan of {self.name!r} (kafka) needs a selection {{"topic": ...}}')
        cfg = config_of(self.name, self.config)
        props = _props(self.name, cfg)
        topic = str(selection["topic"])
        opts = {key: selection.get(key, default) for key, default in OPTIONS.values()}
        reader = str(opts["recordReader"])
        if reader and reader.rsplit(".", 1)[-1] != JSON_READER:
            raise KafkaError(
                f"kafka plugin '{self.name}', topic {topic}: store.kafka.record.reader "
                f"{reader!r} is not supported here (only Drill's JsonMessageReader: JSON "
                "messages)"
            )
        try:
            timeout = int(opts["pollTimeout"])
        except (TypeError, ValueError):
            raise KafkaError(
                f"store.kafka.poll.timeout must be a number, not {opts['pollTimeout']!r}"
            ) from None
        place = f"kafka plugin '{self.name}', topic {topic}"
        try:
            pushed = json.dumps(selection.get("pushed", []))
        except (TypeError, ValueError):
            raise KafkaError(
                f"{place}: the selection's 'pushed' must be a list of [column, op, value]"
            ) from None
        jvm = _jvm(spark, self.name)
        batch = jvm.drillspark.records.RecordBatch()
        try:
            jvm.drillspark.records.KafkaPages.plan(
                batch,
                props,
                topic,
                timeout,
                PAGE_MESSAGES,
                _flag(opts["skipInvalidRecords"]),
                place,
                pushed,  # narrowed to offset ranges by the JVM's KafkaPushDown
            )
        except Exception as e:  # the client's failure, from the JVM
            raise _failure(self.name, cfg, e, f"cannot read topic {topic}") from None
        paths = list(batch.paths())
        if not paths:
            return spark.createDataFrame([], "dummy string").select()
        reader_opts = {
            k: str(_flag(opts[k])).lower()
            for k in ("allTextMode", "readNumbersAsDouble", "nanInf", "escapeAnyChar")
        }
        # each page its own task (splitBytes 1), its schema found by a Spark job too
        # (discoveryParallelFiles 1): the pages' messages are fetched on executors only
        pages = spark.read.format("drill").options(**reader_opts)
        pages = pages.option("splitBytes", "1").option("discoveryParallelFiles", "1")
        try:
            df = pages.load(paths)
        except Exception as e:  # a message's or the client's failure, from a task
            raise _failure(self.name, cfg, e, f"cannot read topic {topic}") from None
        del batch  # the table holds the pages now
        # the metadata columns keep their types whatever the message options say (as Drill)
        kinds = dict(METADATA)
        return df.select(
            *[
                F.col(f"`{c}`").cast(kinds[c]).alias(c) if c in kinds else F.col(f"`{c}`")
                for c in df.columns
            ]
        )
