"""The shared base of format modules, after Drill's `EasyFormatPlugin`: a format is a
`FormatPlugin` subclass naming Drill's type, its default extensions and its options; its
`config` checks a user's config (a `dfs` `formats` entry, a table function's options) against
them; `read` reads a table's files. A format whose reader lives in the extension jar names its
Spark data source (`SOURCE`, `drill-<type>`): the default `read` lists the files, calls
`spark.read.format(SOURCE)` with the config's options under Drill's names, and adds dirN and
the implicit file columns from the `$file` column the source then carries.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from drillspark.errors import ExecutionError, describe


class FormatError(ExecutionError, ValueError):
    """A format config Drill would refuse, or a file the format cannot read."""


# The column the extension's format sources add for the Python door: each row's file URI
# (FormatOptions.PathColumn in the jar), the same name the text reader uses.
PATH_COLUMN = "$file"
# Keys of every format config that say which files a format reads, not how.
COMMON_KEYS = ("type", "extensions")


@dataclass(frozen=True)
class Option:
    """One option of a format config: Drill's JSON name, its default (what Drill's config
    class holds when the key is absent; None: not set) and the JSON kinds it takes."""

    name: str
    default: Any
    kinds: tuple[type, ...]
    doc: str = ""

    def check(self, value: Any, where: str) -> Any:
        """`value` as this option holds it; a table function's text `'true'` / `'5'` is read
        as the option's kind, as Drill's table functions convert their arguments."""
        if value is None:
            return None
        if bool in self.kinds and isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if int in self.kinds and isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        if isinstance(value, bool) and bool not in self.kinds:
            pass
        elif isinstance(value, self.kinds) or (
            float in self.kinds and isinstance(value, int) and not isinstance(value, bool)
        ):
            return value
        if str in self.kinds and isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        kinds = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in self.kinds)
        raise FormatError(
            f"{where}option '{self.name}' must be {kinds}, not {type(value).__name__} {value!r}"
        )


_KIND_NAMES = {
    str: "a string",
    int: "an integer",
    bool: "true or false",
    list: "a list",
    float: "a number",
    dict: "an object",
}


@dataclass(frozen=True)
class ReadRequest:
    """What a storage engine asks a format to read: the table's resolved `paths` (files or
    folders), the format `config` (already checked by `FormatPlugin.config`), the implicit file
    columns the query names, and options for the extension's source (a confined workspace)."""

    paths: Sequence[str]
    config: Mapping[str, Any]
    implicit: Sequence[str] = ()
    source_options: Mapping[str, str] = field(default_factory=dict)
    table: str = ""  # the table as the query named it, for errors
    # every column name the statement holds: which metadata columns (`_sheets`) it asks for
    names: Sequence[str] = ()
    # the top-level columns a JSON table keeps (None: all), a Parquet table's columns (None:
    # all; one the files lack is NULL), the text columns a `SELECT *` names elsewhere ('')
    keep: Sequence[str] | None = None
    columns: Sequence[str] | None = None
    named: Sequence[str] = ()


@dataclass(frozen=True)
class StoreFormat:
    """One `store.format` value a format writes with CTAS (Drill's name, e.g. `psv`), the
    extension of the files Drill writes for it (`tbl`) and, for text, its field delimiter."""

    name: str
    extension: str
    delimiter: str | None = None


@dataclass(frozen=True)
class WriteSpec:
    """How Spark writes a table as one `store.format`: the rows as the format takes them,
    Spark's writer source and its options."""

    df: DataFrame
    source: str
    options: Mapping[str, str]


class FormatPlugin:
    """One Drill format type. Subclasses set the class attributes and, when their reader is not
    the extension's `drill-<type>` source, override `read`; a format Drill writes lists its
    `store.format` names in `STORE` and says how Spark writes them in `write_spec`."""

    TYPE: ClassVar[str]  # Drill's type name, as a config's "type" writes it
    EXTENSIONS: ClassVar[tuple[str, ...]] = ()  # Drill's default `extensions`
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    # Spark data source of the extension's reader (None: read in Python)
    SOURCE: ClassVar[str | None] = None
    # where dirN columns go in `SELECT *`: Drill puts them first for some readers (Parquet)
    DIRS_FIRST: ClassVar[bool] = False
    # Drill's bootstrap `dfs`/`cp` plugins list this format (under these names)
    BOOTSTRAP: ClassVar[bool] = False
    # Drill's implicit metadata columns of a file of this format (excel's `_sheets`, ...):
    # present only when a query names them; the source adds those its `metadataColumns` lists
    METADATA_COLUMNS: ClassVar[tuple[str, ...]] = ()
    # the `store.format` values CTAS writes as this format (none: Drill does not write it)
    STORE: ClassVar[tuple[StoreFormat, ...]] = ()
    # file extensions drillspark reads as one of this type's configs besides Drill's
    # (extension -> the bootstrap config's name)
    EXTRA_EXTENSIONS: ClassVar[dict[str, str]] = {}

    # ---------------------------------------------------------------- config
    @classmethod
    def option(cls, name: str) -> Option | None:
        low = name.lower()
        return next((o for o in cls.OPTIONS if o.name.lower() == low), None)

    @classmethod
    def config(cls, raw: Mapping[str, Any], where: str = "") -> dict[str, Any]:
        """`raw` (a `formats` entry, or a table function's options over one) checked and with
        Drill's defaults: `{"type": TYPE, "extensions": [...], option: value, ...}`. Keys are
        matched in any case (Drill's table functions do) and given Drill's spelling; an unknown
        key is refused, naming the format's options."""
        where = where or f"format '{cls.TYPE}': "
        out: dict[str, Any] = {"type": cls.TYPE, "extensions": list(cls.EXTENSIONS)}
        out.update({o.name: o.default for o in cls.OPTIONS if o.default is not None})
        for key, value in raw.items():
            low = str(key).lower()
            if low == "type":
                continue
            if low == "extensions":
                if value is None:
                    continue
                values = [value] if isinstance(value, str) else value
                if not isinstance(values, list | tuple) or not all(
                    isinstance(v, str) for v in values
                ):
                    raise FormatError(f"{where}'extensions' must be a list of strings")
                out["extensions"] = [str(v).lstrip(".").lower() for v in values]
                continue
            opt = cls.option(str(key))
            if opt is None:
                known = ", ".join(o.name for o in cls.OPTIONS) or "none"
                raise FormatError(
                    f"{where}unknown option '{key}' for format type '{cls.TYPE}' (its options: "
                    f"{known})"
                )
            out[opt.name] = opt.check(value, where)
        cls.validate(out, where)
        return out

    @classmethod
    def validate(cls, config: dict[str, Any], where: str) -> None:
        """Checks across options (a subclass's); `config` has every default."""

    @classmethod
    def bootstrap(cls) -> dict[str, dict[str, Any]]:
        """The `formats` entries of Drill's bootstrap `dfs` for this type (name -> config, as
        Drill shows them); none for a format Drill's bootstrap does not list."""
        if not cls.BOOTSTRAP:
            return {}
        return {cls.TYPE.lower(): {"type": cls.TYPE, "extensions": list(cls.EXTENSIONS)}}

    @classmethod
    def default_config(cls, ext: str) -> dict[str, Any] | None:
        """The config a file extension none of a plugin's `formats` lists selects by this
        format's defaults: its type with its default `extensions`, or the bootstrap config an
        `EXTRA_EXTENSIONS` entry names; None when the format does not read `ext`."""
        if ext in cls.EXTRA_EXTENSIONS:
            return dict(cls.bootstrap()[cls.EXTRA_EXTENSIONS[ext]])
        if ext in cls.EXTENSIONS:
            return {"type": cls.TYPE, "extensions": list(cls.EXTENSIONS)}
        return None

    @classmethod
    def write_spec(cls, df: DataFrame, store: StoreFormat) -> WriteSpec:
        """How Spark writes `df` as `store` (one of `STORE`)."""
        raise FormatError(f"format '{cls.TYPE}' is not written by drillspark")

    @classmethod
    def source_options(cls, config: Mapping[str, Any]) -> dict[str, str]:
        """The extension source's options for `config`: Drill's names, values as text."""
        out: dict[str, str] = {}
        for key, value in config.items():
            if key == "type" or value is None:
                continue
            if isinstance(value, bool):
                out[key] = "true" if value else "false"
            elif isinstance(value, list | dict):
                import json

                out[key] = json.dumps(value)
            else:
                out[key] = str(value)
        return out

    # ---------------------------------------------------------------- read
    def read(self, spark: SparkSession, request: ReadRequest) -> DataFrame:
        """The table's rows through the extension's `SOURCE`, then dirN and the implicit
        file columns (the `$file` column the source carries for this)."""
        from drillspark.spark.storage import stamps as file_stamps
        from drillspark.spark.storage.implicit import FILE_COLUMNS, dir_depth, with_implicit

        if self.SOURCE is None:
            raise FormatError(f"format '{self.TYPE}' has no reader")
        files = list_files(request.paths, tuple(request.config.get("extensions") or ()))
        if not files:
            raise FormatError(
                f"no {self.TYPE} files at {', '.join(request.paths)} (extensions: "
                f"{', '.join(request.config.get('extensions') or ()) or 'any'})"
            )
        # each row's file only when a column is made of it (dirN of a local folder, filename,
        # ...): a path column asked for and dropped again cost a select per scan (#37)
        with_path = dir_depth(request.paths, files) > 0 or any(
            n.lower() in FILE_COLUMNS for n in request.implicit
        )
        named = {n.lower() for n in request.names}
        wanted = [m for m in self.METADATA_COLUMNS if m in named]
        options = {
            **self.source_options(request.config),
            **dict(request.source_options),
            PATH_COLUMN: "true" if with_path else "false",
        }
        if any("://" in p and not p.startswith("file:") for p in request.paths):
            # a folder of another file system (s3a://, hdfs://) is listed by the source alone:
            # it gives the dirN columns too (a local one's come from `with_implicit`)
            options["dirColumns"] = "true"
        if wanted:
            options["metadataColumns"] = ",".join(wanted)

        source = self.SOURCE

        def load() -> DataFrame:  # built on a miss alone: each option is a py4j round trip
            return spark.read.format(source).options(**options).load(files)

        # kept per session while nothing under the table's paths changed (stamps.py): a chart
        # sent again skips the source's schema inference (a text file's header) and Spark's
        # analysis of the load (#37)
        found = file_stamps.tree_stamps(request.paths)
        shape = (
            source,
            tuple(sorted(options.items())),
            tuple(request.paths),  # not its files: a folder's new file replaces the read
        )
        try:
            df = file_stamps.kept(spark, shape, found, load)
        except Exception as e:  # noqa: BLE001 - the source's refusal, as one paragraph
            raise FormatError(describe(e)) from None
        df = self.loaded(df, request)
        if not with_path:
            return df
        return with_implicit(
            df,
            F.col(f"`{PATH_COLUMN}`"),
            request.paths,
            files,
            request.implicit,
            dirs_first=self.DIRS_FIRST,
            drop=PATH_COLUMN,
        )

    def loaded(self, df: DataFrame, request: ReadRequest) -> DataFrame:
        """The source's table before dirN and the implicit columns go on (a subclass's)."""
        return df


def list_files(paths: Sequence[str], extensions: tuple[str, ...]) -> list[str]:
    """The files under `paths`: a folder is walked (hidden `.`/`_` entries skipped, as Drill
    does) keeping the files with one of `extensions` (any, when none); a file is kept as named."""
    suffixes = tuple("." + e.lower() for e in extensions)
    out: list[str] = []
    for p in paths:
        if "://" in p and not p.startswith("file:"):
            out.append(p)  # another file system's: the extension's source lists it
        elif os.path.isdir(p):
            out += walk_folder(p, suffixes)
        elif os.path.exists(p):
            out.append(p)
        else:
            raise FormatError(f"file not found: {p}")
    return out


def walk_folder(folder: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files under a local `folder`, in name order, with one of `suffixes` (any, when
    none); hidden `.`/`_` entries skipped, as Drill does. The one folder walk of a read."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
        for name in sorted(filenames):
            if not name.startswith((".", "_")) and (
                not suffixes or name.lower().endswith(suffixes)
            ):
                out.append(os.path.join(dirpath, name))
    return out
