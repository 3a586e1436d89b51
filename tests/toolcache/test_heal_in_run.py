"""Issue 21 with no model: a run that finds a tool broken heals it there (``toolcache heal`` as a process, in the
run's browser session) and goes on with the healed tool; a WRITE that reached the site before it broke is healed
against its own answer and confirmed, never sent again. The food site, the redesign proxy and Chromium are real."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.exceptions import ConfigError, ToolCallFailed
from agentjit.runtime import Runtime
from agentjit.runtime.repair import HealInRun

pytestmark = pytest.mark.browser

TIMEOUT_MS = 3000
"""How long a broken check polls before it fails (the tools' own 10 s would only slow the test)."""

READ_PLAN = """
store = await goto_store(name="Taqueria El Sol")
d = await get_store_details()
result = {"name": d.name, "fee": d.delivery_fee, "eta": d.eta_minutes}
"""
EXPECTED = {"name": "Taqueria El Sol", "fee": 2.49, "eta": 30}

ORDER_PLAN = """
store = await goto_store(name="Taqueria El Sol")
await add_to_cart(item_name="Horchata")
await goto_cart()
await goto_checkout()
order = await place_order(mode="pickup")
result = {"id": order.order_id, "total": order.total}
"""


async def cache_with_good_calls(tmp_path: Path, browser_pool, site_url: str, plan: str) -> Path:
    """A copy of the food cache that ran ``plan`` once on the site as it was: each tool's good page, call and
    requests kept (what heal holds a rebuilt tool to)."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    original = Runtime(ToolCache.load(cache_dir), site_url, pool=browser_pool, record_suspects=True)
    await original.run(plan)
    return cache_dir


def runtime(cache_dir: Path, url: str, browser_pool, repair: HealInRun | None) -> Runtime:
    return Runtime(ToolCache.load(cache_dir), url, pool=browser_pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS,
                   repair=repair)  # fmt: skip


async def test_a_read_the_redesign_broke_is_healed_in_the_run_with_no_model(tmp_path, browser_pool, food_site) -> None:
    cache_dir = await cache_with_good_calls(tmp_path, browser_pool, food_site.url, READ_PLAN)
    with RedesignProxy(food_site.url, seed=7, only={"store-header"}) as proxy:
        repair = HealInRun(cache_dir, proxy.url)
        first = await runtime(cache_dir, proxy.url, browser_pool, repair).run(READ_PLAN)
        # the task passes in the run that found the tool broken: healed there, no model asked
        assert first.value == EXPECTED
        assert [(f["tool"], f["ok"], f["how"], f["model_calls"]) for f in first.fallbacks] == [
            ("get_store_details", True, "heal", 0)]  # fmt: skip
        assert [s["tool"] for s in first.suspects] == ["get_store_details"]
        assert [(r["tool"], r["healed"], r["version"]) for r in repair.reports] == [("get_store_details", True, 2)]
        # the cache on disk holds the healed tool, its suspect cleared; the site's name is the one it looks for
        healed = ToolCache.load(cache_dir).tool("get_store_details")
        assert healed.version == 2 and proxy.redesign.new_name("store-header") in healed.pre_check
        assert SuspectStore(cache_dir).suspects() == {}
        # the next run, on the cache as the heal left it, needs nothing
        again = HealInRun(cache_dir, proxy.url)
        second = await runtime(cache_dir, proxy.url, browser_pool, again).run(READ_PLAN)
        assert second.value == EXPECTED and second.fallbacks == [] and again.reports == []


async def test_a_write_that_reached_the_site_is_confirmed_never_sent_again(tmp_path, browser_pool, food_site) -> None:
    """The redesign renamed only the order confirmation: place_order sends the order, then cannot read its answer.
    Healed against that answer, the call gives the order the site placed, confirmed by the healed post_check on the
    page the order led to; the site has that one order, and the plan went on."""
    cache_dir = await cache_with_good_calls(tmp_path, browser_pool, food_site.url, ORDER_PLAN)
    food_site.reset()
    with RedesignProxy(food_site.url, seed=7, only={"order-confirmation"}) as proxy:
        repair = HealInRun(cache_dir, proxy.url)
        first = await runtime(cache_dir, proxy.url, browser_pool, repair).run(ORDER_PLAN)
        orders = food_site.state()["orders"]
        assert len(orders) == 1  # sent once: the confirmation came from healing against its answer
        assert first.value == {"id": orders[0]["id"], "total": pytest.approx(orders[0]["total"])}
        assert [(s["tool"], s["write_sent"]) for s in first.suspects] == [("place_order", True)]
        assert [(f["tool"], f["how"], f.get("confirmed")) for f in first.fallbacks] == [("place_order", "heal", True)]
        assert [(r["tool"], r["healed"], r.get("write_sent")) for r in repair.reports] == [("place_order", True, True)]
        assert ToolCache.load(cache_dir).tool("place_order").version == 2
        # the next order goes through the healed tool with nothing to repair
        food_site.reset()
        again = HealInRun(cache_dir, proxy.url)
        second = await runtime(cache_dir, proxy.url, browser_pool, again).run(ORDER_PLAN)
        assert second.fallbacks == [] and again.reports == [] and len(food_site.state()["orders"]) == 1


async def test_a_write_heal_cannot_confirm_fails_as_before(tmp_path, browser_pool, food_site) -> None:
    """With no good call on record heal cannot rebuild the WRITE: the call fails, and the order is not sent twice."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    with RedesignProxy(food_site.url, seed=7, only={"order-confirmation"}) as proxy:
        repair = HealInRun(cache_dir, proxy.url)
        with pytest.raises(ToolCallFailed, match="place_order"):
            await runtime(cache_dir, proxy.url, browser_pool, repair).run(ORDER_PLAN)
    assert len(food_site.state()["orders"]) == 1
    assert [(r["tool"], r["healed"]) for r in repair.reports] == [("place_order", False)]


def test_repair_needs_suspects_recorded(food_cache, food_site) -> None:
    with pytest.raises(ConfigError, match="record_suspects"):
        Runtime(food_cache, food_site.url, repair=HealInRun("/nonexistent", food_site.url))
