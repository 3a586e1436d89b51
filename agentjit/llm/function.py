"""Fake models that answer through the real ``Model.request`` path (for tests and notebooks)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable

from .base import Message, Model, ModelResponse, Usage

__all__ = ["FunctionModel", "ModelFunction"]

ModelFunction = Callable[[list[Message]], str | ModelResponse | Awaitable[str | ModelResponse]]


def _count_tokens(text: str) -> int:
    # a rough, deterministic stand-in for a tokenizer: about 4 characters a token
    return max(1, (len(text) + 3) // 4) if text else 0


class FunctionModel(Model):
    """A model whose answers come from ``fn(messages)`` (sync or async).

    ``fn`` returns the answer text or a whole :class:`ModelResponse`. Token
    usage is estimated from the text when ``fn`` returns a string.
    """

    def __init__(self, fn: ModelFunction, *, name: str = "function") -> None:
        self.fn = fn
        self.name = name
        self.calls: list[list[Message]] = []

    async def request(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        start = time.perf_counter()
        self.calls.append(list(messages))
        answer = self.fn(list(messages))
        if inspect.isawaitable(answer):
            answer = await answer
        latency = time.perf_counter() - start
        if isinstance(answer, ModelResponse):
            return answer
        usage = Usage(
            input_tokens=sum(_count_tokens(m.content) for m in messages),
            output_tokens=_count_tokens(answer),
        )
        return ModelResponse(text=answer, usage=usage, latency_s=latency, model_name=self.name)
