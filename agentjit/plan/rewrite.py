"""The rewrite: a checked plan tree turned into one whose every attribute, item, call and operator is a guard hook.

What each hook checks is :class:`~agentjit.plan.guard.Guard`'s job; this module only
routes the plan's nodes to the hooks (see :mod:`agentjit.plan.guard` for the list)
and compiles the result. It refuses, again, every node the static sandbox refuses,
so a tree that skipped the check cannot reach a node it cannot guard.
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

from agentjit.exceptions import PlanError, SandboxViolation

from .nodes import ALLOWED_NODES

__all__ = ["PLAN_FILENAME", "rewrite", "compile_plan"]

PLAN_FILENAME = "<plan>"
"""The file name of compiled plan code: a traceback's frames with it are the plan's own lines."""


def _unpack_depth(target: ast.expr) -> int:
    """How many levels of ``target`` unpack (``a, *b``: 1; ``(a, *b), c``: 2; a name: 0), if any is starred."""
    if not any(isinstance(n, ast.Starred) for n in ast.walk(target)):
        return 0

    def depth(t: ast.expr) -> int:
        if isinstance(t, ast.Starred):
            return depth(t.value)
        if isinstance(t, ast.Tuple | ast.List):
            return 1 + max((depth(e) for e in t.elts), default=0)
        return 0

    return depth(target)



def _name(id_: str, like: ast.AST, ctx: ast.expr_context | None = None) -> ast.Name:
    return ast.copy_location(ast.Name(id=id_, ctx=ctx or ast.Load()), like)


def _hook(hook: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(func=_name(hook, like), args=args, keywords=[]), like)


def _const(value: Any, like: ast.AST) -> ast.Constant:
    return ast.copy_location(ast.Constant(value=value), like)


class _Rewriter(ast.NodeTransformer):
    """Route attribute, item, call, operator, format and loop nodes through the guard's hooks."""

    def __init__(self) -> None:
        self._temps = itertools.count()

    def _temp(self) -> str:
        return f"__aj_t{next(self._temps)}"

    def _tick(self, like: ast.AST) -> ast.stmt:
        return ast.copy_location(ast.Expr(value=_hook("__aj_tick", [], like)), like)

    def _slice(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Slice):
            parts: list[ast.expr] = [
                self.visit(p) if p is not None else _const(None, node) for p in (node.lower, node.upper, node.step)
            ]
            return _hook("__aj_slice", parts, node)
        if isinstance(node, ast.Tuple):
            return ast.copy_location(ast.Tuple(elts=[self._slice(e) for e in node.elts], ctx=ast.Load()), node)
        result = self.visit(node)
        assert isinstance(result, ast.expr)
        return result

    def _expr(self, node: ast.expr) -> ast.expr:
        result = self.visit(node)
        assert isinstance(result, ast.expr)
        return result

    # targets: subscripts become temporaries stored after the assignment, as Python orders it
    def _target(self, target: ast.expr, after: list[ast.stmt]) -> ast.expr:
        if isinstance(target, ast.Subscript):
            tmp = self._temp()
            store = _hook("__aj_setitem", [self._expr(target.value), self._slice(target.slice), _name(tmp, target)], target)
            after.append(ast.copy_location(ast.Expr(value=store), target))
            return _name(tmp, target, ast.Store())
        if isinstance(target, ast.Attribute):
            raise SandboxViolation(f"assigning attribute {target.attr!r} is not allowed in a plan",
                                   line=target.lineno, col=target.col_offset + 1)
        if isinstance(target, ast.Tuple | ast.List):
            target.elts = [self._target(e, after) for e in target.elts]
            return target
        if isinstance(target, ast.Starred):
            target.value = self._target(target.value, after)
            return target
        return target

    def visit_Assign(self, node: ast.Assign) -> list[ast.stmt]:
        node.value = self._expr(node.value)
        depth = max(_unpack_depth(t) for t in node.targets)
        if depth:
            node.value = _hook("__aj_unpack", [node.value, _const(depth, node)], node)
        after: list[ast.stmt] = []
        node.targets = [self._target(t, after) for t in node.targets]
        return [node, *after]

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        op = _const(type(node.op).__name__, node)
        value = self._expr(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            call = _hook("__aj_inplace", [op, _name(target.id, target), value], node)
            return ast.copy_location(ast.Assign(targets=[_name(target.id, target, ast.Store())], value=call), node)
        if isinstance(target, ast.Subscript):
            call = _hook("__aj_augitem", [self._expr(target.value), self._slice(target.slice), op, value], node)
            return ast.copy_location(ast.Expr(value=call), node)
        raise SandboxViolation("augmented assignment to an attribute is not allowed in a plan",
                               line=node.lineno, col=node.col_offset + 1)

    def visit_For(self, node: ast.For) -> ast.stmt:
        node.iter = self._expr(node.iter)
        depth = _unpack_depth(node.target)
        if depth:
            node.iter = _hook("__aj_unpack_each", [node.iter, _const(depth, node)], node)
        after: list[ast.stmt] = []
        node.target = self._target(node.target, after)
        body = [s for stmt in node.body for s in self._stmts(stmt)]
        node.body = [self._tick(node), *after, *body]
        node.orelse = [s for stmt in node.orelse for s in self._stmts(stmt)]
        return node

    def visit_While(self, node: ast.While) -> ast.stmt:
        node.test = self._expr(node.test)
        body = [s for stmt in node.body for s in self._stmts(stmt)]
        node.body = [self._tick(node), *body]
        node.orelse = [s for stmt in node.orelse for s in self._stmts(stmt)]
        return node

    def _stmts(self, stmt: ast.stmt) -> list[ast.stmt]:
        out = self.visit(stmt)
        return out if isinstance(out, list) else [out]

    def visit_comprehension(self, node: ast.comprehension) -> ast.comprehension:
        if any(isinstance(n, ast.Subscript | ast.Attribute) for n in ast.walk(node.target)):
            raise SandboxViolation("a comprehension may only bind plain names",
                                   line=getattr(node.target, "lineno", None))
        node.iter = self._expr(node.iter)
        depth = _unpack_depth(node.target)
        if depth:
            node.iter = _hook("__aj_unpack_each", [node.iter, _const(depth, node.iter)], node.iter)
        # the tick comes first: an item a filter drops (`if False`) is a step all the same
        node.ifs = [_hook("__aj_tick", [], node.iter), *(self._expr(i) for i in node.ifs)]
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if not isinstance(node.ctx, ast.Load):
            raise SandboxViolation(f"assigning attribute {node.attr!r} is not allowed in a plan",
                                   line=node.lineno, col=node.col_offset + 1)
        return _hook("__aj_attr", [self._expr(node.value), _const(node.attr, node)], node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if not isinstance(node.ctx, ast.Load):
            raise SandboxViolation("this kind of item assignment is not allowed in a plan",
                                   line=node.lineno, col=node.col_offset + 1)
        return _hook("__aj_item", [self._expr(node.value), self._slice(node.slice)], node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        func = self._expr(node.func)
        args = [self._expr(a) for a in node.args]
        keywords = []
        for kw in node.keywords:
            value = self._expr(kw.value)
            if kw.arg is None:
                value = _hook("__aj_sized", [value], kw.value)
            keywords.append(ast.copy_location(ast.keyword(arg=kw.arg, value=value), kw))
        return ast.copy_location(ast.Call(func=_name("__aj_call", node), args=[func, *args], keywords=keywords), node)

    def visit_Starred(self, node: ast.Starred) -> ast.expr:
        if isinstance(node.ctx, ast.Load):
            node.value = _hook("__aj_sized", [self._expr(node.value)], node)
        else:
            node.value = self._expr(node.value)
        return node

    def visit_Dict(self, node: ast.Dict) -> ast.expr:
        node.values = [self._expr(v) for v in node.values]
        node.keys = [self._expr(k) if k is not None else None for k in node.keys]
        node.values = [_hook("__aj_sized", [v], v) if k is None else v for k, v in zip(node.keys, node.values, strict=True)]
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        return _hook("__aj_binop", [_const(type(node.op).__name__, node), self._expr(node.left), self._expr(node.right)],
                     node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        node.left = self._expr(node.left)
        node.comparators = [self._expr(c) for c in node.comparators]
        if not any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            return node
        if len(node.ops) > 1:
            raise SandboxViolation("a chained comparison with 'in' is not allowed; split it with 'and'",
                                   line=node.lineno, col=node.col_offset + 1)
        test = _hook("__aj_in", [node.left, node.comparators[0]], node)
        if isinstance(node.ops[0], ast.NotIn):
            return ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=test), node)
        return test

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.expr:
        spec: ast.expr = self._expr(node.format_spec) if node.format_spec is not None else _const("", node)
        node.value = _hook("__aj_fmt", [self._expr(node.value), _const(node.conversion, node), spec], node)
        node.conversion = -1
        node.format_spec = None
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        if node.type is None:
            node.type = _name("Exception", node)
        node.body = [s for stmt in node.body for s in self._stmts(stmt)]
        return node


def _refuse_unguarded(tree: ast.Module) -> None:
    """Refuse syntax the rewrite cannot guard, whatever the static check said.

    The rewrite routes attribute reads through :meth:`Guard.attr`, but some syntax
    reads attributes with no Attribute node: ``match x: case str(__class__=c)``
    does ``getattr(x, "__class__")`` in C. So the node allow-list of the static
    sandbox holds here too, and so does its ban on dunder names (the guard's own
    hooks are dunder names).
    """
    for node in ast.walk(tree):
        if type(node) not in ALLOWED_NODES:
            raise SandboxViolation(f"'{type(node).__name__}' is not allowed in a plan",
                                   line=getattr(node, "lineno", None))
        name = node.id if type(node) is ast.Name else node.name if type(node) is ast.ExceptHandler else None
        if name is not None and name.startswith("__"):  # ``except E as __aj_call`` rebinds a hook
            raise SandboxViolation(f"dunder name '{name}' is not allowed", line=getattr(node, "lineno", None))


def rewrite(tree: ast.Module) -> ast.Module:
    """A guarded copy of a checked plan tree (the input is not changed)."""
    import copy

    _refuse_unguarded(tree)
    try:
        new = _Rewriter().visit(copy.deepcopy(tree))
    except RecursionError:
        raise PlanError("the plan is nested too deeply to run") from None
    assert isinstance(new, ast.Module)
    return ast.fix_missing_locations(new)


def compile_plan(tree: ast.Module) -> Any:
    """Compile a checked plan tree, guarded, with top-level await."""
    return compile(rewrite(tree), PLAN_FILENAME, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
