"""Issue 21: a WRITE that broke after its request reached the site is healed on the page that request led to.

place_order posts the checkout form from its script and reads the order confirmation the answer redirects to. A
redesign that renames the confirmation's names breaks it after the order is placed: the write is never sent again
(no fallback), and the run keeps, as the suspect's evidence, the request it sent with the site's answer and the page
the redirect led to. Heal then rebuilds the tool without placing an order: the rebuilt tool's request is answered
with the run's, and since the site has no such order any more (it answers the order's address with 404), the
confirmation the run saw is served there, where the tool's script and post_check are judged. The site's own state
(``/__state``, which the judges count writes by) shows that nothing reached it. Real Chromium on the food site behind
the redesign proxy."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.exceptions import ToolCallFailed
from agentjit.runtime import Runtime
from agentjit.runtime.healing import FallbackAnswer
from toolcache.heal import heal_cache
from toolcache.literal import css_attr

pytestmark = pytest.mark.browser

ORDER = """
await goto_store(name="Taqueria El Sol")
await add_to_cart(item_name="{item}")
await goto_cart()
await goto_checkout()
order = await place_order(mode="{mode}")
result = [order.order_id, order.mode]
"""
GOOD = ORDER.format(item="Chips & Guacamole", mode="pickup")
CONFIRMATION = {"order-confirmation", "order-store", "order-mode", "order-total"}
"""The names of the order confirmation: on no page place_order runs on, only on the one its request leads to."""
TIMEOUT_MS = 4000


@pytest.mark.parametrize(("item", "mode"), [("Chips & Guacamole", "pickup"), ("Horchata", "delivery")])
async def test_a_write_that_broke_after_it_was_sent_is_healed_on_the_page_it_led_to(
        tmp_path: Path, browser_pool: Any, food_site: Any, item: str, mode: str) -> None:  # fmt: skip
    """The order that broke is the good call's again, or another (another item, delivery: the confirmation's texts
    differ from the good call's, its elements are known by their tag, attributes and place)."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    good = await Runtime(ToolCache.load(cache_dir), food_site.url, pool=browser_pool, record_suspects=True).run(GOOD)
    assert good.value == ["ORD-1001", "pickup"]
    plan = ORDER.format(item=item, mode=mode)
    food_site.reset()
    fell_back: list[str] = []

    async def fallback(page: Any, tool: Any, args: dict[str, Any], suspect: Any) -> FallbackAnswer:
        fell_back.append(tool.name)
        return FallbackAnswer(output={})

    with RedesignProxy(food_site.url, seed=7, only=CONFIRMATION) as proxy:
        runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                          tool_timeout_ms=TIMEOUT_MS, fallback=fallback)  # fmt: skip
        with pytest.raises(ToolCallFailed, match="place_order"):
            await runtime.run(plan)
        assert fell_back == []  # the order reached the site: never sent again
        assert [o["id"] for o in food_site.state()["orders"]] == ["ORD-1001"]
        evidence = SuspectStore(cache_dir).suspects()["place_order"]
        assert evidence["write_sent"] is True and evidence["phase"] == "execute"
        [sent] = evidence["writes"]
        assert sent["method"] == "POST" and sent["status"] == 303
        assert sent["response"]["headers"]["location"].endswith("/orders/ORD-1001")
        assert evidence["landing_url"].endswith("/orders/ORD-1001")
        landing = await asyncio.to_thread(Path(evidence["landing_dom_path"]).read_text, encoding="utf-8")
        assert proxy.redesign.names["order-confirmation"] in landing  # the confirmation as the run saw it

        food_site.reset()  # the site has no order ORD-1001 any more, and an empty cart
        state = food_site.state()
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool, tools=["place_order"], probe=False)
        assert food_site.state() == state  # no order placed, nothing added: every request answered from the record
        assert report.healed == ["place_order"], report.failed
        assert report.landings["place_order"].endswith("/orders/ORD-1001")
        new = proxy.redesign.names
        assert report.changes["place_order"] == {f"[data-testid={old}]": css_attr("data-testid", new[old]) for old in CONFIRMATION}
        assert ToolCache.load(cache_dir).tool("place_order").version == 2

        healed = await Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, tool_timeout_ms=TIMEOUT_MS).run(plan)
        assert healed.value == ["ORD-1001", mode]
        assert [o["id"] for o in food_site.state()["orders"]] == ["ORD-1001"]  # the healed tool's one order, once
