"""Walks of the SQL syntax tree (sqlglot) the lowering steps share: a condition's
conjuncts, an operator chain's operands, a node's ancestors within a block, whether a node
sits inside a subquery of its block."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp


def conjuncts(node: exp.Expr) -> list[exp.Expr]:
    """`a AND (b AND c)` as [a, b, c] (parentheses around the whole taken off)."""
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And):
        return conjuncts(node.this) + conjuncts(node.expression)
    return [node]


def flatten_op(node: exp.Expr, cls: type) -> list[exp.Expr]:
    """The operands of a chain of the binary operator `cls` (`a OR b OR c`: [a, b, c])."""
    if isinstance(node, cls):
        return flatten_op(node.this, cls) + flatten_op(node.expression, cls)
    return [node]


def ancestors(node: exp.Expr, stop: exp.Expr) -> Iterator[exp.Expr]:
    """The parents of `node`, nearest first, up to (not including) `stop`."""
    p = node.parent
    while p is not None and p is not stop:
        yield p
        p = p.parent


def inside_subquery(node: exp.Expr, block: exp.Expr) -> bool:
    """Whether `node` belongs to a subquery of the SELECT block `block` (not to it)."""
    return any(isinstance(p, exp.Subquery | exp.Select) for p in ancestors(node, block))
