"""Recorder, bad traces, extraction, and the whole build (verify on the live food site)."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.food.data import SECTIONS
from agentjit.cache import ToolCache
from agentjit.protocol.trace import read_trace
from toolcache.build import build_cache
from toolcache.cli import main
from toolcache.compare import compare_caches
from toolcache.extract import extract_snapshot
from toolcache.record import record_script, reset_site
from toolcache.script import Script

FOOD_TRACES = Path(__file__).resolve().parents[2] / "traces" / "food"


async def test_recorder_writes_valid_trace(pool, food_site, tmp_path: Path) -> None:
    script = Script.model_validate({"name": "t", "steps": [
        {"action": "goto", "url": "/"},
        {"action": "click", "target": {"selector": "[data-testid=store-card]", "text": "Winstop"}},
        {"action": "click", "target": {"selector": "[data-testid=menu-item]", "nth": 0}},
        {"action": "click", "target": {"selector": "[data-testid=add-to-cart-button]"}},
    ]})
    out = await record_script(pool, script, food_site.url, tmp_path / "t.jsonl", site="food")
    trace = read_trace(out)
    assert trace.session.source == "recorder"
    assert [s.action for s in trace.steps] == ["goto", "click", "click", "click"]
    assert all(s.ok for s in trace.steps)
    click = trace.steps[1]
    assert click.target is not None and click.target.tag == "a"
    assert (click.target.model_extra or {})["testid"] == "store-card"
    assert click.url_after is not None and click.url_after.endswith("/store/winstop")
    assert click.document is True  # the click loaded the store's page
    assert [r["method"] for r in trace.steps[3].requests] == ["POST"]
    assert trace.steps[1].requests == []
    # snapshots are deduplicated: the two store steps before the write share the page only if unchanged
    assert len(trace.snapshots) <= len(trace.steps)
    assert "data-page=\"store\"" in (trace.snapshot_html(trace.steps[2]) or "")


def test_extract_finds_store_cards_on_home() -> None:
    trace = read_trace(FOOD_TRACES / "browse_section.jsonl")
    html = trace.snapshot_html(trace.steps[0])
    assert html is not None
    ps = extract_snapshot(html, trace.steps[0].url_after)
    assert ps.page == "home"
    cards = ps.elements["storeCard"]
    assert cards.repeated and cards.selector == '[data-testid="store-card"]'
    assert cards.visible_count >= 30
    assert cards.name_prop == "name"
    assert cards.group_prop is not None and cards.group_prop.name == "section"
    assert cards.visible_counts["Best near you"] == len(SECTIONS["Best near you"])
    assert "categoryChip" in ps.elements
    schema = ps.to_json_schema()
    assert schema["$defs"]["storeCard"]["x-visibleCount"] == cards.visible_count


async def test_bad_traces_are_named_and_build_goes_on(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    shutil.copy(FOOD_TRACES / "browse_category.jsonl", good)
    lines = (FOOD_TRACES / "search_store.jsonl").read_text().splitlines()
    (tmp_path / "truncated.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:40] + "\n")
    session = json.loads(lines[0])
    (tmp_path / "version.jsonl").write_text(json.dumps({**session, "version": 99}) + "\n")
    steps = [ln for ln in lines if json.loads(ln)["kind"] != "snapshot"]
    (tmp_path / "nosnap.jsonl").write_text("\n".join(steps) + "\n")
    cache, report = await build_cache([tmp_path], tmp_path / "cache")
    bad = {Path(b["path"]).name: b for b in report.bad_traces}
    assert set(bad) == {"truncated.jsonl", "version.jsonl", "nosnap.jsonl"}
    assert bad["truncated.jsonl"]["line"] == 4 and "truncated.jsonl:4" in bad["truncated.jsonl"]["error"]
    assert bad["version.jsonl"]["line"] == 1 and "version" in bad["version.jsonl"]["error"]
    assert "snapshot" in bad["nosnap.jsonl"]["error"] and bad["nosnap.jsonl"]["line"] == 2
    assert report.traces == 1
    assert "list_stores" in report.synthesized and "goto_category" in report.synthesized
    assert ToolCache.load(tmp_path / "cache").tools  # written, unverified


@pytest.mark.slow
async def test_build_verifies_on_live_site_and_covers_hand_tools(pool, food_site, tmp_path: Path) -> None:
    resets = []

    async def reset() -> None:
        resets.append(1)
        await asyncio.to_thread(reset_site, food_site.url)

    before = json.dumps(food_site.state(), sort_keys=True)
    t0 = time.perf_counter()
    cache, report = await build_cache([FOOD_TRACES], tmp_path / "built", base_url=food_site.url, app="food",
                                      pool=pool, reset=reset)
    build_s = time.perf_counter() - t0
    assert build_s < 120
    # the default build never changes the site (tests/toolcache/test_safe_verify.py for the other apps)
    assert json.dumps(food_site.state(), sort_keys=True) == before and resets == []
    assert report.writes == {"add_to_cart": "recorded", "remove_line": "recorded", "place_order": "recorded"}, report.rejected
    assert len(report.verified) >= 20
    assert {"list_stores", "goto_store", "add_to_cart", "place_order", "search"} <= set(report.verified)
    assert cache.tools["add_to_cart"].effect.value == "WRITE"
    assert cache.tools["list_stores"].effect.value == "READ"
    assert cache.tools["goto_store"].pre_tools == {"name": ["list_stores"]}
    assert all(t["kept"] == (t["with_provider_value"] and t["control_failed"]) for t in report.relation_tests)
    assert "list_stores" in cache.latency
    built = ToolCache.load(tmp_path / "built")
    result = await compare_caches(ToolCache.load(CACHE_DIR), built, food_site.url, pool)
    print("build", round(build_s, 1), "s; coverage", result.to_json())
    assert result.coverage >= 0.8
    # writes are judged by the state change they cause; the order page is reached by placing an order
    assert result.matches.get("add_to_cart") == "add_to_cart" and result.judged_by["add_to_cart"] == "state change"
    assert result.matches.get("place_order") == "place_order" and result.judged_by["place_order"] == "state change"
    assert result.matches.get("get_order") == "get_order_details"
    # listing tools must list the same items
    assert result.judged_by.get("list_stores") == "items" and result.judged_by.get("list_menu_items") == "items"


def test_cli_build_without_site_json(tmp_path: Path, capsys) -> None:
    code = main(["build", str(FOOD_TRACES / "browse_category.jsonl"), "-o", str(tmp_path / "c"), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["traces"] == 1 and data["tools"]["synthesized"] >= 5 and data["tools"]["verified"] == 0
