"""Mechanical mutants of a plan: the mistakes models make, one at a time.

Each mutant changes one site of the plan's tree and is named ``kind@line``:

* ``wrong-type``: a literal argument of a tool, a plan function, a builtin or a method becomes a value of another
  type;
* ``wrong-arity``: a call gets one more positional argument, or loses its first one;
* ``wrong-keyword``: a keyword argument gets a name the call does not take;
* ``unknown-attribute``: an attribute read gets a name nobody declared (``x.name`` -> ``x.nameq``);
* ``iterate-the-record``: a loop or an index over a record's list field goes over the record itself
  (``for s in stores.items`` -> ``for s in stores``, ``stores.items[0]`` -> ``stores[0]``);
* ``call-a-field``: an attribute read becomes a call of it (``stores.items`` -> ``stores.items()``);
* ``shadow-a-function``: a name the plan assigns is renamed to a builtin the plan calls (``names`` -> ``sorted``).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

__all__ = ["mutants", "KINDS"]

KINDS = ("wrong-type", "wrong-arity", "wrong-keyword", "unknown-attribute", "iterate-the-record", "call-a-field",
         "shadow-a-function")
_BUILTINS = ("len", "sorted", "list", "str", "int", "max", "min", "sum", "round", "enumerate", "range", "set")

_Edit = Callable[[ast.AST], bool]
"""Changes one node in place; False when it does not apply to that node."""


def _called(tree: ast.Module, callables: set[str]) -> Iterator[ast.Call]:
    """Calls of ``callables`` (tools, plan functions), of the builtins the plans use and of methods."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in callables | set(_BUILTINS):
            yield node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
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
        for field, child in ast.iter_fields(node):  # the parent's slot of an attribute read becomes a call of it
            for i, sub in enumerate(child if isinstance(child, list) else [child]):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load) and id(sub) not in called:
                    yield "call-a-field", node, _call_in_slot(field, i if isinstance(child, list) else None)
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    shadow = next((b for b in _BUILTINS if b in calls), None)
    for node in ast.walk(tree):
        if shadow is not None and isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id != "result":
                yield "shadow-a-function", node, _renamed(tree, node.targets[0].id, shadow)


def _call_in_slot(field: str, index: int | None) -> _Edit:
    def edit(parent: ast.AST) -> bool:
        slot = getattr(parent, field)
        read = slot[index] if index is not None else slot
        call = ast.Call(func=read, args=[], keywords=[])
        if index is not None:
            slot[index] = call
        else:
            setattr(parent, field, call)
        return True

    return edit


def _renamed(tree: ast.Module, old: str, new: str) -> _Edit:
    def edit(_: ast.AST) -> bool:
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and n.id == old:
                n.id = new
        return True

    return edit


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
