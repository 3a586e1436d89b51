"""The planner's cost model: sum over calls of C(call) * (loop factor per enclosing loop).

Paper (Algorithm 1 lines 15 and 17, appendix H): a tool call costs ``C_tool =
0.1``, an ``ai_eval`` ``C_eval = 10``, and each enclosing loop multiplies by
``gamma = 10``. Two refinements (DESIGN.md section 4):

* when the cache holds a fitted latency for a tool (``cache.latency[name]`` with
  a ``"mean"`` in seconds), that mean replaces ``C_tool`` for the tool;
* a loop whose trip count is known statically uses it instead of ``gamma``:
  ``for x in y[:5]``, ``y[2:7]``, ``range(5)``, ``range(1, 6)``, a literal list
  or tuple, or a name assigned exactly once from one of those.

``ask_human`` costs ``C_human`` (default 30, the paper's "agentic sub-loop"
tier of appendix H). The estimate only ranks candidates; it does not predict
seconds.
"""

from __future__ import annotations

import ast
import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agentjit.protocol.manifest import Effect, ToolManifest

if TYPE_CHECKING:
    from .cfg import CFG

__all__ = ["CostModel", "CallSite", "call_sites", "estimate_cost", "trip_count", "named_trip_counts"]

log = logging.getLogger(__name__)

CallKind = Literal["tool", "ai_eval", "ask_human"]


@dataclass(frozen=True)
class CostModel:
    """Weights of Algorithm 1 (defaults from the paper's appendix H)."""

    c_tool: float = 0.1
    c_eval: float = 10.0
    c_human: float = 30.0
    gamma: float = 10.0
    use_latency: bool = True
    """Replace ``c_tool`` by a tool's fitted mean latency when the cache has one."""


@dataclass(frozen=True)
class CallSite:
    """One call of a tool, ``ai_eval`` or ``ask_human`` in a plan, with its loop context."""

    tool: str
    line: int
    col: int
    loop_depth: int
    trip_counts: list[int | None] = field(default_factory=list)
    """One entry per enclosing loop, outermost first; None when not known statically."""
    effect: Effect | None = None
    kind: CallKind = "tool"
    in_comprehension: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


MAX_TRIP_COUNT = 10**9
"""Static trip counts are capped here, so a ``range(10**30)`` loop has a finite (huge) cost."""


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int(node.operand)
        return -v if v is not None else None
    return None


def trip_count(node: ast.expr, named: Mapping[str, int] | None = None) -> int | None:
    """How many times a loop over ``node`` runs, when that is known statically (an upper bound for slices)."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return len(node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        return len(node.value)
    if isinstance(node, ast.Name) and named is not None:
        return named.get(node.id)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        s = node.slice
        if s.step is not None:
            return None
        lower = 0 if s.lower is None else _int(s.lower)
        upper = _int(s.upper) if s.upper is not None else None
        if lower is None or upper is None or lower < 0 or upper < 0:
            return None
        return min(max(0, upper - lower), MAX_TRIP_COUNT)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_int(a) for a in node.args]
        if node.func.id == "range" and not node.keywords and 1 <= len(args) <= 3 and all(a is not None for a in args):
            ints = [a for a in args if a is not None]
            start, stop, step = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
            if step == 0:
                return None  # range() raises; the cost does not matter
            n = (stop - start + step - (1 if step > 0 else -1)) // step  # len(range(...)) for ints of any size
            return min(max(n, 0), MAX_TRIP_COUNT)
        if node.func.id in ("enumerate", "reversed", "sorted", "list", "tuple") and len(node.args) == 1:
            return trip_count(node.args[0], named)
    return None


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


def call_sites(cfg: CFG, tools: Mapping[str, ToolManifest]) -> list[CallSite]:
    """Every call of a tool, ``ai_eval`` or ``ask_human`` in the plan, in source order.

    A call the CFG holds twice (a ``finally`` body is modelled on two paths) is listed once.
    """
    seen: set[int] = set()
    out: list[CallSite] = []
    for block in cfg.blocks:
        for ev in block.calls():
            if id(ev.node) in seen:
                continue
            seen.add(id(ev.node))
            tool = tools.get(ev.name)
            kind: CallKind = "tool" if tool is not None else ("ask_human" if ev.name == "ask_human" else "ai_eval")  # ai_exec: priced as ai_eval
            out.append(
                CallSite(
                    ev.name,
                    ev.node.lineno,
                    ev.node.col_offset + 1,
                    len(ev.trips),
                    list(ev.trips),
                    tool.effect if tool is not None else None,
                    kind,
                    ev.comp_depth > 0,
                )
            )
    out.sort(key=lambda c: (c.line, c.col))
    return out


def _latency_mean(latency: Mapping[str, Any], tool: str) -> float | None:
    entry = latency.get(tool)
    if isinstance(entry, Mapping):
        mean = entry.get("mean")
        if isinstance(mean, int | float) and not isinstance(mean, bool) and math.isfinite(mean) and mean >= 0:
            return float(mean)
    return None


def estimate_cost(
    calls: Iterable[CallSite],
    model: CostModel = CostModel(),  # noqa: B008 - a frozen dataclass, safe as a default
    *,
    latency: Mapping[str, Any] | None = None,
) -> float:
    """Sum of C(call) times, per enclosing loop, its trip count or ``gamma``."""
    total = 0.0
    for c in calls:
        if c.kind == "ai_eval":
            base = model.c_eval
        elif c.kind == "ask_human":
            base = model.c_human
        else:
            mean = _latency_mean(latency, c.tool) if (latency and model.use_latency) else None
            base = mean if mean is not None else model.c_tool
        factor = 1.0
        for n in c.trip_counts:
            factor *= model.gamma if n is None else n
        total += base * factor
    return total
