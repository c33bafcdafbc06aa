"""Drill's `avro` format: Avro container files, read by the extension's `drill-avro` source
(jvm drillspark/formats/avro/AvroFormat.scala, Avro's own Java library) with Drill 1.22's
mapping of records, unions, maps, arrays, enums, fixed and logical types (docs/formats.md).
Drill's config has no option beside `extensions`; Drill does not write Avro."""

from __future__ import annotations

from drillspark.formats.base import FormatPlugin


class AvroFormat(FormatPlugin):
    TYPE = "avro"
    EXTENSIONS = ("avro",)
    SOURCE = "drill-avro"
    BOOTSTRAP = True


FORMAT = AvroFormat()
