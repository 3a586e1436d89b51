"""Cost-aware scheduling (the paper's Algorithm 2): pick serial, parallel or hedge by Monte Carlo.

The usage comes from the plan itself (:func:`agentjit.scheduler.usage.plan_usage`);
the candidates are

* serial, always;
* parallel with 2..``max_workers`` workers, only when the main loop is
  map- or reduction-shaped (``LoopUse.parallel_ok``) and runs at least twice;
* hedge with each of ``hedge_replicas`` (capped at ``max_workers``), only when
  there is at least one READ call before the first WRITE (an all-READ plan
  hedges whole).

Each candidate is simulated with the same number of trials; the best worker
count per strategy is kept, and the strategy with the lowest mean (or p95) wins.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from agentjit.cache.store import ToolCache
from agentjit.exceptions import CacheError

from .distributions import Distribution, fits_from_json
from .montecarlo import (
    DEFAULT_TRIALS,
    LatencyModel,
    Overheads,
    StrategyEstimate,
    StrategyName,
    simulate_hedge_many,
    simulate_parallel_many,
    simulate_serial,
    summarize,
    win_rates,
)
from .usage import PlanUsage, plan_usage

__all__ = ["Objective", "Schedule", "Scheduler", "schedule_plan", "load_latency", "load_overheads"]

log = logging.getLogger(__name__)

Objective = Literal["mean", "p95"]

MAX_DRAWS = 4_000_000
"""Most latency draws one strategy's simulation may hold (trials x calls); a plan that makes
more calls is simulated with fewer trials, so a long loop cannot exhaust memory."""


@dataclass(frozen=True)
class Schedule:
    """The scheduler's decision, with every strategy's estimate and why."""

    strategy: StrategyName
    workers: int
    estimates: dict[str, StrategyEstimate]
    """The best configuration of each strategy that was considered, keyed by strategy."""
    win_rates: dict[str, float]
    decision_time_s: float
    reason: str
    candidates: list[StrategyEstimate] = field(default_factory=list)
    """Every configuration simulated (each worker / replica count)."""
    missing_latency: list[str] = field(default_factory=list)
    """Tools priced at the default constant because they have no fitted distribution."""
    usage: PlanUsage | None = field(default=None, repr=False, compare=False)
    """The plan usage the decision read: hand it to the strategy that carries the decision out
    (``ParallelStrategy(usage=...)``), so the plan is analysed once."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "workers": self.workers,
            "estimates": {k: v.to_dict() for k, v in self.estimates.items()},
            "win_rates": dict(self.win_rates),
            "decision_time_s": self.decision_time_s,
            "reason": self.reason,
            "candidates": [c.to_dict() for c in self.candidates],
            "missing_latency": list(self.missing_latency),
        }


class Scheduler:
    """Chooses how to run a plan from fitted per-tool latency distributions."""

    def __init__(
        self,
        latency: Mapping[str, Distribution],
        *,
        n_trials: int = DEFAULT_TRIALS,
        max_workers: int = 4,
        hedge_replicas: Sequence[int] = (2, 3),
        objective: Objective = "mean",
        overheads: Overheads | None = None,
        default_latency_s: float | None = None,
        keep_samples: bool = False,
        min_gain_s: float = 0.05,
        min_gain_ratio: float = 0.05,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if n_trials < 1:
            raise ValueError("n_trials must be at least 1")
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        if objective not in ("mean", "p95"):
            raise ValueError(f"objective must be 'mean' or 'p95', got {objective!r}")
        self.latency = dict(latency)
        self.n_trials = n_trials
        self.max_workers = max_workers
        self.hedge_replicas = tuple(sorted({r for r in hedge_replicas if 2 <= r <= max_workers}))
        self.objective: Objective = objective
        self.overheads = overheads or Overheads()
        self.default_latency_s = default_latency_s
        self.keep_samples = keep_samples
        self.min_gain_s = min_gain_s
        self.min_gain_ratio = min_gain_ratio
        """A concurrent strategy must beat serial by at least this much (seconds, and a fraction
        of serial's score): extra contexts cost CPU and memory the latency model does not see,
        so a near-tie goes to serial."""
        self.clock = clock

    def _score(self, est: StrategyEstimate) -> float:
        return est.p95 if self.objective == "p95" else est.mean

    def schedule(self, usage: PlanUsage, rng: np.random.Generator) -> Schedule:
        """Simulate every eligible strategy on ``usage`` and return the best (Algorithm 2)."""
        start = self.clock()
        offsets: dict[str, float] = {}
        if self.overheads.page_read_s:
            replay = usage.loop.entry_replay if usage.loop else []
            offsets = {
                c.tool: self.overheads.page_read_s for c in [*usage.calls, *replay] if c.navigates
            }
        model = LatencyModel(self.latency, default_s=self.default_latency_s, offsets=offsets)
        n = self.n_trials
        runs: dict[str, tuple[StrategyEstimate, np.ndarray]] = {}
        candidates: list[StrategyEstimate] = []
        notes: list[str] = []
        calls = usage.total_calls() + sum(c.count for c in (usage.loop.entry_replay if usage.loop else []))
        if calls * n > MAX_DRAWS:
            n = max(1, MAX_DRAWS // max(calls, 1))
            notes.append(f"{n} trials only: the plan makes about {calls} calls")

        def consider(strategy: StrategyName, workers: int, samples: np.ndarray) -> None:
            est = summarize(strategy, workers, samples, keep_samples=self.keep_samples)
            candidates.append(est)
            best = runs.get(strategy)
            if best is None or self._score(est) < self._score(best[0]):
                runs[strategy] = (est, samples)

        consider("serial", 1, simulate_serial(usage, model, rng, n))

        loop = usage.loop
        if loop is None:
            notes.append("no loop to parallelize")
        elif not loop.parallel_ok:
            notes.append(f"loop on line {loop.line} stays serial: {loop.reason}")
        elif loop.trips < 2:
            notes.append(f"loop on line {loop.line} runs {loop.trips} time(s) ({loop.trip_source})")
        elif self.max_workers >= 2:
            counts = list(range(2, min(self.max_workers, loop.trips) + 1))
            for w, samples in simulate_parallel_many(
                usage, model, rng, n, counts, self.overheads
            ).items():
                consider("parallel", w, samples)

        before, _rest = usage.split_at_first_write()
        if not before:
            notes.append("no READ call before the first WRITE to hedge")
        else:
            if self.hedge_replicas:
                hedges = simulate_hedge_many(
                    usage, model, rng, n, self.hedge_replicas, self.overheads
                )
                for r, samples in hedges.items():
                    consider("hedge", r, samples)

        estimates = {name: est for name, (est, _s) in runs.items()}
        rates = win_rates({name: s for name, (_e, s) in runs.items()})
        chosen = min(estimates.values(), key=self._score)
        serial = estimates["serial"]
        metric = self.objective
        gain = self._score(serial) - self._score(chosen)
        if chosen.strategy != "serial" and gain < max(self.min_gain_s, self.min_gain_ratio * self._score(serial)):
            why = (
                f"serial: {chosen.strategy} x{chosen.workers} would gain only {gain:.3f} s "
                f"({metric} {self._score(chosen):.3f} s vs {self._score(serial):.3f} s), not worth extra contexts"
            )
            chosen = serial
        elif chosen.strategy == "serial":
            others = [e for e in estimates.values() if e.strategy != "serial"]
            why = "serial is fastest"
            if others:
                runner = min(others, key=self._score)
                why += (
                    f" ({metric} {self._score(serial):.3f} s vs {runner.strategy} x{runner.workers} "
                    f"{self._score(runner):.3f} s)"
                )
        else:
            why = (
                f"{chosen.strategy} x{chosen.workers}: {metric} {self._score(chosen):.3f} s vs serial "
                f"{self._score(serial):.3f} s, fastest in {rates[chosen.strategy]:.0%} of trials"
            )
        reason = "; ".join([why, *notes])
        elapsed = self.clock() - start
        log.debug("schedule: %s in %.2f ms", reason, elapsed * 1e3)
        return Schedule(
            strategy=chosen.strategy,
            workers=chosen.workers,
            estimates=estimates,
            win_rates=rates,
            decision_time_s=elapsed,
            reason=reason,
            candidates=candidates,
            missing_latency=sorted(model.missing),
            usage=usage,
        )


def load_latency(cache: ToolCache) -> dict[str, Distribution]:
    """The cache's fitted latency distributions (``latency.json``), parsed and checked."""
    source = str(cache.path / "latency.json") if cache.path is not None else "latency.json"
    return fits_from_json(cache.latency, source=source)


def load_overheads(cache: ToolCache) -> Overheads:
    """The browser-context overheads measured with the cache (``machine.json``), else the defaults."""
    if not cache.machine:
        return Overheads()
    try:
        return Overheads.from_dict(cache.machine)
    except ValueError as exc:
        source = str(cache.path / "machine.json") if cache.path is not None else "machine.json"
        raise CacheError(str(exc), path=source) from None


def schedule_plan(
    source: str,
    cache: ToolCache,
    *,
    rng: np.random.Generator | None = None,
    observed_lengths: Mapping[str, float] | None = None,
    latency: Mapping[str, Distribution] | None = None,
    **options: Any,
) -> Schedule:
    """Read plan ``source``'s usage against ``cache`` and schedule it.

    ``latency`` defaults to the cache's ``latency.json``, ``overheads`` (an
    option) to its ``machine.json``; ``rng`` to a generator seeded with 0 (so a
    decision is reproducible); ``options`` go to :class:`Scheduler`.
    """
    usage = plan_usage(source, cache, observed_lengths=observed_lengths)
    fits = dict(latency) if latency is not None else load_latency(cache)
    options.setdefault("overheads", load_overheads(cache))
    return Scheduler(fits, **options).schedule(
        usage, rng if rng is not None else np.random.default_rng(0)
    )
