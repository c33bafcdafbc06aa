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

import functools
import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from drillspark.plugin_configs.kafka import KafkaConfig, is_secret
from drillspark.spark.storage.base import StorageEngine, StorageError, parsed_config
from drillspark.spark.storage.record_pages import (
    CatalogRead,
    catalog_said,
    classic_jvm,
    failure_line,
    quoted,
    session_jvm,
)

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
    said = catalog_said(e, cfg.secrets())  # the plugin's catalog (Spark Connect) says what it did
    line = said if said is not None else failure_line(e, cfg.secrets())
    if line.startswith("Timeout expired") or "Timeout of" in line:
        line += " (is the cluster at bootstrap.servers up?)"
    if line.startswith(f"kafka plugin '{name}'"):  # a message's place says it all
        return KafkaError(line)
    if said is not None:
        return KafkaError(f"kafka plugin '{name}': {line}")
    return KafkaError(f"kafka plugin '{name}': {what}: {line}")


def topics(spark: SparkSession, name: str, config: Mapping[str, Any]) -> list[str]:
    """The cluster's topics (internal ones too, as Drill lists them), sorted."""
    cfg = config_of(name, config)
    props = _props(name, cfg)
    try:
        jvm = session_jvm(spark)
        if jvm is None:  # Spark Connect: the plugin's catalog lists them in the server's JVM
            return _catalog(spark, name, config, f"kafka plugin '{name}'").tables(())
        return list(jvm.drillspark.records.KafkaPages.topics(props))
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
    if not _exists(spark, name, config, parts[0]):  # case-sensitive, as in Drill
        raise KafkaError(f"Table '{parts[0]}' does not exist in kafka plugin '{name}'")
    return {"topic": parts[0]}


def _exists(spark: SparkSession, name: str, config: Mapping[str, Any], topic: str) -> bool:
    """Whether the cluster has `topic`: on a classic session the broker is asked for that
    topic alone; on Spark Connect the plugin's catalog lists the topics."""
    if session_jvm(spark) is None:
        return topic in topics(spark, name, config)
    cfg = config_of(name, config)
    props = _props(name, cfg)
    try:
        return bool(_jvm(spark, name).drillspark.records.KafkaPages.exists(props, topic))
    except Exception as e:  # the client's failure, from the JVM
        raise _failure(name, cfg, e, f"cannot look up topic {topic}") from None


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


def _catalog(spark: SparkSession, name: str, config: Mapping[str, Any], owner: str) -> CatalogRead:
    """Spark Connect's reads of plugin `name` through its catalog (record_pages.CatalogRead)."""
    return CatalogRead(
        spark, name, PLUGIN_CATALOG_CLASS, catalog_confs(name, config), owner, KafkaError
    )


# the catalog's table property holding its snapshot's end offsets (KafkaTopicTable)
SNAPSHOT_ENDS = "drillspark.kafka.snapshotEnds"


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
        if session_jvm(spark) is None:  # Spark Connect: through the plugin's own catalog
            return self._catalog_read(spark, cfg, topic, opts, selection.get("pushed") or [])
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
        return _typed(df)

    def _catalog_read(
        self,
        spark: SparkSession,
        cfg: KafkaConfig,
        topic: str,
        opts: Mapping[str, Any],
        pushed: Any,
    ) -> DataFrame:
        """Spark Connect: the topic as a table of the plugin's catalog (KafkaPluginCatalog, in
        the server's JVM), the pushed conjuncts as DataFrame filters right on it, which the
        catalog's scan builder turns back into the same items and ranges (KafkaPushDown, the
        rule's one owner). The catalog reads with Drill's default `store.kafka.*` options (its
        confs are the session's, shared with spark.sql), so a session that set others is
        refused rather than answered with the defaults."""
        place = f"kafka plugin '{self.name}', topic {topic}"
        changed = [
            drill_name
            for drill_name, (key, default) in OPTIONS.items()
            if key != "recordReader"
            and (
                str(opts[key]) != str(default)
                if key == "pollTimeout"
                else _flag(opts[key]) != _flag(default)
            )
        ]
        if changed:
            raise KafkaError(
                f"{place}: on Spark Connect a topic is read through the plugin's Spark catalog, "
                f"with Drill's default store.kafka.* options; {', '.join(changed)} "
                f"{'is' if len(changed) == 1 else 'are'} set otherwise (a classic session "
                "reads with them)"
            )
        pushed_condition(place, pushed)  # a malformed item refused before any server call
        df = _catalog(spark, self.name, self.config, place).table((topic,))
        try:
            columns = df.columns  # Spark loads the table: the snapshot, its pages, discovery
        except Exception as e:  # the catalog's failure, from the server
            raise _failure(self.name, cfg, e, f"cannot read topic {topic}") from None
        if not columns:  # an empty topic: no column, no row (as the classic read)
            return spark.createDataFrame([], "dummy string").select()
        # Spark loads the table again at each analysis (each action of the result), each time
        # a new snapshot: the read is pinned to this one's end offsets, a bounded snapshot of
        # the query as on a classic session (partitions added later are not read either)
        ends = self._snapshot_ends(spark, cfg, topic, place)
        pin = ["or", [[["kafkaPartitionId", "=", p], ["kafkaMsgOffset", "<", e]] for p, e in ends]]
        pinned = pushed_condition(place, [pin, *pushed] if ends else pushed)
        if pinned is not None:
            df = df.filter(pinned)
        # the columns known already: on Connect each analysis of a new plan loads the table
        # again (a snapshot and a discovery job in the server)
        return _typed(df, columns)

    def _snapshot_ends(
        self, spark: SparkSession, cfg: KafkaConfig, topic: str, place: str
    ) -> list[tuple[int, int]]:
        """(partition, end offset) of a snapshot of the topic, from the catalog's table
        property (KafkaTopicTable.properties, Spark's SHOW TBLPROPERTIES)."""
        sql = f"SHOW TBLPROPERTIES {quoted(self.name, topic)} ('{SNAPSHOT_ENDS}')"
        try:
            rows = spark.sql(sql).collect()
        except Exception as e:  # the catalog's failure, from the server
            raise _failure(self.name, cfg, e, f"cannot read topic {topic}") from None
        try:
            ends = json.loads(rows[0]["value"])
            return sorted((int(p), int(e)) for p, e in ends.items())
        except (IndexError, KeyError, TypeError, ValueError, AttributeError):
            raise KafkaError(
                f"{place}: the plugin's catalog gave no snapshot to pin the read to "
                f"({SNAPSHOT_ENDS}: {rows!r}); is the server's drillspark jar older than this "
                "client?"
            ) from None


def _typed(df: DataFrame, columns: list[str] | None = None) -> DataFrame:
    """The metadata columns keep their types whatever the message options say (as Drill)."""
    kinds = dict(METADATA)
    return df.select(
        *[
            F.col(f"`{c}`").cast(kinds[c]).alias(c) if c in kinds else F.col(f"`{c}`")
            for c in (df.columns if columns is None else columns)
        ]
    )


_OPS = ("=", "<", "<=", ">", ">=", "in")


def pushed_condition(place: str, pushed: Any) -> Column | None:
    """The selection's pushed items (`[column, op, value]`, `["or", [[item, ...], ...]]`) as
    one DataFrame condition, for a read through the plugin's catalog: its scan builder pushes
    the condition back as the same items (KafkaPushDown.pushed), so what narrows the offsets
    stays the JVM's rule. None for no items; KafkaError for a malformed one, as the JVM
    refuses it."""

    def bad(item: Any) -> KafkaError:
        return KafkaError(
            f"{place}: cannot push {json.dumps(item)} into the read: a conjunct is [column, op, "
            f"value] with column one of {', '.join(PUSHABLE.values())}, op one of "
            f"{', '.join(_OPS)} and an integer value (a list of them for in), or "
            '["or", [[conjunct, ...], ...]] (an OR of ANDs)'
        )

    def integer(v: Any) -> bool:  # a long, as the JVM's rule takes it
        return isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63

    def one(item: Any) -> Column:
        if not isinstance(item, list):
            raise bad(item)
        if len(item) == 2 and item[0] == "or":
            sides = item[1]
            if not isinstance(sides, list) or not sides:
                raise bad(item)
            return functools.reduce(operator.or_, [every(side, item) for side in sides])
        if len(item) != 3 or not isinstance(item[0], str) or item[1] not in _OPS:
            raise bad(item)
        column, op, value = PUSHABLE.get(item[0].lower()), item[1], item[2]
        if column is None:
            raise bad(item)
        if op == "in":
            if not isinstance(value, list) or not value or not all(map(integer, value)):
                raise bad(item)
            return F.col(column).isin(*value)
        if not integer(value):
            raise bad(item)
        comparisons = {
            "=": operator.eq,
            "<": operator.lt,
            "<=": operator.le,
            ">": operator.gt,
            ">=": operator.ge,
        }
        return comparisons[op](F.col(column), F.lit(value))

    def every(side: Any, item: Any) -> Column:
        if not isinstance(side, list) or not side:
            raise bad(item)
        return functools.reduce(operator.and_, [one(i) for i in side])

    if not isinstance(pushed, list):
        raise bad(pushed)
    if not pushed:
        return None
    return every(pushed, pushed)
