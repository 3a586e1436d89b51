"""The optional LLM usage predictor, answered by a FunctionModel through Model.request."""

from __future__ import annotations

import json

import pytest

from agentjit.exceptions import ModelResponseError
from agentjit.llm import FunctionModel, Message
from agentjit.scheduler import LLMUsagePredictor, Scheduler


def answering(a: dict, b: dict, c: dict | None = None) -> FunctionModel:
    def reply(messages: list[Message]) -> str:
        system = messages[0].content
        if "estimate which website tools" in system:
            return "```json\n" + json.dumps(a) + "\n```"
        if "splits into independent pieces" in system:
            return json.dumps(b)
        assert c is not None, "step C must not run when step B says no"
        return "Here you go: " + json.dumps(c)

    return FunctionModel(reply)


async def test_three_steps_make_a_parallel_usage(cache, rng):
    model = answering(
        {
            "calls": [
                {"tool": "list_restaurants", "count": 1},
                {"tool": "open_restaurant", "count": 5},
                {"tool": "get_reviews", "count": 5},
                {"tool": "teleport", "count": 1},
            ]
        },
        {"parallelizable": True, "reason": "five independent restaurants"},
        {
            "per_worker": [
                {"tool": "open_restaurant", "count": 1},
                {"tool": "get_reviews", "count": 1},
            ],
            "num_workers": 5,
            "shared": [{"tool": "list_restaurants", "count": 1}],
            "rediscovery": ["go_home"],
        },
    )
    usage = await LLMUsagePredictor(model).predict("first review of five restaurants", cache)
    assert len(model.calls) == 3
    assert "get_reviews (READ)" in model.calls[0][1].content  # the tool menu is in the prompt
    assert [(c.tool, c.count) for c in usage.prefix] == [("list_restaurants", 1)]
    assert usage.loop is not None and usage.loop.trips == 5 and usage.loop.trip_source == "llm"
    assert usage.loop.parallel_ok and usage.loop.reason == "five independent restaurants"
    assert [c.tool for c in usage.loop.body] == ["open_restaurant", "get_reviews"]
    assert [c.tool for c in usage.loop.entry_replay] == ["go_home"]
    assert usage.total_calls() == 11  # step A's serial usage, without the unknown tool
    schedule = Scheduler({}, default_latency_s=1.0).schedule(usage, rng)
    assert schedule.strategy == "parallel"


async def test_not_parallelizable_skips_step_c(cache):
    model = answering(
        {
            "calls": [
                {"tool": "open_restaurant", "count": 1},
                {"tool": "add_to_cart", "count": 1},
                {"tool": "place_order", "count": 1},
            ]
        },
        {"parallelizable": False, "reason": "one order"},
    )
    usage = await LLMUsagePredictor(model).predict("order any taco", cache)
    assert len(model.calls) == 2
    assert usage.loop is None and usage.first_write_index == 1
    before, _ = usage.split_at_first_write()
    assert [c.tool for c in before] == ["open_restaurant"]


async def test_writes_per_worker_are_not_parallel(cache):
    model = answering(
        {"calls": [{"tool": "add_to_cart", "count": 3}]},
        {"parallelizable": True},
        {"per_worker": [{"tool": "add_to_cart", "count": 1}], "num_workers": 3, "rediscovery": []},
    )
    usage = await LLMUsagePredictor(model).predict("add three items", cache)
    assert usage.loop is not None and not usage.loop.parallel_ok
    assert "never parallelized" in usage.loop.reason


@pytest.mark.parametrize(
    ("a", "message"),
    [
        ("no json here", "no JSON object"),
        ('{"calls": 3}', "'calls' must be a list"),
        ('{"calls": [{"tool": "go_home", "count": -1}]}', "whole number"),
    ],
)
async def test_malformed_answers(cache, a, message):
    model = FunctionModel(lambda messages: a)
    with pytest.raises(ModelResponseError, match=message):
        await LLMUsagePredictor(model).predict("anything", cache)
