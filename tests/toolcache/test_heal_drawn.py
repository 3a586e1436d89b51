"""Issue 21: a WRITE is healed for every good call on record, not only its first. What its own click draws (an item
dialog's option groups) is on no page heal loads, not on its good page either; a later good call that used those
names (an item with options) is kept with its requests, and heal names them by what the tool's run draws there,
verified against that call's recorded request behind the guard. Real Chromium on the food site behind the redesign
proxy."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.runtime import Runtime
from toolcache.heal import heal_cache
from toolcache.literal import css_attr

pytestmark = pytest.mark.browser

PLAN = """
await goto_store(name="Taqueria El Sol")
plain = await add_to_cart(item_name="Chips & Guacamole")
sized = await add_to_cart(item_name="Horchata", customizations="Size:Large")
result = {"plain": plain.success, "sized": sized.line_total}
"""
RENAMED = {"menu-item", "option-group", "option-choice"}
"""The cards (the first call fails on them: add_to_cart is suspect) and the dialog's option groups and choices,
drawn only when an item with options is opened."""
TIMEOUT_MS = 4000


async def test_a_write_is_healed_for_the_names_its_later_good_call_drew(tmp_path: Path, browser_pool: Any,
                                                                        food_site: Any) -> None:  # fmt: skip
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    good = await Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True).run(PLAN)
    assert good.value == {"plain": True, "sized": 4.25}
    calls = SuspectStore(cache_dir).good_calls("add_to_cart")
    assert [c["args"].get("item_name") for c in calls] == ["Chips & Guacamole", "Horchata"]
    assert all(c.get("writes") for c in calls)  # the later call's request is kept too, to verify against
    food_site.reset()
    with RedesignProxy(food_site.url, seed=7, only=RENAMED) as proxy:
        runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                          tool_timeout_ms=TIMEOUT_MS)  # fmt: skip
        with pytest.raises(Exception, match="add_to_cart|menu item"):
            await runtime.run(PLAN)
        assert "add_to_cart" in SuspectStore(cache_dir).suspects()
        state = food_site.state()
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool, tools=["add_to_cart"], probe=False)
        assert food_site.state() == state  # every request was answered from the record
        assert report.healed == ["add_to_cart"], report.failed
        new = proxy.redesign.names
        assert report.changes["add_to_cart"] == {f"[data-testid={old}]": css_attr("data-testid", new[old]) for old in RENAMED}
        healed = await Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool,
                               tool_timeout_ms=TIMEOUT_MS).run(PLAN)  # fmt: skip
        assert healed.value == {"plain": True, "sized": 4.25}


ORDER = """
await goto_store(name="Taqueria El Sol")
await add_to_cart(item_name="Chips & Guacamole")
await goto_cart()
await goto_checkout()
order = await place_order(mode="pickup")
result = order.order_id
"""


async def test_a_write_whose_page_lacks_the_state_it_needs_is_not_made_suspect(tmp_path: Path, browser_pool: Any,
                                                                               food_site: Any) -> None:  # fmt: skip
    """place_order's good page was the checkout with a line in the cart; the site's cart is empty now, and its
    checkout page has no form at all (a search box, no address field): the page's state, which no new name
    repairs, not a tool to heal."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    assert (await Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True).run(ORDER)).value
    food_site.reset()
    with RedesignProxy(food_site.url, seed=7, only={"checkout-form", "address-input"}) as proxy:
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool, probe=True)
    probed = {p["tool"]: p for p in report.probed}
    assert probed["place_order"]["ok"] is False and probed["place_order"]["suspect"] is False, probed["place_order"]
    assert "state" in probed["place_order"]["reason"]
    assert "place_order" not in SuspectStore(cache_dir).suspects() and "place_order" not in report.failed


CHECKOUT = """
await goto_store(name="Taqueria El Sol")
await add_to_cart(item_name="Chips & Guacamole")
await goto_cart()
await goto_checkout()
result = True
"""


@pytest.mark.parametrize(("renamed", "phase"), [("checkout-link", "pre_check"), ("checkout-form", "post_check")])
async def test_a_tool_is_healed_on_the_page_its_run_failed_on_when_the_site_shows_it_in_another_state(
        tmp_path: Path, browser_pool: Any, food_site: Any, renamed: str, phase: str) -> None:  # fmt: skip
    """goto_checkout needs a line in the cart: its link (on the cart page) and the form it lands on show only then.
    The run that found it broken had one; heal, after the run, sees the site with an empty cart. It heals the tool
    on the page the run kept (the cart with its line; the checkout it landed on), served at that address with every
    other request the site's, behind the guard."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    assert (await Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True).run(CHECKOUT)).value
    food_site.reset()
    with RedesignProxy(food_site.url, seed=7, only={renamed}) as proxy:
        runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                          tool_timeout_ms=TIMEOUT_MS)  # fmt: skip
        with pytest.raises(Exception, match="goto_checkout"):
            await runtime.run(CHECKOUT)
        assert SuspectStore(cache_dir).suspects()["goto_checkout"]["phase"] == phase
        food_site.reset()  # the cart is empty again
        state = food_site.state()
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool, tools=["goto_checkout"], probe=False)
        assert food_site.state() == state
        assert report.healed == ["goto_checkout"], report.failed
        assert report.changes["goto_checkout"] == {f"[data-testid={renamed}]": css_attr("data-testid", proxy.redesign.names[renamed])}
        healed = await Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool,
                               tool_timeout_ms=TIMEOUT_MS).run(CHECKOUT)  # fmt: skip
        assert healed.value is True


async def test_the_probe_judges_a_tool_on_the_page_another_suspects_run_kept(tmp_path: Path, browser_pool: Any,
                                                                              food_site: Any) -> None:  # fmt: skip
    """The run stopped at goto_checkout, whose post_check found no order form on the checkout it landed on; the
    site's cart is empty when heal runs, so the checkout heal loads has no form. place_order, never reached, is
    probed on the checkout that run kept: its names are gone there under new names, so it is suspect and healed
    in the same round, its request answered from the record."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    assert (await Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True).run(ORDER)).value
    food_site.reset()
    renamed = {"checkout-form", "address-input"}
    with RedesignProxy(food_site.url, seed=7, only=renamed) as proxy:
        runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                          tool_timeout_ms=TIMEOUT_MS)  # fmt: skip
        with pytest.raises(Exception, match="goto_checkout"):
            await runtime.run(ORDER)
        food_site.reset()
        state = food_site.state()
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool, probe=True)
        assert food_site.state() == state
        probed = {p["tool"]: p for p in report.probed}
        assert probed["place_order"]["suspect"] is True, probed["place_order"]
        assert all(f"[data-testid={old}]" in probed["place_order"]["reason"] for old in renamed)
        assert "goto_checkout" in report.healed
        assert "place_order" in report.healed, report.failed
