"""Across plugins in one statement (issue #31): a JSON folder on S3 (moto's server), a local
Parquet file (a `dfs` workspace) and a PostgreSQL table (a `jdbc` plugin, the real server of
tests/storage/conftest.py), joined; the answer checked against PostgreSQL's own, through
drillspark.sql and the CLI (`drillspark sql --storage FILE`)."""

from __future__ import annotations

import json
import subprocess

from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

QUERY = (
    "SELECT c.region, sum(v.visits) AS visits, count(*) AS orders "
    "FROM pg.sales.orders o "
    "JOIN s3.root.`visits/` v ON o.customer = v.customer "
    "JOIN local.`customers` c ON c.id = o.customer "
    "GROUP BY c.region ORDER BY c.region"
)
REGION = {"c0": "North", "c1": "South", "c2": "North", "c3": "East"}


def _three_sources(spark, s3, bucket, folder):
    """One visit line per customer of sales.orders (c0..c3) in two S3 files; the customers'
    regions in a local Parquet file."""
    s3.client().create_bucket(Bucket=bucket)
    for part, customers in (("a", ("c0", "c1")), ("b", ("c2", "c3"))):
        body = "".join(
            json.dumps({"customer": c, "visits": int(c[1]) + 1}) + "\n" for c in customers
        )
        s3.put(bucket, f"visits/{part}.json", body)
    spark.createDataFrame(sorted(REGION.items()), "id string, region string").coalesce(
        1
    ).write.parquet(str(folder / "customers"))


def _postgresqls_answer(postgresql) -> list[list[object]]:
    counts = dict(
        line.split("\t")
        for line in postgresql.sql(
            "COPY (SELECT customer, count(*) FROM sales.orders GROUP BY customer) TO STDOUT"
        )
        .strip()
        .splitlines()
    )
    want: dict[str, list[int]] = {}
    for customer, n in counts.items():
        visits, orders = want.setdefault(REGION[customer], [0, 0])
        want[REGION[customer]] = [visits + (int(customer[1]) + 1) * int(n), orders + int(n)]
    return [[k, *v] for k, v in sorted(want.items())]


def test_an_s3_folder_a_local_parquet_file_and_a_postgresql_table(
    spark, s3, pg, postgresql, tmp_path
):
    _three_sources(spark, s3, "drill-join", tmp_path)
    session = SqlSession(
        workspaces={"local": str(tmp_path)}, plugins={"s3": s3.plugin("drill-join"), "pg": pg}
    )
    got = SqlEngine(spark, session).execute(QUERY)[-1].rows()
    assert [[r["region"], r["visits"], r["orders"]] for r in got] == _postgresqls_answer(postgresql)


def test_the_same_join_through_the_cli(spark, s3, pg, postgresql, tmp_path, python_exe):
    """`drillspark sql --storage FILE --workspace local=...`: the plugins from Drill's
    {"storage": {...}} file; no secret of either plugin in what it prints."""
    data = tmp_path / "data"
    data.mkdir()
    _three_sources(spark, s3, "drill-join-cli", data)
    plugins = tmp_path / "storage.json"
    plugins.write_text(json.dumps({"storage": {"s3": s3.plugin("drill-join-cli"), "pg": pg}}))
    out = subprocess.run(
        [python_exe, "-m", "drillspark", "sql", "--storage", str(plugins)]
        + ["--workspace", f"local={data}", "--format", "json", QUERY],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    got = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert [[r["region"], r["visits"], r["orders"]] for r in got] == _postgresqls_answer(postgresql)
    for secret in (pg["password"], s3.plugin("drill-join-cli")["config"]["fs.s3a.secret.key"]):
        assert secret not in out.stdout + out.stderr
