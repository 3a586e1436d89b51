"""The browser-use baseline: the oracle as a browser-use chat model, token counting, the missing-extra message.

The adapter test drives real browser-use (the optional extra) through one
food task and is skipped where browser-use is not importable; the rest runs
everywhere.
"""

from __future__ import annotations

import base64
import struct
import sys
import zlib
from types import SimpleNamespace

import pytest

from agentjit.bench import browser_use_bench as bub
from agentjit.exceptions import ConfigError


def _png(width: int, height: int) -> str:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk).decode()


def test_image_tokens_follow_openais_tile_price():
    assert bub.image_tokens(1920, 1080) == 85 + 170 * 6  # fitted to 1365x768: 3 x 2 tiles
    assert bub.image_tokens(512, 512) == 85 + 170
    assert bub.image_tokens(4096, 1024) == 85 + 170 * 4  # fitted to 2048x512; its short side is under 768
    assert bub.image_tokens(1920, 1080, detail="low") == 85


def test_prompt_counting_reads_text_and_screenshot_sizes():
    text = SimpleNamespace(type="text", text="x" * 400)
    shot = SimpleNamespace(type="image_url", image_url=SimpleNamespace(url=_png(1024, 768), detail="auto"))
    messages = [SimpleNamespace(content="y" * 40), SimpleNamespace(content=[text, shot])]
    assert bub._image_size(_png(1024, 768)) == (1024, 768)
    assert bub.count_prompt(messages) == (10 + 100, bub.image_tokens(1024, 768))


def test_oracle_actions_map_onto_browser_use_actions():
    to = bub.OracleChatModel._to_browser_use
    base = "http://127.0.0.1:8000/store/1"
    assert to(None, {"action": "click", "index": 7}, base) == [{"click": {"index": 7}}]  # type: ignore[arg-type]
    assert to(None, {"action": "type", "index": 3, "text": "matcha", "submit": True}, base) == [  # type: ignore[arg-type]
        {"input": {"index": 3, "text": "matcha", "clear": True}}, {"send_keys": {"keys": "Enter"}}]
    assert to(None, {"action": "goto", "url": "/cart"}, base) == [  # type: ignore[arg-type]
        {"navigate": {"url": "http://127.0.0.1:8000/cart", "new_tab": False}}]
    assert to(None, {"action": "done", "answer": ["a", "b"]}, base) == [  # type: ignore[arg-type]
        {"done": {"text": '["a", "b"]', "success": True}}]


def test_a_missing_browser_use_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "browser_use", None)  # import browser_use now raises ImportError
    with pytest.raises(ConfigError, match=r"optional extra 'browser-use'.*agentjit\[browser-use\]"):
        bub.require_browser_use()
    assert bub.main(["--app", "food"]) == 2
    assert "pip install 'agentjit[browser-use]'" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore")  # browser-use's own dependencies warn on import
async def test_browser_use_replays_a_food_task_through_the_oracle(food_site):
    pytest.importorskip("browser_use", reason="browser-use (the optional extra 'browser-use') is not installed here")
    from agentjit.bench.food import CACHE_DIR
    from agentjit.cache import ToolCache
    from agentjit.llm.latency import get_profile
    from agentjit.runtime.browser import chromium_executable
    from agentjit.tasks.apps import get_app
    from agentjit.tasks.task import select_tasks

    bub.require_browser_use()
    task = select_tasks(get_app("food").tasks(), ["food-custom-10"])[0]  # search (type + Enter), then read
    start = food_site.url.rstrip("/") + ToolCache.load(CACHE_DIR).info.start_path
    run = await bub.browser_use_run(task, 0, site=food_site, start_url=start, profile=get_profile("none"),
                                     executable=chromium_executable(), use_vision=True, max_steps=8)  # fmt: skip
    assert run.ok, (run.reason, run.error)
    assert run.error is None and run.model_calls == run.steps >= 2
    assert run.actions >= run.steps + 1  # the search was typed and submitted with Enter in one step
    assert run.image_tokens > 0 and run.input_tokens > run.image_tokens  # screenshots and browser-use's prompt
    assert 0 < run.model_s < run.latency_s and run.outside_model_per_step_s > 0


def _food_variant(task_id: str, food_site, slots: int = 2) -> tuple:  # type: ignore[no-untyped-def]
    """``task_id``'s food task, a literal variant of it whose values the seed has that changes at least
    ``slots`` slots, and its values (the task's literals mapped to the variant's)."""
    import dataclasses

    from agentjit.bench.templates_bench import (
        literal_variants,
        seed_check,
        value_pool,
        variant_values,
    )
    from agentjit.planner import make_template
    from agentjit.tasks.apps import get_app

    app = get_app("food")
    cache = app.load_cache()
    tasks = {t.id: t for t in app.tasks() if t.has_plan}
    templates = {i: make_template(t.task, t.plan_source(), cache) for i, t in tasks.items()}
    template = templates[task_id]
    assert template is not None
    seeded = food_site.state()
    check = seed_check(tasks[task_id], seeded, food_site.url)
    pool = value_pool(t for t in templates.values() if t is not None)
    for text, how in literal_variants(template, pool, limit=5, seed_lacks=check):
        if how.count("=") >= slots:
            return tasks[task_id], dataclasses.replace(tasks[task_id], task=text), variant_values(template, text)
    raise AssertionError(f"no variant of {task_id} changes two slots")


def test_substitute_steps_puts_the_variants_values_into_the_demonstration(food_site) -> None:
    from agentjit.bench.oracle import demo_path, substitute_steps, substitute_text
    from agentjit.protocol.trace import read_trace

    task, variant, values = _food_variant("food-custom-12", food_site)  # a store card, a quantity, a mode
    assert values and all(old != new for old, new in values.items())
    steps = read_trace(demo_path(task), check_snapshots=False).steps
    out = substitute_steps(steps, values)
    assert len(out) == len(steps)
    words = [old for old in values if len(old) >= 3 and not old.isdigit()]
    changed = 0
    for before, after in zip(steps, out, strict=True):
        if isinstance(before.value, str) and before.value in values:
            assert after.value == values[before.value]  # a typed quantity: "2" -> the variant's number
            changed += 1
        t, u = before.target, after.target
        if t is None or u is None:
            continue
        for field in (u.name or "", u.selector or "", str(after.value or "")):
            assert not any(substitute_text(field, {w: "\x00"}) != field for w in words), field
        if u.name != t.name:
            changed += 1
            assert u.selector is None or u.selector != t.selector  # a positional selector is not kept
    assert changed >= 2
    assert substitute_text("nth-of-type(2)", values) == "nth-of-type(2)"  # a bare number inside text stays


@pytest.mark.browser
@pytest.mark.parametrize("task_id", ["food-custom-12", "food-custom-3"])  # a store's card kept; a search word
async def test_the_substituted_demonstration_does_the_variant(task_id: str, food_site, browser_pool) -> None:
    """The stepwise agent, driven by the oracle replaying the demonstration with the variant's values, does
    the variant (its judge passes); the demonstration as recorded does the task, not the variant."""
    from agentjit.bench.agent_runs import agent_once
    from agentjit.bench.oracle import (
        OraclePolicy,
        answer_for,
        demo_path,
        patient_model,
        substitute_steps,
    )
    from agentjit.protocol.trace import read_trace

    task, variant, values = _food_variant(task_id, food_site, slots=1)
    steps = read_trace(demo_path(task), check_snapshots=False).steps
    start = food_site.url.rstrip("/") + "/"
    results = {}
    for name, replay in (("substituted", substitute_steps(steps, values)), ("recorded", steps)):
        model = patient_model(OraclePolicy(replay, answer_for(task)))
        _, _, ok, reason = await agent_once(variant, 0, model, pool=browser_pool, site=food_site, start_url=start)
        results[name] = (ok, reason)
    assert results["substituted"][0], results
    assert not results["recorded"][0], results


async def test_e2e_runs_browser_use_only_on_variants_with_the_oracle() -> None:
    from agentjit.bench.e2e import run_e2e

    with pytest.raises(ConfigError, match="variants"):
        await run_e2e("food", task_ids=["food-custom-12"], profile="none", latency_scale=0, browser_use=True)


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore")  # browser-use's own dependencies warn on import
async def test_e2e_browser_use_does_the_variant(browser_pool) -> None:
    pytest.importorskip("browser_use", reason="browser-use (the optional extra 'browser-use') is not installed here")
    from agentjit.bench.e2e import run_e2e

    report = await run_e2e("food", task_ids=["food-custom-12"], profile="none", latency_scale=0, pool=browser_pool,
                           variants=True, browser_use=True)  # fmt: skip
    [task] = report.tasks
    [run] = [r for r in task.runs if r.side == "browser-use"]
    assert run.task == task.variant and run.ok, (run.reason, run.error)
    assert "replayed demonstration (model-free)" in run.note and run.model_calls >= 2
    v = report.summary["variants"]
    assert v["passed"]["browser-use"] == 1 and v["speedup_over_browser_use"]["template_hit"] is not None
    assert report.browser_use["version"] and "no model decides" in report.browser_use["decisions"]


def test_a_chosen_option_changes_and_its_select_stays() -> None:
    """A select's accessible name lists every option: choosing the variant's keeps the recorded select."""
    from agentjit.bench.oracle import DEMOS_ROOT, substitute_steps
    from agentjit.protocol.trace import read_trace

    steps = read_trace(DEMOS_ROOT / "roundup" / "tasks" / "set-assignee.jsonl", check_snapshots=False).steps
    [select] = [s for s in steps if s.action == "select"]
    assert select.target is not None and isinstance(select.value, str)
    other = next(w for w in (select.target.name or "").split() if w.isalpha() and w != select.value and len(w) >= 3)
    out = substitute_steps(steps, {select.value: other})
    [chosen] = [s for s in out if s.action == "select"]
    assert chosen.value == other and chosen.target == select.target
