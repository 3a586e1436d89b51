"""``TestModel``: canned answers, in order, through the real ``Model.request`` path."""

from __future__ import annotations

from collections.abc import Sequence

from ..exceptions import ConfigError
from .base import Message, ModelResponse
from .function import FunctionModel

__all__ = ["TestModel"]


class TestModel(FunctionModel):
    """Answers ``answers[0]``, ``answers[1]``, ... one per request.

    With ``cycle=True`` it starts over after the last answer; otherwise one
    request too many raises ConfigError (the test scripted too few answers;
    deliberately not a ModelError, so a planner cannot swallow it as a bad
    sample). Calls are recorded in ``calls`` (as in FunctionModel) and token
    usage is estimated from the texts unless an answer is a whole
    :class:`ModelResponse`.
    """

    __test__ = False  # not a pytest test class despite the name

    def __init__(
        self,
        answers: Sequence[str | ModelResponse] | str,
        *,
        cycle: bool = False,
        name: str = "test",
    ) -> None:
        self.answers: list[str | ModelResponse] = (
            [answers] if isinstance(answers, str) else list(answers)
        )
        if not self.answers:
            raise ConfigError("TestModel needs at least one answer")
        self.cycle = cycle
        self._used = 0
        super().__init__(self._next_answer, name=name)

    @property
    def remaining(self) -> int | None:
        """Answers left before exhaustion (None when cycling)."""
        return None if self.cycle else len(self.answers) - self._used

    def _next_answer(self, messages: list[Message]) -> str | ModelResponse:
        index = self._used
        if index >= len(self.answers) and not self.cycle:
            raise ConfigError(
                f"TestModel '{self.name}': all {len(self.answers)} canned answers are used "
                f"(request {index + 1}); pass more answers or cycle=True"
            )
        self._used += 1
        return self.answers[index % len(self.answers)]
