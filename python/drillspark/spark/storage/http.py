"""The `http` storage plugin: REST APIs read as schema-free records, with Apache Drill 1.22's
config (plugin_configs/http.py), names and answers (docs/storage.md).

A table is a connection: ``api.conn`` (a connection with `requireTail: false`) or
``api.conn.`tail` `` (`requireTail: true`: the name is appended to the connection's `url`, a
query string included). A plan's scan selects `{"connection": C, "tail": T, "params": {...}}`;
`params` are the connection's `params` given values (SQL's `WHERE p = 'x'` on a listed
parameter, pushed into the request as Drill does: sql/catalog.py); a `limit` (a LIMIT the scan
reaches through projects alone, spark/ops_sources.py) goes into the request as
`limitQueryParam` and stops a paginator early.

This module owns the config's side: the connection (Drill's defaults filled), the names, the
parameters a WHERE may push, the reader of the answers (`drill` for JSON with `jsonOptions`;
the text and xml formats' `drill-text` / `drill-xml` for CSV and XML) and the request spec it
hands the extension. The fetching is the extension's alone (`drillspark.records.HttpPages`,
the same read Spark's catalog of the plugin uses: `catalog_confs`): the transport (timeout,
the plugin's proxy, basic auth, headers, POST bodies), the rule that only the connection's
own scheme, host and port are contacted (tails, redirects, next pages), 4xx / 5xx answers,
the paginators (OFFSET, PAGE, INDEX, HEADER_INDEX; maxRecords, limitQueryParam) and
`cacheResults`. The answers are fetched when the scan is planned (a bounded snapshot); an
error names the plugin, connection, URL (and page) and the cause, never a credential. On Spark
Connect (no JVM handle here) the connection is read through the plugin's catalog instead
(`HttpEngine._catalog_read`), which cannot take a read's `params` or `limit`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from drillspark.formats.text import FORMAT as TEXT
from drillspark.formats.xml import FORMAT as XML
from drillspark.plugin_configs.http import HttpConfig, url_parameters
from drillspark.spark.storage import readers
from drillspark.spark.storage.base import StorageEngine, StorageError, parsed_config
from drillspark.spark.storage.record_pages import (
    CatalogRead,
    catalog_said,
    classic_jvm,
    failure_line,
    session_jvm,
)

TYPE = "http"
# Spark's door (plugin_catalogs.py): the jar's catalog reading through the same HttpPages
PLUGIN_CATALOG_CLASS = "drillspark.catalog.HttpPluginCatalog"


def _catalog(spark: SparkSession, name: str, config: Mapping[str, Any], owner: str) -> CatalogRead:
    """Spark Connect's reads of plugin `name` through its catalog (record_pages.CatalogRead)."""
    return CatalogRead(
        spark, name, PLUGIN_CATALOG_CLASS, catalog_confs(name, config), owner, HttpPluginError
    )


# Drill's jsonOptions -> the drill reader's JSON format options
JSON_OPTION_NAMES = {
    "allowNanInf": "allowNanInf",
    "allTextMode": "allTextMode",
    "readNumbersAsDouble": "readNumbersAsDouble",
    "enableEscapeAnyChar": "enableEscapeAnyChar",
    "skipMalformedRecords": "skipMalformedJSONRecords",
}


class HttpPluginError(StorageError):
    """An API that cannot be read; the message names the plugin, connection and URL."""


def connection_of(name: str, config: Mapping[str, Any], conn: str) -> dict[str, Any]:
    """Connection `conn` of plugin `name` (Drill's defaults filled in), or HttpPluginError."""
    cfg = parsed_config(HttpConfig, name, config, HttpPluginError)
    connections = cfg.connections()
    found = next((c for c in connections if c.lower() == conn.lower()), None)
    if found is None:
        known = ", ".join(sorted(connections)) or "none"
        raise HttpPluginError(
            f"API '{conn}' does not exist in HTTP storage plugin '{name}' (connections: {known})"
        )
    return {"name": found, **connections[found]}


def _credentials(holder: Mapping[str, Any]) -> Mapping[str, Any]:
    return ((holder.get("credentialsProvider") or {}).get("credentials")) or {}


def request_spec(name: str, config: Mapping[str, Any], conn: Mapping[str, Any]) -> dict[str, Any]:
    """The request spec of a read of connection `conn` (connection_of's) of plugin `name`,
    as the extension's `records.HttpRequest` takes it, without the read's own `tail`,
    `params` and `limit`: the connection's fields, its basic credentials (the connection's,
    else the plugin's), and the plugin's timeout, proxy and cacheResults."""
    spec: dict[str, Any] = {
        "plugin": name,
        "connection": conn["name"],
        "url": str(conn["url"]),
        # the names alone: a default stays in the url's text (the catalog's redacted `url`)
        "urlParams": list(url_parameters(str(conn["url"]))),
        "requireTail": conn.get("requireTail") is True,
        "method": str(conn.get("method") or "GET").upper(),
        "headers": {str(k): str(v) for k, v in (conn.get("headers") or {}).items()},
        "authType": str(conn.get("authType") or "none").lower(),
        "postBody": conn.get("postBody"),
        "postParameterLocation": str(conn.get("postParameterLocation") or "QUERY_STRING").upper(),
        "limitQueryParam": conn.get("limitQueryParam"),
        "dataPath": str(conn.get("dataPath") or ""),
        "errorOn400": conn.get("errorOn400") is True,
        "paginator": conn.get("paginator") or None,
        "inputType": str(conn.get("inputType") or "json").lower(),
        "skipEmptyLines": (conn.get("csvOptions") or {}).get("skipEmptyLines", True) is not False,
        "timeout": float(config.get("timeout") or 0),
        "cacheResults": config.get("cacheResults") is True,
    }
    if spec["authType"] == "basic":
        creds, plugin_creds = _credentials(conn), _credentials(config)
        user = creds.get("username", conn.get("username")) or plugin_creds.get("username")
        password = creds.get("password", conn.get("password")) or plugin_creds.get("password")
        spec["username"] = None if user is None else str(user)
        spec["password"] = None if password is None else str(password)
    creds = _credentials(config)
    spec["proxy"] = {
        "type": str(config.get("proxyType") or "direct").strip().lower(),
        "host": str(config.get("proxyHost") or "").strip(),
        "port": int(config.get("proxyPort") or 0) or 80,
        "username": config.get("proxyUsername") or creds.get("proxyUsername"),
        "password": config.get("proxyPassword") or creds.get("proxyPassword"),
    }
    return spec


def reader_of(conn: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """The source reading a connection's answers and its options: `drill` for JSON,
    `drill-text` / `drill-xml` for CSV and XML."""
    if str(conn.get("inputType") or "json").lower() == "json":
        return "drill", json_reader_options(conn)
    return format_config(conn)


def json_reader_options(conn: Mapping[str, Any]) -> dict[str, str]:
    given = conn.get("jsonOptions") or {}
    config = {JSON_OPTION_NAMES.get(k, k): v for k, v in given.items() if v is not None}
    config.pop("schema", None)
    try:
        return readers.json_options(config)
    except readers.ReadError as e:
        raise HttpPluginError(f"connection '{conn['name']}': jsonOptions: {e}") from None


# Drill's csvOptions -> the text format's options (the rest: Drill's defaults, see below)
CSV_OPTION_NAMES = {"delimiter": "fieldDelimiter", "quote": "quote", "quoteEscape": "escape"}


def format_config(conn: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """The format reader (`text` or `xml`) of a csv / xml connection and its source options.
    CSV as Drill's http plugin reads it: a header row names VARCHAR columns (always: Drill
    1.22 ignores `headerExtractionEnabled: false`), `delimiter`, `quote`, `quoteEscape`,
    `lineSeparator`, `numberOfRowsToSkip` 1 (a first line skipped). XML: `xmlOptions.dataLevel`
    or `xmlDataLevel` (1) is the element depth of a row, values text (`allTextMode`)."""
    kind = str(conn.get("inputType") or "json").lower()
    where = f"connection '{conn['name']}': "
    try:
        if kind == "xml":
            opts = dict(conn.get("xmlOptions") or {})
            level = opts.get("dataLevel", conn.get("xmlDataLevel")) or 1
            config = XML.config({"dataLevel": level}, where + "xmlOptions: ")
            if "allTextMode" in opts:
                config["allTextMode"] = opts["allTextMode"] is not False
            return "drill-xml", XML.source_options(config)
        opts = dict(conn.get("csvOptions") or {})
        raw: dict[str, Any] = {"extractHeader": True, "comment": "#"}
        raw.update({CSV_OPTION_NAMES[k]: v for k, v in opts.items() if k in CSV_OPTION_NAMES})
        if opts.get("lineSeparator"):
            raw["lineDelimiter"] = opts["lineSeparator"]
        skip = int(opts.get("numberOfRowsToSkip") or 0)
        if skip > 1:
            raise HttpPluginError(f"{where}csvOptions: numberOfRowsToSkip above 1 is not read yet")
        raw["skipFirstLine"] = skip == 1
        config = TEXT.config(raw, where + "csvOptions: ")
        # values trimmed, an empty one NULL (Drill 1.22's http CSV: univocity's defaults)
        return "drill-text", {**TEXT.source_options(config), "trimValues": "true"}
    except ValueError as e:
        raise HttpPluginError(str(e)) from None


@dataclass
class HttpEngine(StorageEngine):
    """The `http` storage engine of a plan: a scan reads one connection's responses."""

    readable = True
    takes_limit = True  # a LIMIT over the scan goes into the request (spark/ops_sources.py)

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        if not isinstance(selection, Mapping) or not selection.get("connection"):
            raise HttpPluginError(
                f"scan of {self.name!r} (http) needs a selection with a connection"
            )
        conn = connection_of(self.name, self.config, str(selection["connection"]))
        source, options = reader_of(conn)
        spec = request_spec(self.name, self.config, conn)
        tail = selection.get("tail")
        limit = selection.get("limit")
        spec["tail"] = str(tail) if tail else None
        pushed = {str(k): v for k, v in (selection.get("params") or {}).items()}
        listed = {str(p).lower() for p in conn.get("params") or []}
        # a pushed value fills the URL parameter of its name and, if `params` lists the name
        # too, goes into the query string as well (as Drill 1.22 sends it)
        spec["params"] = {k: v for k, v in pushed.items() if k.lower() in listed}
        spec["urlValues"] = {
            k: v for k, v in pushed.items() if k.lower() in {u.lower() for u in spec["urlParams"]}
        }
        spec["limit"] = limit if isinstance(limit, int) and limit >= 0 else None
        if session_jvm(spark) is None:  # Spark Connect: through the plugin's own catalog
            return self._catalog_read(spark, conn, source, spec)
        jvm = classic_jvm(spark, f"http plugin '{self.name}'", HttpPluginError)
        batch = jvm.drillspark.records.RecordBatch()
        try:
            adder = None
            if source != "drill":
                adder = jvm.drillspark.formats.FormatPages.adder(
                    source.removeprefix("drill-"), dict(options)
                )
            total = int(
                jvm.drillspark.records.HttpPages.fetch(batch, json.dumps(spec, default=str), adder)
            )
        except Exception as e:  # noqa: BLE001 - the extension's message: plugin, URL, cause
            raise HttpPluginError(_jvm_message(e, _secrets(self.name, self.config))) from None
        paths = list(batch.paths())
        if not paths:
            return spark.createDataFrame([], "dummy string").select()
        try:
            df = spark.read.format(source).options(**options).load(paths)
        except Exception as e:  # noqa: BLE001 - the reader's refusal, as one paragraph
            raise HttpPluginError(_jvm_message(e, _secrets(self.name, self.config))) from None
        del batch  # the table holds the pages now
        max_records = int((conn.get("paginator") or {}).get("maxRecords") or 0)
        if source != "drill" and max_records and total > max_records:
            # a CSV / XML API that serves more than it was asked (JSON pages come cut)
            df = df.limit(max_records)
        return df

    def _catalog_read(
        self, spark: SparkSession, conn: Mapping[str, Any], source: str, spec: Mapping[str, Any]
    ) -> DataFrame:
        """Spark Connect: the connection as a table of the plugin's catalog (HttpPluginCatalog,
        in the server's JVM: the same HttpPages read and reader). The catalog's table is the
        connection's request as configured: a read that would change the request (WHERE
        parameters, URL parameters given by the WHERE clause, a LIMIT sent as
        `limitQueryParam`) is refused rather than answered with another request's rows; URL
        parameters with defaults (`{name=default}`) are read with them. A LIMIT a paginator
        would stop early at is left to Spark (the same rows, all pages asked)."""
        place = f"http plugin '{self.name}', connection '{conn['name']}'"
        refused = []
        if spec["params"]:
            names = ", ".join(sorted(spec["params"]))
            refused.append(f"WHERE parameters sent in the request ({names})")
        if spec["urlValues"]:
            names = ", ".join(sorted(spec["urlValues"]))
            refused.append(f"URL parameters filled from the WHERE clause ({names})")
        if spec["limit"] is not None and spec.get("limitQueryParam"):
            refused.append(
                f"a LIMIT sent in the request (limitQueryParam {spec['limitQueryParam']})"
            )
        if refused:
            raise HttpPluginError(
                f"{place}: on Spark Connect a connection is read through the plugin's Spark "
                f"catalog, which sends the connection's request as configured; this query needs "
                f"{' and '.join(refused)}: read it on a classic Spark session (with the "
                "drillspark jar)"
            )
        parts = (str(conn["name"]), *((str(spec["tail"]),) if spec.get("tail") else ()))
        df = _catalog(spark, self.name, self.config, place).table(parts)
        try:
            columns = df.columns  # Spark loads the table: the API is asked, the pages read
        except Exception as e:  # noqa: BLE001 - the catalog's failure, from the server
            raise HttpPluginError(self._catalog_failure(e, spec)) from None
        if not columns:  # an API with no record: no column, no row (as the classic read)
            return spark.createDataFrame([], "dummy string").select()
        max_records = int((conn.get("paginator") or {}).get("maxRecords") or 0)
        if source != "drill" and max_records:
            df = df.limit(max_records)  # as the classic read (a no-op below maxRecords)
        return df

    def _catalog_failure(self, e: Exception, spec: Mapping[str, Any]) -> str:
        """The catalog's failure in the classic read's words (the extension's, which name the
        plugin, connection and URL), secrets masked."""
        proxy = spec.get("proxy") or {}
        secrets = [
            str(s)
            for s in (spec.get("password"), proxy.get("password"), *spec["headers"].values())
            if s
        ]
        said = catalog_said(e, secrets)
        if said is None:
            return f"http plugin '{self.name}': {failure_line(e, secrets)}"
        table = ".".join((self.name, str(spec["connection"]), *filter(None, [spec.get("tail")])))
        told = said.removeprefix(f"cannot read {table}: ")  # the catalog's head: the table
        return (
            told if f"http plugin '{self.name}'" in told else f"http plugin '{self.name}': {said}"
        )


class _AnswerCache:
    """`cacheResults`' answers, kept in the JVM (records/HttpCache, one per JVM): what a
    caller may clear and count (the requests that reached the network)."""

    @staticmethod
    def _held() -> Any:
        spark = SparkSession.getActiveSession()
        if spark is None:
            raise HttpPluginError("the http plugin's cache is in a Spark session's JVM: none runs")
        return classic_jvm(
            spark, "the http plugin's cache", HttpPluginError
        ).drillspark.records.HttpCache

    def clear(self) -> None:
        self._held().clear()

    @property
    def requests(self) -> int:
        return int(self._held().requests())


CACHE = _AnswerCache()


def _secrets(name: str, config: Mapping[str, Any]) -> list[str]:
    """What an error must never show: the config's secrets (HttpConfig.secrets: passwords, a
    URL's password), its connections' header values and postBody (an API key is often there;
    values under 4 characters, such as `1`, would mask ordinary words and are left)."""
    try:
        found = list(parsed_config(HttpConfig, name, config, HttpPluginError).secrets())
    except HttpPluginError:
        found = []
    for spec in (config.get("connections") or {}).values():
        if isinstance(spec, Mapping):
            found += [str(v) for v in (spec.get("headers") or {}).values() if v is not None]
            if spec.get("postBody"):
                found.append(str(spec["postBody"]))
    return sorted({v for v in found if len(v) >= 4}, key=len, reverse=True)


def _jvm_message(e: Exception, secrets: Iterable[str] = ()) -> str:
    text = str(getattr(e, "java_exception", None) or e)
    line = next(
        (
            ln.split("DrillScanException:", 1)[1].strip()
            for ln in text.splitlines()
            if "DrillScanException:" in ln
        ),
        text.splitlines()[0] if text else repr(e),
    )
    for secret in secrets:
        line = line.replace(secret, "*****")
    return line


def table_selection(
    name: str, config: Mapping[str, Any], parts: tuple[str, ...], spark: SparkSession | None = None
) -> dict[str, Any]:
    """The scan selection of ``name.parts`` (SQL's names), or HttpPluginError; with `spark`, a
    table name leading to another host is refused now (the extension's same-host rule)."""
    if not parts:
        raise HttpPluginError(f"http plugin '{name}': name a connection ({name}.CONNECTION)")
    conn = connection_of(name, config, parts[0])
    if len(parts) > 2:
        raise HttpPluginError(f"http plugin '{name}': {'.'.join(parts)} is not a table")
    tail = parts[1] if len(parts) == 2 else None
    if tail is not None and conn.get("requireTail") is not True:
        raise HttpPluginError(
            f"http plugin '{name}', connection '{conn['name']}' takes no table name "
            "(requireTail is false)"
        )
    if tail is None and conn.get("requireTail") is True:
        raise HttpPluginError(
            f"http plugin '{name}', connection '{conn['name']}' needs a table name after it "
            f"(requireTail): {name}.{conn['name']}.`...`"
        )
    has_parameters = bool(url_parameters(str(conn["url"])))  # checked once filled: below
    if (
        tail is not None
        and spark is not None
        and session_jvm(spark) is not None
        and not has_parameters
    ):
        # only what the URL check reads (never the credentials, headers or body); on Spark
        # Connect the catalog's read keeps to the host (HttpPages.fetch)
        spec = {
            "plugin": name,
            "connection": conn["name"],
            "url": str(conn["url"]),
            "requireTail": True,
            "tail": tail,
        }
        jvm = classic_jvm(spark, f"http plugin '{name}'", HttpPluginError)
        try:
            jvm.drillspark.records.HttpPages.url(json.dumps(spec))
        except Exception as e:  # noqa: BLE001 - the extension's refusal, as one paragraph
            raise HttpPluginError(_jvm_message(e, _secrets(name, config))) from None
    return {"connection": conn["name"], "tail": tail}


def check_url_parameters(
    spark: SparkSession, name: str, config: Mapping[str, Any], selection: Mapping[str, Any]
) -> None:
    """Refuse now, at the table's place in the SQL, a read of a connection whose URL parameters
    (`{name}` in its url) have neither a pushed value nor a default: the extension's rule
    (records.HttpRequest), asked with the URL's fields alone. No URL parameter: nothing to ask;
    Spark Connect: the read itself refuses it."""
    conn = connection_of(name, config, str(selection["connection"]))
    declared = url_parameters(str(conn["url"]))
    jvm = session_jvm(spark)
    if not declared or jvm is None:
        return
    folded = {u.lower() for u in declared}
    spec = {
        "plugin": name,
        "connection": conn["name"],
        "url": str(conn["url"]),
        "requireTail": conn.get("requireTail") is True,
        "tail": selection.get("tail"),
        "urlParams": list(declared),
        "urlValues": {
            k: v for k, v in (selection.get("params") or {}).items() if k.lower() in folded
        },
    }
    try:
        jvm.drillspark.records.HttpPages.url(json.dumps(spec, default=str))
    except Exception as e:  # noqa: BLE001 - the extension's refusal, as one paragraph
        raise HttpPluginError(_jvm_message(e, _secrets(name, config))) from None


def pushable_params(config: Mapping[str, Any], connection: str) -> dict[str, str]:
    """The connection's `params` and URL parameters (`{name}` in its url) a WHERE clause may
    set: folded name -> name."""
    for conn, spec in (config.get("connections") or {}).items():
        if conn.lower() == connection.lower():
            names = [*(spec.get("params") or []), *url_parameters(str(spec.get("url") or ""))]
            return {str(p).lower(): str(p) for p in names}
    return {}


def schemas(config: Mapping[str, Any]) -> list[str]:
    """The connections that are schemas (their tables are names appended to the URL), as
    Drill lists them: those with requireTail (its default)."""
    return sorted(
        c
        for c, spec in (config.get("connections") or {}).items()
        if isinstance(spec, Mapping) and spec.get("requireTail", True) is not False
    )


def catalog_confs(name: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The confs of plugin `name`'s Spark catalog of its own name (spark.sql's door,
    plugin_catalogs.py; the jar's HttpPluginCatalog): each connection's request spec
    (`request_spec`, with its reader) as `cN.spec`, its secrets in confs Spark's SET redacts
    by name (`cN.url`, `cN.secret.password`, `cN.secret.username`, `cN.secret.postBody`,
    `cN.secret.header.<name>`, the plugin's `secret.proxyPassword` and
    `secret.proxyUsername`); a connection whose config cannot be read is `cN.error`."""
    cfg = parsed_config(HttpConfig, name, config, HttpPluginError)
    connections = cfg.connections()
    names = sorted(connections)
    out = {"connections": json.dumps(names)}
    for i, conn_name in enumerate(names):
        key = f"c{i}"
        conn = {"name": conn_name, **connections[conn_name]}
        try:
            source, options = reader_of(conn)
        except HttpPluginError as e:
            out[f"{key}.error"] = str(e)
            continue
        spec = request_spec(name, config, conn)
        out[f"{key}.url"] = spec.pop("url")
        for field in ("password", "username", "postBody"):
            value = spec.pop(field, None)
            if value is not None:
                out[f"{key}.secret.{field}"] = str(value)
        for header, value in spec.pop("headers").items():
            out[f"{key}.secret.header.{header}"] = value
        proxy_password = spec["proxy"].pop("password", None)
        if proxy_password:
            out["secret.proxyPassword"] = str(proxy_password)
        proxy_user = spec["proxy"].pop("username", None)
        if proxy_user:
            out["secret.proxyUsername"] = str(proxy_user)
        spec["reader"], spec["readerOptions"] = source, options
        out[f"{key}.spec"] = json.dumps(spec)
    return out
