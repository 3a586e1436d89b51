"""Vectorized Monte Carlo latency estimates for the serial, parallel and hedge strategies.

Every estimate draws, per tool, one ``(n_trials, k)`` matrix from the tool's
fitted distribution (one numpy call per tool per strategy) and combines the
columns with sums, maxima and minima:

* serial: the sum of every call, in one context;
* parallel(w): prefix + the slowest of ``w`` workers + suffix + ``parallel_fixed_s``;
  the workers' calls are slowed by ``Overheads.contention``;
  the loop's iterations are split into ``w`` contiguous batches; each *new*
  worker first pays context start-up and replays the loop's ``entry_replay``
  calls (sampled too). With ``reuse_main_context`` worker 0 is the context that
  ran the prefix: already at the entry state, no start-up, no replay;
* hedge(n): the fastest of ``n`` replicas of the READ calls before the first
  WRITE (each replica with its own draws, new ones paying start-up, all slowed
  by ``Overheads.contention``), then the rest once, + ``hedge_fixed_s``. An all-READ plan is hedged whole.

A tool without a distribution costs a constant: ``default_s`` if given, else
the median of the known fits' means, else :data:`DEFAULT_LATENCY_S` (0.1 s).
Such tools are listed in ``LatencyModel.missing``.

Contention between contexts: on 2 cores four CPU-bound contexts finish only
1.0-1.2x faster than one after another (BROWSER.md). Each call of a concurrent
phase pays ``Overheads.busy(k)`` seconds, the per-call work the other k - 1
contexts add, measured on this machine by ``agentjit profile`` (see
:func:`agentjit.tasks.overheads.measure_overheads`) and kept with the cache;
without a measurement a small multiplicative ``contention`` stands in.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from agentjit.protocol.trace import StepEvent

from .distributions import Distribution
from .usage import CallUse, PlanUsage

__all__ = [
    "DEFAULT_LATENCY_S",
    "DEFAULT_TRIALS",
    "StrategyName",
    "Overheads",
    "LatencyModel",
    "StrategyEstimate",
    "simulate_serial",
    "simulate_parallel",
    "simulate_hedge",
    "summarize",
    "win_rates",
]

log = logging.getLogger(__name__)

DEFAULT_LATENCY_S = 0.1
"""Cost of a tool with no fitted distribution when the cache has no fits at all."""

DEFAULT_TRIALS = 1000

StrategyName = Literal["serial", "parallel", "hedge"]
"""A strategy the scheduler prices, by name (the runtime's strategy objects are :class:`agentjit.runtime.Strategy`)."""


@dataclass(frozen=True)
class Overheads:
    """Costs of extra browser contexts (seconds); start-up defaults measured in BROWSER.md.

    ``parallel_fixed_s`` and ``hedge_fixed_s`` are the paper's delta_p and delta_h:
    coordination cost per run on top of context start-up (0 by default: our
    workers are asyncio tasks in one process, not separate agents).

    ``contention`` is the fractional slowdown of every call per *extra* context
    running at the same time: with k concurrent contexts the calls of the
    concurrent phase take ``1 + contention * (k - 1)`` times as long. Without it
    a hedge whose first replica is the main context could never lose to serial.
    The default 0.05 suits I/O-bound (server-latency) steps; CPU-bound steps on
    2 cores are close to 1.0 (BROWSER.md: 4 contexts finish 1.0-1.2x faster
    than one after another). Calibrate it from measured runs.
    """

    new_context_s: float = 0.03
    new_page_s: float = 0.1
    goto_s: float = 0.055
    parallel_fixed_s: float = 0.0
    hedge_fixed_s: float = 0.0
    page_read_s: float = 0.0
    """Extra cost of every call that navigates (the paper's C_read: load and read a new page).
    0 by default: a compiled tool's measured latency already includes its page load."""
    contention: float = 0.05
    busy_s: float = 0.0
    """Seconds every call of the concurrent phase gains per *extra* context running at the same
    time: the machine's real concurrency, measured by ``agentjit profile`` (the browser's and the
    runtime's own work per call, which contexts compete for; a site's waiting is not part of it).
    Additive, so a call that mostly waits on the site is not scaled up by it. Measured overheads
    set ``contention`` to 0 and use this instead."""
    reuse_main_context: bool = True
    measured: bool = False
    """True when the values come from a measurement on this machine (not the defaults)."""

    def slowdown(self, concurrent: int) -> float:
        """Latency multiplier for calls made while ``concurrent`` contexts run at once."""
        return 1.0 + self.contention * max(concurrent - 1, 0)

    def busy(self, concurrent: int) -> float:
        """Seconds added to each call made while ``concurrent`` contexts run at once."""
        return self.busy_s * max(concurrent - 1, 0)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Overheads:
        """Overheads from their JSON form (unknown keys are ignored, missing ones keep defaults)."""
        names = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in names:
                continue
            if key in ("reuse_main_context", "measured"):
                values[key] = bool(value)
            elif isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
                values[key] = float(value)
            else:
                raise ValueError(f"overheads field {key!r} must be a number >= 0, got {value!r}")
        return cls(**values)

    @property
    def startup_s(self) -> float:
        """Start-up of one new worker: a context, a page, and the start URL."""
        return self.new_context_s + self.new_page_s + self.goto_s

    @classmethod
    def from_steps(cls, steps: Iterable[StepEvent], **overrides: Any) -> Overheads:
        """Overheads with medians measured from traces where they have them.

        ``goto`` steps give ``goto_s``; a step's ``timings`` entries named
        ``new_context`` or ``new_page`` (seconds) give those. Missing ones keep
        their defaults; keyword ``overrides`` win over both.
        """
        found: dict[str, list[float]] = {"goto_s": [], "new_context_s": [], "new_page_s": []}
        for step in steps:
            if step.action == "goto" and step.ok and step.end >= step.start:
                found["goto_s"].append(step.end - step.start)
            for key in ("new_context", "new_page"):
                value = step.timings.get(key)
                if value is not None and value >= 0:
                    found[f"{key}_s"].append(float(value))
        values: dict[str, Any] = {k: statistics.median(v) for k, v in found.items() if v}
        values.update(overrides)
        return cls(**values)


class LatencyModel:
    """Per-tool samplers over fitted distributions, with a documented constant for missing tools."""

    def __init__(
        self,
        latency: Mapping[str, Distribution],
        *,
        default_s: float | None = None,
        offsets: Mapping[str, float] | None = None,
    ) -> None:
        self.latency = dict(latency)
        self.offsets = {k: v for k, v in (offsets or {}).items() if v}
        """Constant seconds added to every call of a tool (e.g. the page-read cost of navigations)."""
        if default_s is None:
            means = [d.mean for d in self.latency.values()]
            default_s = float(statistics.median(means)) if means else DEFAULT_LATENCY_S
        self.default_s = default_s
        self.missing: set[str] = set()

    def get(self, tool: str) -> Distribution | None:
        return self.latency.get(tool)

    def draw(self, tool: str, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        dist = self.latency.get(tool)
        offset = self.offsets.get(tool, 0.0)
        if dist is None:
            if tool not in self.missing:
                log.info(
                    "no latency distribution for %r; using a constant %.3f s", tool, self.default_s
                )
                self.missing.add(tool)
            return np.full(shape, self.default_s + offset)
        if 0 in shape:
            return np.zeros(shape)
        draws = dist.sample(rng, shape)
        return draws + offset if offset else draws


@dataclass(frozen=True)
class StrategyEstimate:
    """Monte Carlo summary of one strategy (seconds)."""

    strategy: StrategyName
    workers: int
    mean: float
    p50: float
    p95: float
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "workers": self.workers,
            "mean": self.mean,
            "p50": self.p50,
            "p95": self.p95,
        }


def _quantiles(samples: np.ndarray, qs: Sequence[float]) -> list[float]:
    """Linear-interpolated quantiles (numpy's default method) from one sort; faster than np.percentile."""
    srt = np.sort(samples)
    last = srt.size - 1
    out = []
    for q in qs:
        pos = q * last
        lo = int(pos)
        hi = min(lo + 1, last)
        out.append(float(srt[lo] + (srt[hi] - srt[lo]) * (pos - lo)))
    return out


def summarize(
    strategy: StrategyName, workers: int, samples: np.ndarray, *, keep_samples: bool = True
) -> StrategyEstimate:
    p50, p95 = _quantiles(samples, (0.5, 0.95))
    return StrategyEstimate(
        strategy=strategy,
        workers=workers,
        mean=float(samples.mean()),
        p50=float(p50),
        p95=float(p95),
        samples=samples if keep_samples else None,
    )


def _counts(calls: Iterable[CallUse]) -> Counter[str]:
    out: Counter[str] = Counter()
    for call in calls:
        out[call.tool] += call.count
    return out


def simulate_serial(
    usage: PlanUsage, model: LatencyModel, rng: np.random.Generator, n_trials: int
) -> np.ndarray:
    """Per-trial latency of running every call once after another."""
    total = np.zeros(n_trials)
    for tool, k in _counts(usage.expanded()).items():
        total += model.draw(tool, rng, (n_trials, k)).sum(axis=1)
    return total


def simulate_parallel(
    usage: PlanUsage,
    model: LatencyModel,
    rng: np.random.Generator,
    n_trials: int,
    workers: int,
    overheads: Overheads,
) -> np.ndarray:
    """Per-trial latency of fanning the main loop's iterations out to ``workers`` contexts."""
    return simulate_parallel_many(usage, model, rng, n_trials, [workers], overheads)[workers]


def simulate_parallel_many(
    usage: PlanUsage,
    model: LatencyModel,
    rng: np.random.Generator,
    n_trials: int,
    worker_counts: Sequence[int],
    overheads: Overheads,
) -> dict[int, np.ndarray]:
    """:func:`simulate_parallel` for several worker counts from one draw per tool.

    The counts share their iteration draws (common random numbers), so their
    comparison is not blurred by sampling noise. Counts above the trip count
    are capped at it; the result is keyed by the counts asked for.
    """
    loop = usage.loop
    if loop is None:
        raise ValueError("the plan has no loop to parallelize")
    trips = loop.trips
    lead = 1 if overheads.reuse_main_context else 0
    effective = {w: (max(1, min(w, trips)) if trips > 0 else 1) for w in worker_counts}
    max_new = max((w - lead for w in effective.values()), default=0)
    shared = _counts([*usage.prefix, *usage.suffix])
    body = _counts(loop.body)
    replay = _counts(loop.entry_replay)

    shared_total = np.zeros(n_trials)
    per_iteration = np.zeros((n_trials, max(trips, 1)))
    per_replay = np.zeros((n_trials, max(max_new, 1)))
    for tool in sorted(set(shared) | set(body) | set(replay)):
        s, b, e = shared[tool], body[tool] * trips, replay[tool] * max_new
        draws = model.draw(tool, rng, (n_trials, s + b + e))
        if s:
            shared_total += draws[:, :s].sum(axis=1)
        if b:
            per_iteration[:, :trips] += (
                draws[:, s : s + b].reshape(n_trials, trips, body[tool]).sum(axis=2)
            )
        if e:
            per_replay[:, :max_new] += (
                draws[:, s + b :].reshape(n_trials, max_new, replay[tool]).sum(axis=2)
            )

    out: dict[int, np.ndarray] = {}
    for asked, w in effective.items():
        if trips == 0:
            out[asked] = shared_total + overheads.parallel_fixed_s
            continue
        new_workers = w - lead
        starts = np.array([chunk[0] for chunk in np.array_split(np.arange(trips), w)])
        worker_total = np.add.reduceat(per_iteration[:, :trips], starts, axis=1)  # (n_trials, w)
        if new_workers:
            worker_total[:, lead:] += per_replay[:, :new_workers]
        worker_total *= overheads.slowdown(w)
        if overheads.busy_s:  # every call of a worker pays the others' concurrent work
            sizes = np.diff(np.append(starts, trips))
            calls = sizes * sum(body.values())
            calls[lead:] += sum(replay.values())
            worker_total += calls * overheads.busy(w)
        if new_workers:
            worker_total[:, lead:] += overheads.startup_s
        out[asked] = shared_total + worker_total.max(axis=1) + overheads.parallel_fixed_s
    return out


def simulate_hedge(
    usage: PlanUsage,
    model: LatencyModel,
    rng: np.random.Generator,
    n_trials: int,
    replicas: int,
    overheads: Overheads,
) -> np.ndarray:
    """Per-trial latency of racing ``replicas`` copies of the READ calls before the first WRITE."""
    return simulate_hedge_many(usage, model, rng, n_trials, [replicas], overheads)[replicas]


def simulate_hedge_many(
    usage: PlanUsage,
    model: LatencyModel,
    rng: np.random.Generator,
    n_trials: int,
    replica_counts: Sequence[int],
    overheads: Overheads,
) -> dict[int, np.ndarray]:
    """:func:`simulate_hedge` for several replica counts from one draw per tool (common random numbers)."""
    before, rest = usage.split_at_first_write()
    hedged, once = _counts(before), _counts(rest)
    most = max([1, *replica_counts])
    race = np.zeros((n_trials, most))
    tail = np.zeros(n_trials)
    for tool in sorted(set(hedged) | set(once)):
        h, r = hedged[tool], once[tool]
        draws = model.draw(tool, rng, (n_trials, most * h + r))
        if h:
            race += draws[:, : most * h].reshape(n_trials, most, h).sum(axis=2)
        if r:
            tail += draws[:, most * h :].sum(axis=1)
    lead = 1 if overheads.reuse_main_context else 0
    out: dict[int, np.ndarray] = {}
    for asked in replica_counts:
        n = max(1, asked)
        replicas = race[:, :n] * overheads.slowdown(n) + sum(hedged.values()) * overheads.busy(n)
        replicas[:, lead:] += overheads.startup_s
        out[asked] = replicas.min(axis=1) + tail + overheads.hedge_fixed_s
    return out


def win_rates(samples: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Fraction of trials in which each strategy is the fastest (ties go to the first listed)."""
    names: Sequence[str] = list(samples)
    if not names:
        return {}
    stacked = np.stack([samples[name] for name in names])
    winners = np.argmin(stacked, axis=0)
    counts = np.bincount(winners, minlength=len(names))
    return {name: float(c) / stacked.shape[1] for name, c in zip(names, counts, strict=True)}
