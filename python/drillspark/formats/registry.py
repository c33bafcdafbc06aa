"""The one list of drillspark's formats, and the lookups every door uses: a format by Drill's
type name (a `formats` config's or table function's `type`), the format config a file's
extension selects among a plugin's `formats`, and the `formats` of Drill's bootstrap `dfs`.

A new format is a module of this package defining a `FormatPlugin` subclass and a `FORMAT`
instance; adding it to `FORMATS` below registers it (docs/formats.md, "Adding a format")."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from drillspark.formats import (
    avro,
    excel,
    httpd,
    json,
    log_regex,
    ltsv,
    parquet,
    pcap,
    syslog,
    text,
    xml,
)
from drillspark.formats.base import FormatError, FormatPlugin, StoreFormat

FORMATS: tuple[FormatPlugin, ...] = (
    json.FORMAT,
    parquet.FORMAT,
    text.FORMAT,
    avro.FORMAT,
    excel.FORMAT,
    log_regex.FORMAT,
    syslog.FORMAT,
    ltsv.FORMAT,
    pcap.FORMAT,
    pcap.PCAPNG_FORMAT,
    xml.FORMAT,
    httpd.FORMAT,
)

# Formats Drill's bootstrap `dfs` lists that drillspark cannot read yet (shown, refused on read)
UNREADABLE: dict[str, dict[str, Any]] = {
    "sequencefile": {"type": "sequencefile", "extensions": ["seq"]},
}

_BY_TYPE = {f.TYPE.lower(): f for f in FORMATS}


def types() -> list[str]:
    """Drill's type names of every format, as configs write them."""
    return [f.TYPE for f in FORMATS]


def get(type_name: str, where: str = "") -> FormatPlugin:
    """The format of Drill type `type_name` (any case), refusing an unknown one naming them."""
    found = _BY_TYPE.get(str(type_name).lower())
    if found is None:
        raise FormatError(f"{where}unknown format type '{type_name}' (known: {', '.join(types())})")
    return found


def find(type_name: str) -> FormatPlugin | None:
    return _BY_TYPE.get(str(type_name).lower())


# Drill 1.22's bootstrap `dfs` formats, in its order: its core ones, then its contrib plugins'
CORE_BOOTSTRAP = ("parquet", "json", "sequencefile", "csvh", "psv", "avro", "tsv", "csv")
CONTRIB_BOOTSTRAP = ("httpd", "syslog", "excel", "xml", "ltsv", "pcap")


def bootstrap_formats(contrib: bool = True, readable: bool = False) -> dict[str, dict[str, Any]]:
    """The `formats` of Drill's bootstrap `dfs` plugin, in Drill's order: the core ones, and
    with `contrib` those its contrib plugins add (and any other registered format's); with
    `readable` only those drillspark reads (not `sequencefile`)."""
    found: dict[str, dict[str, Any]] = {} if readable else dict(UNREADABLE)
    for f in FORMATS:
        found.update(f.bootstrap())
    order = CORE_BOOTSTRAP + CONTRIB_BOOTSTRAP if contrib else CORE_BOOTSTRAP
    out = {n: found[n] for n in order if n in found}
    if contrib:
        out.update({n: c for n, c in found.items() if n not in out})
    return out


def plugin_formats(configured: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """A `file` plugin's formats: Drill's bootstrap ones with the plugin's own over them."""
    out = bootstrap_formats()
    for name, conf in (configured or {}).items():
        if isinstance(conf, Mapping):
            out[str(name)] = dict(conf)
    return out


def by_extension(
    ext: str, configured: Mapping[str, Any] | None = None
) -> tuple[str, dict[str, Any]] | None:
    """(name, config) of the format config whose `extensions` hold `ext` (without the dot,
    any case) among the plugin's formats, the plugin's own first; a registered format's
    default extensions last. None when no format reads the extension."""
    low = ext.lower().lstrip(".")
    if not low:
        return None
    formats = plugin_formats(configured)
    own = [n for n in (configured or {}) if n in formats]
    for name in [*own, *(n for n in formats if n not in own)]:
        conf = formats[name]
        # Drill's `extensions`; logRegex's config names its one `extension`
        named_exts = [
            *(conf.get("extensions") or ()),
            *([conf["extension"]] if conf.get("extension") else []),
        ]
        if low in [str(e).lower().lstrip(".") for e in named_exts]:
            return name, conf
    for f in FORMATS:
        default = f.default_config(low)
        if default is not None:
            return f.TYPE.lower(), default
    return None


def selected(
    ext: str, configured: Mapping[str, Any] | None = None, default_name: str | None = None
) -> tuple[str, dict[str, Any]]:
    """(type, config) of the format a table's file extension selects (`by_extension`); for an
    extension none selects, the workspace's `defaultInputFormat` (a `formats` name); JSON's
    when neither does, as drillspark has always read a file of unknown extension."""
    hit = by_extension(ext, configured)
    if hit is not None:
        return str(hit[1].get("type") or hit[0]).lower(), dict(hit[1])
    if default_name:
        conf = named(default_name, configured) or {}
        return str(conf.get("type") or default_name).lower(), dict(conf)
    return "json", {"type": "json", "extensions": ["json"]}


def store_formats() -> list[str]:
    """The `store.format` values CTAS writes, in the registry's order."""
    return [s.name for f in FORMATS for s in f.STORE]


def store_format(name: str, where: str = "") -> tuple[FormatPlugin, StoreFormat]:
    """The format writing `store.format` `name` (any case) and its Drill names; an unknown one
    is refused naming those drillspark writes."""
    low = str(name).lower()
    for f in FORMATS:
        for s in f.STORE:
            if s.name == low:
                return f, s
    raise FormatError(
        f"{where}unsupported store.format '{name}' (drillspark writes {', '.join(store_formats())})"
    )


def data_extensions() -> set[str]:
    """Every file extension a format of Drill's bootstrap `dfs` or of the registry reads (with
    drillspark's extra ones): the files a table of data may hold."""
    out = {str(e).lower() for c in bootstrap_formats().values() for e in c.get("extensions") or ()}
    for f in FORMATS:
        out.update(f.EXTENSIONS, f.EXTRA_EXTENSIONS, (s.extension for s in f.STORE))
    return out


def named(name: str, configured: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The config a `formats` entry (or `defaultInputFormat`) names, else None."""
    formats = plugin_formats(configured)
    for key, conf in formats.items():
        if key.lower() == name.lower():
            return conf
    return None


def config_for(
    asked: Mapping[str, Any] | str | None,
    path: str,
    configured: Mapping[str, Any] | None = None,
    where: str = "",
) -> tuple[FormatPlugin, dict[str, Any]] | None:
    """The format and its checked config for a table: `asked` is a selection's format (a
    table function's options with their `type`, or a `formats` entry's name), else the
    `formats` config the file's extension selects. A table function's options go over the
    plugin's config of that type when it has one, else over Drill's defaults. None when
    neither names a registered format."""
    options: dict[str, Any] = {}
    base: dict[str, Any] | None = None
    if isinstance(asked, Mapping):
        options = {k: v for k, v in asked.items() if str(k).lower() != "type"}
        asked = asked.get("type")
    if asked:
        # a config's name (`applog`), unless it is a type Drill's bootstrap names alike (`excel`)
        own_names = {str(n).lower() for n in (configured or {})}
        is_name = find(str(asked)) is None or str(asked).lower() in own_names
        base = named(str(asked), configured) if is_name else None
        type_name = str(base.get("type")) if base else str(asked)
        wanted = find(type_name)
        if wanted is None:
            return None
        if base is None:
            # a type: the config of that type the file's extension selects, else the plugin's
            # own config of that type, else Drill's (a table function's options go over it)
            name = _first_file(path) if os.path.isdir(path) else os.path.basename(path)
            hit = by_extension(os.path.splitext(name)[1], configured)
            formats = plugin_formats(configured)
            own = [formats[n] for n in (configured or {}) if n in formats]
            candidates = ([hit[1]] if hit else []) + own + list(formats.values())
            base = next(
                (
                    dict(c)
                    for c in candidates
                    if str(c.get("type", "")).lower() == type_name.lower()
                ),
                None,
            )
    else:
        name = _first_file(path) if os.path.isdir(path) else os.path.basename(path.rstrip("/"))
        hit = by_extension(os.path.splitext(name)[1], configured)
        if hit is None:
            return None
        base = hit[1]
        type_name = str(base.get("type"))
    plugin = find(type_name)
    if plugin is None:
        return None
    merged = {k: v for k, v in (base or {}).items() if str(k).lower() != "type"}
    merged.update(options)
    return plugin, plugin.config(merged, where)


def _first_file(folder: str) -> str:
    """The first data file under `folder` (hidden `.`/`_` entries are not data), else ""."""
    for _dirpath, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for n in sorted(files):
            if not n.startswith((".", "_")):
                return n
    return ""
