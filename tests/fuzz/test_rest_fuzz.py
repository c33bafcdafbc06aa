"""Fuzzing `drillspark serve`'s HTTP side (issue #15): a real server on a free loopback port
gets generated `POST /query.json` bodies (Drill's fields with values of every JSON type,
real and broken SQL, session options), requests to Drill's paths with random methods, path
segments, content types and bodies, and raw bytes that are no HTTP at all. The property: every
request gets an answer in Drill's error shape or closes its own connection, no answer is an
`internal error` (an exception the server did not expect), nothing is a stack trace, and the
server keeps answering (`GET /status.json`)."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import urllib.parse
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz import inputs
from tests.fuzz.conftest import long, short

from drillspark.server import DrillServer, Limits

# The query texts a body carries: cheap real statements (the server runs them on Spark),
# the breadth corpus' statements cut short, and noise.
QUERIES = [
    "SELECT 1 AS one FROM (VALUES(1))",
    "SHOW SCHEMAS",
    "SHOW FILES FROM dfs.tmp",
    "SELECT * FROM dfs.tmp.`nothing_here`",
    "select min(version) version from sys.drillbits",
    "USE dfs.tmp",
    "SELECT * FROM INFORMATION_SCHEMA.`TABLES` LIMIT 2",
    "SELECT count(*) AS n FROM dfs.data.`breadth/tpch_json/nation.json`",
    "SELECT * FROM dfs.data.`../../etc/passwd`",
    "SELECT 1; SELECT 2",
    "",
]
OPTION_NAMES = [
    "store.json.all_text_mode",
    "store.json.read_numbers_as_double",
    "exec.enable_union_type",
    "planner.width.max_per_node",
    "drill.exec.http.rest.errors.verbose",
    "store.format",
    "no.such.option",
    "",
]
PATHS = [
    "/query.json",
    "/profiles.json",
    "/profiles/{x}.json",
    "/profiles/cancel/{x}",
    "/profiles/{x}/progress.json",
    "/storage.json",
    "/storage/{x}.json",
    "/storage/{x}/enable/{x}",
    "/options.json",
    "/option/{x}",
    "/status",
    "/status.json",
    "/status/metrics",
    "/status/threads",
    "/stats.json",
    "/cluster.json",
    "/",
    "/query",
    "/profiles",
    "/storage",
    "/options",
    "/login",
    "/j_security_check",
    "/logout",
    "/static/{x}",
    "/{x}",
]
METHODS = ["GET", "POST", "DELETE", "HEAD", "PUT", "PATCH", "OPTIONS"]
CONTENT_TYPES = [
    "application/json",
    "application/x-www-form-urlencoded",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/json; charset=latin-1",
    None,
]


@st.composite
def query_bodies(draw: st.DrawFn) -> bytes:
    """A `POST /query.json` body: Drill's fields, each sometimes of the wrong type or absent,
    sometimes with extra fields; now and then not JSON at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=200))
    any_json = inputs.json_values(6)
    body: dict[str, Any] = {}
    fields: dict[str, st.SearchStrategy[Any]] = {
        "queryType": st.one_of(
            st.sampled_from(["SQL", "sql", "LOGICAL", "PHYSICAL", "", "X"]), any_json
        ),
        "query": st.one_of(st.sampled_from(QUERIES), st.text(max_size=60), any_json),
        "autoLimit": st.one_of(
            st.integers(-5, 10),
            st.sampled_from([2**31, 2**63, -(2**63)]),
            st.text(max_size=5),
            any_json,
        ),
        "defaultSchema": st.one_of(
            st.sampled_from(["dfs.tmp", "dfs", "nope", "dfs.data", ""]), any_json
        ),
        "options": st.one_of(
            st.dictionaries(st.sampled_from(OPTION_NAMES), any_json, max_size=3), any_json
        ),
        "userName": st.one_of(st.text(max_size=20), any_json),
    }
    for name, values in fields.items():
        if draw(st.integers(0, 4)) > 0:
            body[name] = draw(values)
    if draw(st.booleans()):
        body.update(draw(st.dictionaries(st.text(max_size=8), any_json, max_size=2)))
    text = json.dumps(body)
    if draw(st.integers(0, 5)) == 0:  # cut short: broken JSON
        text = text[: draw(st.integers(0, len(text)))]
    return text.encode()


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str, dict[str, str], bytes]:
    """(method, path, headers, body) for any of Drill's paths."""
    segment = st.one_of(
        st.sampled_from(["dfs", "cp", "x", "..", "%2e%2e", "%00", "a" * 300, ""]),
        st.text(max_size=12),
    )
    path = draw(st.sampled_from(PATHS))
    while "{x}" in path:
        path = path.replace("{x}", urllib.parse.quote(draw(segment), safe=""), 1)
    if draw(st.booleans()):
        path += "?" + urllib.parse.urlencode(
            draw(
                st.dictionaries(
                    st.sampled_from(["user", "pass", "name", "value", "kind", "j_username", "x"]),
                    st.text(max_size=12),
                    max_size=3,
                )
            )
        )
    body = draw(
        st.one_of(
            query_bodies(),
            st.binary(max_size=100),
            st.builds(
                lambda d: urllib.parse.urlencode(d).encode(),
                st.dictionaries(
                    st.sampled_from(["name", "value", "kind", "config", "query", "queryType"]),
                    st.text(max_size=12),
                    max_size=3,
                ),
            ),
        )
    )
    headers = {}
    content_type = draw(st.sampled_from(CONTENT_TYPES))
    if content_type:
        headers["Content-Type"] = content_type
    if draw(st.integers(0, 5)) == 0:
        headers["X-Drillspark-Query-Id"] = draw(
            st.text(  # what http.client can send
                st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f"),
                max_size=40,
            )
        )
    return draw(st.sampled_from(METHODS)), path, headers, body


@st.composite
def raw_requests(draw: st.DrawFn) -> bytes:
    """Bytes on the socket: a request line and headers mangled, or nothing like HTTP."""
    if draw(st.booleans()):
        return draw(st.binary(min_size=1, max_size=300))
    method = draw(st.sampled_from(METHODS + ["", "GET GET", "\x00"]))
    target = draw(
        st.sampled_from(["/query.json", "/status.json", "*", "", "http://x/", "/" + "a" * 70000])
    )
    version = draw(st.sampled_from(["HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/9", ""]))
    lines = [f"{method} {target} {version}"]
    for _ in range(draw(st.integers(0, 4))):
        lines.append(
            draw(
                st.sampled_from(
                    [
                        "Content-Length: 10",
                        "Content-Length: -1",
                        "Content-Length: 99999999999",
                        "Content-Length: x",
                        "Transfer-Encoding: chunked",
                        "Content-Type: application/json",
                        "Host: 127.0.0.1",
                        "Expect: 100-continue",
                        "Cookie: JSESSIONID=zzz",
                        "broken header",
                        "X: " + "y" * 70000,
                    ]
                )
            )
        )
    tail = draw(st.binary(max_size=60))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogatepass") + tail


class _Internal(logging.Handler):
    """Collects the server's `internal error` log lines (an exception it did not expect)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "internal error" in message:
            self.records.append(message)


@pytest.fixture(scope="module")
def rest(spark, shared, tmp_path_factory):
    srv = DrillServer(
        spark,
        port=0,
        workspaces={
            "data": str(shared / "data"),
            "tmp": str(tmp_path_factory.mktemp("rest_fuzz_tmp")),
        },
        limits=Limits(max_rows=1000, max_seconds=60),
    )
    internal = _Internal()
    logging.getLogger("drillspark.server").addHandler(internal)
    srv.start()
    yield srv, internal
    srv.stop()
    logging.getLogger("drillspark.server").removeHandler(internal)


def _alive(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/status.json")
    answer = conn.getresponse()
    assert answer.status == 200 and json.loads(answer.read()) == {"status": "Running!"}
    conn.close()


def _check_answer(path: str, status: int, headers: Any, data: bytes, internal: _Internal) -> None:
    assert not internal.records, internal.records[-1][:2000]
    assert 200 <= status < 600, status
    if not (status == 200 and path.startswith("/status/threads")):  # a thread dump by design
        assert b"Traceback" not in data and b'File "' not in data, data[:500]
    if (headers.get("Content-Type") or "").startswith("application/json") and data:
        answer = json.loads(data)
        if status >= 400:
            assert isinstance(answer, dict) and answer.get("errorMessage"), answer


def request_check(rest: Any, request: tuple[str, str, dict[str, str], bytes]) -> None:
    srv, internal = rest
    internal.records.clear()  # each input answers for its own log lines
    method, path, headers, body = request
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=120)
    try:
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        data = answer.read()
        _check_answer(path, answer.status, answer.headers, data, internal)
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        pass  # the server may close a connection it cannot read; it must still be up
    finally:
        conn.close()
    _alive(srv.port)


def raw_check(rest: Any, data: bytes) -> None:
    srv, internal = rest
    internal.records.clear()
    with socket.create_connection(("127.0.0.1", srv.port), timeout=60) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        except OSError:  # the server closed first (e.g. after answering a request line too long)
            reply = b""
    assert b"Traceback" not in reply, reply[:500]
    assert not internal.records, internal.records[-1][:2000]
    _alive(srv.port)


def query_check(rest: Any, body: bytes) -> None:
    request_check(rest, ("POST", "/query.json", {"Content-Type": "application/json"}, body))


@short(60)
@given(body=query_bodies())
def test_query_bodies_get_drills_answers(rest, body):
    query_check(rest, body)


@short(80)
@given(request=requests())
def test_any_request_gets_an_answer_and_the_server_stays_up(rest, request):
    request_check(rest, request)


@short(40)
@given(data=raw_requests())
def test_raw_bytes_never_kill_the_server(rest, data):
    raw_check(rest, data)


@pytest.mark.fuzz
@long(1500)
@given(body=query_bodies())
def test_query_bodies_long(rest, body):
    query_check(rest, body)


@pytest.mark.fuzz
@long(2000)
@given(request=requests())
def test_requests_long(rest, request):
    request_check(rest, request)


@pytest.mark.fuzz
@long(1000)
@given(data=raw_requests())
def test_raw_bytes_long(rest, data):
    raw_check(rest, data)
