"""The shared retry loop and the ALLOW_MODEL_REQUESTS guard, on their own."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import numpy as np
import pytest

import agentjit.llm as llm
from agentjit.exceptions import ModelRequestError, ModelRequestsDisallowed, ModelResponseError
from agentjit.llm import (
    FunctionModel,
    Message,
    RetryPolicy,
    TestModel,
    Verdict,
    check_model_request_allowed,
    is_loopback_url,
    override_allow_model_requests,
)
from agentjit.llm.retry import call_with_retries


class Flaky(Exception):
    pass


class Broken(Exception):
    pass


def classify(exc: Exception) -> Verdict | None:
    if isinstance(exc, Flaky):
        return Verdict.RETRY
    if isinstance(exc, Broken):
        return Verdict.FAIL
    if isinstance(exc, ValueError):
        return Verdict.MALFORMED
    return None


def script(*outcomes: Any) -> tuple[list[int], Any]:
    """An attempt function that raises/returns the outcomes in order, and a call counter."""
    calls: list[int] = []

    async def attempt() -> Any:
        calls.append(1)
        outcome = outcomes[len(calls) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return calls, attempt


def test_backoff_is_exponential_capped_and_jittered() -> None:
    policy = RetryPolicy(initial_delay_s=1.0, multiplier=2.0, max_delay_s=5.0, jitter=0.5)

    class Fixed:
        def __init__(self, u: float) -> None:
            self.u = u

        def random(self) -> float:
            return self.u

    assert [policy.delay(n, Fixed(0.0)) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.delay(1, Fixed(0.5)) == pytest.approx(2.5)
    assert policy.delay(0, Fixed(0.0), retry_after=3.0) == 3.0
    assert policy.delay(0, Fixed(0.0), retry_after=100.0) == 5.0  # capped
    # numpy Generator and random.Random both work, and a seed makes it repeatable
    a = [policy.delay(0, np.random.default_rng(7)) for _ in range(2)]
    assert a[0] == a[1] and 1.0 <= a[0] < 1.5
    assert 1.0 <= policy.delay(0, random.Random(1)) < 1.5


def test_policy_rejects_negative_values() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)


async def test_retries_until_success(sleep: Any) -> None:
    calls, attempt = script(Flaky("1"), Flaky("2"), "done")
    result = await call_with_retries(
        attempt, classify=classify, policy=RetryPolicy(max_retries=3), rng=random.Random(0),
        sleep=sleep,
    )
    assert result == "done" and len(calls) == 3 and len(sleep.delays) == 2


async def test_gives_up_with_the_cause_chained(sleep: Any) -> None:
    calls, attempt = script(Flaky("a"), Flaky("b"))
    with pytest.raises(ModelRequestError, match="gave up after 2 attempt") as info:
        await call_with_retries(
            attempt, classify=classify, policy=RetryPolicy(max_retries=1),
            rng=random.Random(0), sleep=sleep, what="m",
        )
    assert isinstance(info.value.__cause__, Flaky) and str(info.value.__cause__) == "b"


async def test_fail_and_malformed_are_not_retried(sleep: Any) -> None:
    calls, attempt = script(Broken("nope"))
    with pytest.raises(ModelRequestError, match="request failed: nope"):
        await call_with_retries(
            attempt, classify=classify, policy=RetryPolicy(), rng=random.Random(0), sleep=sleep
        )
    calls2, attempt2 = script(ValueError("junk"))
    with pytest.raises(ModelResponseError, match="malformed answer: junk"):
        await call_with_retries(
            attempt2, classify=classify, policy=RetryPolicy(), rng=random.Random(0), sleep=sleep
        )
    assert len(calls) == len(calls2) == 1 and sleep.delays == []


async def test_unknown_errors_and_model_errors_pass_through(sleep: Any) -> None:
    _, attempt = script(KeyError("bug"))
    with pytest.raises(KeyError):
        await call_with_retries(
            attempt, classify=classify, policy=RetryPolicy(), rng=random.Random(0), sleep=sleep
        )
    _, attempt2 = script(ModelResponseError("already ours"))
    with pytest.raises(ModelResponseError, match="^already ours$"):
        await call_with_retries(
            attempt2, classify=classify, policy=RetryPolicy(), rng=random.Random(0), sleep=sleep
        )


async def test_cancellation_is_not_swallowed() -> None:
    _, attempt = script(asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await call_with_retries(
            attempt, classify=lambda e: Verdict.RETRY, policy=RetryPolicy(), rng=random.Random(0)
        )


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("http://127.8.9.10/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://LOCALHOST./v1", True),
        ("http://[::1]:9000", True),
        ("https://api.openai.com/v1", False),
        ("http://127.0.0.1.evil.com/v1", False),
        ("http://10.0.0.1:8000/v1", False),
        ("http://0.0.0.0:8000", False),
        ("not a url", False),
        ("http://[::1", False),
        (None, False),
        ("", False),
    ],
)
def test_is_loopback_url(url: str | None, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_guard_flag_and_override() -> None:
    assert llm.ALLOW_MODEL_REQUESTS is False  # set by the conftest fixture
    with pytest.raises(ModelRequestsDisallowed, match="api.example.com"):
        check_model_request_allowed("openai:x", "https://api.example.com/v1")
    check_model_request_allowed("openai:x", "http://127.0.0.1:1/v1")  # loopback passes
    with override_allow_model_requests(True):
        assert llm.ALLOW_MODEL_REQUESTS is True
        check_model_request_allowed("openai:x", "https://api.example.com/v1")
    assert llm.ALLOW_MODEL_REQUESTS is False
    llm.ALLOW_MODEL_REQUESTS = True  # plain assignment works too (pydantic-ai style)
    try:
        check_model_request_allowed("openai:x", None)
    finally:
        llm.ALLOW_MODEL_REQUESTS = False


async def test_fakes_are_never_blocked() -> None:
    assert llm.ALLOW_MODEL_REQUESTS is False
    ask = [Message(role="user", content="hi")]
    assert (await FunctionModel(lambda m: "fn").request(ask)).text == "fn"
    assert (await TestModel(["canned"]).request(ask)).text == "canned"
