"""Drill's `syslog` format (contrib/format-syslog): RFC 5424 messages, one a line, read by the
extension's `drill-syslog` source (jvm drillspark/formats/logs/SyslogFormat.scala) into Drill's
columns, the structured data as one map or, with `flattenStructuredData`, one column per
parameter (docs/formats.md)."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatPlugin, Option


class SyslogFormat(FormatPlugin):
    TYPE = "syslog"
    EXTENSIONS = ("syslog",)
    SOURCE = "drill-syslog"
    BOOTSTRAP = True
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("maxErrors", 10, (int,), "kept for Drill's config; a bad line fails the read"),
        Option("flattenStructuredData", False, (bool,), "structured_data_<name> columns"),
    )

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # as Drill 1.22 with its contrib plugins shows it in its bootstrap dfs
        return {"syslog": {"type": "syslog", "extensions": ["syslog"], "maxErrors": 10}}


FORMAT = SyslogFormat()
