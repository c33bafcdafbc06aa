"""Drill's format plugins, one module per format (docs/formats.md).

A format module owns its Drill config (type name, default `extensions`, options with Drill's
names and defaults, validation in Drill's words), its table-function options (the same
names), how its files are read and, where Drill writes the format, how they are written.
`registry` is the only list of formats: `dfs` `formats` configs, table functions,
`defaultInputFormat` and file-extension detection all ask it.
"""

from drillspark.formats.base import FormatError, FormatPlugin, Option, ReadRequest

__all__ = ["FormatError", "FormatPlugin", "Option", "ReadRequest"]
