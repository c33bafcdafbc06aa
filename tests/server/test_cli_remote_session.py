"""`drillspark sql --connect` / `shell --connect` keep USE and ALTER SESSION SET between
statements by carrying them in each request (#36): real Drill 1.22 keeps no session for an
anonymous REST client, so a cookie alone lost them. Asked of Drill 1.22's server.sh
(`--root ../shared/data`) over /query.json, one request each, no cookie:

    USE dfs.data                                   -> "Default schema changed to [dfs.data]"
    SELECT count(*) FROM `breadth/tpch/region.parquet`        -> FAILED (no default schema)
    the same with "defaultSchema": "dfs.data"      -> c = 5
    SELECT val, optionScope FROM sys.options WHERE name = 'planner.slice_target'
      with "options": {"planner.slice_target": "10"}          -> "10", SESSION
    `drillspark sql --connect http://127.0.0.1:PORT "USE dfs.data; SELECT count(*) ...;
      ALTER SESSION SET planner.slice_target = 10; SELECT val, optionScope ...; ALTER SESSION
      RESET planner.slice_target; SELECT val, optionScope ..."` against server.sh printed 5,
      then 10 / SESSION, then 100000 / BOOT.

The tests below ask a drillspark server through a session that drops its cookie after every
answer, as Drill's anonymous REST does, so only what the requests carry can keep the state."""

from __future__ import annotations

from drillspark.cli.remote import RemoteSession

REGION = "SELECT count(*) AS c FROM `breadth/tpch/region.parquet`"
SLICE = "SELECT val, optionScope FROM sys.options WHERE name = 'planner.slice_target'"


class Cookieless(RemoteSession):
    """A session the server cannot recognise again: no cookie is ever sent back."""

    def request(self, *args, **kwargs):
        answer = super().request(*args, **kwargs)
        self.cookie = None
        return answer


def test_use_holds_without_a_cookie(server):
    remote = Cookieless(server.url)
    assert remote.query("USE dfs.data")["rows"] == [[True, "Default schema changed to [dfs.data]"]]
    assert remote.default_schema == "dfs.data"
    assert remote.query(REGION)["rows"] == [[5]]
    # a USE the server refuses changes nothing
    assert remote.query("USE dfs.nosuch")["queryState"] == "FAILED"
    assert remote.default_schema == "dfs.data"
    assert remote.query(REGION)["rows"] == [[5]]


def test_session_options_hold_and_reset_without_a_cookie(server):
    remote = Cookieless(server.url)
    remote.query("ALTER SESSION SET `planner.slice_target` = 10")
    assert remote.query(SLICE)["rows"] == [["10", "SESSION"]]
    remote.query("ALTER SESSION SET `store.json.all_text_mode` = true")
    assert remote.options == {"planner.slice_target": "10", "store.json.all_text_mode": "true"}
    remote.query("ALTER SESSION RESET `planner.slice_target`")
    assert remote.query(SLICE)["rows"] == [["100000", "BOOT"]]
    remote.query("ALTER SESSION RESET ALL")
    assert remote.options == {}


def test_a_fresh_session_carries_nothing(server):
    remote = Cookieless(server.url)
    answer = remote.query(REGION)
    assert answer["queryState"] == "FAILED" and "region.parquet" in answer["errorMessage"]
