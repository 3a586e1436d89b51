"""The one gate a plan passes before it runs: the full static checker, as ``agentjit check``.

Every entry point that runs a plan (``agentjit run`` with a file or ``--task``,
``agentjit demo``, :func:`agentjit.api.run`, :mod:`agentjit.sync`, the bench
harness) calls :func:`admit` first, and a plan taken from a plan cache is
checked again against the current tools (:meth:`Planner.cached
<agentjit.planner.Planner.cached>`). The runtime never imports the planner, so
the gate lives here, below every entry point that needs it.
"""

from __future__ import annotations

from agentjit.cache import ToolCache
from agentjit.exceptions import PlanRejected
from agentjit.plan.parsed import Plan

from .checker import CheckResult, check
from .cost import CostModel

__all__ = ["admit", "rejection"]


def rejection(result: CheckResult, *, origin: str | None = None) -> PlanRejected:
    """The :class:`PlanRejected` for an invalid ``result``: names the first finding's code and line.

    ``origin`` says where the plan came from (a file, a plan cache entry) and is
    kept as the error's ``source``.
    """
    first = result.diagnostics[0] if result.diagnostics else None
    if first is None:  # pragma: no cover - an invalid result always has a finding
        return PlanRejected("rejected by the checker", diagnostics=[], source=origin)
    more = len(result.diagnostics) - 1
    text = f"rejected by the checker: [{first.code}] {first.message}"
    if more:
        text += f" (and {more} more finding{'s' if more > 1 else ''})"
    if origin:
        text += f" (plan from {origin})"
    return PlanRejected(text, line=first.line, col=first.col, diagnostics=result.diagnostics, source=origin)


def admit(source: str | Plan, cache: ToolCache, *, origin: str | None = None, cost_model: CostModel | None = None) -> CheckResult:
    """Check ``source`` against ``cache`` exactly as ``agentjit check`` does; raise if it is invalid.

    ``source`` is plan text or a parsed :class:`~agentjit.plan.parsed.Plan` (whose tree is checked,
    not parsed again; a verdict it already has under this ``cache`` and ``cost_model`` is reused).

    Returns the :class:`CheckResult` of a valid plan; raises
    :class:`~agentjit.exceptions.PlanRejected` (with the findings in
    ``diagnostics`` and ``origin`` in ``source``) otherwise.
    """
    result = check(source, cache, cost_model=cost_model)
    if not result.valid:
        raise rejection(result, origin=origin)
    return result
