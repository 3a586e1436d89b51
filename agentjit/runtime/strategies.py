"""The concurrent run strategies under their old import path.

The strategies now live in modules with one job each: :mod:`.clock` (time),
:mod:`.cut` (cutting a plan at its main loop), :mod:`.parallel` and
:mod:`.hedge`; the fake clock is :class:`agentjit.testing.StepClock`. This
module only re-exports them, so ``from agentjit.runtime.strategies import
ParallelStrategy`` keeps working.
"""

from __future__ import annotations

from .clock import Clock, MonotonicClock
from .cut import LoopFacts, PlanFacts
from .hedge import HedgeStrategy, RaceEvent
from .parallel import IterationSpan, ParallelStrategy

__all__ = [
    "Clock",
    "MonotonicClock",
    "ParallelStrategy",
    "PlanFacts",
    "LoopFacts",
    "HedgeStrategy",
    "RaceEvent",
    "IterationSpan",
]
