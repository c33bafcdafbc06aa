"""A disabled plugin resolves nowhere in drillspark.sql, whatever form its config takes (#31):
typed (`{"type": "jdbc", ..., "enabled": false}`, `{"type": "file", "enabled": false}` for
`dfs`) or partial (`{"enabled": false}`, `{"enabled": "false"}`), by the one rule
(plugin_configs.enabled) the Spark catalogs read too. Drill 1.22: a disabled plugin is not in
SHOW SCHEMAS and its tables are not found. Real PostgreSQL; the expected count is its data's."""

from __future__ import annotations

import pytest

from drillspark.errors import Error
from drillspark.plugin_configs import enabled
from drillspark.spark.storage import plugin_catalogs
from drillspark.sql import SqlEngine
from drillspark.sql.session import SqlSession

COUNT = "SELECT count(*) AS n FROM pg.sales.orders"


def _failure(engine: SqlEngine, sql: str) -> str:
    with pytest.raises(Error) as e:
        engine.execute(sql)[-1].rows()
    return getattr(e.value, "message", None) or str(e.value)


def _schemas(engine: SqlEngine) -> list[str]:
    return [r["SCHEMA_NAME"] for r in engine.execute("SHOW SCHEMAS")[-1].rows()]


def test_the_one_rule():
    assert enabled({}) and enabled({"enabled": True}) and enabled({"type": "jdbc"})
    assert not enabled({"enabled": False}) and not enabled({"enabled": "false"})
    assert not enabled({"type": "jdbc", "enabled": False})


@pytest.mark.parametrize("off", [{"enabled": False}, {"enabled": "false"}, "typed"])
def test_a_disabled_jdbc_plugin_resolves_nowhere(spark, pg, off):
    engine = SqlEngine(spark, SqlSession())
    engine.session.take_storage({"pg": dict(pg)})
    assert engine.execute(COUNT)[-1].rows() == [{"n": 40}]
    assert "pg.sales" in _schemas(engine)
    engine.session.take_storage({"pg": {**pg, "enabled": False} if off == "typed" else off})
    message = _failure(engine, COUNT)
    assert "pg" in message and "cannot connect" not in message, message
    assert not [s for s in _schemas(engine) if s.split(".")[0] == "pg"]


def test_a_disabled_typed_jdbc_plugin_is_refused_by_both_doors(spark, pg):
    off = {**pg, "enabled": False}
    engine = SqlEngine(spark, SqlSession())
    engine.session.take_storage({"pgoff": off})
    assert "pgoff" not in engine.session.plugins
    message = _failure(engine, "SELECT * FROM pgoff.sales.orders")
    assert "not found" in message and "not a known plugin" in message, message
    assert plugin_catalogs.register(spark, "pgoff", off) is False


def test_a_typed_disabled_dfs_is_disabled(spark, tmp_path):
    engine = SqlEngine(spark, SqlSession())
    assert engine.session.home == "dfs"
    engine.session.take_storage(
        {"dfs": {"type": "file", "connection": "file:///", "enabled": False}}
    )
    assert engine.session.home is None
    (tmp_path / "a.json").write_text('{"a": 1}\n')
    message = _failure(engine, f"SELECT * FROM dfs.`{tmp_path / 'a.json'}`")
    assert "dfs" in message, message
    assert not [s for s in _schemas(engine) if s.split(".")[0] == "dfs"]
