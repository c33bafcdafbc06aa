"""`drillspark sql --connect URL`: run statements on a running `drillspark serve` (or a real
Drill) through its REST API, so a command-line query skips Spark's start-up."""

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


def run(url: str, text: str, fmt: str) -> int:
    from drillspark.cli.main import CliError
    from drillspark.sql import statements as st
    from drillspark.sql.output import FORMATS

    session = RemoteSession(url, os.environ.get("DRILLSPARK_USER"),
                            os.environ.get("DRILLSPARK_PASSWORD"))
    for _, statement in st.split(text):
        try:
            answer = session.query(statement)
        except RemoteError as e:
            raise CliError(str(e)) from None
        if answer.get("queryState") != "COMPLETED":
            message = answer.get("errorMessage") or "(the server gave no message)"
            print(f"drillspark: {answer.get('queryState', 'FAILED')}: {message}")
            return 1
        columns = answer.get("columns", [])
        rows = [[r.get(c) for c in columns] for r in answer.get("rows", [])]
        print(FORMATS[fmt](columns, rows))
    return 0
