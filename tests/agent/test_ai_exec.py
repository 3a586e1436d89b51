"""A plan with an ``ai_exec`` step, run end to end on the food site: the stepwise agent (oracle policy) on the plan's page."""

from __future__ import annotations

import pytest

from agentjit.agent import agent_ai_exec
from agentjit.bench.food.tasks import TASKS
from agentjit.bench.oracle import oracle_model
from agentjit.exceptions import ConfigError
from agentjit.planner import check
from agentjit.runtime import Runtime

PLAN = """
stores = await list_stores(limit=3)
answer = await ai_exec("What's the most expensive item from Petco?")
result = {"first": stores.items[0].name, "answer": answer}
"""


async def test_a_plan_runs_an_ai_exec_step(browser_pool, food_site, food_cache):
    task = next(t for t in TASKS if t.id == "food-custom-7")
    assert check(PLAN, food_cache).valid
    runtime = Runtime(food_cache, food_site.url, pool=browser_pool, ai_exec=agent_ai_exec(oracle_model(task)))
    result = await runtime.run(PLAN)
    assert result.value["first"] == "Stonemill Matcha"
    assert task.expected["item"] in result.value["answer"]
    [step] = [c for c in result.calls if c.tool == "ai_exec"]
    assert step.action == "evaluate" and step.args == {"instruction": "What's the most expensive item from Petco?"}
    assert step.url_after and step.url_after.endswith("/store/petco")


async def test_ai_exec_without_an_agent_fails_clearly(browser_pool, food_site, food_cache):
    runtime = Runtime(food_cache, food_site.url, pool=browser_pool)
    with pytest.raises(ConfigError, match="no agent was given"):
        await runtime.run('result = await ai_exec("anything")')
