"""Drill's `logRegex` format (contrib/format-log): log files cut into columns by a Java regular
expression, read by the extension's `drill-logregex` source (jvm
drillspark/formats/logs/LogRegexFormat.scala). Drill ships no config of it: a `formats` entry
names the `regex`, the one `extension` it reads, `maxErrors` and an optional `schema` (per
capturing group `fieldName`, `fieldType`, `format`); see docs/formats.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from drillspark.formats.base import FormatError, FormatPlugin, Option

# Drill's minor types its log reader takes (a `schema` entry's `fieldType`)
FIELD_TYPES = ("VARCHAR", "INT", "BIGINT", "FLOAT4", "FLOAT8", "DATE", "TIME", "TIMESTAMP")


class LogRegexFormat(FormatPlugin):
    TYPE = "logRegex"
    EXTENSIONS = ()
    SOURCE = "drill-logregex"
    # the matched line, and a line the regex missed (asking for it makes those lines rows)
    METADATA_COLUMNS = ("_raw", "_unmatched_rows")
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("regex", None, (str,), "Java regex, one capturing group per column"),
        Option("extension", None, (str,), "the file extension this config reads"),
        Option("maxErrors", 10, (int,), "lines the regex misses before the read fails"),
        Option("schema", None, (list,), "per group: fieldName, fieldType (VARCHAR), format"),
    )

    @classmethod
    def config(cls, raw: Mapping[str, Any], where: str = "") -> dict[str, Any]:
        out = super().config(raw, where)
        # Drill's logRegex names one `extension`; it is the config's `extensions`
        if out.get("extension") and not any(str(k).lower() == "extensions" for k in raw):
            out["extensions"] = [str(out["extension"]).lstrip(".").lower()]
        return out

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        if not config.get("regex"):
            raise FormatError(
                f"{where}a logRegex format needs 'regex' (a Java regular expression with one "
                "capturing group per column)"
            )
        for i, field in enumerate(config.get("schema") or (), start=1):
            if not isinstance(field, Mapping) or not field.get("fieldName"):
                raise FormatError(f"{where}schema entry {i} must be an object with a fieldName")
            kind = str(field.get("fieldType") or "VARCHAR").upper()
            if kind not in FIELD_TYPES:
                raise FormatError(
                    f"{where}schema field '{field['fieldName']}' has fieldType '{kind}', which is "
                    f"not one of Drill's log reader types ({', '.join(FIELD_TYPES)})"
                )


FORMAT = LogRegexFormat()
