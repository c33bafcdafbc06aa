"""The `jdbc` storage plugin: a database reached through a JDBC driver, with Apache Drill 1.22's
config, names and types, read and written through Spark's JDBC table catalog (docs/storage.md).

Config (Drill's fields): `driver`, `url`, `username`, `password`, `caseInsensitiveTableNames`
(false), `sourceParameters` ({}), `authMode` ("SHARED_USER"), `writable` (false),
`writerBatchSize` (10000), `enabled`. Unknown fields are kept (`JdbcConfig.raw`).

Names: a table is `<plugin>.<schema>.<table>` as Drill names it: PostgreSQL `pg.public.orders`
(schemas are PostgreSQL's schemas, plus the database itself, which stands for the current
schema, and the plugin alone); MariaDB / MySQL `maria.shop.orders` (schemas are databases).
Schema names match whatever their case; table names match exactly, or, with
`caseInsensitiveTableNames`, also in lower case (Drill's rule). A plan's scan selects a table as
`{"schema": "public", "table": "orders"}` (`schema` may be a list of one name, or left out for
the plugin's default schema); a store's target has the same shape.

Reads go through Spark's `JDBCTableCatalog` (DSv2), registered once per config under a hidden
catalog name, so Spark pushes filters, projections, aggregates, limits, offsets, top-N and
(where the session allows it) joins inside one plugin down to the database, visible in EXPLAIN;
the rows are then converted to the types Drill 1.22 gives (`drill_column`). Metadata (schemas,
tables, columns with Drill's types) comes from the database's own catalog, by SQL through
Spark's JDBC source (`list_schemas`, `list_tables`, `list_columns`). CTAS writes a staging table
and renames it into place, so a failed write leaves nothing behind.

Errors name the plugin and the cause (the driver's message, never the password, never a Java
stack trace).
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column, DataFrame, Observation, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from drillspark.names import fold
from drillspark.plugin_configs import PluginConfigError
from drillspark.plugin_configs.jdbc import JdbcConfig as PluginJdbcConfig
from drillspark.spark.scope import PLAN_TYPED, quote
from drillspark.spark.storage.base import StorageEngine, StorageError
from drillspark.spark.storage.metadata import SqlField, column_attributes
from drillspark.spark.storage.writers import WriteReport

TYPE = "jdbc"
CATALOG_CLASS = "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog"

# Drill 1.22's defaults: the registry's (plugin_configs/jdbc.py owns the fields and their checks)
DEFAULTS: dict[str, Any] = {
    **{key: default for key, (_, default) in PluginJdbcConfig.FIELDS.items()},
    "sourceParameters": {},
}

# Spark's JDBC options a `sourceParameters` entry may set (any case); `dataSource.X` entries are
# the driver's connection property X (HikariCP's spelling, which Drill passes to the driver);
# HikariCP's pool settings (maximumPoolSize, minimumIdle, connectionTimeout, ...) have no
# counterpart in Spark, which opens one connection per task, and are kept but not used.
SPARK_OPTIONS = (
    "fetchsize",
    "batchsize",
    "queryTimeout",
    "isolationLevel",
    "sessionInitStatement",
    "pushDownPredicate",
    "pushDownAggregate",
    "pushDownLimit",
    "pushDownOffset",
    "pushDownTableSample",
    "pushDownJoin",
    "numPartitions",
    "partitionColumn",
    "lowerBound",
    "upperBound",
    "createTableOptions",
    "connectionProvider",
)
_SPARK_OPTION = {o.lower(): o for o in SPARK_OPTIONS}
# what Spark may push down, on unless `sourceParameters` says otherwise
PUSH_DOWN = {
    "pushDownPredicate": "true",
    "pushDownAggregate": "true",
    "pushDownLimit": "true",
    "pushDownOffset": "true",
    "pushDownTableSample": "true",
    "pushDownJoin": "true",
}

POSTGRESQL, MYSQL, OTHER = "postgresql", "mysql", "other"


class JdbcError(StorageError):
    """A `jdbc` plugin's config, name, connection or statement failed."""


class TableExistsError(JdbcError):
    """CTAS names a table that is there already (Drill's VALIDATION error)."""


class ImmutableSchemaError(JdbcError):
    """CTAS or DROP TABLE in a plugin that is not `writable` (Drill's VALIDATION error)."""


class JdbcTableMissing(JdbcError):
    """A name that resolves to no table of the database (Drill's `Object ... not found`)."""


class JdbcUnreachable(JdbcError):
    """The plugin cannot start: its driver is missing or its database refuses or does not
    answer a connection (what Drill calls failing to configure the data source)."""


# --------------------------------------------------------------------------------- config


@dataclass(frozen=True)
class JdbcConfig:
    """A `jdbc` plugin's config with Drill's defaults filled in; `raw` is the config as given
    (unknown fields included, so a round trip loses nothing)."""

    name: str
    url: str
    driver: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    case_insensitive: bool = False
    source_parameters: Mapping[str, Any] = field(default_factory=dict)
    writable: bool = False
    writer_batch_size: int = 10000
    enabled: bool = True
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def of(name: str, config: Mapping[str, Any]) -> JdbcConfig:
        """The engine's view of plugin `name`'s config, checked by the registry's rules."""
        try:
            checked = (
                PluginJdbcConfig.from_json(name, config) if isinstance(config, Mapping) else None
            )
        except PluginConfigError as e:
            raise JdbcError(str(e)) from None
        if checked is None:
            raise JdbcError(f"jdbc storage plugin {name!r}: the config is not an object")
        url = str(config["url"])
        params = config.get("sourceParameters") or {}
        batch = int(config.get("writerBatchSize", DEFAULTS["writerBatchSize"]))
        return JdbcConfig(
            name=name,
            url=url.strip(),
            driver=_opt_str(config.get("driver")),
            username=_opt_str(config.get("username")),
            password=None if config.get("password") is None else str(config.get("password")),
            case_insensitive=_flag(config.get("caseInsensitiveTableNames", False)),
            source_parameters=dict(params),
            writable=_flag(config.get("writable", False)),
            writer_batch_size=batch,
            enabled=_flag(config.get("enabled", True)),
            raw=dict(config),
        )

    @property
    def kind(self) -> str:
        """The database family by the URL: its catalog queries and Drill's answers differ."""
        url = self.url.lower()
        if url.startswith("jdbc:postgresql:"):
            return POSTGRESQL
        if url.startswith(("jdbc:mariadb:", "jdbc:mysql:")):
            return MYSQL
        return OTHER

    def spark_url(self) -> str:
        """The URL Spark is given. Spark picks its SQL dialect by the URL's prefix and knows
        MySQL's (`jdbc:mysql:`), not MariaDB's, whose statements it would quote with `"`:
        a MariaDB Connector/J URL is handed over as `jdbc:mysql:` with the driver's
        `permitMysqlScheme` flag, so the same driver serves it with MySQL's dialect."""
        if not self.url.lower().startswith("jdbc:mariadb:"):
            return self.url
        rest = self.url[len("jdbc:mariadb:") :]
        sep = "&" if "?" in rest else "?"
        flag = "" if "permitmysqlscheme" in rest.lower() else f"{sep}permitMysqlScheme"
        return f"jdbc:mysql:{rest}{flag}"

    def options(self) -> dict[str, str]:
        """Spark's JDBC options for this plugin (catalog and metadata reads alike)."""
        opts = {"url": self.spark_url(), "preferTimestampNTZ": "true", "fetchsize": "10000"}
        opts.update(PUSH_DOWN)
        opts["batchsize"] = str(self.writer_batch_size)
        if self.driver:
            opts["driver"] = self.driver
        if self.username is not None:
            opts["user"] = self.username
        if self.password is not None:
            opts["password"] = self.password
        for key, value in self.source_parameters.items():
            key = str(key)
            if key.lower() in _SPARK_OPTION:
                opts[_SPARK_OPTION[key.lower()]] = _text(value)
            elif key.startswith("dataSource.") and len(key) > len("dataSource."):
                opts[key[len("dataSource.") :]] = _text(value)
        return opts

    def secrets(self) -> list[str]:
        """Texts that must never appear in a message: the registry's secrets of the config
        (the password, a credentials provider's, the URL's own)."""
        return PluginJdbcConfig(dict(self.raw)).secrets()


Config = Mapping[str, Any] | JdbcConfig


def _config(config: Config, name: str) -> JdbcConfig:
    return config if isinstance(config, JdbcConfig) else JdbcConfig.of(name, config)


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _flag(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _shown_url(url: str) -> str:
    """A URL without its query string or user information, for messages."""
    url = re.sub(r"(//)[^/@]*@", r"\1", url)
    return re.split(r"[?;&]", url, maxsplit=1)[0]


# -------------------------------------------------------------------------------- errors


def _causes(error: BaseException) -> list[str]:
    """The messages of `error` and of what caused it, outermost first: PySpark's captured
    chain (`_cause`) and the `Caused by:` lines of a JVM trace."""
    texts: list[str] = []
    seen: set[int] = set()
    e: Any = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        for text in (getattr(e, "_desc", None), str(e), getattr(e, "_stackTrace", None)):
            if not text:
                continue
            text = str(text)
            first = text.strip().splitlines()[0] if text.strip() else ""
            if first and not first.startswith("at "):
                texts.append(first)
            texts += [
                line.strip()[len("Caused by:") :].strip()
                for line in text.splitlines()
                if line.strip().startswith("Caused by:")
            ]
        e = getattr(e, "_cause", None) or getattr(e, "__cause__", None)
    return texts


_JAVA_CLASS = re.compile(r"^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b:?\s*")


def _cause_text(error: BaseException) -> str:
    """The driver's message: the deepest cause thrown as a JDBC exception (a class named
    `...SQL...Exception`: its text names the host and port, where the socket's error below it
    says only "Connection refused"), else the deepest cause; without the Java class name."""
    texts = [t for t in _causes(error) if t and not t.startswith("An error occurred while")]
    jdbc_ones = [t for t in texts if (m := _JAVA_CLASS.match(t)) and "SQL" in m.group(0)]
    for text in reversed(jdbc_ones or texts):
        cleaned = _JAVA_CLASS.sub("", text).strip()
        if cleaned:
            return cleaned
    return type(error).__name__


def _condition(error: BaseException) -> str | None:
    get = getattr(error, "getCondition", None)
    try:
        return get() if callable(get) else None
    except Exception:  # a captured exception without a condition
        return None


# SQLState classes of a connection the plugin cannot make: 08 (connection exception: refused,
# reset, lost) and 28 (invalid authorization: the plugin's credentials; Drill's pool cannot
# start either). Any other (a missing CONNECT privilege, 42501) is the statement's error only.
_CANNOT_CONNECT = ("08", "28")


def _sql_state(error: BaseException) -> str | None:
    """The driver's SQLState (the first java.sql.SQLException in the JVM cause chain of a
    classic session's captured exception); None without one (Spark Connect has no JVM here)."""
    java: Any = getattr(error, "_origin", None) or getattr(error, "java_exception", None)
    try:
        for _ in range(32):  # a cause chain is short; a cycle ends here too
            if java is None:
                return None
            try:
                state = java.getSQLState()
            except Exception:  # not a java.sql.SQLException
                state = None
            if state:
                return str(state)
            java = java.getCause()
    except Exception:  # a JVM gone: no state to read
        return None
    return None


def _cannot_connect(error: BaseException) -> bool:
    """Whether `error` says the database cannot be connected to at all (what auto-disables
    the plugin): the driver's SQLState class, else (no SQLState to read) Spark's
    FAILED_JDBC.CONNECTION condition. Never the message's words."""
    state = _sql_state(error)
    if state is not None:
        return state[:2] in _CANNOT_CONNECT
    return _condition(error) == "FAILED_JDBC.CONNECTION"


def _scrub(text: str, cfg: JdbcConfig) -> str:
    for secret in cfg.secrets():
        text = text.replace(secret, "*****")
    # Spark's own rendering of a JDBC URL, and any URL a driver names
    text = re.sub(r"jdbc:[^\s'\"]*", lambda m: _shown_url(m.group(0)), text)
    return text


def failure(cfg: JdbcConfig, error: BaseException, doing: str) -> JdbcError:
    """One paragraph for a failed call into the database: the plugin, what was being done and
    the driver's message."""
    if isinstance(error, JdbcError):
        return error
    cause = _cause_text(error)
    all_text = " ".join(_causes(error))
    if "ClassNotFoundException" in all_text or "PLUGIN_CLASS_NOT_FOUND" in all_text:
        driver = cfg.driver or "(none given)"
        return JdbcUnreachable(
            f"jdbc storage plugin {cfg.name!r}: the JDBC driver {driver} is not on Spark's "
            "class path (drillspark ships PostgreSQL's and MariaDB's; add another with "
            "--jars or spark.jars, docs/storage.md)"
        )
    if "No suitable driver" in all_text or "DRIVER_NOT_FOUND" in all_text:
        return JdbcUnreachable(
            f"jdbc storage plugin {cfg.name!r}: no JDBC driver accepts the URL "
            f"{_shown_url(cfg.url)} (set 'driver', or add the driver's jar with --jars)"
        )
    if _cannot_connect(error):
        return JdbcUnreachable(
            _scrub(
                f"jdbc storage plugin {cfg.name!r}: cannot connect to the database: {cause}", cfg
            )
        )
    return JdbcError(_scrub(f"jdbc storage plugin {cfg.name!r}: {doing}: {cause}", cfg))


# ------------------------------------------------------------------------------- catalog

_LOCK = threading.Lock()
_CATALOGS: dict[tuple, str] = {}
_NUMBERS = itertools.count(1)
_DEFAULTS_SEEN: dict[str, tuple[str, str]] = {}


def _key(cfg: JdbcConfig) -> tuple:
    return tuple(sorted(cfg.options().items()))


def catalog_name(spark: SparkSession, cfg: JdbcConfig) -> str:
    """The hidden Spark catalog serving `cfg` in `spark` (registered on first use; one per
    distinct config in this process, so a changed config gets a fresh catalog: Spark keeps a
    catalog it has loaded). Its name says nothing of the config."""
    key = _key(cfg)
    with _LOCK:
        name = _CATALOGS.get(key)
        if name is None:
            name = f"drillspark_jdbc_{next(_NUMBERS)}"
            _CATALOGS[key] = name
    prefix = f"spark.sql.catalog.{name}"
    if spark.conf.get(prefix, None) != CATALOG_CLASS:
        for option, value in cfg.options().items():
            spark.conf.set(f"{prefix}.{option}", value)
        spark.conf.set(prefix, CATALOG_CLASS)
    return name


PLUGIN_CATALOG_CLASS = "drillspark.catalog.JdbcPluginCatalog"


def catalog_confs(name: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The confs of plugin `name`'s Spark catalog of its own name (spark.sql's door,
    plugin_catalogs.py): Spark's JDBC options, as the hidden catalogs of drillspark.sql take
    them (so both read through Spark's JDBC catalog), and Drill's name rules as `drill.*`. The
    URL and password sit in confs named `url` and `password`, which Spark's SET redacts."""
    cfg = JdbcConfig.of(name, config)
    return cfg.options() | {"drill.caseInsensitiveTableNames": str(cfg.case_insensitive).lower()}


def _ident(*parts: str) -> str:
    return ".".join(quote(p) for p in parts)


# ------------------------------------------------------------------------------ metadata


def _sql_text(kind: str, value: str) -> str:
    """A string literal that no value can break out of: its UTF-8 bytes in hex."""
    hexed = value.encode("utf-8").hex()
    if kind == POSTGRESQL:
        return f"convert_from(decode('{hexed}', 'hex'), 'UTF8')"
    if kind == MYSQL:
        return f"CONVERT(X'{hexed}' USING utf8mb4)" if hexed else "''"
    return "'" + value.replace("'", "''") + "'"


def query(spark: SparkSession, cfg: JdbcConfig, sql: str, doing: str) -> list[tuple]:
    """Rows of a query the database runs (its catalog), through Spark's JDBC source."""
    opts = {k: v for k, v in cfg.options().items() if not k.startswith("pushDown")}
    try:
        rows = spark.read.format("jdbc").options(**opts).option("query", sql).load().collect()
    except Exception as e:
        raise failure(cfg, e, doing) from None
    return [tuple(r) for r in rows]


def _defaults(spark: SparkSession, cfg: JdbcConfig) -> tuple[str, str]:
    """(current database, current schema) of a PostgreSQL plugin."""
    key = cfg.spark_url() + "\0" + (cfg.username or "")
    if key not in _DEFAULTS_SEEN:
        rows = query(
            spark, cfg, "SELECT current_database(), current_schema()", "cannot list schemas"
        )
        _DEFAULTS_SEEN[key] = (str(rows[0][0]), str(rows[0][1]))
    return _DEFAULTS_SEEN[key]


def list_schemas(spark: SparkSession, config: Config, name: str = TYPE) -> list[str]:
    """The plugin's schemas as Drill lists them under the plugin (`pg.public` is "public"),
    sorted; the plugin itself (`pg`) is a schema too and not in the list. PostgreSQL: its
    schemas (less pg_toast and the temporary ones) and the database; MariaDB / MySQL: its
    databases."""
    cfg = _config(config, name)
    if cfg.kind == POSTGRESQL:
        sql = (
            "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname <> 'pg_toast' "
            "AND nspname NOT LIKE 'pg\\_temp\\_%' AND nspname NOT LIKE 'pg\\_toast\\_temp\\_%' "
            "UNION SELECT current_database()"
        )
    elif cfg.kind == MYSQL:
        sql = "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA"
    else:
        sql = "SELECT schema_name FROM information_schema.schemata"
    return sorted({str(r[0]) for r in query(spark, cfg, sql, "cannot list schemas")})


# PostgreSQL's relation kinds as its JDBC driver names them in getTables (Drill lists every
# kind: SHOW TABLES IN pg.public shows the primary key's index as an INDEX)
_PG_KINDS = {
    "r": "TABLE",
    "p": "PARTITIONED TABLE",
    "v": "VIEW",
    "i": "INDEX",
    "I": "PARTITIONED INDEX",
    "S": "SEQUENCE",
    "m": "MATERIALIZED VIEW",
    "f": "FOREIGN TABLE",
    "c": "TYPE",
}
_MYSQL_KINDS = {"BASE TABLE": "TABLE", "SYSTEM VERSIONED": "TABLE", "TEMPORARY": "LOCAL TEMPORARY"}


def _schema_in_db(
    spark: SparkSession, cfg: JdbcConfig, schema: str | Sequence[str] | None
) -> str | None:
    """The database's own name of the Drill schema under the plugin (None for MariaDB's
    root, which holds no table), matching names whatever their case, as Drill does."""
    parts = _parts(schema)
    if len(parts) > 1:
        raise JdbcError(
            f"Object '{parts[1]}' not found within '{cfg.name}.{parts[0]}' (jdbc storage "
            f"plugin {cfg.name!r})"
        )
    if cfg.kind == POSTGRESQL:
        database, current = _defaults(spark, cfg)
        if not parts or fold(parts[0]) == fold(database):
            return current
    elif not parts:
        return None if cfg.kind == MYSQL else ""
    known = list_schemas(spark, cfg)
    found = _match(parts[0], known)
    if found is None:
        raise JdbcError(
            f"Object '{parts[0]}' not found within '{cfg.name}' (jdbc storage plugin "
            f"{cfg.name!r}; schemas: {', '.join(known) or 'none'})"
        )
    return found


def _match(name: str, names: Sequence[str]) -> str | None:
    if name in names:
        return name
    return next((n for n in names if fold(n) == fold(name)), None)


def _parts(schema: str | Sequence[str] | None) -> list[str]:
    if schema is None or schema == "":
        return []
    if isinstance(schema, str):
        return [schema]
    return [str(s) for s in schema]


def list_tables(
    spark: SparkSession,
    config: Config,
    schema: str | Sequence[str] | None,
    name: str = TYPE,
) -> list[tuple[str, str]]:
    """(table name, TABLE_TYPE) of every table of `schema` (a name `list_schemas` gave, any
    case; None for the plugin itself), sorted by name, as Drill 1.22 lists them: TABLE, VIEW,
    and PostgreSQL's other relations (INDEX, SEQUENCE, ...)."""
    cfg = _config(config, name)
    db_schema = _schema_in_db(spark, cfg, schema)
    if db_schema is None:
        return []
    return _tables_by_schema(spark, cfg, db_schema).get(db_schema, [])


def _tables_by_schema(
    spark: SparkSession, cfg: JdbcConfig, db_schema: str | None
) -> dict[str, list[tuple[str, str]]]:
    """{database schema: sorted (table, TABLE_TYPE)} of one schema, or of every schema
    (`db_schema` None): one catalog query either way."""
    if cfg.kind == POSTGRESQL:
        where = "" if db_schema is None else f"n.nspname = {_sql_text(cfg.kind, db_schema)} AND "
        rows = query(
            spark,
            cfg,
            "SELECT c.relname, c.relkind, n.nspname FROM pg_catalog.pg_class c JOIN "
            f"pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE {where}c.relkind IN "
            "('r', 'p', 'v', 'i', 'I', 'S', 'm', 'f', 'c')",
            "cannot list tables",
        )
        out: dict[str, list[tuple[str, str]]] = {}
        for relname, relkind, nspname in rows:
            kind = _PG_KINDS.get(str(relkind), "TABLE")
            if nspname in ("pg_catalog", "information_schema") and kind in (
                "TABLE",
                "VIEW",
                "INDEX",
            ):
                kind = "SYSTEM " + kind
            out.setdefault(str(nspname), []).append((str(relname), kind))
        return {k: sorted(v) for k, v in out.items()}
    where = "" if db_schema is None else f" WHERE TABLE_SCHEMA = {_sql_text(cfg.kind, db_schema)}"
    sql = f"SELECT TABLE_NAME, TABLE_TYPE, TABLE_SCHEMA FROM information_schema.TABLES{where}"
    if cfg.kind == OTHER:
        sql = sql.replace("TABLE_", "table_")
    out = {}
    for n, t, s in query(spark, cfg, sql, "cannot list tables"):
        out.setdefault(str(s), []).append((str(n), _MYSQL_KINDS.get(str(t), str(t))))
    return {k: sorted(v) for k, v in out.items()}


@dataclass(frozen=True)
class JdbcColumn:
    """A column as Drill 1.22 describes it: `field` is its planning type (what DESCRIBE and
    INFORMATION_SCHEMA.COLUMNS show: `DECIMAL` for PostgreSQL's numeric, `ANY` for a type
    Drill cannot name), `read_type` the Drill type of the values a query reads (`typeof`:
    FLOAT8 for that numeric), `info` the INFORMATION_SCHEMA.COLUMNS cells Drill derives."""

    name: str
    ordinal: int
    field: SqlField
    read_type: str
    native_type: str
    info: Mapping[str, Any]


def _pg_column(row: tuple) -> tuple[SqlField, str]:
    """(planning field, read type) of a PostgreSQL column from information_schema.columns:
    name, data_type, udt_name, is_nullable, character_maximum_length, numeric_precision,
    numeric_scale."""
    name, dt, _udt, nullable, length, precision, scale = row[:7]
    dt = str(dt)
    nn = str(nullable) == "YES"

    def f(t: str, p: int | None = None, s: int | None = None) -> SqlField:
        return SqlField(str(name), t, nn, p, s)

    simple = {
        "smallint": ("SMALLINT", "INT"),
        "integer": ("INTEGER", "INT"),
        "bigint": ("BIGINT", "BIGINT"),
        "real": ("REAL", "FLOAT8"),
        "double precision": ("DOUBLE", "FLOAT8"),
        "money": ("DOUBLE", "FLOAT8"),
        "boolean": ("BOOLEAN", "BIT"),
        "date": ("DATE", "DATE"),
    }
    if dt in simple:
        planning, read = simple[dt]
        return f(planning), read
    if dt == "numeric":
        return f("DECIMAL", int(precision or 0), int(scale or 0)), "FLOAT8"
    if dt == "character":
        return f("CHAR", int(length or 1)), "VARCHAR"
    if dt in ("character varying", "text"):
        return f("VARCHAR", min(int(length or 65536), 65536)), "VARCHAR"
    if dt.startswith("time "):
        return f("TIME", 3), "TIME"
    if dt.startswith("timestamp"):
        return f("TIMESTAMP", 3), "TIMESTAMP"
    if dt == "bytea":
        return f("BINARY", 65536), "VARCHAR"
    if dt == "ARRAY":
        return f("ARRAY"), "VARCHAR"
    return f("ANY"), "VARCHAR"


def _mysql_column(row: tuple) -> tuple[SqlField, str]:
    """(planning field, read type) of a MariaDB / MySQL column from information_schema.COLUMNS:
    COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, CHARACTER_MAXIMUM_LENGTH,
    NUMERIC_PRECISION, NUMERIC_SCALE."""
    name, dt, column_type, nullable, length, precision, scale = row[:7]
    dt, column_type = str(dt).lower(), str(column_type).lower()
    nn = str(nullable) == "YES"
    unsigned = "unsigned" in column_type

    def f(t: str, p: int | None = None, s: int | None = None) -> SqlField:
        return SqlField(str(name), t, nn, p, s)

    if dt == "tinyint":
        if column_type.startswith("tinyint(1)"):
            return f("BOOLEAN"), "BIT"
        return f("TINYINT"), "INT"
    if dt == "smallint":
        return f("SMALLINT"), "INT"
    if dt in ("mediumint", "int", "integer"):
        return f("INTEGER"), "BIGINT" if unsigned and dt != "mediumint" else "INT"
    if dt == "bigint":
        return f("BIGINT"), "VARDECIMAL" if unsigned else "BIGINT"
    if dt in ("decimal", "numeric"):
        return f("DECIMAL", int(precision or 10), int(scale or 0)), "VARDECIMAL"
    if dt == "float":
        return f("REAL"), "FLOAT8"
    if dt in ("double", "real"):
        return f("DOUBLE"), "FLOAT8"
    if dt == "bit":
        return (f("BOOLEAN"), "BIT") if column_type == "bit(1)" else (f("ANY"), "BIGINT")
    if dt == "char":
        return f("CHAR", int(length or 1)), "VARCHAR"
    if dt in ("varchar", "enum", "set"):
        return f("VARCHAR", int(length or 65536)), "VARCHAR"
    if dt in ("date", "year"):
        return f("DATE"), "DATE"
    if dt == "time":
        return f("TIME", 0), "TIME"
    if dt in ("datetime", "timestamp"):
        return f("TIMESTAMP", 0), "TIMESTAMP"
    if dt == "binary":
        return f("BINARY", int(length or 1)), "VARBINARY"
    if dt == "varbinary":
        return f("VARBINARY", int(length or 65536)), "VARBINARY"
    if dt in ("tinyblob", "blob", "mediumblob", "longblob"):
        return f("ANY"), "VARBINARY"
    return f("ANY"), "VARCHAR"


def _info(field: SqlField) -> dict[str, Any]:
    """INFORMATION_SCHEMA.COLUMNS cells: metadata.column_attributes, with the database's
    fractional seconds for TIME and TIMESTAMP (Drill shows 0 digits for MariaDB's, 3 for
    PostgreSQL's)."""
    info = column_attributes(field)
    if field.type in ("TIME", "TIMESTAMP") and field.precision is not None:
        p = field.precision
        base = 8 if field.type == "TIME" else 19
        info.update(DATETIME_PRECISION=p, COLUMN_SIZE=base + (p + 1 if p else 0))
    return info


def list_columns(
    spark: SparkSession,
    config: Config,
    schema: str | Sequence[str] | None,
    table: str,
    name: str = TYPE,
) -> list[JdbcColumn]:
    """The columns of `schema`.`table` (Drill's name rules: the schema in any case, the table
    exactly or, with caseInsensitiveTableNames, in lower case) with Drill 1.22's types, in
    the table's order. An unknown table is a JdbcError naming it as Drill does."""
    cfg = _config(config, name)
    db_schema, db_table = resolve(spark, cfg, schema, table)
    if cfg.kind == OTHER:
        return _columns_from_spark(spark, cfg, db_schema, db_table)
    return _columns_by_table(spark, cfg, db_schema, db_table).get((db_schema, db_table), [])


# PostgreSQL's columns as information_schema.columns computes them, but of every table whatever
# the user's privileges on it (its JDBC driver's getColumns, which Drill lists, does not ask):
# name, data_type, udt_name, is_nullable, character_maximum_length, numeric_precision,
# numeric_scale, ordinal_position, schema, table
_TRUE = "information_schema._pg_truetypid(a.*, t.*), information_schema._pg_truetypmod(a.*, t.*)"
_PG_COLUMNS = (
    "SELECT a.attname, CASE WHEN t.typtype = 'd' THEN CASE WHEN bt.typelem <> 0 AND "
    "bt.typlen = -1 THEN 'ARRAY' WHEN nbt.nspname = 'pg_catalog' THEN "
    "format_type(t.typbasetype, NULL) ELSE 'USER-DEFINED' END ELSE CASE WHEN t.typelem <> 0 "
    "AND t.typlen = -1 THEN 'ARRAY' WHEN nt.nspname = 'pg_catalog' THEN "
    "format_type(a.atttypid, NULL) ELSE 'USER-DEFINED' END END AS data_type, t.typname, "
    "CASE WHEN a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) THEN 'NO' ELSE 'YES' END AS is_nullable, "
    f"information_schema._pg_char_max_length({_TRUE}) AS length, "
    f"information_schema._pg_numeric_precision({_TRUE}) AS numeric_precision, "
    f"information_schema._pg_numeric_scale({_TRUE}) AS numeric_scale, a.attnum, n.nspname, "
    "c.relname "
    "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid "
    "JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid "
    "JOIN pg_catalog.pg_type t ON a.atttypid = t.oid "
    "JOIN pg_catalog.pg_namespace nt ON t.typnamespace = nt.oid "
    "LEFT JOIN (pg_catalog.pg_type bt JOIN pg_catalog.pg_namespace nbt "
    "ON bt.typnamespace = nbt.oid) ON t.typtype = 'd' AND t.typbasetype = bt.oid "
    "WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'f', 'p')"
)


def _columns_by_table(
    spark: SparkSession, cfg: JdbcConfig, db_schema: str | None, db_table: str | None = None
) -> dict[tuple[str, str], list[JdbcColumn]]:
    """{(database schema, table): its JdbcColumns in order} of one table, or of every table
    of the database (`db_schema` None; PostgreSQL or MariaDB / MySQL): one catalog query."""
    where = ""
    if db_schema is not None and db_table is not None:
        s, t = _sql_text(cfg.kind, db_schema), _sql_text(cfg.kind, db_table)
        where = f" WHERE table_schema = {s} AND table_name = {t}"
    if cfg.kind == POSTGRESQL:
        where = where.replace("table_schema", "n.nspname").replace("table_name", "c.relname")
        sql = _PG_COLUMNS + (where.replace(" WHERE", " AND") if where else "")
        typed = _pg_column
    else:
        sql = (
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, CHARACTER_MAXIMUM_LENGTH, "
            "NUMERIC_PRECISION, NUMERIC_SCALE, ORDINAL_POSITION, TABLE_SCHEMA, TABLE_NAME "
            f"FROM information_schema.COLUMNS{where}"
        )
        typed = _mysql_column
    grouped: dict[tuple[str, str], list[tuple]] = {}
    for row in query(spark, cfg, sql, "cannot list columns"):
        grouped.setdefault((str(row[8]), str(row[9])), []).append(row)
    out: dict[tuple[str, str], list[JdbcColumn]] = {}
    for key, rows in grouped.items():
        columns = []
        for i, row in enumerate(sorted(rows, key=lambda r: int(r[7])), start=1):
            f, read = typed(row)
            columns.append(JdbcColumn(f.name, i, f, read, str(row[1]), _info(f)))
        out[key] = columns
    return out


def _columns_from_spark(
    spark: SparkSession, cfg: JdbcConfig, db_schema: str, db_table: str
) -> list[JdbcColumn]:
    """Another database's columns: Drill's names of the Spark types it is read as."""
    from drillspark.spark.drill_types import drill_name_of

    df = _load(spark, cfg, db_schema, db_table)
    out = []
    for i, sf in enumerate(drill_frame(df, cfg.kind).schema.fields, start=1):
        t = sf.dataType
        planning_names: dict[type[T.DataType], str] = {
            T.IntegerType: "INTEGER",
            T.LongType: "BIGINT",
            T.DoubleType: "DOUBLE",
            T.BooleanType: "BOOLEAN",
            T.StringType: "VARCHAR",
            T.DateType: "DATE",
            T.TimestampNTZType: "TIMESTAMP",
            T.TimeType: "TIME",
            T.BinaryType: "VARBINARY",
        }
        planning = planning_names.get(type(t), "ANY")
        if isinstance(t, T.DecimalType):
            f = SqlField(sf.name, "DECIMAL", sf.nullable, t.precision, t.scale)
        else:
            f = SqlField(sf.name, planning, sf.nullable)
        out.append(JdbcColumn(sf.name, i, f, drill_name_of(t), t.simpleString(), _info(f)))
    return out


# ------------------------------------------------------------------- SHOW / INFORMATION_SCHEMA


def show_tables(
    spark: SparkSession, config: Config, parts: Sequence[str], name: str = TYPE
) -> tuple[str, list[str]] | None:
    """SHOW TABLES IN `name`.`parts`: (the schema as Drill shows it, table names), as Drill
    1.22 answers it: the plugin alone lists its current schema's tables under that schema's
    name (`pg.public`), PostgreSQL's database (`pg.shop`) the same tables under its own name;
    MariaDB's plugin alone holds none. None when `parts` names no schema of the plugin."""
    cfg = _config(config, name)
    if len(parts) > 1:
        return None
    if not parts:
        if cfg.kind != POSTGRESQL:
            return name, []
        shown = f"{name}.{_defaults(spark, cfg)[1]}"
    else:
        found = _match(parts[0], list_schemas(spark, cfg, name))
        if found is None:
            return None
        shown = f"{name}.{found}"
    return shown, [t for t, _ in list_tables(spark, cfg, list(parts), name)]


def ischema_entries(spark: SparkSession, config: Config, name: str = TYPE) -> list[dict]:
    """The plugin's schemas as the INFORMATION_SCHEMA engine's config lists them (SCHEMATA:
    TYPE `jdbc`; mutable when the plugin is `writable`, the plugin alone never, as Drill
    shows them): the plugin itself and each schema of its database, `workspace` holding the
    schema's name under the plugin ("" for the plugin). A plugin whose database cannot be
    reached lists none (Drill leaves it out of SHOW SCHEMAS too)."""
    cfg = _config(config, name)
    try:
        names = list_schemas(spark, cfg, name)
    except JdbcError:
        return []
    entry = {"type": TYPE, "views": False, "plugin": name}
    out = [{**entry, "name": name, "mutable": False, "workspace": ""}]
    out += [
        {**entry, "name": f"{name}.{s}", "mutable": cfg.writable, "workspace": s} for s in names
    ]
    return out


class SchemaCatalog:
    """One schema of a jdbc plugin for INFORMATION_SCHEMA.TABLES and COLUMNS (metadata.py's
    `Schema.catalog`): its tables and their columns with Drill 1.22's types, asked of the
    database when first wanted, one catalog query for every schema of the plugin."""

    def __init__(self, plugin: PluginCatalog, schema: str):
        self.plugin, self.schema = plugin, schema

    def tables(self) -> list[tuple[str, str]]:
        """(table, TABLE_TYPE) pairs."""
        db_schema = self.plugin.db_schema(self.schema)
        return [] if db_schema is None else self.plugin.tables().get(db_schema, [])

    def columns(self) -> list[tuple[str, list[tuple[SqlField, Mapping[str, Any]]]]]:
        """(table, its (field, INFORMATION_SCHEMA.COLUMNS cells)) of the tables that have
        columns (Drill lists none for an index or a sequence)."""
        db_schema = self.plugin.db_schema(self.schema)
        if db_schema is None:
            return []
        by_table = self.plugin.columns()
        return [
            (t, [(c.field, c.info) for c in by_table[(db_schema, t)]])
            for t, _ in self.tables()
            if (db_schema, t) in by_table
        ]


class PluginCatalog:
    """A jdbc plugin's whole catalog for one INFORMATION_SCHEMA read, asked once."""

    def __init__(self, spark: SparkSession, cfg: JdbcConfig):
        self.spark, self.cfg = spark, cfg
        self._tables: dict[str, list[tuple[str, str]]] | None = None
        self._columns: dict[tuple[str, str], list[JdbcColumn]] | None = None

    def db_schema(self, schema: str) -> str | None:
        """The database's schema of `schema` (a name `list_schemas` gave, "" for the plugin):
        itself, or the current schema for PostgreSQL's database and the plugin alone."""
        if self.cfg.kind == POSTGRESQL:
            database, current = _defaults(self.spark, self.cfg)
            return current if schema in ("", database) else schema
        return schema or (None if self.cfg.kind == MYSQL else "")

    def tables(self) -> dict[str, list[tuple[str, str]]]:
        if self._tables is None:
            self._tables = _tables_by_schema(self.spark, self.cfg, None)
        return self._tables

    def columns(self) -> dict[tuple[str, str], list[JdbcColumn]]:
        if self._columns is None:
            if self.cfg.kind == OTHER:  # no catalog query known: Spark's types, table by table
                self._columns = {
                    (s, t): _columns_from_spark(self.spark, self.cfg, s, t)
                    for s, tables in self.tables().items()
                    for t, kind in tables
                    if kind in ("TABLE", "VIEW")
                }
            else:
                self._columns = _columns_by_table(self.spark, self.cfg, None)
        return self._columns


def ischema_catalogs(configs: Mapping[str, Any]) -> Any:
    """For the INFORMATION_SCHEMA engine: `(spark, schema) -> SchemaCatalog | None`, the
    catalog of a jdbc schema its config lists (`type` jdbc, `plugin`, `workspace`), the
    plugin's config taken from the run's storage `configs` (the real one: the plan carries
    it masked)."""
    plugins: dict[str, PluginCatalog] = {}

    def catalog_of(spark: SparkSession, schema: Any) -> SchemaCatalog | None:
        if getattr(schema, "type", None) != TYPE:
            return None
        name = str(schema.plugin)
        if name not in plugins:
            config = configs.get(name)
            if not isinstance(config, Mapping) or config.get("type") != TYPE:
                raise JdbcError(
                    f"INFORMATION_SCHEMA lists jdbc storage plugin {name!r}, which this run "
                    "is not given (pass its config with storage={...})"
                )
            plugins[name] = PluginCatalog(spark, JdbcConfig.of(name, config))
        return SchemaCatalog(plugins[name], str(schema.workspace))

    return catalog_of


# --------------------------------------------------------------------------------- reads


def _not_found(error: BaseException) -> bool:
    return _condition(error) in (
        "TABLE_OR_VIEW_NOT_FOUND",
        "SCHEMA_NOT_FOUND",
        "NO_SUCH_TABLE",
    ) or "TABLE_OR_VIEW_NOT_FOUND" in str(error)


def _load(spark: SparkSession, cfg: JdbcConfig, db_schema: str, db_table: str) -> DataFrame:
    """The table through the plugin's catalog (DSv2: every push-down). A PostgreSQL table with
    a `numeric` of no precision is read through Spark's DSv1 JDBC relation instead, those
    columns as DOUBLE (`customSchema`), as Drill reads them: the catalog would type them
    DECIMAL(38, 18) and fail on a value of more than 20 digits before the point. That
    relation pushes filters and columns down, not aggregates, limits or top-N."""
    catalog = catalog_name(spark, cfg)
    df = spark.read.table(_ident(catalog, db_schema, db_table))
    free = [f.name for f in df.schema.fields if free_numeric(f)]
    if not free:
        return df
    custom = ", ".join(f"{quote(n)} DOUBLE" for n in free)
    table = ".".join('"' + p.replace('"', '""') + '"' for p in (db_schema, db_table))
    return (
        spark.read.format("jdbc")
        .options(**cfg.options())
        .option("dbtable", table)
        .option("customSchema", custom)
        .load()
    )


def catalog_table(spark: SparkSession, cfg: JdbcConfig, db_schema: str, db_table: str) -> DataFrame:
    """The table as Spark's JDBC catalog reads it (DSv2), its columns bare: as the database
    and its driver type them."""
    return spark.read.table(_ident(catalog_name(spark, cfg), db_schema, db_table))


def catalog_schema(spark: SparkSession, cfg: JdbcConfig, db_schema: str, db_table: str) -> Any:
    """The table's columns as Spark's JDBC catalog types them (with the driver's metadata:
    `free_numeric` needs it), whatever read `resolved_frame` chose."""
    return catalog_table(spark, cfg, db_schema, db_table).schema


def free_numeric(f: T.StructField) -> bool:
    """A PostgreSQL `numeric` declared without precision (its driver reports precision and
    scale 0, which Spark reads as DECIMAL(38, 18))."""
    meta = f.metadata or {}
    return (
        str(meta.get("jdbcClientType", "")).lower() == "numeric"
        and f.dataType == T.DecimalType(38, 18)
        and meta.get("scale") == 0
    )


def resolve(
    spark: SparkSession, cfg: JdbcConfig, schema: str | Sequence[str] | None, table: str
) -> tuple[str, str]:
    """(schema, table) as the database names them, by Drill's rules."""
    return resolved_frame(spark, cfg, schema, table)[:2]


def resolved_frame(
    spark: SparkSession, cfg: JdbcConfig, schema: str | Sequence[str] | None, table: str
) -> tuple[str, str, DataFrame]:
    """(schema, table, the table's DataFrame) by Drill's rules: the schema as given, else the
    one whose name differs only in case; the table as given, else (caseInsensitiveTableNames)
    in lower case."""
    if not cfg.enabled:
        raise JdbcError(f"storage plugin {cfg.name!r} is disabled")
    parts = _parts(schema)
    shown = ".".join([cfg.name, *parts])
    candidates = [table] + (
        [table.lower()] if cfg.case_insensitive and table.lower() != table else []
    )

    def attempt(db_schema: str) -> tuple[str, str, DataFrame] | None:
        for name in candidates:
            try:
                return db_schema, name, _load(spark, cfg, db_schema, name)
            except Exception as e:
                if not _not_found(e):
                    raise failure(cfg, e, f"cannot read {shown}.{table}") from None
        return None

    # the fast way: the schema spelt as the database spells it (no catalog query)
    if len(parts) == 1:
        found = attempt(parts[0])
        if found is not None:
            return found
    db_schema = _schema_in_db(spark, cfg, parts)
    if db_schema is not None and db_schema != (parts[0] if parts else None):
        found = attempt(db_schema)
        if found is not None:
            return found
    raise JdbcTableMissing(
        f"Object '{table}' not found within '{shown}' (jdbc storage plugin {cfg.name!r})"
    )


def drill_column(f: T.StructField, kind: str, source: str | None = None) -> Column:
    """The column `f` of a table Spark's JDBC source read, with the type and value Drill 1.22's
    `jdbc` plugin gives: its integers below INT are INT, every float FLOAT8, PostgreSQL's
    numeric (JDBC NUMERIC) FLOAT8 while a DECIMAL stays VARDECIMAL, TIMESTAMP without a zone
    (a `timestamptz` as wall-clock time in the session's zone), TIME in milliseconds,
    MariaDB's CHAR without the padding Spark adds. Types Drill 1.22 reads as a VARCHAR of
    NULLs (PostgreSQL's bytea, uuid, json, interval, arrays) are VARCHAR here too, holding
    the value as text (an array as JSON, a bytea as `\\x` and hex digits). `source` names
    the column to read when it is not `f.name` (`t1.id` quoted, a joined table's); the result
    is named `f.name` then."""
    c = F.col(source or quote(f.name))
    t = f.dataType
    client = str(f.metadata.get("jdbcClientType", "")).lower() if f.metadata else ""
    if isinstance(t, (T.ByteType, T.ShortType)):
        c = c.cast(T.IntegerType())
    elif isinstance(t, T.FloatType):
        # the double of the float's own text, as Drill's getDouble reads it (a real 0.1 is
        # 0.1, not the float's 0.10000000149011612)
        c = c.cast(T.StringType()).cast(T.DoubleType())
    elif isinstance(t, T.DecimalType) and client == "numeric":
        c = c.cast(T.DoubleType())
    elif isinstance(t, T.TimestampType):
        c = c.cast(T.TimestampNTZType())
    elif isinstance(t, T.TimeType) and t.precision != 3:
        c = c.cast(T.TimeType(3))
    elif isinstance(t, T.StringType) and kind == MYSQL and client == "char":
        c = F.rtrim(c)
    elif isinstance(t, T.BinaryType) and client == "bytea":
        c = F.concat(F.lit("\\x"), F.lower(F.hex(c)))
    elif isinstance(t, (T.ArrayType, T.StructType, T.MapType)):
        c = F.to_json(c)
    elif isinstance(t, T.DecimalType):  # a table's DECIMAL: typed when Drill plans (_avg)
        return c.alias(f.name, metadata={**(f.metadata or {}), PLAN_TYPED: True})
    elif source is None:
        return c
    return c.alias(f.name)


def drill_frame(df: DataFrame, kind: str) -> DataFrame:
    """`df` (a table Spark's JDBC source read) with Drill's types (`drill_column`)."""
    columns = [drill_column(f, kind) for f in df.schema.fields]
    return df.select(*columns)


def selection_of(selection: Any, plugin: str, what: str = "scan") -> tuple[list[str], str]:
    """(schema parts, table) of a scan's selection or a store's target:
    `{"schema": "public", "table": "orders"}`; `schema` may be a list of one name or absent."""
    if not isinstance(selection, Mapping) or not selection.get("table"):
        raise JdbcError(
            f"{what} of jdbc storage plugin {plugin!r} needs a {'selection' if what == 'scan' else 'target'} "
            '{"schema": "<schema>", "table": "<table>"}'
        )
    schema = selection.get("schema")
    if schema is not None and not isinstance(schema, (str, list, tuple)):
        raise JdbcError(
            f"{what} of jdbc storage plugin {plugin!r}: 'schema' must be a name or a list"
        )
    return _parts(schema), str(selection["table"])


# -------------------------------------------------------------------------------- writes

# column types no database table takes (Drill's maps, dicts, unions)
_UNWRITABLE = (T.StructType, T.MapType, T.VariantType, T.CalendarIntervalType, T.NullType)


def _writable_frame(df: DataFrame, cfg: JdbcConfig, shown: str) -> DataFrame:
    """`df` as it can be written: columns of a type no table takes are an error naming them
    (arrays are PostgreSQL's only)."""
    bad = [
        f"{f.name} ({f.dataType.simpleString()})"
        for f in df.schema.fields
        if isinstance(f.dataType, _UNWRITABLE)
        or (isinstance(f.dataType, T.ArrayType) and cfg.kind != POSTGRESQL)
    ]
    if bad:
        raise JdbcError(
            f"jdbc storage plugin {cfg.name!r}: cannot write {shown}: columns of these "
            f"types have no database type: {', '.join(bad)}"
        )
    return df


def _execute(spark: SparkSession, cfg: JdbcConfig, statement: str, doing: str) -> None:
    """Run one statement in the database: Spark's JDBC source runs `sessionInitStatement`
    on the connection it opens for a query (here one that reads nothing)."""
    opts = {k: v for k, v in cfg.options().items() if not k.startswith("pushDown")}
    try:
        spark.read.format("jdbc").options(**opts).option("sessionInitStatement", statement).option(
            "query", "SELECT 1 AS done"
        ).load().collect()
    except Exception as e:
        raise failure(cfg, e, doing) from None


def _fixed_columns(df: DataFrame, cfg: JdbcConfig) -> list[str]:
    """ALTER TABLE clauses for the columns whose type Spark's dialect makes lose what Drill
    keeps: MySQL's DATETIME has no fraction unless asked for one (Spark's
    `createTableColumnTypes` takes only Spark's own type names)."""
    if cfg.kind != MYSQL:
        return []
    return [
        f"MODIFY COLUMN {_table_text(cfg, f.name)} DATETIME(6) {'NULL' if f.nullable else 'NOT NULL'}"
        for f in df.schema.fields
        if isinstance(f.dataType, (T.TimestampType, T.TimestampNTZType))
    ]


def _table_text(cfg: JdbcConfig, *parts: str) -> str:
    """A table's name quoted as the database quotes names."""
    if cfg.kind == MYSQL:
        return ".".join("`" + p.replace("`", "``") + "`" for p in parts)
    return ".".join('"' + p.replace('"', '""') + '"' for p in parts)


def _immutable(cfg: JdbcConfig, parts: Sequence[str]) -> JdbcError:
    shown = ".".join([cfg.name, *parts])
    return ImmutableSchemaError(f"Unable to create or drop objects. Schema [{shown}] is immutable.")


def new_table(
    spark: SparkSession,
    config: Config,
    schema: str | Sequence[str] | None,
    table: str,
    name: str = TYPE,
) -> tuple[str, str]:
    """(the database's schema, Drill's name of it) a CTAS may create `table` in, else Drill's
    error: the plugin is not writable, or the name is taken. SQL asks it before the query
    runs (Drill refuses at validation), the write asks it again."""
    cfg = _config(config, name)
    parts = _parts(schema)
    if not cfg.enabled:
        raise JdbcError(f"storage plugin {cfg.name!r} is disabled")
    if not cfg.writable:
        raise _immutable(cfg, parts)
    db_schema = _schema_in_db(spark, cfg, parts)
    if db_schema is None:
        raise _immutable(cfg, parts)
    shown_schema = ".".join([cfg.name, *parts]) if parts else f"{cfg.name}.{db_schema}"
    existing = [n for n, _ in list_tables(spark, cfg, db_schema)]
    if table in existing or (cfg.case_insensitive and table.lower() in existing):
        raise TableExistsError(
            f"A table or view with given name [{table}] already exists in schema [{shown_schema}]"
        )
    return db_schema, shown_schema


def write_table(
    df: DataFrame,
    config: Config,
    schema: str | Sequence[str] | None,
    table: str,
    name: str = TYPE,
) -> WriteReport:
    """CTAS: `df` as a new table `schema`.`table` of a `writable` plugin. The rows go to a
    staging table first, renamed to `table` once every row is in, so a failed write leaves
    nothing; an existing table is an error (Drill's)."""
    cfg = _config(config, name)
    spark = df.sparkSession
    db_schema, shown_schema = new_table(spark, cfg, schema, table)
    frame = _writable_frame(df, cfg, f"{shown_schema}.{table}")
    catalog = catalog_name(spark, cfg)
    stage = f"drillspark_tmp_{uuid.uuid4().hex[:12]}"
    observation = Observation("jdbc_write")
    counted = frame.observe(observation, F.count(F.lit(1)).alias("rows"))
    staged = _table_text(cfg, db_schema, stage)

    def writer(data: DataFrame, mode: str) -> Any:
        return (
            data.write.format("jdbc").options(**cfg.options()).option("dbtable", staged).mode(mode)
        )

    try:
        fixes = _fixed_columns(frame, cfg)
        if fixes:  # the empty table first, its columns fixed, then the rows
            writer(frame.limit(0), "errorifexists").save()
            _execute(spark, cfg, f"ALTER TABLE {staged} {', '.join(fixes)}", "cannot write")
            writer(counted, "append").save()
        else:
            writer(counted, "errorifexists").save()
        spark.sql(
            f"ALTER TABLE {_ident(catalog, db_schema, stage)} RENAME TO {_ident(db_schema, table)}"
        )
    except Exception as e:
        # the staging table goes; a database that is gone keeps it, nothing else can be done
        with contextlib.suppress(Exception):
            spark.sql(f"DROP TABLE IF EXISTS {_ident(catalog, db_schema, stage)}")
        raise failure(cfg, e, f"cannot write {shown_schema}.{table}") from None
    rows = int((observation.get or {}).get("rows", 0))
    return WriteReport(path=f"{shown_schema}.{table}", format=TYPE, rows=rows)


def drop_table(
    spark: SparkSession,
    config: Config,
    schema: str | Sequence[str] | None,
    table: str,
    name: str = TYPE,
) -> None:
    """DROP TABLE of a `writable` plugin's table (Drill's name rules)."""
    cfg = _config(config, name)
    parts = _parts(schema)
    if not cfg.writable:
        raise _immutable(cfg, parts)
    db_schema, db_table, _ = resolved_frame(spark, cfg, parts, table)
    try:
        spark.sql(f"DROP TABLE {_ident(catalog_name(spark, cfg), db_schema, db_table)}")
    except Exception as e:
        raise failure(cfg, e, f"cannot drop {'.'.join([cfg.name, *parts, table])}") from None


# -------------------------------------------------------------------------------- engine


@dataclass
class JdbcEngine(StorageEngine):
    """The `jdbc` storage engine of a plan: scans read a table, stores create one."""

    readable = True
    pushes_aggregates = True

    @property
    def jdbc(self) -> JdbcConfig:
        return JdbcConfig.of(self.name, self.config)

    @property
    def writable(self) -> bool:
        return self.jdbc.writable

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        cfg = self.jdbc
        parts, table = selection_of(selection, self.name)
        _, _, df = resolved_frame(spark, cfg, parts, table)
        try:
            return drill_frame(df, cfg.kind)
        except Exception as e:
            raise failure(cfg, e, f"cannot read {'.'.join([self.name, *parts, table])}") from None

    def write(self, df: DataFrame, target: Any) -> WriteReport:
        parts, table = selection_of(target, self.name, "store")
        return write_table(df, self.jdbc, parts, table)
