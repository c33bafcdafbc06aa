"""sqlalchemy-drill (Superset's dialect) over `drillspark serve` with a `jdbc` plugin on the real
PostgreSQL and a `file` plugin on moto's S3 server (#31, "Done when"): its inspection calls
(SHOW SCHEMAS, the tables of a schema, a table's columns) and a query through each plugin."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, inspect, text

from drillspark.server import DrillServer

BUCKET = "drill-sqlalchemy"


@pytest.fixture(scope="module")
def server(spark, pg, s3, tmp_path_factory):
    s3.client().create_bucket(Bucket=BUCKET)
    s3.put(BUCKET, "logs/a.json", '{"id": 1, "level": "info"}\n{"id": 2, "level": "warn"}\n')
    for part, customers in (("a", ("c0", "c1")), ("b", ("c2", "c3"))):
        body = "".join(f'{{"customer": "{c}", "visits": {int(c[1]) + 1}}}\n' for c in customers)
        s3.put(BUCKET, f"visits/{part}.json", body)
    local = tmp_path_factory.mktemp("local")
    spark.createDataFrame(
        [("c0", "North"), ("c1", "South"), ("c2", "North"), ("c3", "East")],
        "id string, region string",
    ).coalesce(1).write.parquet(str(local / "customers"))
    storage = {
        "pg": pg,
        "s3": s3.plugin(BUCKET, {"logs": {"location": "/logs"}, "root": {"location": "/"}}),
    }
    srv = DrillServer(
        spark, port=0, workspaces={"local": str(local)}, storage=storage, state_dir=""
    ).start()
    yield srv
    srv.stop()


def _engine(server, schema: str):
    return create_engine(
        f"drill+sadrill://127.0.0.1:{server.port}/{schema.replace('.', '/')}?use_ssl=False"
    )


def test_inspection_and_a_query_of_a_jdbc_plugin(server):
    engine = _engine(server, "pg.sales")
    inspector = inspect(engine)
    schemas = inspector.get_schema_names()
    assert "pg.sales" in schemas and "s3.logs" in schemas
    assert "orders" in inspector.get_table_names(schema="pg.sales")
    columns = [c["name"] for c in inspector.get_columns("orders", schema="pg.sales")]
    assert columns[:3] == ["id", "customer", "amount"], columns
    with engine.connect() as conn:
        got = conn.execute(text("SELECT count(*) AS n FROM pg.sales.orders")).fetchall()
    assert [tuple(r) for r in got] == [(40,)]


def test_inspection_and_a_query_of_an_s3_file_plugin(server):
    engine = _engine(server, "s3.logs")
    inspector = inspect(engine)
    assert "a.json" in inspector.get_table_names(schema="s3.logs")
    columns = [c["name"] for c in inspector.get_columns("`a.json`", schema="s3.logs")]
    assert columns == ["id", "level"], columns
    with engine.connect() as conn:
        got = conn.execute(text("SELECT level FROM s3.logs.`a.json` ORDER BY id")).fetchall()
    assert [r[0] for r in got] == ["info", "warn"]


def test_a_postgresql_table_an_s3_folder_and_a_local_parquet_file_in_one_query(server, postgresql):
    # the "across plugins in one statement", through the server's door
    engine = _engine(server, "pg.sales")
    with engine.connect() as conn:
        got = conn.execute(
            text(
                "SELECT c.region, sum(v.visits) AS visits, count(*) AS orders "
                "FROM pg.sales.orders o "
                "JOIN s3.root.`visits/` v ON o.customer = v.customer "
                "JOIN dfs.local.`customers` c ON c.id = o.customer "
                "GROUP BY c.region ORDER BY c.region"
            )
        ).fetchall()
    counts = dict(
        line.split("\t")
        for line in postgresql.sql(
            "COPY (SELECT customer, count(*) FROM sales.orders GROUP BY customer) TO STDOUT"
        )
        .strip()
        .splitlines()
    )
    visits = {"c0": 1, "c1": 2, "c2": 3, "c3": 4}
    region = {"c0": "North", "c1": "South", "c2": "North", "c3": "East"}
    want: dict[str, list[int]] = {}
    for customer, n in counts.items():
        v, o = want.setdefault(region[customer], [0, 0])
        want[region[customer]] = [v + visits[customer] * int(n), o + int(n)]
    assert [(r[0], int(r[1]), int(r[2])) for r in got] == [
        (k, v, o) for k, (v, o) in sorted(want.items())
    ]
