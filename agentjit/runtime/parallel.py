"""The ``parallel`` strategy: the plan's main loop fanned out to several browser contexts.

The caller's plan analysis (``usage=`` or ``analyse=``; the runtime never
imports the scheduler) finds the main loop and says whether its iterations
are independent; :func:`~agentjit.runtime.cut.cut_at_loop` then cuts the plan
into a prefix, one iteration and a suffix. The prefix runs once on worker 0;
each iteration runs on whichever worker is free; every worker other than 0
opens its own context, takes worker 0's cookies as they are when the loop
is reached (the workers are tabs of one user: a session the prefix signed in,
with a login tool or any other, is theirs too; a login is a WRITE and is never
sent again), and then replays the prefix's READ navigation calls
(``LoopUse.entry_replay``) to reach the loop's entry state; the suffix runs on
worker 0 after the merge.

Inside an iteration each accumulator (an outer name the body appends to,
stores into or adds to) is a recorder that logs the mutation; the merge
replays the logs on the real objects in iteration order. So the plan's value
is the serial run's: the same appends, stores and ``+=`` on the same objects
in the same order. A loop that is not parallel_ok runs serially and the run
reports strategy ``serial`` with the reason.

All workers share one :class:`~agentjit.runtime.effects.EffectLog`, so a WRITE
reaches the site at most once. The prefix and suffix key their writes like a
serial run; each iteration keys its writes by the iteration (scope
``loop-<line>-item-<i>``), not by the worker that happens to run it, so a
re-execution that deals the items out differently (other timing, more or
fewer workers, one worker) replays them instead of sending them again. Such a
re-execution must use the parallel strategy again: a serial run keys a loop's
writes by their order in the whole plan.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentjit.exceptions import ConfigError, InfrastructureError, PlanError
from agentjit.plan.machine import ALL
from agentjit.plan.parsed import Plan
from agentjit.plan.recorder import Op
from agentjit.plan.sandbox import PLAN_BUILTINS, check_sandbox
from agentjit.protocol.trace import StepEvent, TraceWriter

from .clock import Clock, MonotonicClock
from .cut import COMP, EMPTY, ITEMS, ONE, OUT, LoopCut, LoopFacts, PlanFacts, cut_at_loop
from .effects import EffectLog, context_cookies
from .interpreter import PlanRun, execute_plan, parse_plan
from .runner import STRATEGIES, Outcome, Runtime, Strategy

if TYPE_CHECKING:
    from agentjit.cache import ToolCache

__all__ = ["ParallelStrategy", "IterationSpan", "Analyse"]

log = logging.getLogger(__name__)

Analyse = Callable[[str | Plan, "ToolCache"], PlanFacts]
"""Reads a plan's usage from its source and the cache (:func:`agentjit.scheduler.usage.plan_usage`)."""


async def _run_serial(runtime: Runtime, source: str | Plan, trace: TraceWriter | None, effects: EffectLog) -> Outcome:
    gate = effects.gate(worker=0)
    async with runtime.worker(trace=trace, worker=0, write_gate=gate) as run:
        gate.bind(run)
        value = await execute_plan(source, run)
        return value, run.calls, 1, run.state


def _single_error(group: BaseExceptionGroup[Any]) -> BaseException:
    """The one real error of a task group (workers cancelled because of it are not errors)."""
    leaves: list[BaseException] = []

    def walk(g: BaseExceptionGroup[Any]) -> None:
        for exc in g.exceptions:
            if isinstance(exc, BaseExceptionGroup):
                walk(exc)
            elif not isinstance(exc, asyncio.CancelledError):
                leaves.append(exc)

    walk(group)
    return leaves[0] if len(leaves) == 1 else group


@dataclass(frozen=True)
class IterationSpan:
    """When one loop iteration ran, and on which worker (the overlap evidence)."""

    worker: int
    iteration: int
    start: float
    end: float


class _Queue:
    """The iteration indices still to run; workers take the next one when they are free."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.next = 0

    def take(self) -> int | None:
        if self.next >= self.n:
            return None
        i = self.next
        self.next += 1
        return i

    @property
    def empty(self) -> bool:
        return self.next >= self.n


@dataclass
class _Entry:
    """What the prefix hands to the workers: the items, the work queue, variables, entry calls."""

    items: list[Any]
    queue: _Queue
    outputs: list[Any]
    user: dict[str, Any]
    replay: list[StepEvent]
    cookies: list[dict[str, Any]]
    """Worker 0's cookies when the loop was reached (the session the prefix made: a login, say)."""


class ParallelStrategy(Strategy):
    """Fan the iterations of the plan's main loop out to ``workers`` browser contexts.

    ``usage`` is the plan's :class:`~agentjit.scheduler.usage.PlanUsage` when
    the caller already has it; else ``analyse`` (e.g.
    :func:`agentjit.scheduler.usage.plan_usage`), or the runtime's own
    ``Runtime.analyse``, computes it from the source. The runtime does not
    analyse plans itself: without any of the three, running is a ConfigError.
    ``effects`` is the task run's effect log (a fresh one per run when omitted).
    After :meth:`execute`, ``used`` is ``"parallel"`` or ``"serial"``,
    ``reason`` says why, and ``spans`` holds one :class:`IterationSpan` per
    iteration. One instance runs one plan at a time.
    """

    name = "parallel"

    def __init__(
        self,
        workers: int = 4,
        usage: PlanFacts | None = None,
        *,
        analyse: Analyse | None = None,
        effects: EffectLog | None = None,
        clock: Clock | None = None,
    ) -> None:
        if workers < 1:
            raise ConfigError(f"ParallelStrategy: workers must be at least 1, got {workers}")
        self.workers = workers
        self.usage = usage
        self.analyse = analyse
        self.effects = effects
        self.clock: Clock = clock or MonotonicClock()
        self.used: str = self.name
        self.reason: str | None = None
        self.spans: list[IterationSpan] = []

    async def execute(self, runtime: Runtime, source: str | Plan, trace: TraceWriter | None) -> Outcome:
        effects = self.effects if self.effects is not None else EffectLog()
        effects.begin_execution()
        self.spans = []
        tree = parse_plan(source, frozenset(runtime.cache.tools))
        usage = self.usage
        if usage is None:
            analyse = self.analyse or runtime.analyse
            if analyse is None:
                raise ConfigError("the parallel strategy needs the plan's usage: pass usage= or analyse= "
                                  "(agentjit.scheduler.usage.plan_usage) to ParallelStrategy or analyse= to Runtime")
            usage = analyse(source, runtime.cache)
        cut, why = cut_at_loop(tree, usage)
        if cut is None or usage.loop is None:
            self.used, self.reason = "serial", why
            log.info("parallel strategy runs serially: %s", self.reason)
            return await _run_serial(runtime, source, trace, effects)
        callables = set(runtime.cache.tools) | PLAN_BUILTINS
        for piece in (cut.prefix, cut.iteration, cut.suffix):
            findings = check_sandbox(piece, callables=callables)
            if findings:  # pragma: no cover - pieces of a checked plan plus our own glue
                raise PlanError(f"parallel cut broke the sandbox: {findings[0].message}", line=findings[0].line)
        if self.workers < 2:  # still cut, so the loop's writes keep the keys a wider re-execution uses
            self.used, self.reason = "serial", "one worker"
        else:
            self.used, self.reason = "parallel", usage.loop.reason
        return await self._fan_out(runtime, cut, usage.loop, trace, effects)

    async def _fan_out(
        self, runtime: Runtime, cut: LoopCut, loop: LoopFacts, trace: TraceWriter | None, effects: EffectLog
    ) -> Outcome:
        """Prefix on worker 0 while the other contexts open; then iterations everywhere; merge; suffix.

        Each worker's plan code runs in its own VM (a sandbox child by
        default); worker 0's ``main`` namespace carries the plan from prefix
        to suffix, and iterations run in a copy of it (``iter``), so they see
        the prefix's variables and hand back only their recorded ops or
        comprehension output.
        """
        gate0 = effects.gate(worker=0)
        async with runtime.worker(trace=trace, worker=0, write_gate=gate0) as run0, run0.vm() as vm0:
            gate0.bind(run0)
            entered: asyncio.Future[_Entry] = asyncio.get_running_loop().create_future()
            extra_calls: dict[int, list[StepEvent]] = {}

            async def iterate(worker: int, run: PlanRun, vm: Any, entry: _Entry, base: str | None) -> None:
                while (i := entry.queue.take()) is not None:
                    t0 = self.clock.now()
                    # an iteration's writes are keyed by the iteration, not by the worker that runs it:
                    # a re-execution hands items to other workers and must still find their records
                    run.write_gate = effects.gate(run, worker=worker, scope=f"loop-{cut.line}-item-{i}")
                    one = {ONE: [entry.items[i]]}
                    if cut.kind == "for":
                        _, ops = await vm.run(cut.iteration, ns="iter", copy_from=base, set_vars=one,
                                              recorders=sorted(cut.accumulators), want=())
                        entry.outputs[i] = ops
                    else:
                        values, _ = await vm.run(cut.iteration, ns="iter", copy_from=base, set_vars=one, want=(OUT,))
                        entry.outputs[i] = values.get(OUT)
                    self.spans.append(IterationSpan(worker, i, t0, self.clock.now()))

            async def extra(worker: int) -> None:
                async with contextlib.AsyncExitStack() as stack:
                    try:  # a context that cannot open only costs this worker, not the run
                        run = await stack.enter_async_context(runtime.worker(trace=trace, worker=worker))
                    except InfrastructureError as exc:
                        log.warning("parallel worker %d could not start: %s", worker, exc)
                        return
                    vm = await stack.enter_async_context(run.vm())  # the sandbox starts while the prefix runs
                    entry = await asyncio.shield(entered)
                    try:
                        if entry.queue.empty:
                            return
                        if entry.cookies:  # the prefix's session (a login, say) before the first request
                            await run.page.context.add_cookies(entry.cookies)
                        for step in entry.replay:  # reach the loop's entry state
                            await run.call(step.tool or "", dict(step.args))
                        await vm.run(EMPTY, ns="main", set_vars=entry.user, want=())
                        await iterate(worker, run, vm, entry, "main")
                    finally:
                        extra_calls[worker] = run.calls

            try:
                async with asyncio.TaskGroup() as tg:
                    for w in range(1, self.workers):  # open the other contexts while the prefix runs
                        tg.create_task(extra(w), name=f"parallel-worker-{w}")
                    values, _ = await vm0.run(cut.prefix, want=ALL)
                    items: list[Any] = list(values.pop(ITEMS, []))
                    replay_tools = {c.tool for c in loop.entry_replay}
                    entry = _Entry(
                        items=items,
                        queue=_Queue(len(items)),
                        outputs=[None] * len(items),
                        user=values,
                        replay=[
                            c for c in run0.calls
                            if c.action == "tool" and c.ok and c.effect == "READ" and c.tool in replay_tools
                        ],
                        cookies=await context_cookies(run0.page),
                    )  # fmt: skip
                    entered.set_result(entry)
                    await iterate(0, run0, vm0, entry, "main")
                    run0.write_gate = gate0  # the suffix: the plan's own sequence again
            except BaseExceptionGroup as group:
                raise _single_error(group) from None
            finally:
                if not entered.done():
                    entered.cancel()
            await self._merge(cut, vm0, entry.outputs)
            values, _ = await vm0.run(cut.suffix)
            if "result" not in values:
                raise PlanError("the plan finished without setting `result`")
            calls = [*run0.calls, *(c for w in sorted(extra_calls) for c in extra_calls[w])]
            busy = len({span.worker for span in self.spans}) or 1
            return values["result"], calls, busy, run0.state

    @staticmethod
    async def _merge(cut: LoopCut, vm: Any, outputs: list[Any]) -> None:
        """Combine the iterations' results in iteration order (the serial order), in worker 0's namespace."""
        try:
            if cut.kind == "for":
                ops: list[Op] = [op for out in outputs for op in (out or [])]
                await vm.apply_ops(ops)
                return
            merged: Any
            if cut.comp_type is ast.ListComp:
                merged = [x for out in outputs for x in out]
            elif cut.comp_type is ast.SetComp:
                merged = set()
                for out in outputs:
                    merged.update(out)
            else:
                merged = {}
                for out in outputs:
                    merged.update(out)
            await vm.apply_ops([], set_vars={COMP: merged})
        except PlanError as exc:
            if exc.line is None:
                exc.line = cut.line
            raise
        except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
            raise PlanError(f"merging the parallel loop's results: {type(exc).__name__}: {exc}", line=cut.line) from exc


STRATEGIES["parallel"] = ParallelStrategy
