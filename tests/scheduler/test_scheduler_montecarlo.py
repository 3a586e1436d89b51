"""Monte Carlo against closed forms, exact overhead arithmetic, one draw per tool per strategy."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from agentjit.protocol import Effect, StepEvent
from agentjit.scheduler import (
    CallUse,
    Distribution,
    FitResult,
    LatencyModel,
    LoopUse,
    Overheads,
    PlanUsage,
    simulate_hedge,
    simulate_parallel,
    simulate_serial,
    win_rates,
)

FREE = Overheads(new_context_s=0.0, new_page_s=0.0, goto_s=0.0, contention=0.0)
TRIALS = 40_000
LAM = 2.0  # rate of the exponential; mean 0.5 s


def expon(scale: float) -> FitResult:
    return FitResult(
        family="expon", n=100, mean=scale, p50=scale * math.log(2), p95=0.0, params={"scale": scale}
    )


def read(tool: str, count: int = 1) -> CallUse:
    return CallUse(tool=tool, effect=Effect.READ, line=1, count=count)


def write(tool: str) -> CallUse:
    return CallUse(tool=tool, effect=Effect.WRITE, line=9)


def loop(body: list[CallUse], trips: int, replay: list[CallUse] | None = None) -> LoopUse:
    return LoopUse(
        line=2,
        kind="for",
        body=body,
        trips=trips,
        trip_source="slice",
        parallel_ok=True,
        reason="test",
        entry_replay=replay or [],
    )


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_hedge_is_the_min_of_n_exponentials(n):
    model = LatencyModel({"t": expon(1 / LAM)})
    usage = PlanUsage(prefix=[read("t")], loop=None, suffix=[])
    x = simulate_hedge(usage, model, np.random.default_rng(n), TRIALS, n, FREE)
    assert x.mean() == pytest.approx(1 / (n * LAM), rel=0.03)
    # the minimum of n exponentials is exponential with rate n * lambda
    assert stats.kstest(x, stats.expon(scale=1 / (n * LAM)).cdf).statistic < 0.01


@pytest.mark.parametrize("k", [1, 3, 8])
def test_serial_is_the_sum_of_exponentials(k):
    model = LatencyModel({"t": expon(1 / LAM)})
    usage = PlanUsage(prefix=[read("t", count=k)], loop=None, suffix=[])
    x = simulate_serial(usage, model, np.random.default_rng(k), TRIALS)
    assert x.mean() == pytest.approx(k / LAM, rel=0.02)
    assert stats.kstest(x, stats.gamma(k, scale=1 / LAM).cdf).statistic < 0.01


@pytest.mark.parametrize("workers", [2, 3, 4])
@pytest.mark.parametrize("reuse", [True, False])
def test_parallel_is_the_max_of_iid_exponentials(workers, reuse):
    model = LatencyModel({"t": expon(1 / LAM)})
    usage = PlanUsage(prefix=[], loop=loop([read("t")], trips=workers), suffix=[])
    overheads = Overheads(
        new_context_s=0.0, new_page_s=0.0, goto_s=0.0, contention=0.0, reuse_main_context=reuse
    )
    x = simulate_parallel(usage, model, np.random.default_rng(workers), TRIALS, workers, overheads)
    harmonic = sum(1 / i for i in range(1, workers + 1))
    assert x.mean() == pytest.approx(harmonic / LAM, rel=0.03)


def test_parallel_batches_iterations_over_workers():
    # 8 iterations of one exponential each over 2 workers: the max of two Gamma(4) sums
    model = LatencyModel({"t": expon(1 / LAM)})
    usage = PlanUsage(prefix=[], loop=loop([read("t")], trips=8), suffix=[])
    x = simulate_parallel(usage, model, np.random.default_rng(0), TRIALS, 2, FREE)
    g = stats.gamma(4, scale=1 / LAM)
    # E[max(X, Y)] for iid X, Y = integral of 1 - F(t)^2
    t = np.linspace(0, 40, 40_001)
    expected = float(np.trapezoid(1 - g.cdf(t) ** 2, t))
    assert x.mean() == pytest.approx(expected, rel=0.02)


ORDER = PlanUsage(
    prefix=[read("go_home"), read("open_restaurant"), read("list_items")],
    loop=loop([read("get_price")], trips=4, replay=[read("go_home"), read("open_restaurant")]),
    suffix=[write("add_to_cart"), write("place_order")],
)


def test_overheads_exactly_with_constant_latencies():
    model = LatencyModel({}, default_s=0.1)  # every tool missing: a constant 0.1 s
    rng = np.random.default_rng(0)
    ov = Overheads(parallel_fixed_s=0.5, hedge_fixed_s=0.25, contention=0.0)
    assert ov.startup_s == pytest.approx(0.03 + 0.1 + 0.055)
    assert simulate_serial(ORDER, model, rng, 10) == pytest.approx([0.9] * 10)
    # prefix 0.3 + slowest worker (new: start-up 0.185 + replay 0.2 + 2 iterations 0.2) + suffix 0.2 + 0.5
    assert simulate_parallel(ORDER, model, rng, 10, 2, ov) == pytest.approx(
        [0.3 + 0.585 + 0.2 + 0.5] * 10
    )
    # 4 workers: one iteration each
    assert simulate_parallel(ORDER, model, rng, 10, 4, ov) == pytest.approx(
        [0.3 + 0.485 + 0.2 + 0.5] * 10
    )
    # hedge: the main context wins the race of the 7 READs (0.7), then the 2 WRITEs once, + 0.25
    assert simulate_hedge(ORDER, model, rng, 10, 3, ov) == pytest.approx([0.7 + 0.2 + 0.25] * 10)
    no_reuse = Overheads(reuse_main_context=False, contention=0.0)
    assert simulate_hedge(ORDER, model, rng, 10, 3, no_reuse) == pytest.approx([0.885 + 0.2] * 10)
    assert simulate_parallel(ORDER, model, rng, 10, 2, no_reuse) == pytest.approx(
        [0.3 + 0.585 + 0.2] * 10
    )
    # contention: 3 concurrent replicas each run 1.2x slower; 2 workers 1.1x
    slow = Overheads(contention=0.1)
    assert simulate_hedge(ORDER, model, rng, 10, 3, slow) == pytest.approx([0.7 * 1.2 + 0.2] * 10)
    assert simulate_parallel(ORDER, model, rng, 10, 2, slow) == pytest.approx(
        [0.3 + 0.185 + 0.4 * 1.1 + 0.2] * 10
    )
    assert model.missing == {
        "go_home",
        "open_restaurant",
        "list_items",
        "get_price",
        "add_to_cart",
        "place_order",
    }


def test_missing_tools_default_to_the_median_of_known_means():
    model = LatencyModel({"a": expon(0.2), "b": expon(0.4), "c": expon(1.0)})
    assert model.default_s == pytest.approx(0.4)
    assert LatencyModel({}).default_s == pytest.approx(0.1)


@dataclass(frozen=True, kw_only=True)
class Counting(Distribution):
    """A constant-latency distribution that records every sampling call's shape."""

    value: float = 0.1
    calls: list = None  # type: ignore[assignment]

    def sample(self, rng, size):
        self.calls.append(size)
        return np.full(size, self.value)


def test_one_sampling_call_per_tool_per_strategy():
    dists = {
        name: Counting(family="const", n=1, mean=0.1, p50=0.1, p95=0.1, calls=[])
        for name in (
            "go_home",
            "open_restaurant",
            "list_items",
            "get_price",
            "add_to_cart",
            "place_order",
        )
    }
    model = LatencyModel(dists)
    rng = np.random.default_rng(0)
    simulate_serial(ORDER, model, rng, 1000)
    simulate_parallel(ORDER, model, rng, 1000, 4, Overheads())
    simulate_hedge(ORDER, model, rng, 1000, 3, Overheads())
    assert all(len(d.calls) == 3 for d in dists.values())
    # parallel: 3 new workers each replay go_home once -> prefix 1 + replay 3 columns
    assert dists["go_home"].calls[1] == (1000, 4)
    assert dists["get_price"].calls[1] == (1000, 4)
    # hedge over 3 replicas: get_price's 4 READs before the first WRITE, raced 3 times
    assert dists["get_price"].calls[2] == (1000, 12)
    assert dists["place_order"].calls[2] == (1000, 1)


def test_win_rates():
    rates = win_rates({"a": np.array([1.0, 2.0, 3.0, 0.5]), "b": np.array([2.0, 1.0, 1.0, 1.0])})
    assert rates == {"a": 0.5, "b": 0.5}
    assert win_rates({}) == {}


def test_overheads_from_steps():
    steps = [
        StepEvent(index=0, action="goto", start=0.0, end=0.07),
        StepEvent(index=1, action="goto", start=1.0, end=1.05),
        StepEvent(index=2, action="goto", start=2.0, end=2.09),
        StepEvent(
            index=3,
            action="tool",
            tool="t",
            start=3.0,
            end=3.1,
            timings={"new_context": 0.02, "new_page": 0.2},
        ),
    ]
    ov = Overheads.from_steps(steps, hedge_fixed_s=1.0)
    assert ov.goto_s == pytest.approx(0.07)
    assert ov.new_context_s == pytest.approx(0.02) and ov.new_page_s == pytest.approx(0.2)
    assert ov.hedge_fixed_s == 1.0 and ov.parallel_fixed_s == 0.0
    assert Overheads.from_steps([]) == Overheads()


def test_measured_busy_cost_is_added_to_every_concurrent_call():
    model = LatencyModel({}, default_s=0.1)
    rng = np.random.default_rng(0)
    busy = Overheads(contention=0.0, busy_s=0.05)
    # 3 replicas: each of the 7 racing READs costs 0.1 + 2 x 0.05; the main replica wins, then 2 WRITEs
    assert simulate_hedge(ORDER, model, rng, 10, 3, busy) == pytest.approx([7 * 0.2 + 0.2] * 10)
    # 2 workers, 2 iterations each: the main one makes 2 calls, the new one 2 + 2 replayed, each +0.05
    main, new = 0.2 + 2 * 0.05, 0.185 + 0.2 + 0.2 + 4 * 0.05
    assert simulate_parallel(ORDER, model, rng, 10, 2, busy) == pytest.approx([0.3 + max(main, new) + 0.2] * 10)
    # serial never pays it
    assert simulate_serial(ORDER, model, rng, 10) == pytest.approx([0.9] * 10)


def test_overheads_round_trip_and_bad_values():
    measured = Overheads(new_context_s=0.2, busy_s=0.04, contention=0.0, measured=True)
    record = {**dataclasses.asdict(measured), "cpus": 2, "load_average": 1.5}  # extra keys are kept notes
    assert Overheads.from_dict(record) == measured
    assert Overheads.from_dict({}) == Overheads()
    for bad in ({"busy_s": -1}, {"busy_s": "fast"}, {"goto_s": float("nan")}):
        with pytest.raises(ValueError, match="must be a number >= 0"):
            Overheads.from_dict(bad)


def test_the_cache_keeps_the_measured_overheads(tmp_path):
    import json

    from agentjit.cache import ToolCache
    from agentjit.cache.store import CacheInfo
    from agentjit.exceptions import CacheError
    from agentjit.scheduler import load_overheads

    cache = ToolCache(CacheInfo(app="t", url_pattern="http://127.0.0.1:*/*"), path=tmp_path)
    assert load_overheads(cache) == Overheads()
    cache.save()
    assert not (tmp_path / "machine.json").exists()  # nothing measured, nothing written
    cache.machine = {"busy_s": 0.03, "contention": 0.0, "measured": True}
    cache.save()
    assert load_overheads(ToolCache.load(tmp_path)) == Overheads(busy_s=0.03, contention=0.0, measured=True)
    (tmp_path / "machine.json").write_text(json.dumps({"busy_s": "slow"}))
    with pytest.raises(CacheError, match="machine.json"):
        load_overheads(ToolCache.load(tmp_path))
