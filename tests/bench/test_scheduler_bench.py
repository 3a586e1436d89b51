"""The scheduler benchmark: profiling into a cache copy, and the bench on a small subset."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.scheduler_bench import (
    AutoStrategy,
    measure_overheads,
    profile_app,
    run_scheduler_bench,
    runtime_strategy,
    write_latency,
)
from agentjit.cache import ToolCache
from agentjit.cli import main
from agentjit.runtime import HedgeStrategy, ParallelStrategy, Runtime
from agentjit.scheduler import Overheads, fits_from_json, load_latency, schedule_plan
from agentjit.tasks.apps import get_app

APP = get_app("food")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"


def test_bundled_latency_is_a_real_fit() -> None:
    fits = load_latency(ToolCache.load(CACHE_DIR))
    # every tool the reference plans call has a fit made from recorded samples
    for tool in ("goto_store", "list_menu_items", "list_stores", "search", "add_to_cart", "place_order"):
        assert tool in fits, tool
        assert fits[tool].n >= 3 and len(fits[tool].samples) == fits[tool].n
    # injected latency: a store page is slow and tight, a search is heavy-tailed
    assert fits["goto_store"].mean > 0.5
    assert fits["search"].p95 > 2 * fits["search"].p50 and max(fits["search"].samples) > 3.0


def test_runtime_strategy_carries_the_worker_count(food_cache: ToolCache) -> None:
    nine = schedule_plan(APP.task("food-custom-9").plan_source(), food_cache)
    chosen = runtime_strategy(nine)
    assert nine.strategy == "parallel" and isinstance(chosen, ParallelStrategy)
    assert chosen.workers == nine.workers >= 2
    three = schedule_plan(APP.task("food-custom-3").plan_source(), food_cache)
    hedge = runtime_strategy(three)
    assert three.strategy == "hedge" and isinstance(hedge, HedgeStrategy) and hedge.replicas == three.workers
    slow_start = Overheads(new_context_s=0.0, new_page_s=0.0, goto_s=1.0)
    one = schedule_plan(APP.task("food-custom-1").plan_source(), food_cache, overheads=slow_start)
    assert one.strategy == "serial" and runtime_strategy(one) == "serial"


async def test_auto_strategy_runs_the_choice(browser_pool, food_site, food_cache) -> None:
    task = APP.task("food-custom-9")
    auto = AutoStrategy()
    runtime = Runtime(food_cache, food_site.url, pool=browser_pool)
    result = await runtime.run(task.plan_source(), strategy=auto)
    assert auto.schedule is not None and auto.schedule.strategy == "parallel"
    # workers counts the contexts that ran an iteration: on a loaded machine a late context may find none left
    assert result.strategy == "parallel" and 2 <= result.workers <= auto.schedule.workers
    verdict = task.judge(result.value, food_site.state(), food_site.state())
    assert verdict.ok, verdict.reason


async def test_profile_writes_only_the_given_cache(browser_pool, tmp_path) -> None:
    bundled = CACHE_DIR / "latency.json"
    before = _digest(bundled)
    copy = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, copy)
    (copy / "latency.json").unlink(missing_ok=True)
    profile = await profile_app(
        "food", repeats=2, latency_scale=0.0, task_ids=["food-v1-1", "food-custom-7"], pool=browser_pool
    )
    assert profile.runs == 4 and profile.failures == []
    assert {"list_stores", "goto_store", "list_menu_items"} <= set(profile.fits)
    assert profile.fits["goto_store"].n == 2 and profile.fits["list_stores"].n == 2
    written = write_latency(copy, profile.fits)
    fits = fits_from_json(json.loads(written.read_text()), source=str(written))
    assert fits["goto_store"].samples == pytest.approx(profile.fits["goto_store"].samples, abs=1e-5)
    assert load_latency(ToolCache.load(copy))["list_stores"].n == 2
    assert _digest(bundled) == before


async def test_measure_overheads(browser_pool, food_site) -> None:
    over = await measure_overheads(browser_pool, food_site.url + "/", repeats=1, concurrent=2)
    assert 0 < over.startup_s < 10 and over.new_page_s > 0
    # the measured per-call concurrency cost replaces the default multiplicative contention
    assert over.measured and over.contention == 0.0 and 0 <= over.busy_s < 10


async def test_bench_on_two_tasks(browser_pool) -> None:
    seen: list[tuple[str, str, str]] = []
    report = await run_scheduler_bench(
        "food", repeats=1, profile_repeats=1, latency_scale=0.05,
        task_ids=["food-v1-1", "food-custom-9"], pool=browser_pool,
        on_run=lambda ev: seen.append((ev.phase, ev.task, ev.strategy)),
    )  # fmt: skip
    rows = {r.id: r for r in report.tasks}
    assert list(rows) == ["food-v1-1", "food-custom-9"]
    # profile: one serial run each; measure: serial + hedge, plus parallel where the loop fans out
    assert [s for s in seen if s[0] == "profile"] == [
        ("profile", "food-v1-1", "serial"), ("profile", "food-custom-9", "serial")
    ]
    assert [s[2] for s in seen if s[0] == "measure" and s[1] == "food-v1-1"] == ["serial", "hedge"]
    assert [s[2] for s in seen if s[0] == "measure" and s[1] == "food-custom-9"] == ["serial", "parallel", "hedge"]
    assert report.summary["failed_runs"] == 0 and report.summary["failures"] == []
    for row in rows.values():
        assert all(all(run.ok) for run in row.runs)
        assert row.oracle in row.measured_mean_s
        measured = {k: v for k, v in row.measured_mean_s.items() if v is not None}
        assert measured[row.oracle] == min(measured.values())
        assert row.agree == (row.chosen == row.oracle)
        assert row.regret is not None and row.regret >= 0
        assert row.regret == pytest.approx((measured[row.chosen] - measured[row.oracle]) / measured[row.oracle])
        assert set(row.predicted_mean_s) == set(row.measured_mean_s)
        assert row.decision_time_s > 0
    assert rows["food-custom-9"].workers["parallel"] >= 2
    assert [r.ran_as for r in rows["food-custom-9"].runs] == [["serial"], ["parallel"], ["hedge"]]
    agreement = report.summary["agreement"]
    assert agreement == sum(r.agree for r in rows.values()) / 2
    assert report.summary["decision_time_median_s"] > 0
    assert report.summary["runs"] == 5
    assert any(row["tool"] == "goto_store" for row in report.profile)


def test_cli_bench_rejects_unknown_task(capsys) -> None:
    code = main(["bench", "scheduler", "--tasks", "food-nope", "--json"])
    assert code == 2
    error = json.loads(capsys.readouterr().out)["error"]  # with --json, the error is JSON on stdout
    assert error["type"] == "ConfigError" and "food-nope" in error["message"]
