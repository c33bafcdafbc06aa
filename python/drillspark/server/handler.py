"""The HTTP side of `drillspark serve`: Drill 1.22's REST paths, its login, and the web
console's pages, on the standard library's threaded HTTP server (one thread per
connection; a query runs in the thread of its request)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import html
import http.server
import ipaddress
import itertools
import json
import logging
import mimetypes
import re
import socket
import sys
import threading
import traceback
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from drillspark.errors import UsageError
from drillspark.options import REGISTRY
from drillspark.server import responses
from drillspark.server.auth import HttpSession, client_owner, log_text
from drillspark.server.catalog import VERBOSE_ERRORS
from drillspark.server.queries import QueryFailed, client_query_id
from drillspark.server.responses import QUERY_ID_HEADER
from drillspark.sql.errors import SqlError

if TYPE_CHECKING:
    from drillspark.server.app import DrillServer

log = logging.getLogger("drillspark.server")
COOKIE = "JSESSIONID"
PAGES = {
    "/": "index.html",
    "/query": "query.html",
    "/profiles": "profiles.html",
    "/storage": "storage.html",
    "/options": "options.html",
    "/login": "login.html",
    "/status": "status.html",
    "/logs": "logs.html",
}
PUBLIC = {"/login", "/j_security_check", "/status.json"}
_CHUNK = 64 * 1024
# A body up to this many times the request limit is read and dropped before the 413.
DRAIN_FACTOR = 8
# JSON bodies nest no deeper (Drill's requests nest 3 or 4 levels; Python's parser recurses)
MAX_JSON_DEPTH = 100
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrfToken"  # the form field Drill's console pages carry
# GETs that change something (Drill's own paths): checked as POSTs are
_UNSAFE_GET = re.compile(r"/storage/[^/]+/enable/[^/]+|/profiles/cancel/[^/]+|/logout")
_HOST = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9_.-]+))(?::(?P<port>[0-9]{1,5}))?"
)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
_WILDCARD = ("", "0.0.0.0", "::")


class HttpError(UsageError):
    """Answered as Drill answers errors: `{"errorMessage" : ...}` with `status`."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def split_host(value: str) -> tuple[str, int | None] | None:
    """`name[:port]` or `[v6][:port]` (a Host header, an Origin's authority) as (lower-case
    name without a final dot or brackets, port); None when it is neither."""
    m = _HOST.fullmatch(value.strip())
    if m is None:
        return None
    name = (m["v6"] or m["name"]).lower().rstrip(".")
    return name, int(m["port"]) if m["port"] else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class ServedHosts:
    """The names this server answers to in a `Host` header. A web page on another site that
    gets its own name resolved to this server's address (DNS rebinding) sends its name: it
    is refused. Always served: IP literals (nothing resolves them), the loopback names, the
    bind address and the machine's host name, and the operator's `Limits.allowed_hosts`
    (`*`: any). A wildcard bind (0.0.0.0, ::) answers to any name unless allowed_hosts names
    some."""

    names: frozenset[str]
    extra: frozenset[str]
    any_name: bool

    @classmethod
    def of(cls, bind: str, allowed: Iterable[str]) -> ServedHosts:
        extra = frozenset(
            part[0] for part in (split_host(a) for a in allowed if a != "*") if part is not None
        )
        any_name = "*" in allowed or (bind in _WILDCARD and not extra)
        names = set(extra) | set(LOOPBACK_NAMES)
        if bind not in _WILDCARD:
            names.add(bind.lower().strip("[]").rstrip("."))
        with contextlib.suppress(OSError):
            names.add(socket.gethostname().lower())
        return cls(frozenset(names), extra, any_name)

    def accepts(self, name: str) -> bool:
        return self.any_name or _is_ip(name) or name.lower().rstrip(".") in self.names


def json_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not
    count), without parsing it: Python's parser recurses once per level."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    bare = re.sub(r'"[^"\\]*(?:\\.[^"\\]*)*"', "", text)
    steps = (1 if c in "[{" else -1 for c in bare if c in "[]{}")
    return max(itertools.accumulate(steps, initial=0))


def _loads(raw: bytes) -> Any:
    """A JSON body, refused (400) when it is not UTF-8, not JSON or nested too deep."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HttpError(400, f"malformed JSON in the request body: {e}") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise HttpError(
            400,
            f"the JSON request body nests arrays and objects more than {MAX_JSON_DEPTH} "
            "levels deep (the server's limit)",
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise HttpError(400, f"malformed JSON in the request body: {e}") from None
    except RecursionError:  # the server's own stack, deeper than it could be: same answer
        raise HttpError(
            400, f"the JSON request body nests more than {MAX_JSON_DEPTH} levels deep"
        ) from None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "drillspark"
    sys_version = ""
    timeout = 120  # an idle or stalled connection frees its thread
    # TCP_NODELAY: an answer is written in pieces (headers, body, the last chunk); with Nagle's
    # algorithm a piece waits for the client's delayed ACK of the one before, about 40 ms a
    # statement (#37: most of what the server added to a small statement)
    disable_nagle_algorithm = True
    app: DrillServer  # set on the subclass the server makes

    # --------------------------------------------------------------- plumbing
    def log_message(self, format: str, *args: Any) -> None:
        # the request line and http.server's own messages carry the client's text
        log.debug("%s %s", self.address_string(), log_text(format % args))

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own answers (a malformed request line, a header too long, an unknown
        method, ...) in Drill's error shape, `{"errorMessage" : ...}`, never an HTML page."""
        short = self.responses.get(code, ("",))[0]
        self.log_error("code %d, message %s", code, message)
        if self.request_version == "HTTP/0.9":  # unparsed: answer with a status line anyway
            self.request_version = "HTTP/1.0"
        text = f"HTTP {code} {short}" + (f": {message}" if message and message != short else "")
        body = responses.jackson({"errorMessage": text}).encode()
        self.close_connection = True
        self.send_response(code, short)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.send_header("Cache-Control", "must-revalidate,no-cache,no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    # methods no path takes: 405 on Drill's paths, 404 elsewhere (not http.server's 501)
    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_OPTIONS(self) -> None:  # a CORS preflight too: no Access-Control-* answer, ever
        self._dispatch("OPTIONS")

    def _dispatch(self, method: str) -> None:
        self._cookie_out: str | None = None
        self._body_read = False
        self._session: HttpSession | None = None
        self._fresh: HttpSession | None = None
        self._held: list[HttpSession] = []  # sessions this request holds (_cookie_session)
        self._kept: list[HttpSession] = []  # sessions this request kept (_keep)
        self._csrf_pending = False
        self._user: str | None = None
        self._admin = False
        url = urllib.parse.urlsplit(self.path)
        self._query_args = urllib.parse.parse_qs(url.query)
        path = urllib.parse.unquote(url.path)
        if len(path) > 1:
            path = path.rstrip("/")
        try:
            self._check_host()
            needs_token = self._check_cross_site(method, path)
            self._authenticate(method, path)
            route = self._route(method, path)
            if needs_token:
                if getattr(route, "__func__", None) not in (Handler._set_option, Handler._login):
                    raise self._csrf_refused()
                self._csrf_pending = True  # the form's csrfToken decides (_form)
            route()
        except _Answered:
            self._discard_body()
        except HttpError as e:
            self._discard_body()
            self._send_json(e.status, {"errorMessage": str(e)}, e.headers)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # never a stack trace to the client; one in the log
            log.error(
                "internal error on %s %s: %s",
                method,
                log_text(path),
                _indented(traceback.format_exception(e)),
            )
            try:
                self._send_json(500, {"errorMessage": f"internal error: {type(e).__name__}"})
            except OSError:
                self.close_connection = True
        finally:  # the sessions' idle time starts when the answer has been sent
            for s in self._held:
                self.app.sessions.release(s)
            for s in self._kept:
                self.app.sessions.release(s, held=False)

    def _route(self, method: str, path: str) -> Any:
        get = method in ("GET", "HEAD")
        m = None
        if not self.app.auth.enabled and path in ("/login", "/j_security_check"):
            # Drill 1.22 without authentication has no login: a form login fails (its answer
            # is 500 `{"errorMessage" : "HTTP 404 Not Found"}`), so no client believes it
            # logged in
            raise HttpError(404, "HTTP 404 Not Found")
        if get and path in PAGES and path not in ("/status",):
            return lambda: self._page(PAGES[path])
        routes: list[tuple[str, str, Any]] = [
            ("POST", r"/query\.json", self._query),
            ("POST", r"/j_security_check", self._login),
            ("GET", r"/logout", self._logout),
            ("GET", r"/status", lambda: self._page("status.html")),
            ("GET", r"/status\.json", self._status),
            ("GET", r"/status/metrics", self._metrics),
            ("GET", r"/status/threads", self._threads),
            ("GET", r"/logs\.json", self._logs),
            ("GET", r"/log/(?P<name>[^/]+)/content\.json", self._log_content),
            ("GET", r"/log/(?P<name>[^/]+)/download", self._log_download),
            ("GET", r"/stats\.json", self._stats),
            ("GET", r"/cluster\.json", self._cluster),
            ("GET", r"/profiles\.json", self._profiles),
            ("GET", r"/profiles/running\.json", lambda: self._profiles("runningQueries")),
            ("GET", r"/profiles/completed\.json", lambda: self._profiles("finishedQueries")),
            ("GET", r"/profiles/(?:running|completed)", lambda: self._page("profiles.html")),
            ("GET", r"/profiles/cancel/(?P<id>[^/]+)", self._cancel),
            ("GET", r"/profiles/(?P<id>[^/]+)\.json", self._profile),
            ("GET", r"/profiles/(?P<id>[^/]+)/progress\.json", self._progress),
            ("GET", r"/profiles/(?P<id>[^/]+)/metrics\.json", self._operator_metrics),
            ("GET", r"/profiles/(?P<id>[^/.]+)", lambda: self._page("profile.html")),
            ("GET", r"/storage\.json", self._storage_list),
            ("GET", r"/storage/(?P<name>[^/]+)\.json", self._storage_get),
            ("POST", r"/storage/(?P<name>[^/]+)\.json", self._storage_post),
            ("DELETE", r"/storage/(?P<name>[^/]+)\.json", self._storage_delete),
            ("GET", r"/storage/(?P<name>[^/]+)/export/json", self._storage_export),
            ("GET", r"/storage/(?P<name>[^/.]+)", lambda: self._page("storage.html")),
            ("GET", r"/storage/(?P<name>[^/]+)/enable/(?P<flag>true|false)", self._enable),
            ("POST", r"/storage/(?P<name>[^/]+)/enable/(?P<flag>true|false)", self._enable),
            ("GET", r"/options\.json", self._options),
            ("GET", r"/internal_options\.json", lambda: self._options(internal=True)),
            ("GET", r"/options/notes\.json", self._option_notes),
            ("POST", r"/option/(?P<name>[^/]+)", self._set_option),
            ("GET", r"/static/(?P<file>[A-Za-z0-9_.-]+)", self._static),
            ("GET", r"/session\.json", self._session_info),
        ]
        allowed = []
        for verb, pattern, handler in routes:
            m = re.fullmatch(pattern, path)
            if m is None:
                continue
            if verb == method or (verb == "GET" and method == "HEAD"):
                self._match = m
                return handler
            allowed.append(verb)
        if allowed:
            raise HttpError(405, "HTTP 405 Method Not Allowed")
        raise HttpError(404, "HTTP 404 Not Found")

    # --------------------------------------------------------------- browsers
    def _check_host(self) -> None:
        """DNS rebinding: a page whose own name was made to resolve to this server sends
        that name as Host. It gets 421; so does an Origin that is not this server's."""
        hosts = self.headers.get_all("Host") or []
        if len(hosts) > 1:
            raise HttpError(400, "the request has more than one Host header")
        served = self.app.served_hosts
        if hosts:
            found = split_host(hosts[0])
            if found is None:
                raise HttpError(400, f"malformed Host header {log_text(hosts[0][:200])!r}")
            if not served.accepts(found[0]):
                raise HttpError(
                    421,
                    f"Host header {log_text(hosts[0][:200])!r} does not name this server: a "
                    "web page on another site whose name was made to resolve to this "
                    "address (DNS rebinding) sends such a Host. A name of this server is "
                    "added to its allowed hosts",
                )
        origin = self.headers.get("Origin")
        if origin is not None and not self._same_origin(origin, hosts[0] if hosts else None):
            raise HttpError(
                403,
                f"cross-origin request refused: Origin {log_text(origin[:200])!r} is not "
                "this server's origin (the server answers no cross-origin requests)",
            )

    def _same_origin(self, origin: str, host: str | None) -> bool:
        scheme, sep, authority = origin.strip().partition("://")
        found = split_host(authority) if sep and scheme.lower() in ("http", "https") else None
        if found is None:  # "null" (a sandboxed frame, a file: page) or malformed
            return False
        name, port = found
        port = port or (443 if scheme.lower() == "https" else 80)
        if name in self.app.served_hosts.extra:  # a name the operator vouches for (a proxy)
            return True
        target = split_host(host) if host else (self.app.host, self.app.port)
        if target is None:
            return False
        return name == target[0] and (target[1] is None or port == target[1])

    def _check_cross_site(self, method: str, path: str) -> bool:
        """A request that changes something, sent by a browser, must come from this server's
        own pages. Refused: `Sec-Fetch-Site` other than same-origin / none (every current
        browser sends it), a foreign Origin (_check_host). Let through: same-origin proof,
        a request a page on another site cannot send without a CORS preflight (an
        X-CSRF-Token header, a JSON body), and programs (no browser's headers: curl, pydrill,
        sqlalchemy-drill, drillspark's own client). What is left — a browser too old to send
        Origin and Sec-Fetch-Site — must carry the page's csrfToken: True (checked by the
        form reader, on the two form paths; any other path refuses it)."""
        if method in ("GET", "HEAD") and not _UNSAFE_GET.fullmatch(path):
            return False
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() not in ("same-origin", "none"):
            raise HttpError(
                403,
                f"cross-site request refused (Sec-Fetch-Site: {log_text(site[:40])}): "
                "this request changes the server and is taken from its own pages only",
            )
        if self.headers.get("Origin") is not None or site is not None:
            return False  # the same origin, checked above
        if self.headers.get(CSRF_HEADER, "").strip():
            return False
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind == "application/json":
            return False
        browser = "mozilla/" in self.headers.get("User-Agent", "").lower() or any(
            k.lower().startswith("sec-fetch-") for k in self.headers
        )
        return browser

    def _csrf_refused(self) -> HttpError:
        return HttpError(
            403,
            "Potential CSRF detected: a browser's request that changes the server needs "
            f"its page's {CSRF_FIELD} form field, an {CSRF_HEADER} header or a same-origin "
            "Origin header (the console sends them)",
        )

    def _csrf_token(self) -> str:
        """The token of this user's pages; before a login (and without users) the token of
        the client's address, which a client elsewhere cannot learn by loading a page."""
        if self._user is not None:
            return self.app.sessions.csrf_token("user:" + self._user)
        return self.app.sessions.csrf_token("anonymous " + client_owner(self.client_address[0]))

    # --------------------------------------------------------------- responses
    def _send(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self._common_headers(headers)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _common_headers(self, headers: dict[str, str] | None = None) -> None:
        self.send_header("Cache-Control", "must-revalidate,no-cache,no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        # no other site may frame the console (clickjacking its buttons)
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
        if self._cookie_out is not None:
            self.send_header("Set-Cookie", self._cookie_out)
        for k, v in (headers or {}).items():
            self.send_header(k, v)

    def _send_json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, responses.jackson(value).encode(), "application/json", headers)

    def _redirect(self, location: str) -> None:
        self._send(303, b"", "text/plain", {"Location": location})

    def _page(self, name: str) -> None:
        token = self._csrf_token().encode()
        # the page's CSRF token: for its scripts (X-CSRF-Token) and forms (csrfToken)
        body = _asset(name).replace(
            b"<head>", b'<head><meta name="csrf-token" content="' + token + b'">', 1
        )
        body = body.replace(
            b"<!--csrf-->",
            b'<input type="hidden" name="' + CSRF_FIELD.encode() + b'" value="' + token + b'">',
        )
        if name == "query.html":  # its examples name a schema this server has
            example = html.escape(self.app.catalog.example_schema()).encode()
            body = body.replace(b"@SCHEMA@", example)
        if name == "login.html" and "error" in self._query_args:
            # the text Drill's login page shows (sqlalchemy-drill and pydrill look for it)
            body = body.replace(
                b"<!--error-->", b'<p style="color:red">Invalid username/password credentials.</p>'
            )
        self._send(200, body, "text/html;charset=utf-8")

    def _static(self) -> None:
        name = self._match["file"]
        try:
            body = _asset(name)
        except FileNotFoundError:
            raise HttpError(404, "HTTP 404 Not Found") from None
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        self._send(
            200,
            body,
            kind
            + (";charset=utf-8" if kind.startswith("text/") or kind.endswith("javascript") else ""),
        )

    # --------------------------------------------------------------- requests
    def _discard_body(self) -> None:
        """An unread request body would be taken for the next request on this connection:
        read a small one, else close the connection after the answer."""
        if self._body_read:
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if (
            0 <= length <= self.app.max_request_bytes
            and "chunked" not in self.headers.get("Transfer-Encoding", "").lower()
        ):
            if length:
                self.rfile.read(length)
        else:
            self.close_connection = True
        self._body_read = True

    def _drain(self, length: int) -> None:
        """Read and drop a body over the limit, so that a client that sends its whole body
        before reading the answer (urllib, requests) gets the 413, not a broken pipe; a body
        far over it is not read: the connection closes (its bytes must never be parsed as a
        request)."""
        if length > DRAIN_FACTOR * self.app.max_request_bytes:
            self.close_connection = True
            return
        while length > 0:
            chunk = self.rfile.read(min(length, _CHUNK))
            if not chunk:
                self.close_connection = True
                return
            length -= len(chunk)

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise HttpError(411, "a request body needs a Content-Length")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise HttpError(400, "invalid Content-Length") from None
        if length < 0:
            raise HttpError(400, "invalid Content-Length")
        if length > self.app.max_request_bytes:
            self._body_read = True
            self._drain(length)
            raise HttpError(
                413,
                f"request body of {length} bytes exceeds the server's "
                f"limit of {self.app.max_request_bytes} bytes",
            )
        self._body_read = True
        return self.rfile.read(length) if length else b""

    def _json_body(self) -> Any:
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            self._body()
            raise HttpError(415, "HTTP 415 Unsupported Media Type")
        raw = self._body()
        if not raw.strip():  # no body: None, as Jackson reads it
            return None
        return _loads(raw)

    def _form(self) -> dict[str, str]:
        raw = self._body()
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind == "application/json":
            value = _loads(raw)
            if not isinstance(value, dict):
                raise HttpError(400, "expected a JSON object")
            return {str(k): v for k, v in value.items()}
        try:
            pairs = urllib.parse.parse_qsl(
                raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False
            )
        except UnicodeDecodeError:
            raise HttpError(400, "the form is not UTF-8") from None
        form = dict(pairs)
        if self._csrf_pending and not hmac.compare_digest(
            form.get(CSRF_FIELD, "").encode(), self._csrf_token().encode()
        ):
            raise self._csrf_refused()
        return form

    def _wants_html(self) -> bool:
        return "text/html" in self.headers.get("Accept", "")

    # --------------------------------------------------------------- sessions and login
    def _cookie_session(self) -> HttpSession | None:
        for part in self.headers.get_all("Cookie", []):
            for item in part.split(";"):
                name, _, value = item.strip().partition("=")
                if name == COOKIE:
                    s = self.app.sessions.get(value, hold=True)
                    if s is not None:
                        self._held.append(s)  # released when the request ends
                        return s
        return None

    def _owner(self) -> str:
        """Whom a new session counts against: the user, else the client's address."""
        return (
            "user:" + self._user if self._user is not None else client_owner(self.client_address[0])
        )

    def _keep(self, s: HttpSession) -> None:
        """Keep a session in the store and give the client its cookie."""
        self.app.sessions.add(s)
        self._kept.append(s)
        self._cookie_out = f"{COOKIE}={s.id}; Path=/; HttpOnly; SameSite=Strict"

    def _keep_fresh_session(self) -> None:
        """Before the answer's headers: the request's new session is kept (with a cookie)
        only if its statement gave it state (USE, ALTER SESSION); a plain query keeps none."""
        s, self._fresh = self._fresh, None
        if s is not None and s.holds_state:
            self._keep(s)

    def _authenticate(self, method: str, path: str) -> None:
        self._session = self._cookie_session()
        auth = self.app.auth
        if not auth.enabled:
            self._admin = True
            return
        header = self.headers.get("Authorization", "")
        if header.lower().startswith("basic "):
            user = self.app.basic_user(header)
            if user is None:
                raise HttpError(
                    401,
                    "Invalid username/password credentials.",
                    {"WWW-Authenticate": 'Basic realm="drillspark"'},
                )
            self._user, self._admin = user.name, user.admin
            if self._session is not None and self._session.owner != "user:" + user.name:
                self._session = None  # another user's session is not this login's
            return
        if self._session is not None and self._session.user is not None:
            self._user, self._admin = self._session.user, self._session.admin
            return
        if path in PUBLIC or path.startswith("/static/") or (method == "HEAD" and path == "/"):
            return
        if method in ("GET", "HEAD") and (path in PAGES or self._wants_html()):
            self._redirect("/login")
            raise _Answered()
        raise HttpError(
            401,
            "authentication required: log in at /j_security_check or send HTTP Basic credentials",
            {"WWW-Authenticate": 'Basic realm="drillspark"'},
        )

    def _require_admin(self) -> None:
        if not self._admin:
            raise HttpError(403, "this needs an admin user")

    def _login(self) -> None:
        form = self._form()
        user = self.app.auth.check(str(form.get("j_username", "")), str(form.get("j_password", "")))
        if user is None:
            log.warning(
                "failed login for '%s' from %s",
                log_text(form.get("j_username")),
                self.client_address[0],
            )
            self._redirect("/login?error=1")
            return
        if self._session is not None:  # a new id on login: no session fixation
            self.app.sessions.drop(self._session.id)
        s = self.app.sessions.new("user:" + user.name)
        s.user, s.admin = user.name, user.admin
        self._keep(s)
        self._redirect("/")

    def _logout(self) -> None:
        if self._session is not None:
            self.app.sessions.drop(self._session.id)
        self._cookie_out = f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        self._redirect("/login" if self.app.auth.enabled else "/")

    def _session_info(self) -> None:
        s = self._session
        self._send_json(
            200,
            {
                "user": self._user or "anonymous",
                "admin": self._admin,
                "authEnabled": self.app.auth.enabled,
                "defaultSchema": ".".join(s.default_schema) if s and s.default_schema else None,
                "options": dict(s.options) if s else {},
                "csrfToken": self._csrf_token(),
            },
        )

    # --------------------------------------------------------------- /query.json
    def _query(self) -> None:
        body = self._json_body()
        if body is None:  # Drill: 500 "Query submission failed"
            raise HttpError(500, "Query submission failed: the request has no body")
        if not isinstance(body, dict):
            raise HttpError(
                400, 'expected a JSON object such as {"queryType":"SQL","query":"SELECT 1"}'
            )
        query_type = body.get("queryType")
        if not isinstance(query_type, str):
            raise HttpError(400, "queryType is required (SQL, LOGICAL or PHYSICAL)")
        query_type = query_type.upper()
        text = body.get("query")
        if text is None:  # Drill: 500 "Query submission failed"
            raise HttpError(500, "Query submission failed: query is required (the SQL text)")
        if isinstance(text, bool | int | float):  # Jackson reads a JSON scalar as its text
            text = json.dumps(text)
        if not isinstance(text, str):
            raise HttpError(400, "query must be a string: the SQL text")
        options = body.get("options")
        if options is None:
            options = {}
        if not isinstance(options, dict):  # Drill: 400 (Jackson cannot read it as a map)
            raise HttpError(400, "options must be an object of option names and values")
        auto_limit = _auto_limit(body.get("autoLimit"))
        default_schema = body.get("defaultSchema")
        if default_schema is not None and not isinstance(default_schema, str):
            raise HttpError(500, "Query submission failed: defaultSchema must be a string")
        user = self._user or _user_name(body.get("userName")) or "anonymous"
        query_id = None
        if self.headers.get(QUERY_ID_HEADER) is not None:
            query_id = client_query_id(self.headers[QUERY_ID_HEADER])
            if query_id is None:
                raise HttpError(
                    400,
                    f"{QUERY_ID_HEADER} must be a query id such as "
                    "3f0c6d4e-1a2b-4c5d-8e9f-0a1b2c3d4e5f",
                )
        session = self._session
        if session is None:  # kept only if the statement gives it state (stream_query)
            session = self._fresh = self.app.sessions.new(self._owner())
        self.app.run_query(
            self, session, query_type, text, options, auto_limit, default_schema, user, query_id
        )

    def stream_query(self, query_id: str, run: Any, verbose: bool) -> None:
        """Write the query's answer: `run()` gives the Result or raises QueryFailed."""
        try:
            result = run()
        except QueryFailed as e:
            self._keep_fresh_session()
            if e.head is not None:  # cancelled once its columns were known: Drill sent them
                columns, metadata, limit = e.head
                body = responses.query_head(query_id, columns, metadata, limit)
                body += responses.query_tail(e.state, str(e), e.exception, verbose)
            else:
                body = responses.query_failed(query_id, e.state, str(e), e.exception, verbose)
            self._send(200, body.encode(), "application/json")
            return
        try:
            self._keep_fresh_session()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self._common_headers()
            self.end_headers()
            buf = [
                responses.query_head(query_id, result.columns, result.metadata, result.auto_limit)
            ]
            size = len(buf[0])
            state, error, exception = "COMPLETED", None, None
            first = True
            try:
                for row in result:
                    piece = row + "\n" if first else "," + row + "\n"
                    first = False
                    buf.append(piece)
                    size += len(piece)
                    if size >= _CHUNK:
                        self._chunk("".join(buf))
                        buf, size = [], 0
            except QueryFailed as e:
                state, error, exception = e.state, str(e), e.exception
            buf.append(responses.query_tail(state, error, exception, verbose))
            self._chunk("".join(buf), last=True)
        finally:
            result.close()

    def _chunk(self, text: str, last: bool = False) -> None:
        """One chunk of a chunked body; `last`: with the terminating empty chunk, in the same
        write (a small answer leaves in one piece)."""
        data = text.encode("utf-8")
        out = f"{len(data):x}\r\n".encode() + data + b"\r\n" if data else b""
        if last:
            out += b"0\r\n\r\n"
        if out:
            self.wfile.write(out)

    # --------------------------------------------------------------- profiles
    def _visible(self, q: Any) -> bool:
        return self._admin or q.user == self._user

    def _profiles(self, only: str | None = None) -> None:
        """The running and finished queries (/profiles.json), or one list of them
        (/profiles/running.json, /profiles/completed.json), as Drill's; `max` keeps the newest
        so many finished ones."""
        base = self.app.base_url(self.headers.get("Host"))
        qm = self.app.queries
        most = qm.keep
        if "max" in self._query_args:
            text = self._query_args["max"][-1]
            if not re.fullmatch(r"\s*[0-9]+\s*", text):
                raise HttpError(400, f"max must be a whole number of queries, not {text!r}")
            most = int(text)
        lists = {
            "runningQueries": [qm.list_entry(q, base) for q in qm.running() if self._visible(q)],
            "finishedQueries": [qm.list_entry(q, base) for q in qm.finished() if self._visible(q)][
                :most
            ],
        }
        shown = {k: v for k, v in lists.items() if only in (None, k)}
        answer = {"errors": [], **shown, "maxFetchedQueries": qm.keep}
        self._send_json(200, {**answer, "queriesPerPage": "10,25,50,100"})

    def _found(self) -> Any:
        q = self.app.queries.get(self._match["id"])
        if q is None or not self._visible(q):
            raise HttpError(404, f"no profile for query id {self._match['id']}")
        return q

    def _profile(self) -> None:
        q = self._found()
        # compact JSON, as Drill sends a profile (not its pretty printer's)
        profile = self.app.queries.profile(q, self.app.ports())
        body = json.dumps(profile, ensure_ascii=False, separators=(",", ":"))
        self._send(200, body.encode(), "application/json")

    def _progress(self) -> None:
        q = self._found()
        self._send_json(200, self.app.queries.progress(q))

    def _operator_metrics(self) -> None:
        from drillspark.server.operator_metrics import operator_metrics

        q = self._found()
        jobs = self.app.spark.sparkContext.statusTracker().getJobIdsForGroup(q.id)
        self._send_json(200, operator_metrics(self.app.spark, set(jobs), q.id, self.app.shown))

    def _cancel(self) -> None:
        query_id = self._match["id"]
        q = self.app.queries.get(query_id)
        if q is not None and self._visible(q) and self.app.queries.cancel(query_id):
            text = f"Cancelled query {query_id} on locally running node."
        else:
            text = (
                f"Failure attempting to cancel query {query_id}.  Unable to find "
                "information about where query is actively running."
            )
        self._send(200, text.encode(), "text/plain")

    # --------------------------------------------------------------- storage and options
    def _storage_list(self) -> None:
        cat = self.app.catalog
        self._send_json(200, [cat.plugin_json(n) for n in cat.plugin_names()])

    def _storage_get(self) -> None:
        name = self._match["name"]
        found = self.app.catalog.plugin_json(name)
        self._send_json(200, found if found is not None else {"name": name, "config": None})

    def _storage_post(self) -> None:
        self._require_admin()
        body = self._json_body()
        try:
            self.app.catalog.update_plugin(self._match["name"], body)
        except SqlError as e:
            raise HttpError(400, e.message) from None
        log.info(
            "storage plugin %s updated by %s",
            log_text(self._match["name"]),
            log_text(self._user or "anonymous"),
        )
        self._send_json(200, {"result": "Success"})

    def _storage_delete(self) -> None:
        self._require_admin()
        name = self._match["name"]
        try:
            deleted = self.app.catalog.delete_plugin(name)
        except SqlError as e:
            raise HttpError(400, e.message) from None
        if not deleted:
            raise HttpError(404, f"no storage plugin named '{name}'")
        log.info(
            "storage plugin %s deleted by %s", log_text(name), log_text(self._user or "anonymous")
        )
        self._send_json(200, {"result": "Success"})

    def _storage_export(self) -> None:
        """Drill's export of a plugin's config (`format` json), secrets masked."""
        found = self.app.catalog.plugin_json(self._match["name"])
        if found is None:
            raise HttpError(404, f"no storage plugin named '{self._match['name']}'")
        name = self._match["name"]
        self._send(
            200,
            responses.jackson(found["config"]).encode(),
            "application/json",
            {"Content-Disposition": f'attachment;filename="{name}.json"'},
        )

    def _enable(self) -> None:
        self._require_admin()
        if self.command == "POST":  # Drill 1.22's POST form consumes JSON (its body unused)
            kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            self._body()
            if kind != "application/json":
                raise HttpError(415, "HTTP 415 Unsupported Media Type")
        try:
            self.app.catalog.set_enabled(self._match["name"], self._match["flag"] == "true")
        except KeyError:  # Drill 1.22's answer, word for word
            name = self._match["name"]
            self._send_json(404, {"result": f"No plugin exists with the given name: {name}"})
            return
        self._send_json(200, {"result": "Success"})

    def _options(self, internal: bool = False) -> None:
        self._send_json(200, self.app.catalog.options_json(internal))

    def _option_notes(self) -> None:
        """drillspark's own, for the console's Options page: per option, Drill's description,
        whether it takes effect here (`applies`, `effect`: plan or server) and how, or why not
        (`note`)."""
        self._send_json(
            200,
            {
                o.name: {
                    "description": o.description,
                    "applies": o.applies,
                    "effect": o.effect,
                    "note": o.note,
                }
                for o in REGISTRY
            },
        )

    def _set_option(self) -> None:
        self._require_admin()
        name = self._match["name"]
        form = self._form()
        if "value" not in form:
            raise HttpError(
                400, "the form needs a value (and kind: BOOLEAN, LONG, DOUBLE or STRING)"
            )
        try:
            self.app.catalog.set_system_option(name, form["value"], form.get("kind"))
        except SqlError as e:
            raise HttpError(400, e.message) from None
        log.info(
            "system option %s = '%s' set by %s",
            log_text(name),
            log_text(form["value"]),
            log_text(self._user or "anonymous"),
        )
        if self._wants_html():
            self._redirect("/options")
        else:
            self._send_json(200, {"result": "Success"})

    # --------------------------------------------------------------- status
    def _status(self) -> None:
        """Drill's `Running!`; 503 naming the cause once Spark can no longer answer."""
        failure = self.app.failure
        if failure is not None:
            self._send_json(503, {"status": f"Spark is gone: {failure}"})
            return
        self._send_json(200, {"status": "Running!"})

    def _cluster(self) -> None:
        ports = self.app.ports()
        self._send_json(
            200,
            {
                "drillbits": [
                    {
                        "address": "localhost",
                        "httpPort": str(ports["http"]),
                        # only the ports that listen (no control or data port here)
                        **({"userPort": str(ports["user"])} if ports["user"] else {}),
                        "version": ports["version"],
                        "current": True,
                        "versionMatch": True,
                        "state": "ONLINE",
                    }
                ],
                "currentVersion": ports["version"],
                "mismatchedVersions": [],
                "userEncryptionEnabled": False,
                "bitEncryptionEnabled": False,
                "authEnabled": self.app.auth.enabled,
            },
        )

    def _stats(self) -> None:
        qm = self.app.queries
        self._send_json(
            200,
            [
                {"name": "Number of Drill Bits", "value": 1},
                {"name": "Bit #0", "value": "localhost initialized"},
                # only the ports that listen (no control or data port here)
                *(
                    [{"name": "User Port Address", "value": f"localhost:{user}"}]
                    if (user := self.app.ports()["user"])
                    else []
                ),
                {"name": "Maximum Direct Memory", "value": _max_direct(self.app.spark)},
                {"name": "Running Queries", "value": len(qm.running())},
                {"name": "Finished Queries", "value": sum(qm.counters.values())},
            ],
        )

    def _metrics(self) -> None:
        self._send(
            200, json.dumps(self.app.metrics(), separators=(",", ":")).encode(), "application/json"
        )

    def _threads(self) -> None:
        self._require_admin()
        frames = sys._current_frames()
        out = []
        for t in threading.enumerate():
            out.append(f'"{t.name}" id={t.ident} daemon={t.daemon}')
            frame = frames.get(t.ident or -1)
            if frame is not None:
                out.extend(
                    "    at " + line.strip().replace("\n", " | ")
                    for line in traceback.format_stack(frame)[::-1]
                )
            out.append("")
        self._send(200, "\n".join(out).encode(), "text/plain")

    # the console's Logs page: Drill's /logs.json, /log/{name}/content.json and
    # /log/{name}/download (admins only), over the server's recent log (log_buffer.py)
    def _logs(self) -> None:
        self._require_admin()
        self._send_json(200, self.app.log_buffer.listing())

    def _log_lines(self) -> tuple[str, list[str]]:
        from drillspark.server.log_buffer import LOG_NAME

        self._require_admin()
        name = self._match.group("name")
        if name != LOG_NAME:
            raise HttpError(500, f"{name} doesn't exist")  # Drill's words and status
        return name, self.app.log_buffer.lines()

    def _log_content(self) -> None:
        name, lines = self._log_lines()
        self._send_json(
            200, {"name": name, "lines": lines, "maxLines": self.app.log_buffer.max_lines}
        )

    def _log_download(self) -> None:
        name, lines = self._log_lines()
        body = "".join(line + "\n" for line in lines).encode()
        disposition = {"Content-Disposition": f'attachment;filename="{name}"'}
        self._send(200, body, "text/plain", disposition)


def _max_direct(spark: Any) -> int:
    """The driver JVM's direct memory limit, as sys.memory's direct_max (0 without a JVM
    here: Spark Connect)."""
    from drillspark.spark.storage.metadata import MetadataError, jvm_rows

    try:
        return int(jvm_rows(spark, "memory", 0)[0][6])
    except MetadataError:
        return 0


class _Answered(HttpError):
    """The response was already sent (a redirect to the login page)."""

    def __init__(self) -> None:
        super().__init__(0, "")


def _auto_limit(value: Any) -> int:
    """Drill reads `autoLimit` as text: a whole number (spaces around it allowed) limits
    the rows; anything else — negative, `1.5`, `2.7`, `true`, `abc` — means no limit (Drill
    1.22 answered each of these with all the rows and `attemptedAutoLimit` 0)."""
    if isinstance(value, bool):
        return 0
    text = str(value).strip() if isinstance(value, str | int) else ""
    return int(text) if re.fullmatch(r"\+?[0-9]{1,18}", text) else 0


def _user_name(value: Any) -> str | None:
    """`userName` (authentication off): at most 128 characters, control characters escaped
    (it is shown in profiles and written to the log)."""
    return log_text(value.strip()[:128]) or None if isinstance(value, str) else None


def _indented(lines: list[str]) -> str:
    """A traceback for the log: every line escaped and indented, so none can pass for a log
    line of its own (an exception's message may hold the client's text)."""
    return "".join("\n    " + log_text(line) for text in lines for line in text.splitlines())


_ASSETS: dict[str, bytes] = {}


def _asset(name: str) -> bytes:
    """A file of the console by name: only the files the package ships, read once. A request's
    name is looked up, never used as a path (a 70,000-character name once reached open())."""
    if not _ASSETS:
        folder = resources.files("drillspark.server") / "console"
        _ASSETS.update({f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()})
    if name not in _ASSETS:
        raise FileNotFoundError(name)
    return _ASSETS[name]


def basic_key(header: str) -> str:
    return hashlib.sha256(header.encode()).hexdigest()


def verbose_errors(catalog: Any, options: dict[str, Any], session: HttpSession) -> bool:
    value = options.get(
        VERBOSE_ERRORS,
        session.options.get(
            VERBOSE_ERRORS,
            catalog.system_options.get(VERBOSE_ERRORS, REGISTRY.default(VERBOSE_ERRORS)),
        ),
    )
    return value is True or str(value).lower() == "true"
