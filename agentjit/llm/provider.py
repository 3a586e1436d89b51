"""What every real-provider adapter shares: guard, retries, latency, validation.

An adapter (OpenAI, Gemini) subclasses :class:`ProviderModel` and supplies
three things: the base URL it will call (for the guard), one attempt
(``_attempt``: SDK call -> text and usage within a given timeout, raising
ModelResponseError on an unusable answer) and a classifier from SDK exceptions
to :class:`~agentjit.llm.retry.Verdict`. The request flow itself is written
once, here: the guard, retries, and the per-attempt timeout sized by
:class:`~agentjit.llm.pacing.Pacing` from the server's measured speed (a
timed-out generation is retried only with a longer wait).
``ModelResponse.latency_s`` covers the whole request, retries and backoff
included (what a caller waited), measured with the injectable clock.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import abstractmethod
from collections.abc import Callable

from ..exceptions import ConfigError, ModelRequestError, ModelResponseError
from .base import Message, Model, ModelResponse, Usage
from .guard import check_model_request_allowed
from .pacing import Pacing
from .retry import RetryPolicy, SleepFn, SupportsRandom, Verdict, call_with_retries

log = logging.getLogger(__name__)

__all__ = ["ProviderModel", "is_timeout", "is_transport_transient", "missing_extra"]

# Exception class names of httpx/httpx2 (both may be in play: the SDKs pick one)
_TRANSIENT_TRANSPORT_NAMES = frozenset(
    {"TimeoutException", "ConnectError", "RemoteProtocolError", "ReadError", "WriteError"}
)


def is_transport_transient(exc: BaseException) -> bool:
    """A timeout or dropped connection from the HTTP layer, whichever httpx it is."""
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    return any(cls.__name__ in _TRANSIENT_TRANSPORT_NAMES for cls in type(exc).__mro__)


_TIMEOUT_NAMES = frozenset(
    {"TimeoutException", "ReadTimeout", "ConnectTimeout", "WriteTimeout", "PoolTimeout", "APITimeoutError"}
)


def is_timeout(exc: BaseException) -> bool:
    """A request that got no answer in time: ours (``asyncio.timeout``), httpx's or an SDK's."""
    return isinstance(exc, TimeoutError) or any(cls.__name__ in _TIMEOUT_NAMES for cls in type(exc).__mro__)


def missing_extra(package: str, extra: str, exc: ImportError) -> ConfigError:
    """The error for an optional SDK that is not installed (names the extra)."""
    return ConfigError(
        f"the '{package}' package is not installed: pip install 'agentjit[{extra}]' ({exc})"
    )


class ProviderModel(Model):
    """A model behind an HTTP API: checks the guard, retries, times the request."""

    provider: str = "provider"

    def __init__(
        self,
        model: str,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        rng: SupportsRandom | None = None,
        sleep: SleepFn | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not model:
            raise ConfigError(f"{type(self).__name__}: the model name is empty")
        if timeout <= 0:
            raise ConfigError(f"{type(self).__name__}: timeout must be > 0, got {timeout}")
        self.model = model
        self.name = f"{self.provider}:{model}"
        self.timeout = float(timeout)
        self.retry = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        if rng is None:  # numpy is imported here, not with the module: every command imports this module
            import numpy as np

            rng = np.random.default_rng()
        self.rng: SupportsRandom = rng
        self.sleep: SleepFn = sleep if sleep is not None else asyncio.sleep
        self.clock = clock
        self.pacing = Pacing(base_timeout_s=self.timeout, max_timeout_s=max(900.0, self.timeout))
        """Per-attempt timeouts sized from the server's measured speed (``timeout`` is the first)."""

    @property
    @abstractmethod
    def base_url(self) -> str | None:
        """The URL requests go to (None: the SDK's default public endpoint)."""

    @property
    def custom_base_url(self) -> str | None:
        """The URL requests go to when it is not the provider's own endpoint (a local or private server), else None.

        Two servers may serve different models under one name: the plan cache keeps their plans apart by it.
        """
        return getattr(self, "_base_url", None)

    @abstractmethod
    async def _attempt(
        self, messages: list[Message], temperature: float | None, max_tokens: int | None, wait_s: float
    ) -> tuple[str, Usage]:
        """One request through the SDK, waiting at most ``wait_s`` seconds: the answer text and usage."""

    async def _paced_attempt(
        self, messages: list[Message], temperature: float | None, max_tokens: int | None
    ) -> tuple[str, Usage]:
        """One attempt within the paced timeout; the answer's speed feeds the pacing.

        A timeout makes the next attempt wait longer; a timeout at the longest
        wait is a final ModelRequestError (re-sending the same generation with
        the same budget would time out again).
        """
        prompt_tokens = sum(len(m.content) for m in messages) // 4  # about four characters a token
        timeout = self.pacing.timeout_s(max_tokens, prompt_tokens=prompt_tokens)
        start = self.clock()
        try:
            # the SDK is told the timeout too; this bound holds whatever its transport does
            async with asyncio.timeout(timeout + 1.0):
                text, usage = await self._attempt(messages, temperature, max_tokens, timeout)
        except Exception as exc:
            if not is_timeout(exc):
                raise
            if not self.pacing.timed_out(timeout):
                raise ModelRequestError(
                    f"{self.name} at {self.base_url}: no answer within {timeout:.0f} s, the longest a request waits"
                ) from exc
            log.warning("%s: no answer within %.0f s; the next attempt waits %.0f s", self.name, timeout,
                        self.pacing.timeout_s(max_tokens, prompt_tokens=prompt_tokens))  # fmt: skip
            raise
        self.pacing.observe(self.clock() - start, usage.output_tokens)
        return text, usage

    @abstractmethod
    def _classify(self, exc: Exception) -> Verdict | None:
        """RETRY / FAIL / MALFORMED for an SDK or transport error; None if unknown."""

    async def request(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        check_model_request_allowed(self.name, self.base_url)
        if not messages:
            raise ConfigError(f"{self.name}: request() needs at least one message")
        start = self.clock()
        text, usage = await call_with_retries(
            lambda: self._paced_attempt(list(messages), temperature, max_tokens),
            classify=self._classify,
            policy=self.retry,
            rng=self.rng,
            sleep=self.sleep,
            what=f"{self.name} at {self.base_url}",  # a dead OPENAI_BASE_URL is named in the error
        )
        return ModelResponse(
            text=text, usage=usage, latency_s=self.clock() - start, model_name=self.name
        )

    def preflight(self) -> None:
        """Build the SDK client now: a missing API key is one ConfigError before any request."""
        self._get_client()

    @abstractmethod
    def _get_client(self) -> object:
        """The SDK client (built on first use); ConfigError when no key is configured."""

    def _require_text(self, text: object, why: str = "") -> str:
        """The answer text, or ModelResponseError if it is missing or blank."""
        if not isinstance(text, str) or not text.strip():
            suffix = f" ({why})" if why else ""
            raise ModelResponseError(f"{self.name}: empty answer{suffix}")
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, base_url={self.base_url!r})"
