"""Reading a logical plan (both dialects) from text, a file or a dict into a LogicalPlan.

Problems that stop an operator from being built (unknown operator, missing, unknown or
wrong-typed property, sequence rules, expression syntax) are collected here; graph and
meaning checks live in validate.py. Everything is reported together in one PlanError.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from drillspark import plugins
from drillspark.plan.depth import RECURSION_LIMIT, room
from drillspark.plan.errors import PlanError, PlanIssue, PlanWarning
from drillspark.plan.expr_parser import ExpressionError
from drillspark.plan.model import (
    LogicalPlan,
    PlanDialect,
    SourceInfo,
    StorageConfig,
)
from drillspark.plan.operator_reader import REPLACEMENT as _REPLACEMENT
from drillspark.plan.operator_reader import OperatorProps as _Props
from drillspark.plan.operator_reader import Stop as _Stop
from drillspark.plan.operator_reader import as_int as _as_int
from drillspark.plan.operator_reader import kind_of as _kind
from drillspark.plan.operator_reader import op_name as _op_name
from drillspark.plan.operator_reader import role_of_name as _role_of_name
from drillspark.plan.operator_reader import suggest as _suggest
from drillspark.plan.operators import (
    BUILTIN_OPERATORS,
    OPERATORS_2013,
    OPERATORS_TODAY,
    Operator,
)
from drillspark.plan.registry import read_operator
from drillspark.plan.relaxed_json import (
    SURROGATE,
    Document,
    JsonPath,
    JsonSyntaxError,
    loads,
    path_text,
)
from drillspark.plan.serialize import DIALECT_OPTION

# head.options key that records the dialect in plans written by to_json (refs and
# expressions of 2013 plans read differently).
PLAN_TYPES = ("APACHE_DRILL_LOGICAL", "APACHE_DRILL_PHYSICAL")


def parse(
    source: str | bytes | os.PathLike | Mapping[str, Any],
    *,
    dialect: PlanDialect | None = None,
    validate: bool = True,
    file: str | None = None,
) -> LogicalPlan:
    """Read a plan from JSON text (a str starting with `{`, or UTF-8 bytes), a file path,
    or a dict of JSON values.

    `dialect` None detects it. Raises PlanError listing every problem (with operator @id,
    JSON path, and line/column for text input); `validate=False` skips the graph checks of
    validate() but not the problems that prevent building the operators.
    """
    try:
        with room():
            return _parse(source, dialect, validate, file)
    except RecursionError:
        where = (
            file
            if file is not None or not isinstance(source, os.PathLike)
            else str(os.fspath(source))
        )
        raise PlanError(
            [
                PlanIssue(
                    "the plan nests too deeply to read (Python recursion limit "
                    f"{RECURSION_LIMIT} reached)",
                    file=where,
                )
            ]
        ) from None


def _parse(
    source: str | bytes | os.PathLike | Mapping[str, Any],
    dialect: PlanDialect | None,
    validate: bool,
    file: str | None,
) -> LogicalPlan:
    doc: Document | None = None
    if isinstance(source, Mapping):
        value: Any = source
        bad = _not_json(source)
        if bad is not None:
            raise PlanError([PlanIssue(bad[1], path=path_text(bad[0]), file=file)])
    else:
        if isinstance(source, bytes | bytearray | memoryview):
            text = _decode(bytes(source), file)
        elif not isinstance(source, str | os.PathLike):
            raise PlanError(
                [
                    PlanIssue(
                        "a plan is JSON text, UTF-8 bytes, a file path or a dict, "
                        f"not {type(source).__name__}",
                        file=file,
                    )
                ]
            )
        elif isinstance(source, os.PathLike) or not source.lstrip().startswith(
            ("{", "[", "//", "/*")
        ):
            path = Path(source)
            file = file or str(path)
            try:
                text = _decode(path.read_bytes(), file)
            except (OSError, ValueError) as e:  # ValueError: a NUL in the name
                reason = e.strerror if isinstance(e, OSError) and e.strerror else e
                raise PlanError(
                    [PlanIssue(f"cannot read plan file: {reason}", file=file)]
                ) from None
        else:
            text = source
        try:
            doc = loads(text)
        except JsonSyntaxError as e:
            raise PlanError(
                [
                    PlanIssue(
                        f"JSON syntax error: {e.reason}", line=e.line, column=e.column, file=file
                    )
                ]
            ) from None
        value = doc.value
    notes: tuple[PlanIssue, ...] = ()
    if doc is not None:
        notes = tuple(
            PlanIssue(message, None, path_text(path), loc.line, loc.column, file)
            for message, path, loc in doc.warnings
        )
        for note in notes:  # told even when the plan turns out invalid
            warnings.warn(str(note), PlanWarning, stacklevel=3)
    reader = _PlanReader(value, doc, file, dialect)
    plan = reader.read()
    errors = reader.errors
    if plan is not None and validate:
        from drillspark.plan.validate import collect_errors

        errors = errors + collect_errors(plan, frozenset(reader.broken))
    if errors:
        raise PlanError(_sorted(errors))
    assert plan is not None
    if notes and plan.source is not None:  # notes come from source text, which sets `source`
        plan = replace(plan, source=replace(plan.source, warnings=notes))
    return plan


def _decode(data: bytes, file: str | None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise PlanError(
            [
                PlanIssue(
                    f"the plan is not UTF-8 text ({e.reason} at byte {e.start})",
                    line=line,
                    column=column,
                    file=file,
                )
            ]
        ) from None


_JSON_SCALARS = (str, int, float, bool, type(None))


def _not_json(value: Mapping[str, Any]) -> tuple[JsonPath, str] | None:
    """The first place where a plan given as a dict holds something JSON cannot: a key that
    is not a string, or a value that is not null, a bool, a number, a string, a list or a
    dict (tuples pass: the reader names them where it expects a list). Iterative, so a deep
    dict is reported by the reader's own depth check, not here."""
    stack: list[tuple[JsonPath, Any]] = [((), value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, Mapping):
            for k, item in v.items():
                if not isinstance(k, str):
                    return path, f"a key must be a string, not {type(k).__name__} {k!r}"
                if SURROGATE.search(k):
                    return path, f"the key {k!r} holds half a UTF-16 surrogate pair"
                stack.append(((*path, k), item))
        elif isinstance(v, str) and SURROGATE.search(v):
            return path, "the string holds half a UTF-16 surrogate pair (not a character)"
        elif isinstance(v, list | tuple):
            stack.extend(((*path, i), item) for i, item in enumerate(v))
        elif isinstance(v, float) and not math.isfinite(v):
            return path, f"{v} is not a JSON number"
        elif not isinstance(v, _JSON_SCALARS):
            return path, f"a value of type {type(v).__name__} is not JSON"
    return None


def _sorted(errors: list[PlanIssue]) -> list[PlanIssue]:
    # Source order when positions are known; stable otherwise.
    return sorted(errors, key=lambda e: (e.line is None, e.line or 0, e.column or 0))


@dataclass(frozen=True)
class _Marker:
    """A sign of one dialect: `what` at `path` (+ `rel`, the key that shows it)."""

    side: PlanDialect
    path: JsonPath
    rel: JsonPath
    what: str
    op_id: Any = None
    op: str = ""


@dataclass(frozen=True)
class _Detection:
    dialect: PlanDialect
    # path of a minority-side operator (or of `storage`) -> the error to report there
    mixed: dict[JsonPath, tuple[JsonPath, str]]


def detect_dialect(value: Any) -> PlanDialect:
    """2013 if the plan uses anything only the seed-era format has: a `sequence`, `constant`,
    `segment`, `windowframe` or `collapsingaggregate`, a list-shaped `storage`, a scan `ref`,
    an ordering `nullCollation`, a join type "outer", a store `partition`, or the dialect
    option written by to_json. When signs of both dialects appear, the side with more
    operators wins (today's on a tie); parse then reports the others as mixing dialects."""
    return _detect(value).dialect


def _markers(value: Mapping[str, Any]) -> list[_Marker]:
    out: list[_Marker] = []
    if isinstance(value.get("storage"), list):
        out.append(_Marker("2013", ("storage",), (), "a list-shaped 'storage'"))
    bare = "query" not in value and "op" in value
    query = value.get("query")
    items = (
        [((), value)]
        if bare
        else [
            (("query", i), item) for i, item in enumerate(query if isinstance(query, list) else ())
        ]
    )
    for path, item in items:
        if not isinstance(item, Mapping):
            continue
        out.extend(_op_markers(path, item))
        if item.get("op") == "sequence" and isinstance(item.get("do"), list):
            for j, step in enumerate(item["do"]):
                if isinstance(step, Mapping):
                    out.extend(_op_markers((*path, "do", j), step))
    return out


def _op_markers(path: JsonPath, op: Mapping[str, Any]) -> list[_Marker]:
    name = op.get("op")
    if not isinstance(name, str):
        return []
    op_id = op.get("@id")
    found: list[_Marker] = []

    def mark(side: PlanDialect, rel: JsonPath, what: str) -> None:
        found.append(_Marker(side, path, rel, what, op_id, name))

    if name in OPERATORS_2013:
        mark("2013", ("op",), f"operator {name!r}")
    elif name in OPERATORS_TODAY:
        mark("drill", ("op",), f"operator {name!r}")
    if name == "scan" and op.get("ref") is not None:
        mark("2013", ("ref",), "scan 'ref'")
    if name == "store" and op.get("partition") is not None:
        mark("2013", ("partition",), "store 'partition'")
    if name == "join" and str(op.get("type", "")).lower() == "outer":
        mark("2013", ("type",), "join type 'outer'")
    orderings = op.get("orderings")
    for i, o in enumerate(orderings if isinstance(orderings, list) else ()):
        if isinstance(o, Mapping) and "nullCollation" in o:
            mark("2013", ("orderings", i, "nullCollation"), "ordering 'nullCollation'")
        elif isinstance(o, Mapping) and "nullDirection" in o:
            mark("drill", ("orderings", i, "nullDirection"), "ordering 'nullDirection'")
    return found


def _label(m: _Marker) -> str:
    if m.path == ("storage",):
        return "storage"
    return f"{m.op} @{m.op_id}" if m.op_id is not None else f"{m.op} at {path_text(m.path)}"


def _detect(value: Any) -> _Detection:
    if not isinstance(value, Mapping):
        return _Detection("drill", {})
    head = value.get("head")
    if isinstance(head, Mapping) and isinstance(head.get("options"), Mapping):
        marked = head["options"].get(DIALECT_OPTION)
        if marked in ("drill", "2013"):
            return _Detection(marked, {})
    markers = _markers(value)
    by_side: dict[str, dict[JsonPath, list[_Marker]]] = {"2013": {}, "drill": {}}
    for m in markers:
        by_side[m.side].setdefault(m.path, []).append(m)
    old, today = by_side["2013"], by_side["drill"]
    if not old or not today:
        return _Detection("2013" if old else "drill", {})
    # Both dialects: a sequence or list-shaped storage can only be 2013 (the structure);
    # otherwise the side with more operators is the plan's. The others are the strays.
    structural = any(
        m.what in ("operator 'sequence'", "a list-shaped 'storage'")
        for ms in old.values()
        for m in ms
    )
    dialect: PlanDialect = "2013" if structural or len(old) > len(today) else "drill"
    strays, majority = (today, old) if dialect == "2013" else (old, today)
    names = [_label(ms[0]) for ms in majority.values()]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    this = "2013-only" if dialect == "drill" else "only in today's Drill"
    rest = "today's dialect" if dialect == "drill" else "the 2013 dialect"
    mixed: dict[JsonPath, tuple[JsonPath, str]] = {}
    for path, ms in strays.items():
        what = " and ".join(m.what for m in ms)
        hint = ""
        if dialect == "drill" and ms[0].rel == ("op",) and ms[0].op in _REPLACEMENT:
            hint = f"; {_REPLACEMENT[ms[0].op]}"
        mixed[path] = (
            ms[0].rel,
            f"plan mixes dialects: {what} is {this}, but the rest of the plan "
            f"uses {rest} ({shown}){hint}",
        )
    return _Detection(dialect, mixed)


class _PlanReader:
    def __init__(
        self, value: Any, doc: Document | None, file: str | None, dialect: PlanDialect | None
    ):
        self.value = value
        self.doc = doc
        self.file = file
        detected = _detect(value) if dialect is None else _Detection(dialect, {})
        self.dialect: PlanDialect = detected.dialect
        self.mixed = detected.mixed
        if self.dialect not in ("drill", "2013"):
            raise ValueError(f"unknown plan dialect {dialect!r}; use 'drill' or '2013'")
        self.errors: list[PlanIssue] = []
        self.op_paths: dict[int, JsonPath] = {}
        self.explicit: set[int] = set()
        self.broken: set[int] = set()
        self.object_paths: dict[int, JsonPath] = {}

    # --- error helpers ---------------------------------------------------------------------------

    def error(
        self, message: str, path: JsonPath, op_id: int | None = None, *, at_key: bool = False
    ) -> None:
        loc = None
        if self.doc is not None:
            loc = self.doc.key_positions.get(path) if at_key else None
            loc = loc or self.doc.location(path)
        self.errors.append(
            PlanIssue(
                message,
                op_id,
                path_text(path),
                loc.line if loc else None,
                loc.column if loc else None,
                self.file,
            )
        )

    def expr_error(self, e: ExpressionError, path: JsonPath, op_id: int | None) -> None:
        loc = self.doc.location_in_string(path, e.offset) if self.doc else None
        message = f"expression syntax error at column {e.column}: {e.reason} in {e.text!r}"
        if loc is None:
            self.error(message, path, op_id)
        else:
            self.errors.append(
                PlanIssue(message, op_id, path_text(path), loc.line, loc.column, self.file)
            )

    def stray(self, path: JsonPath, op_id: int | None) -> None:
        """An operator of the other dialect in a mixed plan: reported once, not built."""
        rel, message = self.mixed[path]
        self.error(message, (*path, *rel), op_id, at_key=rel[-1:] != ("op",))
        if op_id is not None:
            self.broken.add(op_id)

    # --- top level -------------------------------------------------------------------------------

    def read(self) -> LogicalPlan | None:
        value = self.value
        if isinstance(value, Mapping) and "query" not in value and "op" in value:
            # A bare operator object (Drill's tests deserialize single operators too).
            value = {"query": [value]}
            self.bare = True
        else:
            self.bare = False
        if not isinstance(value, Mapping):
            self.error("a logical plan is a JSON object with head, storage and query", ())
            return None
        for key in value:
            if key not in ("head", "storage", "query"):
                self.error(
                    f"unknown top-level property {key!r}{_suggest(key, ('head', 'storage', 'query'))}; "
                    "a plan has head, storage and query",
                    (key,),
                    at_key=True,
                )
        if ("storage",) in self.mixed:
            rel, message = self.mixed[("storage",)]
            self.error(message, ("storage",))
        head = self.read_head(value.get("head"))
        storage = self.read_storage(value.get("storage"))
        query = value.get("query")
        if query is None:
            self.error("missing property 'query' (the list of operators)", ())
            return None
        if not isinstance(query, list):
            self.error(f"'query' must be a list of operators, not {_kind(query)}", ("query",))
            return None
        prefix: JsonPath = () if self.bare else ("query",)
        ops = self.read_query(query, prefix)
        return LogicalPlan(
            tuple(ops),
            storage,
            head,
            self.dialect,
            SourceInfo(
                self.doc,
                self.file,
                dict(self.op_paths),
                frozenset(self.explicit),
                dict(self.object_paths),
            ),
        )

    def read_head(self, head: Any) -> dict[str, Any]:
        from drillspark.plan.model import DEFAULT_HEAD

        if head is None:
            return dict(DEFAULT_HEAD)
        if not isinstance(head, Mapping):
            self.error(f"'head' must be an object, not {_kind(head)}", ("head",))
            return dict(DEFAULT_HEAD)
        head = dict(head)
        t = head.get("type")
        if t is not None and t not in PLAN_TYPES:
            self.error(
                f"head.type {t!r} is not a plan type; expected APACHE_DRILL_LOGICAL",
                ("head", "type"),
            )
        v = head.get("version")
        if v is not None and _as_int(v) is None:
            self.error(f"head.version must be an integer, not {v!r}", ("head", "version"))
        options = head.get("options")
        if options is None:  # null is no options (to_json adds the dialect option)
            head.pop("options", None)
        elif not isinstance(options, Mapping):
            self.error(f"head.options must be an object, not {_kind(options)}", ("head", "options"))
            del head["options"]
        elif DIALECT_OPTION in options:
            rest = {k: v for k, v in options.items() if k != DIALECT_OPTION}
            if rest:
                head["options"] = rest
            else:
                del head["options"]
        return head

    def read_storage(self, storage: Any) -> dict[str, StorageConfig]:
        out: dict[str, StorageConfig] = {}
        if storage is None:
            return out
        items: list[tuple[str, Any, JsonPath]] = []
        if isinstance(storage, Mapping):
            items = [(name, cfg, ("storage", name)) for name, cfg in storage.items()]
        elif isinstance(storage, list):
            # 2013 format: a list of configs that carry their own "name".
            for i, cfg in enumerate(storage):
                name = cfg.get("name") if isinstance(cfg, Mapping) else None
                if not isinstance(name, str):
                    self.error(
                        'storage engine config in the list form needs a "name" '
                        "(today's plans use an object keyed by engine name)",
                        ("storage", i),
                    )
                    continue
                rest = {k: v for k, v in cfg.items() if k != "name"}
                items.append((name, rest, ("storage", i)))
        else:
            self.error(
                f"'storage' must be an object of named engine configs, not {_kind(storage)}",
                ("storage",),
            )
            return out
        for name, cfg, path in items:
            if not isinstance(cfg, Mapping):
                self.error(
                    f"storage engine {name!r} config must be an object, not {_kind(cfg)}", path
                )
                continue
            t = cfg.get("type")
            if not isinstance(t, str):
                self.error(f'storage engine {name!r} has no "type"', path)
                continue
            if name in out:
                self.error(f"storage engine {name!r} is defined twice", path)
            out[name] = StorageConfig(t, {k: v for k, v in cfg.items() if k != "type"})
        return out

    # --- operators and sequences -----------------------------------------------------------------

    def read_query(self, query: list[Any], prefix: JsonPath) -> list[Operator]:
        # Pass 1: the explicit ids, so ids assigned to the others never collide.
        explicit: list[int] = []
        for i, item in enumerate(query):
            path = (*prefix, i) if prefix else ()
            if isinstance(item, Mapping) and "@id" in item:
                op_id = _as_int(item["@id"])
                if op_id is None:
                    self.error(f"@id must be an integer, not {item['@id']!r}", (*path, "@id"))
                else:
                    explicit.append(op_id)
        self.next_id = max(explicit, default=0) + 1
        ops: list[Operator] = []
        for i, item in enumerate(query):
            path = (*prefix, i) if prefix else ()
            if path in self.mixed and isinstance(item, Mapping) and item.get("op") == "sequence":
                seq_id = _as_int(item.get("@id"))
                self.stray(path, seq_id)
            elif isinstance(item, Mapping) and item.get("op") == "sequence":
                ops.extend(self.read_sequence(item, path))
            else:
                op = self.read_operator(item, path, in_sequence=False)
                if op is not None:
                    ops.append(op)
        return ops

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def read_sequence(self, seq: Mapping[str, Any], path: JsonPath) -> list[Operator]:
        if self.dialect != "2013":
            self.error(
                "operator 'sequence' exists only in 2013 plans (Drill removed it in 2014); "
                "write the operators with explicit inputs",
                (*path, "op"),
                at_key=True,
            )
            return []
        seq_id = _as_int(seq["@id"]) if "@id" in seq else None
        for key in seq:
            if key not in ("op", "@id", "memo", "input", "do"):
                hint = _suggest(key, ("do", "input", "@id", "memo"))
                if key == "sequence":
                    hint = "; the steps of a sequence go in 'do'"
                self.error(
                    f"unknown property {key!r} of sequence{hint}",
                    (*path, key),
                    seq_id,
                    at_key=True,
                )
        steps = seq.get("do")
        if not isinstance(steps, list) or not steps:
            what = (
                "missing property 'do'"
                if steps is None
                else "'do' must be a non-empty list of operators"
            )
            self.error(
                f"sequence: {what} (A sequence must include at least one operator.)", path, seq_id
            )
            return []
        seq_input = _as_int(seq["input"]) if seq.get("input") is not None else None
        if seq.get("input") is not None and seq_input is None:
            self.error(
                f"input must be an operator @id, not {seq['input']!r}", (*path, "input"), seq_id
            )
        ops: list[Operator] = []
        previous: int | None = seq_input
        for i, step in enumerate(steps):
            step_path = (*path, "do", i)
            last = i == len(steps) - 1
            op_id = seq_id if (last and seq_id is not None) else self.new_id()
            if not isinstance(step, Mapping):
                self.error(
                    f"a sequence step must be an operator object, not {_kind(step)}",
                    step_path,
                    op_id,
                )
                previous = -1
                continue
            name = step.get("op")
            for dagger in ("@id", "input"):
                if dagger in step:
                    self.error(
                        f"'{dagger}' is not allowed inside a sequence (the sequence "
                        f"{'numbers' if dagger == '@id' else 'connects'} its steps)",
                        (*step_path, dagger),
                        op_id,
                        at_key=True,
                    )
            problem = None
            role = _role_of_name(name)
            if name == "sequence":
                problem = "a sequence cannot contain a sequence"
            elif i == 0 and previous is None and role not in ("source", None):
                problem = (
                    f"the first step of a sequence without 'input' must be a source "
                    f"operator (scan, constant), not {name!r}"
                )
            elif i == 0 and previous is not None and role == "source":
                problem = (
                    f"the sequence has an input, so its first step must be a single-input "
                    f"operator, not the source {name!r}"
                )
            elif i > 0 and role in ("source", "multi"):
                problem = (
                    f"All operators after the first must be single input operators: step {i} "
                    f"is {name!r}"
                )
            elif i > 0 and _role_of_name(_op_name(steps[i - 1])) == "sink":
                problem = (
                    f"only the last step of a sequence can be a sink: step {i - 1} "
                    f"({_op_name(steps[i - 1])!r}) comes before step {i}"
                )
            if problem:
                self.error(problem, step_path, op_id)
                self.op_paths.setdefault(op_id, step_path)
                self.broken.add(op_id)
                previous = -1  # do not report the broken link again
                continue
            op = self.read_operator(
                step, step_path, in_sequence=True, op_id=op_id, input_id=previous
            )
            if op is not None:
                ops.append(op)
            previous = op_id
        return ops

    def read_operator(
        self,
        item: Any,
        path: JsonPath,
        *,
        in_sequence: bool,
        op_id: int | None = None,
        input_id: int | None = None,
    ) -> Operator | None:
        if not isinstance(item, Mapping):
            self.error(f"an operator must be a JSON object, not {_kind(item)}", path)
            return None
        if not in_sequence:
            op_id = _as_int(item.get("@id")) if "@id" in item else None
            if op_id is None:
                op_id = self.new_id()
            else:
                self.explicit.add(op_id)
        assert op_id is not None
        self.op_paths.setdefault(op_id, path)
        if path in self.mixed:
            self.stray(path, op_id)
            return None
        op = self._build(item, path, op_id, in_sequence, input_id)
        if op is None:
            self.broken.add(op_id)
        else:
            self.object_paths[id(op)] = path
        return op

    def _build(
        self,
        item: Mapping[str, Any],
        path: JsonPath,
        op_id: int,
        in_sequence: bool,
        input_id: int | None,
    ) -> Operator | None:
        name = item.get("op")
        if name is None:
            self.error("operator has no 'op' property (the operator name)", path, op_id)
            return None
        if not isinstance(name, str):
            self.error(f"'op' must be a string, not {_kind(name)}", (*path, "op"), op_id)
            return None
        props = _Props(self, item, path, op_id, in_sequence, input_id)
        cls = BUILTIN_OPERATORS.get(name)
        if cls is None:
            plugin = plugins.registered_operator(name)
            if plugin is not None:
                return props.custom(name)
            names = sorted(BUILTIN_OPERATORS) + ["sequence"] + plugins.operator_names()
            self.error(f"unknown operator {name!r}{_suggest(name, names)}", (*path, "op"), op_id)
            return None
        if self.dialect == "drill" and name in OPERATORS_2013:
            self.error(
                f"operator {name!r} exists only in 2013 plans (Drill removed it); "
                f"{_REPLACEMENT.get(name, '')}".rstrip("; "),
                (*path, "op"),
                op_id,
            )
            return None
        if self.dialect == "2013" and name == "values":
            cls = BUILTIN_OPERATORS["constant"]  # today's spelling of 2013's constant (to_json)
        elif self.dialect == "2013" and name in OPERATORS_TODAY:
            self.error(
                f"operator {name!r} is not in the 2013 dialect this plan uses "
                f"(detected from its sequence/constant/segment/... or scan ref)",
                (*path, "op"),
                op_id,
            )
            return None
        try:
            return read_operator(cls, props)
        except _Stop:
            return None
