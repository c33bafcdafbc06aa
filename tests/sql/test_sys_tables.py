"""sys tables of an embedded session (#36), Drill 1.22's columns and types (asked with
query.sh: `SELECT * FROM sys.<table>`), the figures from Spark's driver JVM:

- sys.memory: hostname user_port heap_current heap_max direct_current jvm_direct_current
  direct_max (CHARACTER VARYING, then BIGINT); Drill answered
  ["localhost", 31010, 188190160, 3221225472, 5048576, 34750847, 3221225472] (heap 3 GB).
- sys.threads: hostname user_port total_threads busy_threads; ["localhost", 31010, 19, 18].
  Here user_port is the port that listens: NULL in an embedded session (no server, #34).
- sys.functions: name signature returnType source internal (BOOLEAN); 3077 rows, e.g.
  ["flatten", "", "LATE", "built-in", false], ["kvgen", "LATE-REQUIRED", "LATE", ...].
- sys.profiles, sys.profiles_json, sys.connections: the server's (tests/server); an
  embedded session has none of them here.
- sys.boot: name kind accessibleScopes optionScope status num_val string_val bool_val
  float_val.
"""

from __future__ import annotations

import pytest

from drillspark.sql import SqlEngine, SqlSession
from drillspark.sql.output import columns_and_rows


@pytest.fixture
def eng(spark, tmp_path):
    engine = SqlEngine(spark, SqlSession(workspaces={"tmp": str(tmp_path)}))
    yield engine
    engine.close()


def q(engine, text):
    return columns_and_rows(engine.execute(text)[-1])


def test_memory_is_the_driver_jvms(eng, spark):
    cols, rows = q(eng, "SELECT * FROM sys.memory")
    assert cols == [
        "hostname",
        "user_port",
        "heap_current",
        "heap_max",
        "direct_current",
        "jvm_direct_current",
        "direct_max",
    ]
    [[host, port, heap, heap_max, direct, jvm_direct, direct_max]] = rows
    assert (host, port) == ("localhost", None)  # no user port listens in an embedded session
    rt = spark._jvm.java.lang.Runtime.getRuntime()
    assert heap_max == rt.maxMemory()
    assert 0 < heap <= heap_max
    assert 0 <= direct <= jvm_direct and direct_max > 0
    kinds = q(
        eng,
        "SELECT sqltypeof(hostname), sqltypeof(user_port), sqltypeof(heap_current), "
        "sqltypeof(direct_max) FROM sys.memory",
    )[1]
    assert kinds == [["CHARACTER VARYING", "BIGINT", "BIGINT", "BIGINT"]]


def test_threads_count_the_driver_jvms_threads(eng, spark):
    cols, [[host, port, total, busy]] = q(eng, "SELECT * FROM sys.threads")
    assert cols == ["hostname", "user_port", "total_threads", "busy_threads"]
    live = spark._jvm.java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount()
    assert (host, port) == ("localhost", None)
    assert 0 < busy <= total and abs(total - live) < 20


def test_functions_list_what_sql_calls(eng):
    cols, rows = q(eng, "SELECT * FROM sys.functions")
    assert cols == ["name", "signature", "returnType", "source", "internal"]
    names = {r[0] for r in rows}
    assert {"flatten", "kvgen", "concat", "sum", "count", "to_date", "sqltypeof"} <= names
    assert ["kvgen", "LATE-OPTIONAL", "LATE", "built-in", False] in rows
    n = q(eng, "SELECT count(*) FROM sys.functions WHERE name = 'concat'")[1][0][0]
    assert n >= 2  # one row per number of arguments, as Drill's per signature


def test_boot_without_a_server(eng):
    cols, rows = q(eng, "SELECT * FROM sys.boot")
    assert cols[:5] == ["name", "kind", "accessibleScopes", "optionScope", "status"]
    assert rows == [
        ["drill.exec.http.enabled", "BOOLEAN", "BOOT", "BOOT", "BOOT", None, None, False, None]
    ]


def test_server_tables_are_empty_without_a_server(eng):
    for table in ("profiles", "profiles_json", "connections"):
        cols, rows = q(eng, f"SELECT * FROM sys.{table}")
        assert cols and rows == []


def test_an_unknown_sys_table_is_named(eng):
    with pytest.raises(Exception, match="Object 'nosuch' not found within 'sys'"):
        eng.execute("SELECT * FROM sys.nosuch")


def test_a_column_a_metadata_table_lacks_is_refused_at_its_place(eng):
    # Drill 1.22 (2026-12-07): "VALIDATION ERROR: From line 1, column 8 to line 1, column 14:
    # Column 'num_val' not found in any table" (sys.options has no num_val, as
    # INFORMATION_SCHEMA.`TABLES` no nosuch); both had answered NULL columns here
    with pytest.raises(Exception, match=r"Column 'num_val' not found in any table.*column 8"):
        eng.execute("SELECT num_val FROM sys.options")
    with pytest.raises(Exception, match=r"Column 'nosuch' not found in table 't'"):
        eng.execute("SELECT t.nosuch FROM INFORMATION_SCHEMA.`TABLES` t")
    # their own columns, in any case, still answer
    cols, rows = q(eng, "SELECT NAME, t.Kind FROM sys.options t WHERE name = 'store.format'")
    assert rows == [["store.format", "VARCHAR"]]
