"""How many times a loop runs, when the plan's source says so: the one trip-count inference.

The planner's cost model (:mod:`agentjit.planner.cost`) and the scheduler's
usage analysis (:mod:`agentjit.scheduler.usage`) both price a loop by its trip
count; both read it here, so they agree (they used to disagree on slices with
a step). Each caller applies its own cap and fallback.

* a literal list, tuple, set (without ``*``) or string: its length;
* ``range(...)`` of integer literals: ``len(range(...))``;
* a slice ``xs[a:b:c]`` of integer literals: exact when ``len(xs)`` is known,
  else an upper bound (``len(range(a, b, c))``, whatever ``len(xs)`` is);
* ``enumerate``, ``reversed``, ``sorted``, ``list``, ``tuple``, ``set`` of one
  of these: the same count.

Counts are capped at :data:`MAX_TRIP_COUNT`, so ``range(10**30)`` stays a
finite (huge) number.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

__all__ = ["MAX_TRIP_COUNT", "PASS_THROUGH", "const_int", "range_count", "slice_count", "literal_count", "trip_count",
           "named_trip_counts"]

MAX_TRIP_COUNT = 10**9
"""Largest count reported; ``range(10**30)`` counts this many trips."""

PASS_THROUGH = frozenset({"enumerate", "reversed", "sorted", "list", "tuple", "set"})
"""Builtins whose result is as long as their one argument."""


def _cap(n: int) -> int:
    return min(max(n, 0), MAX_TRIP_COUNT)


def _range_len(start: int, stop: int, step: int) -> int:
    """``len(range(start, stop, step))`` for ints of any size (``step != 0``), uncapped."""
    return max((stop - start + step - (1 if step > 0 else -1)) // step, 0)


def const_int(node: ast.expr | None) -> int | None:
    """The value of an integer literal (``3``, ``-3``; not ``True``), else None."""
    if type(node) is ast.Constant and type(node.value) is int:
        return node.value
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        inner = const_int(node.operand)
        return -inner if inner is not None else None
    return None


def range_count(node: ast.expr) -> int | None:
    """``len(range(...))`` for a ``range`` call of one to three integer literals (None for step 0)."""
    if not (type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "range"):
        return None
    if node.keywords or not 1 <= len(node.args) <= 3:
        return None
    args = [const_int(a) for a in node.args]
    ints = [a for a in args if a is not None]
    if len(ints) != len(args):
        return None
    start, stop, step = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
    if step == 0:
        return None  # range() raises
    return _cap(_range_len(start, stop, step))


def slice_count(sl: ast.Slice, length: int | None) -> int | None:
    """How many items ``xs[sl]`` has when ``len(xs)`` is ``length`` (None: unknown).

    Exact when ``length`` is known; else an upper bound, or None when the slice
    depends on the length (``xs[2:]``, ``xs[-3:]``) or is not made of integer literals.
    """
    lower, upper, step = const_int(sl.lower), const_int(sl.upper), const_int(sl.step)
    if (sl.lower is not None and lower is None) or (sl.upper is not None and upper is None):
        return None
    if (sl.step is not None and step is None) or step == 0:
        return None  # not a literal, or a ValueError at run time
    if length is not None:
        return _cap(len(range(_cap(length))[slice(lower, upper, step)]))
    if step is None or step > 0:  # from lower (default 0) up to upper
        if upper is None or upper < 0 or (lower or 0) < 0:
            return None
        return _cap(_range_len(lower or 0, upper, step or 1))
    # a negative step: from lower down to upper (default: the first item)
    if lower is None or lower < 0 or (upper is not None and upper < 0):
        return None
    return _cap(_range_len(lower, -1 if upper is None else upper, step))


def literal_count(node: ast.expr) -> int | None:
    """The length of a literal list, tuple or set without ``*``, or of a string or bytes literal."""
    if type(node) in (ast.List, ast.Tuple, ast.Set):
        elts = node.elts  # type: ignore[attr-defined]
        if not any(type(e) is ast.Starred for e in elts):
            return _cap(len(elts))
        return None
    if type(node) is ast.Constant and isinstance(node.value, str | bytes):
        return _cap(len(node.value))
    return None


def trip_count(node: ast.expr, named: Mapping[str, int] | None = None) -> int | None:
    """How many times a loop over ``node`` runs, when the source says so (an upper bound for slices).

    ``named`` holds the counts of plain names (:func:`named_trip_counts`);
    without it a name has no count.
    """
    if type(node) is ast.Name:
        return named.get(node.id) if named is not None else None
    if type(node) is ast.Subscript and type(node.slice) is ast.Slice:
        return slice_count(node.slice, trip_count(node.value, named))
    if type(node) is ast.Call and type(node.func) is ast.Name:
        if node.func.id == "range":
            return range_count(node)
        if node.func.id in PASS_THROUGH and len(node.args) == 1 and not node.keywords:
            return trip_count(node.args[0], named)
        return None
    return literal_count(node)


def named_trip_counts(nodes: Iterable[ast.AST]) -> dict[str, int]:
    """Names bound exactly once, by a plain assignment from something with a static trip count.

    ``nodes`` is every node of the plan (the sandbox scan's list).
    """
    values: dict[str, ast.expr] = {}
    stores: dict[str, int] = {}
    for node in nodes:
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            values[node.targets[0].id] = node.value
        elif type(node) is ast.Name and type(node.ctx) is ast.Store:
            stores[node.id] = stores.get(node.id, 0) + 1
    out: dict[str, int] = {}
    for name, value in values.items():
        if stores.get(name) == 1:
            n = trip_count(value)
            if n is not None:
                out[name] = n
    return out
