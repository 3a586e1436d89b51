"""The AST node types a plan may contain: the one allow-list of the static sandbox and the guard.

:mod:`agentjit.plan.sandbox` rejects every other node before a plan runs, and
:mod:`agentjit.plan.guard` refuses them again before it rewrites a tree (some
syntax reads attributes with no Attribute node). Both import it from here, so
neither imports the other for it. Standard library only.
"""

from __future__ import annotations

import ast

__all__ = ["ALLOWED_NODES"]

_OPERATORS: tuple[type[ast.AST], ...] = (
    ast.And, ast.Or,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift,
    ast.UAdd, ast.USub, ast.Not, ast.Invert,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
)  # fmt: skip

#: Every AST node type a plan may contain; anything else is ``forbidden``.
ALLOWED_NODES: frozenset[type[ast.AST]] = frozenset({
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.NamedExpr,
    ast.If, ast.For, ast.While, ast.Break, ast.Continue, ast.Pass,
    ast.Try, ast.ExceptHandler, ast.Raise, ast.Assert,
    ast.Await, ast.Call, ast.keyword, ast.Starred,
    ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Constant,
    ast.JoinedStr, ast.FormattedValue,
    ast.List, ast.Tuple, ast.Dict, ast.Set,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp,
    ast.Load, ast.Store, ast.Del,
    *_OPERATORS,
})  # fmt: skip
