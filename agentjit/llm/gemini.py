"""Gemini through ``google-genai`` (``genai.Client(...).aio.models.generate_content``).

System messages become ``system_instruction``; assistant turns become the
``model`` role. The key comes from ``api_key``, ``GOOGLE_API_KEY`` or
``GEMINI_API_KEY`` (the SDK's order). ``base_url`` (or the SDK's own
``GOOGLE_GEMINI_BASE_URL``) is passed as ``HttpOptions(base_url=...)``; the SDK
then calls ``{base_url}/{api_version}/models/{model}:generateContent``, which
is how tests reach :class:`~agentjit.llm.fake_server.FakeGeminiServer`. The
SDK's retries are off (``HttpRetryOptions(attempts=1)``): :mod:`.retry` does them.
"""

from __future__ import annotations

import os
from typing import Any

from ..exceptions import ConfigError, ModelResponseError
from .base import Message, Usage
from .provider import ProviderModel, is_transport_transient, missing_extra
from .retry import Verdict

__all__ = ["GeminiModel", "GEMINI_DEFAULT_BASE_URL"]

GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_PLACEHOLDER_KEY = "agentjit-no-key"
_RETRY_STATUS = frozenset({408, 429})


def _import_sdk() -> tuple[Any, Any, Any]:
    try:
        from google import genai
        from google.genai import errors, types
    except ImportError as exc:
        raise missing_extra("google-genai", "gemini", exc) from exc
    return genai, types, errors


class GeminiModel(ProviderModel):
    """A Gemini model on the Gemini Developer API (or a server speaking its REST routes).

    ``client`` injects a ready ``genai.Client``; ``api_version`` overrides the
    SDK's default path version. Retry, timeout and test hooks as in
    :class:`~agentjit.llm.openai.OpenAIModel`.
    """

    provider = "gemini"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        client: Any = None,
        api_version: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(model, timeout=timeout, max_retries=max_retries, **options)
        self._genai, self._types, self._errors = _import_sdk()
        self._api_key = api_key
        self._api_version = api_version
        self._client: Any = client
        self._owns_client = client is None
        self._base_url = base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL") or None

    @property
    def base_url(self) -> str:
        return self._base_url or GEMINI_DEFAULT_BASE_URL

    def _get_client(self) -> Any:
        if self._client is None:
            key = (
                self._api_key
                or os.environ.get("GOOGLE_API_KEY")
                or os.environ.get("GEMINI_API_KEY")
            )
            if not key:
                if self._base_url is None:
                    raise ConfigError(
                        f"{self.name}: no API key; set GEMINI_API_KEY (or GOOGLE_API_KEY) "
                        "or pass api_key="
                    )
                key = _PLACEHOLDER_KEY
            options = self._types.HttpOptions(
                base_url=self._base_url,
                api_version=self._api_version,
                timeout=max(1, int(self.timeout * 1000)),  # milliseconds
                retry_options=self._types.HttpRetryOptions(attempts=1),
            )
            self._client = self._genai.Client(api_key=key, vertexai=False, http_options=options)
        return self._client

    def _request_parts(
        self, messages: list[Message], temperature: float | None, max_tokens: int | None
    ) -> tuple[list[Any], Any]:
        types = self._types
        system = [m.content for m in messages if m.role == "system"]
        contents = [
            types.Content(
                role="model" if m.role == "assistant" else "user",
                parts=[types.Part(text=m.content)],
            )
            for m in messages
            if m.role != "system"
        ]
        if not contents:
            raise ConfigError(f"{self.name}: Gemini needs at least one user message")
        config = types.GenerateContentConfig(
            system_instruction="\n\n".join(system) if system else None,
            temperature=temperature,
            max_output_tokens=max_tokens,
        )
        return contents, config

    async def _attempt(
        self, messages: list[Message], temperature: float | None, max_tokens: int | None, wait_s: float
    ) -> tuple[str, Usage]:
        contents, config = self._request_parts(messages, temperature, max_tokens)
        # the paced timeout of this attempt (the client's own is only the first one)
        config.http_options = self._types.HttpOptions(timeout=max(1, int(wait_s * 1000)))
        response = await self._get_client().aio.models.generate_content(
            model=self.model, contents=contents, config=config
        )
        return self._parse(response)

    def _parse(self, response: Any) -> tuple[str, Usage]:
        candidates = getattr(response, "candidates", None)
        if not candidates:
            feedback = getattr(response, "prompt_feedback", None)
            blocked = getattr(feedback, "block_reason", None)
            why = f"blocked: {blocked}" if blocked else "no candidates"
            raise ModelResponseError(f"{self.name}: unusable answer ({why})")
        content = getattr(candidates[0], "content", None)
        parts = getattr(content, "parts", None) or []
        # thought summaries are not the answer
        text = "".join(p.text for p in parts if getattr(p, "text", None) and not p.thought)
        finish = getattr(candidates[0], "finish_reason", None)
        text = self._require_text(text, f"finish_reason={finish}")
        meta = getattr(response, "usage_metadata", None)
        prompt = getattr(meta, "prompt_token_count", None) or 0
        # thinking tokens are billed as output, so they count as output here
        output = (getattr(meta, "candidates_token_count", None) or 0) + (
            getattr(meta, "thoughts_token_count", None) or 0
        )
        return text, Usage(input_tokens=int(prompt), output_tokens=int(output))

    def _classify(self, exc: Exception) -> Verdict | None:
        if isinstance(exc, self._errors.APIError):
            code = int(getattr(exc, "code", 0) or 0)
            return Verdict.RETRY if code in _RETRY_STATUS or code >= 500 else Verdict.FAIL
        if is_transport_transient(exc):
            return Verdict.RETRY
        if isinstance(exc, ValueError):  # JSONDecodeError, pydantic ValidationError
            return Verdict.MALFORMED
        return None

    async def aclose(self) -> None:
        if self._owns_client and self._client is not None:
            client, self._client = self._client, None
            await client.aio.aclose()
