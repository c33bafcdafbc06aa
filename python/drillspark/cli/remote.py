"""`drillspark sql` and `drillspark shell` on a running `drillspark serve` (or a real Drill),
through its REST API, so a command-line query skips Spark's start-up: the server named by
`--connect URL`, or a local one found through its discovery file (cli/discovery.py) when it
would answer exactly as a local run would. Ctrl-C cancels the query on the server."""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

from drillspark.cli import discovery
from drillspark.errors import UsageError
from drillspark.options import REGISTRY, SERVER
from drillspark.plugin_configs.bootstrap import BUILT_IN, FILE_PLUGIN, ROOT_WORKSPACE
from drillspark.server.responses import QUERY_ID_HEADER

# How long a found server may take to show it is alive before the CLI runs locally instead.
ALIVE_TIMEOUT = 1.0
# The server's own options (drillspark.options, effect SERVER): they change error texts only,
# not answers.
_PRESENTATION_OPTIONS = frozenset(o.name for o in REGISTRY if o.effect == SERVER)
# What the server says of a table outside its workspaces (server/queries.py ConfinedSession;
# the dfs catalog's confined root), where a local run without --workspace reads it.
_OUTSIDE = ("lies outside the server's workspaces", f"is refused in workspace '{ROOT_WORKSPACE}'")


class RemoteError(UsageError):
    pass


class RemoteSession:
    """One HTTP session. USE and ALTER SESSION SET hold between statements because each
    request carries them (the REST `defaultSchema` and `options` fields, which Drill 1.22's
    /query.json takes): real Drill keeps no session for an anonymous REST client, so its
    cookie alone would lose them (a drillspark server keeps them in the cookie's session too)."""

    def __init__(self, url: str, user: str | None = None, password: str | None = None):
        self.url = url.rstrip("/")
        self.cookie: str | None = None
        self.auth: str | None = None
        self.default_schema: str | None = None  # as the server named it after USE
        self.options: dict[str, str] = {}  # ALTER SESSION SET, as text
        if user:
            token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
            self.auth = f"Basic {token}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> tuple[int, bytes]:
        """(status, body) of one request in this session; RemoteError when the server cannot
        be reached."""
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.auth:
            headers["Authorization"] = self.auth
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                cookie = r.headers.get("Set-Cookie")
                status, data = r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except urllib.error.URLError as e:
            raise RemoteError(f"cannot reach {self.url}: {e.reason}") from None
        except (TimeoutError, ConnectionError) as e:
            raise RemoteError(f"cannot reach {self.url}: {e}") from None
        if cookie:
            self.cookie = cookie.split(";")[0]
        return status, data

    def query(self, sql: str) -> dict[str, Any]:
        """The server's answer to one statement. The query carries an id chosen here, so
        Ctrl-C while waiting cancels it on the server (then QueryCancelled)."""
        query_id = str(uuid.uuid4())
        request: dict[str, Any] = {"queryType": "SQL", "query": sql}
        if self.default_schema:
            request["defaultSchema"] = self.default_schema
        if self.options:
            request["options"] = dict(self.options)
        body = json.dumps(request).encode()
        try:
            status, data = self.request(
                "POST",
                "/query.json",
                body,
                {"Content-Type": "application/json", QUERY_ID_HEADER: query_id},
            )
        except KeyboardInterrupt:
            if not self.cancel(query_id):
                print(
                    f"drillspark: {self.url} did not cancel query {query_id} (it had "
                    "ended, or the server does not answer)",
                    file=sys.stderr,
                )
            from drillspark.sql.cancel import QueryCancelled

            raise QueryCancelled() from None
        if status != 200:
            try:
                message = json.loads(data).get("errorMessage")
            except (ValueError, AttributeError):
                message = None
            raise RemoteError(f"{self.url}: HTTP {status}: {message or data[:200]!r}")
        answer = decode(json.loads(data, parse_float=decimal.Decimal))
        if answer.get("queryState", "COMPLETED") == "COMPLETED":
            self._carry(sql, answer)
        return answer

    def _carry(self, sql: str, answer: dict[str, Any]) -> None:
        """Remember what a successful USE or session SET / RESET changed, for the next
        requests to carry."""
        from drillspark.sql.statements import SetOption, Use, classify

        try:
            stmt = classify(sql)
        except Exception:  # noqa: BLE001 - the server ran it; only USE and SET matter here
            return
        if isinstance(stmt, Use):
            columns, rows = answer.get("columns") or [], answer.get("rows") or [[]]
            summary = str(dict(zip(columns, rows[0], strict=False)).get("summary", ""))
            named = re.search(r"Default schema changed to \[(.*)\]$", summary)
            self.default_schema = named.group(1) if named else ".".join(stmt.schema)
        elif isinstance(stmt, SetOption) and stmt.scope == "session":
            if not stmt.name:
                self.options.clear()  # RESET ALL
            elif stmt.value is None:
                self.options.pop(stmt.name, None)
            elif isinstance(stmt.value, bool):
                self.options[stmt.name] = "true" if stmt.value else "false"
            else:
                self.options[stmt.name] = str(stmt.value)

    def cancel(self, query_id: str, wait: float = 5.0) -> bool:
        """Cancel the query on the server; True once it is. A query the server has not
        registered yet (its request still on the way) is asked again until `wait` runs
        out; False when it had ended already or the server does not answer."""
        deadline = time.monotonic() + wait
        while True:
            try:
                _, text = self.request("GET", f"/profiles/cancel/{query_id}", timeout=2)
                if text.startswith(b"Cancelled query"):
                    return True
                status, _ = self.request("GET", f"/profiles/{query_id}.json", timeout=2)
            except RemoteError:
                return False
            if status == 200 or time.monotonic() > deadline:  # ended before the cancel
                return False
            time.sleep(0.1)

    def get_json(self, path: str, timeout: float | None = None) -> Any:
        status, data = self.request("GET", path, timeout=timeout)
        if status != 200:
            raise RemoteError(f"{self.url}{path}: HTTP {status}")
        return json.loads(data)


def login(url: str) -> RemoteSession:
    """A session at `url`, logged in as DRILLSPARK_USER / DRILLSPARK_PASSWORD when set."""
    return RemoteSession(
        url, os.environ.get("DRILLSPARK_USER"), os.environ.get("DRILLSPARK_PASSWORD")
    )


# --------------------------------------------------------------- answers
_EPOCH = _dt.datetime(1970, 1, 1)
# A column's values back to what a local run gives (docs/server.md: values as Drill sends them)
_DECODERS: dict[str, Callable[[Any], Any]] = {
    "DATE": lambda v: (_EPOCH + _dt.timedelta(milliseconds=int(v))).date(),
    "TIMESTAMP": lambda v: _EPOCH + _dt.timedelta(milliseconds=int(v)),
    "TIME": lambda v: (_EPOCH + _dt.timedelta(milliseconds=int(v))).time(),
    "VARBINARY": lambda v: base64.b64decode(v),
    "FLOAT4": float,
    "FLOAT8": float,
}


def _floats(value: Any) -> Any:
    """JSON numbers were read as Decimal (to keep a DECIMAL's scale): floats elsewhere."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


def decode(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with its rows as lists of Python values, typed by `metadata`."""
    columns = answer.get("columns", [])
    metadata = answer.get("metadata") or [""] * len(columns)
    decoders = []
    for kind in metadata:
        if kind.startswith(("VARDECIMAL", "DECIMAL")):
            decoders.append(lambda v: v if isinstance(v, decimal.Decimal) else decimal.Decimal(v))
        else:
            decoders.append(_DECODERS.get(kind, _floats))
    rows = []
    for row in answer.get("rows", []):
        rows.append(
            [
                None if row.get(c) is None else d(row.get(c))
                for c, d in zip(columns, decoders, strict=True)
            ]
        )
    return {**answer, "rows": rows}


def answer_text(answer: dict[str, Any], fmt: str = "table") -> str:
    """A completed query's answer in `fmt`; RemoteError for a failed one."""
    from drillspark.display import FORMATS

    if answer.get("queryState") != "COMPLETED":
        message = answer.get("errorMessage") or "(the server gave no message)"
        raise RemoteError(f"{answer.get('queryState', 'FAILED')}: {message}")
    return FORMATS[fmt](answer.get("columns", []), answer.get("rows", []))


# --------------------------------------------------------------- finding a local server
def find_local(workspaces: dict[str, str]) -> tuple[RemoteSession, discovery.LocalServer] | None:
    """A running local `drillspark serve` that answers as a local run with these
    `workspaces` (name -> folder, with the defaults filled in) would: the same workspaces,
    its plugins enabled, no system option changed. A server whose file says it runs but
    that does not answer is skipped with a note on stderr."""
    wanted = _real(workspaces)
    for server in discovery.local_servers():
        if _real(server.workspaces) != wanted:
            continue
        if server.auth and not os.environ.get("DRILLSPARK_USER"):
            continue  # it needs a login the command does not have
        session = login(server.url)
        try:
            status, _ = session.request("GET", "/status.json", timeout=ALIVE_TIMEOUT)
            if status != 200:
                raise RemoteError(f"HTTP {status}")
            if not _answers_as_local(session, wanted):
                continue
        except (RemoteError, ValueError, OSError) as e:
            print(
                f"drillspark: the server at {server.url} (pid {server.pid}) does not "
                f"answer ({e}); running locally",
                file=sys.stderr,
            )
            continue
        return session, server
    return None


def _real(workspaces: dict[str, str]) -> dict[str, str]:
    return {k.lower(): os.path.realpath(v) for k, v in workspaces.items()}


def _answers_as_local(session: RemoteSession, wanted: dict[str, str]) -> bool:
    """The server's live state (an admin may have changed it since it wrote its file)."""
    plugins = {
        p.get("name"): p.get("config") or {}
        for p in session.get_json("/storage.json", timeout=ALIVE_TIMEOUT)
    }
    if any(not plugins.get(name, {}).get("enabled") for name in BUILT_IN):
        return False
    live = {
        k: (ws or {}).get("location", "")
        for k, ws in (plugins[FILE_PLUGIN].get("workspaces") or {}).items()
    }
    if _real(live) != wanted:
        return False
    options = session.get_json("/options.json", timeout=ALIVE_TIMEOUT)
    return not any(
        o.get("optionScope") == "SYSTEM" and o.get("name") not in _PRESENTATION_OPTIONS
        for o in options
    )


# --------------------------------------------------------------- the commands
# run() gives this when the server cannot answer as a local run would: run locally instead
RUN_LOCALLY = -1


def run(
    session: RemoteSession, text: str, fmt: str, setup: list[str], open_root: bool = False
) -> int:
    """`drillspark sql` on the server; RUN_LOCALLY when the local run has an `open_root`
    (no --workspace: its dfs.root reads any path) and the first statement reads outside the
    server's workspaces."""
    from drillspark.cli.main import CliError
    from drillspark.sql.cancel import QueryCancelled
    from drillspark.sql.statements import split

    _set_up(session, setup)
    for i, (_, statement) in enumerate(split(text)):
        try:
            answer = session.query(statement)
        except RemoteError as e:
            raise CliError(str(e)) from None
        except QueryCancelled as e:  # as a local run reports it
            print(f"drillspark: {e}", file=sys.stderr)
            return 130
        try:
            print(answer_text(answer, fmt), flush=True)
        except RemoteError as e:
            if open_root and i == 0 and any(m in str(e) for m in _OUTSIDE):
                return RUN_LOCALLY
            print(f"drillspark: {e}", file=sys.stderr)
            return 1
    return 0


def shell(session: RemoteSession, history: Any, setup: list[str]) -> int:
    """The interactive shell, its statements answered by the server (USE and ALTER SESSION
    hold through the session cookie); Ctrl-C cancels the running query on the server."""
    from drillspark.sql.shell import Shell

    class RemoteShell(Shell):
        def __init__(self) -> None:
            super().__init__(None, history=history)  # type: ignore[arg-type]  # no local engine
            self.remote = session

        def warm_up(self) -> None:  # the server's Spark is running already
            pass

        def completer(self):
            from drillspark.sql.shell import _completer

            return _completer(None)

        def tables_statement(self) -> str:
            # as the local shell: the default schema's files, else dfs.root's (a
            # drillspark server tells its session's default schema; Drill does not)
            try:
                info = self.remote.get_json("/session.json", timeout=ALIVE_TIMEOUT)
            except (RemoteError, ValueError):
                return "SHOW FILES"
            if info.get("defaultSchema"):
                return "SHOW FILES"
            return f"SHOW FILES IN {FILE_PLUGIN}.{ROOT_WORKSPACE}"

        def execute(self, statement: str) -> str:
            return answer_text(self.remote.query(statement))

    _set_up(session, setup)
    return RemoteShell().run()


def _set_up(session: RemoteSession, setup: list[str]) -> None:
    """Run `--schema` / `--set` (as USE / ALTER SESSION) in the server session first; a
    failure is a usage error."""
    from drillspark.cli.main import CliError

    try:
        for statement in setup:
            answer_text(session.query(statement))
    except RemoteError as e:
        raise CliError(str(e), code=2) from None
