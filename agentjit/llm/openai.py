"""OpenAI chat completions through the official ``openai`` SDK (``AsyncOpenAI``).

Any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, the loopback
:class:`~agentjit.llm.fake_server.FakeOpenAIServer`) works through
``base_url`` or the ``OPENAI_BASE_URL`` environment variable. The key comes
from ``api_key`` or ``OPENAI_API_KEY``; a custom base URL without a key gets a
placeholder, since local servers usually ignore it. The SDK's retries are
off: :mod:`agentjit.llm.retry` does them.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

from ..exceptions import ConfigError, ModelResponseError
from .base import Message, Usage
from .provider import ProviderModel, is_transport_transient, missing_extra
from .retry import Verdict

__all__ = ["OpenAIModel", "OPENAI_DEFAULT_BASE_URL"]

log = logging.getLogger(__name__)

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
_PLACEHOLDER_KEY = "agentjit-no-key"
_RETRY_STATUS = frozenset({408, 409, 429})


def _import_sdk() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise missing_extra("openai", "openai", exc) from exc
    return openai


def _snippet(text: str) -> str:
    """The ``<title>`` of an HTML page, else the start of ``text``, on one line."""
    match = re.search(r"<title[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
    if match is not None:
        return f"an HTML page titled {' '.join(match.group(1).split())[:80]!r}"
    return f"the answer starts {' '.join(text.split())[:80]!r}"


def _foreign_answer(response: Any) -> str | None:
    """``HTTP 404, an HTML page titled ...`` for a response whose body is not JSON, else None."""
    ctype = str(getattr(response, "headers", {}).get("content-type", ""))
    if "json" in ctype:
        return None
    try:
        text = str(response.text)
    except Exception:  # noqa: BLE001 (a streamed or closed body)
        text = ""
    return f"HTTP {response.status_code}, {ctype or 'no content type'}: {_snippet(text)}"


class OpenAIModel(ProviderModel):
    """A chat model served by OpenAI or any OpenAI-compatible server.

    ``client`` injects a ready ``AsyncOpenAI`` (its base URL is then the one
    the guard checks). ``timeout`` is per attempt, in seconds; ``max_retries``
    counts retries after the first attempt. ``rng``/``sleep``/``clock`` make
    backoff and latency deterministic in tests.
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        client: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(model, timeout=timeout, max_retries=max_retries, **options)
        self._sdk = _import_sdk()
        self._api_key = api_key
        self._client: Any = client
        self._owns_client = client is None
        if client is not None and base_url is None:
            base_url = str(getattr(client, "base_url", "")) or None
        self._base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None

    @property
    def base_url(self) -> str:
        return self._base_url or OPENAI_DEFAULT_BASE_URL

    def _get_client(self) -> Any:
        if self._client is None:
            key = self._api_key or os.environ.get("OPENAI_API_KEY")
            if not key:
                if self._base_url is None:
                    raise ConfigError(
                        f"{self.name}: no API key; set OPENAI_API_KEY or pass api_key=, "
                        "or point OPENAI_BASE_URL at an OpenAI-compatible server"
                    )
                key = _PLACEHOLDER_KEY
            self._client = self._sdk.AsyncOpenAI(
                api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
        return self._client

    async def _attempt(
        self, messages: list[Message], temperature: float | None, max_tokens: int | None, wait_s: float
    ) -> tuple[str, Usage]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        if temperature is not None:
            params["temperature"] = temperature
        if max_tokens is not None:
            # OpenAI itself wants max_completion_tokens (reasoning models reject
            # max_tokens); compatible servers widely understand only max_tokens.
            key = "max_completion_tokens" if self._base_url is None else "max_tokens"
            params[key] = max_tokens
        try:
            completion = await self._get_client().chat.completions.create(**params, timeout=wait_s)
        except self._sdk.APIStatusError as exc:
            foreign = _foreign_answer(exc.response)
            if foreign is not None and int(exc.status_code) < 500:  # a 5xx page from a proxy may pass
                raise ModelResponseError(self._not_openai(foreign)) from exc
            raise
        if isinstance(completion, str):  # the SDK hands back the body when it is not JSON
            raise ModelResponseError(self._not_openai(f"HTTP 200, {_snippet(completion)}"))
        return self._parse(completion)

    def _not_openai(self, what: str) -> str:
        return (
            f"{self.name}: the server at {self.base_url} did not speak the OpenAI API ({what}); "
            "OPENAI_BASE_URL should be the API root of an OpenAI-compatible server, usually ending in /v1"
        )

    def _parse(self, completion: Any) -> tuple[str, Usage]:
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ModelResponseError(f"{self.name}: the answer has no choices: {completion!r:.200}")
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if not content:
            refusal = getattr(message, "refusal", None)
            finish = getattr(choices[0], "finish_reason", None)
            why = f"refusal: {refusal}" if refusal else f"finish_reason={finish}"
            raise ModelResponseError(f"{self.name}: empty answer ({why})")
        text = self._require_text(content)
        usage = getattr(completion, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None) or 0
        output = getattr(usage, "completion_tokens", None) or 0
        if usage is None:
            log.warning("%s: the server reported no token usage", self.name)
        return text, Usage(input_tokens=int(prompt), output_tokens=int(output))

    def _classify(self, exc: Exception) -> Verdict | None:
        sdk = self._sdk
        if isinstance(exc, sdk.APIStatusError):
            status = int(exc.status_code)
            return Verdict.RETRY if status in _RETRY_STATUS or status >= 500 else Verdict.FAIL
        if isinstance(exc, sdk.APIConnectionError):  # includes APITimeoutError
            return Verdict.RETRY
        if isinstance(exc, sdk.APIResponseValidationError | ValueError):
            return Verdict.MALFORMED  # JSONDecodeError is a ValueError
        if is_transport_transient(exc):
            return Verdict.RETRY
        if isinstance(exc, sdk.OpenAIError):
            return Verdict.FAIL
        return None

    async def aclose(self) -> None:
        if self._owns_client and self._client is not None:
            client, self._client = self._client, None
            await client.close()
