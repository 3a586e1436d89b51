"""What the planner returns: the chosen plan with its cost, call sites and statistics."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from agentjit.llm import Usage
from agentjit.plan.parsed import Plan

from .cost import CallSite

__all__ = ["CompiledPlan", "PlanStats", "CandidateReport", "PlanOrigin", "compile_report"]

PlanOrigin = Literal["model", "cache", "template", "reference", "file"]


class CandidateReport(BaseModel):
    """One candidate the planner saw: a first sample or a repair of an earlier one."""

    source: str
    valid: bool
    cost: float | None = None
    diagnostics: list[dict[str, Any]] = Field(default_factory=list)
    worker: int = 0
    attempt: int = 0
    """0 for the first sample of a worker, 1.. for its repairs."""
    run_round: int = 0
    """0 in a compile; n in the n-th repair after a plan failed when it ran (attempt 0 is then the model's
    answer to the run-time error)."""
    time_s: float = 0.0
    """When the candidate was checked, from the start of the compile."""


class PlanStats(BaseModel):
    sampled: int = 0
    """Model answers requested for first samples."""
    repaired: int = 0
    """Model answers requested as repairs."""
    valid: int = 0
    answered: int = 0
    """Model requests that were answered (``sampled + repaired`` counts those asked for, some then cancelled)."""
    rejected_by_code: dict[str, int] = Field(default_factory=dict)
    """For each diagnostic code, how many rejected candidates had it."""
    cancelled: int = 0
    """Workers cancelled by the early accept."""
    run_repaired: int = 0
    """Times a plan that passed the checker failed when it ran (before any WRITE) and went back to the model."""


class CompiledPlan(BaseModel):
    """A plan ready to schedule and run."""

    task: str
    source: str
    cost: float | None = None
    calls: list[CallSite] = Field(default_factory=list)
    origin: PlanOrigin = "model"
    model: str = ""
    stats: PlanStats = Field(default_factory=PlanStats)
    time_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    candidates: list[CandidateReport] = Field(default_factory=list)
    cache_fingerprint: str = ""
    plan_cache: str | None = None
    """For ``origin == "cache"``: the plan cache file the plan came from. ``stats``, ``usage`` and
    ``candidates`` then describe this compile (no model call: all zero); ``model`` names the model
    that compiled the plan originally. For ``origin == "template"`` too: the file that holds the template."""
    template_task: str | None = None
    """For ``origin == "template"``: the task the template was compiled for (its plan, with other values, is
    this plan)."""
    slot_values: dict[str, Any] = Field(default_factory=dict)
    """For ``origin == "template"``: the value of each slot in this task (``{"s0": "Petco"}``)."""
    _parsed: Plan | None = PrivateAttr(default=None)

    @property
    def plan(self) -> Plan:
        """``source`` parsed once (by the planner's checker, or here on first use): what the gate,
        the scheduler and the runtime are handed."""
        if self._parsed is None or self._parsed.source != self.source:
            self._parsed = Plan.parse(self.source)
        return self._parsed

    def parsed_as(self, plan: Plan) -> CompiledPlan:
        """This plan, keeping ``plan`` (its source parsed already) as :attr:`plan`."""
        if plan.source == self.source:
            self._parsed = plan
        return self


def compile_report(stats: PlanStats, usage: Usage, candidates: list[CandidateReport], time_s: float) -> dict[str, Any]:
    """What one compile did, as plain data: model calls, tokens, seconds, and every candidate with its
    findings (their codes, and each finding whole), and its source (``demo --json`` prints it per task, a
    compile that found no plan too)."""
    return {
        "time_s": round(time_s, 3),
        "model_calls": stats.answered,
        "sampled": stats.sampled,
        "repaired": stats.repaired,
        "valid": stats.valid,
        "cancelled": stats.cancelled,
        "run_repaired": stats.run_repaired,
        "rejected_by_code": dict(stats.rejected_by_code),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "candidates": [
            {"worker": c.worker, "attempt": c.attempt, "run_round": c.run_round, "valid": c.valid,
             "time_s": round(c.time_s, 3), "codes": sorted({str(d.get("code")) for d in c.diagnostics}),
             "source": c.source, "diagnostics": [dict(d) for d in c.diagnostics]}
            for c in candidates
        ],
    }
