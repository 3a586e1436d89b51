"""The plan interpreter: sandbox, state tracking, output objects, traces."""

import pytest

from agentjit.cache import CacheInfo, ToolCache
from agentjit.exceptions import (
    ConfigError,
    PlanError,
    PreconditionFailed,
    SandboxViolation,
    ToolCallFailed,
)
from agentjit.protocol import read_trace
from agentjit.protocol.trace import SessionEvent, TraceWriter
from agentjit.runtime import Runtime, run_plan

from .test_invoke import GOTO, LIST

LIST_T = LIST.model_copy(update={"name": "list_cards", "pre": {"page": "home"}})
GOTO_T = GOTO.model_copy(update={"name": "open_store", "pre": {"page": "home"}, "post": {"page": "store", "store": "$slug"}})
CACHE = ToolCache(CacheInfo(app="food", initial_state={"page": "home"}), [LIST_T, GOTO_T])


@pytest.mark.parametrize(
    ("source", "error", "match"),
    [
        ("import os\nresult = 1", SandboxViolation, "imports"),
        ("result = (1).__class__", SandboxViolation, "__class__"),
        ("exec('x = 1')\nresult = 1", SandboxViolation, "exec"),
        ("result = open('/etc/passwd')", SandboxViolation, "open"),
        ("result = getattr(1, 'real')", SandboxViolation, "getattr"),
        ("def f():\n    pass\nresult = 1", SandboxViolation, "functions"),
        ("x = nothing_here + 1\nresult = x", PlanError, "nothing_here"),
        ("result = 1 +", PlanError, "syntax"),
        ("x = 1", PlanError, "result"),
    ],
)
async def test_refused_before_or_while_running(page, food_site, source, error, match):
    with pytest.raises(error, match=match):
        await run_plan(source, CACHE, page=page, base_url=food_site.url)


async def test_runtime_error_names_the_plan_line(page, food_site):
    with pytest.raises(PlanError) as err:
        await run_plan("a = 1\nb = [1][5]\nresult = b", CACHE, page=page, base_url=food_site.url)
    assert err.value.line == 2


async def test_outputs_are_objects_and_state_is_tracked(page, food_site):
    src = "cards = await list_cards(n=4)\nstore = await open_store()\nresult = [cards.names[0], store.slug]"
    res = await run_plan(src, CACHE, page=page, base_url=food_site.url)
    assert len(res.value) == 2 and all(res.value)
    assert res.state == {"page": "store", "store": res.value[1]}
    assert [c.tool for c in res.calls] == ["list_cards", "open_store"] and all(c.ok for c in res.calls)


async def test_precondition_refused_without_touching_the_page(page, food_site):
    src = "await open_store()\nresult = await list_cards(n=1)"
    with pytest.raises(PreconditionFailed, match="page"):
        await run_plan(src, CACHE, page=page, base_url=food_site.url)
    assert "/store/" in page.url  # only the first call ran


async def test_tool_failure_is_catchable_in_the_plan(page, food_site):
    src = "try:\n    x = await list_cards(n=999)\nexcept ToolCallFailed:\n    x = None\nresult = x is None"
    res = await run_plan(src, CACHE, page=page, base_url=food_site.url)
    assert res.value is True and res.calls[0].phase == "post_check"


async def test_uncaught_tool_failure_raises(page, food_site):
    with pytest.raises(ToolCallFailed, match="post_check"):
        await run_plan("result = await list_cards(n=999)", CACHE, page=page, base_url=food_site.url)


async def test_ai_eval_needs_a_model_or_handler(page, food_site):
    with pytest.raises(ConfigError, match="ai_eval"):
        await run_plan("result = await ai_eval('hi')", CACHE, page=page, base_url=food_site.url)

    async def fake(prompt, **values):
        return prompt.replace("{n}", str(values["n"]))

    res = await run_plan("result = await ai_eval('n is {n}', n=3)", CACHE, page=page, base_url=food_site.url, ai_eval=fake)
    assert res.value == "n is 3"


async def test_runtime_writes_a_trace(browser_pool, food_site, tmp_path):
    rt = Runtime(CACHE, food_site.url, pool=browser_pool, trace_dir=tmp_path)
    res = await rt.run("c = await list_cards(n=2)\nresult = len(c.names)", task="count two")
    assert res.value == 2 and res.strategy == "serial"
    trace = read_trace(res.trace_path)
    assert trace.session.task == "count two" and trace.session.site == "food"
    assert [s.tool for s in trace.steps] == ["list_cards"] and trace.steps[0].output["names"]
    assert browser_pool.open_contexts == 0


async def test_snapshots_are_recorded_and_deduplicated(page, food_site, tmp_path):
    with TraceWriter(tmp_path / "t.jsonl", SessionEvent(site="food")) as w:
        from agentjit.runtime import PlanRun, execute_plan
        from agentjit.runtime.runner import goto_start

        await goto_start(page, food_site.url + "/")
        run = PlanRun(CACHE.tools, page, state={"page": "home"}, trace=w, snapshots=True)
        await execute_plan("a = await list_cards(n=1)\nb = await list_cards(n=1)\nresult = 1", run)
    trace = read_trace(tmp_path / "t.jsonl")
    assert trace.steps[0].snapshot and trace.steps[0].snapshot == trace.steps[1].snapshot
    assert len(trace.snapshots) == 1 and "store-card" in trace.snapshot_html(trace.steps[0])


async def test_site_stopped_mid_run_gives_a_clear_error(page, food_cache):
    import time

    from agentjit.bench.food import FoodSite

    site = FoodSite(latency_scale=0).start()

    async def stop_the_site(prompt, **values):
        site.stop()
        return "stopped"

    src = "await goto_home()\nawait ai_eval('stop')\nawait goto_store(name='Petco')\nresult = 1"
    t0 = time.perf_counter()
    with pytest.raises(ToolCallFailed) as err:
        await run_plan(src, food_cache, page=page, base_url=site.url, ai_eval=stop_the_site)
    elapsed = time.perf_counter() - t0
    assert err.value.tool == "goto_store" and err.value.outcome.phase in ("navigation", "post_check", "execute")
    assert elapsed < food_cache.tool("goto_store").timeout_ms / 1000 * 2 + 5
