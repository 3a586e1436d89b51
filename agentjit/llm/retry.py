"""Retries with exponential backoff, shared by every provider adapter.

The SDKs' own retries are switched off (``max_retries=0`` for openai,
``HttpRetryOptions(attempts=1)`` for google-genai) so that this module is the
one place that decides: an adapter classifies each failure as
:attr:`Verdict.RETRY` (rate limit, 5xx, timeout, dropped connection),
:attr:`Verdict.FAIL` (any other request error) or :attr:`Verdict.MALFORMED`
(the server answered with something unparseable). Randomness (jitter) and
waiting come in as parameters so tests run instantly and deterministically.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..exceptions import ModelError, ModelRequestError, ModelResponseError

__all__ = [
    "RetryPolicy",
    "Verdict",
    "SupportsRandom",
    "SleepFn",
    "call_with_retries",
    "retry_after_seconds",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
SleepFn = Callable[[float], Awaitable[Any]]


class SupportsRandom(Protocol):
    """Anything with ``random() -> float`` in [0, 1): numpy Generator, random.Random."""

    def random(self) -> float: ...


class Verdict(enum.Enum):
    """What to do about one failed attempt."""

    RETRY = "retry"
    FAIL = "fail"
    MALFORMED = "malformed"


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: attempt ``n`` (0-based) waits
    ``min(max_delay_s, initial_delay_s * multiplier**n) * (1 + jitter * u)``
    with ``u`` uniform in [0, 1); a server's ``Retry-After`` is honoured up to
    ``max_delay_s``. ``max_retries`` retries means at most ``max_retries + 1``
    attempts."""

    max_retries: int = 3
    initial_delay_s: float = 0.5
    multiplier: float = 2.0
    max_delay_s: float = 20.0
    jitter: float = 0.25

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.initial_delay_s < 0 or self.max_delay_s < 0 or self.jitter < 0:
            raise ValueError("retry delays and jitter must be >= 0")

    def delay(self, attempt: int, rng: SupportsRandom, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (0-based)."""
        base = min(self.max_delay_s, self.initial_delay_s * self.multiplier**attempt)
        wait = base * (1.0 + self.jitter * float(rng.random()))
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_delay_s))
        return wait


def retry_after_seconds(exc: BaseException) -> float | None:
    """A numeric ``Retry-After`` header on the error's HTTP response, if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = headers.get("retry-after")
    except Exception:  # noqa: BLE001 (foreign header objects)
        return None
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    classify: Callable[[Exception], Verdict | None],
    policy: RetryPolicy,
    rng: SupportsRandom,
    sleep: SleepFn = asyncio.sleep,
    what: str = "model",
) -> T:
    """Run ``attempt`` until it succeeds, retrying what ``classify`` calls RETRY.

    ModelErrors raised by ``attempt`` pass through untouched; an exception
    ``classify`` does not know (``None``) propagates as is (a bug, not the
    provider). Everything else becomes ModelRequestError / ModelResponseError
    chained to the original with ``raise ... from exc``.
    """
    attempts = policy.max_retries + 1
    for number in range(attempts):
        try:
            return await attempt()
        except ModelError:
            raise
        except Exception as exc:
            verdict = classify(exc)
            if verdict is None:
                raise
            detail = str(exc) or type(exc).__name__
            if verdict is Verdict.MALFORMED:
                raise ModelResponseError(f"{what}: malformed answer: {detail}") from exc
            if verdict is Verdict.FAIL:
                raise ModelRequestError(f"{what}: request failed: {detail}") from exc
            if number + 1 >= attempts:
                raise ModelRequestError(
                    f"{what}: gave up after {attempts} attempt(s): {detail}"
                ) from exc
            wait = policy.delay(number, rng, retry_after_seconds(exc))
            log.info(
                "%s: attempt %d/%d failed (%s); retrying in %.2fs",
                what, number + 1, attempts, detail, wait,
            )
            await sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover
