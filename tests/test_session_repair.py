"""Run-time repair: a compiled plan that fails when it runs, before its first WRITE, goes back to the model.

The model is the real OpenAI adapter talking to the loopback fake server, replaying answers that make
the mistakes the checker cannot see (an index past a list's end, a store the site does not have); the
plans run in Chromium against the food site. After a WRITE, a failed run is never repaired, and no write
is ever sent twice.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentjit import Session
from agentjit.bench.food import PLANS_DIR, FoodSite
from agentjit.cache import ToolCache
from agentjit.exceptions import PlanError, ToolCallFailed
from agentjit.llm import OpenAIModel
from agentjit.runtime import BrowserPool
from agentjit.testing import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.browser

ORDER_TACO = (PLANS_DIR / "food-custom-3.py").read_text()
TASK = 'Buy one taco from the first store the search for "taco" finds, and place the order.'


def _answer(plan: str) -> FakeReply:
    return FakeReply(text=f"```python\n{plan}\n```", usage=(100, 50))


@pytest.fixture
def cache(food_cache: ToolCache) -> ToolCache:
    """The food tools in a cache with no directory: the plan cache stays in memory."""
    return ToolCache(food_cache.info, list(food_cache.tools.values()))


@pytest.fixture
async def model_and_server(request: pytest.FixtureRequest) -> AsyncIterator[tuple[OpenAIModel, FakeOpenAIServer]]:
    with FakeOpenAIServer(list(request.param)) as srv:
        model = OpenAIModel("replayed", base_url=srv.base_url, api_key="k")
        try:
            yield model, srv
        finally:
            await model.aclose()


def _session(cache: ToolCache, model: OpenAIModel, site: FoodSite, pool: BrowserPool) -> Session:
    return Session(cache, model=model, site_url=site.url, pool=pool,
                   planner_options={"n": 1, "k": 1, "max_repairs": 0})  # fmt: skip


def _user_turns(srv: FakeOpenAIServer) -> list[str]:
    return [r.messages()[-1]["content"] for r in srv.requests]


PAST_THE_END = ORDER_TACO.replace("await goto_store(name=stores.items[0].name)", "await goto_store(name=stores.items[40].name)")
NO_SUCH_STORE = ORDER_TACO.replace("await goto_store(name=stores.items[0].name)", 'await goto_store(name="Luigi\'s Trattoria")')


@pytest.mark.parametrize(
    ("model_and_server", "error"),
    [([_answer(PAST_THE_END), _answer(ORDER_TACO)], "IndexError"),
     ([_answer(NO_SUCH_STORE), _answer(ORDER_TACO)], "ToolCallFailed")],
    indirect=["model_and_server"], ids=["index-past-the-end", "no-such-store"],
)
async def test_a_failure_before_any_write_is_repaired_and_run_again(
    model_and_server: tuple[OpenAIModel, FakeOpenAIServer], error: str, cache: ToolCache, food_site: FoodSite,
    browser_pool: BrowserPool,
) -> None:
    model, srv = model_and_server
    session = _session(cache, model, food_site, browser_pool)
    plan, result = await session.run_task(TASK, strategy="serial")
    assert "taco" in str(result.value).lower() and "order" in str(result.value).lower()
    assert [r["ok"] for r in result.rounds] == [False, True]
    first = result.rounds[0]
    assert first["writes_sent"] == 0 and error in first["error"]
    assert "<locals>" not in first["error"] and "_Child" not in first["error"]
    # the model saw its plan and the run's error, and the new plan came back through the checker
    assert len(srv.requests) == 2
    assert "failed when it ran, before it changed anything" in _user_turns(srv)[1]
    assert error in _user_turns(srv)[1]
    assert plan.source.strip() == ORDER_TACO.strip() and plan.stats.run_repaired == 1
    assert [c.run_round for c in plan.candidates] == [0, 1] and plan.usage.output_tokens == 100
    # one order with one taco: the failed run wrote nothing, the repaired one wrote once each
    state = food_site.state()
    assert len(state["orders"]) == 1 and not state["cart"]
    assert sum(line["quantity"] for line in state["orders"][0]["lines"]) == 1
    # the plan cache holds the plan that ran, not the one that failed
    assert [p["source"] for k, p in cache.plans.items() if not k.startswith("template:")] == [plan.source]
    assert all(p["source"] == plan.source for p in cache.plans.values())  # its template too, if it has one


AFTER_A_WRITE = ORDER_TACO.replace("await goto_cart()\n", "await goto_cart()\nlast = stores.items[40]\n")


@pytest.mark.parametrize("model_and_server", [[_answer(AFTER_A_WRITE), _answer(ORDER_TACO)]], indirect=True)
async def test_a_failure_after_a_write_stops_the_run_and_says_why(
    model_and_server: tuple[OpenAIModel, FakeOpenAIServer], cache: ToolCache, food_site: FoodSite,
    browser_pool: BrowserPool,
) -> None:
    model, srv = model_and_server
    session = _session(cache, model, food_site, browser_pool)
    with pytest.raises(PlanError, match="IndexError") as err:
        await session.run_task(TASK, strategy="serial")
    assert any("not repaired" in note and "1 WRITE" in note for note in err.value.__notes__)
    rounds: Any = getattr(err.value, "rounds", None)
    assert rounds is not None and [(r["ok"], r["writes_sent"]) for r in rounds] == [(False, 1)]
    assert len(srv.requests) == 1  # no repair was asked for
    state = food_site.state()
    assert len(state["cart"]) == 1 and not state["orders"]  # the one add_to_cart, sent once


@pytest.mark.parametrize("model_and_server", [[_answer(NO_SUCH_STORE)] * 3], indirect=True)
async def test_repairs_stop_at_their_bound(
    model_and_server: tuple[OpenAIModel, FakeOpenAIServer], cache: ToolCache, food_site: FoodSite,
    browser_pool: BrowserPool,
) -> None:
    model, srv = model_and_server
    session = _session(cache, model, food_site, browser_pool)
    with pytest.raises(ToolCallFailed) as err:
        await session.run_task(TASK, strategy="serial", run_repairs=1)
    assert any("no run-time repair left" in note for note in err.value.__notes__)
    assert len(srv.requests) == 2 and len(getattr(err.value, "rounds", [])) == 2
    assert not food_site.state()["orders"] and not cache.plans  # the failing plan is not kept


async def test_the_demo_harness_repairs_a_compiled_plan_that_fails_before_any_write(
    cache: ToolCache, food_site: FoodSite, browser_pool: BrowserPool,
) -> None:
    # demo --model: a compiled plan that fails when it runs goes back to the model, as Session.run_compiled does
    from agentjit.tasks.apps import get_app
    from agentjit.tasks.runner import run_tasks

    [task] = [t for t in get_app("food").tasks() if t.id == "food-custom-3"]
    errors: list[tuple[str, int]] = []

    async def plan_for(_task: Any, _cache: ToolCache) -> tuple[str, str]:
        return PAST_THE_END, "model"

    async def repair(_task: Any, source: str, error: str, run_round: int) -> str:
        errors.append((error, run_round))
        assert source == PAST_THE_END
        return ORDER_TACO

    report = await run_tasks([task], cache=cache, site=food_site, plan_for=plan_for, pool=browser_pool,
                             strategy="serial", repair=repair)  # fmt: skip
    [res] = report.tasks
    assert res.ok, res.reason
    assert len(errors) == 1 and "IndexError" in errors[0][0] and errors[0][1] == 1
    assert [r["round"] for r in res.run_rounds] == [0] and "IndexError" in res.run_rounds[0]["error"]
    state = food_site.state()
    assert len(state["orders"]) == 1
