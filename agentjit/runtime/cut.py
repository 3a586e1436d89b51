"""Cutting a checked plan's AST at its main loop, for the parallel strategy.

The caller's plan analysis (the scheduler's
:func:`agentjit.scheduler.usage.plan_usage`: the runtime never imports the
scheduler) finds the plan's main loop and says whether its iterations are
independent (map- or reduction-shaped). If so, :func:`cut_at_loop` cuts the
plan into

* the prefix (every statement before the loop, plus ``list(<iterable>)`` into
  :data:`ITEMS`), run once;
* one iteration: ``for <target> in ONE: <body>`` (or the comprehension over
  :data:`ONE`, its value in :data:`OUT`), run once per item;
* the suffix (the loop's ``else`` and the statements after it; a
  comprehension's statement reads the merged value from :data:`COMP`).

Every piece is a sub-tree of the checked plan plus this module's glue.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["LoopCut", "LoopFacts", "PlanFacts", "ReplayCall", "cut_at_loop", "ITEMS", "ONE", "OUT", "COMP", "EMPTY"]

ITEMS = "_aj_items"
"""The prefix's last variable: the loop's items, as a list."""
ONE = "_aj_one"
"""An iteration's one-item list."""
OUT = "_aj_out"
"""A comprehension iteration's value."""
COMP = "_aj_comp"
"""The merged comprehension value the suffix reads."""


class ReplayCall(Protocol):
    """A prefix call a new parallel worker replays to reach the loop's entry state."""

    @property
    def tool(self) -> str: ...


class LoopFacts(Protocol):
    """What the parallel cut reads about the plan's main loop (the scheduler's ``LoopUse`` has it)."""

    @property
    def line(self) -> int: ...

    @property
    def parallel_ok(self) -> bool: ...

    @property
    def reason(self) -> str: ...

    @property
    def accumulators(self) -> Collection[str]: ...

    @property
    def entry_replay(self) -> Sequence[ReplayCall]: ...


class PlanFacts(Protocol):
    """A plan's analysis as the parallel strategy reads it (the scheduler's ``PlanUsage`` has it)."""

    @property
    def loop(self) -> LoopFacts | None: ...


@dataclass
class LoopCut:
    """A plan cut around its main loop (all pieces are sub-trees of the checked plan)."""

    kind: Literal["for", "comprehension"]
    line: int
    prefix: ast.Module
    """The statements before the loop, then ``_aj_items = list(<iterable>)``."""
    iteration: ast.Module
    """One iteration over ``_aj_one`` (a one-item list)."""
    suffix: ast.Module
    accumulators: frozenset[str] = frozenset()
    comp_type: type[ast.expr] | None = None


def _module(body: list[ast.stmt]) -> ast.Module:
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


EMPTY = ast.Module(body=[], type_ignores=[])
"""A tree with no statements: running it only sets variables (a worker receiving the prefix's)."""


def _name(id_: str, ctx: ast.expr_context, like: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id=id_, ctx=ctx), like)


def _items_assign(iterable: ast.expr) -> ast.stmt:
    call = ast.copy_location(ast.Call(func=_name("list", ast.Load(), iterable), args=[iterable], keywords=[]), iterable)
    return ast.copy_location(ast.Assign(targets=[_name(ITEMS, ast.Store(), iterable)], value=call), iterable)


def _find_loop(tree: ast.Module, line: int) -> tuple[int, ast.AST] | None:
    """The top-level statement index and the loop node on ``line`` (the analysis's main loop)."""
    loops = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    for index, stmt in enumerate(tree.body):
        stack: list[ast.AST] = [stmt]
        while stack:  # pre-order, outer loops first, like usage._find_main_loop
            node = stack.pop()
            if isinstance(node, loops) and getattr(node, "lineno", None) == line:
                return index, node
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


def cut_at_loop(tree: ast.Module, usage: PlanFacts) -> tuple[LoopCut | None, str]:
    """Cut ``tree`` around the main loop, or say why it runs serially."""
    loop = usage.loop
    if loop is None:
        return None, "no loop that calls a tool"
    if not loop.parallel_ok:
        return None, f"loop on line {loop.line} is not parallelizable: {loop.reason}"
    found = _find_loop(tree, loop.line)
    if found is None:  # pragma: no cover - usage and this module read the same source
        return None, f"loop on line {loop.line} not found in the plan"
    index, node = found
    stmt = tree.body[index]
    before = list(tree.body[:index])
    after = list(tree.body[index + 1:])
    if isinstance(node, ast.For) and node is stmt:
        one = ast.For(target=node.target, iter=_name(ONE, ast.Load(), node.iter), body=node.body, orelse=[])
        return LoopCut(
            kind="for",
            line=node.lineno,
            prefix=_module([*before, _items_assign(node.iter)]),
            iteration=_module([ast.copy_location(one, node)]),
            suffix=_module([*node.orelse, *after]),
            accumulators=frozenset(loop.accumulators),
        ), loop.reason
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp):
        outside = [n for n in ast.walk(stmt) if isinstance(n, ast.Await)]
        inside = {id(n) for n in ast.walk(node)}
        if any(id(n) not in inside for n in outside):
            return None, (f"the statement on line {stmt.lineno} awaits outside its comprehension; "
                          "parallel runs only a comprehension whose statement has no other awaits")
        iterable = node.generators[0].iter
        comp = copy.deepcopy(node)
        comp.generators[0].iter = _name(ONE, ast.Load(), iterable)
        piece = ast.copy_location(ast.Assign(targets=[_name(OUT, ast.Store(), node)], value=comp), node)
        rest = _replace(stmt, node, _name(COMP, ast.Load(), node))
        return LoopCut(
            kind="comprehension",
            line=node.lineno,
            prefix=_module([*before, _items_assign(iterable)]),
            iteration=_module([piece]),
            suffix=_module([rest, *after]),
            comp_type=type(node),
        ), loop.reason
    return None, (f"the loop on line {loop.line} is not a top-level `for` or a list/set/dict comprehension; "
                  "the parallel runtime runs it serially")


def _replace(stmt: ast.stmt, old: ast.AST, new: ast.expr) -> ast.stmt:
    class Swap(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if node is old:
                return new
            return super().visit(node)

    swapped = Swap().visit(stmt)
    assert isinstance(swapped, ast.stmt)
    return swapped
