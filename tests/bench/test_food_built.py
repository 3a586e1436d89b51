"""Food tasks over the built cache: no hand-written tool, every demonstrated step covered.

``agentjit/bench/food/built_cache`` is what ``toolcache build traces/food -o
agentjit/bench/food/built_cache --app food`` wrote; the plans in ``built_plans`` call
only its tools. The ``food_built`` app (``agentjit demo --app food_built``) runs them.
The judges are the food tasks' own (the site's ``/__state``: answers, orders, the cart).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.food import BUILT_CACHE_DIR, BUILT_PLANS_DIR, CACHE_DIR, FoodSite
from agentjit.bench.food.tasks import TASKS, built_tasks
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import run_tasks

ROOT = Path(__file__).parents[2]
BUILT = built_tasks()


def test_the_cache_was_built_not_written() -> None:
    cache = ToolCache.load(BUILT_CACHE_DIR)
    assert cache.info.builder["verified"] is True
    assert cache.info.builder["traces"] and all(t.startswith("traces/food/") for t in cache.info.builder["traces"])
    hand = set(ToolCache.load(CACHE_DIR).tools)
    names = set(cache.tools)
    assert {"list_stores", "goto_store", "list_menu_items", "list_reviews", "add_to_cart", "place_order", "search"} <= names
    # a built tool shares a name with a hand-written one only where the builder chose it; its manifest is the builder's
    for name in names & hand:
        assert json.loads((BUILT_CACHE_DIR / "tools" / f"{name}.json").read_text())["elements"], name


def test_every_task_has_a_plan_over_built_tools() -> None:
    assert [t.id for t in BUILT] == [t.id for t in TASKS]
    assert all(t.reference_plan is not None and t.reference_plan.parent == BUILT_PLANS_DIR for t in BUILT)
    app = get_app("food_built")
    assert app.cache_dir == BUILT_CACHE_DIR and [t.id for t in app.tasks()] == [t.id for t in BUILT]


@pytest.mark.parametrize("t", BUILT, ids=[t.id for t in BUILT])
def test_reference_plans_pass_the_static_checker(t: Any) -> None:
    result = check(t.plan_source(), ToolCache.load(BUILT_CACHE_DIR))
    assert result.valid, [str(d) for d in result.diagnostics]


async def test_every_demonstrated_step_is_covered() -> None:
    from toolcache.coverage import step_coverage

    traces = sorted((ROOT / "traces" / "food").glob("*.jsonl"))
    got = await step_coverage(traces, BUILT_CACHE_DIR)
    assert got.steps >= 36 and got.missed == [], got.missed


@pytest.mark.browser
async def test_reference_plans_pass_their_judges(food_site: FoodSite, browser_pool: BrowserPool) -> None:
    report = await run_tasks(BUILT, cache=ToolCache.load(BUILT_CACHE_DIR), site=food_site, pool=browser_pool)
    failed = {r.id: r.reason for r in report.tasks if not r.ok}
    assert report.summary["passed"] >= 11, failed
    writes = {r.id: r.writes for r in report.tasks if r.ok and r.kind == "write"}
    assert len(writes) >= 3 and all(n == 2 for n in writes.values()), writes  # add + order (or two adds): nothing sent twice
    assert all(r.writes == 0 for r in report.tasks if r.kind == "read"), failed
