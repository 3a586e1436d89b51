"""One walk through the layers: a task or a plan, the gate, the scheduler, the runtime.

A :class:`Session` holds what every run on one tool cache shares, each made
once: the tool cache (loaded on first use), the model, the planner and its
plan cache, the scheduler's latency fits and the runtime per site. Its path is

    compile (task -> plan) -> admit (the checker's gate) -> usage -> schedule -> run

and the plan's usage (:func:`agentjit.scheduler.usage.plan_usage`) is read
once and handed down: the scheduler decides on it and the parallel strategy
cuts the plan with it (``ParallelStrategy(usage=...)``). The command line,
:func:`agentjit.api.run`, :mod:`agentjit.sync` and the bench go through it.

The session sits above the planner, the scheduler and the runtime and below
the bench and the entry points; it knows no app profile (a site is a URL, a
cache is a directory or a :class:`ToolCache`). The scheduler (scipy, numpy)
and the browser load on first use, so importing this module stays cheap.

>>> session = Session("path/to/cache", model=model)              # doctest: +SKIP
>>> plan = await session.compile("first three stores")            # doctest: +SKIP
>>> result = await session.run(plan.source, site_url=url)         # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentjit.cache import ToolCache, atomic_write_json
from agentjit.exceptions import ConfigError
from agentjit.llm.base import Model
from agentjit.plan import PlanLimits
from agentjit.plan.parsed import Plan, as_plan
from agentjit.planner.gate import admit
from agentjit.runtime import (
    BrowserPool,
    HedgeStrategy,
    ParallelStrategy,
    RunResult,
    Runtime,
    SerialStrategy,
    Strategy,
)
from agentjit.runtime.repair import HealInRun

if TYPE_CHECKING:
    from agentjit.planner import CheckResult, CompiledPlan, Planner
    from agentjit.protocol.trace import StepEvent, TraceWriter
    from agentjit.scheduler import Distribution, Overheads, PlanUsage, Schedule

__all__ = ["Session", "Prepared", "AutoStrategy", "open_cache", "runtime_strategy", "STRATEGY_NAMES"]

log = logging.getLogger(__name__)

STRATEGY_NAMES = ("serial", "parallel", "hedge", "auto")
"""What ``strategy=`` may name; ``auto`` lets the scheduler pick."""

DEFAULT_WORKERS = {"parallel": 4, "hedge": 2}
"""Workers (parallel) or replicas (hedge) of a strategy named without a count."""

DEFAULT_RUN_REPAIRS = 2
"""How many times a compiled plan that failed when it ran (before any WRITE) goes back to the model."""


def repairable(exc: BaseException) -> bool:
    """Whether ``exc``, raised by a plan's run, is the plan's to fix: a plan error (not a refusal by the gate,
    not the time limit), a tool's bad argument, a failed pre-check or call, an output it could not read.

    Not: a missing model or option, the model, the browser or the site going away.
    """
    from agentjit.exceptions import (
        PlanError,
        PlanLimitExceeded,
        PlanRejected,
        ToolError,
        ToolInputError,
    )

    if isinstance(exc, PlanRejected) or (isinstance(exc, PlanLimitExceeded) and exc.limit == "time"):
        return False
    return isinstance(exc, PlanError | ToolInputError | ToolError)


def run_error_text(exc: BaseException, source: str) -> str:
    """What a plan's run-time failure says to the model: its kind and message (public names only), and the
    plan's line it names, quoted."""
    text = f"{type(exc).__name__}: {exc}"
    line = getattr(exc, "line", None)
    lines = source.splitlines()
    if isinstance(line, int) and 1 <= line <= len(lines):
        text += f"\n  {line:>3} | {lines[line - 1]}"
    return text


def _merged(before: CompiledPlan, after: CompiledPlan) -> CompiledPlan:
    """``after`` with the stats, usage, candidates and time of ``before`` added (one task, several rounds)."""
    stats = after.stats.model_copy(update={
        "sampled": before.stats.sampled + after.stats.sampled,
        "repaired": before.stats.repaired + after.stats.repaired,
        "run_repaired": before.stats.run_repaired + 1,
        "cancelled": before.stats.cancelled + after.stats.cancelled,
        "answered": before.stats.answered + after.stats.answered,
        "rejected_by_code": {k: before.stats.rejected_by_code.get(k, 0) + after.stats.rejected_by_code.get(k, 0)
                             for k in {*before.stats.rejected_by_code, *after.stats.rejected_by_code}},
    })  # fmt: skip
    return after.model_copy(update={
        "stats": stats, "usage": before.usage + after.usage, "candidates": [*before.candidates, *after.candidates],
        "time_s": before.time_s + after.time_s,
    })  # fmt: skip


ModelSource = Model | Callable[[], Model | None] | None
"""A model, or a function that makes it on first use (the CLI's ``--model``), or none."""


def open_cache(
    path: str | Path,
    *,
    read_only: bool = False,
    plans_file: str | Path | None = None,
    latency_file: str | Path | None = None,
    machine_file: str | Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> ToolCache:
    """Load the tool cache in directory ``path``.

    ``read_only`` (a bundled, packaged cache) never writes into the directory:
    compiled plans are kept in ``plans_file`` instead (read here when it
    exists), and ``latency_file`` and ``machine_file`` (fits and browser-context
    overheads ``agentjit profile --write`` stored for this user) replace the
    bundled ones. An unreadable extra file is skipped with a ``warn`` line,
    never an error.
    """
    cache = ToolCache.load(path)
    if not read_only:
        return cache
    say = warn or log.warning
    cache.path = None  # never write into the installed package
    if latency_file is not None and Path(latency_file).exists():
        fits = _read_json_object(Path(latency_file), "latency fits", say)
        if fits is not None:
            log.info("latency fits from %s", latency_file)
            cache.latency = fits
    if machine_file is not None and Path(machine_file).exists():
        machine = _read_json_object(Path(machine_file), "browser-context overheads", say)
        if machine is not None:
            log.info("browser-context overheads from %s", machine_file)
            cache.machine = machine
    if plans_file is not None:
        cache.plans_path = Path(plans_file)
        if cache.plans_path.exists():
            plans = _read_json_object(cache.plans_path, "plan cache", say)
            if plans is not None:
                cache.plans = plans  # each entry is checked again before it runs (Planner.cached)
    return cache


def _read_json_object(path: Path, what: str, warn: Callable[[str], None]) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad JSON or not UTF-8
        warn(f"ignoring unreadable {what} {path}: {exc}")
        return None
    if not isinstance(data, dict):
        warn(f"ignoring {what} {path}: not a JSON object")
        return None
    return data


def runtime_strategy(schedule: Schedule, usage: PlanUsage | None = None) -> str | Strategy:
    """The runtime strategy that carries ``schedule`` out (its strategy with its worker count).

    A parallel choice gets the plan's usage the scheduler read (``schedule.usage``,
    or ``usage``), so the plan is not analysed again.
    """
    if schedule.strategy == "parallel":
        facts = usage if usage is not None else schedule.usage
        if facts is None:
            raise ConfigError("runtime_strategy: a parallel schedule needs the plan's usage (Schedule.usage)")
        return ParallelStrategy(workers=schedule.workers, usage=facts)
    if schedule.strategy == "hedge":
        return HedgeStrategy(replicas=schedule.workers)
    return "serial"


@dataclass
class Prepared:
    """A plan that passed the gate, with the strategy it will run with and what decided it."""

    source: str
    checked: CheckResult
    strategy: str | Strategy
    """What :meth:`Runtime.run` gets: a name (``serial``, ``hedge``) or a strategy object."""
    usage: PlanUsage | None = None
    """The plan's usage, read once (only when a strategy needs it)."""
    schedule: Schedule | None = None
    """The scheduler's decision for ``strategy="auto"``."""
    origin: str | None = None
    decide_s: float = 0.0
    """Seconds spent choosing the strategy (usage and Monte Carlo; the gate not included)."""
    plan: Plan | None = None
    """``source`` parsed once: the tree the gate checked, the scheduler read and the runtime runs."""


class Session:
    """The tool cache, model, planner, scheduler and runtime of one site, each made once.

    ``cache`` is a :class:`ToolCache` or its directory (loaded on first use).
    ``model`` compiles tasks and answers ``ai_eval`` (a :class:`Model`, or a
    function that makes it on first use). ``pool`` is a started browser pool
    to share; without one a run opens ``browser`` (a spec, see
    :meth:`BrowserPool.from_spec`) or the default browser for its duration.
    ``latency`` replaces the cache's fitted latencies, ``observed_lengths``
    feeds the usage analysis, ``seed`` seeds every Monte Carlo decision (so it
    is reproducible), ``scheduler_options`` go to
    :class:`~agentjit.scheduler.Scheduler` and ``planner_options`` to
    :class:`~agentjit.planner.Planner`. ``trace_dir``, ``limits`` and
    ``ai_exec`` go to the :class:`Runtime`.
    """

    def __init__(
        self,
        cache: ToolCache | str | Path,
        *,
        model: ModelSource = None,
        site_url: str | None = None,
        pool: BrowserPool | None = None,
        browser: str | None = None,
        trace_dir: str | Path | None = None,
        limits: PlanLimits | None = None,
        ai_exec: Any = None,
        latency: Mapping[str, Distribution] | None = None,
        observed_lengths: Mapping[str, float] | None = None,
        seed: int = 0,
        scheduler_options: Mapping[str, Any] | None = None,
        planner_options: Mapping[str, Any] | None = None,
        fallback: Any = None,
        record_suspects: bool = False,
        heal_in_run: bool = False,
    ) -> None:
        self.fallback = fallback
        """Finishes a call of a tool the site broke (:func:`agentjit.agent.agent_tool_fallback`); issue 21."""
        self.record_suspects = record_suspects
        """Write broken tools into the cache's ``suspects.json`` for ``toolcache heal``."""
        self.heal_in_run = heal_in_run
        """A tool the site broke is healed in the run that finds it, before any fallback, and the call goes on with it
        (:class:`agentjit.runtime.repair.HealInRun`: ``toolcache heal`` on the cache directory, read-only, no model);
        the suspects are recorded then, whatever :attr:`record_suspects` says. Needs a cache loaded from a directory."""
        self._cache = cache if isinstance(cache, ToolCache) else None
        self._cache_dir = None if isinstance(cache, ToolCache) else Path(cache)
        self._model_source = model
        self._model: Model | None = model if isinstance(model, Model) else None
        self.site_url = site_url
        self.pool = pool
        self.browser = browser
        self.trace_dir = trace_dir
        self.limits = limits
        self.ai_exec = ai_exec
        self._latency = dict(latency) if latency is not None else None
        self._overheads: Overheads | None = None
        self.observed_lengths = observed_lengths
        self.seed = seed
        self.scheduler_options = dict(scheduler_options or {})
        self.planner_options = dict(planner_options or {})
        self._planner: Planner | None = None
        self._runtimes: dict[str, Runtime] = {}
        self._usage: dict[str, PlanUsage] = {}
        self._own_pool = False

    @classmethod
    def of(cls, runtime: Runtime, **options: Any) -> Session:
        """A session over an existing runtime: its cache, site, pool, traces and limits."""
        session = cls(runtime.cache, site_url=runtime.base_url, pool=runtime.pool, trace_dir=runtime.trace_dir,
                      limits=runtime.limits, **options)  # fmt: skip
        session._runtimes[runtime.base_url] = runtime
        return session

    # -- what is made once ---------------------------------------------------------------

    @property
    def cache(self) -> ToolCache:
        """The tool cache, loaded from its directory on first use."""
        if self._cache is None:
            assert self._cache_dir is not None
            self._cache = ToolCache.load(self._cache_dir)
        return self._cache

    @property
    def model(self) -> Model | None:
        """The model, made on first use when the session was given a function for it."""
        if self._model is None and callable(self._model_source) and not isinstance(self._model_source, Model):
            self._model = self._model_source()
        return self._model

    @property
    def planner(self) -> Planner:
        """The planner over the cache with the session's model (needs a model)."""
        if self._planner is None:
            from agentjit.planner import Planner

            model = self.model
            if model is None:
                raise ConfigError("compiling a task needs a model")
            self._planner = Planner(model, self.cache, **self.planner_options)
        return self._planner

    @property
    def latency(self) -> dict[str, Distribution]:
        """The fitted latency distributions the scheduler reads (the cache's, parsed once)."""
        if self._latency is None:
            from agentjit.scheduler import load_latency

            self._latency = load_latency(self.cache)
        return self._latency

    @property
    def overheads(self) -> Overheads:
        """What an extra browser context costs, as measured with the cache (``machine.json``), else the defaults."""
        if self._overheads is None:
            from agentjit.scheduler import load_overheads

            self._overheads = load_overheads(self.cache)
        return self._overheads

    def runtime(self, site_url: str | None = None) -> Runtime:
        """The runtime for ``site_url`` (default: the session's), one per site."""
        url = site_url or self.site_url
        if url is None:
            raise ConfigError("no site to run on: give the session (or the run) a site_url")
        runtime = self._runtimes.get(url)
        if runtime is None:
            options: dict[str, Any] = {"limits": self.limits} if self.limits is not None else {}
            if self.heal_in_run:
                if self.cache.path is None:
                    raise ConfigError("heal_in_run heals the cache in its directory: load the cache from one")
                options["repair"] = HealInRun(self.cache.path, url)
            runtime = Runtime(
                self.cache, url, pool=self.pool, trace_dir=self.trace_dir, model=self.model, ai_exec=self.ai_exec,
                analyse=self.usage, fallback=self.fallback, record_suspects=self.record_suspects or self.heal_in_run,
                **options,
            )  # fmt: skip
            self._runtimes[url] = runtime
        return runtime

    # -- compile, gate, analyse, schedule ------------------------------------------------

    async def compile(self, task: str, *, use_cache: bool = True) -> CompiledPlan:
        """The cheapest valid plan for ``task`` (from the plan cache when it has one).

        A cache opened read-only (:func:`open_cache`) keeps its plans in its
        ``plans_file``, written here after each compile.
        """
        plan = await self.planner.compile(task, use_cache=use_cache)
        if use_cache:
            self._save_plans()
        return plan

    def _save_plans(self) -> None:
        """Write the plans of a cache opened read-only (:func:`open_cache`) to its ``plans_file``."""
        cache = self.cache
        if cache.path is None and cache.plans_path is not None:
            atomic_write_json(cache.plans_path, cache.plans)

    def check(self, source: str | Plan) -> CheckResult:
        """The checker's verdict on ``source`` (never raises for an invalid plan)."""
        from agentjit.planner import check

        return check(source, self.cache)

    def admit(self, source: str | Plan, *, origin: str | None = None) -> CheckResult:
        """The gate: check ``source`` as ``agentjit check`` does; raise PlanRejected if invalid."""
        return admit(source, self.cache, origin=origin)

    def usage(self, source: str | Plan, cache: ToolCache | None = None) -> PlanUsage:
        """The plan's usage (calls, main loop, effects), read once per plan text."""
        if cache is not None and cache is not self.cache:  # a runtime over another cache (not ours)
            from agentjit.scheduler.usage import plan_usage

            return plan_usage(source, cache)
        text = source.source if isinstance(source, Plan) else source
        found = self._usage.get(text)
        if found is None:
            from agentjit.scheduler.usage import plan_usage

            found = self._usage[text] = plan_usage(source, self.cache, observed_lengths=self.observed_lengths)
        return found

    def schedule(self, source: str | Plan, **options: Any) -> Schedule:
        """Price serial, parallel and hedge for ``source`` by Monte Carlo and pick one.

        ``options`` go to :class:`~agentjit.scheduler.Scheduler` over the
        session's ``scheduler_options``; ``rng`` defaults to one seeded with
        the session's ``seed``.
        """
        import numpy as np

        from agentjit.scheduler import Scheduler

        rng = options.pop("rng", None)
        options = {**self.scheduler_options, **options}
        options.setdefault("overheads", self.overheads)
        scheduler = Scheduler(self.latency, **options)
        return scheduler.schedule(self.usage(source), rng if rng is not None else np.random.default_rng(self.seed))

    def strategy(self, name: str | Strategy, source: str | Plan, *, workers: int | None = None) -> tuple[str | Strategy, Schedule | None]:
        """The runtime strategy for ``name`` on ``source``, and the schedule when ``name`` is ``auto``.

        ``parallel`` is handed the plan's usage; ``workers`` sets the worker
        (or replica) count of a named strategy. A strategy object runs as given.
        """
        if isinstance(name, Strategy):
            return name, None
        if name not in STRATEGY_NAMES:
            raise ConfigError(f"unknown strategy {name!r} (known: {', '.join(STRATEGY_NAMES)})")
        if name == "auto":
            schedule = self.schedule(source)
            log.info("scheduler: %s x%d (%s)", schedule.strategy, schedule.workers, schedule.reason)
            return runtime_strategy(schedule), schedule
        if name == "parallel":
            return ParallelStrategy(workers or DEFAULT_WORKERS["parallel"], usage=self.usage(source)), None
        if name == "hedge":
            return (HedgeStrategy(replicas=workers) if workers else "hedge"), None
        return "serial", None

    def prepare(
        self, source: str | Plan, *, strategy: str | Strategy = "auto", origin: str | None = None,
        workers: int | None = None,
    ) -> Prepared:
        """Admit ``source`` (the gate) and resolve ``strategy`` for it; nothing runs yet.

        ``source`` is parsed once (a :class:`~agentjit.plan.parsed.Plan` is not parsed again): the
        gate, the scheduler and the run share the tree.
        """
        plan = as_plan(source)
        checked = self.admit(plan, origin=origin)
        t0 = time.perf_counter()
        chosen, schedule = self.strategy(strategy, plan, workers=workers)
        return Prepared(plan.source, checked, chosen, usage=self._usage.get(plan.source), schedule=schedule,
                        origin=origin, decide_s=time.perf_counter() - t0, plan=plan)  # fmt: skip

    # -- run -----------------------------------------------------------------------------

    async def execute(self, prepared: Prepared, *, site_url: str | None = None, task: str | None = None) -> RunResult:
        """Run a prepared plan on ``site_url`` (default: the session's)."""
        runtime = self.runtime(site_url)
        if self.browser is not None and runtime.pool is None:
            async with BrowserPool.from_spec(self.browser) as pool:
                runtime.pool = pool
                try:
                    return await self._execute(runtime, prepared, task)
                finally:
                    runtime.pool = None
        return await self._execute(runtime, prepared, task)

    @staticmethod
    async def _execute(runtime: Runtime, prepared: Prepared, task: str | None) -> RunResult:
        plan = prepared.plan if prepared.plan is not None else prepared.source
        result = await runtime.run(plan, strategy=prepared.strategy, task=task)
        schedule = prepared.schedule
        if schedule is not None:  # say why the scheduler chose, and why the run differs if it does
            inner = result.strategy_reason
            same = result.strategy == schedule.strategy
            result.strategy_reason = schedule.reason if same or not inner else f"{schedule.reason}; {inner}"
        return result

    async def run(
        self,
        source: str | Plan,
        *,
        strategy: str | Strategy = "auto",
        task: str | None = None,
        origin: str | None = None,
        site_url: str | None = None,
        workers: int | None = None,
    ) -> RunResult:
        """Admit, schedule and run plan ``source``: :meth:`prepare`, then :meth:`execute`."""
        prepared = self.prepare(source, strategy=strategy, origin=origin, workers=workers)
        return await self.execute(prepared, site_url=site_url, task=task)

    async def run_task(self, task: str, *, strategy: str | Strategy = "auto", site_url: str | None = None,
                       use_cache: bool = True, run_repairs: int = DEFAULT_RUN_REPAIRS) -> tuple[CompiledPlan, RunResult]:  # fmt: skip
        """Compile ``task`` (or take it from the plan cache), then admit, schedule and run the plan.

        A plan that fails when it runs before its first WRITE is repaired (see :meth:`run_compiled`).
        """
        plan = await self.compile(task, use_cache=use_cache)
        return await self.run_compiled(task, plan, strategy=strategy, site_url=site_url, use_cache=use_cache,
                                       run_repairs=run_repairs)  # fmt: skip

    async def run_compiled(self, task: str, plan: CompiledPlan, *, strategy: str | Strategy = "auto",
                           site_url: str | None = None, use_cache: bool = True,
                           run_repairs: int = DEFAULT_RUN_REPAIRS) -> tuple[CompiledPlan, RunResult]:  # fmt: skip
        """Run ``plan`` for ``task``; when it fails before its first WRITE, repair it and run the new plan.

        A failure the plan can be blamed for (:func:`repairable`: a plan error, a guard refusal, a tool's bad
        argument, a failed pre-check, an output it could not read) goes back to the model with the run's
        error, at most ``run_repairs`` times; the new plan passes the checker and runs from a fresh browser
        context. After a WRITE was sent, never: the error is raised with a note that says so. The result's
        ``rounds`` (and the raised error's) lists every run; the plan returned is the one that ran last, its
        stats and usage those of every round.
        """
        rounds: list[dict[str, Any]] = []
        for attempt in range(run_repairs + 1):
            origin = (f"plan cache {self.cache.plans_file}" if plan.origin == "cache" else
                      f"plan template of {plan.template_task!r} in {self.cache.plans_file}" if plan.origin == "template"
                      else f"the plan {plan.model} compiled")
            try:
                result = await self.run(plan.plan, strategy=strategy, task=task, origin=origin, site_url=site_url)
            except Exception as exc:
                sent = getattr(exc, "writes_sent", None)
                if not repairable(exc) or sent is None:
                    raise
                error = run_error_text(exc, plan.source)
                rounds.append({"round": attempt, "ok": False, "error": error, "writes_sent": sent, "source": plan.source})
                exc.rounds = rounds  # type: ignore[attr-defined]
                if use_cache and self.model is not None:
                    self.planner.forget(task)  # a plan that failed when it ran is not kept
                    self._save_plans()
                if sent:
                    exc.add_note(f"not repaired: the plan had sent {sent} WRITE call(s) to the site, and running "
                                 "a repaired plan could send them twice")
                    raise
                budget = self.planner.compile_budget_s if self.model is not None else None
                spent = budget is not None and plan.time_s >= budget
                if attempt == run_repairs or self.model is None or spent:
                    why = ("no model to repair it" if self.model is None else
                           f"the compile budget of {budget:g} s is spent" if spent else "no run-time repair left")
                    exc.add_note(f"the plan failed when it ran, {len(rounds)} time(s), before any WRITE; {why}")
                    raise
                log.info("run %d of %r failed before any WRITE, asking for a repair: %s", attempt, task, error)
                repaired = await self.planner.repair_after_run(task, plan.source, error, run_round=attempt + 1,
                                                               use_cache=use_cache)  # fmt: skip
                plan = _merged(plan, repaired)
                if use_cache:
                    self._save_plans()
                continue
            rounds.append({"round": attempt, "ok": True, "error": None, "writes_sent": len(result.writes),
                           "source": plan.source})  # fmt: skip
            result.rounds = rounds
            return plan, result
        raise AssertionError("unreachable: the last round returns or raises")

    # -- a browser for many runs ---------------------------------------------------------

    async def __aenter__(self) -> Session:
        """Start one browser pool (``browser``, else the default) for every run of the session."""
        if self.pool is None:
            self.pool = await BrowserPool.from_spec(self.browser).__aenter__()
            self._own_pool = True
            for runtime in self._runtimes.values():
                runtime.pool = self.pool
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._own_pool and self.pool is not None:
            pool, self.pool, self._own_pool = self.pool, None, False
            for runtime in self._runtimes.values():
                runtime.pool = None
            await pool.__aexit__(None, None, None)


class AutoStrategy(Strategy):
    """A runtime strategy that schedules each plan it is given, then runs the chosen strategy.

    For code that hands :meth:`Runtime.run` a strategy object (a session
    resolves ``"auto"`` before the run instead). The plan is analysed once:
    the usage the scheduler read goes to the chosen strategy. After
    :meth:`execute`, ``schedule`` is the decision, ``used`` the strategy that
    ran (a parallel choice whose loop cannot be cut runs serially) and
    ``reason`` why. ``options`` go to :class:`~agentjit.scheduler.Scheduler`.
    """

    name = "auto"

    def __init__(self, latency: Mapping[str, Distribution] | None = None, *, seed: int = 0, **options: Any) -> None:
        self.latency = latency
        self.seed = seed
        self.options = options
        self.schedule: Schedule | None = None
        self.used: str = self.name
        self.reason: str | None = None

    async def execute(
        self, runtime: Runtime, source: str | Plan, trace: TraceWriter | None
    ) -> tuple[Any, list[StepEvent], int, dict[str, Any]]:
        session = Session(runtime.cache, latency=self.latency, seed=self.seed, scheduler_options=self.options)
        schedule = self.schedule = session.schedule(source)
        chosen = runtime_strategy(schedule)
        inner: Strategy = chosen if isinstance(chosen, Strategy) else SerialStrategy()
        outcome = await inner.execute(runtime, source, trace)
        self.used = getattr(inner, "used", None) or inner.name
        inner_reason = getattr(inner, "reason", None)
        self.reason = schedule.reason if self.used == schedule.strategy else f"{schedule.reason}; {inner_reason}"
        return outcome
