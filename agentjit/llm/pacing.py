"""Request timeouts sized from how fast the server has answered so far.

A slow OpenAI-compatible server (llama.cpp with a small code model on two
cores) needs minutes per plan; a fixed 60 s timeout cuts every generation
short and the retry starts the same generation again, to be cut short again.
:class:`Pacing` instead measures output tokens per second from the answers a
model got, sizes each request's timeout to the tokens it may generate at that
speed, and after a timeout lets the next attempt wait twice as long (up to a
ceiling), so a timed-out generation is never re-sent with the same budget.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Pacing", "COLD_PROMPT_TOKENS_PER_S"]

_DEFAULT_EXPECTED_TOKENS = 512
"""Tokens a plan answer may take before any answer was measured."""

COLD_PROMPT_TOKENS_PER_S = 25.0
"""How fast a slow server reads a prompt it has not cached (llama.cpp, a small model on two cores: a
3.7k-token plan prompt took about 107 s), for the first timeout only."""


@dataclass
class Pacing:
    base_timeout_s: float = 60.0
    """The timeout before anything was measured, and the least one after."""
    max_timeout_s: float = 900.0
    """The most one attempt may wait; a timeout at this length is final."""
    tokens_per_s: float | None = None
    """Output tokens per second of one request, as measured (moving average), queueing included."""
    longest_output: int = 0
    """The most output tokens one answer has had."""
    boost: float = 1.0
    """Doubles after each timeout, so the next attempt waits longer."""
    answers: int = 0

    def observe(self, latency_s: float, output_tokens: int) -> None:
        """Record one answer: ``output_tokens`` generated in ``latency_s`` (the whole request)."""
        self.answers += 1
        if output_tokens <= 0 or latency_s <= 0:
            return
        rate = output_tokens / latency_s
        self.tokens_per_s = rate if self.tokens_per_s is None else 0.7 * self.tokens_per_s + 0.3 * rate
        self.longest_output = max(self.longest_output, output_tokens)

    def timeout_s(self, max_tokens: int | None = None, *, prompt_tokens: int | None = None) -> float:
        """How long the next attempt may wait for an answer of at most ``max_tokens`` tokens.

        Before any answer was measured, a prompt of ``prompt_tokens`` adds the time a slow server takes to
        read it (at :data:`COLD_PROMPT_TOKENS_PER_S`): a small local server needs minutes for a long plan
        prompt, and a first timeout shorter than that would only re-send the prompt behind its own generation.
        """
        timeout = self.base_timeout_s
        if self.tokens_per_s is None and prompt_tokens:
            timeout += prompt_tokens / COLD_PROMPT_TOKENS_PER_S
        if self.tokens_per_s is not None:
            expected = max_tokens or max(2 * self.longest_output, _DEFAULT_EXPECTED_TOKENS)
            timeout = max(timeout, 2.0 * expected / self.tokens_per_s)  # twice the expected time
        return min(timeout * self.boost, self.max_timeout_s)

    def timed_out(self, waited_s: float) -> bool:
        """Record a timeout after ``waited_s``; True if a retry with a longer wait is worth it."""
        if waited_s >= self.max_timeout_s:
            return False
        self.boost *= 2.0
        return True
