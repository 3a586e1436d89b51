"""Where the run strategies read time and sleep: a :class:`Clock` parameter (STYLE.md item 9).

:class:`MonotonicClock` is real time; the fake one for tests,
:class:`agentjit.testing.StepClock`, lives with the other fakes.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Clock", "MonotonicClock"]


class Clock(Protocol):
    """Where the strategies read time and sleep (a fake in tests)."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    """Real time: :func:`time.monotonic` and :func:`asyncio.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
