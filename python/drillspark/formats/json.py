"""Drill's `json` format. Read by the extension's `drill` source (spark/storage/readers.py
`read_json`, the options table drillspark/rules/json_options.tsv); this module owns its config."""

from __future__ import annotations

from typing import ClassVar

from drillspark.formats.base import FormatPlugin, Option
from drillspark.rules import json_options

# Drill's JSONFormatConfig keys, every spelling the options table knows (default: the session's)
_OPTIONS = tuple(
    Option(spelling, None, (bool, str, int))
    for o in json_options()
    for spelling in dict.fromkeys((*o.spellings, o.option))
)


class JsonFormat(FormatPlugin):
    TYPE = "json"
    EXTENSIONS = ("json",)
    OPTIONS: ClassVar[tuple[Option, ...]] = _OPTIONS
    BOOTSTRAP = True


FORMAT = JsonFormat()
