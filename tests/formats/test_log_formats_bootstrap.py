"""The bootstrap configs of xml, httpd, syslog, ltsv and pcap in drillspark's dfs are Drill
1.22's (with its contrib plugins), as `DESCRIBE SCHEMA dfs` shows them
(tests/formats/data/drill_describe_dfs.json), in Drill's order."""

from __future__ import annotations

import json

from tests.formats.conftest import DATA

from drillspark.formats import registry

DRILL = json.loads((DATA / "drill_describe_dfs.json").read_text("utf-8"))[0]["formats"]
OURS = ("httpd", "syslog", "xml", "ltsv", "pcap")


def test_bootstrap_configs_as_drill():
    formats = registry.bootstrap_formats()
    for name in OURS:
        assert formats[name] == DRILL[name], name
    assert [n for n in formats if n in OURS] == [n for n in DRILL if n in OURS]


def test_bootstrap_configs_pass_their_own_checks():
    for name in OURS:
        plugin = registry.get(DRILL[name]["type"])
        checked = plugin.config(DRILL[name])
        assert checked["extensions"] == DRILL[name]["extensions"]
