"""A disabled built-in plugin is gone from every door (#31), as a disabled plugin is in Drill
1.22 (`Object 'mydata' not found`, `Schema [mydata.w] is not valid ...`, not in SHOW SCHEMAS):
`dfs` disabled by `drillspark.session(storage={"dfs": {"enabled": false}})` is no Spark catalog
any more for plain `spark.sql` / `spark.table`, and comes back when enabled again. Real files
in a temp folder; expected rows are what the test wrote."""

from __future__ import annotations

import importlib
import json

import pytest

import drillspark

PEOPLE = [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}]
CATALOG = "spark.sql.catalog.dfs"


@pytest.fixture
def people(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "people.json").write_text("".join(json.dumps(p) + "\n" for p in PEOPLE))
    return data


def _count(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) AS n FROM {table}").first().n


def _refused(call) -> str:
    with pytest.raises(Exception) as e:
        call()
    return str(e.value)


def _enable_dfs_again(spark) -> None:
    drillspark.session(storage={"dfs": {"enabled": True}})
    importlib.import_module("drillspark.session")._STORAGE.pop(spark, None)


def test_a_session_that_disables_dfs_has_no_dfs_spark_catalog(spark, people):
    table = f"dfs.`{people / 'people.json'}`"
    assert _count(spark, table) == len(PEOPLE)  # the catalog is loaded: Spark keeps it
    try:
        assert drillspark.session(storage={"dfs": {"enabled": False}}) is spark
        assert spark.conf.get(CATALOG, None) is None
        for call in (lambda: _count(spark, table), lambda: spark.table(table).collect()):
            text = _refused(call)
            assert "TABLE_OR_VIEW_NOT_FOUND" in text and "`dfs`" in text, text
    finally:
        _enable_dfs_again(spark)
    # enabled again: the catalog as it was
    assert spark.conf.get(CATALOG) == "drillspark.catalog.DfsCatalog"
    assert _count(spark, table) == len(PEOPLE)
