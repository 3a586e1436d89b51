"""A compile that fits a slow server: a time budget the best valid plan so far wins, a plan cache per server."""

from __future__ import annotations

import asyncio

import pytest

from agentjit.llm import FunctionModel, Message, OpenAIModel
from agentjit.plan.diagnostics import NoValidPlan
from agentjit.planner import Planner, plan_key
from agentjit.planner.planner import model_name

from .helpers import make_cache

GOOD = "await goto_home()\nstores = await list_stores()\nresult = [s.name for s in stores.items]\n"


def _slow_after_first(first: str) -> FunctionModel:
    """Answers ``first`` at once, then never answers in time (a server busy generating)."""
    answered: list[int] = []

    async def answer(messages: list[Message]) -> str:
        if not answered:
            answered.append(1)
            return f"```python\n{first}```"
        await asyncio.sleep(3600)
        return "never"

    return FunctionModel(answer, name="slow")


async def test_the_budget_ends_the_compile_with_the_best_valid_plan_so_far() -> None:
    # k=2 would wait for a second valid plan that never comes; the budget ends the wait
    planner = Planner(_slow_after_first(GOOD), make_cache(), n=2, k=2, compile_budget_s=0.5)
    async with asyncio.timeout(60):  # a failure here means the budget did not end the compile
        plan = await planner.compile("store names", use_cache=False)
    assert plan.source == GOOD and plan.stats.valid == 1
    assert plan.stats.answered == 1 and plan.stats.sampled == 2 and plan.stats.cancelled == 1


async def test_a_budget_with_no_valid_plan_says_so() -> None:
    planner = Planner(_slow_after_first("result = await open_shop()\n"), make_cache(), n=1, k=1, max_repairs=3,
                      compile_budget_s=0.5)  # fmt: skip
    async with asyncio.timeout(60):
        with pytest.raises(NoValidPlan, match="within the compile budget of 0.5 s"):
            await planner.compile("store names", use_cache=False)


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="compile_budget_s"):
        Planner(FunctionModel(lambda m: "x"), make_cache(), compile_budget_s=0)


def test_the_plan_cache_keeps_two_servers_of_one_model_name_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    cache = make_cache()
    here = OpenAIModel("qwen", base_url="http://127.0.0.1:8080/v1", api_key="k")
    there = OpenAIModel("qwen", base_url="http://127.0.0.1:9090/v1/", api_key="k")
    public = OpenAIModel("qwen", api_key="k")
    assert model_name(here) == "openai:qwen@http://127.0.0.1:8080/v1"
    assert model_name(there) == "openai:qwen@http://127.0.0.1:9090/v1"
    assert model_name(public) == "openai:qwen"  # the provider's own endpoint: the name as before
    keys = {plan_key("t", cache, model_name(m)) for m in (here, there, public)}
    assert len(keys) == 3


async def test_a_compile_with_no_valid_plan_keeps_its_report() -> None:
    # demo --json prints what a failed compile did: its candidates, their findings, calls and tokens
    bad = "result = await open_shop()\n"
    planner = Planner(FunctionModel(lambda m: f"```python\n{bad}```"), make_cache(), n=1, k=1, max_repairs=1)
    with pytest.raises(NoValidPlan) as caught:
        await planner.compile("store names", use_cache=False)
    report = caught.value.report
    assert report is not None and report["model_calls"] == 2 and report["valid"] == 0
    assert [c["attempt"] for c in report["candidates"]] == [0, 1]
    assert report["candidates"][0]["source"] == bad and report["candidates"][0]["codes"]
    assert report["rejected_by_code"]


async def test_a_server_of_ones_own_gets_one_request_until_its_first_answer() -> None:
    # llama.cpp answers one request at a time: four copies of a cold prompt sent at once waited out their
    # timeouts in its queue and were re-sent while it still generated the ones given up on
    import threading
    import time

    from agentjit.testing import FakeOpenAIServer, FakeReply

    lock, spans, in_flight = threading.Lock(), [], [0, 0]  # [now, most]

    def reply(_request: object) -> FakeReply:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
        start = time.monotonic()
        time.sleep(1.0)
        with lock:
            in_flight[0] -= 1
            spans.append((start, time.monotonic()))
        return FakeReply(text=f"```python\n{GOOD}```", usage=(100, 20))

    with FakeOpenAIServer(reply) as srv:
        model = OpenAIModel("local", base_url=srv.base_url, api_key="k")
        try:
            planner = Planner(model, make_cache(), n=3, k=3, max_concurrency=3)
            plan = await planner.compile("store names", use_cache=False)
            assert plan.stats.answered == 3 and plan.stats.valid == 3
            first, *others = sorted(spans)
            assert all(start >= first[1] for start, _ in others)  # alone until it answered
            assert in_flight[1] == 2  # then the other two side by side (max_concurrency said so)
            # by default a server of one's own gets one request at a time: its queue would eat their timeouts
            in_flight[1] = 0
            plan = await Planner(model, make_cache(), n=3, k=3).compile("store names", use_cache=False)
            assert plan.stats.answered == 3 and in_flight[1] == 1
        finally:
            await model.aclose()


async def test_a_budget_that_ends_before_any_answer_says_the_model_never_answered() -> None:
    # measured: a 3.7k-token cold prompt took 428 s on a loaded machine; "after 4 samples and 0 repairs"
    # read as if four plans had been refused
    async def never(messages: list[Message]) -> str:
        await asyncio.sleep(3600)
        return "never"

    planner = Planner(FunctionModel(never, name="cold"), make_cache(), n=2, k=1, compile_budget_s=0.3)
    async with asyncio.timeout(60):
        with pytest.raises(NoValidPlan, match="did not answer once in that time") as caught:
            await planner.compile("store names", use_cache=False)
    assert "--compile-budget" in str(caught.value) and "samples" not in str(caught.value)
