"""Task runs under a shared effect log: one namespace per task of a run, strategies that gate writes.

A batch that shares an effect store (``--effects sqlite:///PATH`` or
``postgresql://...``) gives each task its own :class:`~agentjit.runtime.EffectLog`
over that store, in namespace ``RUN_ID/TASK_ID``: every process, worker or
machine that runs the same task of the same run claims the same keys, so each
write reaches the site once; two tasks (or two runs) never share keys.
"""

from __future__ import annotations

from typing import Any

from agentjit.exceptions import ConfigError
from agentjit.plan.parsed import Plan
from agentjit.runtime import EffectLog
from agentjit.runtime.effectstore import EffectStore
from agentjit.runtime.hedge import HedgeStrategy
from agentjit.runtime.parallel import ParallelStrategy
from agentjit.runtime.runner import Strategy
from agentjit.session import DEFAULT_WORKERS, Session

__all__ = ["task_namespace", "task_effects", "logged_strategy"]


def task_namespace(run_id: str, task_id: str) -> str:
    """The namespace of one task's writes in a shared store."""
    return f"{run_id}/{task_id}"


def task_effects(store: EffectStore, run_id: str, task_id: str) -> EffectLog:
    """The effect log of ``task_id`` in run ``run_id`` over the shared ``store`` (not closed with it)."""
    return EffectLog(store=store, namespace=task_namespace(run_id, task_id))


def logged_strategy(session: Session, source: str | Plan, strategy: str | Strategy, effects: EffectLog) -> Strategy:
    """The runtime strategy ``strategy`` names (``auto``: the scheduler's pick for ``source``), with
    every WRITE gated by ``effects``. A serial run is the parallel strategy with one worker: the
    same run, with the effect log's gate."""
    if isinstance(strategy, Strategy):
        raise ConfigError("a run under an effect log takes a strategy name (serial, parallel, hedge, auto)")
    name, workers = strategy, 0
    if strategy == "auto":
        _, schedule = session.strategy("auto", source)
        assert schedule is not None
        name, workers = schedule.strategy, schedule.workers
    if name == "hedge":
        return HedgeStrategy(workers or DEFAULT_WORKERS["hedge"], effects=effects)
    if name == "parallel":
        return ParallelStrategy(workers or DEFAULT_WORKERS["parallel"], analyse=session.usage, effects=effects)
    if name == "serial":
        return ParallelStrategy(1, analyse=session.usage, effects=effects)
    raise ConfigError(f"unknown strategy {name!r} (known: serial, parallel, hedge, auto)")


def describe(store: Any) -> str:
    """A store's URL for a summary (no password)."""
    return str(getattr(store, "url", store))
