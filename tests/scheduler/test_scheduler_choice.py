"""Algorithm 2 end to end: each strategy wins where it should; decisions are fast and explained."""

from __future__ import annotations

import math
import statistics
import time

import numpy as np
import pytest

from agentjit.cache import ToolCache
from agentjit.scheduler import (
    FitResult,
    Overheads,
    Scheduler,
    fit_latency,
    fits_to_json,
    plan_usage,
    schedule_plan,
)


def lognorm(mean: float, sigma: float) -> FitResult:
    scale = mean / math.exp(sigma**2 / 2)
    return FitResult(
        family="lognorm", n=50, mean=mean, p50=scale, p95=0.0, params={"s": sigma, "scale": scale}
    )


def gamma(shape: float, scale: float) -> FitResult:
    return FitResult(
        family="gamma",
        n=50,
        mean=shape * scale,
        p50=0.0,
        p95=0.0,
        params={"a": shape, "scale": scale},
    )


STEADY = {
    "go_home": lognorm(0.2, 0.1),
    "open_restaurant": lognorm(0.3, 0.1),
    "list_items": lognorm(0.1, 0.1),
    "list_restaurants": lognorm(0.1, 0.1),
    "get_price": lognorm(0.05, 0.1),
    "get_reviews": lognorm(1.0, 0.1),
    "add_to_cart": lognorm(0.15, 0.1),
    "place_order": lognorm(0.4, 0.1),
}

LONG_LOOP = """
await go_home()
rs = await list_restaurants()
reviews = {}
for r in rs[:12]:
    await open_restaurant(name=r)
    reviews[r] = await get_reviews(item=r)
result = reviews
"""

HEAVY_PREFIX = """
await open_restaurant(name="Subway")
await add_to_cart(item="sub")
await place_order()
"""

TINY = "result = await get_price(item='latte')"

BREAK_LOOP = """
rs = await list_restaurants()
for r in rs[:12]:
    if await get_reviews(item=r):
        break
"""


def test_low_variance_long_loop_goes_parallel(cache, rng):
    usage = plan_usage(LONG_LOOP, cache)
    schedule = Scheduler(STEADY).schedule(usage, rng)
    print(f"\nparallel case: {schedule.reason} ({schedule.decision_time_s * 1e3:.2f} ms)")
    assert schedule.strategy == "parallel" and schedule.workers == 4
    assert set(schedule.estimates) == {"serial", "parallel", "hedge"}
    serial = schedule.estimates["serial"]
    assert serial.mean == pytest.approx(0.2 + 0.1 + 12 * 1.3, rel=0.02)
    assert schedule.estimates["parallel"].mean < serial.mean / 2.5
    assert schedule.win_rates["parallel"] > 0.95
    assert sum(schedule.win_rates.values()) == pytest.approx(1.0)
    assert [c.workers for c in schedule.candidates if c.strategy == "parallel"] == [2, 3, 4]
    assert "parallel x4" in schedule.reason


def test_heavy_tailed_read_prefix_goes_hedge(cache, rng):
    latency = dict(STEADY, open_restaurant=gamma(0.4, 5.0))  # mean 2 s, sd 3.2 s
    usage = plan_usage(HEAVY_PREFIX, cache)
    schedule = Scheduler(latency).schedule(usage, rng)
    print(f"\nhedge case: {schedule.reason} ({schedule.decision_time_s * 1e3:.2f} ms)")
    assert schedule.strategy == "hedge" and schedule.workers == 3
    assert "parallel" not in schedule.estimates  # no loop
    assert schedule.estimates["hedge"].mean < 0.6 * schedule.estimates["serial"].mean
    assert "no loop to parallelize" in schedule.reason


def test_tiny_plan_stays_serial(cache, rng):
    usage = plan_usage(TINY, cache)
    schedule = Scheduler(STEADY).schedule(usage, rng)
    print(f"\nserial case: {schedule.reason} ({schedule.decision_time_s * 1e3:.2f} ms)")
    assert schedule.strategy == "serial" and schedule.workers == 1
    assert schedule.estimates["serial"].mean == pytest.approx(0.05, rel=0.02)
    assert schedule.estimates["hedge"].mean > schedule.estimates["serial"].mean
    assert schedule.win_rates["serial"] > 0.5


def test_unsafe_loop_is_never_parallel(cache, rng):
    usage = plan_usage(BREAK_LOOP, cache)
    schedule = Scheduler(STEADY).schedule(usage, rng)
    assert "parallel" not in schedule.estimates
    assert "break on line 5" in schedule.reason


def test_write_first_plan_is_never_hedged(cache, rng):
    usage = plan_usage("await place_order()\nawait go_home()", cache)
    schedule = Scheduler(STEADY).schedule(usage, rng)
    assert set(schedule.estimates) == {"serial"} and schedule.strategy == "serial"
    assert "no READ call before the first WRITE" in schedule.reason


def test_p95_objective_prefers_the_tamer_tail(cache):
    # serial has the lower mean, but hedging cuts the tail: mean and p95 disagree
    latency = dict(STEADY, open_restaurant=lognorm(0.5, 1.6))
    usage = plan_usage(HEAVY_PREFIX, cache)
    ov = Overheads(hedge_fixed_s=0.35)
    by_mean = Scheduler(latency, overheads=ov).schedule(usage, np.random.default_rng(1))
    by_p95 = Scheduler(latency, overheads=ov, objective="p95").schedule(
        usage, np.random.default_rng(1)
    )
    assert by_mean.strategy == "serial", by_mean.reason
    assert by_p95.strategy == "hedge", by_p95.reason
    assert "p95" in by_p95.reason


def test_parallel_overhead_can_outweigh_the_gain(cache, rng):
    # the paper's Example 1: a short loop on one page does not pay for extra workers
    src = "await open_restaurant(name='Stonemill')\nresult = [await get_price(item=i) for i in ['a', 'b', 'c', 'd']]"
    schedule = Scheduler(STEADY).schedule(plan_usage(src, cache), rng)
    assert schedule.strategy == "serial"
    assert schedule.estimates["parallel"].mean > schedule.estimates["serial"].mean


def test_schedule_plan_reads_the_cache(cache: ToolCache, tmp_path):
    rng = np.random.default_rng(3)
    fits = {
        name: fit_latency(rng.lognormal(math.log(d.mean), 0.1, 40)) for name, d in STEADY.items()
    }
    cache.latency = fits_to_json(fits)
    cache.save(tmp_path / "food")
    loaded = ToolCache.load(tmp_path / "food")
    schedule = schedule_plan(LONG_LOOP, loaded)
    assert schedule.strategy == "parallel" and schedule.workers == 4
    again = schedule_plan(LONG_LOOP, loaded)
    assert again.estimates["serial"].mean == schedule.estimates["serial"].mean  # seeded by default
    data = schedule.to_dict()
    assert data["strategy"] == "parallel" and set(data["estimates"]["parallel"]) == {
        "strategy",
        "workers",
        "mean",
        "p50",
        "p95",
    }
    assert data["missing_latency"] == []


def test_missing_latency_is_reported(cache, rng):
    schedule = Scheduler({}).schedule(plan_usage(TINY, cache), rng)
    assert schedule.missing_latency == ["get_price"]
    assert schedule.estimates["serial"].mean == pytest.approx(0.1)


def test_bad_options():
    with pytest.raises(ValueError, match="objective"):
        Scheduler({}, objective="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_trials"):
        Scheduler({}, n_trials=0)


def test_injected_clock_gives_decision_time(cache, rng):
    ticks = iter([10.0, 10.25])
    schedule = Scheduler(STEADY, clock=lambda: next(ticks)).schedule(plan_usage(TINY, cache), rng)
    assert schedule.decision_time_s == 0.25


def test_decision_time_of_a_typical_plan(cache):
    """Median wall time of one decision (N=1000, up to 4 workers); printed, not asserted."""
    usage = plan_usage(LONG_LOOP, cache)
    scheduler = Scheduler(STEADY, n_trials=1000, max_workers=4)
    rng = np.random.default_rng(0)
    times = []
    for _ in range(30):
        start = time.perf_counter()
        scheduler.schedule(usage, rng)
        times.append(time.perf_counter() - start)
    print(
        f"\nmedian decision time (N=1000, 4 workers, 6 candidates): {statistics.median(times) * 1e3:.2f} ms"
    )


def test_page_read_cost_is_added_per_navigation(cache):
    usage = plan_usage(LONG_LOOP, cache)
    assert [c.navigates for c in usage.prefix] == [True, False]  # go_home, list_restaurants
    plain = Scheduler(STEADY, overheads=Overheads(contention=0.0)).schedule(
        usage, np.random.default_rng(0)
    )
    read = Scheduler(STEADY, overheads=Overheads(contention=0.0, page_read_s=1.0)).schedule(
        usage, np.random.default_rng(0)
    )
    # 13 navigations serially (go_home + 12 open_restaurant), each 1 s more
    assert read.estimates["serial"].mean == pytest.approx(
        plain.estimates["serial"].mean + 13, rel=0.01
    )
    # parallel x4: go_home once, 3 iterations per worker, new workers replay go_home
    assert read.estimates["parallel"].mean == pytest.approx(
        plain.estimates["parallel"].mean + 1 + 3 + 1, rel=0.02
    )


def test_a_near_tie_goes_to_serial(cache, rng):
    """A hedge that would win by a millisecond is not worth its extra browser contexts."""
    latency = dict(STEADY, open_restaurant=gamma(0.4, 5.0))
    usage = plan_usage(HEAVY_PREFIX, cache)
    eager = Scheduler(latency, min_gain_s=0.0, min_gain_ratio=0.0).schedule(usage, rng)
    assert eager.strategy == "hedge"
    gain = eager.estimates["serial"].mean - eager.estimates["hedge"].mean
    cautious = Scheduler(latency, min_gain_s=gain * 1.5, min_gain_ratio=0.0).schedule(usage, np.random.default_rng(0))
    assert cautious.strategy == "serial" and cautious.workers == 1
    assert "would gain only" in cautious.reason
    assert cautious.estimates["hedge"].mean < cautious.estimates["serial"].mean  # the estimates are still reported
