"""The `http` storage plugin: REST APIs read as schema-free records, with Apache Drill 1.22's
config (plugin_configs/http.py), names and answers (docs/storage.md).

A table is a connection: ``api.conn`` (a connection with `requireTail: false`) or
``api.conn.`tail` `` (`requireTail: true`: the name is appended to the connection's `url`, a
query string included). A plan's scan selects `{"connection": C, "tail": T, "params": {...}}`;
`params` are the connection's `params` given values (SQL's `WHERE p = 'x'` on a listed
parameter, pushed into the request as Drill does: sql/catalog.py), sent where
`postParameterLocation` says; a `limit` (a LIMIT the scan reaches through projects alone,
spark/ops_sources.py) goes into the request as `limitQueryParam` and stops a paginator early.
The responses are fetched when the scan is planned (a bounded snapshot) with the connection's
method, headers, basic credentials and paginator (OFFSET, PAGE, INDEX, HEADER_INDEX), then read
by the extension's readers: JSON by the `drill` reader, the one JSON reader of files too (its
type rules and options; `dataPath` selects the records, `jsonOptions` set the reader's
options), through `drillspark.records.RecordBatch`; CSV and XML by the text and xml formats'
readers (`drill-text`, `drill-xml`: formats/text.py, formats/xml.py) over the same pages.

Only the connection's own scheme, host and port are ever contacted: a tail, a next-page URL
(INDEX's `nextPageParam`, HEADER_INDEX's header) or a redirect that would lead elsewhere is
refused (no SSRF through SQL). A 4xx answer is no rows, as in Drill (with `errorOn400`, an
error); a 5xx, a refused connection, a timeout (`timeout` seconds, 0: 10 s), a malformed
response or a paginator that never ends (asks a page again, or passes 10,000 pages) is an
error naming the plugin, connection, URL (and page) and the cause; a credential never
appears in one.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from email.message import Message
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit, urlunsplit
from xml.sax.saxutils import escape as xml_escape

from pyspark.sql import DataFrame, SparkSession

from drillspark.formats.text import FORMAT as TEXT
from drillspark.formats.xml import FORMAT as XML
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


def same_host(url: str, other: str) -> bool:
    """Whether `other` is on `url`'s scheme, host and port: the one rule by which only a
    configured host is contacted (table names, next pages, redirects)."""
    a, b = urlsplit(url), urlsplit(other)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return shown_url(parts.scheme + "://" + parts.netloc)


def base_url(conn: Mapping[str, Any], tail: str | None) -> str:
    """The connection's URL with `tail` appended (requireTail), kept on the connection's own
    scheme, host and port."""
    url = str(conn["url"])
    if tail:
        url = url + tail
    if not same_host(str(conn["url"]), url):
        raise HttpPluginError(
            f"connection '{conn['name']}': the table name {tail!r} would lead away from "
            f"{_origin(str(conn['url']))} (only the configured host is contacted)"
        )
    return url


def with_query(url: str, params: Mapping[str, Any]) -> str:
    if not params:
        return url
    return url + ("&" if urlsplit(url).query else "?") + urlencode(params)


def credentials_header(
    plugin: str, config: Mapping[str, Any], conn: Mapping[str, Any]
) -> dict[str, str]:
    """The connection's headers, basic credentials included."""
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
    return headers


def post_location(conn: Mapping[str, Any]) -> str:
    return str(conn.get("postParameterLocation") or "QUERY_STRING").upper()


def request_body(
    conn: Mapping[str, Any], params: Mapping[str, Any]
) -> tuple[dict[str, Any], bytes | None, str | None]:
    """Where the pushed `params` go and the body of a POST, as Drill 1.22 sends them: the
    parameters for the query string, the body, its content type. QUERY_STRING: parameters in
    the URL, `postBody`'s lines as a form (`a=1` and `b=2` as a=1&b=2); POST_BODY: the
    parameters after those lines in the form; JSON_BODY: one object of both, values as text;
    XML_BODY: `<request><p>v</p>...</request>` of the parameters alone. A GET sends none."""
    if str(conn.get("method") or "GET").upper() != "POST":
        return dict(params), None, None
    lines = [ln.strip() for ln in str(conn.get("postBody") or "").splitlines() if ln.strip()]
    where = post_location(conn)
    text = {k: _text(v) for k, v in params.items()}
    if where == "POST_BODY":
        body = "&".join([*lines, *([urlencode(text)] if text else [])])
        return {}, body.encode(), "application/x-www-form-urlencoded"
    if where == "JSON_BODY":
        pairs = dict(_pair(ln) for ln in lines)
        return {}, json.dumps({**pairs, **text}).encode(), "application/json"
    if where == "XML_BODY":
        inner = "".join(f"<{k}>{xml_escape(v)}</{k}>" for k, v in text.items())
        return {}, f"<request>{inner}</request>".encode(), "application/xml"
    return dict(params), "&".join(lines).encode(), "application/x-www-form-urlencoded"


def _pair(line: str) -> tuple[str, str]:
    key, _, value = line.partition("=")
    return key, value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _SameHost(urllib.request.HTTPRedirectHandler):
    """Redirects are followed only on the host they started from."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        if not same_host(req.full_url, newurl):
            raise urllib.error.HTTPError(
                newurl,
                code,
                f"redirect to another host ({urlsplit(newurl).netloc}) refused",
                headers,
                fp,
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


# no proxy from the environment (http_proxy, ...): a proxy is the plugin config's to name
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _SameHost())


@dataclass(frozen=True)
class Response:
    body: bytes
    headers: Mapping[str, str]


def proxy_url(name: str, config: Mapping[str, Any]) -> str | None:
    """The plugin's proxy as a URL (``http://user:password@host:port``), None for none:
    Drill's `proxyType` (`direct`, the default, or `http`), `proxyHost`, `proxyPort` and
    `proxyUsername` / `proxyPassword` (in the plugin or its credentialsProvider's credentials)."""
    kind = str(config.get("proxyType") or "direct").strip().lower()
    host = str(config.get("proxyHost") or "").strip()
    if kind == "direct" or not host:
        return None
    if kind != "http":
        raise HttpPluginError(
            f"http plugin '{name}': proxyType {kind!r} is not supported here (direct or http)"
        )
    port = int(config.get("proxyPort") or 0) or 80
    creds = ((config.get("credentialsProvider") or {}).get("credentials")) or {}
    user = config.get("proxyUsername") or creds.get("proxyUsername")
    password = config.get("proxyPassword") or creds.get("proxyPassword")
    auth = ""
    if user:
        auth = (
            quote(str(user), safe="")
            + (":" + quote(str(password), safe="") if password else "")
            + "@"
        )
    return f"http://{auth}{host}:{port}"


# Drill's cacheResults keeps answers in OkHttp's disk cache of 10 MiB; this one is in memory
CACHE_BYTES = 10 * 1024 * 1024


class Headers(Mapping[str, str]):
    """HTTP header fields by name, case-insensitively as HTTP names them; a later source's
    field replaces an earlier one of the same name (a 304's fields over the kept answer's)."""

    def __init__(self, *sources: Mapping[str, str] | Message) -> None:
        self._fields: dict[str, tuple[str, str]] = {}
        for source in sources:
            for name, value in source.items():
                self._fields[name.lower()] = (name, value)

    def __getitem__(self, name: str) -> str:
        return self._fields[name.lower()][1]

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._fields.values())

    def __len__(self) -> int:
        return len(self._fields)


@dataclass
class _Cached:
    body: bytes
    headers: Mapping[str, str]
    fresh_until: float
    etag: str | None
    modified: str | None


class ResponseCache:
    """GET answers kept by plugin and URL (request headers included), by HTTP's caching rules
    as OkHttp applies them for Drill's `cacheResults`: an answer fresh by `Cache-Control:
    max-age` or `Expires` is served without a request; a stale one with an `ETag` or
    `Last-Modified` is asked again conditionally (a 304 keeps the body); `no-store` is never
    kept, `no-cache` always asked again. The oldest answers go past CACHE_BYTES."""

    def __init__(self) -> None:
        self._entries: dict[tuple[Any, ...], _Cached] = {}
        self._lock = threading.Lock()
        self.requests = 0  # requests that reached the network (the tests count them)

    def get(self, key: tuple[Any, ...]) -> _Cached | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: tuple[Any, ...], body: bytes, headers: Mapping[str, str]) -> None:
        control = {
            k.strip().lower(): v.strip().strip('"')
            for part in str(headers.get("Cache-Control") or "").split(",")
            if part.strip()
            for k, _, v in [part.partition("=")]
        }
        if "no-store" in control:
            return
        now = time.time()
        lifetime = 0.0
        if "no-cache" not in control:
            if control.get("max-age", "").isdigit():
                lifetime = float(control["max-age"])
            elif headers.get("Expires"):
                try:
                    expires = parsedate_to_datetime(str(headers["Expires"])).timestamp()
                    lifetime = max(0.0, expires - now)
                except (TypeError, ValueError):
                    lifetime = 0.0
        etag, modified = headers.get("ETag"), headers.get("Last-Modified")
        if lifetime <= 0 and not etag and not modified:
            return  # nothing would ever let it be used again
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = _Cached(body, Headers(headers), now + lifetime, etag, modified)
            while sum(len(e.body) for e in self._entries.values()) > CACHE_BYTES and self._entries:
                self._entries.pop(next(iter(self._entries)))

    def sent(self) -> None:
        """One more request reached the network (from any thread)."""
        with self._lock:
            self.requests += 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


CACHE = ResponseCache()


@dataclass(frozen=True)
class Transport:
    """How a plugin's requests go out: directly or through its proxy, cached or not."""

    opener: Any = _OPENER
    cached: bool = False
    plugin: str = ""


def transport_of(name: str, config: Mapping[str, Any]) -> Transport:
    proxy = proxy_url(name, config)
    opener = _OPENER
    if proxy is not None:
        proxies = urllib.request.ProxyHandler({"http": proxy, "https": proxy})
        opener = urllib.request.build_opener(proxies, _SameHost())
    return Transport(opener, config.get("cacheResults") is True, name)


def fetch(
    req: Request,
    url: str,
    timeout: float,
    error_on_400: bool,
    page: int = 0,
    via: Transport = Transport(),  # noqa: B008 - frozen, shared on purpose
) -> Response | None:
    """One response; None for a 4xx answer (Drill's: no rows) unless `error_on_400`."""
    where = req.where(page, url)
    headers = dict(req.headers)
    key = (via.plugin, req.connection, url, tuple(sorted(headers.items())))
    kept = CACHE.get(key) if via.cached and req.method == "GET" else None
    if kept is not None and kept.fresh_until > time.time():
        return Response(kept.body, kept.headers)
    if kept is not None:  # stale: asked again, conditionally
        if kept.etag:
            headers["If-None-Match"] = kept.etag
        if kept.modified:
            headers["If-Modified-Since"] = kept.modified
    request = urllib.request.Request(url, data=req.body, headers=headers, method=req.method)
    try:
        CACHE.sent()
        with via.opener.open(request, timeout=timeout) as response:
            got = Response(bytes(response.read()), response.headers)
        if via.cached and req.method == "GET":
            CACHE.put(key, got.body, got.headers)
        return got
    except urllib.error.HTTPError as e:
        if e.code == 304 and kept is not None:
            CACHE.put(key, kept.body, Headers(kept.headers, e.headers or {}))
            return Response(kept.body, kept.headers)
        if e.code == 407:  # the proxy's refusal, not the API's answer
            raise HttpPluginError(
                "HTTP request failed: the proxy refused the plugin's proxy credentials "
                f"(407 Proxy Authentication Required), {where}"
            ) from None
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
    where = f"connection '{conn['name']}': the {method} paginator"
    if method in ("OFFSET", "PAGE") and size <= 0:
        raise HttpPluginError(f"{where} needs a pageSize above 0")
    if method == "INDEX" and not p.get("nextPageParam") and not p.get("indexParam"):
        raise HttpPluginError(f"{where} needs indexParam (with hasMoreParam) or nextPageParam")
    if method == "HEADER_INDEX" and not p.get("nextPageParam"):
        raise HttpPluginError(f"{where} needs nextPageParam (the response header to follow)")
    return {**p, "method": method, "pageSize": size, "maxRecords": int(p.get("maxRecords") or 0)}


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
        return "drill-text", TEXT.source_options(config)
    except ValueError as e:
        raise HttpPluginError(str(e)) from None


def without_blank_lines(body: bytes) -> bytes:
    """CSV's `skipEmptyLines` (Drill's default): lines of nothing but white space dropped."""
    lines = body.split(b"\n")
    return b"\n".join(ln for ln in lines if ln.strip())


def with_param(url: str, name: str, value: Any) -> str:
    """`url` with query parameter `name` set to `value` (replaced if there)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != name]
    query.append((name, _text(value)))
    return urlunsplit(parts._replace(query=urlencode(query)))


_LINK = re.compile(r"<([^>]*)>([^,<]*)")


def header_next(value: str | None) -> str | None:
    """The next page's URL in a response header: a Link header's `rel="next"` entry (or, with
    no rel at all, its first URL), else the header's value itself."""
    if not value or not value.strip():
        return None
    links = _LINK.findall(value)
    if not links:
        return value.strip()
    for url, params in links:
        rels = re.findall(r'rel\s*=\s*"?([^";]+)"?', params)
        if any("next" in r.lower().split() for r in rels):
            return url.strip()
    return None if any("rel" in p for _, p in links) else links[0][0].strip()


def answer_fields(data: bytes, names: list[str]) -> dict[str, Any]:
    """INDEX's paging fields (`hasMoreParam`, `indexParam`, `nextPageParam`): members of the
    answer's top object; absent when the answer is not an object."""
    try:
        top = json.loads(data)
    except ValueError:
        return {}
    if not isinstance(top, dict):
        return {}
    return {n: top.get(n) for n in names if n}


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
        tail = selection.get("tail")
        if conn.get("requireTail") is True and not tail:
            raise HttpPluginError(
                f"http plugin '{self.name}', connection '{conn['name']}' needs a table name "
                f"after it (requireTail): {self.name}.{conn['name']}.`...`"
            )
        kind = str(conn.get("inputType") or "json").lower()
        url = base_url(conn, str(tail) if conn.get("requireTail") and tail else None)
        params = {str(k): v for k, v in (selection.get("params") or {}).items()}
        limit = selection.get("limit")
        limit = int(limit) if isinstance(limit, int) and limit >= 0 else None
        headers = credentials_header(self.name, self.config, conn)
        query, body, content_type = request_body(conn, params)
        if content_type is not None:
            headers.setdefault("Content-Type", content_type)
        req = Request(self.name, conn["name"], str(conn["method"]).upper(), url, headers, body)
        if kind == "json":
            source, options = "drill", json_reader_options(conn)
        else:
            source, options = format_config(conn)
        jvm = classic_jvm(spark, f"http plugin '{self.name}'", HttpPluginError)
        batch = jvm.drillspark.records.RecordBatch()
        total = self._pages(jvm, batch, req, conn, kind, source, options, query, limit)
        paths = list(batch.paths())
        if not paths:
            return spark.createDataFrame([], "dummy string").select()
        try:
            df = spark.read.format(source).options(**options).load(paths)
        except Exception as e:  # noqa: BLE001 - the reader's refusal, as one paragraph
            raise HttpPluginError(_jvm_message(e)) from None
        del batch  # the table holds the pages now
        if source == "drill-text":
            df = _csv_values(df)
        paginator = paginator_of(conn)
        if paginator is not None and paginator["maxRecords"] and total > paginator["maxRecords"]:
            df = df.limit(paginator["maxRecords"])  # an API that serves more than it was asked
        return df

    def _pages(
        self,
        jvm: Any,
        batch: Any,
        req: Request,
        conn: Mapping[str, Any],
        kind: str,
        source: str,
        options: Mapping[str, str],
        query: Mapping[str, Any],
        limit: int | None,
    ) -> int:
        """Fetch the connection's pages into `batch` as its paginator goes; the records read."""
        timeout = float(self.config.get("timeout") or 0) or DEFAULT_TIMEOUT
        via = transport_of(self.name, self.config)
        error_on_400 = conn.get("errorOn400") is True
        data_path = str(conn.get("dataPath") or "")
        paginator = paginator_of(conn) or {}
        method = paginator.get("method")
        limit_param = conn.get("limitQueryParam")
        first = with_query(req.url, query)
        if limit_param and limit is not None:
            first = with_param(first, str(limit_param), limit)
        page, offset, total = 0, 0, 0
        url: str | None = first
        asked: set[str] = set()
        cap = int(paginator.get("maxRecords") or 0)
        if limit is not None:
            cap = min(cap, limit) if cap else limit
        while url is not None:
            page += 1
            if method in ("OFFSET", "PAGE"):
                size = paginator["pageSize"]
                if method == "OFFSET":
                    if paginator["maxRecords"]:
                        size = min(size, paginator["maxRecords"] - total)
                    url = with_query(
                        first,
                        {
                            paginator.get("offsetParam") or "offset": offset,
                            paginator.get("limitParam") or "limit": size,
                        },
                    )
                else:
                    url = with_query(
                        first,
                        {
                            paginator.get("pageParam") or "page": page,
                            paginator.get("pageSizeParam") or "per_page": size,
                        },
                    )
                if limit_param and limit is not None:  # after the paginator's, as Drill
                    url = with_param(url, str(limit_param), limit)
            if url in asked:
                raise HttpPluginError(
                    f"{req.where(page, url)}: the {method} paginator asks for a page it asked "
                    f"before (it would never end; {total} records so far)"
                )
            asked.add(url)
            number = page if method else 0
            response = fetch(req, url, timeout, error_on_400, number, via)
            if response is None:
                break
            place = req.where(number, url)
            try:
                if kind == "json":
                    records = int(batch.add(place, bytearray(response.body), data_path))
                else:
                    data = response.body
                    if kind == "csv" and (conn.get("csvOptions") or {}).get("skipEmptyLines", True):
                        data = without_blank_lines(data)
                    name = "text" if kind == "csv" else "xml"
                    records = int(
                        jvm.drillspark.formats.FormatPages.add(
                            batch, name, place, bytearray(data), dict(options)
                        )
                    )
            except Exception as e:  # the reader's message: place, line, column, cause
                raise HttpPluginError(_jvm_message(e)) from None
            total += records
            if not method or records == 0 or (cap and total >= cap):
                break
            if page >= MAX_PAGES:
                raise HttpPluginError(
                    f"{req.where()}: the paginator had not ended after {MAX_PAGES} pages "
                    f"({total} records); set paginator.maxRecords"
                )
            if method in ("OFFSET", "PAGE"):
                if records < paginator["pageSize"]:
                    break
                offset += paginator["pageSize"]
            elif method == "INDEX":
                url = self._index_next(req, paginator, response, first, url, page)
            else:
                name = str(paginator["nextPageParam"])
                found = header_next(response.headers.get(name))
                url = self._same_host(req, url, found, page, f"header {name}")
        return total

    def _index_next(
        self,
        req: Request,
        paginator: Mapping[str, Any],
        response: Response,
        first: str,
        url: str,
        page: int,
    ) -> str | None:
        """INDEX: the next page from the answer's fields, None when it says there is none."""
        more, index, nxt = (
            str(paginator.get(k) or "") for k in ("hasMoreParam", "indexParam", "nextPageParam")
        )
        fields = answer_fields(response.body, [more, index, nxt])
        if more and fields.get(more) not in (True, "true", "True"):
            return None
        if nxt:
            return self._same_host(req, url, fields.get(nxt), page, f"field {nxt}")
        value = fields.get(index)
        if value is None or value == "":
            return None
        return with_param(first, index, value)

    @staticmethod
    def _same_host(req: Request, url: str, found: Any, page: int, what: str) -> str | None:
        """A next page's URL from the API (relative ones resolved), on the configured host."""
        if found is None or not str(found).strip():
            return None
        nxt = urljoin(url, str(found).strip())
        if not same_host(req.url, nxt):
            raise HttpPluginError(
                f"{req.where(page, url)}: the next page's URL ({what}) leads to another host "
                f"({_origin(nxt)}); only the configured host is contacted"
            )
        return nxt


def _csv_values(df: DataFrame) -> DataFrame:
    """CSV values as Drill's http plugin gives them: white space around a value dropped and
    an empty value NULL (`ignoreLeadingWhitespaces`, `ignoreTrailingWhitespaces`, no
    `nullValue`: Drill 1.22's defaults)."""
    from pyspark.sql import functions as F

    from drillspark.spark.scope import quote

    def clean(name: str) -> Any:
        trimmed = F.trim(F.col(quote(name)))
        return F.when(trimmed == "", F.lit(None)).otherwise(trimmed).alias(name)

    return df.select(*[clean(c) for c in df.columns])


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
