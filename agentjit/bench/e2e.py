"""The end-to-end bench: the stepwise agent against agentjit, every task of an app, R runs.

For each task and run, on a freshly reset site:

* **agent**: :class:`~agentjit.agent.StepwiseAgent` driven by the oracle policy
  (:mod:`agentjit.bench.oracle`: a recorded demonstration replayed, so it makes
  no wrong step) behind :class:`~agentjit.llm.SimulatedLatency`: steps, model
  calls, input/output tokens, time in the model, total latency, the judge.
  Its latency starts where agentjit's run does: a fresh browser context, the
  start page still to open;
* **agentjit**: the planner compiles the task with a fake model that answers
  the task's reference plan in one call, behind the *same* SimulatedLatency
  profile (so both sides pay the same per-call cost; its input is the real
  planner prompt), then the scheduler picks a strategy and the plan runs:
  compile calls, tokens, compile time, run time, strategy, the judge;
* **agentjit, plan-cache hit**: the same task compiled again (0 model calls), run.
* **agentjit, template hit** (``variants=True``): a literal variant of the task (other values in its
  slots, :mod:`agentjit.bench.templates_bench`) compiled from the template the first compile stored
  (0 model calls when it hits), run and judged. Only tasks whose judges read their values from the
  task's text (:attr:`Task.judges_read_task`: a site judge marked ``reads_task``, a
  :class:`~agentjit.tasks.task.TaskJudge`) get a variant: any other judge holds for the task's own
  values only. The variant's values are ones the site's seed data has (another store that sells
  the item, a book the library holds; a variant that changes fewer slots when no other value fits). The agent is not run on the variant (the oracle replays the task's own
  demonstration); its runs of the task itself, same steps with other values, are the baseline
  the variant's speedup is taken against.
* **browser-use** (``browser_use=True``, with variants; the optional extra, in its own virtualenv):
  browser-use runs each variant, its decisions made by no model: the oracle replays the task's
  demonstration with the variant's slot values substituted (:func:`~agentjit.bench.oracle.substitute_steps`;
  the template says which literal of the task is which slot), and ``done`` carries the answer of
  agentjit's template run of the same variant when its judge accepted it (a variant has no recorded
  answer). Each of its model calls sleeps the same latency profile for the prompt browser-use sent,
  screenshots included (:class:`~agentjit.bench.browser_use_bench.OracleChatModel`). The report marks
  each such run (``note``) and says so in ``browser_use``.

Offline, a task runs only if it has a recorded demonstration for the oracle
(``traces/<app>/tasks/<task id>.jsonl``): every task of food, Roundup and Fava
has one. Others (a task file's own tasks) are listed in the report's ``skipped``
with the reason, never run on one side only. With ``model=`` every task runs.

Speedups are per task (mean agent latency / mean agentjit latency) and over
the app (ratio of the means, and the geometric mean of the per-task ratios).
The sweep re-prices each side at a fixed per-call model latency ``L`` (0 to 8
s): measured latency minus measured model time plus ``calls * L``, so no
single profile carries the result. ``speedup_limits`` gives the two ends the
ratio of means runs between as ``L`` goes from 0 to infinity (time outside the
model, agent over agentjit; model calls, agent over agentjit): the most any
profile could show on these tasks.
"""

from __future__ import annotations

import logging
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from agentjit.cache import ToolCache
from agentjit.exceptions import AgentJITError, ConfigError
from agentjit.llm.base import Message, Model
from agentjit.llm.function import FunctionModel
from agentjit.llm.latency import DEFAULT_PROFILE, LatencyProfile, SimulatedLatency, get_profile
from agentjit.planner import Planner
from agentjit.protocol import urls
from agentjit.runtime import BrowserPool, Runtime
from agentjit.tasks.apps import Site
from agentjit.tasks.runner import _pool, jsonable, resolve_target, run_task
from agentjit.tasks.task import Task

from .agent_runs import agent_once, judge_answer, mean_or_zero
from .oracle import demo_path, has_demo, oracle_model

__all__ = ["E2ERun", "E2ETask", "E2EReport", "run_e2e", "SWEEP_S", "reference_model", "agent_once", "judge_answer"]

log = logging.getLogger(__name__)

SWEEP_S: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Per-call model latencies (seconds) the sweep prices both sides at."""


class E2ERun(BaseModel):
    """One side of one task run."""

    side: str
    """``agent``, ``agentjit``, ``agentjit-cached`` or ``agentjit-template`` (a literal variant)."""
    run: int
    ok: bool
    reason: str = ""
    latency_s: float = 0.0
    """End to end: the agent's whole run, or compile + run for agentjit."""
    model_s: float = 0.0
    """Of which waiting for the model (simulated latency included)."""
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    """Agent steps (model decisions), or tool calls of the plan."""
    compile_s: float = 0.0
    run_s: float = 0.0
    strategy: str = ""
    answer: Any = None
    error: str | None = None
    task: str = ""
    """For ``agentjit-template``: the variant's text."""
    plan_origin: str = ""
    """For the agentjit sides: where the plan came from (``model``, ``cache``, ``template``)."""
    note: str = ""
    """For ``browser-use``: who decided (the demonstration replayed, the variant's values substituted) and
    where the answer came from."""


class E2ETask(BaseModel):
    id: str
    kind: str
    variant: str | None = None
    """With variants: the literal variant of this task that was compiled from its template."""
    runs: list[E2ERun] = Field(default_factory=list)
    summary: dict[str, Any] = Field(default_factory=dict)


class E2EReport(BaseModel):
    app: str
    profile: dict[str, Any]
    runs: int
    model: str = "oracle + reference plans"
    """Who decided: the offline oracle and reference plans, or a real model's name."""
    command: str = ""
    tasks: list[E2ETask] = Field(default_factory=list)
    skipped: list[dict[str, str]] = Field(default_factory=list)
    """Tasks not run, each ``{id, kind, reason}`` (offline: no demonstration for the oracle to replay)."""
    summary: dict[str, Any] = Field(default_factory=dict)
    sweep: list[dict[str, Any]] = Field(default_factory=list)
    browser_use: dict[str, Any] = Field(default_factory=dict)
    """With ``browser_use``: its version, settings and what decided its steps."""
    load_average: list[float] = Field(default_factory=list)
    """``os.getloadavg()`` at the start and (second triple) at the end of the run."""


def reference_model(task: Task) -> FunctionModel:
    """A fake planner model: one answer, the task's reference plan in a code fence."""
    source = task.plan_source()

    def answer(messages: list[Message]) -> str:
        return "```python\n" + source.rstrip() + "\n```"

    return FunctionModel(answer, name="reference")


def _skipped(task: Task) -> dict[str, str]:
    """Why ``task`` cannot run offline (it has no demonstration for the oracle to replay)."""
    try:
        demo_path(task)
        reason = ""
    except ConfigError as exc:
        reason = f"{exc}; the oracle has nothing to replay"
    return {"id": task.id, "kind": task.kind, "reason": reason}


def _fresh_cache(cache: ToolCache) -> ToolCache:
    """The same tools and fits with an empty, in-memory plan cache (the bundled files stay untouched)."""
    return ToolCache(cache.info, cache.tools.values(), latency=cache.latency, schemas=cache.schemas, plans={})


async def _agent_run(task: Task, run: int, *, pool: BrowserPool, site: Site, cache: ToolCache,
                     profile: LatencyProfile, budget_tokens: int, real: Model | None) -> E2ERun:  # fmt: skip
    model = SimulatedLatency(real if real is not None else oracle_model(task), profile)
    t0 = time.perf_counter()
    try:
        result, setup_s, ok, reason = await agent_once(task, run, model, pool=pool, site=site, budget_tokens=budget_tokens,
                                                       start_url=urls.site_url(site.url, cache.info.start_path))  # fmt: skip
    except AgentJITError as exc:
        return E2ERun(side="agent", run=run, ok=False, reason=f"{type(exc).__name__}: {exc}", error=str(exc),
                      latency_s=time.perf_counter() - t0, model_calls=model.calls)  # fmt: skip
    return E2ERun(
        side="agent", run=run, ok=ok, reason=reason, latency_s=setup_s + result.total_s,
        model_s=result.model_s, model_calls=result.model_calls, input_tokens=result.usage.input_tokens,
        output_tokens=result.usage.output_tokens, steps=len(result.steps),
        run_s=setup_s + result.total_s - result.model_s,
        answer=jsonable(result.answer),
    )  # fmt: skip


async def _jit_run(task: Task, run: int, side: str, planner: Planner, model: SimulatedLatency, *,
                   runtime: Runtime, site: Site) -> E2ERun:  # fmt: skip
    calls0, in0, out0, spent0 = model.calls, model.input_tokens, model.output_tokens, model.elapsed_s
    t0 = time.perf_counter()
    try:
        plan = await planner.compile(task.task)
    except AgentJITError as exc:
        return E2ERun(side=side, run=run, ok=False, reason=f"compile: {exc}", error=str(exc),
                      compile_s=time.perf_counter() - t0, model_calls=model.calls - calls0)  # fmt: skip
    compile_s = time.perf_counter() - t0
    res = await run_task(task, plan.source, runtime=runtime, site=site, strategy="auto",
                         plan_origin=plan.origin if plan.origin in ("cache", "template") else "model", draws=f"run-{run}")  # fmt: skip
    return E2ERun(
        side=side, run=run, ok=res.ok, reason=res.reason, latency_s=compile_s + res.latency_s,
        task=task.task if side == "agentjit-template" else "", plan_origin=plan.origin,
        model_s=model.elapsed_s - spent0, model_calls=model.calls - calls0,
        input_tokens=model.input_tokens - in0, output_tokens=model.output_tokens - out0, steps=res.tool_calls,
        compile_s=compile_s, run_s=res.latency_s, strategy=res.strategy, answer=res.answer, error=res.error,
    )  # fmt: skip


def _all_tasks(app_name: str, chosen: Sequence[Task]) -> Sequence[Task]:
    """Every task of the app (the values its reference plans use are the variants' values), else ``chosen``."""
    from agentjit.tasks.apps import get_app

    try:
        return get_app(app_name).tasks()
    except (AgentJITError, KeyError):
        return chosen


def _variants(tasks: Sequence[Task], cache: ToolCache, every: Sequence[Task],
              site: Site) -> dict[str, tuple[Task, dict[str, str]]]:  # fmt: skip
    """One literal variant per task of ``tasks`` that has a template and a judge that reads its values from the
    task; other values come from the enums and from the reference plans of ``every`` task of the app, and only
    values the site's seed data has (:func:`~agentjit.bench.templates_bench.literal_variants` asks the task's
    judge on the untouched site); ``site`` is running. Each with its values: the task's literals mapped to
    the variant's (:func:`~agentjit.bench.templates_bench.variant_values`)."""
    import dataclasses

    from agentjit.bench.templates_bench import (
        literal_variants,
        seed_check,
        value_pool,
        variant_values,
    )
    from agentjit.planner import make_template

    templates = {t.id: make_template(t.task, t.plan_source(), cache) for t in every if t.has_plan}
    templates.update({t.id: make_template(t.task, t.plan_source(), cache) for t in tasks if t.has_plan})
    pool = value_pool(t for t in templates.values() if t is not None)
    site.reset()
    seeded = site.state()
    out: dict[str, tuple[Task, dict[str, str]]] = {}
    for task in tasks:
        template = templates.get(task.id)
        check = seed_check(task, seeded, site.url)
        if template is None or check is None:
            continue
        for text, _how in literal_variants(template, pool, limit=1, seed_lacks=check):
            out[task.id] = (dataclasses.replace(task, task=text), variant_values(template, text))
    return out


BROWSER_USE_MAX_STEPS = 30


def _browser_use_settings() -> dict[str, Any]:
    from .browser_use_bench import require_browser_use

    return {
        "version": require_browser_use(),
        "decisions": "model-free: the oracle replays the task's recorded demonstration with the variant's slot "
                     "values substituted (typed values, chosen options, the names and selectors of the elements "
                     "it picks); no model decides",
        "answer": "what done carries: the answer of agentjit's template-side run of the same variant when its "
                  "judge accepted it (the variant has no recorded answer), else the demonstration's with the "
                  "values substituted",
        "model_latency": "each browser-use model call sleeps the run's profile for the prompt browser-use sent "
                         "(text at four characters a token, screenshots at OpenAI's tile price) and the answer, "
                         "as the stepwise agent's and the planner's calls sleep it for theirs",
        "use_vision": True, "use_judge": False, "max_steps": BROWSER_USE_MAX_STEPS,
    }  # fmt: skip


async def _browser_use_run(variant: Task, values: dict[str, str], template_run: E2ERun, run: int, *, site: Site,
                           profile: LatencyProfile, start_url: str) -> E2ERun:  # fmt: skip
    """browser-use on ``variant``: the oracle replays the task's demonstration with ``values`` substituted
    (:class:`~agentjit.bench.browser_use_bench.OracleChatModel`), behind the same latency profile; ``done``
    carries ``template_run``'s answer when its judge accepted it (see :func:`_browser_use_settings`)."""
    from agentjit.runtime.browser import chromium_executable

    from .browser_use_bench import browser_use_run
    from .oracle import answer_for, substitute_text

    if template_run.side == "agentjit-template" and template_run.ok:
        answer, source = template_run.answer, "agentjit-template's judged answer"
    else:
        seed = answer_for(variant)
        answer = substitute_text(seed, values) if isinstance(seed, str) else seed
        source = "the demonstration's answer, values substituted"
    note = f"replayed demonstration (model-free), values substituted {values}; answer: {source}"
    t0 = time.perf_counter()
    try:
        r = await browser_use_run(variant, run, site=site, start_url=start_url, profile=profile,
                                  executable=chromium_executable(None), use_vision=True,
                                  max_steps=BROWSER_USE_MAX_STEPS, values=values, answer=answer)  # fmt: skip
    except Exception as exc:  # browser-use's crash is this run's failure, the bench goes on
        log.exception("browser-use on %s failed", variant.id)
        return E2ERun(side="browser-use", run=run, ok=False, reason=f"{type(exc).__name__}: {exc}", error=str(exc),
                      latency_s=time.perf_counter() - t0, task=variant.task, note=note)  # fmt: skip
    return E2ERun(
        side="browser-use", run=run, ok=r.ok, reason=r.reason, latency_s=r.latency_s, model_s=r.model_s,
        model_calls=r.model_calls, input_tokens=r.input_tokens, output_tokens=r.output_tokens, steps=r.steps,
        run_s=r.latency_s - r.model_s, answer=jsonable(r.answer), error=r.error, task=variant.task, note=note,
    )  # fmt: skip


def _side(runs: list[E2ERun], side: str) -> dict[str, Any]:
    mine = [r for r in runs if r.side == side]
    return {
        "latency_s": mean_or_zero([r.latency_s for r in mine]),
        "model_s": mean_or_zero([r.model_s for r in mine]),
        "model_calls": mean_or_zero([r.model_calls for r in mine]),
        "input_tokens": mean_or_zero([r.input_tokens for r in mine]),
        "output_tokens": mean_or_zero([r.output_tokens for r in mine]),
        "steps": mean_or_zero([r.steps for r in mine]),
        "compile_s": mean_or_zero([r.compile_s for r in mine]),
        "run_s": mean_or_zero([r.run_s for r in mine]),
        "passed": sum(r.ok for r in mine),
        "runs": len(mine),
        "strategy": sorted({r.strategy for r in mine if r.strategy}),
    }


def _ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 else None


def _summarize_task(t: E2ETask) -> None:
    s: dict[str, Any] = {side: _side(t.runs, side) for side in ("agent", "agentjit", "agentjit-cached")}
    s["speedup"] = _ratio(s["agent"]["latency_s"], s["agentjit"]["latency_s"])
    s["speedup_cached"] = _ratio(s["agent"]["latency_s"], s["agentjit-cached"]["latency_s"])
    if t.variant is not None:
        s["agentjit-template"] = _side(t.runs, "agentjit-template")
        s["agentjit-template"]["template_hits"] = sum(
            r.plan_origin == "template" and r.model_calls == 0 for r in t.runs if r.side == "agentjit-template")
        s["speedup_template"] = _ratio(s["agent"]["latency_s"], s["agentjit-template"]["latency_s"])
        if any(r.side == "browser-use" for r in t.runs):
            s["browser-use"] = _side(t.runs, "browser-use")
    t.summary = s


def _summarize_variants(tasks: list[E2ETask]) -> dict[str, Any]:
    """The variants apart: first compiles, template hits and exact hits of the same tasks, side by side."""
    mine = [t for t in tasks if t.variant is not None]
    if not mine:
        return {"tasks": 0}
    sides: tuple[str, ...] = ("agent", "agentjit", "agentjit-cached", "agentjit-template")
    bu = all("browser-use" in t.summary for t in mine)
    if bu:
        sides += ("browser-use",)
    sums = {side: sum(t.summary[side]["latency_s"] for t in mine) for side in sides}
    over_bu = {} if not bu else {
        "speedup_over_browser_use": {
            "first_compile": _ratio(sums["browser-use"], sums["agentjit"]),
            "template_hit": _ratio(sums["browser-use"], sums["agentjit-template"]),
            "exact_hit": _ratio(sums["browser-use"], sums["agentjit-cached"]),
            "stepwise_agent": _ratio(sums["browser-use"], sums["agent"]),
        },
    }  # fmt: skip
    return {
        "tasks": len(mine),
        "runs": sum(t.summary["agentjit-template"]["runs"] for t in mine),
        "template_hits": sum(t.summary["agentjit-template"]["template_hits"] for t in mine),
        "passed": {side: sum(t.summary[side]["passed"] for t in mine) for side in sides},
        "mean_latency_s": {side: sums[side] / len(mine) for side in sides},
        "model_calls_per_task": {side: sum(t.summary[side]["model_calls"] for t in mine) / len(mine) for side in sides},
        "speedup_first_compile": _ratio(sums["agent"], sums["agentjit"]),
        "speedup_template_hit": _ratio(sums["agent"], sums["agentjit-template"]),
        "speedup_exact_hit": _ratio(sums["agent"], sums["agentjit-cached"]),
        **over_bu,
    }


def _geomean(values: list[float]) -> float | None:
    vals = [v for v in values if v > 0]
    return math.exp(statistics.fmean(math.log(v) for v in vals)) if vals else None


def _priced(side: dict[str, Any], per_call_s: float) -> float:
    """A side's mean latency with every model call costing ``per_call_s`` instead of what it cost."""
    return max(0.0, side["latency_s"] - side["model_s"]) + side["model_calls"] * per_call_s


def _limits(tasks: list[E2ETask]) -> dict[str, float | None]:
    """How far the ratio of means can go at *any* per-call model latency ``L``.

    Summed over the tasks, each side costs ``B + n * L`` (``B`` its time outside the model, ``n``
    its model calls), so the speedup ``(B_agent + n_agent L) / (B_jit + n_jit L)`` moves
    monotonically from ``B_agent / B_jit`` (free calls) to ``n_agent / n_jit`` (slow calls)
    and never leaves that interval: no latency profile can report more than the larger end.
    """
    out: dict[str, float | None] = {}
    for side, key in (("agentjit", ""), ("agentjit-cached", "_cached")):
        outside = {s: sum(max(0.0, t.summary[s]["latency_s"] - t.summary[s]["model_s"]) for t in tasks) for s in ("agent", side)}
        calls = {s: sum(t.summary[s]["model_calls"] for t in tasks) for s in ("agent", side)}
        free, slow = _ratio(outside["agent"], outside[side]), _ratio(calls["agent"], calls[side])
        out[f"free_calls{key}"] = free
        out[f"slow_calls{key}"] = slow
        # None: unbounded (a plan-cache hit makes no call, so slower calls only widen its lead)
        out[f"max{key}"] = None if slow is None or free is None else max(free, slow)
    return out


def _summarize(report: E2EReport, sweep: Sequence[float]) -> None:
    tasks = report.tasks
    sums = {side: sum(t.summary[side]["latency_s"] for t in tasks) for side in ("agent", "agentjit", "agentjit-cached")}
    model = {side: sum(t.summary[side]["model_s"] for t in tasks) for side in sums}
    n = max(1, len(tasks))
    report.summary = {
        "tasks": len(tasks),
        "skipped": [t["id"] for t in report.skipped],
        "mean_latency_s": {side: sums[side] / n for side in sums},
        "model_share": {side: _ratio(model[side], sums[side]) for side in sums},
        "model_calls_per_task": {side: sum(t.summary[side]["model_calls"] for t in tasks) / n for side in sums},
        "tokens_per_task": {
            side: {k: sum(t.summary[side][k] for t in tasks) / n for k in ("input_tokens", "output_tokens")}
            for side in sums
        },
        "passed": {side: sum(t.summary[side]["passed"] for t in tasks) for side in sums},
        "runs": {side: sum(t.summary[side]["runs"] for t in tasks) for side in sums},
        "speedup_ratio_of_means": _ratio(sums["agent"], sums["agentjit"]),
        "speedup_geomean": _geomean([t.summary["speedup"] for t in tasks if t.summary["speedup"]]),
        "speedup_cached_ratio_of_means": _ratio(sums["agent"], sums["agentjit-cached"]),
        "speedup_cached_geomean": _geomean([t.summary["speedup_cached"] for t in tasks if t.summary["speedup_cached"]]),
        "speedup_limits": _limits(tasks),
        "variants": _summarize_variants(tasks),
    }
    rows = []
    for per_call in sweep:
        agent = [_priced(t.summary["agent"], per_call) for t in tasks]
        jit = [_priced(t.summary["agentjit"], per_call) for t in tasks]
        hit = [_priced(t.summary["agentjit-cached"], per_call) for t in tasks]
        rows.append({
            "per_call_s": per_call,
            "agent_mean_s": mean_or_zero(agent),
            "agentjit_mean_s": mean_or_zero(jit),
            "agentjit_cached_mean_s": mean_or_zero(hit),
            "speedup_ratio_of_means": _ratio(sum(agent), sum(jit)),
            "speedup_geomean": _geomean([a / j for a, j in zip(agent, jit, strict=True) if j > 0]),
            "speedup_cached_ratio_of_means": _ratio(sum(agent), sum(hit)),
        })  # fmt: skip
    report.sweep = rows


async def run_e2e(
    app_name: str = "food",
    *,
    runs: int = 1,
    profile: str | LatencyProfile = DEFAULT_PROFILE,
    model_scale: float = 1.0,
    latency_scale: float = 1.0,
    task_ids: Sequence[str] | None = None,
    budget_tokens: int = 6000,
    sweep: Sequence[float] = SWEEP_S,
    seed: int = 0,
    pool: BrowserPool | None = None,
    model: Model | None = None,
    command: str = "",
    on_run: Callable[[str, E2ERun], None] | None = None,
    variants: bool = False,
    browser_use: bool = False,
) -> E2EReport:
    """Run the bench on ``app_name``'s tasks (``task_ids`` to pick some); see the module docstring.

    ``profile`` (scaled by ``model_scale``, 0 to make model calls free) is the
    simulated model latency both sides pay; ``latency_scale`` the site's own.
    With ``model`` (a real provider, or any :class:`Model`) both sides ask it
    instead: the agent for every action, the planner for the plan (one
    worker, so repairs are the only extra calls); pass profile ``none`` then.
    With ``variants`` each task whose judge reads the task is followed by a literal variant of it; with
    ``browser_use`` too (the optional extra), browser-use runs each variant (:func:`_browser_use_run`).
    """
    prof = get_profile(profile)
    if model_scale != 1.0:
        prof = prof.scaled(model_scale)
    target = resolve_target(app_name, task_ids=task_ids, latency_scale=latency_scale, seed=seed)
    site = target.site
    report = E2EReport(app=app_name, profile=prof.to_json(), runs=runs, command=command,
                       load_average=list(os.getloadavg()))  # fmt: skip
    if browser_use:
        if model is not None or not variants:
            raise ConfigError("e2e: browser-use runs the variants with the oracle: give variants and no model")
        report.browser_use = _browser_use_settings()
    tasks = list(target.tasks)
    if model is not None:
        report.model = getattr(model, "name", type(model).__name__)
    else:
        report.skipped = [_skipped(t) for t in tasks if not has_demo(t)]
        tasks = [t for t in tasks if has_demo(t)]
        for skip in report.skipped:
            log.warning("e2e: skipping %s (%s): %s", skip["id"], skip["kind"] or "task", skip["reason"])
        if not tasks:
            raise ConfigError(f"no task of {app_name!r} has a demonstration for the oracle: {report.skipped[0]['reason']}")
    by_id = {t.id: E2ETask(id=t.id, kind=t.kind) for t in tasks}
    site.start()
    try:
        variant_of = _variants(target.tasks, target.cache, _all_tasks(app_name, target.tasks), site) if variants else {}
        for task_id, (variant, _values) in variant_of.items():
            if task_id in by_id:
                by_id[task_id].variant = variant.task
        async with _pool(pool) as active:
            runtime = Runtime(target.cache, site.url, pool=active)
            for r in range(runs):
                for task in tasks:
                    entry = by_id[task.id]
                    a = await _agent_run(task, r, pool=active, site=site, cache=target.cache, profile=prof,
                                         budget_tokens=budget_tokens, real=model)  # fmt: skip
                    entry.runs.append(a)
                    if on_run is not None:
                        on_run(task.id, a)
                    compiler = SimulatedLatency(model if model is not None else reference_model(task), prof)
                    planner = Planner(compiler, _fresh_cache(target.cache), n=1, k=1)
                    runtime.cache = planner.cache
                    for side in ("agentjit", "agentjit-cached", "agentjit-template"):
                        subject = variant_of[task.id][0] if side == "agentjit-template" and task.id in variant_of else task
                        if side == "agentjit-template" and task.id not in variant_of:
                            continue
                        j = await _jit_run(subject, r, side, planner, compiler, runtime=runtime, site=site)
                        entry.runs.append(j)
                        if on_run is not None:
                            on_run(task.id, j)
                    if browser_use and task.id in variant_of:
                        variant, values = variant_of[task.id]
                        b = await _browser_use_run(variant, values, entry.runs[-1], r, site=site, profile=prof,
                                                   start_url=urls.site_url(site.url, target.cache.info.start_path))  # fmt: skip
                        entry.runs.append(b)
                        if on_run is not None:
                            on_run(task.id, b)
    finally:
        site.stop()
    report.load_average += list(os.getloadavg())
    report.tasks = list(by_id.values())
    for t in report.tasks:
        _summarize_task(t)
    _summarize(report, sweep)
    return report
