"""``toolcache heal`` probes the tools no run found suspect (issue 21): a run stops at its first broken tool, so a
redesign that broke two tools a task calls in turn leaves one suspect; one heal repairs both, read-only. Real
Chromium on the food site behind the redesign proxy."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.runtime import Runtime
from toolcache.cli import main as toolcache_main
from toolcache.heal import heal_cache

from .pages import serve
from .test_heal_classes import BALANCE, SIGN_IN, AccountSite, run

pytestmark = pytest.mark.browser

PLAN = """
store = await goto_store(name="Taqueria El Sol")
d = await get_store_details()
menu = await list_menu_items()
added = await add_to_cart(item_name="Horchata")
await goto_cart()
cart = await view_cart()
result = {"name": d.name, "items": len(menu["items"]), "description": menu["items"][0]["description"],
          "added": added.success, "cart": len(cart["lines"])}
"""
BROKEN = {"store-header", "menu-item-description"}
"""Renamed by the redesign: the first is get_store_details', the second list_menu_items' (called after it)."""
TIMEOUT_MS = 3000
"""How long a broken check polls before the run gives up on it (the tools' own 10 s would only slow the test)."""


async def broken_twice(tmp_path: Path, browser_pool: Any, site: Any, proxy: RedesignProxy) -> tuple[Path, Any]:
    """A copy of the food cache with every tool of PLAN's good call on record (a run on the site as it was), then a
    run through ``proxy`` that stops at get_store_details: the one suspect, though list_menu_items is broken too."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    good = await Runtime(ToolCache.load(cache_dir), site.url, pool=browser_pool, record_suspects=True).run(PLAN)
    assert good.value["added"] is True and good.value["description"] and good.value["cart"] == 1
    site.reset()  # an empty cart: view_cart's good page had a line, the site has none now
    runtime = Runtime(ToolCache.load(cache_dir), proxy.url, pool=browser_pool, record_suspects=True,
                      tool_timeout_ms=TIMEOUT_MS)  # fmt: skip
    with pytest.raises(Exception, match="get_store_details|store header"):
        await runtime.run(PLAN)
    assert set(SuspectStore(cache_dir).suspects()) == {"get_store_details"}
    return cache_dir, good.value


async def test_one_heal_repairs_a_tool_no_run_reached(tmp_path, browser_pool, food_site) -> None:
    with RedesignProxy(food_site.url, seed=7, only=BROKEN) as proxy:
        cache_dir, expected = await broken_twice(tmp_path, browser_pool, food_site, proxy)
        before = ToolCache.load(cache_dir)
        state = food_site.state()
        lines: list[str] = []
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool, progress=lines.append)
        # the site saw nothing of it: add_to_cart was probed behind the guard, its request answered from the record
        assert food_site.state() == state
        assert sorted(report.healed) == ["get_store_details", "list_menu_items"] and not report.failed
        probed = {p["tool"]: p for p in report.probed}
        # every good call but the suspect's
        assert set(probed) == {"goto_store", "list_menu_items", "add_to_cart", "goto_cart", "view_cart"}
        assert probed["list_menu_items"]["ok"] is False and probed["list_menu_items"]["suspect"] is True
        assert "menu-item-description" in probed["list_menu_items"]["reason"]
        assert probed["goto_store"]["ok"] is True and probed["add_to_cart"]["ok"] is True and probed["goto_cart"]["ok"]
        # the cart's line is gone, not renamed: the page's state, reported, not made suspect
        assert probed["view_cart"]["ok"] is False and probed["view_cart"]["suspect"] is False
        assert "cart-line" in probed["view_cart"]["reason"] and "state" in probed["view_cart"]["reason"]
        assert all(p["seconds"] >= 0 for p in report.probed)
        assert len(lines) == 5 and lines[0].startswith("probe 1/5 ")
        assert "list_menu_items" in report.suspects
        # the tools that passed their probe are not touched; the broken two are new versions
        healed = ToolCache.load(cache_dir)
        for name in ("goto_store", "add_to_cart", "goto_cart", "view_cart"):
            assert healed.tool(name) == before.tool(name)
        assert healed.tool("list_menu_items").version == 2 and healed.tool("get_store_details").version == 2
        assert healed.info.revision == before.info.revision + 1
        assert SuspectStore(cache_dir).suspects() == {}
        # the second run passes through the redesign with no suspect
        food_site.reset()
        second = await Runtime(healed, proxy.url, pool=browser_pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS).run(PLAN)
        assert second.value == expected and second.suspects == []  # view_cart too, with a line in the cart


async def test_no_probe_heals_only_the_suspect_and_a_clean_probe_changes_nothing(tmp_path, browser_pool, food_site,
                                                                                   capsys) -> None:  # fmt: skip
    with RedesignProxy(food_site.url, seed=7, only=BROKEN) as proxy:
        cache_dir, _expected = await broken_twice(tmp_path, browser_pool, food_site, proxy)
        argv = ["heal", "--cache", str(cache_dir), "--site", proxy.url, "--no-probe", "--json"]
        assert await asyncio.to_thread(toolcache_main, argv) == 0
        out: dict[str, Any] = json.loads(capsys.readouterr().out)
        assert out["healed"] == ["get_store_details"] and out["probed"] == []
        cache = ToolCache.load(cache_dir)
        assert cache.tool("list_menu_items").version == 1 and cache.info.revision == 1
        # probing finds the other one; a second heal then finds nothing broken and leaves the cache as it is
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool)
        assert report.healed == ["list_menu_items"] and ToolCache.load(cache_dir).info.revision == 2
        files = {p: p.read_bytes() for p in sorted((cache_dir / "tools").glob("*.json")) + [cache_dir / "cache.json"]}
        report = await heal_cache(cache_dir, proxy.url, pool=browser_pool)
        assert report.healed == [] and report.suspects == [] and not report.failed
        assert {p["tool"]: p["ok"] for p in report.probed} == {
            **dict.fromkeys(["add_to_cart", "get_store_details", "goto_cart", "goto_store", "list_menu_items"], True),
            "view_cart": False}
        assert not any(p["suspect"] for p in report.probed)
        assert {p: p.read_bytes() for p in files} == files


async def test_probes_run_in_the_signed_in_session(tmp_path, browser_pool) -> None:
    """A redesign broke the sign-in and the page behind it, and no run has seen it: ``heal --sign-in`` probes the
    sign-in first (signed out, its request answered from the record), heals it, sends it once, and probes and
    heals the read on the page the session sees. Signed out, that read cannot be probed: it says so."""
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="account"), [SIGN_IN, BALANCE]).save(cache_dir)
    plan = 'await sign_in(user="alice", password="pass-1")\nb = await read_balance()\nresult = b.balance'
    AccountSite.design, AccountSite.posts, AccountSite.sessions = 1, [], set()
    with serve(AccountSite) as url:
        assert (await run(cache_dir, url, browser_pool, plan)).value == "42 EUR"
        AccountSite.design, AccountSite.sessions = 2, set()
        report = await heal_cache(cache_dir, url, pool=browser_pool, sign_in={"password": "pass-1"})
        assert report.signed_in == {"tool": "sign_in", "ok": True, "reason": None}, report.probed
        assert report.healed == ["sign_in", "read_balance"] and not report.failed
        assert report.changes["read_balance"] == {".balance": ".amount"}
        assert [(p["tool"], p["suspect"]) for p in report.probed] == [("sign_in", True), ("read_balance", True)]
        assert len(AccountSite.posts) == 2  # the run's sign-in and heal's one
        signed_out = await heal_cache(cache_dir, url, pool=browser_pool)
        probed = {p["tool"]: p for p in signed_out.probed}
        assert probed["sign_in"]["ok"] is True and probed["read_balance"]["ok"] is None
        assert "asks to sign in" in probed["read_balance"]["reason"] and signed_out.healed == []
        assert len(AccountSite.posts) == 2
        assert (await run(cache_dir, url, browser_pool, plan)).value == "42 EUR"
