"""Across plugins in one statement (issue #31): a JSON folder on S3 (moto's server), a local
Parquet file (a `dfs` workspace) and a PostgreSQL table (a `jdbc` plugin, the real server of
tests/storage/conftest.py), joined; the answer checked against PostgreSQL's own."""

from __future__ import annotations

import json

from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession


def test_an_s3_folder_a_local_parquet_file_and_a_postgresql_table(
    spark, s3, pg, postgresql, tmp_path
):
    s3.client().create_bucket(Bucket="drill-join")
    # one visit line per customer of sales.orders (c0..c3), in two files
    for part, customers in (("a", ("c0", "c1")), ("b", ("c2", "c3"))):
        body = "".join(
            json.dumps({"customer": c, "visits": int(c[1]) + 1}) + "\n" for c in customers
        )
        s3.put("drill-join", f"visits/{part}.json", body)
    spark.createDataFrame(
        [("c0", "North"), ("c1", "South"), ("c2", "North"), ("c3", "East")],
        "id string, region string",
    ).coalesce(1).write.parquet(str(tmp_path / "customers"))
    session = SqlSession(
        workspaces={"local": str(tmp_path)}, plugins={"s3": s3.plugin("drill-join"), "pg": pg}
    )
    engine = SqlEngine(spark, session)
    got = engine.execute(
        "SELECT c.region, sum(v.visits) AS visits, count(*) AS orders "
        "FROM pg.sales.orders o "
        "JOIN s3.root.`visits/` v ON o.customer = v.customer "
        "JOIN local.`customers` c ON c.id = o.customer "
        "GROUP BY c.region ORDER BY c.region"
    )[-1].rows()
    counts = dict(
        line.split("\t")
        for line in postgresql.sql(
            "COPY (SELECT customer, count(*) FROM sales.orders GROUP BY customer) TO STDOUT"
        )
        .strip()
        .splitlines()
    )
    region = {"c0": "North", "c1": "South", "c2": "North", "c3": "East"}
    want: dict[str, list[int]] = {}
    for customer, n in counts.items():
        visits, orders = want.setdefault(region[customer], [0, 0])
        want[region[customer]] = [visits + (int(customer[1]) + 1) * int(n), orders + int(n)]
    assert [[r["region"], r["visits"], r["orders"]] for r in got] == [
        [k, *v] for k, v in sorted(want.items())
    ]
