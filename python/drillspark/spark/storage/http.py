"""The `http` storage plugin: REST APIs read as schema-free records, with Apache Drill 1.22's
config (plugin_configs/http.py), names and answers (docs/storage.md).

A table is a connection: ``api.conn`` (a connection with `requireTail: false`) or
``api.conn.`tail` `` (`requireTail: true`: the name is appended to the connection's `url`, a
query string included). A plan's scan selects `{"connection": C, "tail": T, "params": {...}}`;
`params` are the connection's `params` given values (SQL's `WHERE p = 'x'` on a listed
parameter, pushed into the request as Drill does: sql/catalog.py). The responses are fetched
when the scan is planned (a bounded snapshot) with the connection's method, headers, basic
credentials and paginator, then read by the extension's `drill` reader, the one JSON reader of
files too (its type rules and options; `dataPath` selects the records, `jsonOptions` set the
reader's options), through `drillspark.records.RecordBatch`.

Only the connection's own scheme, host and port are ever contacted: a tail that would lead
elsewhere, or a redirect to another host, is refused (no SSRF through SQL). A 4xx answer is no
rows, as in Drill (with `errorOn400`, an error); a 5xx, a refused connection, a timeout
(`timeout` seconds, 0: 10 s), a malformed response or a paginator that never ends is an error
naming the plugin, connection, URL (and page) and the cause; a credential never appears in one.
"""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from pyspark.sql import DataFrame, SparkSession

from drillspark.plugin_configs.http import HttpConfig
from drillspark.spark.storage import readers
from drillspark.spark.storage.base import StorageEngine, StorageError, parsed_config
from drillspark.spark.storage.record_pages import classic_jvm

TYPE = "http"
DEFAULT_TIMEOUT = 10.0  # seconds, when the plugin's `timeout` is 0 (Drill's okhttp default)
MAX_PAGES = 10_000  # a paginator that has not ended by then never will
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


@dataclass(frozen=True)
class Request:
    plugin: str
    connection: str
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None

    def where(self, page: int = 0, url: str | None = None) -> str:
        at = f", page {page}" if page else ""
        shown = shown_url(url or self.url)
        return f"http plugin '{self.plugin}', connection '{self.connection}'{at} ({self.method} {shown})"


def shown_url(url: str) -> str:
    """`url` as messages show it: a password in its user part masked."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":*****@", 1)


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


def base_url(conn: Mapping[str, Any], tail: str | None) -> str:
    """The connection's URL with `tail` appended (requireTail), kept on the connection's own
    scheme, host and port."""
    url = str(conn["url"])
    if tail:
        url = url + tail
    given, built = urlsplit(str(conn["url"])), urlsplit(url)
    if (built.scheme, built.netloc) != (given.scheme, given.netloc):
        raise HttpPluginError(
            f"connection '{conn['name']}': the table name {tail!r} would lead away from "
            f"{shown_url(given.scheme + '://' + given.netloc)} (only the configured host is "
            "contacted)"
        )
    return url


def with_query(url: str, params: Mapping[str, Any]) -> str:
    if not params:
        return url
    return url + ("&" if urlsplit(url).query else "?") + urlencode(params)


def requests_of(
    plugin: str, config: Mapping[str, Any], conn: Mapping[str, Any], url: str
) -> tuple[dict[str, str], bytes | None]:
    """The headers (basic credentials included) and body of the connection's requests."""
    headers = {str(k): str(v) for k, v in (conn.get("headers") or {}).items()}
    if str(conn.get("authType") or "none").lower() == "basic":
        creds = (conn.get("credentialsProvider") or {}).get("credentials") or {}
        plugin_creds = (config.get("credentialsProvider") or {}).get("credentials") or {}
        user = creds.get("username", conn.get("username")) or plugin_creds.get("username")
        password = creds.get("password", conn.get("password")) or plugin_creds.get("password")
        if user is None:
            raise HttpPluginError(
                f"http plugin '{plugin}', connection '{conn['name']}': authType basic needs "
                "credentialsProvider.credentials.username and password"
            )
        token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    body = None
    if str(conn.get("method") or "GET").upper() == "POST":
        # Drill sends postBody's lines as a form, `a=1` then `b=2` as a=1&b=2
        lines = [ln.strip() for ln in str(conn.get("postBody") or "").splitlines() if ln.strip()]
        body = "&".join(lines).encode()
        headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    return headers, body


class _SameHost(urllib.request.HTTPRedirectHandler):
    """Redirects are followed only on the host they started from."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            raise urllib.error.HTTPError(
                newurl, code, f"redirect to another host ({new.netloc}) refused", headers, fp
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


# no proxy from the environment (http_proxy, ...): a proxy is the plugin config's to name
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _SameHost())


def fetch(
    req: Request, url: str, timeout: float, error_on_400: bool, page: int = 0
) -> bytes | None:
    """One response's body; None for a 4xx answer (Drill's: no rows) unless `error_on_400`."""
    where = req.where(page, url)
    request = urllib.request.Request(url, data=req.body, headers=req.headers, method=req.method)
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return bytes(response.read())
    except urllib.error.HTTPError as e:
        if 400 <= e.code < 500 and not error_on_400:
            return None
        raise HttpPluginError(
            f"HTTP request failed: response code {e.code} ({e.reason}), {where}"
        ) from None
    except TimeoutError:
        raise HttpPluginError(f"HTTP request timed out after {timeout:g} s, {where}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise HttpPluginError(f"HTTP request failed: {reason}, {where}") from None


def paginator_of(conn: Mapping[str, Any]) -> dict[str, Any] | None:
    p = conn.get("paginator")
    if not p:
        return None
    method = str(p.get("method") or "").upper().replace("-", "_")
    size = int(p.get("pageSize") or 0)
    if method not in ("OFFSET", "PAGE"):
        raise HttpPluginError(
            f"connection '{conn['name']}': the {method} paginator is not supported yet "
            "(OFFSET and PAGE are)"
        )
    if size <= 0:
        raise HttpPluginError(
            f"connection '{conn['name']}': the paginator needs a pageSize above 0"
        )
    return {**p, "method": method, "pageSize": size, "maxRecords": int(p.get("maxRecords") or 0)}


def json_reader_options(conn: Mapping[str, Any]) -> dict[str, str]:
    given = conn.get("jsonOptions") or {}
    config = {JSON_OPTION_NAMES.get(k, k): v for k, v in given.items() if v is not None}
    config.pop("schema", None)
    try:
        return readers.json_options(config)
    except readers.ReadError as e:
        raise HttpPluginError(f"connection '{conn['name']}': jsonOptions: {e}") from None


@dataclass
class HttpEngine(StorageEngine):
    """The `http` storage engine of a plan: a scan reads one connection's responses."""

    readable = True

    def read(self, spark: SparkSession, selection: Any) -> DataFrame:
        if not isinstance(selection, Mapping) or not selection.get("connection"):
            raise HttpPluginError(
                f"scan of {self.name!r} (http) needs a selection with a connection"
            )
        conn = connection_of(self.name, self.config, str(selection["connection"]))
        tail = selection.get("tail")
        if conn.get("requireTail") is True and not tail:
            raise HttpPluginError(
                f"http plugin '{self.name}', connection '{conn['name']}' needs a table name "
                f"after it (requireTail): {self.name}.{conn['name']}.`...`"
            )
        if str(conn.get("inputType") or "json").lower() != "json":
            raise HttpPluginError(
                f"connection '{conn['name']}': inputType {conn['inputType']} is not read yet "
                "(json is)"
            )
        url = base_url(conn, str(tail) if conn.get("requireTail") and tail else None)
        params = {str(k): v for k, v in (selection.get("params") or {}).items()}
        headers, body = requests_of(self.name, self.config, conn, url)
        req = Request(self.name, conn["name"], str(conn["method"]).upper(), url, headers, body)
        timeout = float(self.config.get("timeout") or 0) or DEFAULT_TIMEOUT
        error_on_400 = conn.get("errorOn400") is True
        options = json_reader_options(conn)
        jvm = classic_jvm(spark, f"http plugin '{self.name}'", HttpPluginError)
        batch = jvm.drillspark.records.RecordBatch()
        data_path = str(conn.get("dataPath") or "")
        paginator = paginator_of(conn)
        page, offset, total = 0, 0, 0
        while True:
            page += 1
            query = dict(params)
            if paginator is not None:
                size = paginator["pageSize"]
                if paginator["maxRecords"]:
                    size = min(size, paginator["maxRecords"] - total)
                if paginator["method"] == "OFFSET":
                    query[paginator.get("offsetParam") or "offset"] = offset
                    query[paginator.get("limitParam") or "limit"] = size
                else:
                    query[paginator.get("pageParam") or "page"] = page
                    query[paginator.get("pageSizeParam") or "per_page"] = paginator["pageSize"]
            page_url = with_query(url, query)
            data = fetch(req, page_url, timeout, error_on_400, page if paginator else 0)
            if data is None:
                break
            place = req.where(page if paginator else 0, page_url)
            try:
                records = int(batch.add(place, bytearray(data), data_path))
            except Exception as e:  # the reader's message: place, line, column, cause
                raise HttpPluginError(_jvm_message(e)) from None
            total += records
            if paginator is None or records < paginator["pageSize"] or records == 0:
                break
            if paginator["maxRecords"] and total >= paginator["maxRecords"]:
                break
            if page >= MAX_PAGES:
                raise HttpPluginError(
                    f"{req.where()}: the paginator had not ended after {MAX_PAGES} pages "
                    f"({total} records); set paginator.maxRecords"
                )
            offset += paginator["pageSize"]
        paths = list(batch.paths())
        if not paths:
            return spark.createDataFrame([], "dummy string").select()
        df = spark.read.format("drill").options(**options).load(paths)
        del batch  # the table holds the pages now
        if paginator is not None and paginator["maxRecords"] and total > paginator["maxRecords"]:
            df = df.limit(paginator["maxRecords"])  # an API that serves more than it was asked
        return df


def _jvm_message(e: Exception) -> str:
    text = str(getattr(e, "java_exception", None) or e)
    for line in text.splitlines():
        if "DrillScanException:" in line:
            return line.split("DrillScanException:", 1)[1].strip()
    return text.splitlines()[0] if text else repr(e)


def table_selection(name: str, config: Mapping[str, Any], parts: tuple[str, ...]) -> dict[str, Any]:
    """The scan selection of ``name.parts`` (SQL's names), or HttpPluginError."""
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
    if tail is not None:
        base_url(conn, tail)  # refused now, at its place in the SQL, if it leads elsewhere
    return {"connection": conn["name"], "tail": tail}


def pushable_params(config: Mapping[str, Any], connection: str) -> dict[str, str]:
    """The connection's `params` a WHERE clause may set: folded name -> name."""
    for conn, spec in (config.get("connections") or {}).items():
        if conn.lower() == connection.lower():
            return {str(p).lower(): str(p) for p in (spec.get("params") or [])}
    return {}


def schemas(config: Mapping[str, Any]) -> list[str]:
    """The connections that are schemas (their tables are names appended to the URL), as
    Drill lists them: those with requireTail (its default)."""
    return sorted(
        c
        for c, spec in (config.get("connections") or {}).items()
        if isinstance(spec, Mapping) and spec.get("requireTail", True) is not False
    )
