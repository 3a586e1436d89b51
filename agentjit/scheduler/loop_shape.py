"""The shape of a plan's loops, read from the tree: what names a statement stores and reads, and
whether a loop whose body calls tools is map- or reduction-shaped (its iterations may run apart).

:func:`agentjit.scheduler.usage.plan_usage` counts the calls; this module answers, for the main
loop it found, whether the parallel strategy may split it, and why not when it may not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from agentjit.protocol.manifest import Effect

__all__ = ["ACCUMULATE", "MUTATING", "COMPS", "loop_body_nodes", "comprehension_targets", "stored_names",
           "base_name", "parallel_check", "later_reads"]  # fmt: skip


class Call(Protocol):
    """A tool call of the loop body (a :class:`~agentjit.scheduler.usage.CallUse`)."""

    @property
    def tool(self) -> str: ...
    @property
    def effect(self) -> Effect: ...
    @property
    def line(self) -> int: ...


ACCUMULATE = frozenset({"append", "extend", "add", "update"})
MUTATING = frozenset(
    {"pop", "insert", "remove", "clear", "sort", "reverse", "setdefault", "popitem", "discard"}
)
COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def loop_body_nodes(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.For | ast.AsyncFor):
        return list(node.body)
    if isinstance(node, ast.While):
        return [node.test, *node.body]
    assert isinstance(node, COMPS)
    parts: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    parts.extend(node.generators[0].ifs)
    for gen in node.generators[1:]:
        parts.extend([gen.iter, *gen.ifs])
    return parts



def comprehension_targets(node: ast.AST) -> set[int]:
    """Ids of the Name nodes bound by comprehension generators (local to the comprehension)."""
    ids: set[int] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.comprehension):
            ids.update(id(t) for t in ast.walk(n.target) if isinstance(t, ast.Name))
    return ids


def stored_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names bound at plan level by ``nodes`` (comprehension variables are local and left out)."""
    names: set[str] = set()
    for node in nodes:
        local = comprehension_targets(node)
        for n in ast.walk(node):
            if (
                isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Store | ast.Del)
                and id(n) not in local
            ):
                names.add(n.id)
    return names


def loaded_names(node: ast.AST) -> set[str]:
    """Names read by ``node``, leaving out the variables its comprehensions bind themselves."""
    local = {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.comprehension)
        for n in ast.walk(n.target)
        if isinstance(n, ast.Name)
    }
    return {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local
    }


def walk_own(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Walk ``nodes`` but not into nested loops (for finding this loop's own ``break``)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            continue
        stack.extend(ast.iter_child_nodes(node))


def base_name(node: ast.expr) -> ast.Name | None:
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def parallel_check(
    loop: ast.AST,
    body_calls: Sequence[Call],
    outer: set[str],
    later_reads: set[str],
    accumulators: dict[str, str],
) -> tuple[bool, str]:
    """Is the loop map- or reduction-shaped? Fills ``accumulators`` (name -> kind) as it goes."""
    writes = [c for c in body_calls if c.effect is Effect.WRITE]
    if writes:
        w = writes[0]
        return (
            False,
            f"WRITE tool {w.tool!r} on line {w.line} in the loop body (writes are never parallelized)",
        )
    if isinstance(loop, ast.While):
        return (
            False,
            f"while loop on line {getattr(loop, 'lineno', 0)}: the trip count depends on the body",
        )
    body = loop_body_nodes(loop)
    for node in (n for part in body for n in ast.walk(part)):
        if isinstance(node, ast.NamedExpr):
            return (
                False,
                f"assignment expression to {node.target.id!r} on line {node.lineno} in the loop body",
            )
    if isinstance(loop, COMPS):
        return True, "comprehension: map-shaped"
    assert isinstance(loop, ast.For | ast.AsyncFor)
    for node in walk_own(loop.body):
        if isinstance(node, ast.Break):
            return False, f"break on line {node.lineno}: later iterations depend on earlier ones"

    allowed_bases: set[int] = set()  # ids of the Name nodes that are the base of an accumulation

    def outer_target(target: ast.expr, line: int) -> str | None:
        if isinstance(target, ast.Name):
            if target.id in outer:
                return f"assignment to outer variable {target.id!r} on line {line}"
            return None
        if isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                problem = outer_target(elt.value if isinstance(elt, ast.Starred) else elt, line)
                if problem:
                    return problem
            return None
        if isinstance(target, ast.Subscript):
            base = base_name(target)
            if base is not None and base.id in outer:
                if isinstance(target.value, ast.Name):
                    accumulators[base.id] = "dict store"
                    allowed_bases.add(id(base))
                    return None
                return f"nested store into outer variable {base.id!r} on line {line}"
            return None
        if isinstance(target, ast.Attribute):
            base = base_name(target)
            if base is not None and base.id in outer:
                return f"attribute assignment on outer variable {base.id!r} on line {line}"
        return None

    for node in (n for stmt in loop.body for n in ast.walk(stmt)):
        problem: str | None = None
        if isinstance(node, ast.Assign):
            for target in node.targets:
                problem = problem or outer_target(target, node.lineno)
        elif isinstance(node, ast.AnnAssign):
            problem = outer_target(node.target, node.lineno)
        elif isinstance(node, ast.AugAssign):
            target = node.target
            base = base_name(target)
            if base is not None and base.id in outer:
                if not isinstance(node.op, ast.Add):
                    problem = f"'{type(node.op).__name__}=' on outer variable {base.id!r} on line {node.lineno}"
                elif isinstance(target, ast.Name) or (
                    isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                ):
                    accumulators[base.id] = "counter"
                    allowed_bases.add(id(base))
                else:
                    problem = f"nested update of outer variable {base.id!r} on line {node.lineno}"
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            problem = outer_target(
                node.target, getattr(node, "lineno", getattr(node.target, "lineno", 0))
            )
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                base = base_name(target)
                if base is not None and base.id in outer:
                    problem = f"del on outer variable {base.id!r} on line {node.lineno}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = base_name(node.func.value)
            if base is not None and base.id in outer:
                if node.func.attr in ACCUMULATE and isinstance(node.func.value, ast.Name):
                    accumulators[base.id] = node.func.attr
                    allowed_bases.add(id(base))
                elif node.func.attr in MUTATING or node.func.attr in ACCUMULATE:
                    problem = f"{base.id}.{node.func.attr}(...) on line {node.lineno} mutates an outer variable"
        if problem:
            return False, problem

    # an accumulator read inside the body makes iterations depend on each other
    for node in (n for stmt in loop.body for n in ast.walk(stmt)):
        if (
            isinstance(node, ast.Name)
            and node.id in accumulators
            and isinstance(node.ctx, ast.Load)
            and id(node) not in allowed_bases
        ):
            return (
                False,
                f"the body reads accumulator {node.id!r} on line {node.lineno}: iterations depend on each other",
            )

    carried = (stored_names(loop.body) | stored_names([loop.target])) - outer
    leaked = sorted(carried & later_reads)
    if leaked:
        return (
            False,
            f"{leaked[0]!r} is set in the loop body and read after the loop (its last value leaks)",
        )
    if accumulators:
        kinds = ", ".join(f"{name}: {kind}" for name, kind in sorted(accumulators.items()))
        return True, f"reduction-shaped ({kinds})"
    return True, "map-shaped: no outer state is changed"


def free_reads(stmts: Iterable[ast.stmt], bound: set[str]) -> set[str]:
    """Names the statements read before binding them themselves (a loop binds its target first)."""
    reads: set[str] = set()
    bound = set(bound)
    for stmt in stmts:
        if isinstance(stmt, ast.For | ast.AsyncFor):
            reads |= loaded_names(stmt.iter) - bound
            inner = bound | stored_names([stmt.target])
            reads |= free_reads([*stmt.body, *stmt.orelse], inner)
        elif isinstance(stmt, ast.If | ast.While):
            reads |= loaded_names(stmt.test) - bound
            reads |= free_reads(stmt.body, bound) | free_reads(stmt.orelse, bound)
        elif isinstance(stmt, ast.AugAssign):
            reads |= (loaded_names(stmt) | stored_names([stmt.target])) - bound
        else:
            reads |= loaded_names(stmt) - bound
        bound |= stored_names([stmt])
    return reads


def later_reads(stmts: list[ast.stmt]) -> set[str]:
    """Names read after the loop before being rebound there, plus ``result`` (the plan's value)."""
    reads = free_reads(stmts, set())
    if "result" not in stored_names(stmts):
        reads.add("result")  # the runtime reads the plan's final value
    return reads
