"""Reading a logical plan (both dialects) from text, a file or a dict into a LogicalPlan.

Problems that stop an operator from being built (unknown operator, missing, unknown or
wrong-typed property, sequence rules, expression syntax) are collected here; graph and
meaning checks live in validate.py. Everything is reported together in one PlanError.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from drillspark import plugins
from drillspark.plan.errors import PlanError, PlanIssue
from drillspark.plan.expr_parser import ExpressionError, parse_expression
from drillspark.plan.expressions import Expr, FieldPath
from drillspark.plan.model import LogicalPlan, PlanDialect, SourceInfo, StorageConfig
from drillspark.plan.operators import (
    BUILTIN_OPERATORS,
    JOIN_TYPES,
    OPERATORS_2013,
    OPERATORS_TODAY,
    RELATIONSHIPS,
    CollapsingAggregate,
    Constant,
    CustomOperator,
    Filter,
    Flatten,
    FrameRef,
    GroupingAggregate,
    Join,
    JoinCondition,
    Limit,
    NamedExpression,
    Operator,
    Order,
    Ordering,
    Project,
    RunningAggregate,
    Scan,
    Segment,
    SetOperator,
    Store,
    Transform,
    Values,
    Window,
    WindowFrame,
)
from drillspark.plan.relaxed_json import Document, JsonPath, JsonSyntaxError, loads, path_text

# head.options key that records the dialect in plans written by to_json (refs and
# expressions of 2013 plans read differently).
DIALECT_OPTION = "drillspark.dialect"
PLAN_TYPES = ("APACHE_DRILL_LOGICAL", "APACHE_DRILL_PHYSICAL")
_MISSING = object()


def parse(
    source: str | os.PathLike | Mapping[str, Any],
    *,
    dialect: PlanDialect | None = None,
    validate: bool = True,
    file: str | None = None,
) -> LogicalPlan:
    """Read a plan from JSON text (a str starting with `{`), a file path, or a dict.

    `dialect` None detects it. Raises PlanError listing every problem (with operator @id,
    JSON path, and line/column for text input); `validate=False` skips the graph checks of
    validate() but not the problems that prevent building the operators.
    """
    doc: Document | None = None
    if isinstance(source, Mapping):
        value: Any = source
    else:
        if isinstance(source, os.PathLike) or not str(source).lstrip().startswith(("{", "[", "//", "/*")):
            path = Path(source)
            file = file or str(path)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise PlanError([PlanIssue(f"cannot read plan file: {e.strerror or e}", file=file)]) from None
        else:
            text = str(source)
        try:
            doc = loads(text)
        except JsonSyntaxError as e:
            raise PlanError(
                [PlanIssue(f"JSON syntax error: {e.reason}", line=e.line, column=e.column, file=file)]
            ) from None
        value = doc.value
    reader = _PlanReader(value, doc, file, dialect)
    plan = reader.read()
    errors = reader.errors
    if plan is not None and validate:
        from drillspark.plan.validate import collect_errors

        errors = errors + collect_errors(plan, frozenset(reader.broken))
    if errors:
        raise PlanError(_sorted(errors))
    assert plan is not None
    return plan


def _sorted(errors: list[PlanIssue]) -> list[PlanIssue]:
    # Source order when positions are known; stable otherwise.
    return sorted(errors, key=lambda e: (e.line is None, e.line or 0, e.column or 0))


def detect_dialect(value: Any) -> PlanDialect:
    """2013 if the plan uses anything only the seed-era format has: a `sequence`, `constant`,
    `segment`, `windowframe` or `collapsingaggregate`, a list-shaped `storage`, a scan `ref`,
    an ordering `nullCollation`, a join type "outer", a store `partition`, or the dialect
    option written by to_json."""
    if not isinstance(value, Mapping):
        return "drill"
    head = value.get("head")
    if isinstance(head, Mapping) and isinstance(head.get("options"), Mapping):
        marked = head["options"].get(DIALECT_OPTION)
        if marked in ("drill", "2013"):
            return marked
    if "query" not in value and "op" in value:
        value = {"query": [value]}
    if isinstance(value.get("storage"), list):
        return "2013"

    def ops(items: Any):
        for item in items if isinstance(items, list) else ():
            if isinstance(item, Mapping):
                yield item
                yield from ops(item.get("do"))

    for op in ops(value.get("query")):
        name = op.get("op")
        if name in OPERATORS_2013:
            return "2013"
        if name == "scan" and op.get("ref") is not None:
            return "2013"
        if name == "store" and op.get("partition") is not None:
            return "2013"
        if name == "join" and str(op.get("type", "")).lower() == "outer":
            return "2013"
        if name == "order" and any(
            isinstance(o, Mapping) and "nullCollation" in o for o in op.get("orderings") or ()
        ):
            return "2013"
    return "drill"


class _PlanReader:
    def __init__(self, value: Any, doc: Document | None, file: str | None, dialect: PlanDialect | None):
        self.value = value
        self.doc = doc
        self.file = file
        self.dialect: PlanDialect = dialect or detect_dialect(value)
        if self.dialect not in ("drill", "2013"):
            raise ValueError(f"unknown plan dialect {dialect!r}; use 'drill' or '2013'")
        self.errors: list[PlanIssue] = []
        self.op_paths: dict[int, JsonPath] = {}
        self.explicit: set[int] = set()
        self.broken: set[int] = set()
        self.object_paths: dict[int, JsonPath] = {}

    # --- error helpers ---------------------------------------------------------------------------

    def error(self, message: str, path: JsonPath, op_id: int | None = None, *, at_key: bool = False) -> None:
        loc = None
        if self.doc is not None:
            loc = self.doc.key_positions.get(path) if at_key else None
            loc = loc or self.doc.location(path)
        self.errors.append(
            PlanIssue(
                message, op_id, path_text(path), loc.line if loc else None,
                loc.column if loc else None, self.file,
            )
        )

    def expr_error(self, e: ExpressionError, path: JsonPath, op_id: int | None) -> None:
        loc = self.doc.location_in_string(path, e.offset) if self.doc else None
        message = f"expression syntax error at column {e.column}: {e.reason} in {e.text!r}"
        if loc is None:
            self.error(message, path, op_id)
        else:
            self.errors.append(PlanIssue(message, op_id, path_text(path), loc.line, loc.column, self.file))

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
                    (key,), at_key=True,
                )
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
            tuple(ops), storage, head, self.dialect,
            SourceInfo(self.doc, self.file, dict(self.op_paths), frozenset(self.explicit),
                       dict(self.object_paths)),
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
                f"head.type {t!r} is not a plan type; expected APACHE_DRILL_LOGICAL", ("head", "type")
            )
        v = head.get("version")
        if v is not None and _as_int(v) is None:
            self.error(f"head.version must be an integer, not {v!r}", ("head", "version"))
        options = head.get("options")
        if isinstance(options, Mapping) and DIALECT_OPTION in options:
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
                        "storage engine config in the list form needs a \"name\" "
                        "(today's plans use an object keyed by engine name)",
                        ("storage", i),
                    )
                    continue
                rest = {k: v for k, v in cfg.items() if k != "name"}
                items.append((name, rest, ("storage", i)))
        else:
            self.error(f"'storage' must be an object of named engine configs, not {_kind(storage)}", ("storage",))
            return out
        for name, cfg, path in items:
            if not isinstance(cfg, Mapping):
                self.error(f"storage engine {name!r} config must be an object, not {_kind(cfg)}", path)
                continue
            t = cfg.get("type")
            if not isinstance(t, str):
                self.error(f"storage engine {name!r} has no \"type\"", path)
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
            if isinstance(item, Mapping) and item.get("op") == "sequence":
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
                "write the operators with explicit inputs", (*path, "op"), at_key=True,
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
                    (*path, key), seq_id, at_key=True,
                )
        steps = seq.get("do")
        if not isinstance(steps, list) or not steps:
            what = "missing property 'do'" if steps is None else "'do' must be a non-empty list of operators"
            self.error(f"sequence: {what} (A sequence must include at least one operator.)", path, seq_id)
            return []
        seq_input = _as_int(seq["input"]) if seq.get("input") is not None else None
        if seq.get("input") is not None and seq_input is None:
            self.error(f"input must be an operator @id, not {seq['input']!r}", (*path, "input"), seq_id)
        ops: list[Operator] = []
        previous: int | None = seq_input
        for i, step in enumerate(steps):
            step_path = (*path, "do", i)
            last = i == len(steps) - 1
            op_id = seq_id if (last and seq_id is not None) else self.new_id()
            if not isinstance(step, Mapping):
                self.error(f"a sequence step must be an operator object, not {_kind(step)}", step_path, op_id)
                previous = -1
                continue
            name = step.get("op")
            for dagger in ("@id", "input"):
                if dagger in step:
                    self.error(
                        f"'{dagger}' is not allowed inside a sequence (the sequence "
                        f"{'numbers' if dagger == '@id' else 'connects'} its steps)",
                        (*step_path, dagger), op_id, at_key=True,
                    )
            problem = None
            role = _role_of_name(name)
            if name == "sequence":
                problem = "a sequence cannot contain a sequence"
            elif i == 0 and previous is None and role not in ("source", None):
                problem = (f"the first step of a sequence without 'input' must be a source "
                           f"operator (scan, constant), not {name!r}")
            elif i == 0 and previous is not None and role == "source":
                problem = (f"the sequence has an input, so its first step must be a single-input "
                           f"operator, not the source {name!r}")
            elif i > 0 and role in ("source", "multi"):
                problem = (f"All operators after the first must be single input operators: step {i} "
                           f"is {name!r}")
            elif i > 0 and _role_of_name(_op_name(steps[i - 1])) == "sink":
                problem = (f"only the last step of a sequence can be a sink: step {i - 1} "
                           f"({_op_name(steps[i - 1])!r}) comes before step {i}")
            if problem:
                self.error(problem, step_path, op_id)
                self.op_paths.setdefault(op_id, step_path)
                self.broken.add(op_id)
                previous = -1  # do not report the broken link again
                continue
            op = self.read_operator(step, step_path, in_sequence=True, op_id=op_id, input_id=previous)
            if op is not None:
                ops.append(op)
            previous = op_id
        return ops

    def read_operator(
        self, item: Any, path: JsonPath, *, in_sequence: bool, op_id: int | None = None,
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
        op = self._build(item, path, op_id, in_sequence, input_id)
        if op is None:
            self.broken.add(op_id)
        else:
            self.object_paths[id(op)] = path
        return op

    def _build(self, item: Mapping[str, Any], path: JsonPath, op_id: int, in_sequence: bool,
               input_id: int | None) -> Operator | None:
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
                f"{_REPLACEMENT.get(name, '')}".rstrip("; "), (*path, "op"), op_id,
            )
            return None
        if self.dialect == "2013" and name in OPERATORS_TODAY:
            self.error(
                f"operator {name!r} is not in the 2013 dialect this plan uses "
                f"(detected from its sequence/constant/segment/... or scan ref)", (*path, "op"), op_id,
            )
            return None
        try:
            return _BUILDERS[cls](props)
        except _Stop:
            return None


# Keys old plan files use where the current format has another.
_PROPERTY_HINTS = {
    ("scan", "files"): "; the files go in 'selection' ({\"format\": ..., \"files\": [...]})",
    ("scan", "ref"): " in today's plans (a 2013 plan's scan ref nests records under a name)",
    ("segment", "name"): "; the segment key name goes in 'ref'",
    ("store", "partition"): " in today's plans (only 2013 stores had it)",
}

_REPLACEMENT = {
    "constant": "today's plans use 'values'",
    "segment": "today's plans use 'groupingaggregate'",
    "collapsingaggregate": "today's plans use 'groupingaggregate'",
    "windowframe": "today's plans use 'window'",
}


class _Stop(Exception):
    """An operator could not be built; its errors are already recorded."""


def _op_name(item: Any) -> Any:
    return item.get("op") if isinstance(item, Mapping) else None


def _role_of_name(name: Any) -> str | None:
    cls = BUILTIN_OPERATORS.get(name) if isinstance(name, str) else None
    return cls.ROLE if cls else None


class _Props:
    """Reads one operator's properties, records problems, and reports unread (unknown) keys."""

    def __init__(self, reader: _PlanReader, item: Mapping[str, Any], path: JsonPath, op_id: int,
                 in_sequence: bool, input_id: int | None):
        self.r = reader
        self.item = item
        self.path = path
        self.id = op_id
        self.in_sequence = in_sequence
        self.input_id = input_id
        self.used = {"op", "@id"}
        self.allowed: list[str] = []
        self.failed = False
        self.op = item.get("op")

    def err(self, message: str, key_path: JsonPath = (), *, at_key: bool = False) -> None:
        self.r.error(message, (*self.path, *key_path), self.id, at_key=at_key)
        self.failed = True

    def raw(self, key: str, *aliases: str) -> tuple[str, Any]:
        self.allowed.extend((key, *aliases))
        found = [k for k in (key, *aliases) if k in self.item]
        if len(found) > 1:
            self.err(f"both {found[0]!r} and {found[1]!r} given; use one", (found[1],), at_key=True)
        for k in found:
            self.used.add(k)
        if not found:
            return key, _MISSING
        return found[0], self.item[found[0]]

    def get(self, key: str, kind: Callable[[Any, JsonPath], Any], *, required: bool = False,
            aliases: tuple[str, ...] = (), default: Any = None, what: str = "") -> Any:
        k, v = self.raw(key, *aliases)
        if v is _MISSING or v is None:
            if required:
                self.err(f"{self.op}: missing property {key!r}{what}")
            return default
        return kind(v, (k,))

    def finish(self, allowed_2013: tuple[str, ...] = ()) -> None:
        extra = [k for k in self.item if k not in self.used]
        known = self.allowed
        for k in extra:
            if k in allowed_2013 and self.r.dialect == "2013":
                continue
            if k == "memo":
                continue
            hint = _suggest(k, known) or _PROPERTY_HINTS.get((self.op, k), "")
            self.err(f"unknown property {k!r} of {self.op}{hint}", (k,), at_key=True)
        if self.failed:
            raise _Stop

    def common(self) -> dict[str, Any]:
        memo = self.item.get("memo")
        self.used.add("memo")
        if memo is not None and not isinstance(memo, str):
            self.err(f"memo must be a string, not {_kind(memo)}", ("memo",))
        return {"id": self.id, "memo": memo}

    # --- value kinds -------------------------------------------------------------------------

    def int_(self, v: Any, p: JsonPath) -> int | None:
        n = _as_int(v)
        if n is None:
            self.err(f"{p[-1]} must be an integer, not {v!r}", p)
        return n

    def bool_(self, v: Any, p: JsonPath) -> bool | None:
        if isinstance(v, bool):
            return v
        if isinstance(v, int) and v in (0, 1):  # Jackson coerces 0/1 (2013 plans write drop: 1)
            return bool(v)
        if isinstance(v, str) and v.lower() in ("true", "false"):
            return v.lower() == "true"
        self.err(f"{p[-1]} must be true or false, not {v!r}", p)
        return None

    def str_(self, v: Any, p: JsonPath) -> str | None:
        if isinstance(v, str):
            return v
        self.err(f"{p[-1]} must be a string, not {_kind(v)}", p)
        return None

    def json(self, v: Any, p: JsonPath) -> Any:
        return v

    def expr(self, v: Any, p: JsonPath) -> Expr | None:
        if not isinstance(v, str):
            self.err(f"{p[-1]} must be an expression string, not {_kind(v)}", p)
            return None
        try:
            return parse_expression(v, self.r.dialect)
        except ExpressionError as e:
            self.r.expr_error(e, (*self.path, *p), self.id)
            self.failed = True
            return None

    def ref(self, v: Any, p: JsonPath) -> FieldPath | None:
        if not isinstance(v, str) or not v.strip():
            self.err(f"{p[-1]} must be a field name string, not {v!r}", p)
            return None
        if self.r.dialect == "drill":
            # FieldReference.De: backquotes removed, the whole string is one name.
            return FieldPath.name(v.replace("`", ""))
        try:
            e = parse_expression(v, "2013")
        except ExpressionError as err:
            self.r.expr_error(err, (*self.path, *p), self.id)
            self.failed = True
            return None
        if not isinstance(e, FieldPath):
            self.err(f"{p[-1]} must be a field reference like a.b, not the expression {v!r}", p)
            return None
        return e

    def list_of(self, kind: Callable[[Any, JsonPath], Any]) -> Callable[[Any, JsonPath], Any]:
        def read(v: Any, p: JsonPath) -> tuple[Any, ...] | None:
            if not isinstance(v, list):
                self.err(f"{p[-1]} must be a list, not {_kind(v)}", p)
                return None
            return tuple(kind(x, (*p, i)) for i, x in enumerate(v))

        return read

    def obj(self, v: Any, p: JsonPath, keys: dict[str, tuple[Callable, bool]]) -> dict[str, Any] | None:
        if not isinstance(v, Mapping):
            self.err(f"{_where(p)} must be an object, not {_kind(v)}", p)
            return None
        out: dict[str, Any] = {}
        for k in v:
            if k not in keys:
                self.err(f"unknown property {k!r} in {_where(p)}{_suggest(k, list(keys))}", (*p, k), at_key=True)
        for k, (kind, required) in keys.items():
            if v.get(k) is None:
                if required:
                    self.err(f"{_where(p)}: missing property {k!r}", p)
                out[k] = None
            else:
                out[k] = kind(v[k], (*p, k))
        return out

    def named(self, v: Any, p: JsonPath) -> NamedExpression | None:
        o = self.obj(v, p, {"ref": (self.ref, True), "expr": (self.expr, True)})
        if o is None or o["ref"] is None or o["expr"] is None:
            return None
        return NamedExpression(o["ref"], o["expr"])

    def ordering(self, v: Any, p: JsonPath) -> Ordering | None:
        keys: dict[str, tuple[Callable, bool]] = {"order": (self.str_, False), "expr": (self.expr, True)}
        keys["nullCollation" if self.r.dialect == "2013" else "nullDirection"] = (self.str_, False)
        o = self.obj(v, p, keys)
        if o is None or o["expr"] is None:
            return None
        direction = "ASC"
        if o["order"] is not None:
            d = o["order"].upper()
            direction = {"ASC": "ASC", "ASCENDING": "ASC", "DESC": "DESC", "DESCENDING": "DESC"}.get(d, "")
            if not direction:
                self.err(f"order must be ASC or DESC, not {o['order']!r}", (*p, "order"))
                return None
        if self.r.dialect == "2013":
            nc = (o["nullCollation"] or "first").upper().removeprefix("NULLS_")
            if nc not in ("FIRST", "LAST"):
                self.err(f"nullCollation must be first or last, not {o['nullCollation']!r}", (*p, "nullCollation"))
                return None
            return Ordering(o["expr"], direction, nc)  # type: ignore[arg-type]
        nd = (o["nullDirection"] or "UNSPECIFIED").upper()
        if nd not in ("FIRST", "LAST", "UNSPECIFIED"):
            self.err(f"nullDirection must be FIRST, LAST or UNSPECIFIED, not {o['nullDirection']!r}", (*p, "nullDirection"))
            return None
        return Ordering(o["expr"], direction, nd)  # type: ignore[arg-type]

    def op_ref(self, v: Any, p: JsonPath) -> int | None:
        n = _as_int(v)
        if n is None:
            self.err(f"{_where(p)} must be an operator @id, not {v!r}", p)
        return n

    # --- user operators ---------------------------------------------------------------------

    def custom(self, name: str) -> CustomOperator | None:
        common = self.common()
        single = True
        inputs: tuple[int, ...] = ()
        if self.in_sequence:
            self.used.add("input")
            inputs = (self.input_id,) if self.input_id is not None else ()
        elif self.item.get("inputs") is not None:
            single = False
            inputs = tuple(x for x in self.get("inputs", self.list_of(self.op_ref)) or () if x is not None)
        elif self.item.get("input") is not None:
            inputs = (self.get("input", self.op_ref),)
        else:
            self.used.update(("input", "inputs"))
        properties = {k: v for k, v in self.item.items() if k not in ("op", "@id", "memo", "input", "inputs")}
        if self.failed:
            return None
        return CustomOperator(**common, op_name=name, inputs=inputs, properties=properties, single_input=single)


# --- one builder per operator ---------------------------------------------------------------------


def _scan(p: _Props) -> Operator:
    common = p.common()
    se = p.get("storageengine", p.str_, required=True, what=" (the storage engine name)")
    selection = p.get("selection", p.json)
    k, ref_raw = p.raw("ref")
    ref = None
    if ref_raw is not _MISSING and ref_raw is not None:
        if p.r.dialect == "2013":
            ref = p.ref(ref_raw, ("ref",))
        else:
            p.used.discard("ref")  # today's Scan has no ref: reported as unknown below
    p.finish()
    return Scan(**common, storage_engine=se, selection=selection, ref=ref)


def _content(p: _Props, cls: type) -> Operator:
    common = p.common()
    content = p.get("content", p.json, required=True, what=f" (content attribute is required for source operator '{p.op}')")
    if content is not None and (not isinstance(content, list) or not all(isinstance(r, Mapping) for r in content)):
        p.err(f"content must be a JSON array of records (objects), not {_kind(content)}", ("content",))
    p.finish()
    return cls(**common, content=content)


def _join(p: _Props) -> Operator:
    common = p.common()
    left = p.get("left", p.op_ref, required=True, what=" (the @id of the left input)")
    right = p.get("right", p.op_ref, required=True, what=" (the @id of the right input)")
    type_raw = p.get("type", p.str_, required=True, what=" (inner, left, right or full/outer)")
    join_type = None
    if type_raw is not None:
        join_type = {"OUTER": "FULL"}.get(type_raw.upper(), type_raw.upper())
        if join_type not in JOIN_TYPES:
            p.err(f"join type must be one of inner, left, right, full (or 2013's outer), not {type_raw!r}", ("type",))

    def condition(v: Any, path: JsonPath) -> JoinCondition | None:
        o = p.obj(v, path, {"relationship": (p.str_, True), "left": (p.expr, True), "right": (p.expr, True)})
        if o is None or None in o.values():
            return None
        if o["relationship"] not in RELATIONSHIPS:
            p.err(f"relationship must be one of {' '.join(RELATIONSHIPS)}, not {o['relationship']!r}", (*path, "relationship"))
            return None
        return JoinCondition(o["relationship"], o["left"], o["right"])

    conditions = p.get("conditions", p.list_of(condition), default=())
    p.finish()
    return Join(**common, left=left, right=right, type=join_type, conditions=conditions)  # type: ignore[arg-type]


def _set_op(cls: type[SetOperator]) -> Callable[[_Props], Operator]:
    def build(p: _Props) -> Operator:
        common = p.common()
        inputs = p.get("inputs", p.list_of(p.op_ref), required=True, what=" (the list of input @ids)")
        distinct = p.get("distinct", p.bool_, default=False)
        p.finish()
        return cls(**common, inputs=inputs, distinct=distinct)

    return build


def _store(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    se = p.get(
        "storageengine", p.str_, aliases=("storageEngine",), required=p.r.dialect == "2013",
        what=" (the storage engine name)",
    )
    target = p.get("target", p.json)
    k, part = p.raw("partition")
    if part is not _MISSING and part is not None and p.r.dialect != "2013":
        p.used.discard("partition")
    p.finish()
    return Store(**common, input=inp, storage_engine=se, target=target,
                 partition=None if part is _MISSING else part)


def _input(p: _Props) -> int:
    if p.in_sequence:
        p.used.add("input")
        return p.input_id if p.input_id is not None else -1
    v = p.get("input", p.op_ref, required=True, what=" (the @id of the operator it reads)")
    return v if v is not None else -1


def _named_list(p: _Props, key: str, required: bool = True, nonempty: str = "") -> tuple[NamedExpression, ...]:
    items = p.get(key, p.list_of(p.named), required=required, default=())
    if items is not None and not items and nonempty and key in p.item:
        p.err(nonempty, (key,))
    return items or ()


def _project(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    projections = _named_list(p, "projections", nonempty="Project did not provide any projection selections.")
    p.finish()
    return Project(**common, input=inp, projections=projections)


def _filter(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    expr = p.get("expr", p.expr, required=True, what=" (the condition)")
    p.finish()
    return Filter(**common, input=inp, expr=expr)


def _transform(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    transforms = _named_list(p, "transforms")
    p.finish()
    return Transform(**common, input=inp, transforms=transforms)


def _order(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    orderings = p.get("orderings", p.list_of(p.ordering), required=True, default=())
    p.finish()
    return Order(**common, input=inp, within=within, orderings=orderings)


def _limit(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    first = p.get("first", p.int_)
    last = p.get("last", p.int_)
    p.finish()
    return Limit(**common, input=inp, first=first, last=last)


def _flatten(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    name = p.get("name", p.ref, aliases=("ref",), required=True, what=" (where each element goes; 2013 also 'ref')")
    expr = p.get("expr", p.expr, required=True, what=" (the array to flatten)")
    drop = p.get("drop", p.bool_, default=False)
    p.finish()
    return Flatten(**common, input=inp, name=name, expr=expr, drop=drop)


def _segment(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    ref = p.get("ref", p.ref, required=True, what=" (the segment key name)")
    exprs = p.get("exprs", p.list_of(p.expr), required=True, default=())
    p.finish()
    return Segment(**common, input=inp, ref=ref, exprs=exprs)


def _windowframe(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    start = p.get("start", p.int_)
    end = p.get("end", p.int_)

    def frame_ref(v: Any, path: JsonPath) -> FrameRef | None:
        o = p.obj(v, path, {"segment": (p.ref, True), "position": (p.ref, True)})
        if o is None or None in o.values():
            return None
        return FrameRef(o["segment"], o["position"])

    ref = p.get("ref", frame_ref, required=True, what=" ({segment, position})")
    p.finish()
    return WindowFrame(**common, input=inp, within=within, start=start, end=end, ref=ref)


def _collapsing(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    target = p.get("target", p.ref)
    carryovers = p.get("carryovers", p.list_of(p.ref), default=())
    aggregations = _named_list(p, "aggregations")
    p.finish()
    return CollapsingAggregate(**common, input=inp, within=within, target=target,
                               carryovers=carryovers, aggregations=aggregations)


def _running(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    aggregations = _named_list(p, "aggregations")
    p.finish()
    return RunningAggregate(**common, input=inp, within=within, aggregations=aggregations)


def _grouping(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    keys = _named_list(p, "keys")
    exprs = _named_list(p, "exprs")
    p.finish()
    return GroupingAggregate(**common, input=inp, keys=keys, exprs=exprs)


def _window(p: _Props) -> Operator:
    common = p.common()
    inp = _input(p)
    withins = _named_list(p, "withins", required=False)
    aggregations = _named_list(p, "aggregations")
    orderings = p.get("orderings", p.list_of(p.ordering), default=())
    start = p.get("start", p.int_)
    end = p.get("end", p.int_)
    p.finish()
    return Window(**common, input=inp, withins=withins, aggregations=aggregations,
                  orderings=orderings, start=start, end=end)


_BUILDERS: dict[type, Callable[[_Props], Operator]] = {
    Scan: _scan,
    Values: lambda p: _content(p, Values),
    Constant: lambda p: _content(p, Constant),
    Join: _join,
    Store: _store,
    Project: _project,
    Filter: _filter,
    Transform: _transform,
    Order: _order,
    Limit: _limit,
    Flatten: _flatten,
    Segment: _segment,
    WindowFrame: _windowframe,
    CollapsingAggregate: _collapsing,
    RunningAggregate: _running,
    GroupingAggregate: _grouping,
    Window: _window,
}
for _cls in BUILTIN_OPERATORS.values():
    if issubclass(_cls, SetOperator):
        _BUILDERS[_cls] = _set_op(_cls)


# --- small helpers ---------------------------------------------------------------------------------


def _as_int(v: Any) -> int | None:
    """Jackson's int coercion: integers and strings of digits ("1")."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        s = v.strip()
        if s.lstrip("-").isdigit():
            return int(s)
    return None


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(v), type(v).__name__)


def _where(p: JsonPath) -> str:
    return path_text(p).removeprefix("$.")


def _suggest(word: str, candidates: Any) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    if not close:
        close = [c for c in candidates if c.lower() == word.lower()]
    return f"; did you mean {close[0]!r}?" if close else ""
