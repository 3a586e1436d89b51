"""Algorithm 1 with a FunctionModel: repair, early accept, argmin, plan cache, metrics."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path

import pytest

from agentjit.exceptions import ModelResponseError, PlanError
from agentjit.llm import FunctionModel, Message
from agentjit.planner import NoValidPlan, Planner, normalize_task, pass_at_k, pass_at_t, plan_key

from .helpers import make_cache
from .test_cost import PLAN_B, PLAN_C

TASK = "Visit the first five restaurants in 'Best near you' and report how many of them have under 20 reviews."

# appendix F plan A: reads store details without ever opening a store
PLAN_A = """\
stores = await list_stores()
best = stores.items[:5]
n = 0
for store in best:
    details = await get_store_details()
    if details.review_count < 20:
        n += 1
result = n
"""


def fenced(src: str) -> str:
    return f"Here is the plan:\n```python\n{src}```\nDone."


async def test_invalid_first_then_repaired() -> None:
    def answer(messages: list[Message]) -> str:
        if len(messages) == 2:
            return fenced(PLAN_A)
        return fenced(PLAN_C)

    model = FunctionModel(answer)
    plan = await Planner(model, make_cache(), n=1, k=1, max_repairs=2).compile(TASK, use_cache=False)
    assert plan.source == PLAN_C
    assert plan.origin == "model" and plan.cost == pytest.approx(0.2)
    assert plan.stats.sampled == 1 and plan.stats.repaired == 1 and plan.stats.valid == 1
    assert plan.stats.rejected_by_code == {"precondition": 1}
    assert [(c.attempt, c.valid) for c in plan.candidates] == [(0, False), (1, True)]
    assert len(model.calls) == 2
    repair = model.calls[1]
    assert [m.role for m in repair] == ["system", "user", "assistant", "user"]
    assert "get_store_details" in repair[2].content
    assert "line 5, column 21 [precondition]: get_store_details() needs page='store'" in repair[3].content
    assert "\n     5 |     details = await get_store_details()\n" in repair[3].content
    assert plan.usage.input_tokens > 0 and plan.usage.output_tokens > 0


async def test_k_of_n_early_accept_cancels_the_slow_workers() -> None:
    counter = itertools.count()
    finished: list[int] = []

    async def answer(messages: list[Message]) -> str:
        i = next(counter)
        await asyncio.sleep(0.0 if i < 2 else 30.0)  # workers 2 and 3 would take 30 s
        finished.append(i)
        return fenced(PLAN_C)

    model = FunctionModel(answer)
    t0 = time.perf_counter()
    plan = await Planner(model, make_cache(), n=4, k=2).compile(TASK, use_cache=False)
    assert time.perf_counter() - t0 < 20.0  # not the slow workers' 30 s
    assert len(model.calls) == 4  # all four workers asked
    assert sorted(finished) == [0, 1]  # only two answers were awaited to the end
    assert plan.stats.valid == 2 and plan.stats.cancelled == 2 and plan.stats.sampled == 4
    assert len(plan.candidates) == 2


async def test_argmin_picks_the_plan_without_the_needless_ai_eval() -> None:
    plans = iter([PLAN_A, PLAN_B, PLAN_C])
    model = FunctionModel(lambda messages: fenced(next(plans)))
    plan = await Planner(model, make_cache(), n=3, k=3, max_repairs=0).compile(TASK, use_cache=False)
    assert plan.source == PLAN_C and plan.cost == pytest.approx(0.2)
    by_source = {c.source: c for c in plan.candidates}
    assert by_source[PLAN_A].valid is False and by_source[PLAN_A].diagnostics[0]["code"] == "precondition"
    assert by_source[PLAN_B].cost == pytest.approx(10.1)
    assert plan.stats.valid == 2 and plan.stats.rejected_by_code == {"precondition": 1}
    assert [c.tool for c in plan.calls] == ["goto_home", "list_stores"]


async def test_plan_cache_hit_makes_no_model_call(tmp_path: Path) -> None:
    cache = make_cache(tmp_path)
    model = FunctionModel(lambda messages: fenced(PLAN_C))
    planner = Planner(model, cache, n=2, k=1)
    first = await planner.compile(TASK)
    assert first.origin == "model"
    calls = len(model.calls)
    stored = json.loads((tmp_path / "plans.json").read_text())
    assert [k for k in stored if not k.startswith("template:")] == [plan_key(TASK, cache, model.name)]
    assert [v["task"] for k, v in stored.items() if k.startswith("template:")] == [TASK]  # and its template
    t0 = time.perf_counter()
    again = await planner.compile("  visit the FIRST five restaurants in 'Best near you' and report how many of them have under 20 reviews ")
    hit_s = time.perf_counter() - t0
    assert len(model.calls) == calls
    assert again.origin == "cache" and again.source == PLAN_C and again.cost == first.cost
    assert hit_s < 0.5
    # a changed tool set is a different cache version: no hit
    cache.tools.pop("search")
    await planner.compile(TASK)
    assert len(model.calls) > calls


async def test_no_valid_plan_raises_with_the_diagnostics() -> None:
    model = FunctionModel(lambda messages: fenced(PLAN_A))
    with pytest.raises(NoValidPlan) as info:
        await Planner(model, make_cache(), n=2, k=1, max_repairs=1).compile(TASK, use_cache=False)
    assert isinstance(info.value, PlanError)
    assert len(model.calls) == 4  # 2 workers x (1 sample + 1 repair)
    assert [[d.code for d in ds] for ds in info.value.diagnostics] == [["precondition"], ["precondition"]]


async def test_model_errors_in_every_worker_surface() -> None:
    def answer(messages: list[Message]) -> str:
        raise ModelResponseError("empty answer")

    with pytest.raises(ModelResponseError):
        await Planner(FunctionModel(answer), make_cache(), n=2, k=1).compile(TASK, use_cache=False)


def test_normalize_task() -> None:
    assert normalize_task("  Find   the\tcheapest FRIES!  ") == "find the cheapest fries"
    assert normalize_task("'quoted.'") == "quoted"


def test_pass_at_k() -> None:
    assert pass_at_k(10, 0, 3) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)  # 1 - C(3,2)/C(4,2)
    assert pass_at_k(10, 8, 3) == 1.0  # fewer than k failures
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_pass_at_t() -> None:
    lat = [1.0, 2.0, 3.0, 4.0]
    assert pass_at_t(0.5, lat, 0.5) == 0.0
    assert pass_at_t(2.0, lat, 0.5) == pytest.approx(0.25)  # F=0.5, p=0.5
    assert pass_at_t(2.0, lat, 0.5, n_parallel=2) == pytest.approx(1 - 0.75**2)
    assert pass_at_t(10.0, lat, 1.0, n_parallel=8) == 1.0


async def test_plan_cache_is_keyed_by_model_and_a_hit_reports_no_model_call(tmp_path: Path) -> None:
    cache = make_cache(tmp_path)
    a = FunctionModel(lambda messages: fenced(PLAN_C), name="openai:a")
    b = FunctionModel(lambda messages: fenced(PLAN_C), name="gemini:b")
    first = await Planner(a, cache, n=1, k=1).compile(TASK)
    assert first.origin == "model" and first.model == "openai:a" and first.stats.sampled == 1
    # another model does not get model a's plan ...
    by_b = await Planner(b, cache, n=1, k=1).compile(TASK)
    assert by_b.origin == "model" and by_b.model == "gemini:b" and len(b.calls) == 1
    exact = {k for k in json.loads((tmp_path / "plans.json").read_text()) if not k.startswith("template:")}
    assert exact == {plan_key(TASK, cache, "openai:a"), plan_key(TASK, cache, "gemini:b")}
    # ... and its own hit says that nothing was spent now
    hit = await Planner(b, cache, n=1, k=1).compile(TASK)
    assert hit.origin == "cache" and len(b.calls) == 1 and hit.model == "gemini:b"
    assert hit.stats.sampled == hit.stats.repaired == 0 and hit.usage.input_tokens == hit.usage.output_tokens == 0
    assert hit.candidates == [] and hit.plan_cache == str(tmp_path / "plans.json")
    # only an explicit any_model takes another model's plan
    c = FunctionModel(lambda messages: fenced(PLAN_C), name="openai:c")
    other = await Planner(c, cache, n=1, k=1, any_model=True).compile(TASK)
    assert other.origin == "cache" and other.model in ("openai:a", "gemini:b") and c.calls == []


async def test_an_entry_stored_before_model_keys_is_used_only_by_its_model(tmp_path: Path) -> None:
    cache = make_cache(tmp_path)
    cache.plans[plan_key(TASK, cache)] = {"task": TASK, "source": PLAN_C, "cost": 0.2, "origin": "model", "model": "openai:a"}
    b = FunctionModel(lambda messages: fenced(PLAN_C), name="gemini:b")
    assert (await Planner(b, cache, n=1, k=1).compile(TASK)).origin == "model" and len(b.calls) == 1
    a = FunctionModel(lambda messages: fenced(PLAN_C), name="openai:a")
    assert (await Planner(a, cache, n=1, k=1).compile(TASK)).origin == "cache" and a.calls == []
