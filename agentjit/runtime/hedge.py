"""The ``hedge`` strategy: replicas of the whole plan race to its first WRITE.

``n`` replicas of the whole plan run in one :class:`asyncio.TaskGroup`. The
first replica to reach the plan's first WRITE (or, for a plan without one,
its end) leads: the others are cancelled at once and their contexts close in
``finally``. A replica that fails before anyone leads just drops out; if all
do, an :class:`ExceptionGroup` of their errors is raised. The clock
(``now``/``sleep``) is a parameter: it stamps the race's events and spaces the
replicas' starts when ``stagger_s`` is set.

All replicas share one :class:`~agentjit.runtime.effects.EffectLog`, so a
WRITE reaches the site at most once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentjit.exceptions import ConfigError
from agentjit.plan.parsed import Plan
from agentjit.protocol.trace import TraceWriter

from .clock import Clock, MonotonicClock
from .effects import EffectLog
from .interpreter import execute_plan, parse_plan
from .runner import STRATEGIES, Outcome, Runtime, Strategy

__all__ = ["HedgeStrategy", "RaceEvent"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RaceEvent:
    """One thing that happened in a hedge race, stamped by the strategy's clock.

    ``kind``: ``start``, ``ready`` (context open at the start page), ``lead``
    (reached the first WRITE or the end first), ``cancel`` (the leader
    cancelled this replica), ``cancelled``, ``failed``, ``done``, ``closed``
    (its context is closed).
    """

    time: float
    replica: int
    kind: str
    detail: str = ""


class _LostRace(BaseException):
    """Raised in a replica that reaches the first WRITE after another replica led.

    A BaseException, so a plan's ``except Exception`` cannot swallow it and go on.
    """


@dataclass
class _Race:
    clock: Clock
    tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    leader: int | None = None
    events: list[RaceEvent] = field(default_factory=list)
    results: dict[int, Outcome] = field(default_factory=dict)
    errors: dict[int, Exception] = field(default_factory=dict)

    def mark(self, replica: int, kind: str, detail: str = "") -> None:
        self.events.append(RaceEvent(self.clock.now(), replica, kind, detail))

    def lead(self, replica: int, why: str) -> None:
        """Make ``replica`` the leader and cancel the rest, or raise :class:`_LostRace`."""
        if self.leader == replica:
            return
        if self.leader is not None:
            raise _LostRace
        self.leader = replica
        self.mark(replica, "lead", why)
        for other, task in self.tasks.items():
            if other != replica and not task.done():
                task.cancel()
                self.mark(other, "cancel")


class HedgeStrategy(Strategy):
    """Race ``replicas`` copies of the plan to the first WRITE (or the end); the winner goes on alone.

    ``effects`` is the task run's shared effect log (a fresh one per run when
    omitted); ``clock`` stamps :attr:`events` and paces ``stagger_s`` (the
    delay between replica starts; 0 starts all at once). After
    :meth:`execute`, ``winner`` is the leading replica and ``events`` the race.
    """

    name = "hedge"

    def __init__(
        self,
        replicas: int = 2,
        *,
        clock: Clock | None = None,
        effects: EffectLog | None = None,
        stagger_s: float = 0.0,
    ) -> None:
        if replicas < 1:
            raise ConfigError(f"HedgeStrategy: replicas must be at least 1, got {replicas}")
        self.replicas = replicas
        self.clock: Clock = clock or MonotonicClock()
        self.effects = effects
        self.stagger_s = stagger_s
        self.used: str = self.name
        self.reason: str | None = None
        self.winner: int | None = None
        self.events: list[RaceEvent] = []

    async def execute(self, runtime: Runtime, source: str | Plan, trace: TraceWriter | None) -> Outcome:
        parse_plan(source, frozenset(runtime.cache.tools))  # a bad plan fails once, not n times
        effects = self.effects if self.effects is not None else EffectLog()
        effects.begin_execution()
        race = _Race(self.clock)
        self.events = race.events
        self.winner = None
        async with asyncio.TaskGroup() as tg:
            for i in range(self.replicas):
                race.tasks[i] = tg.create_task(self._replica(i, runtime, source, trace, effects, race),
                                               name=f"hedge-replica-{i}")
        self.winner = race.leader
        if race.leader is not None:
            if race.leader in race.results:
                value, calls, _, state = race.results[race.leader]
                self.reason = f"replica {race.leader} of {self.replicas} led"
                return value, calls, self.replicas, state
            raise race.errors[race.leader]
        errors = [race.errors[i] for i in sorted(race.errors)]
        if not errors:  # pragma: no cover - without a leader every replica ended in an error
            raise RuntimeError("hedge race ended without a leader or an error")
        raise ExceptionGroup(f"all {self.replicas} hedged replicas failed", errors)

    async def _replica(
        self, i: int, runtime: Runtime, source: str | Plan, trace: TraceWriter | None, effects: EffectLog, race: _Race
    ) -> None:
        gate = effects.gate(worker=i)

        async def hedged_gate(tool: Any, args: dict[str, Any], perform: Callable[[], Any]) -> Any:
            race.lead(i, f"first WRITE {tool.name}")
            return await gate(tool, args, perform)

        try:
            if self.stagger_s > 0 and i > 0:
                await self.clock.sleep(self.stagger_s * i)
            race.mark(i, "start")
            try:
                async with runtime.worker(trace=trace, worker=i, write_gate=hedged_gate) as run:
                    gate.bind(run)
                    race.mark(i, "ready")
                    try:
                        value = await execute_plan(source, run)
                    except asyncio.CancelledError:
                        race.mark(i, "cancelled")  # before its context closes
                        raise
                    race.lead(i, "finished")
                    race.results[i] = (value, run.calls, 1, run.state)
                    race.mark(i, "done")
            except asyncio.CancelledError:
                if not any(e.replica == i and e.kind == "cancelled" for e in race.events):
                    race.mark(i, "cancelled", "while starting")  # still before "closed"
                raise
            finally:
                race.mark(i, "closed")
        except _LostRace:
            race.mark(i, "cancelled", "reached the first WRITE after the leader")
        except Exception as exc:  # one replica failing is not the run failing
            race.errors[i] = exc
            race.mark(i, "failed", f"{type(exc).__name__}: {exc}")
            log.info("hedge replica %d failed: %s", i, exc)


STRATEGIES["hedge"] = HedgeStrategy
