"""Plan templates end to end: the first compile calls the (loopback) model, a literal variant compiles from the
template with no model call and runs right on the food site by its judge, near misses go to the model."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

from agentjit.bench.food.tasks import task as food_task
from agentjit.cache import ToolCache
from agentjit.cli import main
from agentjit.runtime import BrowserPool
from agentjit.tasks.runner import run_tasks
from agentjit.testing import FakeOpenAIServer, FakeReply

READ = food_task("food-custom-7")  # What's the most expensive item from Petco?
WRITE = food_task("food-custom-12")  # Order two Mochi Sets from Stonemill Matcha for pickup.


READ_VARIANT = dataclasses.replace(READ, id="read-variant", task=READ.task.replace("Petco", "Winstop"))
WRITE_VARIANT = dataclasses.replace(WRITE, id="write-variant", task=WRITE.task.replace("two", "three"))
# their judges read the store and the count from the task (``agentjit.bench.food.judges``)
NEAR_MISSES = [
    READ.task.replace("most expensive", "cheapest"),  # another target
    READ.task.replace("Petco", "Petco or Winstop"),  # a word that changes the meaning
    READ.task.replace("Petco", "Petco's second store"),  # ... and its shape
    WRITE.task.replace("Order", "Cancel"),  # another verb
    WRITE.task.replace("two", "some"),  # a value of the wrong type
    WRITE.task.replace("pickup", "takeout"),  # outside the enum of place_order.mode
]


def _script(request: Any) -> FakeReply:
    task = request.body["messages"][-1]["content"].split("TASK: ", 1)[1].split("\n", 1)[0]
    plan = WRITE.plan_source() if "Mochi" in task else READ.plan_source()
    return FakeReply(text=f"```python\n{plan}```", usage=(100, 10))


@pytest.mark.browser
async def test_a_variant_compiles_from_the_template_and_runs_right(capsys, tmp_path, monkeypatch, food_site: Any,
                                                                   food_cache: ToolCache,
                                                                   browser_pool: BrowserPool) -> None:  # fmt: skip
    plans = str(tmp_path / "plans.json")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAIServer(_script) as server:

        async def compile_json(task: str) -> dict:  # the CLI runs its own event loop: in a thread of its own
            assert await asyncio.to_thread(main, ["compile", task, "--model", f"openai:m@{server.base_url}", "-n", "1", "-k", "1",
                         "--plan-cache", plans, "--json"]) == 0
            return json.loads(capsys.readouterr().out)

        for original in (READ, WRITE):
            first = await compile_json(original.task)
            assert first["origin"] == "model" and first["model_calls"] == 1
        assert len(server.requests) == 2
        compiled: dict[str, str] = {}
        for variant in (READ_VARIANT, WRITE_VARIANT):
            hit = await compile_json(variant.task)
            assert hit["origin"] == "template" and hit["model_calls"] == 0 and hit["tokens"] == {"input": 0, "output": 0}
            assert hit["plan_cache"] == plans and hit["template_task"] in (READ.task, WRITE.task)
            compiled[variant.id] = hit["plan"]
        assert len(server.requests) == 2
        assert (await compile_json(READ_VARIANT.task))["origin"] == "cache"  # the same variant again: an exact hit
        for near in NEAR_MISSES:
            assert (await compile_json(near))["origin"] == "model", near
        assert len(server.requests) == 2 + len(NEAR_MISSES)
        # in words
        assert await asyncio.to_thread(main, ["compile", READ_VARIANT.task.replace("Winstop", "Popeyes"), "--model",
                                              f"openai:m@{server.base_url}", "--plan-cache", plans]) == 0
        words = capsys.readouterr().out.replace("\n", " ")
        assert f"from the plan template of {READ.task!r} in {plans}" in words and "no model was called" in words

    assert "Winstop" in compiled["read-variant"] and "quantity=3" in compiled["write-variant"]
    report = await run_tasks([READ_VARIANT, WRITE_VARIANT], cache=food_cache, site=food_site, pool=browser_pool,
                             plan_for=lambda t, _c: (compiled[t.id], "template"))  # fmt: skip
    assert all(r.ok for r in report.tasks), [(r.id, r.reason) for r in report.tasks]
    assert READ_VARIANT.judges_read_task and WRITE_VARIANT.judges_read_task
    assert {r.plan_origin for r in report.tasks} == {"template"}
