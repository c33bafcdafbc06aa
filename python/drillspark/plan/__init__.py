"""Drill logical plans in pure Python: model, parser (both dialects), validator, expressions,
EXPLAIN. No Spark here; the translator (drillspark.spark) turns a LogicalPlan into DataFrames.

Public API (stable; other packages code against exactly this):

    from drillspark import plan as lp

    p = lp.parse(text_or_path_or_dict)          # -> LogicalPlan; raises lp.PlanError
    p = lp.parse(src, dialect="2013")           # force a dialect (default: detected)
    p = lp.parse(src, validate=False)           # skip graph checks (syntax still checked)
    lp.validate(p)                              # raises PlanError, returns p when valid
    p.to_json() / p.to_json_text()              # today's format (2013-only parts as documented
                                                # extensions, docs/logical-plans.md); parse(p.to_json()) == p
    lp.explain(p, "text" | "json" | "dot" | "svg")

LogicalPlan (frozen dataclass, `model.py`)
    .operators        tuple[Operator, ...] in topological order (inputs first; ties keep source
                      order), sequences already expanded
    .storage          Mapping[str, StorageConfig(type, properties)] (the plan's named engines)
    .head             Mapping (plan properties: type, version, generator, ...)
    .dialect          "drill" (today's) or "2013" (the seed's)
    .node(id)         the operator with that @id (KeyError if none)
    .inputs_of(op|id) its input operators, in order (join: left, right)
    .consumers_of(op|id), .sources() (no inputs), .sinks() (stores), .roots() (read by nobody)
    .warnings         tuple[PlanIssue, ...]: what parse accepted but warned about (PlanWarning)
    Equality ignores where the plan came from (`.source`).

Operators (frozen, keyword-only dataclasses, `operators.py`). Every one has `id: int`,
`memo: str | None`, `op` (the JSON name), `input_ids`, `expressions()` and the class
attributes OP and ROLE ("source" | "single" | "multi" | "sink"):

    Scan(storage_engine, selection, ref)            source; ref only in 2013 plans
    Values(content) / Constant(content)             source; content = list of records
    Join(left, right, type, conditions)             type INNER|LEFT|RIGHT|FULL (2013 "outer" = FULL);
                                                    conditions = JoinCondition(relationship, left, right)
    SemiJoin (a Join, op "semi-join"), LateralJoin(left, right), Unnest(column)   today's only
    Union / Except / Intersect(inputs, distinct)    multi (two or more inputs)
    Store(input, storage_engine, target, partition) sink; storage_engine None or "--SCREEN--" = result
    Project(input, projections)                     projections/transforms/aggregations/keys/exprs/
    Transform(input, transforms)                    withins are tuples of NamedExpression(ref, expr)
    Filter(input, expr)
    Order(input, orderings, within)                 Ordering(expr, direction ASC|DESC,
                                                    null_direction FIRST|LAST|UNSPECIFIED); .nulls_first
    Limit(input, first, last)                       half-open [first, last); None = unbounded
    Flatten(input, name, expr, drop)
    Segment(input, ref, exprs)                      2013
    WindowFrame(input, ref: FrameRef(segment, position), within, start, end)   2013
    CollapsingAggregate(input, aggregations, within, target, carryovers)     2013
    RunningAggregate(input, aggregations, within)
    GroupingAggregate(input, keys, exprs)
    Window(input, aggregations, withins, orderings, start, end)
    CustomOperator(op_name, inputs, properties, single_input)   a plugin operator: `op` not built
                                                    in but `drillspark.plugins.registered_operator`
                                                    knows it; properties = the other JSON keys

Refs (`ref`, `within`, `name`, carryovers, ...) are FieldPath values. Today's Drill reads a ref
as ONE name (FieldPath(("output.deptId",)) is a column literally named so); 2013 plans read it
as a dotted path (FieldPath(("output", "deptId"))).

Expressions (frozen dataclasses, `expressions.py`; `pos: SourcePos(line, column, offset)` is
not part of equality):

    Literal(value, type)          type INT | BIGINT | FLOAT8 | VARCHAR | BIT | NULL
    FieldPath(segments)           names are str, array indexes int: a.b[0] -> ("a", "b", 0)
    FunctionCall(name, args)      operators use canonical names (OPERATOR_FUNCTIONS):
                                  + add, - subtract, * multiply, / divide, % modulo, ^ xor,
                                  == = equal, != <> not_equal, < less_than, <= less_than_or_equal_to,
                                  > greater_than, >= greater_than_or_equal_to, unary - negative,
                                  ! not, and booleanAnd (n-ary), or booleanOr (n-ary)
    Cast(expr, type, args, repeated)     type upper-case: "VARCHAR", args (10,)
    Convert(direction "from"|"to", expr, encoding)
    IfElse(branches ((cond, value), ...), else_)   both if/else-if and case/when

    parse_expression(text, dialect="drill"|"2013") -> Expr   (ExpressionError: .line .column)
    to_text(expr) / str(expr) -> text in today's grammar; parse_expression(to_text(e)) == e

Errors: PlanError(ValueError).errors is a list of PlanIssue(message, op_id, path, line, column,
file); `path` is a JSON path like "$.query[2].do[1].expr". A repeated JSON field name is
accepted (last wins, as Drill's Jackson does) and reported as a PlanWarning via warnings.warn.
"""

from drillspark.plan.errors import PlanError, PlanIssue, PlanWarning
from drillspark.plan.expr_parser import ExpressionError, parse_expression
from drillspark.plan.expressions import (
    OPERATOR_FUNCTIONS,
    UNARY_FUNCTIONS,
    Cast,
    Convert,
    Expr,
    FieldPath,
    FunctionCall,
    IfElse,
    Literal,
    SourcePos,
    to_text,
)
from drillspark.plan.model import LogicalPlan, StorageConfig
from drillspark.plan.operators import (
    BUILTIN_OPERATORS,
    SCREEN,
    CollapsingAggregate,
    Constant,
    CustomOperator,
    Except,
    Filter,
    Flatten,
    FrameRef,
    GroupingAggregate,
    Intersect,
    Join,
    JoinCondition,
    LateralJoin,
    Limit,
    NamedExpression,
    Operator,
    Order,
    Ordering,
    Project,
    RunningAggregate,
    Scan,
    Segment,
    SemiJoin,
    Store,
    Transform,
    Union,
    Unnest,
    Values,
    Window,
    WindowFrame,
    role_of,
)
from drillspark.plan.parser import detect_dialect, parse
from drillspark.plan.validate import validate


def explain(plan: LogicalPlan, format: str = "text") -> str:
    """The plan as "json", an indented "text" tree, Graphviz "dot", or "svg" (needs `dot`)."""
    from drillspark.plan.explainer import explain as _explain

    return _explain(plan, format)


__all__ = [
    "BUILTIN_OPERATORS",
    "OPERATOR_FUNCTIONS",
    "SCREEN",
    "UNARY_FUNCTIONS",
    "Cast",
    "CollapsingAggregate",
    "Constant",
    "Convert",
    "CustomOperator",
    "Except",
    "Expr",
    "ExpressionError",
    "FieldPath",
    "Filter",
    "Flatten",
    "FrameRef",
    "FunctionCall",
    "GroupingAggregate",
    "IfElse",
    "Intersect",
    "Join",
    "JoinCondition",
    "LateralJoin",
    "Limit",
    "Literal",
    "LogicalPlan",
    "NamedExpression",
    "Operator",
    "Order",
    "Ordering",
    "PlanError",
    "PlanIssue",
    "PlanWarning",
    "Project",
    "RunningAggregate",
    "Scan",
    "Segment",
    "SemiJoin",
    "SourcePos",
    "StorageConfig",
    "Store",
    "Transform",
    "Union",
    "Unnest",
    "Values",
    "Window",
    "WindowFrame",
    "detect_dialect",
    "explain",
    "parse",
    "parse_expression",
    "role_of",
    "to_text",
    "validate",
]
