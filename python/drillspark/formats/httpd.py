"""Drill's `httpd` format (contrib/format-httpd): web server access logs parsed with Apache
LogFormat strings into Drill's column names (`connection_client_host`,
`request_receive_time`, `request_firstline_uri_path`, ...), read by the extension's
`drill-httpd` source (jvm drillspark/formats/logs/HttpdFormat.scala; docs/formats.md)."""

from __future__ import annotations

from typing import Any, ClassVar

from drillspark.formats.base import FormatError, FormatPlugin, Option


class HttpdFormat(FormatPlugin):
    TYPE = "httpd"
    EXTENSIONS = ("httpd",)
    SOURCE = "drill-httpd"
    BOOTSTRAP = True
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("logFormat", "common\ncombined", (str,), "LogFormat lines; a line fits one"),
        Option("timestampFormat", None, (str,), "the pattern of %t (default Apache's)"),
        Option("maxErrors", 0, (int,), "lines no format fits before the read fails"),
        Option("flattenWildcards", False, (bool,), "query parameters as columns, not maps"),
        Option("parseUserAgent", False, (bool,), "the user agent's fields (Yauaa) as columns"),
        Option("logParserRemapping", None, (str,), "Drill's field type remapping (not read here)"),
    )

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        if config.get("logParserRemapping"):
            raise FormatError(f"{where}option 'logParserRemapping' is not supported by drillspark")

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        # as Drill 1.22 with its contrib plugins shows it in its bootstrap dfs
        return {
            "httpd": {"type": "httpd", "extensions": ["httpd"], "logFormat": "common\ncombined"}
        }


FORMAT = HttpdFormat()
