"""Requests that abused the server's HTTP side (issue #38), each against the real server:
a form login answered as a success without users, log lines forged through client text,
malformed HTTP answered with HTML error pages, a deeply nested body crashing into a
RecursionError, and error messages that would name the server's own folders."""

from __future__ import annotations

import json
import logging
import os
import sys

import pytest
import requests
from pydrill.client import PyDrill
from sqlalchemy import create_engine, text
from tests.security.server_http import error, raw, send
from tests.server.helpers import PASSWORDS

import drillspark
from drillspark.server import auth

JSON = {"Content-Type": "application/json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


# ------------------------------------------------------------------ login without users
def test_a_form_login_without_users_fails_as_drills_does(server):
    """Drill 1.22 without authentication answers POST /j_security_check with
    `{"errorMessage" : "HTTP 404 Not Found"}` (status 500 there; 404 here, as every unknown
    path): before, a redirect to / made clients believe they had logged in."""
    form = f"j_username=alice&j_password={PASSWORDS['alice']}".encode()
    status, hdrs, data = send(server.port, "POST", "/j_security_check", form, FORM)
    assert status == 404 and error(data) == "HTTP 404 Not Found"
    assert "Set-Cookie" not in hdrs and "Location" not in hdrs
    status, _, data = send(server.port, "GET", "/login")
    assert status == 404 and error(data) == "HTTP 404 Not Found"
    # the clients see the failure: pydrill raises, sqlalchemy-drill does not connect
    with pytest.raises(Exception, match="404"):
        PyDrill(host="127.0.0.1", port=server.port, auth=f"alice:{PASSWORDS['alice']}")
    engine = create_engine(
        f"drill+sadrill://alice:{PASSWORDS['alice']}@127.0.0.1:{server.port}/dfs/data?use_ssl=False"
    )
    with pytest.raises(Exception, match="404"):
        engine.connect()
    # without credentials both work as before
    assert PyDrill(host="127.0.0.1", port=server.port).is_active()
    plain = create_engine(f"drill+sadrill://127.0.0.1:{server.port}/dfs/data?use_ssl=False")
    with plain.connect() as conn:
        assert conn.execute(text("SELECT 1 AS one FROM (VALUES(1))")).fetchall() == [(1,)]


def test_a_form_login_with_users_still_works(auth_server):
    with requests.Session() as s:
        page = s.post(
            auth_server.url + "/j_security_check",
            data={"j_username": "bob", "j_password": PASSWORDS["bob"]},
        )
        assert page.status_code == 200 and s.cookies.get("JSESSIONID")
        assert s.get(auth_server.url + "/session.json").json()["user"] == "bob"


# ------------------------------------------------------------------ log forging
class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def server_log():
    logger = logging.getLogger("drillspark.server")
    records, level = _Records(), logger.level
    logger.addHandler(records)
    logger.setLevel(logging.DEBUG)
    yield records
    logger.removeHandler(records)
    logger.setLevel(level)


FORGED = "2026-11-24 18:30:02 INFO query 00000000 COMPLETED user=admin rows=1 0.001s: DROP"


def test_user_name_cannot_forge_log_lines(server, server_log):
    """`userName` is the query's user when authentication is off: a newline in it started a
    log line of the client's choosing."""
    body = json.dumps(
        {
            "queryType": "SQL",
            "query": "SELECT 1 AS one FROM (VALUES(1))",
            "userName": "x\n" + FORGED,
        }
    )
    status, _, data = send(server.port, "POST", "/query.json", body.encode(), JSON)
    assert status == 200, data
    lines = [line for m in server_log.messages for line in m.splitlines()]
    assert not any(line.startswith(FORGED[:20]) for line in lines), lines
    assert any("x\\n2026-11-24" in m for m in server_log.messages)


def test_request_lines_and_names_cannot_forge_log_lines(server, server_log):
    """The request line (logged at DEBUG) and any client text the handler logs: control
    characters (ESC sequences that rewrite a terminal, NEL, U+2028) are escaped."""
    raw(server.port, b"GET /a\x1b[2J\x85b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    raw(server.port, b"GET /\x1b[31mred HTTP/9.9\r\n\r\n")
    form = b"j_username=a%0Ab%1Bc&j_password=x"
    send(server.port, "POST", "/j_security_check", form, FORM)
    text_ = "\n".join(server_log.messages)
    assert server_log.messages
    assert "\x1b" not in text_ and "\x85" not in text_, text_
    assert "\\x1b" in text_


def test_log_text_escapes_what_would_break_a_line():
    assert auth.log_text("a\nb\r\tc\x1b[0m\x85\u2028\u202e\x00") == (
        "a\\nb\\r\\tc\\x1b[0m\\x85\\u2028\\u202e\\x00"
    )
    assert auth.log_text("SELECT 'ü', \"x\" -- ok") == "SELECT 'ü', \"x\" -- ok"
    assert auth.log_text(None) == "None"


# ------------------------------------------------------------------ malformed HTTP
def _status_and_json(reply: bytes) -> tuple[int, dict[str, str], str]:
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("iso-8859-1").split("\r\n")
    assert lines[0].startswith("HTTP/1."), reply[:200]
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert headers["Content-Type"] == "application/json", reply[:300]
    return int(lines[0].split()[1]), headers, error(body)


@pytest.mark.parametrize(
    "data, status",
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET / HTTP/9.9\r\n\r\n", 505),
        (b"GET /status.json HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n", 431),
        (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
        (b"TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501),
        (b"PUT /query.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", 405),
        (b"OPTIONS /nosuch HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404),
    ],
    ids=["request-line", "version", "header-too-long", "uri-too-long", "trace", "put", "options"],
)
def test_malformed_http_gets_drills_json_error(server, data, status):
    got, headers, message = _status_and_json(raw(server.port, data))
    assert got == status, message
    assert message and "<" not in message
    assert headers.get("X-Content-Type-Options") == "nosniff"
    assert send(server.port, "GET", "/status.json")[0] == 200


# ------------------------------------------------------------------ deeply nested bodies
DEEP = 100_000


@pytest.mark.parametrize(
    "method, path, body, headers",
    [
        ("POST", "/query.json", b"[" * DEEP + b"]" * DEEP, JSON),
        (
            "POST",
            "/query.json",
            b'{"queryType":"SQL","query":"SELECT 1","options":{"a":'
            + b"[" * DEEP
            + b"]" * DEEP
            + b"}}",
            JSON,
        ),
        (
            "POST",
            "/storage/dfs.json",
            b'{"config":' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}",
            JSON,
        ),
        ("POST", "/option/store.json.all_text_mode", b"[" * DEEP + b"]" * DEEP, JSON),
    ],
    ids=["query", "query-options", "storage", "option-form-as-json"],
)
def test_a_deeply_nested_body_is_a_400_naming_the_limit(server, method, path, body, headers):
    status, _, data = send(server.port, method, path, body, headers)
    assert status == 400, data[:300]
    message = error(data)
    assert "nest" in message and "100" in message, message
    assert send(server.port, "GET", "/status.json")[0] == 200


def test_nesting_below_the_limit_is_read(server):
    options = {"store.json.all_text_mode": False, "x": [[[[[[1]]]]]]}
    body = json.dumps({"queryType": "SQL", "query": "SELECT 1 AS one FROM (VALUES(1))"})
    status, _, data = send(server.port, "POST", "/query.json", body.encode(), JSON)
    assert status == 200 and json.loads(data)["rows"] == [{"one": 1}]
    body = json.dumps({"queryType": "SQL", "query": "SELECT '[[[{{' AS s", "options": options})
    status, _, data = send(server.port, "POST", "/query.json", body.encode(), JSON)
    assert status in (200, 500), data  # an unknown option fails as Drill's: not a nesting error
    assert "nest" not in data.decode()


# ------------------------------------------------------------------ messages
def test_handler_errors_name_no_server_folder(server, shared):
    """Errors the handler words itself never name the server's folders (workspaces, the
    package, the Python installation, the working directory) unless the client gave them."""
    folders = {
        str(shared),
        os.path.dirname(drillspark.__file__),
        sys.prefix,
        os.getcwd(),
        *server.catalog.workspaces.values(),
    }
    answers = [
        send(server.port, "GET", "/static/" + "a" * 300),
        send(server.port, "GET", "/profiles/nosuch.json"),
        send(server.port, "POST", "/query.json", b"{bad", JSON),
        send(server.port, "POST", "/query.json", b"\xff", JSON),
        send(server.port, "POST", "/query.json", b"[" * DEEP, JSON),
        send(server.port, "POST", "/query.json", b"x" * (2 << 20), JSON),
        send(server.port, "POST", "/query.json", b"{}", FORM),
        send(server.port, "DELETE", "/storage/dfs.json"),
        send(server.port, "POST", "/option/nosuch", b"value=1", FORM),
        send(server.port, "GET", "/nosuch"),
        send(server.port, "GET", "/status.json", headers={"Host": "evil.example"}),
    ]
    for status, _, data in answers:
        assert status >= 400
        message = error(data)
        for folder in folders:
            assert folder not in message, (folder, message)
