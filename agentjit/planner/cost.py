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

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agentjit.plan.trips import MAX_TRIP_COUNT, named_trip_counts, trip_count
from agentjit.protocol.manifest import Effect, ToolManifest

if TYPE_CHECKING:
    from .cfg import CFG

__all__ = ["CostModel", "CallSite", "call_sites", "estimate_cost", "trip_count", "named_trip_counts",
           "MAX_TRIP_COUNT"]

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
