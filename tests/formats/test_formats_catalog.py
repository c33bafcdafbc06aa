"""The format framework's own rules: the registry (Drill's type names, extensions, bootstrap
configs, config checks in Drill's words) and the plain-Spark door of the `dfs` catalog, which
finds a format's reader by the file's extension or a workspace's default format."""

from __future__ import annotations

import fastavro
import openpyxl
import pytest

from drillspark.formats import registry
from drillspark.formats.base import FormatError


def test_registry_lists_each_format_once():
    types = [t.lower() for t in registry.types()]
    assert len(types) == len(set(types))
    assert {"json", "parquet", "text", "avro", "excel"} <= set(types)


def test_bootstrap_formats_as_drill_shows_them():
    """Drill 1.22 (with its contrib plugins) lists these under its bootstrap dfs (DESCRIBE
    SCHEMA dfs); the excel entry as it shows it."""
    formats = registry.bootstrap_formats()
    assert list(formats)[:8] == [
        "parquet",
        "json",
        "sequencefile",
        "csvh",
        "psv",
        "avro",
        "tsv",
        "csv",
    ]
    assert formats["excel"] == {
        "type": "excel",
        "extensions": ["xlsx"],
        "lastRow": 1048576,
        "ignoreErrors": True,
        "maxArraySize": -1,
        "thresholdBytesForTempFiles": -1,
    }
    assert formats["psv"]["extensions"] == ["tbl"]


def test_extension_lookup_prefers_the_plugins_own_configs():
    assert registry.by_extension("AVRO") == ("avro", {"type": "avro", "extensions": ["avro"]})
    own = {"sheets": {"type": "excel", "extensions": ["xlsx", "xlsm"], "sheetName": "S"}}
    name, conf = registry.by_extension("xlsm", own)
    assert name == "sheets" and conf["sheetName"] == "S"
    assert registry.by_extension("nope") is None


def test_config_defaults_and_checks():
    conf = registry.get("EXCEL").config({"SHEETNAME": "x", "allTextMode": "true"})
    assert conf["sheetName"] == "x" and conf["allTextMode"] is True and conf["lastRow"] == 1048576
    with pytest.raises(FormatError, match="option 'lastRow' must not be negative"):
        registry.get("excel").config({"lastRow": -2})
    with pytest.raises(FormatError, match="option 'allTextMode' must be true or false"):
        registry.get("excel").config({"allTextMode": "maybe"})
    with pytest.raises(FormatError, match="unknown format type 'nope'"):
        registry.get("nope")


def test_table_function_over_plugin_config():
    """A table function's options go over the plugin's config of that type."""
    own = {"excel": {"type": "excel", "extensions": ["xlsx"], "sheetName": "S", "headerRow": 2}}
    plugin, conf = registry.config_for({"type": "excel", "headerRow": 0}, "/x/a.xlsx", own)
    assert plugin.TYPE == "excel" and conf["sheetName"] == "S" and conf["headerRow"] == 0


def test_dfs_catalog_reads_registered_formats(spark, tmp_path):
    avro = tmp_path / "e.avro"
    with avro.open("wb") as fh:
        schema = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
        fastavro.writer(fh, fastavro.parse_schema(schema), [{"a": 1}, {"a": 2}])
    assert [r.a for r in spark.sql(f"SELECT a FROM dfs.`{avro}` ORDER BY a").collect()] == [1, 2]
    wb = openpyxl.Workbook()
    wb.active.append(["k"])
    wb.active.append([3])
    wb.save(tmp_path / "b.xlsx")
    assert spark.sql(f"SELECT k FROM dfs.`{tmp_path / 'b.xlsx'}`").first().k == 3.0
    # parquet too (tests/scan/test_catalog_parquet.py checks its types against drillspark.sql)
    spark.range(3).coalesce(1).write.parquet(str(tmp_path / "p"))
    parquet = next((tmp_path / "p").glob("*.parquet"))
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM dfs.`{parquet}`").collect()) == [0, 1, 2]


def test_type_picks_the_config_the_extension_selects():
    """`type => 'excel'` (or a type SQL found by extension) takes the plugin's config that the
    file's extension selects; a config's own name selects it wherever the file is."""
    own = {"sheets": {"type": "excel", "extensions": ["xlsm"], "sheetName": "S"}}
    assert registry.config_for({"type": "excel"}, "/x/a.xlsm", own)[1]["sheetName"] == "S"
    assert registry.config_for({"type": "excel"}, "/x/a.xlsx", own)[1]["sheetName"] == ""
    assert registry.config_for({"type": "sheets"}, "/x/a.xlsx", own)[1]["sheetName"] == "S"
    assert registry.config_for(None, "/x/a.xlsm", own)[1]["sheetName"] == "S"
    # json reads through its plugin too (formats/json.py `read`), with Drill's bootstrap config
    assert registry.config_for(None, "/x/a.json", own) == (
        registry.get("json"),
        {"type": "json", "extensions": ["json"]},
    )


def test_a_folder_reads_its_files_of_the_format(spark, tmp_path):
    """In a folder, a format reads the files of its extensions (Drill's rule); a file named
    outright is read whatever its name."""
    schema = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
    with (tmp_path / "e.avro").open("wb") as fh:
        fastavro.writer(fh, fastavro.parse_schema(schema), [{"a": 1}])
    (tmp_path / "notes.txt").write_text("not avro")
    assert [r.a for r in spark.read.format("drill-avro").load(str(tmp_path)).collect()] == [1]
    (tmp_path / "e.avro").rename(tmp_path / "e.bin")
    assert spark.read.format("drill-avro").load(str(tmp_path / "e.bin")).first().a == 1
    direct = spark.read.format("drill-avro").option("extensions", "bin")
    assert [r.a for r in direct.load(str(tmp_path)).collect()] == [1]


def test_server_dfs_formats_reach_its_sessions(tmp_path):
    """The server's dfs config (bootstrap file, REST, console, --storage) gives its sessions
    its `formats` and each workspace's `defaultInputFormat`; /storage lists Drill's bootstrap
    formats from the registry."""
    from drillspark.server.catalog import Catalog

    catalog = Catalog(
        {"data": str(tmp_path)},
        storage={
            "dfs": {
                "type": "file",
                "formats": {"sheets": {"type": "excel", "extensions": ["xlsm"]}},
                "workspaces": {"w": {"location": str(tmp_path), "defaultInputFormat": "sheets"}},
            }
        },
        state_dir=str(tmp_path / "state"),
    )
    session = catalog.session(None, {})
    assert session.formats["sheets"]["type"] == "excel"
    assert session.default_formats == {"w": "sheets"}
    plain = Catalog({"data": str(tmp_path)}, state_dir=str(tmp_path / "state2"))
    shown = plain.plugin_json("dfs")
    assert shown is not None
    assert shown["config"]["formats"] == registry.bootstrap_formats(contrib=False, readable=True)


def test_a_scan_reads_only_the_columns_a_query_names(spark, tmp_path, capsys):
    """Column pruning: the format source's scan asks its reader for the named columns alone
    (each reader builds its rows by name), with the same values as the whole row's."""
    wb = openpyxl.Workbook()
    wb.active.append([f"c{i}" for i in range(40)])
    for r in range(3):
        wb.active.append([r * 100 + i for i in range(40)])
    wb.save(tmp_path / "wide.xlsx")
    df = spark.read.format("drill-excel").load(str(tmp_path / "wide.xlsx"))
    two = df.select("c7", "c31")
    two.explain()
    scan = next(line for line in capsys.readouterr().out.splitlines() if "BatchScan" in line)
    assert "c7" in scan and "c31" in scan and "c8" not in scan and "c0" not in scan
    assert [tuple(r) for r in two.collect()] == [(r * 100 + 7.0, r * 100 + 31.0) for r in range(3)]
    assert [(r.c7, r.c31) for r in df.collect()] == [tuple(r) for r in two.collect()]
    assert df.count() == 3  # no column at all
