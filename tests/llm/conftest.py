"""Fixtures for the model-layer tests: guard on, clean environment, instant backoff."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agentjit.llm import override_allow_model_requests

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
)


@pytest.fixture(autouse=True)
def no_real_model_requests(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test here runs with ALLOW_MODEL_REQUESTS False and no provider env vars."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    with override_allow_model_requests(False):
        yield


class SleepRecorder:
    """An injectable ``sleep`` that records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleep() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def fast(sleep: SleepRecorder) -> dict[str, object]:
    """Adapter options for deterministic, instant retries."""
    return {"sleep": sleep, "rng": np.random.default_rng(0)}
