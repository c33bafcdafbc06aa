"""Compiles every statement of the conformance and breadth corpora (and a few edge cases of
the expression lowering kept here) into the plan's EXPLAIN JSON, or the error a statement
gives (its class, message and SQL position), and writes one record per statement to a file.
Run it before and after a change to the SQL lowering and compare the two files: a refactor
of the lowering must leave them identical.

    python tools/compare_lowering.py OUT.jsonl [--shared ../shared] [--no-spark]
    python tools/compare_lowering.py --diff BEFORE.jsonl AFTER.jsonl

Cases are compiled as tests/conformance compiles them: core cases with the workspace `root`
at ../shared/data/drill-conformance, breadth cases with `root` at ../shared/data and `tmp` a
scratch folder (fixed per case, so the plans do not differ by path) their `setup`
statements write. Setup statements run for real (they need Spark: views, CTAS); without
Spark (--no-spark) cases with setup statements are recorded as skipped.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a CTAS writes into a fresh uuid-named folder: the only part of a plan that differs by run
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# Expression forms the corpora hardly reach, compiled over the breadth data: signs and
# parentheses around numbers, decimals, exponents, NOT/IS forms, CASE, casts, intervals,
# row comparisons, aggregates with FILTER and DISTINCT, windows.
EXTRA = [
    "SELECT -5, - -5, -(5), -(-5), - -0, -(1.5), -1.5, -1e5, -(1e5), 007, .5, 1.e5 "
    "FROM (VALUES(1)) t(x)",
    "SELECT 2147483648, -2147483648, -(2147483648), 9223372036854775807, "
    "-9223372036854775808, 9223372036854775808, -(9223372036854775808), "
    "123456789012345678901234 FROM (VALUES(1)) t(x)",
    "SELECT -x, - -x, -(x + 1), NOT x > 1, NOT (x IS NULL), -(NOT true), -(x IS NULL) "
    "FROM (VALUES(1)) t(x)",
    "SELECT CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' END, CASE WHEN x > 1 THEN 1.5 ELSE -2 END, "
    "IF(x > 1, x, NULL) FROM (VALUES(1)) t(x)",
    "SELECT CAST(x AS VARCHAR), CAST(x AS DECIMAL(10, 2)), CAST(x AS DECIMAL), "
    "CAST(x AS CHAR(3)), CAST(x AS DOUBLE), CAST('1' AS INTERVAL DAY), "
    "INTERVAL '1' DAY, INTERVAL '-2' YEAR, INTERVAL '1 2' DAY TO HOUR FROM (VALUES(1)) t(x)",
    "SELECT x BETWEEN 1 AND 3, x IN (1, 2, 3), x NOT IN (4), x LIKE 'a%', x NOT LIKE 'b' "
    "ESCAPE '\\', x ILIKE 'c', x SIMILAR TO 'd', x IS NOT DISTINCT FROM 1, "
    "x IS DISTINCT FROM 2, x IS TRUE, x IS NOT FALSE, 'a' || 'b' FROM (VALUES('1')) t(x)",
    "SELECT (x, y) = (1, 2), (x, y) <> (1, 2), x = 1 AND y = 2 AND x < y OR y > 3 "
    "FROM (VALUES(1, 2)) t(x, y)",
    "SELECT TRIM(x), TRIM(LEADING 'a' FROM x), EXTRACT(YEAR FROM DATE '2020-01-01'), "
    "TIMESTAMPADD(SQL_TSI_DAY, 1, DATE '2020-01-01'), CONVERT_FROM(x, 'UTF8'), "
    "convert_fromJSON(x), LOG10(100), current_date, user, current_schema, pi "
    "FROM (VALUES('1')) t(x)",
    "SELECT kind, count(*), count(*) FILTER (WHERE x > 1), sum(x) FILTER (WHERE x > 1), "
    "count(DISTINCT x), sum(DISTINCT x), avg(x), stddev(x), count(x) + 1 "
    "FROM (VALUES('a', 1), ('b', 2)) t(kind, x) GROUP BY kind HAVING count(*) > 0 "
    "ORDER BY count(*) DESC",
    "SELECT x, row_number() OVER (PARTITION BY y ORDER BY x), sum(x) OVER (PARTITION BY y), "
    "stddev(x) OVER (), rank() OVER (ORDER BY x DESC NULLS LAST), "
    "sum(x) OVER (PARTITION BY y) + 1 FROM (VALUES(1, 2), (3, 2)) t(x, y)",
    "SELECT t.a.b[0].c, t.m['k'], FLATTEN(t.arr), FLATTEN(t.arr)[0] "
    "FROM (SELECT 1 AS a, 2 AS m, 3 AS arr) t",
    "SELECT x FROM (VALUES(1)) t(x) WHERE x > 0 AND x IN (SELECT 1) AND "
    "EXISTS (SELECT 1) AND x = (SELECT max(1))",
    "SELECT x FROM (VALUES(1)) t(x) WHERE x > ALL (SELECT 1) OR x = ANY (SELECT 2)",
    "SELECT a.x, b.y FROM (VALUES(1)) a(x) JOIN (VALUES(1, 2)) b(x, y) ON a.x = b.x "
    "AND a.x < b.y + 1 LEFT JOIN (VALUES(1)) c(x) ON c.x IS NOT DISTINCT FROM a.x",
    "SELECT x FROM (VALUES(1)) t(x) ORDER BY x + 1 DESC NULLS FIRST LIMIT 2 OFFSET 1",
    "SELECT 1 + 2 * 3 - 4 / 5 % 6, 'it''s', 'a\\b', true AND NOT false FROM (VALUES(1)) t(x)",
    "SELECT 0E.785 FROM (VALUES(1)) t(x)",
    "SELECT `a/b`(x) FROM (VALUES(1)) t(x)",
    "SELECT sum(sum(x)) FROM (VALUES(1)) t(x)",
    "SELECT x FROM (VALUES(1)) t(x) GROUP BY y",
    "SELECT CAST(x AS SMALLINT) FROM (VALUES(1)) t(x)",
    "SELECT sum(-0e0), sum(0e0), sum(-5), sum(-(5)), sum(x + 1), sum(add(x, 1)), "
    "sum(x) + sum((x)) FROM (VALUES(1)) t(x)",
    "SELECT - - 0e0, -(-(0)), -(CAST(x AS INT)), -'a', -NULL, -(x)[0] FROM (VALUES(1)) t(x)",
    "SELECT t.a[2147483647], t.a[0].b['c'] FROM (SELECT 1 AS a) t",
    "SELECT t.a[99999999999] FROM (SELECT 1 AS a) t",
    "SELECT `true`(1), `then`(x) FROM (VALUES(1)) t(x)",
    "SELECT * FROM dfs.`breadth/tpch/nation.parquet` a JOIN dfs.`breadth/tpch/region.parquet` b "
    "ON a.n_regionkey = b.r_regionkey",
    "SELECT sum(x) OVER (PARTITION BY -5), sum(x) OVER (PARTITION BY -(5)), "
    "count(*) OVER (PARTITION BY x + 1 ORDER BY x) FROM (VALUES(1)) t(x)",
    "SELECT x FROM (VALUES(1)) t(x) GROUP BY x HAVING sum(x) > (SELECT 1) AND x IN (SELECT 1)",
    "SELECT x, (SELECT max(y) FROM (VALUES(1)) u(y) WHERE u.y = t.x) FROM (VALUES(1)) t(x)",
    "SELECT x FROM (VALUES(1)) t(x) WHERE x <> ALL (SELECT 2) AND x >= ALL (SELECT 1) "
    "AND NOT EXISTS (SELECT 1 FROM (VALUES(2)) u(y) WHERE u.y = t.x)",
    "SELECT split('a b', ' ')[0], x FROM (VALUES(1)) t(x) WHERE split('a b', ' ')[1] = 'b'",
    "SELECT count(DISTINCT x), sum(DISTINCT x), count(DISTINCT -0e0) FROM (VALUES(1), (1)) t(x)",
    "SELECT CAST(x AS VARCHAR(3)), CAST(x AS VARBINARY), CAST(x AS DECIMAL(5)), "
    "CAST(x AS INTERVAL YEAR), CAST(x AS TIMESTAMP) FROM (VALUES('1')) t(x)",
    "SELECT * FROM (VALUES(1, 1.5, 1e3, -2), (2147483648, 2.25, 2, NULL)) t(a, b, c, d)",
]


def _package() -> str:
    """Where drillspark is installed (the cp plugin's location): masked, so that two trees
    compare."""
    import drillspark

    return str(Path(drillspark.__file__).parent)


_PACKAGE = ""


def _record(kind: str, cid: str, sql: str, compile_one) -> dict:
    from drillspark.errors import describe
    from drillspark.sql import SqlError

    try:
        plan = compile_one(sql)
    except SqlError as e:
        return {"id": cid, "kind": kind, "error": type(e).__name__, "message": e.render()}
    except Exception as e:  # noqa: BLE001 - any failure is the statement's record
        return {"id": cid, "kind": kind, "error": type(e).__name__, "message": describe(e)}
    return {"id": cid, "kind": kind, "plan": _UUID.sub("<uuid>", plan).replace(_PACKAGE, "<pkg>")}


def compile_all(shared: Path, spark, scratch: Path, only_extra: bool = False) -> list[dict]:
    from drillspark.sql import SqlEngine, SqlSession

    out: list[dict] = []

    def compiler(engine: SqlEngine):
        return lambda sql: engine.compile(sql).plan.to_json_text()

    if not only_extra:
        out += _corpora(shared, spark, scratch, compiler)
    for i, sql in enumerate(EXTRA):
        session = SqlSession(workspaces={"root": str(shared / "data")})
        out.append(_record("extra", f"extra{i}", sql, compiler(SqlEngine(spark, session))))
    return out


def _corpora(shared: Path, spark, scratch: Path, compiler) -> list[dict]:
    from drillspark.sql import SqlEngine, SqlSession

    out: list[dict] = []

    core = shared / "conformance" / "cases.jsonl"
    for line in core.read_text().splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        session = SqlSession(workspaces={"root": str(shared / "data" / "drill-conformance")})
        engine = SqlEngine(spark, session)
        try:
            for name, value in (case.get("options") or {}).items():
                session.set_option(name, value)
        except Exception as e:  # noqa: BLE001
            out.append({"id": case["id"], "kind": "options", "error": str(e)})
            continue
        out.append(_record("core", case["id"], case["sql"], compiler(engine)))
    for path in sorted((shared / "conformance" / "breadth").glob("*.jsonl")):
        for n, line in enumerate(path.read_text().splitlines()):
            if not line.strip():
                continue
            case = json.loads(line)
            tmp = scratch / f"tmp{n}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            session = SqlSession(workspaces={"root": str(shared / "data"), "tmp": str(tmp)})
            engine = SqlEngine(spark, session)
            try:
                for name, value in (case.get("options") or {}).items():
                    session.set_option(name, value)
            except Exception as e:  # noqa: BLE001
                out.append({"id": case["id"], "kind": "options", "error": str(e)})
                continue
            setup = case.get("setup") or []
            if setup and spark is None:
                out.append({"id": case["id"], "kind": "breadth", "skipped": "setup needs Spark"})
                continue
            for i, statement in enumerate(setup):
                out.append(_record("setup", f"{case['id']}#setup{i}", statement, compiler(engine)))
                try:
                    engine.execute_statement(statement)
                except Exception as e:  # noqa: BLE001 - recorded, as the runner does
                    out.append({"id": f"{case['id']}#setup{i}", "kind": "ran", "error": str(e)})
            out.append(_record("breadth", case["id"], case["sql"], compiler(engine)))
    return out


def _spark():
    import drillspark

    return drillspark.session(
        master="local[1]",
        app_name="compare-lowering",
        **{
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.session.timeZone": "UTC",
        },
    )


def diff(before: Path, after: Path) -> int:
    a = [json.loads(x) for x in before.read_text().splitlines()]
    b = [json.loads(x) for x in after.read_text().splitlines()]
    if len(a) != len(b):
        print(f"{len(a)} records before, {len(b)} after")
    bad = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            bad += 1
            print(f"DIFFERS {x.get('id')}:")
            for line in difflib.unified_diff(
                _lines(x), _lines(y), "before", "after", lineterm="", n=1
            ):
                print("  " + line)
    print(f"{len(a)} records compared, {bad} differ")
    return 1 if bad or len(a) != len(b) else 0


def _lines(record: dict) -> list[str]:
    return (record.get("plan") or json.dumps(record)).splitlines()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--only-extra", action="store_true", help="the edge cases only")
    ap.add_argument("--diff", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.diff:
        return diff(Path(args.diff[0]), Path(args.diff[1]))
    if not args.out:
        ap.error("give OUT.jsonl or --diff BEFORE AFTER")
    global _PACKAGE
    _PACKAGE = _package()
    spark = None if args.no_spark else _spark()
    scratch = Path("/tmp/compare-lowering-scratch")
    try:
        records = compile_all(Path(args.shared), spark, scratch, args.only_extra)
    finally:
        if spark is not None:
            spark.stop()
    Path(args.out).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    errors = sum("error" in r for r in records)
    print(f"{len(records)} statements written to {args.out} ({errors} errors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
