"""Fakes for tests and notebooks, all answering through the real code paths.

``FunctionModel`` / ``TestModel`` answer through ``Model.request()`` like the
real adapters; ``CassetteModel`` records and replays exchanges; the fake
servers speak the OpenAI and Gemini HTTP APIs on 127.0.0.1 so the real SDKs
can be driven end to end; ``StepClock`` is a logical clock for the run
strategies' ``clock=`` parameter.
"""

from __future__ import annotations

import asyncio

from agentjit.llm import CassetteModel, FunctionModel, TestModel, override_allow_model_requests
from agentjit.llm.fake_server import FakeGeminiServer, FakeOpenAIServer, FakeReply

__all__ = [
    "FunctionModel",
    "TestModel",
    "CassetteModel",
    "FakeOpenAIServer",
    "FakeGeminiServer",
    "FakeReply",
    "override_allow_model_requests",
    "StepClock",
]


class StepClock:
    """A fake clock: every ``now()`` is ``step`` later than the one before (a logical clock).

    ``sleep(s)`` moves time forward by ``s`` and yields to the event loop
    once, so tests see a total order of events without waiting. It fits the
    :class:`agentjit.runtime.clock.Clock` protocol.
    """

    def __init__(self, start: float = 0.0, step: float = 1.0) -> None:
        self.t = start
        self.step = step
        self.sleeps: list[float] = []

    def now(self) -> float:
        self.t += self.step
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds
        await asyncio.sleep(0)
