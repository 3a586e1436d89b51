"""Profiling a site: per-tool latency fits and this machine's browser-context overheads.

:func:`profile_app` runs every task's reference plan serially ``repeats``
times, collects the tool steps from the traces and fits each tool's latency
(:func:`agentjit.scheduler.refit_from_traces`), then measures what an extra
browser context costs on this machine
(:func:`agentjit.tasks.overheads.measure_overheads`). The fits and the
overheads are what the scheduler reads; :func:`write_latency` stores them in a
cache's ``latency.json`` and ``machine.json`` (only on request: ``agentjit
profile --write``). ``agentjit bench scheduler`` profiles the same way first.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache, atomic_write_json
from agentjit.protocol import urls
from agentjit.protocol.trace import StepEvent, read_trace
from agentjit.runtime import BrowserPool
from agentjit.scheduler import (
    Distribution,
    Overheads,
    fits_to_json,
    observed_lengths_from_steps,
    refit_from_traces,
)
from agentjit.session import Session

from .apps import Site
from .overheads import measure_overheads, overheads_record
from .runner import TaskResult, _pool, reference_source, resolve_target, run_task
from .task import Task

__all__ = ["LatencyProfile", "OnRun", "RunEvent", "profile_app", "write_latency"]

log = logging.getLogger(__name__)

OnRun = Callable[["RunEvent"], None]


@dataclass(frozen=True)
class RunEvent:
    """One finished run, for progress reporting: which phase, task and strategy, and its result."""

    phase: str  # "profile" or "measure"
    task: str
    strategy: str
    result: TaskResult



@dataclass
class LatencyProfile:
    """Fitted per-tool latencies from serial runs, with the steps they came from, and what an
    extra browser context costs on this machine (measured after the runs)."""

    fits: dict[str, Distribution]
    steps: list[StepEvent] = field(default_factory=list)
    runs: int = 0
    failures: list[str] = field(default_factory=list)
    latency_scale: float = 1.0
    overheads: Overheads | None = None

    @property
    def observed_lengths(self) -> dict[str, float]:
        return observed_lengths_from_steps(self.steps)

    def to_json(self) -> dict[str, Any]:
        return fits_to_json(self.fits)

    def summary(self) -> list[dict[str, Any]]:
        """One row per tool: family, sample count, mean, median and p95 (seconds)."""
        return [
            {"tool": key, "family": d.family, "n": d.n, "mean_s": d.mean, "p50_s": d.p50, "p95_s": d.p95}
            for key, d in sorted(self.fits.items())
        ]


def write_latency(
    cache_dir: str | Path, fits: Mapping[str, Distribution], overheads: Overheads | None = None
) -> Path:
    """Write ``fits`` atomically as ``cache_dir/latency.json`` (and measured ``overheads`` as
    ``machine.json``); returns the fits' file."""
    path = Path(cache_dir) / "latency.json"
    atomic_write_json(path, fits_to_json(fits))
    log.info("wrote %d latency fits to %s", len(fits), path)
    if overheads is not None:
        atomic_write_json(Path(cache_dir) / "machine.json", overheads_record(overheads))
    return path


async def _profile(
    tasks: Sequence[Task],
    cache: ToolCache,
    site: Site,
    pool: BrowserPool,
    repeats: int,
    on_run: OnRun | None,
) -> LatencyProfile:
    steps: list[StepEvent] = []
    failures: list[str] = []
    runs = 0
    with tempfile.TemporaryDirectory(prefix="agentjit-profile-") as tmp:
        session = Session(cache, site_url=site.url, pool=pool, trace_dir=tmp)
        for repeat in range(repeats):
            for task in tasks:
                res = await run_task(
                    task, reference_source(task), session=session, site=site, draws=f"profile-{repeat}"
                )
                runs += 1
                if not res.ok:
                    failures.append(f"{task.id} (profile, serial): {res.reason}")
                if res.trace_path:
                    steps.extend(read_trace(res.trace_path, check_snapshots=False).steps)
                if on_run is not None:
                    on_run(RunEvent("profile", task.id, "serial", res))
    fits = refit_from_traces({}, steps)
    overheads = await measure_overheads(pool, urls.site_url(site.url, cache.info.start_path))
    return LatencyProfile(fits, steps, runs, failures, site.latency_scale, overheads)


async def profile_app(
    app_name: str | None = "food",
    *,
    site_url: str | None = None,
    tasks: list[Task] | None = None,
    repeats: int = 3,
    latency_scale: float = 1.0,
    seed: int = 0,
    task_ids: Sequence[str] | None = None,
    cache: ToolCache | None = None,
    pool: BrowserPool | None = None,
    on_run: OnRun | None = None,
) -> LatencyProfile:
    """Run every task's reference plan serially ``repeats`` times, fit per-tool latencies and
    measure the browser-context overheads.

    The tasks, cache and site are the profile ``app_name``'s unless given
    (``site_url`` is not started); the profile's site and a browser (unless
    ``pool`` is given) run for the duration. Nothing is written: see
    :func:`write_latency`.
    """
    if repeats < 1:
        raise ValueError("profile repeats must be at least 1")
    target = resolve_target(
        app_name, site_url=site_url, cache=cache, tasks=tasks, task_ids=task_ids,
        latency_scale=latency_scale, seed=seed,
    )  # fmt: skip
    cache, tasks, site = target.cache, target.tasks, target.site
    site.start()
    try:
        async with _pool(pool) as active:
            return await _profile(tasks, cache, site, active, repeats, on_run)
    finally:
        site.stop()
