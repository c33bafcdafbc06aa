"""A `jdbc` plugin as a Spark catalog of its own name (#31), through Spark's own `spark.sql`:
after `drillspark.session(storage={"pgs": ...})`, ``spark.sql("SELECT ... FROM
pgs.sales.orders")`` reads the real PostgreSQL server of tests/storage/conftest.py (Spark's
JDBC catalog, as drillspark.sql's jdbc scans), joined with a JSON folder on moto's S3 server and
a local Parquet file in one statement; the answers checked against PostgreSQL's own. The
plugin's password never shows in SET, SHOW CATALOGS or an error; a changed or deleted plugin
is followed."""

from __future__ import annotations

import json

import pytest
from tests.storage.conftest import forget_plugins

NAME = "pgs"


@pytest.fixture()
def pgs(spark, pg):
    import drillspark

    assert drillspark.session(storage={NAME: pg}) is spark
    yield pg
    forget_plugins(spark, NAME)


def _pg_rows(postgresql, sql: str) -> list[tuple[str, ...]]:
    text = postgresql.sql(f"COPY ({sql}) TO STDOUT").strip()
    return sorted(tuple(line.split("\t")) for line in text.splitlines())


def test_spark_sql_reads_a_jdbc_plugin_by_its_name(spark, pgs, postgresql):
    assert spark.conf.get(f"spark.sql.catalog.{NAME}") == "drillspark.catalog.JdbcPluginCatalog"
    got = spark.sql(
        f"SELECT customer, count(*) AS n FROM {NAME}.sales.orders GROUP BY customer"
    ).collect()
    want = _pg_rows(postgresql, "SELECT customer, count(*) FROM sales.orders GROUP BY customer")
    assert sorted((r["customer"], str(r["n"])) for r in got) == want
    # Drill's names: a schema in any case, the default schema without one, spark.table
    assert spark.table(f"{NAME}.SALES.orders").count() == sum(int(n) for _, n in want)
    public = _pg_rows(postgresql, "SELECT count(*) FROM public.all_types")
    assert [(str(spark.table(f"{NAME}.all_types").count()),)] == public
    assert [(str(spark.sql(f"SELECT count(*) FROM {NAME}.public.all_types").first()[0]),)] == public
    # Spark's JDBC types, not Drill's mapping (docs/storage.md): smallint SMALLINT, numeric DECIMAL
    types = dict(spark.table(f"{NAME}.public.all_types").dtypes)
    assert (types["small_v"], types["num_v"], types["real_v"]) == (
        "smallint",
        "decimal(10,2)",
        "float",
    )
    # Spark's listings ask the database
    schemas = {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {NAME}").collect()}
    assert {"public", "sales"} <= schemas
    tables = {r["tableName"] for r in spark.sql(f"SHOW TABLES IN {NAME}.sales").collect()}
    assert "orders" in tables
    # Spark's JDBC push-down: the filter reaches PostgreSQL
    text = spark.sql(f"EXPLAIN SELECT id FROM {NAME}.sales.orders WHERE amount > 100").first()[0]
    assert "PushedFilters" in text and "amount" in text


def test_the_password_is_never_shown(spark, pgs, pg):
    password = pg["password"]
    shown = [tuple(r) for r in spark.sql("SET").collect()]
    assert any(k == f"spark.sql.catalog.{NAME}.password" for k, _ in shown)
    assert not any(password in str(v) for _, v in shown)
    assert not any(password in str(tuple(r)) for r in spark.sql("SHOW CATALOGS").collect())
    with pytest.raises(Exception) as e:
        spark.sql(f"SELECT * FROM {NAME}.sales.nosuch").collect()
    assert "TABLE_OR_VIEW_NOT_FOUND" in str(e.value) and password not in str(e.value)


def test_describe_namespace_of_no_such_schema_is_sparks_error(spark, pgs):
    # a schema the database has is described; one it lacks is Spark's own "schema not found"
    # (NoSuchNamespaceException), not an IllegalArgumentException from the catalog
    assert spark.sql(f"DESCRIBE NAMESPACE {NAME}.sales").collect()
    with pytest.raises(Exception) as e:
        spark.sql(f"DESCRIBE NAMESPACE {NAME}.nosuch").collect()
    text = str(e.value)
    assert "SCHEMA_NOT_FOUND" in text and "nosuch" in text, text
    assert "IllegalArgumentException" not in text, text


def test_a_wrong_password_fails_without_showing_it(spark, pg):
    import drillspark

    bad = dict(pg, password="wrong-pw-4711")
    drillspark.sql("SELECT 1", spark=spark, storage={"pgbadpw": bad}).collect()
    try:
        with pytest.raises(Exception) as e:
            spark.sql("SELECT * FROM pgbadpw.sales.orders").collect()
        text = str(e.value)
        assert "wrong-pw-4711" not in text
        assert "storage plugin 'pgbadpw'" in text and "password authentication failed" in text
    finally:
        forget_plugins(spark, "pgbadpw")


def test_a_deleted_plugin_no_longer_resolves(spark, pg):
    import drillspark

    drillspark.sql("SELECT 1", spark=spark, storage={"pggone": pg}).collect()
    assert spark.sql("SELECT count(*) FROM pggone.sales.orders").first()[0] > 0
    drillspark.sql("SELECT 1", spark=spark, storage={"pggone": dict(pg, enabled=False)}).collect()
    try:
        with pytest.raises(Exception) as e:
            spark.sql("SELECT count(*) FROM pggone.sales.orders").collect()
        assert "TABLE_OR_VIEW_NOT_FOUND" in str(e.value)  # Spark words it: no such table
    finally:
        forget_plugins(spark, "pggone")


def test_a_plugin_whose_type_changes(spark, pg, tmp_path):
    """Spark keeps a catalog it loaded: a plugin changed from jdbc to file says so in the
    session that read it as jdbc; one never read is read as its new type at once."""
    import drillspark

    (tmp_path / "t.json").write_text('{"a": 1}\n{"a": 2}\n')
    as_file = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {"w": {"location": str(tmp_path)}},
    }
    drillspark.sql("SELECT 1", spark=spark, storage={"pgtyped": pg, "pgunread": pg}).collect()
    try:
        assert spark.sql("SELECT count(*) FROM pgtyped.sales.orders").first()[0] > 0
        drillspark.sql(
            "SELECT 1", spark=spark, storage={"pgtyped": as_file, "pgunread": as_file}
        ).collect()
        with pytest.raises(Exception) as e:
            spark.sql("SELECT count(*) FROM pgtyped.sales.orders").collect()
        assert "storage plugin 'pgtyped' changed its type" in str(e.value)
        assert spark.sql("SELECT sum(a) FROM pgunread.w.`t.json`").first()[0] == 3
    finally:
        forget_plugins(spark, "pgtyped", "pgunread")


def test_a_postgresql_table_an_s3_folder_and_a_local_parquet_file_in_spark_sql(
    spark, s3, pg, postgresql, tmp_path
):
    import drillspark

    s3.client().create_bucket(Bucket="drill-spark-join")
    for part, customers in (("a", ("c0", "c1")), ("b", ("c2", "c3"))):
        body = "".join(
            json.dumps({"customer": c, "visits": int(c[1]) + 1}) + "\n" for c in customers
        )
        s3.put("drill-spark-join", f"visits/{part}.json", body)
    spark.createDataFrame(
        [("c0", "North"), ("c1", "South"), ("c2", "North"), ("c3", "East")],
        "id string, region string",
    ).coalesce(1).write.parquet(str(tmp_path / "customers"))
    local = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {"w": {"location": str(tmp_path)}},
    }
    storage = {"pgj": pg, "s3j": s3.plugin("drill-spark-join"), "localj": local}
    drillspark.sql("SELECT 1", spark=spark, storage=storage).collect()
    try:
        got = spark.sql(
            "SELECT c.region, sum(v.visits) AS visits, count(*) AS orders "
            "FROM pgj.sales.orders o "
            "JOIN s3j.root.`visits/` v ON o.customer = v.customer "
            "JOIN localj.w.`customers` c ON c.id = o.customer "
            "GROUP BY c.region ORDER BY c.region"
        ).collect()
    finally:
        forget_plugins(spark, *storage)
    counts = dict(
        _pg_rows(postgresql, "SELECT customer, count(*) FROM sales.orders GROUP BY customer")
    )
    region = {"c0": "North", "c1": "South", "c2": "North", "c3": "East"}
    want: dict[str, list[int]] = {}
    for customer, n in counts.items():
        visits, orders = want.setdefault(region[customer], [0, 0])
        want[region[customer]] = [visits + (int(customer[1]) + 1) * int(n), orders + int(n)]
    assert [[r["region"], r["visits"], r["orders"]] for r in got] == [
        [k, *v] for k, v in sorted(want.items())
    ]


def test_a_jdbc_plugin_created_changed_deleted_over_rest_is_followed(spark, pg, postgresql):
    from tests.server.helpers import Http

    from drillspark.server import DrillServer

    def post(http: Http, config: dict) -> None:
        body = json.dumps({"name": "pgrest", "config": config}).encode()
        status, _, data = http.request(
            "POST", "/storage/pgrest.json", body, {"Content-Type": "application/json"}
        )
        assert status == 200, data

    srv = DrillServer(spark, port=0, workspaces={}).start()
    try:
        http = Http(srv.url)
        post(http, pg)
        query = "SELECT count(*) FROM pgrest.sales.orders"
        want = int(_pg_rows(postgresql, "SELECT count(*) FROM sales.orders")[0][0])
        assert spark.sql(query).first()[0] == want
        # changed: a wrong password is the catalog's at once (Spark keeps the loaded catalog)
        post(http, dict(pg, password="other-pw-99"))
        with pytest.raises(Exception) as e:
            spark.sql(query).collect()
        assert "storage plugin 'pgrest'" in str(e.value) and "other-pw-99" not in str(e.value)
        post(http, pg)
        assert spark.sql(query).first()[0] == want
        status, _, _ = http.request("DELETE", "/storage/pgrest.json")
        assert status == 200
        with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
            spark.sql(query).collect()
    finally:
        srv.stop()
    assert spark.conf.get("spark.sql.catalog.pgrest", None) is None
