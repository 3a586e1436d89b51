"""``SimulatedLatency``: any model, made to take as long as a real provider would.

A call sleeps ``ttft_s + input_tokens / prefill_tps + output_tokens / decode_tps``
(token counts from the wrapped model's usage) before answering, so an offline
bench pays the per-call cost a hosted or local model would charge, and both
sides of a comparison pay it the same way. ``clock`` and ``sleep`` are
injectable, so tests can check the arithmetic without waiting.

Profiles (:data:`PROFILES`) name a parameter set and say where the numbers come
from. None of them is measured on this machine: treat them as stated
assumptions, and read the bench's latency sweep (speedup as a function of the
per-call cost) rather than any single profile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from agentjit.exceptions import ConfigError

from .base import Message, Model, ModelResponse

__all__ = ["LatencyProfile", "PROFILES", "DEFAULT_PROFILE", "SimulatedLatency", "get_profile"]


@dataclass(frozen=True)
class LatencyProfile:
    """Per-call cost of a model: a fixed time to the first token plus per-token rates."""

    name: str
    ttft_s: float
    prefill_tps: float
    """Input (prompt) tokens processed per second."""
    decode_tps: float
    """Output tokens generated per second."""
    source: str
    """Where the numbers come from (or that they are assumptions)."""

    def seconds(self, input_tokens: int, output_tokens: int) -> float:
        prefill = input_tokens / self.prefill_tps if self.prefill_tps > 0 else 0.0
        decode = output_tokens / self.decode_tps if self.decode_tps > 0 else 0.0
        return self.ttft_s + prefill + decode

    def scaled(self, factor: float) -> LatencyProfile:
        """The same profile ``factor`` times as slow (0 makes calls free; for fast tests)."""
        if factor < 0:
            raise ConfigError("a latency scale must be >= 0")
        inf = float("inf")
        return replace(
            self,
            name=f"{self.name}x{factor:g}",
            ttft_s=self.ttft_s * factor,
            prefill_tps=self.prefill_tps / factor if factor > 0 else inf,
            decode_tps=self.decode_tps / factor if factor > 0 else inf,
        )

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "ttft_s": self.ttft_s, "prefill_tps": self.prefill_tps,
                "decode_tps": self.decode_tps, "source": self.source}  # fmt: skip


PROFILES: dict[str, LatencyProfile] = {
    p.name: p
    for p in (
        LatencyProfile(
            "gpt-4.1",
            ttft_s=0.6,
            prefill_tps=5_000.0,
            decode_tps=80.0,
            source=(
                "assumption for a GPT-4.1-class hosted model: about 0.5-0.8 s to the first token and "
                "70-130 output tokens/s are the ranges public provider leaderboards (e.g. Artificial "
                "Analysis, 2025) showed for GPT-4.1; prefill 5,000 tokens/s is an assumption; not measured here"
            ),
        ),
        LatencyProfile(
            "paper-browser-use",
            ttft_s=4.0,
            prefill_tps=5_000.0,
            decode_tps=80.0,
            source=(
                "calibrated to the Agent-JIT paper (section 5, RQ3): Browser-Use averaged 122.1 s a task with "
                "LLM calls 73% of it, i.e. several seconds a call for its large prompts; modelled as a 4 s fixed "
                "cost on top of the gpt-4.1 rates (an assumption, not a measurement)"
            ),
        ),
        LatencyProfile(
            "local-small",
            ttft_s=0.05,
            prefill_tps=1_500.0,
            decode_tps=120.0,
            source=(
                "small local GGUF model (Gemma 3 270M / SmolLM2 135M) on llama-cpp-python: decode 90-150 tokens/s "
                "measured on this project's machines (shared/BROWSER.md); ttft and prefill are assumptions"
            ),
        ),
        LatencyProfile("none", ttft_s=0.0, prefill_tps=float("inf"), decode_tps=float("inf"),
                       source="no simulated latency: the wrapped model's own time only"),  # fmt: skip
    )
}

DEFAULT_PROFILE = "gpt-4.1"


def get_profile(name: str | LatencyProfile) -> LatencyProfile:
    if isinstance(name, LatencyProfile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown latency profile {name!r} (known: {', '.join(PROFILES)})") from None


class SimulatedLatency(Model):
    """Wraps ``model``; every request takes the profile's time for its token counts.

    ``calls``, ``usage`` totals and ``simulated_s`` (the sleep added) are kept
    for reports; ``latency_s`` of each response is the wrapped model's own
    time plus the sleep.
    """

    def __init__(
        self,
        model: Model,
        profile: str | LatencyProfile = DEFAULT_PROFILE,
        *,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.model = model
        self.profile = get_profile(profile)
        self.name = f"{getattr(model, 'name', 'model')}@{self.profile.name}"
        self.clock = clock
        self.sleep = sleep
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.simulated_s = 0.0
        self.elapsed_s = 0.0
        """Wall time of every request (the wrapped model's own time plus the sleep)."""

    async def request(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        t0 = self.clock()
        resp = await self.model.request(messages, temperature=temperature, max_tokens=max_tokens)
        delay = self.profile.seconds(resp.usage.input_tokens, resp.usage.output_tokens)
        if delay > 0:
            await self.sleep(delay)
        self.calls += 1
        self.input_tokens += resp.usage.input_tokens
        self.output_tokens += resp.usage.output_tokens
        self.simulated_s += delay
        took = self.clock() - t0
        self.elapsed_s += took
        return resp.model_copy(update={"latency_s": took})

    async def aclose(self) -> None:
        await self.model.aclose()
