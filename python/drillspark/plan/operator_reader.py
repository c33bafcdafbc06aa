"""Building one operator from its JSON object: property readers with Jackson-like coercions
and one public reader per operator (`read_scan`, ...; plan/registry.py pairs each with its
class). Problems are recorded on the plan reader (parser.py)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from drillspark.plan.expr_parser import ExpressionError, parse_expression
from drillspark.plan.expressions import Expr, FieldPath
from drillspark.plan.operators import (
    BUILTIN_OPERATORS,
    JOIN_TYPES,
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
    LateralJoin,
    Limit,
    NamedExpression,
    Order,
    Ordering,
    Project,
    RunningAggregate,
    Scan,
    Segment,
    SemiJoin,
    SetOperator,
    Store,
    Transform,
    Unnest,
    Values,
    Window,
    WindowFrame,
    plugin_role,
)
from drillspark.plan.relaxed_json import JsonPath, path_text

if TYPE_CHECKING:
    from drillspark.plan.parser import _PlanReader

_MISSING = object()
C = TypeVar("C", Values, Constant)
J = TypeVar("J", bound=Join)
S = TypeVar("S", bound=SetOperator)

# Keys old plan files use where the current format has another.
_PROPERTY_HINTS = {
    ("scan", "files"): '; the files go in \'selection\' ({"format": ..., "files": [...]})',
    ("scan", "ref"): " in today's plans (a 2013 plan's scan ref nests records under a name)",
    ("segment", "name"): "; the segment key name goes in 'ref'",
    ("store", "partition"): " in today's plans (only 2013 stores had it)",
}

REPLACEMENT = {
    "constant": "today's plans use 'values'",
    "segment": "today's plans use 'groupingaggregate'",
    "collapsingaggregate": "today's plans use 'groupingaggregate'",
    "windowframe": "today's plans use 'window'",
}


class Stop(Exception):
    """An operator could not be built; its errors are already recorded."""


def op_name(item: Any) -> Any:
    return item.get("op") if isinstance(item, Mapping) else None


def role_of_name(name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    cls = BUILTIN_OPERATORS.get(name)
    return cls.ROLE if cls else plugin_role(name)


class OperatorProps:
    """Reads one operator's properties, records problems, and reports unread (unknown) keys."""

    def __init__(
        self,
        reader: _PlanReader,
        item: Mapping[str, Any],
        path: JsonPath,
        op_id: int,
        in_sequence: bool,
        input_id: int | None,
    ):
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

    def get(
        self,
        key: str,
        kind: Callable[[Any, JsonPath], Any],
        *,
        required: bool = False,
        aliases: tuple[str, ...] = (),
        default: Any = None,
        what: str = "",
    ) -> Any:
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
            if k in ("input", "inputs", "left", "right"):
                self.err(self.input_shape_message(k), (k,), at_key=True)
                continue
            hint = suggest(k, known) or _PROPERTY_HINTS.get((str(self.op), k), "")
            self.err(f"unknown property {k!r} of {self.op}{hint}", (k,), at_key=True)
        if self.failed:
            raise Stop

    def input_shape_message(self, key: str) -> str:
        """Why `key` does not fit this operator's class (source / single / multi / sink)."""
        role = role_of_name(self.op)
        if role == "source":
            return f"{self.op} is a source operator: it reads no input, so {key!r} is not allowed"
        if self.op == "join":
            return f"join reads exactly two inputs, given as 'left' and 'right', not {key!r}"
        if role == "multi":
            return f"{self.op} reads two or more inputs, given as 'inputs' (a list of @ids), not {key!r}"
        return f"{self.op} reads exactly one input, given as 'input' (one @id), not {key!r}"

    def common(self) -> dict[str, Any]:
        memo = self.item.get("memo")
        self.used.add("memo")
        if memo is not None and not isinstance(memo, str):
            self.err(f"memo must be a string, not {kind_of(memo)}", ("memo",))
        return {"id": self.id, "memo": memo}

    # --- value kinds -------------------------------------------------------------------------

    def int_(self, v: Any, p: JsonPath) -> int | None:
        n = as_int(v)
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
        self.err(f"{p[-1]} must be a string, not {kind_of(v)}", p)
        return None

    def json(self, v: Any, p: JsonPath) -> Any:
        return v

    def expr(self, v: Any, p: JsonPath) -> Expr | None:
        if not isinstance(v, str):
            self.err(f"{p[-1]} must be an expression string, not {kind_of(v)}", p)
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

    def schema_path(self, v: Any, p: JsonPath) -> FieldPath | None:
        """A SchemaPath (dots and [n] are parsed, unlike a ref)."""
        if not isinstance(v, str):
            self.err(f"{p[-1]} must be a field path string, not {kind_of(v)}", p)
            return None
        try:
            e = parse_expression(v, self.r.dialect)
        except ExpressionError as err:
            self.r.expr_error(err, (*self.path, *p), self.id)
            self.failed = True
            return None
        if not isinstance(e, FieldPath):
            self.err(f"{p[-1]} must be a field path like a.b[0], not the expression {v!r}", p)
            return None
        return e

    def list_of(self, kind: Callable[[Any, JsonPath], Any]) -> Callable[[Any, JsonPath], Any]:
        def read(v: Any, p: JsonPath) -> tuple[Any, ...] | None:
            if not isinstance(v, list):
                self.err(f"{p[-1]} must be a list, not {kind_of(v)}", p)
                return None
            return tuple(kind(x, (*p, i)) for i, x in enumerate(v))

        return read

    def obj(
        self, v: Any, p: JsonPath, keys: dict[str, tuple[Callable, bool]]
    ) -> dict[str, Any] | None:
        if not isinstance(v, Mapping):
            self.err(f"{_where(p)} must be an object, not {kind_of(v)}", p)
            return None
        out: dict[str, Any] = {}
        for k in v:
            if k not in keys:
                self.err(
                    f"unknown property {k!r} in {_where(p)}{suggest(k, list(keys))}",
                    (*p, k),
                    at_key=True,
                )
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
        keys: dict[str, tuple[Callable, bool]] = {
            "order": (self.str_, False),
            "expr": (self.expr, True),
        }
        keys["nullDirection"] = (self.str_, False)
        if self.r.dialect == "2013":  # 2013 plans written by to_json use today's nullDirection
            keys["nullCollation"] = (self.str_, False)
        o = self.obj(v, p, keys)
        if (
            o is not None
            and o.get("nullCollation") is not None
            and o.get("nullDirection") is not None
        ):
            self.err(
                "both 'nullCollation' and 'nullDirection' given; use one",
                (*p, "nullDirection"),
                at_key=True,
            )
            return None
        if o is None or o["expr"] is None:
            return None
        direction = "ASC"
        if o["order"] is not None:
            d = o["order"].upper()
            direction = {
                "ASC": "ASC",
                "ASCENDING": "ASC",
                "DESC": "DESC",
                "DESCENDING": "DESC",
            }.get(d, "")
            if not direction:
                self.err(f"order must be ASC or DESC, not {o['order']!r}", (*p, "order"))
                return None
        if self.r.dialect == "2013" and o["nullDirection"] is None:
            nc = (o["nullCollation"] or "first").upper().removeprefix("NULLS_")
            if nc not in ("FIRST", "LAST"):
                self.err(
                    f"nullCollation must be first or last, not {o['nullCollation']!r}",
                    (*p, "nullCollation"),
                )
                return None
            return Ordering(o["expr"], direction, nc)  # type: ignore[arg-type]
        nd = (o["nullDirection"] or "UNSPECIFIED").upper()
        if nd not in ("FIRST", "LAST", "UNSPECIFIED"):
            self.err(
                f"nullDirection must be FIRST, LAST or UNSPECIFIED, not {o['nullDirection']!r}",
                (*p, "nullDirection"),
            )
            return None
        return Ordering(o["expr"], direction, nd)  # type: ignore[arg-type]

    def op_ref(self, v: Any, p: JsonPath) -> int | None:
        n = as_int(v)
        if n is None:
            self.err(f"{_where(p)} must be an operator @id, not {v!r}", p)
        return n

    # --- user operators ---------------------------------------------------------------------

    def custom(self, name: str) -> CustomOperator | None:
        common = self.common()
        role = plugin_role(name)
        given = [k for k in ("input", "inputs") if self.item.get(k) is not None]
        self.used.update(("input", "inputs"))
        single = True
        inputs: tuple[int, ...] = ()
        if self.in_sequence:
            # the sequence connects its steps (a written 'input' is reported by the sequence)
            if "inputs" in given:
                self.err(self.input_shape_message("inputs"), ("inputs",), at_key=True)
            inputs = (self.input_id,) if self.input_id is not None else ()
        elif role == "source" and given:
            for k in given:
                self.err(self.input_shape_message(k), (k,), at_key=True)
        elif len(given) == 2:
            use = (
                "it reads exactly one input: keep 'input' (one @id)"
                if role == "single"
                else "use 'input' for one @id or 'inputs' for a list"
            )
            self.err(f"both 'input' and 'inputs' given to {name}; {use}", ("inputs",), at_key=True)
        elif role == "single" and given == ["inputs"]:
            self.err(self.input_shape_message("inputs"), ("inputs",), at_key=True)
        elif role == "single" and not given:
            self.err(
                f"{name}: missing property 'input' (the @id of the operator it reads; "
                f"{name} is a single-input operator)"
            )
        elif given == ["inputs"]:
            single = False
            inputs = tuple(
                x for x in self.get("inputs", self.list_of(self.op_ref)) or () if x is not None
            )
        elif given == ["input"]:
            inputs = (self.get("input", self.op_ref),)
        properties = {
            k: v for k, v in self.item.items() if k not in ("op", "@id", "memo", "input", "inputs")
        }
        if self.failed:
            return None
        return CustomOperator(
            **common, op_name=name, inputs=inputs, properties=properties, single_input=single
        )


# --- one builder per operator ---------------------------------------------------------------------


def read_scan(p: OperatorProps) -> Scan:
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


def read_content(cls: type[C]) -> Callable[[OperatorProps], C]:
    """The reader of `values` or 2013's `constant` (the same JSON)."""

    def read(p: OperatorProps) -> C:
        return _content(p, cls)

    return read


def _content(p: OperatorProps, cls: type[C]) -> C:
    common = p.common()
    content = p.get(
        "content",
        p.json,
        required=True,
        what=f" (content attribute is required for source operator '{p.op}')",
    )
    if content is not None and (
        not isinstance(content, list) or not all(isinstance(r, Mapping) for r in content)
    ):
        p.err(
            f"content must be a JSON array of records (objects), not {kind_of(content)}",
            ("content",),
        )
    p.finish()
    return cls(**common, content=content)


def read_join(p: OperatorProps) -> Join:
    return _join(p, Join)


def read_semi_join(p: OperatorProps) -> SemiJoin:
    return _join(p, SemiJoin)


def _join(p: OperatorProps, cls: type[J]) -> J:
    common = p.common()
    left = p.get("left", p.op_ref, required=True, what=" (the @id of the left input)")
    right = p.get("right", p.op_ref, required=True, what=" (the @id of the right input)")
    type_raw = p.get("type", p.str_, required=True, what=" (inner, left, right or full/outer)")
    join_type = None
    if type_raw is not None:
        join_type = {"OUTER": "FULL"}.get(type_raw.upper(), type_raw.upper())
        if cls is SemiJoin:
            if join_type not in ("INNER", "ANTI", "NOT_IN"):
                p.err(f"semi-join type must be inner, anti or not_in, not {type_raw!r}", ("type",))
        elif join_type not in JOIN_TYPES:
            p.err(
                f"join type must be one of inner, left, right, full (or 2013's outer), not {type_raw!r}",
                ("type",),
            )

    def condition(v: Any, path: JsonPath) -> JoinCondition | None:
        o = p.obj(
            v,
            path,
            {"relationship": (p.str_, True), "left": (p.expr, True), "right": (p.expr, True)},
        )
        if o is None or None in o.values():
            return None
        if o["relationship"] not in RELATIONSHIPS:
            p.err(
                f"relationship must be one of {' '.join(RELATIONSHIPS)}, not {o['relationship']!r}",
                (*path, "relationship"),
            )
            return None
        return JoinCondition(o["relationship"], o["left"], o["right"])

    conditions = p.get("conditions", p.list_of(condition), default=())
    duplicates = str(p.get("duplicates", p.str_, default="merge")).lower()
    if duplicates not in ("merge", "rename"):
        p.err(f"duplicates must be merge or rename, not {duplicates!r}", ("duplicates",))
        duplicates = "merge"
    general = p.get("condition", p.expr, default=None)
    p.finish()
    return cls(
        **common,
        left=left,
        right=right,
        type=join_type,  # type: ignore[arg-type]
        conditions=conditions,
        duplicates=duplicates,  # type: ignore[arg-type]
        condition=general,
    )


def read_unnest(p: OperatorProps) -> Unnest:
    common = p.common()
    column = p.get("column", p.schema_path, required=True, what=" (the array to unnest)")
    p.finish()
    return Unnest(**common, column=column)


def read_lateral(p: OperatorProps) -> LateralJoin:
    common = p.common()
    left = p.get("left", p.op_ref, required=True, what=" (the @id of the left input)")
    right = p.get("right", p.op_ref, required=True, what=" (the @id of the right input)")
    type_raw = p.get("type", p.str_, default="inner")
    join_type = str(type_raw).upper()
    if join_type not in ("INNER", "LEFT"):
        p.err(f"lateral-join type must be inner or left, not {type_raw!r}", ("type",))
        join_type = "INNER"
    p.finish()
    return LateralJoin(**common, left=left, right=right, type=join_type)  # type: ignore[arg-type]


def read_set(cls: type[S]) -> Callable[[OperatorProps], S]:
    """The reader of one set operator (union, Except, intersect share their JSON)."""

    def build(p: OperatorProps) -> S:
        common = p.common()
        inputs = p.get(
            "inputs", p.list_of(p.op_ref), required=True, what=" (the list of input @ids)"
        )
        distinct = p.get("distinct", p.bool_, default=False)
        p.finish()
        return cls(**common, inputs=inputs, distinct=distinct)

    return build


def read_store(p: OperatorProps) -> Store:
    common = p.common()
    inp = _input(p)
    se = p.get(
        "storageengine",
        p.str_,
        aliases=("storageEngine",),
        required=p.r.dialect == "2013",
        what=" (the storage engine name)",
    )
    target = p.get("target", p.json)
    k, part = p.raw("partition")
    if part is not _MISSING and part is not None and p.r.dialect != "2013":
        p.used.discard("partition")
    p.finish()
    return Store(
        **common,
        input=inp,
        storage_engine=se,
        target=target,
        partition=None if part is _MISSING else part,
    )


def _input(p: OperatorProps) -> int:
    if p.in_sequence:
        p.used.add("input")
        return p.input_id if p.input_id is not None else -1
    v = p.get("input", p.op_ref, required=True, what=" (the @id of the operator it reads)")
    return v if v is not None else -1


def _named_list(
    p: OperatorProps, key: str, required: bool = True, nonempty: str = ""
) -> tuple[NamedExpression, ...]:
    items = p.get(key, p.list_of(p.named), required=required, default=())
    if items is not None and not items and nonempty and key in p.item:
        p.err(nonempty, (key,))
    return items or ()


def read_project(p: OperatorProps) -> Project:
    common = p.common()
    inp = _input(p)
    projections = _named_list(
        p, "projections", nonempty="Project did not provide any projection selections."
    )
    p.finish()
    return Project(**common, input=inp, projections=projections)


def read_filter(p: OperatorProps) -> Filter:
    common = p.common()
    inp = _input(p)
    expr = p.get("expr", p.expr, required=True, what=" (the condition)")
    p.finish()
    return Filter(**common, input=inp, expr=expr)


def read_transform(p: OperatorProps) -> Transform:
    common = p.common()
    inp = _input(p)
    transforms = _named_list(p, "transforms")
    p.finish()
    return Transform(**common, input=inp, transforms=transforms)


def read_order(p: OperatorProps) -> Order:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    orderings = p.get("orderings", p.list_of(p.ordering), required=True, default=())
    p.finish()
    return Order(**common, input=inp, within=within, orderings=orderings)


def read_limit(p: OperatorProps) -> Limit:
    common = p.common()
    inp = _input(p)
    first = p.get("first", p.int_)
    last = p.get("last", p.int_)
    p.finish()
    return Limit(**common, input=inp, first=first, last=last)


def read_flatten(p: OperatorProps) -> Flatten:
    common = p.common()
    inp = _input(p)
    name = p.get(
        "name",
        p.ref,
        aliases=("ref",),
        required=True,
        what=" (where each element goes; 2013 also 'ref')",
    )
    expr = p.get("expr", p.expr, required=True, what=" (the array to flatten)")
    drop = p.get("drop", p.bool_, default=False)
    p.finish()
    return Flatten(**common, input=inp, name=name, expr=expr, drop=drop)


def read_segment(p: OperatorProps) -> Segment:
    common = p.common()
    inp = _input(p)
    ref = p.get("ref", p.ref, required=True, what=" (the segment key name)")
    exprs = p.get("exprs", p.list_of(p.expr), required=True, default=())
    p.finish()
    return Segment(**common, input=inp, ref=ref, exprs=exprs)


def read_windowframe(p: OperatorProps) -> WindowFrame:
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


def read_collapsing(p: OperatorProps) -> CollapsingAggregate:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    target = p.get("target", p.ref)
    carryovers = p.get("carryovers", p.list_of(p.ref), default=())
    aggregations = _named_list(p, "aggregations")
    p.finish()
    return CollapsingAggregate(
        **common,
        input=inp,
        within=within,
        target=target,
        carryovers=carryovers,
        aggregations=aggregations,
    )


def read_running(p: OperatorProps) -> RunningAggregate:
    common = p.common()
    inp = _input(p)
    within = p.get("within", p.ref)
    aggregations = _named_list(p, "aggregations")
    p.finish()
    return RunningAggregate(**common, input=inp, within=within, aggregations=aggregations)


def read_grouping(p: OperatorProps) -> GroupingAggregate:
    common = p.common()
    inp = _input(p)
    keys = _named_list(p, "keys")
    exprs = _named_list(p, "exprs")
    p.finish()
    return GroupingAggregate(**common, input=inp, keys=keys, exprs=exprs)


def read_window(p: OperatorProps) -> Window:
    common = p.common()
    inp = _input(p)
    withins = _named_list(p, "withins", required=False)
    aggregations = _named_list(p, "aggregations")
    orderings = p.get("orderings", p.list_of(p.ordering), default=())
    start = p.get("start", p.int_)
    end = p.get("end", p.int_)
    rows = p.get("frameUnitsRows", p.bool_)
    p.finish()
    return Window(
        **common,
        input=inp,
        withins=withins,
        aggregations=aggregations,
        orderings=orderings,
        start=start,
        end=end,
        frame_units_rows=rows,
    )


# --- small helpers ---------------------------------------------------------------------------------


def as_int(v: Any) -> int | None:
    """Jackson's int coercion: integers and strings of digits ("1")."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        s = v.strip()
        digits = s.removeprefix("-")
        # ASCII only: str.isdigit() is also true of '²', which int() refuses
        if digits.isascii() and digits.isdigit() and len(digits) <= 4300:
            return int(s)
    return None


def kind_of(v: Any) -> str:
    if v is None:
        return "null"
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(v), type(v).__name__)


def _where(p: JsonPath) -> str:
    return path_text(p).removeprefix("$.")


def suggest(word: str, candidates: Any) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    if not close:
        close = [c for c in candidates if c.lower() == word.lower()]
    return f"; did you mean {close[0]!r}?" if close else ""
