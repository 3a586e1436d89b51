"""Benchmark: does the scheduler pick the strategy that is really fastest?

Two steps, both against the app's bundled site with latency injection on:

1. **Profile** (:func:`agentjit.tasks.profile.profile_app`, re-exported here
   with :func:`~agentjit.tasks.profile.write_latency`): serial runs of every
   task fit each tool's latency, then what an extra browser context costs on
   this machine is measured; ``agentjit profile`` is the same step on its own.
2. **Measure** (:func:`run_scheduler_bench`): for every task, schedule its plan
   with those fits, then run serial, parallel (only where the main loop can fan
   out) and hedge ``repeats`` times each in real Chromium, the site reset and
   the outcome judged every time. The strategy with the lowest measured mean
   latency is the oracle (as in the paper's appendix D); the report gives the
   agreement rate, the mean latency regret ``(chosen - oracle) / oracle`` and
   the Monte Carlo decision time.

:class:`~agentjit.session.AutoStrategy` and
:func:`~agentjit.session.runtime_strategy` (re-exported here) live in the
session layer: resolving a schedule into a runtime strategy is not the bench's.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from agentjit.cache import ToolCache
from agentjit.protocol import urls
from agentjit.runtime import BrowserPool
from agentjit.scheduler import (
    Distribution,
    Schedule,
    load_latency,
)
from agentjit.session import AutoStrategy, Session, runtime_strategy
from agentjit.tasks.apps import Site
from agentjit.tasks.overheads import measure_overheads
from agentjit.tasks.profile import (
    LatencyProfile,
    OnRun,
    RunEvent,
    _profile,
    profile_app,
    write_latency,
)
from agentjit.tasks.runner import _pool, reference_source, resolve_target, run_task
from agentjit.tasks.task import Task

__all__ = [
    "STRATEGY_ORDER",
    "AutoStrategy",
    "LatencyProfile",
    "RunEvent",
    "SchedulerBenchReport",
    "TaskComparison",
    "profile_app",
    "run_scheduler_bench",
    "runtime_strategy",
    "measure_overheads",
    "write_latency",
]

log = logging.getLogger(__name__)

STRATEGY_ORDER = ("serial", "parallel", "hedge")

# -- the benchmark -----------------------------------------------------------------------------


class StrategyRuns(BaseModel):
    """Every measured run of one strategy on one task."""

    strategy: str
    workers: int
    latencies_s: list[float] = Field(default_factory=list)
    ok: list[bool] = Field(default_factory=list)
    ran_as: list[str] = Field(default_factory=list)
    """The strategy each run reported (a parallel run whose loop cannot be cut reports serial)."""

    @property
    def mean_s(self) -> float | None:
        good = [t for t, ok in zip(self.latencies_s, self.ok, strict=True) if ok]
        return statistics.fmean(good) if good else None


class TaskComparison(BaseModel):
    """The scheduler's choice for one task against the measured oracle."""

    id: str
    kind: str
    chosen: str
    chosen_workers: int
    oracle: str | None
    agree: bool
    regret: float | None
    """``(measured mean of the choice - oracle mean) / oracle mean``."""
    measured_mean_s: dict[str, float | None]
    predicted_mean_s: dict[str, float]
    predicted_p95_s: dict[str, float]
    workers: dict[str, int]
    decision_time_s: float
    reason: str
    runs: list[StrategyRuns]
    failures: list[str] = Field(default_factory=list)


class SchedulerBenchReport(BaseModel):
    tasks: list[TaskComparison]
    summary: dict[str, Any] = Field(default_factory=dict)
    profile: list[dict[str, Any]] = Field(default_factory=list)
    """The per-tool fits the scheduler used."""


def _configs(schedule: Schedule) -> list[tuple[str, int]]:
    """The strategies to measure for a plan, with worker counts taken from the scheduler.

    Parallel only where the scheduler considered it (a cuttable loop with at
    least two trips); hedge always (every bench plan reads before it writes).
    """
    out: list[tuple[str, int]] = [("serial", 1)]
    for name in ("parallel", "hedge"):
        est = schedule.estimates.get(name)
        if est is not None:
            out.append((name, est.workers))
        elif name == "hedge":
            out.append(("hedge", 2))
    return out


def _compare(task: Task, schedule: Schedule, runs: list[StrategyRuns]) -> TaskComparison:
    means = {r.strategy: r.mean_s for r in runs}
    finite = {k: v for k, v in means.items() if v is not None}
    oracle = min(finite, key=lambda k: finite[k]) if finite else None
    chosen = schedule.strategy
    regret: float | None = None
    if oracle is not None and finite.get(chosen) is not None:
        regret = (finite[chosen] - finite[oracle]) / finite[oracle]
    failures = [
        f"{task.id} ({r.strategy} run {i + 1})"
        for r in runs
        for i, ok in enumerate(r.ok)
        if not ok
    ]
    return TaskComparison(
        id=task.id,
        kind=task.kind,
        chosen=chosen,
        chosen_workers=schedule.workers,
        oracle=oracle,
        agree=oracle == chosen,
        regret=regret,
        measured_mean_s=means,
        predicted_mean_s={k: v.mean for k, v in schedule.estimates.items()},
        predicted_p95_s={k: v.p95 for k, v in schedule.estimates.items()},
        workers={r.strategy: r.workers for r in runs},
        decision_time_s=schedule.decision_time_s,
        reason=schedule.reason,
        runs=runs,
        failures=failures,
    )


async def _measure(
    tasks: Sequence[Task],
    cache: ToolCache,
    site: Site,
    pool: BrowserPool,
    latency: Mapping[str, Distribution],
    observed: Mapping[str, float],
    repeats: int,
    seed: int,
    on_run: OnRun | None,
    scheduler_options: Mapping[str, Any],
) -> list[TaskComparison]:
    session = Session(cache, site_url=site.url, pool=pool, latency=latency, observed_lengths=observed, seed=seed,
                      scheduler_options=scheduler_options)  # fmt: skip
    out: list[TaskComparison] = []
    for task in tasks:
        source = reference_source(task)
        schedule = session.schedule(source)  # the plan's usage, read once, serves every strategy below
        configs = _configs(schedule)
        runs = [StrategyRuns(strategy=name, workers=w) for name, w in configs]
        for repeat in range(repeats):  # interleaved, so drifting machine load hits every strategy alike
            for (name, workers), record in zip(configs, runs, strict=True):
                # one draws stream per repeat: within a repeat every strategy meets the same delays
                res = await run_task(
                    task, source, session=session, site=site,
                    strategy=session.strategy(name, source, workers=workers)[0],
                    draws=f"measure-{repeat}",
                )
                record.latencies_s.append(res.latency_s)
                record.ok.append(res.ok)
                record.ran_as.append(res.strategy)
                if not res.ok:
                    log.warning("%s %s failed: %s", task.id, name, res.reason)
                if on_run is not None:
                    on_run(RunEvent("measure", task.id, name, res))
        out.append(_compare(task, schedule, runs))
    return out


def _summary(rows: list[TaskComparison]) -> dict[str, Any]:
    judged = [r for r in rows if r.oracle is not None]
    regrets = [r.regret for r in judged if r.regret is not None]
    oracle_counts = {s: sum(1 for r in judged if r.oracle == s) for s in STRATEGY_ORDER}
    chosen_counts = {s: sum(1 for r in rows if r.chosen == s) for s in STRATEGY_ORDER}
    return {
        "tasks": len(rows),
        "agreement": (sum(r.agree for r in judged) / len(judged)) if judged else None,
        "mean_regret": statistics.fmean(regrets) if regrets else None,
        "max_regret": max(regrets) if regrets else None,
        "decision_time_median_s": statistics.median(r.decision_time_s for r in rows) if rows else None,
        "oracle_counts": oracle_counts,
        "chosen_counts": chosen_counts,
        "runs": sum(len(run.ok) for r in rows for run in r.runs),
        "failed_runs": sum(len(r.failures) for r in rows),
        "failures": [f for r in rows for f in r.failures],
    }


async def run_scheduler_bench(
    app_name: str | None = "food",
    *,
    site_url: str | None = None,
    tasks: list[Task] | None = None,
    repeats: int = 3,
    latency_scale: float = 1.0,
    profile_repeats: int = 3,
    task_ids: Sequence[str] | None = None,
    seed: int = 0,
    cache: ToolCache | None = None,
    pool: BrowserPool | None = None,
    on_run: OnRun | None = None,
    scheduler_options: Mapping[str, Any] | None = None,
) -> SchedulerBenchReport:
    """Profile (unless ``profile_repeats`` is 0: then the cache's ``latency.json`` is used),
    schedule every task, measure every strategy ``repeats`` times, compare.

    Tasks, cache and site as in :func:`profile_app`.
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    target = resolve_target(
        app_name, site_url=site_url, cache=cache, tasks=tasks, task_ids=task_ids,
        latency_scale=latency_scale, seed=seed,
    )  # fmt: skip
    cache, tasks, site = target.cache, target.tasks, target.site
    site.start()
    t0 = time.perf_counter()
    try:
        async with _pool(pool) as active:
            if profile_repeats > 0:
                profile = await _profile(tasks, cache, site, active, profile_repeats, on_run)
            else:
                profile = LatencyProfile(load_latency(cache), latency_scale=latency_scale)
            # measured now even after a profile: the bench's own conditions (a loaded machine) count
            overheads = await measure_overheads(active, urls.site_url(site.url, cache.info.start_path))
            options = {"overheads": overheads, **(scheduler_options or {})}
            rows = await _measure(
                tasks, cache, site, active, profile.fits, profile.observed_lengths,
                repeats, seed, on_run, options,
            )  # fmt: skip
            browser = active.version
    finally:
        site.stop()
    summary = _summary(rows)
    summary.update(
        {
            "repeats": repeats,
            "profile_repeats": profile_repeats,
            "profile_failures": profile.failures,
            "latency_scale": latency_scale,
            "browser": browser,
            "wall_s": round(time.perf_counter() - t0, 3),
        }
    )
    summary["overheads"] = dataclasses.asdict(overheads)
    return SchedulerBenchReport(tasks=rows, summary=summary, profile=profile.summary())
