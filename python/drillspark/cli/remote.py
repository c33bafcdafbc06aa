"""`drillspark sql --connect URL` and `drillspark shell --connect URL`: run statements on a
running `drillspark serve` (or a real Drill) through its REST API, so a command-line query
skips Spark's start-up."""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.request
from typing import Any

from drillspark.errors import UsageError


class RemoteError(UsageError):
    pass


class RemoteSession:
    """One HTTP session (its cookie keeps USE / ALTER SESSION between statements)."""

    def __init__(self, url: str, user: str | None = None, password: str | None = None):
        self.url = url.rstrip("/")
        self.cookie: str | None = None
        self.auth = None
        if user:
            token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
            self.auth = f"Basic {token}"

    def query(self, sql: str) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.auth:
            headers["Authorization"] = self.auth
        body = json.dumps({"queryType": "SQL", "query": sql}).encode()
        req = urllib.request.Request(self.url + "/query.json", data=body, headers=headers)
        try:
            with urllib.request.urlopen(req) as r:
                cookie = r.headers.get("Set-Cookie")
                data = r.read()
        except urllib.error.HTTPError as e:
            try:
                message = json.loads(e.read()).get("errorMessage")
            except ValueError:
                message = None
            raise RemoteError(f"{self.url}: HTTP {e.code}: {message or e.reason}") from None
        except urllib.error.URLError as e:
            raise RemoteError(f"cannot reach {self.url}: {e.reason}") from None
        if cookie:
            self.cookie = cookie.split(";")[0]
        return json.loads(data)


def login(url: str) -> RemoteSession:
    """A session at `url`, logged in as DRILLSPARK_USER / DRILLSPARK_PASSWORD when set."""
    return RemoteSession(url, os.environ.get("DRILLSPARK_USER"),
                         os.environ.get("DRILLSPARK_PASSWORD"))


def answer_text(answer: dict[str, Any], fmt: str = "table") -> str:
    """A completed query's answer in `fmt`; RemoteError for a failed one."""
    from drillspark.sql.output import FORMATS

    if answer.get("queryState") != "COMPLETED":
        message = answer.get("errorMessage") or "(the server gave no message)"
        raise RemoteError(f"{answer.get('queryState', 'FAILED')}: {message}")
    columns = answer.get("columns", [])
    rows = [[r.get(c) for c in columns] for r in answer.get("rows", [])]
    return FORMATS[fmt](columns, rows)


def run(url: str, text: str, fmt: str) -> int:
    from drillspark.cli.main import CliError
    from drillspark.sql import statements as st

    session = login(url)
    for _, statement in st.split(text):
        try:
            answer = session.query(statement)
        except RemoteError as e:
            raise CliError(str(e)) from None
        try:
            print(answer_text(answer, fmt))
        except RemoteError as e:
            print(f"drillspark: {e}")
            return 1
    return 0


def shell(url: str, history: Any) -> int:
    """The interactive shell, its statements answered by the server at `url` (USE and ALTER
    SESSION hold through the session cookie)."""
    from drillspark.sql.shell import Shell

    class RemoteShell(Shell):
        def __init__(self) -> None:
            super().__init__(None, history=history)  # type: ignore[arg-type]  # no local engine
            self.remote = login(url)

        def warm_up(self) -> None:  # the server's Spark is running already
            pass

        def completer(self):
            from drillspark.sql.shell import _completer

            return _completer(None)

        def tables_statement(self) -> str:
            return "SHOW FILES"

        def execute(self, statement: str) -> str:
            from drillspark.sql.cancel import QueryCancelled

            try:
                return answer_text(self.remote.query(statement))
            except KeyboardInterrupt:  # the server finishes the query; the shell moves on
                raise QueryCancelled() from None

    return RemoteShell().run()
