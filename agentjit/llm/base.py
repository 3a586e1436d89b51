"""The one interface every language model sits behind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Literal, Self

from pydantic import BaseModel, Field

__all__ = ["Message", "Usage", "ModelResponse", "Model"]


class Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class ModelResponse(BaseModel):
    text: str
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    model_name: str = ""


class Model(ABC):
    """A language model: messages in; text, token usage and latency out."""

    name: str = "model"

    @abstractmethod
    async def request(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        """Send ``messages`` and return the answer. Raises ModelError subclasses."""

    def preflight(self) -> None:
        """Raise :class:`~agentjit.exceptions.ConfigError` now if no request can succeed
        (no API key), before any work starts; sends nothing. No-op by default."""
        return None

    async def aclose(self) -> None:
        """Release connections the model holds (no-op for fakes)."""
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
