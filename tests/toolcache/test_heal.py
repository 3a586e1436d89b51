"""Issue 21 end to end on the food site in Chromium: a tool whose selector the site no longer has is caught as
suspect, the call is finished by the stepwise agent (a scripted model on the site's own data, no provider),
``toolcache heal`` repairs the tool from a fresh page, and the next run needs no fallback."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentjit.agent import agent_tool_fallback
from agentjit.bench.food import CACHE_DIR
from agentjit.bench.food.data import BY_SLUG, dollars
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.exceptions import ToolCallFailed
from agentjit.llm.base import Message
from agentjit.llm.function import FunctionModel
from agentjit.runtime import Runtime
from agentjit.runtime.healing import FallbackAnswer
from toolcache.cli import main as toolcache_main
from toolcache.heal import heal_cache

pytestmark = pytest.mark.browser

PLAN = """
store = await goto_store(name="Taqueria El Sol")
d = await get_store_details()
result = {"name": d.name, "fee": d.delivery_fee, "eta": d.eta_minutes}
"""
TIMEOUT_MS = 3000
"""How long a broken check polls before it fails (the tools' own 10 s would only slow the test)."""
EXPECTED = {"name": "Taqueria El Sol", "fee": 2.49, "eta": 30}


def store_details_model() -> FunctionModel:
    """The oracle for ``get_store_details``: reads the store's slug off the page's URL and answers its record."""

    def answer(messages: list[Message]) -> str:
        page = messages[-1].content
        slug = re.search(r"URL: \S*/store/([a-z0-9-]+)", page)
        assert slug is not None, page[:300]
        r = BY_SLUG[slug.group(1)]
        details = {"name": r.name, "slug": r.slug, "category": r.category, "cuisine": r.cuisine, "rating": r.rating,
                   "review_count": r.review_count, "delivery": r.delivery, "pickup": r.pickup,
                   "delivery_fee": dollars(r.delivery_fee), "eta_minutes": r.eta_min}  # fmt: skip
        return json.dumps({"action": "done", "answer": details})

    return FunctionModel(answer, name="oracle")


def read(path: str) -> str:
    return Path(path).read_text()


def broken_copy(tmp_path: Path, tool: str, old: str, new: str) -> Path:
    """A copy of the food cache whose ``tool`` looks for ``new`` where the site has ``old`` (a renamed element)."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    path = cache_dir / "tools" / f"{tool}.json"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return cache_dir


async def test_broken_read_falls_back_then_heals(tmp_path, browser_pool, food_site) -> None:
    cache_dir = broken_copy(tmp_path, "get_store_details", "data-testid=store-header", "data-testid=store-banner")
    cache = ToolCache.load(cache_dir)
    before = cache.fingerprint()
    cache.plans[f"{before}:unrelated"] = {"task": "x", "source": "result = await list_categories()"}
    cache.plans[f"{before}:uses"] = {"task": "y", "source": "result = await get_store_details()"}
    cache.save_part("plans")

    # with the stepwise agent as fallback the run finishes, and says what the fallback cost
    model = store_details_model()
    runtime = Runtime(cache, food_site.url, pool=browser_pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS, fallback=agent_tool_fallback(model))
    result = await runtime.run(PLAN)
    assert result.value == EXPECTED
    [fb] = result.fallbacks
    assert fb["tool"] == "get_store_details" and fb["ok"] and fb["model_calls"] == 1 and fb["time_s"] > 0
    [suspect] = result.suspects  # pre_check failed on a store page: the tool, not the plan
    assert suspect["tool"] == "get_store_details" and suspect["phase"] == "pre_check"
    assert suspect["url"].endswith("/store/taqueria-el-sol") and suspect["state"] == {"page": "store", "store": "taqueria-el-sol"}
    stored = SuspectStore(cache_dir).read()
    # goto_store's good page, the report, the answer
    assert stored["revision"] == 3 and set(stored["suspects"]) == {"get_store_details"}
    evidence = stored["suspects"]["get_store_details"]
    assert evidence["times"] == 1 and evidence["fallback_output"]["name"] == "Taqueria El Sol"
    assert 'data-testid="store-header"' in read(evidence["dom_path"])  # the page as the tool failed on it

    # heal: the tool is rebuilt against the live site, verified, and saved with a new version
    report = await heal_cache(cache_dir, food_site.url, pool=browser_pool)
    assert report.healed == ["get_store_details"] and not report.failed
    healed = ToolCache.load(cache_dir)
    tool = healed.tool("get_store_details")
    assert "store-banner" not in tool.pre_check + tool.execute and "store-header" in tool.execute
    assert tool.version == 2 and healed.info.revision == 1
    assert SuspectStore(cache_dir).suspects() == {}
    after = healed.fingerprint()
    assert after != before
    # the plan that used the changed tool is gone, the other one is kept under the new tools' fingerprint
    assert report.plans_dropped == 1 and report.plans_kept == 1
    assert list(healed.plans) == [f"{after}:unrelated"]

    # the second run: the healed tool, no fallback, no model call
    calls = len(model.calls)
    runtime = Runtime(healed, food_site.url, pool=browser_pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS, fallback=agent_tool_fallback(model))
    result = await runtime.run(PLAN)
    assert result.value == EXPECTED and result.fallbacks == [] and result.suspects == []
    assert len(model.calls) == calls


def test_heal_cli_without_suspects_says_so(tmp_path, food_site, capsys) -> None:
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    assert toolcache_main(["heal", "--cache", str(cache_dir), "--site", food_site.url, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert out["healed"] == [] and out["failed"] == {} and out["suspects"] == []


WRITE_PLAN = """
store = await goto_store(name="Taqueria El Sol")
added = await add_to_cart(item_name="Horchata")
result = added.success
"""


class CountingFallback:
    """Stands in for the agent where a test needs to know whether the runtime asked it at all: it does the
    WRITE with the food cache's own (intact) tool on the plan's page, and counts its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.intact = ToolCache.load(CACHE_DIR)

    async def __call__(self, page: Any, tool: Any, args: dict[str, Any], suspect: Any) -> FallbackAnswer:
        from agentjit.runtime import call_tool

        self.calls.append(tool.name)
        outcome = await call_tool(page, self.intact.tool(tool.name), args)
        assert outcome.ok, outcome
        return FallbackAnswer(output=outcome.output, model_calls=1, time_s=outcome.timings["total"])


async def test_write_that_may_have_reached_the_site_is_not_retried(tmp_path, browser_pool, food_site) -> None:
    # the cart count is read after the add's request went out: the write reached the site, then the tool broke
    cache_dir = broken_copy(tmp_path, "add_to_cart", "data-testid=cart-count", "data-testid=basket-count")
    fallback = CountingFallback()
    runtime = Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True,
                      tool_timeout_ms=TIMEOUT_MS, fallback=fallback)  # fmt: skip
    with pytest.raises(ToolCallFailed) as info:
        await runtime.run(WRITE_PLAN)
    suspect = info.value.suspect  # type: ignore[attr-defined]
    assert suspect.tool == "add_to_cart" and suspect.phase == "execute" and suspect.write_sent is True
    assert fallback.calls == []
    assert [line["item_name"] for line in food_site.state()["cart"]] == ["Horchata"]  # sent once, never again
    assert SuspectStore(cache_dir).suspects()["add_to_cart"]["write_sent"] is True


async def test_write_that_failed_before_sending_falls_back_once(tmp_path, browser_pool, food_site) -> None:
    # the pre_check looks for a heading the site renamed: execute never ran, nothing reached the site
    cache_dir = broken_copy(tmp_path, "add_to_cart", "data-testid=full-menu-heading", "data-testid=menu-title")
    fallback = CountingFallback()
    runtime = Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, tool_timeout_ms=TIMEOUT_MS,
                      fallback=fallback)  # fmt: skip
    result = await runtime.run(WRITE_PLAN)
    assert result.value is True and fallback.calls == ["add_to_cart"]
    assert [s["write_sent"] for s in result.suspects] == [False]
    assert [f["tool"] for f in result.fallbacks] == ["add_to_cart"] and len(result.writes) == 1
    assert [line["item_name"] for line in food_site.state()["cart"]] == ["Horchata"]


async def test_a_plan_error_is_not_a_suspect(tmp_path, browser_pool, food_site, food_cache) -> None:
    fallback = CountingFallback()
    runtime = Runtime(food_cache, food_site.url, pool=browser_pool, tool_timeout_ms=TIMEOUT_MS, fallback=fallback)
    plan = 'store = await goto_store(name="Taqueria El Sol")\nresult = await get_item_details(item_name="Lasagna")'
    with pytest.raises(ToolCallFailed, match="Lasagna") as info:
        await runtime.run(plan)
    assert info.value.suspect is None and fallback.calls == []  # type: ignore[attr-defined]


def test_not_sent_phases_are_the_effect_logs() -> None:
    from agentjit.runtime import effects, healing

    assert healing.NOT_SENT_PHASES == effects.NOT_SENT_PHASES


async def test_a_redesigned_site_heals(tmp_path, browser_pool, food_site) -> None:
    """The site changes, not the cache: the proxy renames the store header everywhere (the app's own scripts too)."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    model = store_details_model()
    # a run on the site as it was keeps the page each tool worked on: what its selectors matched
    original = Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True)
    assert (await original.run(PLAN)).value == EXPECTED
    assert SuspectStore(cache_dir).good("get_store_details")["url"].endswith("/store/taqueria-el-sol")
    with RedesignProxy(food_site.url, seed=7, only={"store-header"}) as proxy:
        runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                          tool_timeout_ms=TIMEOUT_MS, fallback=agent_tool_fallback(model))  # fmt: skip
        first = await runtime.run(PLAN)
        assert first.value == EXPECTED and [f["tool"] for f in first.fallbacks] == ["get_store_details"]
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool)
        renamed = proxy.redesign.new_name("store-header")
        assert report.healed == ["get_store_details"]
        assert report.changes["get_store_details"] == {"[data-testid=store-header]": f'[data-testid="{renamed}"]'}
        assert report.candidates_tried["get_store_details"] == 1  # the element of the good page, found by its text
        runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                          tool_timeout_ms=TIMEOUT_MS, fallback=agent_tool_fallback(model))  # fmt: skip
        calls = len(model.calls)
        second = await runtime.run(PLAN)
        assert second.value == EXPECTED and second.fallbacks == [] and len(model.calls) == calls


async def test_a_page_the_site_does_not_answer_fails_its_tool_not_the_heal(tmp_path, browser_pool, food_site) -> None:
    """The site drops the connection of the suspect's page (a slow moment of a loaded site): heal reports that tool
    not healed, keeps its evidence, and ends normally; the next heal, the site answering again, heals it."""
    from agentjit.bench.faults import FaultRule

    cache_dir = broken_copy(tmp_path, "get_store_details", "data-testid=store-header", "data-testid=store-banner")
    runtime = Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS)
    with pytest.raises(Exception, match="get_store_details"):
        await runtime.run(PLAN)
    assert set(SuspectStore(cache_dir).suspects()) == {"get_store_details"}
    food_site.faults.set([FaultRule("/store/taqueria-el-sol", "drop", method="GET", times=100)])
    try:
        report = await heal_cache(cache_dir, food_site.url, pool=browser_pool, probe=False)
    finally:
        food_site.faults.clear()
    assert report.healed == [] and report.failed["get_store_details"].startswith("the site did not answer: cannot open")
    assert set(SuspectStore(cache_dir).suspects()) == {"get_store_details"}  # its evidence kept for the next heal
    report = await heal_cache(cache_dir, food_site.url, pool=browser_pool, probe=False)
    assert report.healed == ["get_store_details"] and not report.failed


async def test_one_heal_of_a_cache_at_a_time(tmp_path) -> None:
    """Two heals of one cache directory (two runs healing in the run, a run and ``toolcache heal``) take turns: each
    saves the cache whole, so at once one would save over the other's tools."""
    import asyncio

    from agentjit.exceptions import CacheError
    from toolcache.heal import LOCK_FILE, one_heal_at_a_time

    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    order: list[str] = []

    async def first() -> None:
        async with one_heal_at_a_time(cache_dir):
            order.append("first in")
            await asyncio.sleep(0.6)
            order.append("first out")

    async def second() -> None:
        await asyncio.sleep(0.1)
        async with one_heal_at_a_time(cache_dir):
            order.append("second in")

    await asyncio.gather(first(), second())
    assert order == ["first in", "first out", "second in"]
    async with one_heal_at_a_time(cache_dir):  # held past the wait: a clear error, nothing healed
        with pytest.raises(CacheError, match="another heal"):
            async with one_heal_at_a_time(cache_dir, wait_s=0.3):
                pass
    # a hostile cache's link where the lock file goes is refused, and where it points is never made
    (cache_dir / LOCK_FILE).unlink()
    target = tmp_path / "elsewhere"
    (cache_dir / LOCK_FILE).symlink_to(target)
    with pytest.raises(CacheError, match="link"):
        await heal_cache(cache_dir, "http://127.0.0.1:9", probe=False)
    assert not target.exists()
