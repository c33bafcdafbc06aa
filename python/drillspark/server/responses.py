"""The JSON styles of Drill's REST API: Jackson's pretty printer (most endpoints), the
streamed /query.json body (compact, a newline before each comma, a newline after the closing
brace) and compact JSON (a query profile, /profiles/{id}.json)."""

from __future__ import annotations

import json
from typing import Any

# drillspark's own request header: the id a client gives its query, so that it can cancel it
# (GET /profiles/cancel/{id}) while it still waits for the answer (the CLI's Ctrl-C)
QUERY_ID_HEADER = "X-Drillspark-Query-Id"


def jackson(value: Any, indent: int = 0) -> str:
    """JSON as Jackson's DefaultPrettyPrinter writes it: `"key" : value`, two-space indent,
    arrays on one line (`[ {`, `}, {`, `} ]`), empty containers as `{ }` and `[ ]`."""
    if isinstance(value, dict):
        if not value:
            return "{ }"
        pad = "  " * (indent + 1)
        items = [
            f"{pad}{json.dumps(str(k), ensure_ascii=False)} : {jackson(v, indent + 1)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(jackson(v, indent) for v in value) + " ]"
    if isinstance(value, float) and value != value:
        return '"NaN"'
    return json.dumps(value, ensure_ascii=False)


def query_head(query_id: str, columns: list[str], metadata: list[str], auto_limit: int) -> str:
    dump = json.dumps
    return (
        f'{{"queryId":{dump(query_id)}\n'
        f',"columns":{dump(columns, ensure_ascii=False, separators=(",", ":"))}\n'
        f',"metadata":{dump(metadata, separators=(",", ":"))}\n'
        f',"attemptedAutoLimit":{auto_limit}\n'
        f',"rows":[\n'
    )


def query_tail(
    state: str, error: str | None = None, exception: str | None = None, verbose: bool = False
) -> str:
    out = "]\n"
    out += _error_fields(error, exception, verbose)
    return out + f',"queryState":{json.dumps(state)}\n}}\n'


def query_failed(
    query_id: str, state: str, error: str, exception: str | None, verbose: bool
) -> str:
    return (
        f'{{"queryId":{json.dumps(query_id)}\n'
        + _error_fields(error, exception, verbose)
        + f',"queryState":{json.dumps(state)}\n}}\n'
    )


def _error_fields(error: str | None, exception: str | None, verbose: bool) -> str:
    if error is None:
        return ""
    out = ""
    if verbose:
        out += f',"exception":{json.dumps(exception or "drillspark.SqlError")}\n'
    out += f',"errorMessage":{json.dumps(error, ensure_ascii=False)}\n'
    if verbose:
        # never a stack trace: the message's lines stand in for it
        out += f',"stackTrace":{json.dumps(error.splitlines(), ensure_ascii=False)}\n'
    return out
