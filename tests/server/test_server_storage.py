"""Storage plugins through Drill's REST API (docs/storage.md): create, read, update, delete,
enable, export, kept across restarts, secrets never shown; pydrill's storage calls."""

from __future__ import annotations

import json
import logging
import os
import stat

import pytest
from pydrill.client import PyDrill
from tests.server.helpers import Http

from drillspark.plugin_configs.registry import supported_types
from drillspark.plugin_configs.state import STATE_FILE, read_bootstrap
from drillspark.server import DrillServer

JSON = {"Content-Type": "application/json"}
PG = {
    "type": "jdbc",
    "driver": "org.postgresql.Driver",
    "url": "jdbc:postgresql://127.0.0.1:5432/shop",
    "username": "drill",
    "password": "s3cret-pw",
    "caseInsensitiveTableNames": False,
    "futureField": {"kept": [1, 2]},  # a field drillspark does not know: kept
}


def _post(http: Http, name: str, config: object) -> tuple[int, dict]:
    body = json.dumps({"name": name, "config": config}).encode()
    status, _, data = http.request("POST", f"/storage/{name}.json", body, JSON)
    return status, json.loads(data)


@pytest.fixture
def store(spark, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.json").write_text('{"a": 1}\n')
    srv = DrillServer(
        spark,
        port=0,
        workspaces={"data": str(tmp_path / "data")},
        state_dir=str(tmp_path / "state"),
    ).start()
    yield srv, tmp_path
    srv.stop()


def test_a_file_plugin_is_created_listed_exported_and_deleted(store):
    srv, tmp = store
    http = Http(srv.url)
    config = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {"logs": {"location": str(tmp / "data"), "writable": False}},
        "formats": {"json": {"type": "json", "extensions": ["json"]}},
        "enabled": True,
    }
    assert _post(http, "myjson", config) == (200, {"result": "Success"})
    got = http.get_json("/storage/myjson.json")
    assert got["name"] == "myjson" and got["config"]["type"] == "file"
    assert got["config"]["workspaces"]["logs"]["writable"] is False
    assert "myjson" in [p["name"] for p in http.get_json("/storage.json")]
    status, headers, body = http.get("/storage/myjson/export/json")
    assert status == 200 and json.loads(body)["workspaces"] == got["config"]["workspaces"]
    assert "myjson.json" in headers["Content-Disposition"]
    assert http.request("DELETE", "/storage/myjson.json")[0] == 200
    assert http.get_json("/storage/myjson.json") == {"name": "myjson", "config": None}
    status, _, body = http.request("DELETE", "/storage/dfs.json")
    assert status == 400 and b"cannot be deleted" in body


def test_secrets_are_never_shown_and_a_masked_round_trip_keeps_them(store, caplog):
    srv, _ = store
    http = Http(srv.url)
    with caplog.at_level(logging.DEBUG, logger="drillspark"):
        assert _post(http, "pg", PG)[0] == 200
        shown = http.get_json("/storage/pg.json")["config"]
        # what a client (the console, pydrill) sends back after changing one field
        assert _post(http, "pg", {**shown, "caseInsensitiveTableNames": True})[0] == 200
        listed = http.get("/storage.json")[2].decode()
        exported = http.get("/storage/pg/export/json")[2].decode()
    assert shown["password"] == "*****"
    assert shown["futureField"] == {"kept": [1, 2]}
    for text in (json.dumps(shown), listed, exported, caplog.text):
        assert "s3cret-pw" not in text
    kept = srv.catalog.plugins.get("pg")
    assert kept.raw["password"] == "s3cret-pw" and kept.raw["caseInsensitiveTableNames"] is True
    # the state file holds it (for the next start), readable by the server's user only
    path = os.path.join(srv.state_dir, STATE_FILE)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_plugins_outlive_the_server(spark, store):
    srv, tmp = store
    http = Http(srv.url)
    assert _post(http, "pg", PG)[0] == 200
    assert http.get("/storage/dfs/enable/false")[0] == 200
    srv.stop()
    again = DrillServer(
        spark, port=0, workspaces={"data": str(tmp / "data")}, state_dir=srv.state_dir
    ).start()
    try:
        http = Http(again.url)
        assert http.get_json("/storage/pg.json")["config"]["url"] == PG["url"]
        assert "enabled" not in http.get_json("/storage/dfs.json")["config"]  # as Drill: off
        assert again.catalog.plugins.get("pg").raw["password"] == "s3cret-pw"
    finally:
        again.stop()


def test_a_start_keeps_no_plugin_no_one_changed(spark, tmp_path, monkeypatch):
    """The command line's workspaces (and `root`, the working directory) are the start's, not
    the state's: a server started from another folder with other workspaces gets its own
    (before, the first start's `root` and workspaces were kept and came back at every later
    start, and `drillspark sql` no longer recognised the server as its own)."""
    state = str(tmp_path / "state")
    for run in ("first", "second"):
        (tmp_path / run).mkdir()
        monkeypatch.chdir(tmp_path / run)
        srv = DrillServer(
            spark, port=0, workspaces={run: str(tmp_path / run)}, state_dir=state
        ).start()
        try:
            shown = Http(srv.url).get_json("/storage/dfs.json")["config"]["workspaces"]
            assert sorted(shown) == sorted([run, "root", "tmp"])
            assert shown["root"]["location"] == str(tmp_path / run)
        finally:
            srv.stop()
    assert not os.path.exists(os.path.join(state, STATE_FILE))


def test_bad_configs_are_refused_and_leave_the_previous_one(store):
    srv, _ = store
    http = Http(srv.url)
    assert _post(http, "pg", PG)[0] == 200
    cases = [
        ([1, 2], 'expected {"name": "pg", "config"'),
        ({"url": "jdbc:postgresql://other/db"}, None),  # partial: merged into pg, fine
        ({"type": "jdbc", "driver": "org.postgresql.Driver"}, "'url' is required"),
        ({**PG, "url": "postgres://u:pw@h/db"}, "must be a JDBC URL"),
        ({**PG, "writable": "yes"}, "field 'writable' must be a boolean"),
    ]
    for config, error in cases:
        status, answer = _post(http, "pg", config)
        if error is None:
            assert status == 200, answer
            continue
        assert status == 400 and error in answer["errorMessage"], (config, answer)
        assert "s3cret-pw" not in json.dumps(answer)
    kept = srv.catalog.plugins.get("pg").raw
    assert kept["url"] == "jdbc:postgresql://other/db"  # the partial change only
    assert kept["password"] == PG["password"]
    bad_ws = {"type": "file", "workspaces": {"w": {"location": "/no/such/folder"}}}
    status, answer = _post(http, "other", bad_ws)
    assert status == 400 and "'w'" in answer["errorMessage"]
    assert http.get_json("/storage/other.json")["config"] is None
    status, answer = _post(http, "bad.name", PG)
    assert status == 400 and "invalid storage plugin name" in answer["errorMessage"]


def test_a_plugin_of_a_type_drillspark_does_not_query_is_kept_and_named(store):
    srv, _ = store
    http = Http(srv.url)
    hbase = {"type": "hbase", "config": {"hbase.zookeeper.quorum": "zk"}, "size.calculator": True}
    assert _post(http, "hb", hbase)[0] == 200
    assert http.get_json("/storage/hb.json")["config"]["size.calculator"] is True
    answer = http.query("SELECT * FROM hb.`t`")
    assert answer["queryState"] == "FAILED"
    assert "type 'hbase', which drillspark does not query" in answer["errorMessage"]
    assert f"(it queries these types: {supported_types()})" in answer["errorMessage"]


def test_a_config_without_type_changes_the_fields_it_gives(store, tmp_path):
    """Over REST a config without `type` replaces the fields it gives (as the dfs workspaces
    were always set); a --storage file or session(storage=...) merges objects by key."""
    srv, _ = store
    http = Http(srv.url)
    (tmp_path / "w2").mkdir()
    workspaces = {"workspaces": {"w2": {"location": str(tmp_path / "w2")}}}
    assert _post(http, "dfs", workspaces)[0] == 200
    config = http.get_json("/storage/dfs.json")["config"]
    assert list(config["workspaces"]) == ["w2"] and "json" in config["formats"]
    srv.catalog.plugins.apply(
        {"dfs": {"formats": {"applog": {"type": "logRegex", "extensions": ["log"]}}}}
    )
    config = http.get_json("/storage/dfs.json")["config"]
    assert {"applog", "json", "csv"} <= set(config["formats"])


def test_the_plugins_drill_ships_disabled_go_through_pydrills_update(store):
    """pydrill's own test_storage_update[s3|mongo]: the config of a plugin Drill ships
    (disabled) read and posted back unchanged; its secrets stay the stored ones."""
    srv, _ = store
    drill = PyDrill(host="127.0.0.1", port=srv.port)
    for name in ("s3", "mongo", "http", "kafka"):
        shown = drill.storage_detail(name=name).data
        assert shown["name"] == name and "enabled" not in shown["config"], shown
        assert drill.storage_update(name=name, config=shown).response.status_code == 200
    kept = srv.catalog.plugins.get("s3").raw
    assert kept["config"]["fs.s3a.secret.key"] == "SECRET" and kept["enabled"] is False
    answer = Http(srv.url).query("SELECT * FROM s3.`x.json`")
    assert answer["queryState"] == "FAILED" and "disabled" in answer["errorMessage"], answer


def test_pydrill_storage_calls(store):
    srv, tmp = store
    drill = PyDrill(host="127.0.0.1", port=srv.port)
    config = {
        "type": "file",
        "connection": "file:///",
        "workspaces": {"w": {"location": str(tmp / "data"), "writable": True}},
    }
    assert (
        drill.storage_update("mine", {"name": "mine", "config": config}).response.status_code == 200
    )
    assert drill.storage_detail("mine").data["config"]["workspaces"]["w"]["writable"] is True
    assert drill.storage_update("pg", {"name": "pg", "config": PG}).response.status_code == 200
    assert drill.storage_detail("pg").data["config"]["password"] == "*****"
    assert drill.storage_enable("pg", False).response.status_code == 200
    assert "enabled" not in drill.storage_detail("pg").data["config"]
    assert drill.storage_delete("mine").response.status_code == 200
    names = [p["name"] for p in drill.storage().data]
    assert "mine" not in names and {"cp", "dfs", "pg"} <= set(names)


def test_a_bootstrap_file_in_drills_shape(spark, tmp_path):
    """Drill's storage-plugins-override.conf: HOCON with unquoted names, comments and no outer
    braces; a partial dfs config merges, a new plugin is added."""
    (tmp_path / "w").mkdir()
    conf = tmp_path / "storage-plugins-override.conf"
    conf.write_text(
        '# as Drill ships it\n"storage": {\n'
        f'  dfs: {{ workspaces: {{ extra: {{ location: "{tmp_path / "w"}", writable: true }} }} }},\n'
        '  pg: { type: "jdbc", driver: "org.postgresql.Driver", url: "jdbc:postgresql://h/db",\n'
        '        password: "pw-in-file" }  // a secret\n'
        "}\n"
    )
    storage = read_bootstrap(str(conf))
    srv = DrillServer(spark, port=0, workspaces={}, storage=storage).start()
    try:
        http = Http(srv.url)
        workspaces = http.get_json("/storage/dfs.json")["config"]["workspaces"]
        assert workspaces["extra"]["writable"] is True and "tmp" in workspaces
        assert http.get_json("/storage/pg.json")["config"]["password"] == "*****"
    finally:
        srv.stop()


def test_credentials_in_a_jdbc_url_are_masked_and_kept(store):
    srv, _ = store
    http = Http(srv.url)
    url = "jdbc:postgresql://drill:url-pw-1@127.0.0.1:5432/shop?ssl=false&password=url-pw-2"
    assert _post(http, "pgurl", {**PG, "url": url})[0] == 200
    shown = http.get_json("/storage/pgurl.json")["config"]
    assert shown["url"] == (
        "jdbc:postgresql://drill:*****@127.0.0.1:5432/shop?ssl=false&password=*****"
    )
    assert _post(http, "pgurl", {**shown, "writable": True})[0] == 200
    assert srv.catalog.plugins.get("pgurl").raw["url"] == url
    assert "url-pw" not in http.get("/storage.json")[2].decode()


def test_a_plugins_page_is_at_drills_address(store):
    srv, _ = store
    status, headers, body = Http(srv.url).get("/storage/dfs")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"storage.js" in body


def test_sys_drillbits_names_the_port_the_server_listens_on(server):
    """Before: http_port 0 (issue #36)."""
    row = Http(server.url).query("SELECT http_port, user_port FROM sys.drillbits")["rows"][0]
    assert row["http_port"] == server.port


def _advertised(srv: DrillServer) -> tuple[dict, dict, list[str]]:
    http = Http(srv.url)
    [row] = http.query("SELECT user_port, control_port, data_port, http_port FROM sys.drillbits")[
        "rows"
    ]
    [bit] = http.get_json("/cluster.json")["drillbits"]
    stats = [s["name"] for s in http.get_json("/stats.json")]
    return row, bit, stats


def test_only_the_ports_that_listen_are_advertised(spark, shared):
    """sys.drillbits, /cluster.json and /stats.json name the user port only while the native
    protocol listens on it, and never Drill's control and data ports, which have no
    counterpart here (#34; before: 31010, 31011 and 31012 whatever listened)."""
    srv = DrillServer(spark, port=0, user_port=0, workspaces={"data": str(shared / "data")})
    srv.start()
    try:
        row, bit, stats = _advertised(srv)
        assert row == {
            "user_port": srv.native.port,
            "control_port": None,
            "data_port": None,
            "http_port": srv.port,
        }
        assert bit["userPort"] == str(srv.native.port) and bit["httpPort"] == str(srv.port)
        assert "controlPort" not in bit and "dataPort" not in bit
        assert "User Port Address" in stats and "Data Port Address" not in stats
    finally:
        srv.stop()
    srv = DrillServer(spark, port=0, workspaces={"data": str(shared / "data")})  # REST only
    srv.start()
    try:
        row, bit, stats = _advertised(srv)
        assert row == {
            "user_port": None,
            "control_port": None,
            "data_port": None,
            "http_port": srv.port,
        }
        assert "userPort" not in bit and bit["httpPort"] == str(srv.port)
        assert "User Port Address" not in stats
    finally:
        srv.stop()


def test_a_profile_read_after_its_workspace_moved_still_hides_its_folder(store):
    # a profile's plan is written when it is first read (#37): with the workspaces of when its
    # query ran, not of when it is read
    srv, tmp = store
    http = Http(srv.url)
    (tmp / "elsewhere").mkdir()
    answer = http.query("SELECT a FROM dfs.data.`x.json`")
    assert answer["rows"] == [{"a": 1}]
    dfs = http.get_json("/storage/dfs.json")["config"]
    dfs["workspaces"]["data"]["location"] = str(tmp / "elsewhere")
    assert _post(http, "dfs", dfs) == (200, {"result": "Success"})
    profile = http.get_json(f"/profiles/{answer['queryId']}.json")
    plan = json.loads(profile["plan"])
    assert plan["storage"]["dfs"]["workspaces"]["data"]["location"] == "<dfs.data>"
    assert str(tmp / "data") not in profile["plan"]
