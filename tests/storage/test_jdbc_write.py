"""CTAS into a `writable` jdbc plugin (a plan's `store` with target `{"schema", "table"}`): the
rows land in a new table, read back with Drill's types; Drill 1.22's errors for an existing
table and a plugin that is not writable; a write that fails leaves no table behind."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F
from tests.storage.conftest import drill, plan, scan_plan

import drillspark
from drillspark.spark.storage import StorageError, jdbc, make_engine


def ctas_plan(source: dict, target_engine: str, target_config: dict, table: str, where: str):
    return plan(
        {"pg": source, target_engine: target_config},
        {
            "@id": 1,
            "op": "scan",
            "storageengine": "pg",
            "selection": {"schema": "sales", "table": "orders"},
        },
        {"@id": 2, "op": "filter", "input": 1, "expr": where},
        {
            "@id": 3,
            "op": "project",
            "input": 2,
            "projections": [
                {"ref": c, "expr": c}
                for c in ["id", "customer", "amount", "quantity", "ordered", "status"]
            ],
        },
        {
            "@id": 4,
            "op": "store",
            "input": 3,
            "storageEngine": target_engine,
            "target": {
                "schema": "drilltest" if "maria" in target_engine else "public",
                "table": table,
            },
        },
    )


@pytest.mark.parametrize("engine", ["pgw", "mariaw"])
def test_ctas_writes_a_table_that_reads_back_as_drills(spark, pg, maria, engine):
    target = {**(pg if engine == "pgw" else maria), "writable": True}
    table = f"ctas1_{engine}"
    result = drillspark.run(ctas_plan(pg, engine, target, table, "id < 4"), spark=spark)
    schema = "public" if engine == "pgw" else "drilltest"
    assert result.rows() == [
        {"path": f"{engine}.{schema}.{table}", "format": "jdbc", "files": 0, "rows": 3}
    ]
    answer = drill("SELECT * FROM pgw.public.ctas1 ORDER BY id")
    order = {"@id": 2, "op": "order", "input": 1, "orderings": [{"expr": "id"}]}
    back = drillspark.run(scan_plan(engine, target, schema, table, order), spark=spark)
    rows = [
        [v.isoformat() if hasattr(v, "isoformat") else v for v in r.values()] for r in back.rows()
    ]
    assert back.columns == answer["columns"]
    assert rows == answer["rows"]
    # no staging table is left beside it
    names = [n for n, _ in jdbc.list_tables(spark, target, schema)]
    assert table in names and not [n for n in names if n.startswith("drillspark_tmp_")]


def test_an_existing_table_is_drills_error(spark, pg):
    target = {**pg, "writable": True}
    drillspark.run(ctas_plan(pg, "pgw", target, "ctas2", "id = 1"), spark=spark)
    drills = drill("CREATE TABLE pgw.public.ctas1 AS SELECT 1 AS i")["error"]
    assert "A table or view with given name [ctas1] already exists in schema [pgw.public]" in drills
    with pytest.raises(
        drillspark.Error,
        match=r"A table or view with given name \[ctas2\] already exists in schema \[pgw.public\]",
    ):
        drillspark.run(ctas_plan(pg, "pgw", target, "ctas2", "id = 2"), spark=spark)


def test_a_plugin_that_is_not_writable_is_drills_error(spark, pg):
    drills = drill("CREATE TABLE pg.public.ctas0 AS SELECT 1 AS i")["error"]
    assert "Unable to create or drop objects. Schema [pg.public] is immutable." in drills
    with pytest.raises(
        drillspark.Error,
        match=r"Unable to create or drop objects\. Schema \[pgr.public\] is immutable\.",
    ):
        drillspark.run(ctas_plan(pg, "pgr", pg, "ctas0", "id = 1"), spark=spark)


def test_a_failed_write_leaves_nothing(spark, pg):
    target = {**pg, "writable": True}
    engine = make_engine("pgw", target)
    df = spark.range(0, 50_000, numPartitions=4).select(
        F.col("id"), F.expr("if(id = 49000, raise_error('boom at 49000'), 'x')").alias("s")
    )
    with pytest.raises(StorageError, match="boom at 49000") as caught:
        engine.write(df, {"schema": "public", "table": "half"})
    assert "jdbc storage plugin 'pgw': cannot write pgw.public.half" in str(caught.value)
    names = [n for n, _ in jdbc.list_tables(spark, target, "public")]
    assert "half" not in names and not [n for n in names if n.startswith("drillspark_tmp_")]


def test_types_written_and_read_back(spark, maria):
    target = {**maria, "writable": True}
    df = spark.sql(
        "SELECT 1 AS i, CAST(2 AS BIGINT) AS b, CAST(3 AS SMALLINT) AS si, 1.5D AS d, "
        "CAST(1.25 AS DECIMAL(5, 2)) AS dec1, 'x' AS s, true AS bo, DATE'2024-01-02' AS dt, "
        "TIMESTAMP_NTZ'2024-01-02 03:04:05.678' AS ts, CAST(NULL AS INT) AS n"
    )
    report = make_engine("mariaw", target).write(df, {"schema": "drilltest", "table": "typed"})
    assert report.rows == 1
    back = drillspark.run(scan_plan("mariaw", target, "drilltest", "typed"), spark=spark)
    row = back.rows()[0]
    assert [c.read_type for c in jdbc.list_columns(spark, target, "drilltest", "typed")] == [
        "INT",
        "BIGINT",
        "INT",
        "FLOAT8",
        "VARDECIMAL",
        "VARCHAR",
        "BIT",
        "DATE",
        "TIMESTAMP",
        "INT",
    ]
    assert (
        str(row["ts"]) == "2024-01-02 03:04:05.678000" and row["dec1"] == 1.25 and row["bo"] is True
    )


def test_drop_table(spark, pg):
    target = {**pg, "writable": True}
    make_engine("pgw", target).write(spark.range(3), {"schema": "public", "table": "gone"})
    jdbc.drop_table(spark, target, "public", "gone", "pgw")
    assert "gone" not in [n for n, _ in jdbc.list_tables(spark, target, "public")]
    with pytest.raises(jdbc.JdbcError, match=r"Schema \[pg.public\] is immutable"):
        jdbc.drop_table(spark, pg, "public", "all_types", "pg")
