"""The concurrent run strategies: ``parallel`` fan-out and ``hedge`` replicas.

Both plug into :class:`~agentjit.runtime.runner.Strategy` and share an
:class:`~agentjit.runtime.effects.EffectLog` among all their workers, so a
WRITE reaches the site at most once.

**Parallel.** The caller's plan analysis (the scheduler's
:func:`agentjit.scheduler.usage.plan_usage`, handed in as ``usage=`` or
``analyse=``: the runtime never imports the scheduler) finds the plan's main
loop and says whether its iterations are independent (map- or
reduction-shaped). If so,
the plan is cut, on its checked AST, into

* the prefix (every statement before the loop, plus ``list(<iterable>)``), run
  once on worker 0;
* one iteration: ``for <target> in [item]: <body>`` (or the comprehension over
  ``[item]``), run for each item on whichever worker is free; every worker
  other than 0 opens its own context and first replays the prefix's READ
  navigation calls (``LoopUse.entry_replay``) to reach the loop's entry state;
* the suffix, run on worker 0 after the merge.

Inside an iteration each accumulator (an outer name the body appends to,
stores into or adds to) is a recorder that logs the mutation; the merge
replays the logs on the real objects in iteration order. So the plan's value
is the serial run's: the same appends, stores and ``+=`` on the same objects
in the same order. A loop that is not parallel_ok runs serially and the run
reports strategy ``serial`` with the reason.

**Hedge.** ``n`` replicas of the whole plan run in one
:class:`asyncio.TaskGroup`. The first replica to reach the plan's first WRITE
(or, for a plan without one, its end) leads: the others are cancelled at once
and their contexts close in ``finally``. A replica that fails before anyone
leads just drops out; if all do, an :class:`ExceptionGroup` of their errors is
raised. The clock (``now``/``sleep``) is a parameter: it stamps the race's
events and spaces the replicas' starts when ``stagger_s`` is set.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentjit.exceptions import ConfigError, InfrastructureError, PlanError
from agentjit.plan.machine import ALL
from agentjit.plan.recorder import Op
from agentjit.plan.sandbox import PLAN_BUILTINS, check_sandbox
from agentjit.protocol.trace import StepEvent, TraceWriter

from .effects import EffectLog
from .interpreter import execute_plan, parse_plan
from .runner import STRATEGIES, Runtime, Strategy

if TYPE_CHECKING:
    from agentjit.cache import ToolCache

__all__ = [
    "Clock",
    "MonotonicClock",
    "StepClock",
    "ParallelStrategy",
    "PlanFacts",
    "LoopFacts",
    "HedgeStrategy",
    "RaceEvent",
    "IterationSpan",
]

log = logging.getLogger(__name__)

Outcome = tuple[Any, list[StepEvent], int, dict[str, Any]]


class ReplayCall(Protocol):
    """A prefix call a new parallel worker replays to reach the loop's entry state."""

    @property
    def tool(self) -> str: ...


class LoopFacts(Protocol):
    """What the parallel cut reads about the plan's main loop (the scheduler's ``LoopUse`` has it)."""

    @property
    def line(self) -> int: ...

    @property
    def parallel_ok(self) -> bool: ...

    @property
    def reason(self) -> str: ...

    @property
    def accumulators(self) -> Collection[str]: ...

    @property
    def entry_replay(self) -> Sequence[ReplayCall]: ...


class PlanFacts(Protocol):
    """A plan's analysis as the parallel strategy reads it (the scheduler's ``PlanUsage`` has it)."""

    @property
    def loop(self) -> LoopFacts | None: ...


Analyse = Callable[[str, "ToolCache"], PlanFacts]
"""Reads a plan's usage from its source and the cache (:func:`agentjit.scheduler.usage.plan_usage`)."""


# -- time ------------------------------------------------------------------------------------


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


class StepClock:
    """A fake clock: every ``now()`` is ``step`` later than the one before (a logical clock).

    ``sleep(s)`` moves time forward by ``s`` and yields to the event loop
    once, so tests see a total order of events without waiting.
    """

    def __init__(self, start: float = 0.0, step: float = 1.0) -> None:
        self.t = start
        self.step = step
        self.sleeps: list[float] = []

    def now(self) -> float:
        self.t += self.step
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds
        await asyncio.sleep(0)


# -- serial, with the effect log -----------------------------------------------------------


async def _run_serial(runtime: Runtime, source: str, trace: TraceWriter | None, effects: EffectLog) -> Outcome:
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


# -- parallel: cutting the plan ------------------------------------------------------------

_ITEMS = "_aj_items"
_ONE = "_aj_one"
_OUT = "_aj_out"
_COMP = "_aj_comp"


@dataclass
class _LoopCut:
    """A plan cut around its main loop (all pieces are sub-trees of the checked plan)."""

    kind: Literal["for", "comprehension"]
    line: int
    prefix: ast.Module
    """The statements before the loop, then ``_aj_items = list(<iterable>)``."""
    iteration: ast.Module
    """One iteration over ``_aj_one`` (a one-item list)."""
    suffix: ast.Module
    accumulators: frozenset[str] = frozenset()
    comp_type: type[ast.expr] | None = None


def _module(body: list[ast.stmt]) -> ast.Module:
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


_EMPTY = ast.Module(body=[], type_ignores=[])
"""A tree with no statements: running it only sets variables (a worker receiving the prefix's)."""


def _name(id_: str, ctx: ast.expr_context, like: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id=id_, ctx=ctx), like)


def _items_assign(iterable: ast.expr) -> ast.stmt:
    call = ast.copy_location(ast.Call(func=_name("list", ast.Load(), iterable), args=[iterable], keywords=[]), iterable)
    return ast.copy_location(ast.Assign(targets=[_name(_ITEMS, ast.Store(), iterable)], value=call), iterable)


def _find_loop(tree: ast.Module, line: int) -> tuple[int, ast.AST] | None:
    """The top-level statement index and the loop node on ``line`` (the analysis's main loop)."""
    loops = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    for index, stmt in enumerate(tree.body):
        stack: list[ast.AST] = [stmt]
        while stack:  # pre-order, outer loops first, like usage._find_main_loop
            node = stack.pop()
            if isinstance(node, loops) and getattr(node, "lineno", None) == line:
                return index, node
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


def _cut(tree: ast.Module, usage: PlanFacts) -> tuple[_LoopCut | None, str]:
    """Cut ``tree`` around the main loop, or say why it runs serially."""
    loop = usage.loop
    if loop is None:
        return None, "no loop that calls a tool"
    if not loop.parallel_ok:
        return None, f"loop on line {loop.line} is not parallelizable: {loop.reason}"
    found = _find_loop(tree, loop.line)
    if found is None:  # pragma: no cover - usage and this module read the same source
        return None, f"loop on line {loop.line} not found in the plan"
    index, node = found
    stmt = tree.body[index]
    before = list(tree.body[:index])
    after = list(tree.body[index + 1:])
    if isinstance(node, ast.For) and node is stmt:
        one = ast.For(target=node.target, iter=_name(_ONE, ast.Load(), node.iter), body=node.body, orelse=[])
        return _LoopCut(
            kind="for",
            line=node.lineno,
            prefix=_module([*before, _items_assign(node.iter)]),
            iteration=_module([ast.copy_location(one, node)]),
            suffix=_module([*node.orelse, *after]),
            accumulators=frozenset(loop.accumulators),
        ), loop.reason
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp):
        outside = [n for n in ast.walk(stmt) if isinstance(n, ast.Await)]
        inside = {id(n) for n in ast.walk(node)}
        if any(id(n) not in inside for n in outside):
            return None, (f"the statement on line {stmt.lineno} awaits outside its comprehension; "
                          "parallel runs only a comprehension whose statement has no other awaits")
        iterable = node.generators[0].iter
        comp = copy.deepcopy(node)
        comp.generators[0].iter = _name(_ONE, ast.Load(), iterable)
        piece = ast.copy_location(ast.Assign(targets=[_name(_OUT, ast.Store(), node)], value=comp), node)
        rest = _replace(stmt, node, _name(_COMP, ast.Load(), node))
        return _LoopCut(
            kind="comprehension",
            line=node.lineno,
            prefix=_module([*before, _items_assign(iterable)]),
            iteration=_module([piece]),
            suffix=_module([rest, *after]),
            comp_type=type(node),
        ), loop.reason
    return None, (f"the loop on line {loop.line} is not a top-level `for` or a list/set/dict comprehension; "
                  "the parallel runtime runs it serially")


def _replace(stmt: ast.stmt, old: ast.AST, new: ast.expr) -> ast.stmt:
    class Swap(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if node is old:
                return new
            return super().visit(node)

    swapped = Swap().visit(stmt)
    assert isinstance(swapped, ast.stmt)
    return swapped


# -- parallel: accumulators --------------------------------------------------------------


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


# -- parallel ------------------------------------------------------------------------------


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

    async def execute(self, runtime: Runtime, source: str, trace: TraceWriter | None) -> Outcome:
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
        cut, why = _cut(tree, usage)
        if cut is None or self.workers < 2 or usage.loop is None:
            self.used, self.reason = "serial", (why if cut is None else "one worker")
            log.info("parallel strategy runs serially: %s", self.reason)
            return await _run_serial(runtime, source, trace, effects)
        callables = set(runtime.cache.tools) | PLAN_BUILTINS
        for piece in (cut.prefix, cut.iteration, cut.suffix):
            findings = check_sandbox(piece, callables=callables)
            if findings:  # pragma: no cover - pieces of a checked plan plus our own glue
                raise PlanError(f"parallel cut broke the sandbox: {findings[0].message}", line=findings[0].line)
        self.used, self.reason = "parallel", usage.loop.reason
        return await self._fan_out(runtime, cut, usage.loop, trace, effects)

    async def _fan_out(
        self, runtime: Runtime, cut: _LoopCut, loop: LoopFacts, trace: TraceWriter | None, effects: EffectLog
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

            async def iterate(worker: int, vm: Any, entry: _Entry, base: str | None) -> None:
                while (i := entry.queue.take()) is not None:
                    t0 = self.clock.now()
                    one = {_ONE: [entry.items[i]]}
                    if cut.kind == "for":
                        _, ops = await vm.run(cut.iteration, ns="iter", copy_from=base, set_vars=one,
                                              recorders=sorted(cut.accumulators), want=())
                        entry.outputs[i] = ops
                    else:
                        values, _ = await vm.run(cut.iteration, ns="iter", copy_from=base, set_vars=one, want=(_OUT,))
                        entry.outputs[i] = values.get(_OUT)
                    self.spans.append(IterationSpan(worker, i, t0, self.clock.now()))

            async def extra(worker: int) -> None:
                async with contextlib.AsyncExitStack() as stack:
                    try:  # a context that cannot open only costs this worker, not the run
                        run = await stack.enter_async_context(runtime.worker(trace=trace, worker=worker))
                    except InfrastructureError as exc:
                        log.warning("parallel worker %d could not start: %s", worker, exc)
                        return
                    run.write_gate = effects.gate(run, scope=f"parallel-worker-{worker}")
                    vm = await stack.enter_async_context(run.vm())  # the sandbox starts while the prefix runs
                    entry = await asyncio.shield(entered)
                    try:
                        if entry.queue.empty:
                            return
                        for step in entry.replay:  # reach the loop's entry state
                            await run.call(step.tool or "", dict(step.args))
                        await vm.run(_EMPTY, ns="main", set_vars=entry.user, want=())
                        await iterate(worker, vm, entry, "main")
                    finally:
                        extra_calls[worker] = run.calls

            try:
                async with asyncio.TaskGroup() as tg:
                    for w in range(1, self.workers):  # open the other contexts while the prefix runs
                        tg.create_task(extra(w), name=f"parallel-worker-{w}")
                    values, _ = await vm0.run(cut.prefix, want=ALL)
                    items: list[Any] = list(values.pop(_ITEMS, []))
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
                    )  # fmt: skip
                    entered.set_result(entry)
                    await iterate(0, vm0, entry, "main")
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
    async def _merge(cut: _LoopCut, vm: Any, outputs: list[Any]) -> None:
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
            await vm.apply_ops([], set_vars={_COMP: merged})
        except PlanError as exc:
            if exc.line is None:
                exc.line = cut.line
            raise
        except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
            raise PlanError(f"merging the parallel loop's results: {type(exc).__name__}: {exc}", line=cut.line) from exc


# -- hedge ---------------------------------------------------------------------------------


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

    async def execute(self, runtime: Runtime, source: str, trace: TraceWriter | None) -> Outcome:
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
        self, i: int, runtime: Runtime, source: str, trace: TraceWriter | None, effects: EffectLog, race: _Race
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


STRATEGIES["parallel"] = ParallelStrategy
STRATEGIES["hedge"] = HedgeStrategy
