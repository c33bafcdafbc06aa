"""Drill's `http` plugin: REST APIs, one `connections` entry per endpoint (Drill 1.22's names
and defaults; the reads are drillspark/spark/storage/http.py)."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from drillspark.plugin_configs.base import MASK, PluginConfig, PluginConfigError

# a connection's fields: name -> (Python types allowed, Drill 1.22's default)
CONNECTION_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "url": ((str,), None),
    "requireTail": ((bool,), True),
    "method": ((str,), "GET"),
    "postBody": ((str,), None),
    "headers": ((dict,), None),
    "params": ((list,), None),
    "dataPath": ((str,), None),
    "authType": ((str,), "none"),
    "inputType": ((str,), "json"),
    "xmlDataLevel": ((int,), 1),
    "limitQueryParam": ((str,), None),
    "postParameterLocation": ((str,), "QUERY_STRING"),
    "errorOn400": ((bool,), False),
    "caseSensitiveFilters": ((bool,), False),
    "jsonOptions": ((dict,), None),
    "xmlOptions": ((dict,), None),
    "csvOptions": ((dict,), None),
    "verifySSLCert": ((bool,), True),
    "credentialsProvider": ((dict,), None),
    "paginator": ((dict,), None),
}
PAGINATOR_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "method": ((str,), None),
    "limitParam": ((str,), None),
    "offsetParam": ((str,), None),
    "pageParam": ((str,), None),
    "pageSizeParam": ((str,), None),
    "pageSize": ((int,), 0),
    "maxRecords": ((int,), 0),
    "hasMoreParam": ((str,), None),
    "indexParam": ((str,), None),
    "nextPageParam": ((str,), None),
}
METHODS = ("GET", "POST")
INPUT_TYPES = ("json", "csv", "xml")
AUTH_TYPES = ("none", "basic")
PAGINATORS = ("OFFSET", "PAGE", "INDEX", "HEADER_INDEX")
POST_LOCATIONS = ("QUERY_STRING", "POST_BODY", "JSON_BODY", "XML_BODY")
# Drill 1.22's csvOptions (HttpCSVOptions) and xmlOptions (HttpXmlOptions) fields
CSV_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "delimiter": ((str,), ","),
    "quote": ((str,), '"'),
    "quoteEscape": ((str,), '"'),
    "lineSeparator": ((str,), "\n"),
    "headerExtractionEnabled": ((bool,), None),
    "numberOfRowsToSkip": ((int,), 0),
    "numberOfRecordsToRead": ((int,), -1),
    "lineSeparatorDetectionEnabled": ((bool,), True),
    "maxColumns": ((int,), 512),
    "maxCharsPerColumn": ((int,), 4096),
    "skipEmptyLines": ((bool,), True),
    "ignoreLeadingWhitespaces": ((bool,), True),
    "ignoreTrailingWhitespaces": ((bool,), True),
    "nullValue": ((str,), None),
}
XML_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "dataLevel": ((int,), 1),
    "allTextMode": ((bool,), True),
    "schema": ((dict,), None),
}
# where a secret sits in a connection, in the plugin, and in a credentials provider
_CREDENTIALS = ("credentialsProvider", "credentials")
_SECRET_KEYS = ("password", "proxyPassword", "clientSecret", "accessToken", "refreshToken")


# Drill's URL parameters (1.20): `{name}` or `{name=default}` in a connection's `url`, filled
# from a WHERE clause's `name = value` (else the default) when the URL is requested. A name is
# ASCII letters, digits and _ (Drill 1.22's `\w+`), spaces around it allowed; the same regex
# text as the extension's records.HttpRequest.UrlParameter (a test compares the two).
_URL_PARAMETER = re.compile(r"\{ *([A-Za-z0-9_]+) *(?:=([^{}]*))?\}")
# a brace left once the parameters are taken out: `{a-b}`, `{é}`, a lone `{` or `}`
_STRAY_BRACE = re.compile(r"\{[^{}]*\}?|\}")


def url_parameters(url: str) -> dict[str, str | None]:
    """The URL parameters of a connection's `url`: name -> its default (None: none)."""
    return {m[1]: m[2] for m in _URL_PARAMETER.finditer(url)}


def _check_url(where: str, url: str) -> None:
    """A connection's url: an http(s) URL Python can take apart (host, port), no URL parameter
    in its host or port, and no brace but its URL parameters' (Drill 1.22 leaves `{a-b}` in the
    URL it asks; here a brace is not a URL's character, so the config says so now)."""
    if not url.lower().startswith(("http://", "https://")):
        raise PluginConfigError(f"{where}: 'url' must be an http:// or https:// URL")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is no number, or out of range, raises here
    except ValueError as e:  # its reason names no password: Python's words on the URL's form
        raise PluginConfigError(f"{where}: 'url' is not a valid URL ({e})") from None
    if "{" in parts.netloc or "}" in parts.netloc:
        # a value from SQL in the host would contact a host the config does not name
        raise PluginConfigError(
            f"{where}: a URL parameter ({{name}}) is taken in the url's path and query "
            "only, not in its host or port (only the configured host is contacted)"
        )
    if not parts.hostname:
        raise PluginConfigError(f"{where}: 'url' is not a valid URL (it names no host)")
    rest = url[url.index(parts.netloc) + len(parts.netloc) :]
    stray = _STRAY_BRACE.search(_URL_PARAMETER.sub("", rest))
    if stray:
        raise PluginConfigError(
            f"{where}: '{stray[0]}' in the url is not a URL parameter: a parameter is {{name}} "
            "or {name=default}, its name ASCII letters, digits and _ (as Drill's); a brace meant "
            "as itself is written %7B or %7D"
        )


_KIND_NAMES = {"dict": "an object", "list": "a list", "int": "a number", "bool": "a boolean"}


def _kind_ok(value: Any, kinds: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, str) and int in kinds:
        return value.strip().lstrip("+-").isdigit()
    return isinstance(value, kinds)


def _check_fields(
    where: str, raw: Mapping[str, Any], fields: Mapping[str, tuple[tuple[type, ...], Any]]
) -> None:
    for key, (kinds, _default) in fields.items():
        value = raw.get(key)
        if value is not None and not _kind_ok(value, kinds):
            wanted = " or ".join(_KIND_NAMES.get(k.__name__, k.__name__) for k in kinds)
            raise PluginConfigError(f"{where}: field '{key}' must be {wanted}")


class HttpConfig(PluginConfig):
    TYPE: ClassVar[str] = "http"
    DRILL_SHIPS: ClassVar[dict[str, dict[str, Any]]] = {
        "http": {"type": "http", "connections": {}, "enabled": False}
    }
    FIELDS: ClassVar[dict[str, tuple[tuple[type, ...], Any]]] = {
        "connections": ((dict,), {}),
        "cacheResults": ((bool,), False),
        "timeout": ((int,), 0),
        "retryDelay": ((int,), 1000),
        "proxyHost": ((str,), None),
        "proxyPort": ((int,), 0),
        "proxyType": ((str,), "direct"),
        "proxyUsername": ((str,), None),
        "proxyPassword": ((str,), None),
        "enableEnhancedParamSyntax": ((bool,), False),
        "credentialsProvider": ((dict,), None),
        "oAuthConfig": ((dict,), None),
        "authMode": ((str,), "SHARED_USER"),
    }
    SECRETS: ClassVar[tuple[tuple[str, ...], ...]] = (
        *((*_CREDENTIALS, k) for k in _SECRET_KEYS),
        ("proxyPassword",),
    )

    def check(self, name: str) -> None:
        connections = self.raw.get("connections") or {}
        for conn, spec in connections.items():
            where = f"storage plugin '{name}' (http), connection '{conn}'"
            if not isinstance(spec, Mapping):
                raise PluginConfigError(f"{where}: the connection must be an object")
            _check_fields(where, spec, CONNECTION_FIELDS)
            if not spec.get("url"):
                raise PluginConfigError(f"{where}: field 'url' is required")
            _check_url(where, str(spec["url"]))
            method = str(spec.get("method") or "GET").upper()
            if method not in METHODS:
                raise PluginConfigError(f"{where}: 'method' must be GET or POST, not {method!r}")
            kind = str(spec.get("inputType") or "json").lower()
            if kind not in INPUT_TYPES:
                raise PluginConfigError(f"{where}: 'inputType' must be json, csv or xml")
            auth = str(spec.get("authType") or "none").lower()
            if auth not in AUTH_TYPES:
                raise PluginConfigError(f"{where}: 'authType' must be none or basic, not {auth!r}")
            params = spec.get("params") or []
            if not all(isinstance(p, str) for p in params):
                raise PluginConfigError(f"{where}: 'params' must be a list of names")
            location = str(spec.get("postParameterLocation") or "QUERY_STRING").upper()
            if location not in POST_LOCATIONS:
                raise PluginConfigError(
                    f"{where}: 'postParameterLocation' must be one of {', '.join(POST_LOCATIONS)}"
                )
            for field, fields in (("csvOptions", CSV_FIELDS), ("xmlOptions", XML_FIELDS)):
                given = spec.get(field)
                if isinstance(given, Mapping):
                    unknown = sorted(set(given) - set(fields))
                    if unknown:
                        raise PluginConfigError(
                            f"{where}, {field}: unknown field '{unknown[0]}' (its fields: "
                            f"{', '.join(fields)})"
                        )
                    _check_fields(f"{where}, {field}", given, fields)
            paginator = spec.get("paginator")
            if paginator is not None:
                _check_fields(f"{where}, paginator", paginator, PAGINATOR_FIELDS)
                pmethod = str(paginator.get("method") or "").upper().replace("-", "_")
                if pmethod not in PAGINATORS:
                    raise PluginConfigError(
                        f"{where}: paginator 'method' must be one of {', '.join(PAGINATORS)}"
                    )

    def connections(self) -> dict[str, dict[str, Any]]:
        """Each connection's fields with Drill's defaults filled in."""
        out = {}
        for conn, spec in (self.raw.get("connections") or {}).items():
            full = {k: d for k, (_, d) in CONNECTION_FIELDS.items()}
            full.update({k: v for k, v in spec.items() if v is not None})
            out[conn] = full
        return out

    # a connection's own credentials are secrets too: every connection is masked alike
    def _secret_paths(self, raw: Mapping[str, Any]) -> list[tuple[str, ...]]:
        paths = list(self.SECRETS)
        for conn in raw.get("connections") or {}:
            paths += [("connections", conn, *_CREDENTIALS, k) for k in _SECRET_KEYS]
            paths += [("connections", conn, "password")]
        return paths

    def to_json(self, masked: bool = True) -> dict[str, Any]:
        out = super().to_json(masked)
        if masked:
            for path in self._secret_paths(out):
                if isinstance(_get(out, path), str) and _get(out, path):
                    _set(out, path, MASK)
            for spec in (out.get("connections") or {}).values():
                if isinstance(spec, dict) and _url_password(spec.get("url")):
                    spec["url"] = _with_url_password(spec["url"], MASK)
        return out

    def keeping_secrets_of(self, old: PluginConfig | None) -> PluginConfig:
        if old is None:
            return self
        raw = copy.deepcopy(self.raw)
        for path in self._secret_paths(raw):
            if _get(raw, path) == MASK and _get(old.raw, path) is not None:
                _set(raw, path, _get(old.raw, path))
        olds = old.raw.get("connections") or {}
        for conn, spec in (raw.get("connections") or {}).items():
            before = _url_password((olds.get(conn) or {}).get("url"))
            if isinstance(spec, dict) and _url_password(spec.get("url")) == MASK and before:
                spec["url"] = _with_url_password(spec["url"], before)
        return type(self)(raw)

    def secrets(self) -> list[str]:
        found = [_get(self.raw, p) for p in self._secret_paths(self.raw)]
        found += [
            _url_password(spec.get("url"))
            for spec in (self.raw.get("connections") or {}).values()
            if isinstance(spec, Mapping)
        ]
        return [v for v in found if isinstance(v, str) and v and v != MASK]


def _url_password(url: Any) -> str | None:
    """The password in a URL's user part (`http://user:secret@host/`), if any."""
    if not isinstance(url, str):
        return None
    try:
        return urlsplit(url).password
    except ValueError:
        return None


def _with_url_password(url: str, password: str) -> str:
    return url.replace(f":{_url_password(url)}@", f":{password}@", 1)


def _get(raw: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(raw, Mapping):
            return None
        raw = raw.get(key)
    return raw


def _set(raw: Any, path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        raw = raw.get(key)
        if not isinstance(raw, dict):
            return
    raw[path[-1]] = value
