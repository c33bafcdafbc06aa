"""Reading JSON in one pass: a statement whose whole result is fetched reads its large JSON
tables with the schema of a sample (option `sampleRecords` of the `drill` source) instead of
a discovery pass over every record, and the reader checks every value it reads against that
sample (`exactSample`). A key or value the sample did not see fails the read with
SAMPLE_MISFIT; the result then remembers the table, builds the statement again with a full
discovery and fetches again, so the answer is the one reading every record gives (but for
the differences docs/scan.md, "One pass", lists).

Only a fetch that can be taken back may read in one pass (`DrillResult.collect`, `rows`,
`to_arrow`, `to_pandas`): a statement that writes files or has a LIMIT, a streamed result and
a caller of `DrillResult.df` get the full discovery. Small tables too: their discovery costs
little, and a result that has to be built again (`.df`, `show()`) would pay a second build."""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

from pyspark.sql import SparkSession

# leads the reader's message (DrillOptions.SampleMisfit in the extension)
MISFIT = "SAMPLE_MISFIT"
# records per file (or split of a large file) the sample reads; 0 switches the one pass off
CONF = "spark.drillspark.singlePassSample"
DEFAULT_RECORDS = 4096
# tables smaller than this (bytes of local files) are discovered in full: at about 1 GB/s a
# discovery pass costs them less than building a statement twice
MIN_BYTES_CONF = "spark.drillspark.singlePassMinBytes"
DEFAULT_MIN_BYTES = 32 << 20
# options that decide discovery themselves
_OWN_DISCOVERY = {"samplerecords", "exactsample"}


@dataclass
class Reads:
    """One statement's build: the sample size, the tables it read from a sample, and whether
    it named a column or member no input has (`missed`)."""

    records: int
    min_bytes: int = DEFAULT_MIN_BYTES
    sampled: list[tuple[str, ...]] = field(default_factory=list)
    missed: bool = False


_BUILDING: ContextVar[Reads | None] = ContextVar("drillspark_single_pass", default=None)
_DISABLED: ContextVar[bool] = ContextVar("drillspark_single_pass_off", default=False)
# per session, weakly held: tables (their paths) that met a misfit read with full discovery
_FULL: weakref.WeakKeyDictionary[SparkSession, set[tuple[str, ...]]] = weakref.WeakKeyDictionary()


def _whole_number(spark: SparkSession, conf: str, default: int, unit: str) -> int:
    text = spark.conf.get(conf, None)
    if text is None:
        return default
    try:
        n = int(str(text).strip())
    except ValueError:
        raise ValueError(f"{conf} must be a whole number of {unit}, not {text!r}") from None
    if n < 0:
        raise ValueError(f"{conf} must be 0 or more {unit}, not {n}")
    return n


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Statements built (in this thread) within are built with full discovery: their callers
    read `DrillResult.df` (the server and `drillspark run`, a row at a time), which would
    build them again anyway."""
    token = _DISABLED.set(True)
    try:
        yield
    finally:
        _DISABLED.reset(token)


def may_sample() -> bool:
    """Whether statements built in this thread now may read from samples (not within
    `disabled`); the session's conf and the statement decide the rest (`building`)."""
    return not _DISABLED.get()


@contextlib.contextmanager
def building(spark: SparkSession, allowed: bool) -> Iterator[Reads | None]:
    """While a statement's DataFrame is built: its JSON reads may take a sample when
    `allowed` (and neither the session's conf nor `disabled` switches it off)."""
    on = allowed and may_sample()
    records = _whole_number(spark, CONF, DEFAULT_RECORDS, "records (0: off)") if on else 0
    reads = None
    if records > 0:
        reads = Reads(records, _whole_number(spark, MIN_BYTES_CONF, DEFAULT_MIN_BYTES, "bytes"))
    token = _BUILDING.set(reads)
    try:
        yield reads
    finally:
        _BUILDING.reset(token)


def json_options(
    spark: SparkSession,
    paths: tuple[str, ...],
    options: Mapping[str, str],
    implicit: bool = False,
) -> dict[str, str]:
    """The `drill` source options for a JSON read: with the sample's options added when the
    statement being built reads in one pass and nothing rules it out for this table (its own
    discovery options, or `implicit` file columns, which a data column met after the sample
    would replace)."""
    out = dict(options)
    reads = _BUILDING.get()
    if reads is None or implicit or any(k.lower() in _OWN_DISCOVERY for k in out):
        return out
    # the exact check does not follow extended types ($numberLong, $date, ...)
    if any(k.lower() == "extendedtypes" and str(v).lower() == "true" for k, v in out.items()):
        return out
    if paths in _FULL.get(spark, ()) or not _at_least(paths, reads.min_bytes):
        return out
    out["sampleRecords"] = str(reads.records)
    out["exactSample"] = "true"
    reads.sampled.append(paths)
    return out


def _at_least(paths: tuple[str, ...], limit: int) -> bool:
    """Whether the files under `paths` hold at least `limit` bytes (counting stops there); a
    glob or a path of another file system counts as large."""
    total = 0
    for p in paths:
        if "://" in p and not p.startswith("file:"):
            return True
        local = p.removeprefix("file://").removeprefix("file:")
        if any(c in local for c in "*?[{"):
            return True
        if os.path.isfile(local):
            total += os.path.getsize(local)
        elif os.path.isdir(local):
            for root, _dirs, files in os.walk(local):
                for name in files:
                    try:
                        total += os.path.getsize(os.path.join(root, name))
                    except OSError:  # gone since the walk listed it
                        continue
                    if total >= limit:
                        return True
        else:
            return True
        if total >= limit:
            return True
    return total >= limit


def missed() -> None:
    """The statement being built names a column or member its input lacks (it reads NULL):
    a full read may have it where a sample did not, and nothing reads the records to check,
    so the statement is built again with full discovery."""
    reads = _BUILDING.get()
    if reads is not None:
        reads.missed = True


def is_misfit(error: BaseException) -> bool:
    """Whether `error` (or what it was raised from) is a read that met what its sample had
    not seen."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        if MISFIT in str(e):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def remember(spark: SparkSession, reads: Reads) -> None:
    """The tables of a statement that met a misfit are read with full discovery from now on
    (in this session; a new process samples again)."""
    _FULL.setdefault(spark, set()).update(reads.sampled)
