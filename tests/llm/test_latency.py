"""SimulatedLatency: the sleep is ttft + input/prefill + output/decode, per call, with the profile named."""

from __future__ import annotations

import pytest

from agentjit.exceptions import ConfigError
from agentjit.llm import (
    PROFILES,
    LatencyProfile,
    Message,
    ModelResponse,
    SimulatedLatency,
    TestModel,
    Usage,
)


async def test_sleeps_for_the_profile_time_of_each_call():
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    inner = TestModel([ModelResponse(text="a", usage=Usage(input_tokens=1000, output_tokens=40))] * 2)
    prof = LatencyProfile("p", ttft_s=0.5, prefill_tps=2000.0, decode_tps=80.0, source="test numbers")
    model = SimulatedLatency(inner, prof, sleep=sleep, clock=lambda: 0.0)
    for _ in range(2):
        resp = await model.request([Message(role="user", content="hi")])
        assert resp.text == "a"
    assert slept == [pytest.approx(0.5 + 0.5 + 0.5)] * 2
    assert model.calls == 2 and model.input_tokens == 2000 and model.output_tokens == 80
    assert model.simulated_s == pytest.approx(3.0)
    assert model.name.endswith("@p")


def test_profiles_say_where_their_numbers_come_from():
    assert {"gpt-4.1", "local-small", "none"} <= set(PROFILES)
    for p in PROFILES.values():
        assert p.source
    assert PROFILES["none"].seconds(10_000, 1_000) == 0.0
    fast = PROFILES["gpt-4.1"].scaled(0.01)
    assert fast.seconds(1000, 100) == pytest.approx(PROFILES["gpt-4.1"].seconds(1000, 100) * 0.01)
    assert PROFILES["gpt-4.1"].scaled(0).seconds(1000, 100) == 0.0
    with pytest.raises(ConfigError, match="unknown latency profile"):
        SimulatedLatency(TestModel("x"), "warp-speed")
