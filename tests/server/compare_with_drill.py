"""Send the same REST requests to a real Drill 1.22 and to `drillspark serve` and print where
their answers differ: HTTP status, content type, JSON field names, their order and types, and
the values (ids and times masked). Not a test (pytest does not collect it): the tool behind
docs/server.md's "Differences from Drill's responses"; the tests keep what it found.

Both servers must serve the same folder as `dfs.data` (`dfs.tmp` writable):

    DRILL_HEAP=1g DRILL_DIRECT=1g ../shared/tools/drill/server.sh --port 18047 --root DIR
    drillspark serve --port 18048 --workspace data=DIR --workspace tmp=SCRATCH
    python tests/server/compare_with_drill.py http://127.0.0.1:18047 http://127.0.0.1:18048 \
        [--only NAME...] [--json OUT.json]

DIR holds `file.json` (the three lines of ../shared/tools/drill/README.md's REST samples),
`nation.json`, `orders_nested.json`, `people.json` (copies from ../shared/data/breadth) and
`sub/` (one Citi Bike file, renamed `.json`: Drill reads no `.ndjson`)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

TYPES = (
    "SELECT CAST(1.5 AS DECIMAL(5,2)) AS d, CAST(2 AS INT) AS i, CAST(3 AS BIGINT) AS bi, "
    "CAST(0.5 AS FLOAT) AS f4, CAST(1.5 AS DOUBLE) AS f8, DATE '2024-01-02' AS dt, "
    "TIMESTAMP '2024-01-02 03:04:05.678' AS ts, TIME '03:04:05' AS tm, "
    "INTERVAL '1' DAY AS ids, INTERVAL '1-2' YEAR TO MONTH AS iym, true AS b, "
    "CAST(NULL AS VARCHAR) AS n, CAST('ab' AS VARBINARY) AS vb, "
    "CAST('NaN' AS DOUBLE) AS nan, CAST(0.1 AS FLOAT) AS f41 FROM (VALUES(1))"
)
GRAIN = "NEARESTDATE(TO_TIMESTAMP(executionTime, 'yyyy-MM-dd hh:mm:ss a'), 'QUARTER_HOUR')"

# (name, SQL, extra request fields)
QUERIES: list[tuple[str, Any, dict[str, Any]]] = [
    ("sys.version", "SELECT * FROM sys.version", {}),
    ("drillbits version", "select min(version) version from sys.drillbits", {}),
    ("file", "SELECT * FROM dfs.data.`file.json`", {}),
    ("types", TYPES, {}),
    (
        "more types",
        "SELECT CAST(5 AS SMALLINT) AS s, CAST(6 AS TINYINT) AS t, CAST('x' AS CHAR(3)) AS c, "
        "CAST('Infinity' AS DOUBLE) AS inf, CAST(-0.5 AS DECIMAL(10,3)) AS dn, "
        "INTERVAL '1 02:03:04.5' DAY TO SECOND AS ids2, INTERVAL '-3' MONTH AS iym2, "
        "TIMESTAMP '1969-12-31 23:59:59.5' AS ts0, DATE '1900-01-01' AS d0 FROM (VALUES(1))",
        {},
    ),
    ("map", "SELECT t.m AS m, t.m.k AS k FROM dfs.data.`file.json` t", {}),
    ("empty result", "SELECT * FROM dfs.data.`people.json` WHERE id < 0", {}),
    ("no such table", "SELECT * FROM dfs.data.`nosuch.json`", {}),
    (
        "no such table verbose",
        "SELECT * FROM dfs.data.`nosuch.json`",
        {"options": {"drill.exec.http.rest.errors.verbose": True}},
    ),
    ("syntax error", "selec 1", {}),
    (
        "syntax error verbose",
        "selec 1",
        {"options": {"drill.exec.http.rest.errors.verbose": True}},
    ),
    ("no such column", "SELECT nosuch FROM (VALUES(1))", {}),
    ("division by zero", "SELECT 1/0 AS x FROM (VALUES(1))", {}),
    ("autoLimit", "SELECT N_NAME FROM dfs.data.`nation.json` ORDER BY N_NAME", {"autoLimit": 2}),
    ("autoLimit text", "SELECT N_NAME FROM dfs.data.`nation.json`", {"autoLimit": "1"}),
    ("autoLimit 0", "SELECT count(*) AS n FROM dfs.data.`nation.json`", {"autoLimit": 0}),
    ("defaultSchema", "SELECT count(*) AS n FROM `file.json`", {"defaultSchema": "dfs.data"}),
    ("bad defaultSchema", "SELECT 1 AS x FROM (VALUES(1))", {"defaultSchema": "dfs.nosuch"}),
    (
        "all_text_mode",
        "SELECT a FROM dfs.data.`file.json`",
        {"options": {"store.json.all_text_mode": True}},
    ),
    ("userName", "SELECT 1 AS x FROM (VALUES(1))", {"userName": "carol"}),
    ("USE", "USE dfs.data", {}),
    ("ALTER SESSION", "ALTER SESSION SET `store.json.all_text_mode` = true", {}),
    ("ALTER SESSION RESET", "ALTER SESSION RESET `store.json.all_text_mode`", {}),
    ("SHOW SCHEMAS", "SHOW SCHEMAS", {}),
    ("SHOW DATABASES", "SHOW DATABASES", {}),
    (
        "SCHEMATA",
        "SELECT * FROM INFORMATION_SCHEMA.`SCHEMATA` WHERE SCHEMA_NAME LIKE 'dfs%' ORDER BY SCHEMA_NAME",
        {},
    ),
    (
        "SCHEMATA type",
        "SELECT SCHEMA_NAME, TYPE\n            FROM INFORMATION_SCHEMA.`SCHEMATA`\n"
        "            WHERE SCHEMA_NAME LIKE '%dfs.data%'",
        {},
    ),
    ("SHOW FILES", "SHOW FILES FROM dfs.data", {}),
    ("SHOW FILES quoted", "SHOW FILES FROM `dfs`.`data`", {}),
    ("SHOW TABLES", "SHOW TABLES IN dfs.tmp", {}),
    ("LIMIT 1", "SELECT * FROM `dfs`.`data`.`people.json` LIMIT 1", {}),
    ("DESCRIBE file", "DESCRIBE dfs.data.`people.json`", {}),
    (
        "DESCRIBE system table",
        "DESCRIBE INFORMATION_SCHEMA.`SCHEMATA`",
        {},
    ),
    # NEARESTDATE is in Drill's contrib UDFs, which ../shared/tools/drill does not load
    ("NEARESTDATE", f"SELECT {GRAIN} AS g, count(*) AS n FROM dfs.data.`sub` GROUP BY {GRAIN}", {}),
    (
        "FLATTEN KVGEN",
        "SELECT k.cust AS cust, k.kv.key AS key, k.kv.`value` AS v FROM (SELECT t.cust AS cust, "
        "FLATTEN(KVGEN(t.scores)) AS kv FROM dfs.data.`orders_nested.json` t) k "
        "ORDER BY cust, key LIMIT 3",
        {},
    ),
    (
        "FLATTEN map",
        "SELECT t.cust AS cust, FLATTEN(KVGEN(t.scores)) AS kv FROM dfs.data.`orders_nested.json` t "
        "WHERE t.cust = 'bob'",
        {},
    ),
    ("folder", "SELECT count(*) AS n FROM dfs.data.`sub`", {}),
    ("SELECT NULL", "SELECT NULL AS x FROM (VALUES(1))", {}),
    (
        "interval fractions",
        "SELECT INTERVAL '1 02:03:04.5' DAY TO SECOND AS a, INTERVAL '0.25' SECOND AS b, "
        "INTERVAL '-3' MONTH AS c, INTERVAL '2' YEAR AS d FROM (VALUES(1))",
        {},
    ),
    (
        "time edges",
        "SELECT TIMESTAMP '1969-12-31 23:59:59.5' AS ts0, DATE '1900-01-01' AS d0, "
        "TIME '23:59:59.999' AS t1 FROM (VALUES(1))",
        {},
    ),
    ("empty query", "", {}),
    ("numeric query", 5, {}),  # type: ignore[list-item]
    ("options not an object", "SELECT 1 AS x FROM (VALUES(1))", {"options": []}),
    (
        "option as text",
        "SELECT a FROM dfs.data.`file.json`",
        {"options": {"store.json.all_text_mode": "true"}},
    ),
    (
        "option of the wrong type",
        "SELECT 1 AS x FROM (VALUES(1))",
        {"options": {"planner.slice_target": "x"}},
    ),
    ("autoLimit negative", "SELECT N_NAME FROM dfs.data.`nation.json`", {"autoLimit": -1}),
    ("autoLimit 1.5", "SELECT N_NAME FROM dfs.data.`nation.json`", {"autoLimit": "1.5"}),
    ("autoLimit 2.7", "SELECT N_NAME FROM dfs.data.`nation.json`", {"autoLimit": 2.7}),
    ("autoLimit true", "SELECT N_NAME FROM dfs.data.`nation.json`", {"autoLimit": True}),
    ("autoLimit spaces", "SELECT N_NAME FROM dfs.data.`nation.json`", {"autoLimit": " 2"}),
    ("ALTER SYSTEM SET", "ALTER SYSTEM SET `store.json.all_text_mode` = false", {}),
    ("ALTER SYSTEM RESET", "ALTER SYSTEM RESET `store.json.all_text_mode`", {}),
    ("ALTER SYSTEM RESET ALL", "ALTER SYSTEM RESET ALL", {}),
    ("ALTER SESSION RESET ALL", "ALTER SESSION RESET ALL", {}),
    ("ALTER SESSION bad value", "ALTER SESSION SET `store.json.all_text_mode` = 'yes'", {}),
    ("DROP view if exists", "DROP VIEW IF EXISTS dfs.tmp.v_cmp", {}),
    ("DROP table if exists", "DROP TABLE IF EXISTS dfs.tmp.t_cmp", {}),
    ("CREATE VIEW", "CREATE VIEW dfs.tmp.v_cmp AS SELECT N_NAME FROM dfs.data.`nation.json`", {}),
    (
        "CTAS",
        "CREATE TABLE dfs.tmp.t_cmp AS SELECT N_NATIONKEY, N_NAME FROM dfs.data.`nation.json`",
        {},
    ),
    ("CTAS read", "SELECT count(*) AS n FROM dfs.tmp.t_cmp", {}),
    ("VIEWS", "SELECT * FROM INFORMATION_SCHEMA.VIEWS WHERE TABLE_SCHEMA = 'dfs.tmp'", {}),
    (
        "VIEWS sqlalchemy",
        "SELECT `TABLE_NAME` FROM INFORMATION_SCHEMA.views WHERE table_schema='dfs.tmp'",
        {},
    ),
    (
        "TABLES",
        "SELECT * FROM INFORMATION_SCHEMA.`TABLES` WHERE `TABLE_SCHEMA` = 'dfs.tmp' ORDER BY TABLE_NAME",
        {},
    ),
    (
        "TABLES sqlalchemy",
        "SELECT `TABLE_NAME` AS name FROM INFORMATION_SCHEMA.`TABLES` WHERE `TABLE_SCHEMA` = 'dfs.tmp'",
        {},
    ),
    (
        "COLUMNS",
        "SELECT * FROM INFORMATION_SCHEMA.`COLUMNS` WHERE TABLE_SCHEMA = 'dfs.tmp' ORDER BY TABLE_NAME, ORDINAL_POSITION",
        {},
    ),
    ("DESCRIBE view", "DESCRIBE dfs.tmp.v_cmp", {}),
    ("SHOW FILES tmp", "SHOW FILES FROM dfs.tmp", {}),
    ("DROP VIEW", "DROP VIEW dfs.tmp.v_cmp", {}),
    ("DROP TABLE", "DROP TABLE dfs.tmp.t_cmp", {}),
    ("two statements", "SELECT 1 AS x FROM (VALUES(1)); SELECT 2 AS y FROM (VALUES(1))", {}),
    ("trailing semicolon", "SELECT 1 AS x FROM (VALUES(1));", {}),
    ("lower-case queryType", "SELECT 1 AS x FROM (VALUES(1))", {"queryType": "sql"}),
    ("PHYSICAL", "{}", {"queryType": "PHYSICAL"}),
    ("unknown option", "SELECT 1 AS x FROM (VALUES(1))", {"options": {"no.such.option": 1}}),
    ("bad autoLimit", "SELECT 1 AS x FROM (VALUES(1))", {"autoLimit": "abc"}),
]

# (name, method, path, body, content type)
RAW: list[tuple[str, str, str, bytes | None, str | None]] = [
    (
        "malformed JSON",
        "POST",
        "/query.json",
        b'{"queryType": "SQL", "query": ',
        "application/json",
    ),
    ("no queryType", "POST", "/query.json", b'{"query": "SELECT 1"}', "application/json"),
    ("no query", "POST", "/query.json", b'{"queryType": "SQL"}', "application/json"),
    ("JSON array body", "POST", "/query.json", b"[1, 2]", "application/json"),
    (
        "form body",
        "POST",
        "/query.json",
        b"queryType=SQL&query=SELECT+1",
        "application/x-www-form-urlencoded",
    ),
    ("empty body", "POST", "/query.json", b"", "application/json"),
    ("GET query.json", "GET", "/query.json", None, None),
    ("status.json", "GET", "/status.json", None, None),
    ("status", "GET", "/status", None, None),
    ("metrics", "GET", "/status/metrics", None, None),
    ("threads", "GET", "/status/threads", None, None),
    ("stats.json", "GET", "/stats.json", None, None),
    ("cluster.json", "GET", "/cluster.json", None, None),
    ("HEAD /", "HEAD", "/", None, None),
    ("storage.json", "GET", "/storage.json", None, None),
    ("storage dfs", "GET", "/storage/dfs.json", None, None),
    ("storage cp", "GET", "/storage/cp.json", None, None),
    ("storage unknown", "GET", "/storage/nosuch.json", None, None),
    ("storage enable dfs", "GET", "/storage/dfs/enable/true", None, None),
    ("storage enable unknown", "GET", "/storage/nosuch/enable/true", None, None),
    ("storage delete unknown", "DELETE", "/storage/nosuch.json", None, None),
    ("storage post bad JSON", "POST", "/storage/dfs.json", b"{", "application/json"),
    ("options.json", "GET", "/options.json", None, None),
    (
        "option set",
        "POST",
        "/option/store.json.all_text_mode",
        b"name=store.json.all_text_mode&value=false&kind=BOOLEAN",
        "application/x-www-form-urlencoded",
    ),
    (
        "option unknown",
        "POST",
        "/option/no.such.option",
        b"name=no.such.option&value=1&kind=LONG",
        "application/x-www-form-urlencoded",
    ),
    ("profiles.json", "GET", "/profiles.json", None, None),
    ("profile unknown", "GET", "/profiles/2a7b3c4d-0000-0000-0000-000000000001.json", None, None),
    ("profile bad id", "GET", "/profiles/nonsense.json", None, None),
    ("cancel unknown", "GET", "/profiles/cancel/2a7b3c4d-0000-0000-0000-000000000001", None, None),
    ("unknown path", "GET", "/nosuch", None, None),
    ("unknown json path", "GET", "/nosuch.json", None, None),
    ("wrong method", "DELETE", "/query.json", None, None),
]

MASK = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# fields whose values differ from run to run (ids, clocks, durations, ports)
VOLATILE = {
    "queryId",
    "startTime",
    "endTime",
    "time",
    "start",
    "end",
    "planEnd",
    "queueWaitEnd",
    "part1",
    "part2",
    "duration",
    "link",
    "errorId",
    "httpPort",
    "value",
    "count",
}


@dataclass
class Answer:
    status: int
    content_type: str
    headers: dict[str, str]
    text: str
    json: Any = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def send(
    base: str,
    method: str,
    path: str,
    body: bytes | None,
    kind: str | None,
    timeout: float = 300,
) -> Answer:
    headers = {"Content-Type": kind} if kind else {}
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, data = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, data = e.code, dict(e.headers), e.read()
    except TimeoutError:
        return Answer(0, "", {}, "", error="no answer in time")
    text = data.decode("utf-8", "replace")
    a = Answer(status, hdrs.get("Content-Type", ""), hdrs, text)
    try:
        a.json = json.loads(text, object_pairs_hook=lambda pairs: ("OBJ", pairs))
    except ValueError as e:
        a.error = str(e)
    return a


def query(base: str, sql: Any, fields: dict[str, Any], timeout: float = 300) -> Answer:
    body = {"queryType": "SQL", "query": sql}
    body.update(fields)
    data = json.dumps(body).encode()
    return send(base, "POST", "/query.json", data, "application/json", timeout)


def shape(v: Any, depth: int = 0) -> Any:
    """The JSON's skeleton: objects as their keys in order with their values' shapes,
    arrays as the set of their elements' shapes, scalars as their type name."""
    if isinstance(v, tuple) and v and v[0] == "OBJ":
        return [(k, shape(x, depth + 1)) for k, x in v[1]]
    if isinstance(v, list):
        seen: list[Any] = []
        for x in v[:50]:
            s = shape(x, depth + 1)
            if s not in seen:
                seen.append(s)
        return ["ARRAY", seen]
    return type(v).__name__


def plain(v: Any, volatile: bool = True) -> Any:
    if isinstance(v, tuple) and v and v[0] == "OBJ":
        return {
            k: "#"
            if volatile and k in VOLATILE and not isinstance(x, tuple)
            else plain(x, volatile)
            for k, x in v[1]
        }
    if isinstance(v, list):
        return [plain(x, volatile) for x in v]
    if isinstance(v, str) and volatile:
        return MASK.sub("#", v)
    return v


def masked(text: str) -> str:
    return MASK.sub("#", text)


def compare(name: str, d: Answer, s: Answer, out: list[dict[str, Any]], show: bool) -> None:
    diffs = []
    if d.status != s.status:
        diffs.append(f"status: drill {d.status}, drillspark {s.status}")
    if d.content_type.lower().replace(" ", "") != s.content_type.lower().replace(" ", ""):
        diffs.append(f"content type: drill {d.content_type!r}, drillspark {s.content_type!r}")
    if (d.error is None) != (s.error is None):
        diffs.append(
            f"JSON: drill {'no' if d.error else 'yes'}, drillspark {'no' if s.error else 'yes'}"
        )
    if d.error is None and s.error is None:
        if shape(d.json) != shape(s.json):
            diffs.append(f"shape:\n    drill      {shape(d.json)}\n    drillspark {shape(s.json)}")
        pd, ps = plain(d.json), plain(s.json)
        if pd != ps:
            diffs.append(
                f"values:\n    drill      {json.dumps(pd, ensure_ascii=False)[:1500]}"
                f"\n    drillspark {json.dumps(ps, ensure_ascii=False)[:1500]}"
            )
    elif masked(d.text).strip() != masked(s.text).strip():
        diffs.append(f"text:\n    drill      {d.text[:600]!r}\n    drillspark {s.text[:600]!r}")
    out.append(
        {
            "name": name,
            "same": not diffs,
            "diffs": diffs,
            "drill": {"status": d.status, "type": d.content_type, "text": d.text[:4000]},
            "drillspark": {"status": s.status, "type": s.content_type, "text": s.text[:4000]},
        }
    )
    print(f"== {name}: {'same' if not diffs else 'DIFFERENT'}")
    for line in diffs:
        print("  " + line)
    if show or diffs:
        print("  drill:      " + d.text[:800].replace("\n", "\n              "))
        print("  drillspark: " + s.text[:800].replace("\n", "\n              "))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("drill")
    p.add_argument("drillspark")
    p.add_argument("--only", nargs="*", help="case names (substrings)")
    p.add_argument("--json", help="write every answer pair here")
    p.add_argument("--show", action="store_true", help="print equal answers too")
    args = p.parse_args()
    out: list[dict[str, Any]] = []

    def wanted(name: str) -> bool:
        return not args.only or any(o.lower() in name.lower() for o in args.only)

    for name, sql, fields in QUERIES:
        if wanted(name):
            compare(
                name,
                query(args.drill, sql, fields),
                query(args.drillspark, sql, fields),
                out,
                args.show,
            )
    for name, method, path, body, kind in RAW:
        if wanted(name):
            compare(
                name,
                send(args.drill, method, path, body, kind),
                send(args.drillspark, method, path, body, kind),
                out,
                args.show,
            )
    # the profiles of a finished and of a failed query, each server's own
    for name, sql in (
        ("profile completed", "SELECT 1 AS x FROM (VALUES(1))"),
        ("profile failed", "selec 1"),
    ):
        if not wanted(name):
            continue
        pair = []
        for base in (args.drill, args.drillspark):
            qid = query(base, sql, {}).json[1][0][1]
            for _ in range(50):  # Drill writes the profile a moment after the answer
                a = send(base, "GET", f"/profiles/{qid}.json", None, None)
                if a.status == 200:
                    break
                time.sleep(0.2)
            pair.append(a)
        compare(name, pair[0], pair[1], out, args.show)
    if wanted("running and cancelled"):
        running(args.drill, args.drillspark, out, args.show)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
    same = sum(o["same"] for o in out)
    known = [o["name"] for o in out if not o["same"] and o["name"] in KNOWN]
    unexplained = [o["name"] for o in out if not o["same"] and o["name"] not in KNOWN]
    print(f"{same} of {len(out)} the same; {len(known)} documented differences")
    print("not explained: " + (", ".join(unexplained) or "none"))
    return 0


# A query that runs for seconds on Drill and on drillspark: a six-way cartesian product of
# nation (Drill plans it only with planner.enable_nljoin_for_scalar_only off)
SLOW = (
    "SELECT count(*) AS n FROM "
    + ", ".join(f"dfs.data.`nation.json` {t}" for t in "abcdef")
    + " WHERE concat("
    + ", ".join(f"{t}.N_COMMENT" for t in "abcdef")
    + ") LIKE '%zzqq%'"
)


def running(drill: str, drillspark: str, out: list[dict[str, Any]], show: bool) -> None:
    """A running query in /profiles.json and its profile, its cancel, the cancelled answer
    and profile, on each server."""
    import threading

    steps: dict[str, list[Answer]] = {}
    for base in (drill, drillspark):
        answer: list[Answer] = []
        fields = {"options": {"planner.enable_nljoin_for_scalar_only": False}}
        before = plain(send(base, "GET", "/profiles.json", None, None).json, volatile=False)
        if before["runningQueries"]:
            print(f"== running and cancelled: {base} runs other queries; not compared")
            return
        worker = threading.Thread(
            target=lambda b, f, a: a.append(query(b, SLOW, f, 120)),
            args=(base, fields, answer),
        )
        worker.start()
        query_id = None
        for _ in range(240):
            time.sleep(0.5)
            listing = send(base, "GET", "/profiles.json", None, None)
            entries = plain(listing.json, volatile=False)["runningQueries"]
            if entries:
                query_id = entries[0]["queryId"]
                break
        if query_id is None:
            worker.join()
            print(f"== running and cancelled: {base} never listed the query as running")
            return
        for _ in range(120):  # past planning (a busy machine plans slowly)
            listing = send(base, "GET", "/profiles.json", None, None)
            entries = plain(listing.json, volatile=False)["runningQueries"]
            if entries and entries[0]["state"] == "Running":
                break
            time.sleep(0.5)
        time.sleep(1)
        listing = send(base, "GET", "/profiles.json", None, None)
        profile = send(base, "GET", f"/profiles/{query_id}.json", None, None)
        cancel = send(base, "GET", f"/profiles/cancel/{query_id}", None, None)
        worker.join()
        time.sleep(2)  # Drill writes the profile a moment after the answer
        done = send(base, "GET", f"/profiles/{query_id}.json", None, None)
        for a in (profile, done):  # Drill's operator metrics and plans are its own
            if a.json is not None:
                a.json = (
                    "OBJ",
                    [(k, v) for k, v in a.json[1] if k not in ("plan", "fragmentProfile")],
                )
        for name, a in (
            ("running: list", listing),
            ("running: profile", profile),
            ("running: cancel", cancel),
            ("running: cancelled answer", answer[0]),
            ("running: cancelled profile", done),
        ):
            steps.setdefault(name, []).append(a)
    for name, (d, s) in steps.items():
        compare(name, d, s, out, show)


# Differences docs/server.md explains ("Differences from Drill's responses"), by case name
KNOWN = {
    "sys.version": "drillspark's own build in commit_id / commit_message",
    "types": "VARCHAR's precision: Spark strings have none",
    "more types": "both fail (SMALLINT); drillspark says why",
    "no such table": "errorMessage always",
    "no such table verbose": "messages and exception names are drillspark's; no JVM stack",
    "syntax error": "errorMessage always",
    "syntax error verbose": "messages and exception names are drillspark's; no JVM stack",
    "division by zero": "both fail; drillspark says why",
    "bad defaultSchema": "the message says why",
    "option of the wrong type": "the message says why",
    "unknown option": "the message says why",
    "no query": "the message says why",
    "empty body": "the message says why",
    "userName": "Drill refuses userName without impersonation; drillspark records it",
    "SHOW FILES tmp": "permissions and sizes of files each wrote",
    "VIEWS": "VIEW_DEFINITION is the text as written (Drill's is re-rendered by Calcite)",
    "NEARESTDATE": "Drill's contrib UDFs are not on the oracle's class path",
    "empty query": "errorMessage always",
    "numeric query": "errorMessage always",
    "ALTER SESSION bad value": "errorMessage always",
    "two statements": "errorMessage always",
    "trailing semicolon": "accepted",
    "PHYSICAL": "errorMessage always",
    "no such column": "errorMessage always",
    "malformed JSON": "JSON errors, not Jackson's text/plain",
    "no queryType": "JSON errors, not Jackson's text/plain",
    "JSON array body": "JSON errors, not Jackson's text/plain",
    "options not an object": "JSON errors, not Jackson's text/plain",
    "storage post bad JSON": "JSON errors, not Jackson's text/plain",
    "form body": "the status says what happened (Drill: 500 with the real status in the text)",
    "GET query.json": "the status says what happened",
    "unknown path": "the status says what happened",
    "unknown json path": "the status says what happened",
    "wrong method": "the status says what happened",
    "profile unknown": "404 and valid JSON",
    "profile bad id": "404 and valid JSON",
    "storage delete unknown": "404 (Drill: 500 with a NullPointerException's text)",
    "status": "drillspark's own console",
    "metrics": "drillspark's own gauges",
    "threads": "Python threads",
    "stats.json": "404 in Drill 1.22; pydrill calls it",
    "cluster.json": "ports (Drill's embedded Drillbit hunts for free ones)",
    "storage.json": "drillspark's plugins (cp, dfs)",
    "storage dfs": "workspace folders; no sequencefile format",
    "options.json": "the options drillspark knows",
    "option set": "no CSRF token (Drill's form needs one)",
    "option unknown": "no CSRF token (Drill's form needs one)",
    "profiles.json": "link from the Host header; queueName the Spark pool; totalCost 0",
    "profile completed": "plan and operator metrics; queueName; totalCost; ports",
    "profile failed": "error fields for every failure; queueName; ports",
    "running: list": "state, queueName, totalCost, link",
    "running: profile": "queueName, totalCost, ports, scannedPlugins while running",
    "running: cancel": "",
    "running: cancelled answer": "errorMessage always",
    "running: cancelled profile": "queueName, totalCost, ports",
}


if __name__ == "__main__":
    sys.exit(main())
