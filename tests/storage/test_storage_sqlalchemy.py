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
    storage = {"pg": pg, "s3": s3.plugin(BUCKET, {"logs": {"location": "/logs"}})}
    srv = DrillServer(spark, port=0, storage=storage, state_dir="").start()
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
