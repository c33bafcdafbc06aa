"""Apache Drill 1.22's options, each declared from the facts Drill gives
(rules/drill_options.tsv: name, kind, default, scopes, validator, description), with what
drillspark does with it: `EFFECTS` names the options that take effect here and how; every other
one is accepted, validated and shown as Drill shows it, and does nothing, for the reason the
first matching prefix of `WHY_NOT` gives (Drill users set them from habit)."""

from __future__ import annotations

from drillspark.options.kinds import KINDS, NONE, PLAN, SERVER, Option, validator_of
from drillspark.rules import DrillOptionFacts, drill_options

# option -> (where it takes effect, what it does here)
EFFECTS: dict[str, tuple[str, str]] = {
    "store.json.all_text_mode": (
        PLAN,
        "every JSON scan reads values as text (the drill source's allTextMode); session only: "
        "a table function's allTextMode changes nothing, as in Drill",
    ),
    "store.json.read_numbers_as_double": (
        PLAN,
        "every JSON scan reads numbers as DOUBLE (readNumbersAsDouble); session only, as in Drill",
    ),
    "store.json.reader.allow_nan_inf": (
        PLAN,
        "JSON scans read NaN and Infinity (nanInf); a table function's own option wins",
    ),
    "store.json.reader.skip_invalid_records": (
        PLAN,
        "JSON scans skip malformed records (skipMalformedJSONRecords); a table function's own "
        "option wins",
    ),
    "store.json.reader.allow_escape_any_char": (
        PLAN,
        "JSON scans take a backslash before any character (escapeAnyChar); a table function's "
        "own option wins",
    ),
    "store.json.extended_types": (
        PLAN,
        "JSON scans read Drill's extended types ($date, $numberLong, ...: extendedTypes); a "
        "table function's own option wins",
    ),
    "store.json.enable_v2_reader": (
        PLAN,
        "the type typeof reports for a missing column: VARCHAR, or V1's INT when false (the "
        "reader itself is always V2-like)",
    ),
    "store.format": (
        PLAN,
        "the format CREATE TABLE AS writes: parquet, json, csv, tsv or psv (another is "
        "refused when a CTAS runs)",
    ),
    "store.kafka.all_text_mode": (
        PLAN,
        "a kafka topic's JSON messages read values as text (the metadata columns keep their types)",
    ),
    "store.kafka.read_numbers_as_double": (
        PLAN,
        "a kafka topic's JSON messages read numbers as DOUBLE",
    ),
    "store.kafka.reader.allow_nan_inf": (
        PLAN,
        "a kafka topic's JSON messages may hold NaN and Infinity",
    ),
    "store.kafka.reader.allow_escape_any_char": (
        PLAN,
        "a kafka topic's JSON messages take a backslash before any character",
    ),
    "store.kafka.reader.skip_invalid_records": (
        PLAN,
        "a kafka message that is not one JSON object is skipped instead of failing the query",
    ),
    "store.kafka.poll.timeout": (
        PLAN,
        "how long (ms) a kafka read waits for a message of the snapshot before it fails (the "
        "first poll of a partition also gets 10 s to connect)",
    ),
    "store.kafka.record.reader": (
        PLAN,
        "Drill's JsonMessageReader (the default) reads; another reader is refused when the "
        "topic is read",
    ),
    "storage.plugin_auto_disable": (
        PLAN,
        "a storage plugin that fails to start (a jdbc plugin whose database refuses or does not "
        "answer, or whose driver is missing; a file plugin whose S3 or HDFS does not answer) "
        "fails the statement and is disabled, as Drill 1.22 disables it (the server's registry "
        "too, as REST's enable/false); SYSTEM scope only",
    ),
    "drill.exec.http.rest.errors.verbose": (
        SERVER,
        "drillspark serve: a failed query's REST answer adds exception and stackTrace "
        "(docs/server.md)",
    ),
}

# the options every plan's head.options lists with their value (the options a plan has always
# carried); any other option is listed once a session changes it
PLAN_HEAD = (
    "store.json.all_text_mode",
    "store.json.read_numbers_as_double",
    "store.json.reader.allow_nan_inf",
    "store.json.reader.skip_invalid_records",
    "store.json.reader.allow_escape_any_char",
    "store.json.extended_types",
    "store.json.enable_v2_reader",
    "exec.enable_union_type",
    "store.format",
    "planner.enable_hashjoin",
    "planner.enable_mergejoin",
    "planner.enable_nestedloopjoin",
    "planner.enable_nljoin_for_scalar_only",
    "planner.slice_target",
    "planner.width.max_per_node",
)

# why an option does nothing here: the first entry whose prefix the name starts with
WHY_NOT: tuple[tuple[str, str], ...] = (
    (
        "exec.enable_union_type",
        "the drill source reads a value whose type changes between records by its typeConflict "
        "option (docs/scan.md), whatever this says",
    ),
    (
        "planner.enable_hashjoin",
        "Spark chooses each join's strategy; a join Drill plans only with this changed runs anyway",
    ),
    ("planner.enable_mergejoin", "Spark chooses each join's strategy"),
    ("planner.enable_nestedloopjoin", "Spark chooses each join's strategy"),
    (
        "planner.enable_nljoin_for_scalar_only",
        "Spark chooses each join's strategy: a join on an OR condition, which Drill plans only "
        "with this off, runs with it on",
    ),
    ("planner.slice_target", "Spark's partitions decide the parallelism"),
    ("planner.width.", "Spark's partitions and executors decide the parallelism"),
    ("planner.memory", "Spark's memory settings bound a query"),
    ("planner.", "Spark's optimizer plans the query"),
    (
        "store.json.writer.",
        "CREATE TABLE AS writes JSON with Spark's writer: NaN as is, null fields left out, "
        "one record a line",
    ),
    ("store.json.reader.print_skipped", "skipped records are not counted in the log"),
    ("store.text.writer.", "CREATE TABLE AS writes text with a header and quotes as needed"),
    ("store.text.", "the text reader needs no row-size estimate"),
    ("store.parquet.", "Spark's Parquet reader and writer, with their own settings"),
    ("store.mongo.", "drillspark has no MongoDB plugin"),
    ("store.hive.", "drillspark has no Hive plugin"),
    ("store.table.use_schema_file", "a table's .drill.schema file is read whatever this says"),
    ("store.partition.", "CTAS ... PARTITION BY writes with Spark's writer"),
    (
        "drill.exec.functions.cast_empty_string_to_null",
        "nothing here reads it: a text file's empty fields read as drillspark's text reader "
        "reads them",
    ),
    (
        "drill.exec.storage.",
        "the implicit columns keep Drill's default names (filename, filepath, suffix, fqn, "
        "dir0, ...)",
    ),
    (
        "drill.exec.http.",
        "drillspark serve's own settings (docs/server.md) decide",
    ),
    ("exec.hash", "Spark manages join and aggregation memory and spilling"),
    ("drill.exec.hash", "Spark manages join and aggregation memory and spilling"),
    ("exec.sort", "Spark manages sort memory and spilling"),
    ("exec.queue.", "drillspark serve's limits admit queries (docs/server.md)"),
    ("exec.rm.", "drillspark serve's limits admit queries (docs/server.md)"),
    ("exec.query.max_rows", "no row limit is applied (a REST request's autoLimit is)"),
    ("exec.query_profile.", "drillspark serve keeps the last 100 profiles in memory"),
    ("exec.java", "Spark generates and compiles its own code"),
    ("org.apache.drill.exec.compile", "Spark generates and compiles its own code"),
    ("exec.udf.", "drillspark's user functions are registered in Python (drillspark.function)"),
    ("exec.impersonation", "drillspark serve runs every query as its own process's user"),
    ("security.", "drillspark serve's --users file names its admins"),
    ("metastore.", "drillspark has no Drill metastore"),
    ("web.", "the web console shows values as drillspark's display writes them"),
    ("new_view_default_permissions", "view files are written with mode 0644"),
    ("exec.persistent_table.umask", "table files are written with the process's umask"),
    ("debug.", "Drill's internal checks"),
    ("drill.exec.testing.", "Drill's test hooks"),
    ("drill.exec.stats.", "Drill's batch statistics logging"),
    ("exec.", "Spark runs the plan: Drill's execution settings change nothing"),
    ("drill.exec.", "Spark runs the plan: Drill's execution settings change nothing"),
    ("", "nothing here reads it"),
)


def why_not(name: str) -> str:
    return next(note for prefix, note in WHY_NOT if name.startswith(prefix))


def declared(facts: DrillOptionFacts) -> Option:
    """The declaration of one of Drill's options."""
    cls = KINDS[facts.kind]
    effect, note = EFFECTS.get(facts.name, (NONE, why_not(facts.name)))
    return cls(
        facts.name,
        _default(facts),
        scopes=facts.scopes,
        description=facts.description,
        internal=facts.internal,
        effect=effect,
        note=note,
        validator=validator_of(facts.validator),
    )


def _default(facts: DrillOptionFacts) -> object:
    if facts.kind == "BOOLEAN":
        return facts.default == "true"
    if facts.kind == "LONG":
        return int(facts.default)
    if facts.kind == "DOUBLE":
        return float(facts.default)
    return facts.default


def drill_declarations() -> list[Option]:
    return [declared(f) for f in drill_options()]
