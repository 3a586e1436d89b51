"""Running a plan end to end: a browser context, the interpreter, a trace, a result.

:class:`Runtime` holds what every run of one app shares (the tool cache, the
site's base URL, the browser pool, ai_eval / ask_human, where traces go).
:meth:`Runtime.run` hands the plan to a :class:`Strategy`: ``serial`` here;
``parallel`` and ``hedge`` plug into the same seam. Every strategy opens its
browser contexts through :meth:`Runtime.worker`, which starts a page at the
app's start URL with the app's initial abstract state.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentjit._version import __version__
from agentjit.cache import SuspectStore, ToolCache
from agentjit.exceptions import ConfigError, PlanLimitExceeded, SiteUnreachable
from agentjit.llm.base import Message, Model
from agentjit.plan.limits import DEFAULT_LIMITS, PlanLimits
from agentjit.plan.parsed import Plan, as_plan
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.trace import SessionEvent, StepEvent, TraceWriter
from agentjit.protocol.urls import site_url

from .browser import BrowserPool
from .healing import Suspect, ToolFallback
from .interpreter import (
    AiEval,
    AiExec,
    AskHuman,
    PlanRun,
    WriteGate,
    execute_plan,
    format_prompt,
    parse_plan,
    run_deadline,
    run_fallbacks,
    run_sent_chars,
    run_writes_sent,
)
from .network import track
from .repair import Repaired, ToolRepair
from .vm import GRACE_S

__all__ = ["RunResult", "Runtime", "Strategy", "SerialStrategy", "run_plan", "model_ai_eval", "STRATEGIES"]

log = logging.getLogger(__name__)


class RunResult(BaseModel):
    """What a plan run produced."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    value: Any = None
    calls: list[StepEvent] = Field(default_factory=list)
    trace_path: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    """``total_s`` (wall time of the run), ``setup_s`` (contexts and start pages)."""
    strategy: str = "serial"
    strategy_reason: str | None = None
    """Why the strategy that ran is the one it is (e.g. why a parallel run fell back to serial)."""
    workers: int = 1
    state: dict[str, Any] = Field(default_factory=dict)
    output: list[str] = Field(default_factory=list)
    """What the plan printed."""
    rounds: list[dict[str, Any]] = Field(default_factory=list)
    """For a compiled task (:meth:`agentjit.Session.run_task`): every run of it, the failed ones repaired
    before their first WRITE first, this one last (``round``, ``ok``, ``error``, ``writes_sent``)."""

    @property
    def tool_calls(self) -> list[StepEvent]:
        return [c for c in self.calls if c.action == "tool"]

    @property
    def writes(self) -> list[StepEvent]:
        return [c for c in self.calls if c.effect == "WRITE" and c.ok]

    @property
    def suspects(self) -> list[dict[str, Any]]:
        """The evidence of every tool call that made its tool suspect (issue 21)."""
        return [c.suspect for c in self.calls if c.suspect is not None]

    @property
    def fallbacks(self) -> list[dict[str, Any]]:
        """Every call a fallback answered instead of its suspect tool: tool, ok, model calls, seconds."""
        return [{"tool": c.tool, "ok": c.ok, **c.fallback} for c in self.calls if c.fallback is not None]


def model_ai_eval(model: Model) -> AiEval:
    """An ``ai_eval`` that asks ``model`` the formatted prompt and returns its text."""

    async def ai_eval(prompt: str, /, **values: Any) -> str:
        question = format_prompt(prompt, values)
        response = await model.request(
            [
                Message(role="system", content="Answer the question from the data given. Be brief and exact."),
                Message(role="user", content=question),
            ]
        )
        return response.text.strip()

    return ai_eval


Outcome = tuple[Any, list[StepEvent], int, dict[str, Any]]
"""What a strategy's run gives back: (value, calls, workers used, final abstract state)."""


class Strategy(ABC):
    """How a plan's calls are spread over browser contexts."""

    name: str = "strategy"

    @abstractmethod
    async def execute(self, runtime: Runtime, source: str | Plan, trace: TraceWriter | None) -> Outcome:
        """Run ``source`` (plan text or a parsed Plan); return (value, calls, workers used, final abstract state)."""


class SerialStrategy(Strategy):
    """One context, one page, the plan as written."""

    name = "serial"

    async def execute(self, runtime: Runtime, source: str | Plan, trace: TraceWriter | None) -> Outcome:
        plan = as_plan(source)
        parse_plan(plan, frozenset(runtime.cache.tools))  # a plan the sandbox refuses fails before a context opens
        async with runtime.worker(trace=trace) as run:
            value = await execute_plan(plan, run)
            return value, run.calls, 1, run.state


STRATEGIES: dict[str, type[Strategy]] = {"serial": SerialStrategy}


class Runtime:
    """Runs plans of one app against one site.

    ``pool`` may be shared across runtimes; when omitted, :meth:`run` starts
    and closes a pool of its own. ``limits`` bound every run
    (:class:`~agentjit.plan.PlanLimits`: time, steps, sizes, the sandbox child).

    :meth:`run` applies the sandbox pass and the run-time guard, not the full
    static checker: entry points (:func:`agentjit.api.run`, the CLI, the
    bench) call :func:`agentjit.planner.admit` first, and so should code that
    calls :meth:`run` directly with a plan from a model.
    """

    def __init__(
        self,
        cache: ToolCache,
        base_url: str,
        *,
        pool: BrowserPool | None = None,
        trace_dir: str | Path | None = None,
        model: Model | None = None,
        ai_eval: AiEval | None = None,
        ask_human: AskHuman | None = None,
        tool_timeout_ms: int | None = None,
        snapshots: bool = False,
        limits: PlanLimits | None = None,
        ai_exec: AiExec | None = None,
        analyse: Callable[[str | Plan, ToolCache], Any] | None = None,
        fallback: ToolFallback | None = None,
        record_suspects: bool = False,
        repair: ToolRepair | None = None,
    ) -> None:
        self.cache = cache
        self.fallback = fallback
        """Answers a call of a suspect tool (e.g. :func:`agentjit.agent.agent_tool_fallback`); None: such a call fails."""
        self.repair: ToolRepair | None = None
        """Rebuilds a suspect tool before :attr:`fallback` is asked (:class:`agentjit.runtime.repair.HealInRun`, which
        needs ``record_suspects``: heal reads the suspect's evidence); the healed tool serves this runtime's later runs."""
        if repair is not None:
            if not record_suspects or cache.path is None:
                raise ConfigError("Runtime(repair=...) heals from the suspects it records: give record_suspects=True "
                                  "and a cache loaded from a directory")  # fmt: skip
            self.repair = self._kept(repair)
        self.suspect_store = SuspectStore(cache.path) if record_suspects and cache.path is not None else None
        """With ``record_suspects`` (and a cache loaded from a directory): suspects go to its ``suspects.json``."""
        self.analyse = analyse
        """Reads a plan's usage for the parallel strategy (:func:`agentjit.scheduler.usage.plan_usage`);
        the runtime does not analyse plans itself, so the layer above hands this in."""
        self.ai_exec = ai_exec
        """Runs ``ai_exec`` steps of a plan (e.g. :func:`agentjit.agent.agent_ai_exec`)."""
        self.limits = limits or DEFAULT_LIMITS
        self.base_url = base_url.rstrip("/")
        self.pool = pool
        self.trace_dir = Path(trace_dir) if trace_dir is not None else None
        self.ai_eval = ai_eval or (model_ai_eval(model) if model is not None else None)
        self.ask_human = ask_human
        self.tool_timeout_ms = tool_timeout_ms
        self.snapshots = snapshots
        self.write_gate: WriteGate | None = None

    def _kept(self, repair: ToolRepair) -> ToolRepair:
        """``repair``, whose healed tools also replace the broken ones in :attr:`cache` (in memory; the heal saved
        them on disk): later runs of this runtime call them without failing first."""

        async def kept(page: Any, tool: ToolManifest, suspect: Suspect) -> Repaired | None:
            new = await repair(page, tool, suspect)
            if new is not None and self.cache.tools.get(tool.name) == tool:
                self.cache.add_tool(new.tool)
            return new

        return kept

    @property
    def start_url(self) -> str:
        return site_url(self.base_url, self.cache.info.start_path)

    @asynccontextmanager
    async def worker(self, *, trace: TraceWriter | None = None, worker: int = 0, write_gate: WriteGate | None = None) -> AsyncIterator[PlanRun]:
        """A fresh context and page at the start URL, bound to the cache's tools."""
        if self.pool is None:
            raise ConfigError("Runtime.worker needs a started BrowserPool (Runtime(pool=...))")
        self.pool.allow_site(self.base_url)
        async with self.pool.context() as ctx:
            page = await ctx.new_page()
            await goto_start(page, self.start_url, timeout_ms=start_timeout_ms(self.tool_timeout_ms))
            yield PlanRun(
                self.cache.tools,
                page,
                state=self.cache.info.initial_state,
                trace=trace,
                worker=worker,
                ai_eval=self.ai_eval,
                ask_human=self.ask_human,
                timeout_ms=self.tool_timeout_ms,
                snapshots=self.snapshots,
                write_gate=write_gate or self.write_gate,
                limits=self.limits,
                ai_exec=self.ai_exec,
                fallback=self.fallback,
                suspect_store=self.suspect_store,
                repair=self.repair,
            )

    def _open_trace(self, task: str | None, strategy: str) -> TraceWriter | None:
        if self.trace_dir is None:
            return None
        name = time.strftime("%Y%m%d-%H%M%S") + f"-{uuid.uuid4().hex[:6]}.jsonl"
        session = SessionEvent(
            site=self.cache.app,
            start_url=self.start_url,
            agentjit_version=__version__,
            task=task,
            strategy=strategy,
        )
        return TraceWriter(self.trace_dir / name, session)

    async def run(self, source: str | Plan, *, strategy: str | Strategy = "serial", task: str | None = None) -> RunResult:
        """Run plan ``source`` with ``strategy`` and return its :class:`RunResult`."""
        strat = _strategy(strategy)
        if self.pool is None:
            async with BrowserPool.from_spec() as pool:
                self.pool = pool
                try:
                    return await self.run(source, strategy=strat, task=task)
                finally:
                    self.pool = None
        trace = self._open_trace(task, strat.name)
        t0 = time.perf_counter()
        token = run_deadline.set(time.monotonic() + self.limits.time_s)
        sent_token = run_sent_chars.set([0])
        writes = [0]
        writes_token = run_writes_sent.set(writes)
        fallbacks: list[dict[str, Any]] = []
        fallbacks_token = run_fallbacks.set(fallbacks)
        try:
            try:
                async with asyncio.timeout(self.limits.time_s + 2 * GRACE_S):
                    value, calls, workers, state = await strat.execute(self, source, trace)
            except TimeoutError:
                raise PlanLimitExceeded(
                    f"the plan ran longer than its time limit of {self.limits.time_s:g} s (raise it with --time-limit)",
                    limit="time",
                ) from None
        except Exception as exc:
            exc.writes_sent = writes[0]  # type: ignore[attr-defined]  # whether running again is safe
            exc.fallbacks = fallbacks  # type: ignore[attr-defined]  # the calls fallbacks took over before it failed
            raise
        finally:
            run_deadline.reset(token)
            run_sent_chars.reset(sent_token)
            run_writes_sent.reset(writes_token)
            run_fallbacks.reset(fallbacks_token)
            if trace is not None:
                trace.close()
        total = time.perf_counter() - t0
        return RunResult(
            value=value,
            calls=sorted(calls, key=lambda c: (c.start, c.index)),
            trace_path=str(trace.path) if trace is not None else None,
            timings={"total_s": total},
            strategy=getattr(strat, "used", None) or strat.name,
            strategy_reason=getattr(strat, "reason", None),
            workers=workers,
            state=state,
        )


def _strategy(strategy: str | Strategy) -> Strategy:
    if isinstance(strategy, Strategy):
        return strategy
    try:
        return STRATEGIES[strategy]()
    except KeyError:
        raise ConfigError(f"unknown strategy {strategy!r} (known: {', '.join(sorted(STRATEGIES))})") from None


START_TIMEOUT_MS = 15_000
"""The least time opening a run's start page may take: a tool's time limit bounds how long its checks look
for a state, and a site under load may take longer than that to send its first document."""


def start_timeout_ms(tool_timeout_ms: int | None) -> int:
    """How long a run waits for its start page: the tool time limit, never less than :data:`START_TIMEOUT_MS`."""
    return max(tool_timeout_ms or 0, START_TIMEOUT_MS)


async def goto_start(page: Any, url: str, *, timeout_ms: int | None = None) -> None:
    """Open ``url``; a site that is down or hangs raises :class:`SiteUnreachable`.

    The page's data requests are counted from the document's start
    (:func:`~agentjit.runtime.network.track`), so the first tool call waits for those it sends."""
    await track(page)
    try:
        await page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms or START_TIMEOUT_MS)
    except Exception as exc:
        raise SiteUnreachable(f"cannot open {url}: {str(exc).splitlines()[0]}") from exc


async def run_plan(
    source: str,
    cache: ToolCache,
    *,
    page: Any,
    base_url: str | None = None,
    navigate: bool = True,
    trace: TraceWriter | None = None,
    ai_eval: AiEval | None = None,
    ask_human: AskHuman | None = None,
    timeout_ms: int | None = None,
    state: dict[str, Any] | None = None,
    limits: PlanLimits | None = None,
) -> RunResult:
    """Run a plan serially on an existing ``page`` (no pool): the simplest entry point.

    With ``navigate`` (the default) and a ``base_url``, the page first opens
    the app's start URL and the state starts as the cache's initial state.
    """
    if navigate and base_url is not None:
        await goto_start(page, site_url(base_url, cache.info.start_path), timeout_ms=start_timeout_ms(timeout_ms))
    run = PlanRun(
        cache.tools,
        page,
        state=state if state is not None else cache.info.initial_state,
        trace=trace,
        ai_eval=ai_eval,
        ask_human=ask_human,
        timeout_ms=timeout_ms,
        limits=limits,
    )
    t0 = time.perf_counter()
    value = await execute_plan(source, run)
    return RunResult(
        value=value,
        calls=run.calls,
        trace_path=str(trace.path) if trace is not None else None,
        timings={"total_s": time.perf_counter() - t0},
        state=run.state,
    )
