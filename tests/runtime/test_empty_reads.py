"""A READ that gives nothing where it gave data, because a redesign renamed what it reads, is suspect (issue 21):
no error was thrown and no check failed, so before it returned an empty list and the task went wrong quietly.
An empty result on the same design (a search that finds nothing) is no suspect. The food app in Chromium, its
redesign by the proxy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.cli.errors import error_json
from agentjit.exceptions import AgentJITError, ToolCallFailed
from agentjit.llm import FunctionModel
from agentjit.runtime import Runtime
from agentjit.runtime.healing import gave_nothing, page_names
from agentjit.tasks.runner import jsonable

pytestmark = pytest.mark.browser

FIRST_THREE = "result = await list_stores(limit=3)"


def fresh_cache(tmp_path: Path) -> Path:
    cache_dir = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache_dir)
    return cache_dir


async def run(cache_dir: Path, url: str, pool, plan: str, **options):
    runtime = Runtime(ToolCache.load(cache_dir), url, pool=pool, record_suspects=True, tool_timeout_ms=3000, **options)
    return await runtime.run(plan)


async def test_a_read_that_finds_none_of_its_elements_after_a_redesign_is_suspect(tmp_path, browser_pool,
                                                                                  food_site) -> None:  # fmt: skip
    cache_dir = fresh_cache(tmp_path)
    first = jsonable((await run(cache_dir, food_site.url, browser_pool, FIRST_THREE)).value)
    assert len(first["items"]) == 3
    with RedesignProxy(food_site.url, seed=7) as proxy:
        with pytest.raises(ToolCallFailed) as info:
            await run(cache_dir, proxy.url, browser_pool, FIRST_THREE)
        suspect = info.value.suspect  # type: ignore[attr-defined]
        assert suspect.tool == "list_stores" and suspect.phase == "output"
        assert "[data-testid=store-card]" in (suspect.reason or "")
        assert list(SuspectStore(cache_dir).suspects()) == ["list_stores"]
        # with a fallback the call is finished by it: the plan gets the stores
        asked: list[int] = []

        def agent(messages) -> str:
            asked.append(len(messages))
            return json.dumps({"action": "done", "answer": first})

        done = await run(cache_dir, proxy.url, browser_pool, FIRST_THREE, fallback=_fallback(FunctionModel(agent)))
        assert jsonable(done.value) == first and [f["tool"] for f in done.fallbacks] == ["list_stores"] and asked


async def test_a_run_that_fails_after_a_fallback_still_says_what_fell_back(tmp_path, browser_pool, food_site) -> None:
    """The calls fallbacks took over are on the exception of a run that failed later, or in the fallback itself,
    with what they cost: a bench or a task runner counts them for a failed task too."""
    cache_dir = fresh_cache(tmp_path)
    answer = jsonable((await run(cache_dir, food_site.url, browser_pool, FIRST_THREE)).value)  # its good call
    with RedesignProxy(food_site.url, seed=7) as proxy:
        model = FunctionModel(lambda messages: json.dumps({"action": "done", "answer": answer}))
        after = FIRST_THREE + '\nresult = result["items"][5]'  # fails after the fallback answered: three stores
        with pytest.raises(AgentJITError) as info:
            await run(cache_dir, proxy.url, browser_pool, after, fallback=_fallback(model))
        [fell] = info.value.fallbacks  # type: ignore[attr-defined]
        assert fell["tool"] == "list_stores" and fell["ok"] is True and fell["model_calls"] == 1
        assert "error" not in fell and fell["reason"].startswith("output failed")
        assert error_json(info.value)["error"]["fallbacks"] == [fell]  # `agentjit run --json` says so too
        wrong = FunctionModel(lambda messages: json.dumps({"action": "done", "answer": {"items": "none"}}))
        with pytest.raises(ToolCallFailed, match="the fallback failed too") as info:
            await run(cache_dir, proxy.url, browser_pool, FIRST_THREE, fallback=_fallback(wrong))
        [fell] = info.value.fallbacks  # type: ignore[attr-defined]
        assert fell["tool"] == "list_stores" and fell["ok"] is False and "items" in fell["error"]


def _fallback(model):
    from agentjit.agent import agent_tool_fallback

    return agent_tool_fallback(model)


async def test_an_empty_result_on_the_same_design_is_no_suspect(tmp_path, browser_pool, food_site) -> None:
    cache_dir = fresh_cache(tmp_path)
    plan = 'await search(query="{q}")\nresult = await list_stores()'
    found = await run(cache_dir, food_site.url, browser_pool, plan.format(q="taco"))
    assert jsonable(found.value)["items"]
    none = await run(cache_dir, food_site.url, browser_pool, plan.format(q="zzzqqq"))
    assert jsonable(none.value) == {"items": []} and none.suspects == []
    assert SuspectStore(cache_dir).suspects() == {}


def test_what_counts_as_nothing_and_a_pages_names() -> None:
    assert gave_nothing({"items": []}) and gave_nothing({"items": [], "next": None, "note": ""}) and gave_nothing({})
    assert not gave_nothing({"items": [], "count": 0}) and not gave_nothing({"items": [{"name": "x"}]})
    html = """<div class="card big" id=x data-testid='store-card'><span class='a'></span><p id="">"""
    assert page_names(html) == {".card", ".big", "@store-card", ".a"}
