"""Drill's metadata schemas as storage engines: `INFORMATION_SCHEMA` (type `ischema`) and `sys`
(type `system-tables`). A scan names the table (`selection.table`); the rows are computed when
the plan runs, from the engine's config (the schemas and workspaces of the session, the
options), so a plan lists the views that exist when it runs, not when it was written.

Column names, types, nullability and row contents follow Drill 1.22 (asked with Drill itself:
`SELECT * FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA IN ('information_schema', 'sys')`).
"""

from __future__ import annotations

import collections
import datetime as _dt
import json
import os
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from drillspark.options import boot
from drillspark.spark.storage import filesystems, stamps
from drillspark.spark.storage import workspaces as wsp
from drillspark.spark.storage.base import StorageEngine, StorageError
from drillspark.spark.storage.views import ViewFile, list_views

# (folder, entry name) -> whether that symlink entry leads out of its confined workspace
LeadsOut = Callable[[str, str], bool]

DRILL_VERSION = "1.22.0"  # the Drill release drillspark is compatible with
V, INT, B, BOOL, TS, DBL, FLT = (
    "VARCHAR",
    "INTEGER",
    "BIGINT",
    "BOOLEAN",
    "TIMESTAMP",
    "DOUBLE",
    "FLOAT",
)


def _cols(
    spec: str, kinds: dict[str, str] | None = None, nullable: set[str] | None = None
) -> list[tuple[str, str, bool]]:
    kinds = kinds or {}
    nullable = nullable or set()
    return [(c, kinds.get(c, V), c in nullable) for c in spec.split()]


# INFORMATION_SCHEMA: every column NOT NULL in Drill's own COLUMNS listing.
ISCHEMA_TABLES: dict[str, list[tuple[str, str, bool]]] = {
    "VIEWS": _cols("TABLE_CATALOG TABLE_SCHEMA TABLE_NAME VIEW_DEFINITION"),
    "CATALOGS": _cols("CATALOG_NAME CATALOG_DESCRIPTION CATALOG_CONNECT"),
    "COLUMNS": _cols(
        "TABLE_CATALOG TABLE_SCHEMA TABLE_NAME COLUMN_NAME ORDINAL_POSITION COLUMN_DEFAULT "
        "IS_NULLABLE DATA_TYPE CHARACTER_MAXIMUM_LENGTH CHARACTER_OCTET_LENGTH NUMERIC_PRECISION "
        "NUMERIC_PRECISION_RADIX NUMERIC_SCALE DATETIME_PRECISION INTERVAL_TYPE "
        "INTERVAL_PRECISION COLUMN_SIZE COLUMN_FORMAT NUM_NULLS MIN_VAL MAX_VAL NDV "
        "EST_NUM_NON_NULLS IS_NESTED",
        {
            **dict.fromkeys(
                [
                    "ORDINAL_POSITION",
                    "CHARACTER_MAXIMUM_LENGTH",
                    "CHARACTER_OCTET_LENGTH",
                    "NUMERIC_PRECISION",
                    "NUMERIC_PRECISION_RADIX",
                    "NUMERIC_SCALE",
                    "DATETIME_PRECISION",
                    "INTERVAL_PRECISION",
                    "COLUMN_SIZE",
                ],
                INT,
            ),
            "NUM_NULLS": B,
            "NDV": FLT,
            "EST_NUM_NON_NULLS": FLT,
            "IS_NESTED": BOOL,
        },
    ),
    "PARTITIONS": _cols(
        "TABLE_CATALOG TABLE_SCHEMA TABLE_NAME METADATA_KEY METADATA_TYPE "
        "METADATA_IDENTIFIER PARTITION_COLUMN PARTITION_VALUE LOCATION "
        "LAST_MODIFIED_TIME",
        {"LAST_MODIFIED_TIME": TS},
    ),
    "FILES": _cols(
        "SCHEMA_NAME ROOT_SCHEMA_NAME WORKSPACE_NAME FILE_NAME RELATIVE_PATH "
        "IS_DIRECTORY IS_FILE LENGTH OWNER GROUP PERMISSION ACCESS_TIME "
        "MODIFICATION_TIME",
        {
            "IS_DIRECTORY": BOOL,
            "IS_FILE": BOOL,
            "LENGTH": B,
            "ACCESS_TIME": TS,
            "MODIFICATION_TIME": TS,
        },
    ),
    "SCHEMATA": _cols("CATALOG_NAME SCHEMA_NAME SCHEMA_OWNER TYPE IS_MUTABLE"),
    "TABLES": _cols(
        "TABLE_CATALOG TABLE_SCHEMA TABLE_NAME TABLE_TYPE TABLE_SOURCE LOCATION "
        "NUM_ROWS LAST_MODIFIED_TIME",
        {"NUM_ROWS": B, "LAST_MODIFIED_TIME": TS},
    ),
}

_OPTION_COLS = _cols(
    "name kind accessibleScopes val status optionScope description",
    nullable={"val", "status", "description"},
)
_OLD_OPTION_COLS = _cols(
    "name kind accessibleScopes optionScope status num_val string_val bool_val float_val",
    {"num_val": B, "bool_val": BOOL, "float_val": DBL},
    {"num_val", "string_val", "bool_val", "float_val"},
)
_PORTS = "user_port control_port data_port http_port"
SYS_TABLES: dict[str, list[tuple[str, str, bool]]] = {
    "memory": _cols(
        "hostname user_port heap_current heap_max direct_current jvm_direct_current direct_max",
        dict.fromkeys(
            [
                "user_port",
                "heap_current",
                "heap_max",
                "direct_current",
                "jvm_direct_current",
                "direct_max",
            ],
            B,
        ),
        set(
            [
                "user_port",
                "heap_current",
                "heap_max",
                "direct_current",
                "jvm_direct_current",
                "direct_max",
            ]
        ),
    ),
    "functions": _cols("name signature returnType source internal", {"internal": BOOL}),
    "internal_options_old": _OLD_OPTION_COLS,
    "storage_aliases": _cols("alias name user isPublic", {"isPublic": BOOL}),
    "profiles": _cols(
        "queryId startTime foreman fragments user queue planTime queueTime "
        "executeTime totalTime state pluginCount pluginList query",
        {
            "startTime": TS,
            **dict.fromkeys(
                ["fragments", "planTime", "queueTime", "executeTime", "totalTime", "pluginCount"], B
            ),
        },
        set(
            [
                "startTime",
                "fragments",
                "user",
                "queue",
                "planTime",
                "queueTime",
                "executeTime",
                "totalTime",
                "state",
                "pluginCount",
                "pluginList",
                "query",
            ]
        ),
    ),
    "internal_options": _OPTION_COLS,
    "threads": _cols(
        "hostname user_port total_threads busy_threads",
        dict.fromkeys(["user_port", "total_threads", "busy_threads"], B),
        set(["user_port", "total_threads", "busy_threads"]),
    ),
    "version": _cols(
        "version commit_id commit_message commit_time build_email build_time",
        nullable=set(
            ["version", "commit_id", "commit_message", "commit_time", "build_email", "build_time"]
        ),
    ),
    "table_aliases": _cols("alias name user isPublic", {"isPublic": BOOL}),
    "options_old": _OLD_OPTION_COLS,
    "profiles_json": _cols("queryId json", nullable={"json"}),
    "options": _OPTION_COLS,
    "drillbits": _cols(
        f"hostname {_PORTS} current version state",
        {**dict.fromkeys(_PORTS.split(), INT), "current": BOOL},
        set(_PORTS.split()),
    ),
    "boot": _OLD_OPTION_COLS,
    "connections": _cols(
        "user client drillbit established duration queries isAuthenticated "
        "isEncrypted usingSSL session",
        {
            "established": TS,
            "queries": INT,
            "isAuthenticated": BOOL,
            "isEncrypted": BOOL,
            "usingSSL": BOOL,
        },
        {"user", "duration", "queries", "isAuthenticated", "isEncrypted", "usingSSL"},
    ),
}
# sys tables drillspark answers; the others are listed (TABLES, COLUMNS) but not readable.
SYS_READABLE = (
    "version",
    "drillbits",
    "options",
    "internal_options",
    "storage_aliases",
    "table_aliases",
    "memory",
    "threads",
    "functions",
    "boot",
    "profiles",
    "profiles_json",
    "connections",
)
# sys tables that describe a server (`drillspark serve`): its profiles, its clients' connections,
# its start-up settings. A server registers what answers them under its HTTP port (`serve_sys`),
# the port a statement it runs carries in the sys engine's config; without a server the
# profiles and connections are empty and the boot settings are an embedded Drillbit's.
SERVER_TABLES = ("profiles", "profiles_json", "connections", "boot")


class ServerSysTables(Protocol):
    def sys_rows(self, table: str) -> list[tuple]: ...


_SERVED: dict[int, ServerSysTables] = {}


def serve_sys(http_port: int, source: ServerSysTables | None) -> None:
    """Register (None: forget) what answers SERVER_TABLES for the server on `http_port`."""
    if source is None:
        _SERVED.pop(http_port, None)
    else:
        _SERVED[http_port] = source


_SPARK = {
    V: T.StringType(),
    INT: T.IntegerType(),
    B: T.LongType(),
    BOOL: T.BooleanType(),
    TS: T.TimestampNTZType(),
    DBL: T.DoubleType(),
    FLT: T.DoubleType(),
}


class MetadataError(StorageError):
    pass


# ----------------------------------------------------------------------------- column types
@dataclass(frozen=True)
class SqlField:
    """A column as a view file or a metadata table declares it: a Calcite type name (`ANY` for
    a schema-free column), precision / scale where the type has them, and nullability."""

    name: str
    type: str
    nullable: bool = True
    precision: int | None = None
    scale: int | None = None

    @staticmethod
    def of(field: Mapping[str, Any]) -> SqlField:
        return SqlField(
            str(field.get("name")),
            str(field.get("type", "ANY")).upper(),
            bool(field.get("isNullable", True)),
            field.get("precision"),
            field.get("scale"),
        )


# the one column Drill lists for a schema-free table it knows no columns of (a kafka topic)
DYNAMIC_STAR = SqlField("**", "DYNAMIC_STAR")

_STANDARD_NAMES = {
    "VARCHAR": "CHARACTER VARYING",
    "CHAR": "CHARACTER",
    "VARBINARY": "BINARY VARYING",
}
_BINARY_PRECISION = {
    "TINYINT": 8,
    "SMALLINT": 16,
    "INTEGER": 32,
    "BIGINT": 64,
    "FLOAT": 24,
    "REAL": 24,
    "DOUBLE": 53,
}
_INTERVAL_UNITS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")
VARCHAR_DEFAULT = 65536  # Drill's length of a VARCHAR without one


def column_attributes(f: SqlField) -> dict[str, Any]:
    """The INFORMATION_SCHEMA.COLUMNS cells Drill derives from a column's type."""
    t = f.type
    out: dict[str, Any] = {"DATA_TYPE": _STANDARD_NAMES.get(t, t)}
    if t.startswith("INTERVAL_"):
        units = t[len("INTERVAL_") :].split("_")
        lead = f.precision if f.precision is not None and f.precision > 0 else 2
        year_month = units[0] in ("YEAR", "MONTH")
        out["DATA_TYPE"] = "INTERVAL"
        out["INTERVAL_TYPE"] = " TO ".join(units)
        out["INTERVAL_PRECISION"] = lead
        out["DATETIME_PRECISION"] = 0 if year_month else 6
        # the length of its ISO-8601 text: P, T before time units, digits and a letter a unit
        out["COLUMN_SIZE"] = (
            1
            + (lead + 1) * len(units)
            + (1 if any(u in ("HOUR", "MINUTE", "SECOND") for u in units) else 0)
        )
        return out
    if t in ("VARCHAR", "CHAR", "VARBINARY", "BINARY"):
        n = (
            f.precision
            if f.precision is not None
            else (VARCHAR_DEFAULT if t in ("VARCHAR", "VARBINARY") else 1)
        )
        out["CHARACTER_MAXIMUM_LENGTH"] = n
        out["CHARACTER_OCTET_LENGTH"] = n * 4 if t in ("VARCHAR", "CHAR") else n
        out["COLUMN_SIZE"] = n
    elif t in _BINARY_PRECISION:
        p = _BINARY_PRECISION[t]
        out.update(NUMERIC_PRECISION=p, NUMERIC_PRECISION_RADIX=2, COLUMN_SIZE=p)
        if t not in ("FLOAT", "REAL", "DOUBLE"):
            out["NUMERIC_SCALE"] = 0
    elif t == "DECIMAL":
        p = f.precision if f.precision is not None else 38
        out.update(
            NUMERIC_PRECISION=p,
            NUMERIC_PRECISION_RADIX=10,
            NUMERIC_SCALE=f.scale if f.scale is not None else 0,
            COLUMN_SIZE=p,
        )
    elif t == "BOOLEAN":
        out["COLUMN_SIZE"] = 1
    elif t == "DATE":
        out.update(DATETIME_PRECISION=0, COLUMN_SIZE=10)
    elif t in ("TIME", "TIMESTAMP"):
        p = 3  # Drill keeps milliseconds
        out.update(DATETIME_PRECISION=p, COLUMN_SIZE=(8 if t == "TIME" else 19) + p + 1)
    return out


# ----------------------------------------------------------------------------- the engines
# the DataFrames of the newest catalog answers, per Spark session, by their columns and rows: a
# BI tool asks the same INFORMATION_SCHEMA question once per table it looks at (#37), and the
# same rows make the same LocalRelation, which costs an Arrow conversion and JVM calls to build.
# Kept on the session itself: each frame holds its session, so a table outside it (a
# WeakKeyDictionary's values too) would keep every session alive; held by the session, the
# frames go with it (a cycle the garbage collector frees once the session is dropped)
_FRAMES = "_drillspark_catalog_frames"
_FRAMES_KEPT = 32
_FRAMES_LOCK = threading.Lock()


def _frame_key(columns: list[tuple[str, str, bool]], rows: list[tuple]) -> Any:
    """The frame's identity, or None: each value with its class (1, 1.0 and True are equal in
    Python, not in the answer) and a float by its text (-0.0 is 0.0, NaN is not NaN)."""
    try:
        key = (
            tuple(columns),
            tuple(
                tuple((v.__class__, repr(v) if isinstance(v, float) else v) for v in r)
                for r in rows
            ),
        )
        hash(key)
    except TypeError:  # a list or a map among the values: built each time
        return None
    return key


def _kept_frames(spark: SparkSession) -> collections.OrderedDict[Any, DataFrame]:
    kept: collections.OrderedDict[Any, DataFrame] | None = getattr(spark, _FRAMES, None)
    if kept is None:
        kept = collections.OrderedDict()
        setattr(spark, _FRAMES, kept)
    return kept


def _frame(
    spark: SparkSession, columns: list[tuple[str, str, bool]], rows: list[tuple], key: Any = None
) -> DataFrame:
    """The rows as a DataFrame, kept by their identity (`key`: _frame_key's, if already known)."""
    key = key if key is not None else _frame_key(columns, rows)
    if key is None:
        return _new_frame(spark, columns, rows)
    with _FRAMES_LOCK:
        kept = _kept_frames(spark)
        df = kept.get(key)
        if df is not None:
            kept.move_to_end(key)
            return df
    df = _new_frame(spark, columns, rows)
    with _FRAMES_LOCK:
        kept[key] = df
        while len(kept) > _FRAMES_KEPT:
            kept.popitem(last=False)
    return df


def _new_frame(
    spark: SparkSession, columns: list[tuple[str, str, bool]], rows: list[tuple]
) -> DataFrame:
    # nullable everywhere in the frame: Spark checks NOT NULL columns row by row
    schema = T.StructType([T.StructField(n, _SPARK[t], True) for n, t, _ in columns])
    # as Arrow, Spark keeps the rows in the plan (a LocalRelation): a query over them (BI
    # tools send one per table they look at) is answered in the driver, without a job; a
    # list becomes an RDD, and its every query a Spark job
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    try:
        names = [n for n, _, _ in columns]
        table = pa.Table.from_pylist(
            [dict(zip(names, r, strict=True)) for r in rows], schema=to_arrow_schema(schema)
        )
    except (pa.ArrowException, ValueError):  # a value Arrow does not take: Spark's own check
        return spark.createDataFrame(rows, schema)
    return spark.createDataFrame(table, schema)


def _table_name(selection: Any) -> str:
    name = selection.get("table") if isinstance(selection, Mapping) else selection
    if not isinstance(name, str) or not name:
        raise MetadataError('a metadata scan names its table: selection {"table": ...}')
    return name


def _table_key(tables: Mapping[str, Any], name: str, schema: str) -> str:
    for k in tables:
        if k.lower() == name.lower():
            return k
    raise MetadataError(f"Object '{name}' not found within '{schema}'")


@dataclass
class Schema:
    """One schema of the session, as the ischema engine's config lists it. A `confined`
    workspace (the default; Drill's `allowAccessOutsideWorkspace` false) lists a symlink that
    leads out of it as the link itself and reads no view file through one (`leads_out`, the
    workspace rule's answer, set by `confine`)."""

    name: str
    type: str
    mutable: bool
    location: str | None = None
    plugin: str = ""
    workspace: str = ""
    has_views: bool = True
    confined: bool = True
    # whether its files and views are listed (not those of the classpath plugin's folder)
    listed: bool = True
    leads_out: LeadsOut | None = field(default=None, repr=False, compare=False)
    # the session a workspace on another file system (s3a://, hdfs://) is listed through
    spark: SparkSession | None = field(default=None, repr=False, compare=False)
    # schema-free tables that are neither files nor views (a kafka plugin's topics): Drill
    # lists each as a TABLE whose one column is the dynamic star `**`
    tables: tuple[str, ...] = ()
    # a database's schema (a jdbc plugin's): its `tables()` -> (name, TABLE_TYPE) and
    # `columns()` -> (table, [(SqlField, its COLUMNS cells)]), asked of the database when
    # read (set by the engine)
    catalog: Any = field(default=None, repr=False, compare=False)

    def _lists(self) -> bool:
        """A workspace whose files and views the listings show: dfs's and the other file
        plugins' (on this machine or another file system), not cp's classpath folder."""
        return self.type == "file" and self.listed and bool(self.plugin and self.location)

    def views(self) -> list[ViewFile]:
        if not self._lists() or not self.has_views:
            return []
        assert self.location is not None
        return list_views(self.location, self._entry_check(), self.spark)

    def files(self) -> list[tuple]:
        if not self._lists():
            return []
        assert self.location is not None
        if filesystems.is_remote(self.location):
            return remote_file_entries(self.spark, self.plugin, self.location)
        return file_entries(self.location, self._entry_check())

    def _entry_check(self) -> LeadsOut | None:
        if not self.confined:
            return None  # Drill's behaviour: links are followed wherever they lead
        # without the rule at hand, no link is trusted
        return self.leads_out or (lambda folder, name: True)


def schemas_of(config: Mapping[str, Any]) -> list[Schema]:
    return [
        Schema(
            str(s["name"]),
            str(s.get("type", "file")),
            bool(s.get("mutable")),
            s.get("location"),
            str(s.get("plugin", "")),
            str(s.get("workspace", "")),
            bool(s.get("views", True)),
            s.get("confined", True) not in (False, "false", "False"),
            tables=tuple(str(t) for t in s.get("tables") or ()),
            listed=s.get("listed", True) is not False,
        )
        for s in config.get("schemas") or []
    ]


def confine(spark: SparkSession, schemas: list[Schema]) -> list[Schema]:
    """Each confined file schema asks the workspace rule (workspaces.leads_out) about its
    symlink entries."""
    for s in schemas:
        s.spark = spark
        if s.location and filesystems.is_remote(s.location):
            continue  # an object store has no symlinks; its names are confined by prefix
        if s.confined and s.location and s.type == "file":
            ws = wsp.Workspace(s.workspace or s.name, s.location)
            s.leads_out = lambda folder, name, ws=ws: wsp.leads_out(spark, ws, folder, name)
    return schemas


def load_schemas(schemas: list[Schema]) -> None:
    """Each remote file plugin's file system asked once (filesystems.load_schema), as Drill
    1.22 loads every plugin's schemas for INFORMATION_SCHEMA: an unreachable one fails the
    query naming it (Drill: `PLUGIN ERROR: Failed to load schema for schema down`), it is not
    left out."""
    asked: set[str] = set()
    for s in schemas:
        if s.plugin in asked or not s.location or not filesystems.is_remote(s.location):
            continue
        asked.add(s.plugin)
        if s.spark is None:
            raise MetadataError(f"storage plugin '{s.plugin}': listed through a Spark session only")
        try:
            filesystems.load_schema(s.spark, s.plugin, s.location)
        except filesystems.FileSystemError as e:
            raise MetadataError(str(e)) from None


def ischema_rows(table: str, schemas: list[Schema]) -> list[tuple]:
    if table == "CATALOGS":
        return [("DRILL", "The internal metadata used by Drill", "")]
    load_schemas(schemas)
    if table == "SCHEMATA":
        return [("DRILL", s.name, "<owner>", s.type, "YES" if s.mutable else "NO") for s in schemas]
    if table == "TABLES":
        rows = [
            ("DRILL", "information_schema", t, "SYSTEM TABLE", None, None, None, None)
            for t in ISCHEMA_TABLES
        ]
        rows += [("DRILL", "sys", t, "SYSTEM TABLE", None, None, None, None) for t in SYS_TABLES]
        rows += [
            ("DRILL", s.name, v.name, "VIEW", None, None, None, None)
            for s in schemas
            for v in s.views()
        ]
        rows += [
            ("DRILL", s.name, t, "TABLE", None, None, None, None) for s in schemas for t in s.tables
        ]
        rows += [
            ("DRILL", s.name, t, kind, None, None, None, None)
            for s in schemas
            if s.catalog is not None
            for t, kind in s.catalog.tables()
        ]
        return rows
    if table == "VIEWS":
        return [("DRILL", s.name, v.name, v.sql) for s in schemas for v in s.views()]
    if table == "COLUMNS":
        rows = []
        listed = [("information_schema", t, cols) for t, cols in ISCHEMA_TABLES.items()]
        listed += [("sys", t, cols) for t, cols in SYS_TABLES.items()]
        for schema, t, cols in listed:
            fields = [SqlField(n, typ, nullable) for n, typ, nullable in cols]
            rows += _column_rows(schema, t, fields)
        for s in schemas:
            for v in s.views():
                rows += _column_rows(s.name, v.name, [SqlField.of(f) for f in v.fields])
            for t in s.tables:
                rows += _column_rows(s.name, t, [DYNAMIC_STAR])
            for t, columns in s.catalog.columns() if s.catalog is not None else []:
                rows += _column_rows(s.name, t, [f for f, _ in columns], [c for _, c in columns])
        return rows
    if table == "PARTITIONS":
        return []
    if table == "FILES":
        return [
            (s.name, s.plugin, s.workspace, e[0], e[0], *e[1:]) for s in schemas for e in s.files()
        ]
    raise MetadataError(f"Object '{table}' not found within 'information_schema'")


def _column_rows(
    schema: str, table: str, fields: list[SqlField], types: list[Mapping[str, Any]] | None = None
) -> list[tuple]:
    """COLUMNS rows of `fields`; `types` the type's cells when their source knows them
    better than `column_attributes` (a database's fractional seconds)."""
    names = [n for n, _, _ in ISCHEMA_TABLES["COLUMNS"]]
    rows = []
    for i, f in enumerate(fields, start=1):
        cells: dict[str, Any] = {
            "TABLE_CATALOG": "DRILL",
            "TABLE_SCHEMA": schema,
            "TABLE_NAME": table,
            "COLUMN_NAME": f.name,
            "ORDINAL_POSITION": i,
            "IS_NULLABLE": "YES" if f.nullable else "NO",
            "IS_NESTED": False,
        }
        cells.update(types[i - 1] if types is not None else column_attributes(f))
        rows.append(tuple(cells.get(n) for n in names))
    return rows


def file_entries(folder: str, leads_out: LeadsOut | None = None) -> list[tuple]:
    """(name, is_dir, is_file, length, owner, group, permissions, access, modification) of the
    entries of `folder`, as Drill's SHOW FILES and INFORMATION_SCHEMA.FILES give them (see
    `file_entry`)."""
    try:
        names = os.listdir(folder)  # directory order, as Drill 1.22 lists (readdir)
    except OSError:
        return []
    rows = (file_entry(folder, name, leads_out) for name in names)
    return [r for r in rows if r is not None]


def remote_file_entries(spark: SparkSession | None, plugin: str, folder: str) -> list[tuple]:
    """The rows of `file_entries` for a workspace folder on another file system (s3a://,
    hdfs://): its entries (a key prefix's objects and common prefixes on S3), by name; a
    prefix that holds nothing yet lists nothing. A failure names the plugin."""
    if spark is None:
        raise MetadataError(f"storage plugin '{plugin}': listed through a Spark session only")
    try:
        if not filesystems.exists(spark, folder):
            return []
        found = filesystems.entries(spark, folder)
    except Exception as e:  # noqa: BLE001  (the file system's failure, from the JVM)
        raise MetadataError(filesystems.describe(e, plugin)) from None
    return [e.row() for e in found]


def file_entry(folder: str, name: str, leads_out: LeadsOut | None = None) -> tuple | None:
    """One entry of `folder` as a listing shows it, None when it cannot be read (a dangling
    link). A symlink shows its target, as in Drill, unless `leads_out` (a confined
    workspace's rule) says it leads out of the workspace: then it is the link itself (neither
    a file nor a folder; its own size, owner, mode and times), never its target's."""
    path = os.path.join(folder, name)
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode) and (leads_out is None or not leads_out(folder, name)):
            info = os.stat(path)
    except OSError:
        return None
    return (
        name,
        stat.S_ISDIR(info.st_mode),
        stat.S_ISREG(info.st_mode),
        info.st_size,
        _user(info.st_uid),
        _group(info.st_gid),
        stat.filemode(info.st_mode)[1:],
        _utc(info.st_atime),
        _utc(info.st_mtime),
    )


def _utc(seconds: float) -> _dt.datetime:
    # Drill's times have milliseconds
    t = _dt.datetime.fromtimestamp(seconds, _dt.UTC).replace(tzinfo=None)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def _user(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


def _group(gid: int) -> str:
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return str(gid)


def sys_rows(table: str, config: Mapping[str, Any]) -> list[tuple]:
    if table == "version":
        return [
            (
                DRILL_VERSION,
                str(config.get("commit_id") or ""),
                "drillspark (Drill " + DRILL_VERSION + " compatible)",
                "",
                None,
                None,
            )
        ]
    if table == "drillbits":
        return [
            (
                "localhost",
                # only the ports that listen: NULL when no server runs the statement or its
                # native protocol is off; Drill's control and data ports have no counterpart
                _port(config.get("user_port")),
                None,
                None,
                _port(config.get("http_port")),
                True,
                DRILL_VERSION,
                "ONLINE",
            )
        ]
    if table in ("options", "internal_options"):  # rows of the SQL session's options
        return [tuple(o) for o in config.get(table) or []]
    if table in ("storage_aliases", "table_aliases"):
        return []  # no aliases are configured
    if table in SERVER_TABLES:
        server = _SERVED.get(int(config.get("http_port") or 0))
        if server is not None:
            return server.sys_rows(table)
        return boot_rows({boot.HTTP_ENABLED: False}) if table == "boot" else []
    if table == "functions":
        return function_rows()
    raise MetadataError(
        f"Unsupported: the system table sys.{table} (drillspark answers "
        f"sys.{', sys.'.join(SYS_READABLE)})"
    )


def boot_rows(settings: Mapping[str, Any]) -> list[tuple]:
    """sys.boot rows (Drill's boot configuration: what a Drillbit was started with) of
    `settings` (Drill's names -> values), by name: a bool is BOOLEAN, an int LONG, a float
    DOUBLE, anything else STRING, its text quoted as Drill's configuration renders it."""
    rows = []
    for name, value in sorted(settings.items()):
        cells: list[Any] = [None, None, None, None]  # num_val string_val bool_val float_val
        if isinstance(value, bool):
            kind, cells[2] = "BOOLEAN", value
        elif isinstance(value, int):
            kind, cells[0] = "LONG", value
        elif isinstance(value, float):
            kind, cells[3] = "DOUBLE", value
        else:
            kind, cells[1] = "STRING", json.dumps(str(value))
        rows.append((name, kind, "BOOT", "BOOT", "BOOT", *cells))
    return rows


def function_rows() -> list[tuple]:
    """sys.functions: every function drillspark's SQL calls by name (the function catalog
    and the functions registered with `drillspark.function`), one row per number of
    arguments it takes. Spark types the arguments when the query runs, so each is `LATE`
    (Drill's word for a type known only then) and so is the result."""
    from drillspark.plugins import function_names
    from drillspark.spark.functions import CATALOG

    rows = []
    for name in CATALOG.names():
        fn = CATALOG.functions[name]
        top = fn.max_args if fn.max_args is not None else fn.min_args + 1
        for n in range(fn.min_args, top + 1):
            args = ["LATE-OPTIONAL"] * n
            if fn.max_args is None and n == top:
                args[-1] = "LATE-OPTIONAL..."  # any number more
            internal = name.startswith("drill_") or name.startswith("$")
            rows.append((name, ",".join(args), "LATE", "built-in", internal))
    for name in function_names():
        if name not in CATALOG.functions:
            rows.append((name, "", "LATE", "drillspark.function", False))
    return rows


_MB = 1 << 20


def _port(value: Any) -> int | None:
    """A port that listens, or None (a config's 0 or missing port)."""
    return int(value) if value else None


def jvm_rows(spark: SparkSession, table: str, user_port: int | None) -> list[tuple]:
    """sys.memory and sys.threads of the one node that runs queries here: Spark's driver JVM
    (heap from Runtime, direct memory from its buffer pools, threads from ThreadMXBean)."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        raise MetadataError(
            f"sys.{table} reads the driver's JVM, which this Spark session does not give "
            "(Spark Connect): ask the server that runs Spark"
        )
    lang = jvm.java.lang
    factory = lang.management.ManagementFactory
    if table == "threads":
        bean = factory.getThreadMXBean()
        infos = bean.getThreadInfo(bean.getAllThreadIds())
        runnable = sum(1 for i in infos if i is not None and str(i.getThreadState()) == "RUNNABLE")
        return [("localhost", user_port, int(bean.getThreadCount()), runnable)]
    rt = lang.Runtime.getRuntime()
    direct = mapped = 0
    for pool in factory.getPlatformMXBeans(
        lang.Class.forName("java.lang.management.BufferPoolMXBean")
    ):
        if pool.getName() == "direct":
            direct = int(pool.getMemoryUsed())
        else:
            mapped += int(pool.getMemoryUsed())
    return [
        (
            "localhost",
            user_port,
            int(rt.totalMemory() - rt.freeMemory()),
            int(rt.maxMemory()),
            direct,
            direct + mapped,
            _max_direct(factory.getRuntimeMXBean().getInputArguments(), int(rt.maxMemory())),
        )
    ]


def _max_direct(jvm_args: Any, heap_max: int) -> int:
    """-XX:MaxDirectMemorySize, else the JVM's default for it: the maximum heap."""
    units = {"k": 1 << 10, "m": _MB, "g": 1 << 30, "t": 1 << 40}
    for arg in jvm_args:
        text = str(arg)
        if text.startswith("-XX:MaxDirectMemorySize="):
            value = text.split("=", 1)[1].strip().lower()
            scale = units.get(value[-1:], 1)
            digits = value[:-1] if value[-1:] in units else value
            if digits.isdigit():
                return int(digits) * scale
    return heap_max


@dataclass
class MetadataEngine(StorageEngine):
    """`ischema` / `system-tables` storage engines (read-only)."""

    readable = True
    # (spark, schema) -> the schema's database catalog (Schema.catalog) or None: the jdbc
    # plugins' (engines.py gives it the run's plugin configs)
    catalog_of: Callable[[SparkSession, Schema], Any] | None = None

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        requested = _table_name(selection)
        if self.kind == "ischema":
            table = _table_key(ISCHEMA_TABLES, requested, "information_schema")
            columns = ISCHEMA_TABLES[table]

            def rows() -> list[tuple]:
                schemas = confine(spark, schemas_of(self.config))
                if self.catalog_of is not None:
                    for s in schemas:
                        s.catalog = self.catalog_of(spark, s)
                return ischema_rows(table, schemas)

        else:
            table = _table_key(SYS_TABLES, requested, "sys")
            columns = SYS_TABLES[table]
            if table in ("memory", "threads"):
                # a JVM's gauges: they move between any two reads, so never kept
                return _frame(
                    spark, columns, jvm_rows(spark, table, _port(self.config.get("user_port")))
                )

            def rows() -> list[tuple]:
                return sys_rows(table, self.config)

        found = rows()
        key = _frame_key(columns, found)
        # a kept translation over these rows (plan_reuse) is used while the table lists the
        # same rows again: BI tools ask the same catalog questions for every table they add
        stamps.content_read(lambda: _frame_key(columns, rows()), key)
        return _frame(spark, columns, found, key)

    def write(self, df: DataFrame, target: Any) -> Any:
        raise MetadataError(f"Unable to create or drop objects. Schema [{self.name}] is immutable.")
