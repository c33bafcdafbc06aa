"""Graph and meaning checks of a built LogicalPlan (the parser does the per-property ones).

validate(plan) raises PlanError with all problems; collect_errors(plan) returns them.
Checks: duplicate @id, unknown input id, a sink used as an input, input counts by operator
class, cycles, unknown storage engine, an aggregate nested in an aggregate, limit bounds,
windowframe / window ranges, and the properties of plugin operators
(`validate_properties(props) -> list[str]` on the registered class).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any, TypeVar

from drillspark import plugins
from drillspark.plan.errors import PlanError, PlanIssue
from drillspark.plan.expressions import Expr, FieldPath, FunctionCall
from drillspark.plan.function_kinds import is_aggregate
from drillspark.plan.model import LogicalPlan
from drillspark.plan.operators import (
    SCREEN,
    CollapsingAggregate,
    Constant,
    CustomOperator,
    Except,
    Filter,
    Flatten,
    GroupingAggregate,
    Intersect,
    Join,
    LateralJoin,
    Limit,
    NamedExpression,
    Operator,
    Order,
    Project,
    RunningAggregate,
    Scan,
    Segment,
    SemiJoin,
    SetOperator,
    Store,
    Transform,
    Union,
    Unnest,
    Values,
    Window,
    WindowFrame,
    plugin_role,
    role_of,
)
from drillspark.plan.relaxed_json import JsonPath, path_text


def _refs(op: Operator) -> list[tuple[JsonPath, FieldPath]]:
    out: list[tuple[JsonPath, FieldPath]] = []
    for name in ("projections", "transforms", "aggregations", "keys", "exprs", "withins"):
        for i, item in enumerate(getattr(op, name, ()) or ()):
            if isinstance(item, NamedExpression):
                out.append(((name, i, "ref"), item.ref))
    for name in ("ref", "within", "target", "name"):
        value = getattr(op, name, None)
        if isinstance(value, FieldPath):
            out.append(((name,), value))
    for i, c in enumerate(getattr(op, "carryovers", ()) or ()):
        out.append((("carryovers", i), c))
    return out


def validate(plan: LogicalPlan) -> LogicalPlan:
    """Raise PlanError listing every problem; return the plan when it is valid."""
    errors = collect_errors(plan)
    if errors:
        raise PlanError(sorted(errors, key=lambda e: (e.line is None, e.line or 0, e.column or 0)))
    return plan


def collect_errors(plan: LogicalPlan, broken_ids: frozenset[int] = frozenset()) -> list[PlanIssue]:
    """All problems of `plan`; `broken_ids` are operators the parser could not build (their
    errors are reported already, so reading them is not reported again)."""
    return _Checker(plan, broken_ids).run()


class _Checker:
    def __init__(self, plan: LogicalPlan, broken_ids: frozenset[int]):
        self.plan = plan
        self.broken = broken_ids
        self.source = plan.source
        self.errors: list[PlanIssue] = []
        self.ids: dict[int, Operator] = {}

    def op_path(self, op: Operator) -> JsonPath:
        if self.source is not None and (path := self.source.path_of(op)) is not None:
            return tuple(path)
        # A plan built in code: the path to_json would write.
        return ("query", self.plan.operators.index(op))

    def error(
        self,
        op: Operator | None,
        message: str,
        rel: JsonPath = (),
        *,
        offset: int | None = None,
        at_key: bool = False,
    ) -> None:
        path: JsonPath = (*self.op_path(op), *rel) if op is not None else rel
        doc = self.source.document if self.source is not None else None
        line = column = None
        if doc is not None:
            loc = None
            if offset is not None:
                loc = doc.location_in_string(path, offset)
            if loc is None and at_key:
                loc = doc.key_positions.get(path)
            loc = loc or doc.location(path)
            if loc is not None:
                line, column = loc.line, loc.column
        self.errors.append(
            PlanIssue(
                message,
                op.id if op is not None else None,
                path_text(path),
                line,
                column,
                self.source.file if self.source else None,
            )
        )

    def key_of(self, op: Operator, *names: str) -> str:
        """The spelling of a property the source used (storageengine / storageEngine)."""
        doc = self.source.document if self.source is not None else None
        if doc is not None:
            for n in names:
                if (*self.op_path(op), n) in doc.positions:
                    return n
        return names[0]

    def run(self) -> list[PlanIssue]:
        for op in self.plan.operators:
            if op.id in self.ids:
                other = path_text(self.op_path(self.ids[op.id]))
                self.error(
                    op, f"duplicate @id {op.id} (also used by the operator at {other})", ("@id",)
                )
            else:
                self.ids[op.id] = op
        for op in self.plan.operators:
            self.check_inputs(op)
            check = CHECKS.get(type(op))
            if check is not None:
                check(self, op)
            self.check_refs(op)
        self.check_cycles()
        return self.errors

    # --- inputs ----------------------------------------------------------------------------------

    def input_slots(self, op: Operator) -> list[tuple[JsonPath, int]]:
        if isinstance(op, Join | LateralJoin):
            return [(("left",), op.left), (("right",), op.right)]
        if isinstance(op, SetOperator):
            return [(("inputs", i), x) for i, x in enumerate(op.inputs)]
        if isinstance(op, CustomOperator):
            if op.single_input:
                return [(("input",), x) for x in op.inputs]
            return [(("inputs", i), x) for i, x in enumerate(op.inputs)]
        return [(("input",), x) for x in op.input_ids]

    def check_inputs(self, op: Operator) -> None:
        in_sequence = self.source is not None and "do" in self.op_path(op)
        for rel, ref in self.input_slots(op):
            if in_sequence and rel == ("input",):
                rel = ()  # the sequence wrote no input key: point at the step itself
            if ref in self.broken or ref == -1:
                continue
            if ref not in self.ids:
                known = ", ".join(str(i) for i in sorted(self.ids))
                self.error(op, f"input {ref} is not the @id of any operator (known: {known})", rel)
            elif role_of(self.ids[ref]) == "sink":
                self.error(
                    op,
                    f"input {ref} is a sink ({self.ids[ref].op}): a sink has no output to read",
                    rel,
                )
            elif ref == op.id:
                self.error(op, f"operator {op.id} reads itself", rel)

    def check_cycles(self) -> None:
        color: dict[int, int] = {}  # 1 = on the stack, 2 = done
        reported: set[frozenset[int]] = set()

        def visit(op_id: int, stack: list[int]) -> None:
            color[op_id] = 1
            stack.append(op_id)
            for dep in self.ids[op_id].input_ids:
                if dep not in self.ids or dep == op_id:
                    continue
                if color.get(dep) == 1:
                    cycle = stack[stack.index(dep) :]
                    key = frozenset(cycle)
                    if key not in reported:
                        reported.add(key)
                        first = min(cycle, key=lambda i: self.plan.operators.index(self.ids[i]))
                        k = cycle.index(first)
                        order = cycle[k:] + cycle[:k] + [first]
                        # inputs point backwards along the data flow; print the flow direction
                        text = " -> ".join(str(i) for i in reversed(order))
                        self.error(self.ids[first], f"cycle in the plan: {text}")
                elif color.get(dep) is None:
                    visit(dep, stack)
            stack.pop()
            color[op_id] = 2

        for op in self.plan.operators:
            if op.id in self.ids and self.ids[op.id] is op and op.id not in color:
                visit(op.id, [])

    # --- storage ---------------------------------------------------------------------------------

    def check_storage(self, op: Scan | Store) -> None:
        if isinstance(op, Scan):
            name, key = op.storage_engine, "storageengine"
        elif op.storage_engine not in (None, SCREEN):
            name, key = op.storage_engine, self.key_of(op, "storageengine", "storageEngine")
        else:
            return
        if name in self.plan.storage:
            return
        defined = sorted(self.plan.storage)
        close = difflib.get_close_matches(name, defined, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        listed = ", ".join(repr(d) for d in defined) if defined else "none"
        self.error(
            op, f"unknown storage engine {name!r} (defined in storage: {listed}){hint}", (key,)
        )

    def check_set_inputs(self, op: SetOperator) -> None:
        if len(op.inputs) < 2:
            self.error(
                op, f"{op.op} combines two or more inputs, got {len(op.inputs)}", ("inputs",)
            )

    # --- expressions -----------------------------------------------------------------------------

    def check_aggregates(self, op: Operator, prop: str, items: tuple[NamedExpression, ...]) -> None:
        for i, n in enumerate(items):
            self._nested(op, (prop, i, "expr"), n.expr, None)

    def _nested(self, op: Operator, rel: JsonPath, e: Expr, outer: FunctionCall | None) -> None:
        if isinstance(e, FunctionCall) and is_aggregate(e.name):
            if outer is not None:
                self.error(
                    op,
                    f"aggregate {e.name}() is nested inside aggregate {outer.name}(): an aggregate "
                    "expression must never nest one aggregate within another",
                    rel,
                    offset=e.pos.offset if e.pos else None,
                )
                return
            outer = e
        for child in e.children():
            self._nested(op, rel, child, outer)

    # --- ranges ----------------------------------------------------------------------------------

    def check_limit(self, op: Limit) -> None:
        if op.first is not None and op.first < 0:
            self.error(op, f"limit first must be 0 or more, not {op.first}", ("first",))
        if op.last is not None and op.last < 0:
            self.error(op, f"limit last must be 0 or more, not {op.last}", ("last",))
        elif op.last is not None and op.first is not None and op.last < op.first:
            self.error(
                op,
                f"limit last ({op.last}) is before first ({op.first}); the range is [first, last)",
                ("last",),
            )

    def check_frame(self, op: WindowFrame | Window) -> None:
        if isinstance(op, WindowFrame) and op.start is None and op.end is None:
            self.error(op, "windowframe needs start or end (or both)")
        if isinstance(op, Window) and op.frame_units_rows is False and not op.orderings:
            self.error(
                op,
                "a RANGE frame (frameUnitsRows false) needs orderings: its "
                "offsets count the orderings' peer groups",
                ("frameUnitsRows",),
            )
        if op.start is not None and op.end is not None and op.start > op.end:
            self.error(
                op,
                f"{op.op} start ({op.start}) is after end ({op.end}); start must be <= end "
                "(e.g. start -2, end 0: the two records before and the current one)",
                ("start",),
            )

    def check_window(self, op: Window) -> None:
        self.check_aggregates(op, "aggregations", op.aggregations)
        self.check_frame(op)

    def check_refs(self, op: Operator) -> None:
        if self.plan.dialect != "drill":
            return
        # Today's FieldReference is one name: a multi-segment ref could not be written back.
        for rel, ref in _refs(op):
            if len(ref.segments) != 1:
                self.error(
                    op,
                    f"ref {ref.dotted()!r} has {len(ref.segments)} segments; in today's "
                    "dialect a ref is one name (nested refs exist only in 2013 plans)",
                    rel,
                )

    # --- plugins ---------------------------------------------------------------------------------

    def check_plugin_inputs(self, op: CustomOperator) -> None:
        """Input shapes of plugin operators built in code (the parser checks parsed ones)."""
        role = plugin_role(op.op_name)
        key = ("input",) if op.single_input else ("inputs",)
        if role == "source" and op.inputs:
            self.error(
                op,
                f"{op.op_name} is a source operator: it reads no input, got {len(op.inputs)}",
                key,
            )
        elif role == "single" and (len(op.inputs) != 1 or not op.single_input):
            self.error(
                op,
                f"{op.op_name} reads exactly one input, given as 'input' (one @id); "
                f"got {len(op.inputs)} as {key[0]!r}",
                key,
            )
        elif op.single_input and len(op.inputs) > 1:
            self.error(
                op,
                f"{op.op_name} has {len(op.inputs)} inputs but single_input=True "
                "('input' holds one @id); use single_input=False",
                key,
            )

    def check_plugin(self, op: CustomOperator) -> None:
        cls = plugins.registered_operator(op.op_name)
        if cls is None:
            self.error(op, f"operator {op.op_name!r} is not registered any more", ("op",))
            return
        self.check_plugin_inputs(op)
        check = getattr(cls, "validate_properties", None)
        if check is None:
            return
        try:
            messages: Any = check(dict(op.properties))
        except Exception as e:  # a broken plugin must not hide the other errors
            self.error(op, f"{cls.__name__}.validate_properties failed: {type(e).__name__}: {e}")
            return
        for message in messages or ():
            self.error(op, f"{op.op_name}: {message}")


Op = TypeVar("Op", bound=Operator)
Check = Callable[[_Checker, Any], None]


def _entry(cls: type[Op], check: Callable[[_Checker, Op], None]) -> tuple[type[Operator], Check]:
    # one call per operator, so mypy checks the check takes that class
    return cls, check


# The checks of one operator class, run after the generic ones every operator gets (unique
# @id, inputs that exist and are no sink, no cycles, one-name refs in today's dialect).
CHECKS: dict[type[Operator], Check] = dict(
    [
        _entry(Scan, _Checker.check_storage),
        _entry(Store, _Checker.check_storage),
        *(_entry(cls, _Checker.check_set_inputs) for cls in (Union, Except, Intersect)),
        _entry(
            CollapsingAggregate,
            lambda c, op: c.check_aggregates(op, "aggregations", op.aggregations),
        ),
        _entry(
            RunningAggregate, lambda c, op: c.check_aggregates(op, "aggregations", op.aggregations)
        ),
        _entry(GroupingAggregate, lambda c, op: c.check_aggregates(op, "exprs", op.exprs)),
        _entry(Limit, _Checker.check_limit),
        _entry(WindowFrame, _Checker.check_frame),
        _entry(Window, _Checker.check_window),
        _entry(CustomOperator, _Checker.check_plugin),
    ]
)
# Classes whose every rule is a generic one or the reader's (property types and values).
GENERIC_ONLY: frozenset[type[Operator]] = frozenset(
    {
        Values,
        Constant,
        Unnest,
        Join,
        SemiJoin,
        LateralJoin,
        Project,
        Filter,
        Transform,
        Order,
        Flatten,
        Segment,
    }
)
