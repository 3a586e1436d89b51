"""Mechanical mutants of a plan: the mistakes models make, one at a time.

Each mutant changes one site of the plan's tree and is named ``kind@line``:

* ``wrong-type``: a literal argument of a tool or plan function becomes a value of another type;
* ``wrong-arity``: a call gets one more positional argument, or loses its first one;
* ``wrong-keyword``: a keyword argument gets a name the call does not take;
* ``unknown-attribute``: an attribute read gets a name nobody declared (``x.name`` -> ``x.nameq``);
* ``iterate-the-record``: a loop or an index over a record's list field goes over the record itself
  (``for s in stores.items`` -> ``for s in stores``, ``stores.items[0]`` -> ``stores[0]``).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

__all__ = ["mutants", "KINDS"]

KINDS = ("wrong-type", "wrong-arity", "wrong-keyword", "unknown-attribute", "iterate-the-record")

_Edit = Callable[[ast.AST], bool]
"""Changes one node in place; False when it does not apply to that node."""


def _called(tree: ast.Module, callables: set[str]) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in callables:
            yield node


def _other_type(value: object) -> object:
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return 7
    return None


def _edits(tree: ast.Module, callables: set[str]) -> Iterator[tuple[str, ast.AST, _Edit]]:
    """``(kind, node, edit)`` for every site of ``tree`` a mutation applies to."""
    for call in _called(tree, callables):
        for kw in call.keywords:
            if kw.arg is None:
                continue
            if isinstance(kw.value, ast.Constant) and _other_type(kw.value.value) is not None:
                yield "wrong-type", kw, lambda n: setattr(n.value, "value", _other_type(n.value.value)) or True  # type: ignore[attr-defined, func-returns-value]
            yield "wrong-keyword", kw, lambda n: setattr(n, "arg", n.arg + "_") or True  # type: ignore[attr-defined, func-returns-value]
        for arg in call.args:
            if isinstance(arg, ast.Constant) and _other_type(arg.value) is not None:
                yield "wrong-type", arg, lambda n: setattr(n, "value", _other_type(n.value)) or True  # type: ignore[attr-defined, func-returns-value]
        yield "wrong-arity", call, lambda n: n.args.append(ast.Constant("extra")) or True  # type: ignore[attr-defined, func-returns-value]
        if call.args:
            yield "wrong-arity", call, lambda n: n.args.pop(0) is not None  # type: ignore[attr-defined]
        elif call.keywords:
            yield "wrong-arity", call, lambda n: n.keywords.pop(0) is not None  # type: ignore[attr-defined]
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):  # a field, or a method called
            yield "unknown-attribute", node, lambda n: setattr(n, "attr", n.attr + "q") or True  # type: ignore[attr-defined, func-returns-value]
        if isinstance(node, ast.For | ast.comprehension) and isinstance(node.iter, ast.Attribute):
            yield "iterate-the-record", node, lambda n: setattr(n, "iter", n.iter.value) or True  # type: ignore[attr-defined, func-returns-value]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and id(node.value) not in called:
            yield "iterate-the-record", node, lambda n: setattr(n, "value", n.value.value) or True  # type: ignore[attr-defined, func-returns-value]


def mutants(source: str, callables: set[str]) -> list[tuple[str, str]]:
    """``(name, source)`` of every one-site mutant of ``source`` (calls of ``callables`` are mutated)."""
    tree = ast.parse(source)
    sites = list(_edits(tree, callables))
    out: list[tuple[str, str]] = []
    seen = {ast.unparse(tree)}
    for i, (kind, node, _) in enumerate(sites):
        mutant = copy.deepcopy(tree)
        # the same walk over the copy finds the same sites in the same order
        kind2, node2, edit2 = list(_edits(mutant, callables))[i]
        assert kind2 == kind
        if not edit2(node2):
            continue
        text = ast.unparse(mutant) + "\n"
        if text not in seen:
            seen.add(text)
            out.append((f"{kind}@{getattr(node, 'lineno', 0)}", text))
    return out
