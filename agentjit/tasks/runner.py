"""Running tasks: a plan per task, judged by the site's own state.

:func:`run_task` first passes the plan through the checker's gate
(:func:`agentjit.planner.admit`: a plan it rejects fails its task with
:class:`~agentjit.exceptions.PlanRejected` and never runs), then resets the
site, records its state before and after the run, and hands both (with the run
and the site URL) to the task's judges.
:func:`run_tasks` does that for a task list on a site URL with a tool cache, in
one browser, with a progress callback for the CLI; :func:`run_demo` resolves a
named profile (``food``) or ``site_url`` + ``cache`` + ``tasks`` into that call.
A site given by URL is not started, reset or snapshotted (:class:`RemoteSite`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agentjit.cache import ToolCache
from agentjit.exceptions import AgentJITError, ConfigError
from agentjit.plan import PlanLimits
from agentjit.protocol.schema import to_plain
from agentjit.runtime import BrowserPool, Runtime
from agentjit.session import DEFAULT_RUN_REPAIRS, Session, repairable, run_error_text

from .apps import RemoteSite, Site, get_app
from .task import Task, select_tasks

__all__ = [
    "TaskResult", "DemoReport", "Target", "resolve_target", "run_task", "run_tasks", "run_demo", "jsonable",
    "reference_source", "run_batch",
]  # fmt: skip

log = logging.getLogger(__name__)

class TaskResult(BaseModel):
    id: str
    task: str
    kind: str
    ok: bool
    reason: str = ""
    answer: Any = None
    latency_s: float = 0.0
    tool_calls: int = 0
    writes: int = 0
    strategy: str = "serial"
    workers: int = 1
    plan_origin: str = "reference"
    trace_path: str | None = None
    error: str | None = None
    run_rounds: list[dict[str, Any]] = Field(default_factory=list)
    """With run-time repair: every run that failed before any WRITE (its error) and went back to the model."""
    fallbacks: list[dict[str, Any]] = Field(default_factory=list)
    """Every call a fallback finished instead of a tool the site broke (tool, ok, model calls, seconds; issue 21)."""


class DemoReport(BaseModel):
    tasks: list[TaskResult]
    summary: dict[str, Any] = Field(default_factory=dict)


def jsonable(value: Any) -> Any:
    """A plan's value as plain JSON data (pydantic tool results become dicts).

    Never raises: an int too long for ``str`` (Python's 4300-digit limit) becomes
    ``"<int with about N digits>"``, and a value nested too deeply to convert
    becomes a string saying so.
    """
    try:
        return _printable_ints(to_plain(value, stringify=True))
    except RecursionError:
        return "<a value nested too deeply to print>"
    except ValueError as exc:  # a dict key that is a huge int
        return f"<an unprintable value: {exc}>"


def _printable_ints(value: Any) -> Any:
    if isinstance(value, list):
        return [_printable_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: _printable_ints(v) for k, v in value.items()}
    if type(value) is int and value.bit_length() > 14_000:  # about 4200 digits: str() may refuse
        try:
            str(value)
        except ValueError:
            return f"<int with about {int(value.bit_length() * 0.30103) + 1} digits>"
    return value


def reference_source(task: Task) -> str:
    """The text of a task's reference plan."""
    return task.plan_source()


async def run_task(
    task: Task,
    source: str,
    *,
    session: Session | None = None,
    runtime: Runtime | None = None,
    site: Site,
    strategy: Any = "serial",
    plan_origin: str = "reference",
    draws: str = "",
    repair: Callable[[Task, str, str, int], Any] | None = None,
    run_repairs: int = DEFAULT_RUN_REPAIRS,
    reset: bool = True,
) -> TaskResult:
    """Check ``source`` (the gate), run it for ``task`` from a freshly reset site and judge the outcome.

    The walk is ``session``'s (or a session over ``runtime``): the gate, the
    plan's usage and, for ``strategy="auto"``, the schedule, then the run.

    The site's injected latencies come from the stream named after the task
    and ``draws``: runs of one task with the same ``draws`` meet the same
    delays whatever their strategy (common random numbers), so one demo run
    compares strategies on equal luck; give each repeat of a measurement its
    own ``draws`` for independent samples.

    ``repair(task, source, error, round)``, when given, is awaited with a plan that failed when it ran
    before any WRITE (a failure the plan can be blamed for) and returns a new plan's source, which runs
    from a freshly reset site, at most ``run_repairs`` times (as :meth:`Session.run_compiled` does).

    ``reset=False`` leaves the site as it is (a site other runs share at the same time).
    """
    if session is None:
        if runtime is None:
            raise ConfigError("run_task needs a session (or a runtime)")
        session = Session.of(runtime)
    t0 = time.perf_counter()
    base: dict[str, Any] = {"id": task.id, "task": task.task, "kind": task.kind, "plan_origin": plan_origin}
    try:
        prepared = session.prepare(source, strategy=strategy, origin=_origin(task, plan_origin, session.cache))
    except AgentJITError as exc:
        return TaskResult(**base, ok=False, reason=f"{type(exc).__name__}: {exc}", error=str(exc), latency_s=time.perf_counter() - t0)
    rounds: list[dict[str, Any]] = []
    for attempt in range(run_repairs + 1):
        if reset:
            site.reset(draws=f"{task.id}/{draws}" if draws else task.id)
        before = site.state()
        t0 = time.perf_counter()
        try:
            result = await session.execute(prepared, task=task.task)
            break
        except (AgentJITError, ExceptionGroup) as exc:  # ExceptionGroup: every hedged replica failed
            failed = TaskResult(**base, ok=False, reason=f"{type(exc).__name__}: {exc}", error=str(exc),
                                latency_s=time.perf_counter() - t0, run_rounds=rounds,
                                fallbacks=list(getattr(exc, "fallbacks", None) or []))  # fmt: skip
            sent = getattr(exc, "writes_sent", None)
            if repair is None or attempt == run_repairs or sent != 0 or not repairable(exc):
                return failed
            error = run_error_text(exc, source)
            rounds.append({"round": attempt, "error": error, "source": source})
            try:  # the model sees the error; its answer passes the checker and runs from a fresh site
                source = await repair(task, source, error, attempt + 1)
                prepared = session.prepare(source, strategy=strategy, origin=_origin(task, plan_origin, session.cache))
            except AgentJITError as again:
                failed.reason += f" (run-time repair {attempt + 1} failed: {type(again).__name__}: {again})"
                return failed
    latency = result.timings.get("total_s", time.perf_counter() - t0) + prepared.decide_s  # auto's decision counts
    after = site.state()
    verdict = task.evaluate(result, before, after, session.runtime().base_url)
    return TaskResult(
        **base,
        ok=verdict.ok,
        reason=verdict.reason,
        answer=jsonable(result.value),
        latency_s=latency,
        tool_calls=len(result.tool_calls),
        writes=len(result.writes),
        strategy=result.strategy,
        workers=result.workers,
        trace_path=result.trace_path,
        run_rounds=rounds,
        fallbacks=list(getattr(result, "fallbacks", [])),
    )


def _origin(task: Task, plan_origin: str, cache: ToolCache) -> str:
    """Where a task's plan came from, for the gate's message: its file, or the plan cache file."""
    if plan_origin == "reference" and task.reference_plan is not None and task.plan_text is None:
        return str(task.reference_plan)
    if plan_origin == "cache":
        return f"plan cache {cache.plans_file or ''}".rstrip()
    if plan_origin == "template":
        return f"plan template in {cache.plans_file or 'the plan cache'}"
    return f"{plan_origin} plan of task {task.id}"


@dataclass
class Target:
    """What a run needs: a tool cache, a site (not yet started) and the tasks."""

    cache: ToolCache
    site: Site
    tasks: list[Task]


def resolve_target(
    app_name: str | None,
    *,
    site_url: str | None = None,
    cache: ToolCache | None = None,
    tasks: list[Task] | None = None,
    task_ids: Sequence[str] | None = None,
    latency_scale: float = 1.0,
    seed: int = 0,
    need_tasks: bool = True,
) -> Target:
    """Fill in from the profile ``app_name`` whatever is not given.

    ``site_url`` becomes a :class:`RemoteSite` (nothing started); without it the
    profile's site is made (start it yourself). ``task_ids`` selects tasks:
    unknown ids and an empty selection are errors.
    """
    app = get_app(app_name) if app_name else None
    if cache is None:
        if app is None:
            raise ConfigError("no tool cache: give a cache directory or an app")
        cache = app.load_cache()
    if tasks is None and need_tasks:
        if app is None:
            raise ConfigError("no tasks: give a task file or an app")
        tasks = app.tasks()
    selected = select_tasks(tasks, task_ids) if need_tasks and tasks is not None else list(tasks or [])
    if site_url is not None:
        paths = {"state_path": app.state_path, "reset_path": app.reset_path} if app is not None else {}
        site: Site = RemoteSite(site_url, **paths)
    elif app is not None:
        site = app.site(latency_scale=latency_scale, seed=seed)
    else:
        raise ConfigError("no site: give a site URL or an app whose site can be started")
    return Target(cache, site, selected)


async def run_demo(
    app_name: str | None = "food",
    *,
    site_url: str | None = None,
    cache: ToolCache | None = None,
    tasks: list[Task] | None = None,
    latency_scale: float = 1.0,
    strategy: Any = "serial",
    trace_dir: str | Path | None = None,
    task_ids: list[str] | None = None,
    plan_for: Callable[[Task, ToolCache], Any] | None = None,
    on_result: Callable[[TaskResult], None] | None = None,
    seed: int = 0,
    pool: BrowserPool | None = None,
    limits: PlanLimits | None = None,
    repair: Callable[[Task, str, str, int], Any] | None = None,
) -> DemoReport:
    """Run tasks and judge each: a profile's, or ``tasks`` on ``site_url`` with ``cache``.

    ``app_name`` fills in whatever is not given: its cache, its tasks and its
    site (started for the run, with ``latency_scale``). With ``site_url`` nothing
    is started. ``task_ids`` selects tasks (unknown ids and an empty selection
    are errors). See :func:`run_tasks` for ``plan_for``.
    """
    target = resolve_target(
        app_name, site_url=site_url, cache=cache, tasks=tasks, task_ids=task_ids,
        latency_scale=latency_scale, seed=seed,
    )  # fmt: skip
    site = target.site
    site.start()
    try:
        return await run_tasks(
            target.tasks, cache=target.cache, site=site, strategy=strategy, trace_dir=trace_dir,
            plan_for=plan_for, on_result=on_result, pool=pool, limits=limits, repair=repair,
        )  # fmt: skip
    finally:
        site.stop()


async def run_tasks(
    tasks: list[Task],
    *,
    cache: ToolCache,
    site: Site | str,
    strategy: Any = "serial",
    trace_dir: str | Path | None = None,
    plan_for: Callable[[Task, ToolCache], Any] | None = None,
    on_result: Callable[[TaskResult], None] | None = None,
    pool: BrowserPool | None = None,
    limits: PlanLimits | None = None,
    repair: Callable[[Task, str, str, int], Any] | None = None,
) -> DemoReport:
    """Run every task's plan on ``site`` (a running :class:`Site` or a base URL) in one
    headless Chromium with ``cache``'s tools, and judge each.

    ``plan_for(task, cache)`` may return ``(source, origin)`` or an awaitable
    of it (a compiled plan); by default each task's reference plan runs. Every
    plan passes the checker's gate first (see :func:`run_task`). ``limits``
    bounds each run (default: the runtime's, :data:`agentjit.plan.DEFAULT_LIMITS`). ``repair``: see
    :func:`run_task` (a compiled plan that fails when it runs goes back to the model).
    """
    if isinstance(site, str):
        site = RemoteSite(site)
    results: list[TaskResult] = []
    t0 = time.perf_counter()
    async with _pool(pool) as active:
        session = Session(cache, site_url=site.url, pool=active, trace_dir=trace_dir, limits=limits)
        for task in tasks:
            plan = await _plan_or_failure(task, cache, plan_for)
            if isinstance(plan, TaskResult):  # it did not compile: this task's failure, the others go on
                res = plan
            else:
                source, origin = plan
                res = await run_task(task, source, session=session, site=site, strategy=strategy, plan_origin=origin,
                                     repair=repair if origin != "reference" else None)  # fmt: skip
            results.append(res)
            if on_result is not None:
                on_result(res)
        browser = active.version
    summary = {
        "passed": sum(r.ok for r in results),
        "total": len(results),
        "browser": browser,
        "wall_s": round(time.perf_counter() - t0, 3),
        "latency_scale": site.latency_scale,
        "site": site.url,
    }
    return DemoReport(tasks=results, summary=summary)


async def _plan_of(task: Task, cache: ToolCache, plan_for: Callable[[Task, ToolCache], Any] | None) -> tuple[str, str]:
    """``(source, origin)`` of the plan to run for ``task``: ``plan_for``'s (maybe awaited), else the reference plan."""
    if plan_for is None:
        return reference_source(task), "reference"
    plan = plan_for(task, cache)
    if hasattr(plan, "__await__"):
        plan = await plan
    source, origin = plan
    return source, origin


async def _plan_or_failure(task: Task, cache: ToolCache, plan_for: Callable[[Task, ToolCache], Any] | None,
                           ) -> tuple[str, str] | TaskResult:  # fmt: skip
    """:func:`_plan_of`, or the task's failed result when its plan could not be made (no valid plan, the
    model failed). A configuration error (no model, a bad option) fails every task alike: it is raised."""
    t0 = time.perf_counter()
    try:
        return await _plan_of(task, cache, plan_for)
    except ConfigError:
        raise
    except AgentJITError as exc:
        log.warning("task %s did not compile: %s", task.id, exc)
        return TaskResult(id=task.id, task=task.task, kind=task.kind, ok=False, plan_origin="none",
                          reason=f"did not compile: {type(exc).__name__}: {exc}", error=str(exc),
                          latency_s=time.perf_counter() - t0)  # fmt: skip


@asynccontextmanager
async def _pool(given: BrowserPool | None) -> AsyncIterator[BrowserPool]:
    """The given pool, or a new one closed on exit."""
    if given is not None:
        yield given
        return
    async with BrowserPool.from_spec() as own:
        yield own


async def run_batch(
    tasks: list[Task],
    *,
    app_name: str | None,
    browsers: Sequence[str | None],
    cache: ToolCache | None = None,
    latency_scale: float = 1.0,
    strategy: Any = "serial",
    per_browser: int = 1,
    on_result: Callable[[TaskResult], None] | None = None,
    limits: PlanLimits | None = None,
    plan_for: Callable[[Task, ToolCache], Any] | None = None,
    site_url: str | None = None,
    effects: str | Path | None = None,
    run_id: str = "",
    trace_dir: str | Path | None = None,
) -> DemoReport:
    """Spread ``tasks``' plans over several browsers (specs for
    :meth:`BrowserPool.from_spec`; ``None`` is the default browser) and judge each.

    Every browser gets ``per_browser`` workers, and each worker its own copy of
    the app's site (judging reads the site's state before and after a run, so
    two runs never share one). Workers take the next task from one queue.
    ``plan_for`` as in :func:`run_tasks` (default: the reference plans); every
    plan is made before any browser opens, so the wall time and throughput are
    the runs' alone (``compile_s`` in the summary is the time spent making them).

    ``site_url``: every worker runs on that one site (shared with whoever else uses it: never
    reset). ``effects``: a shared effect log (``sqlite:///PATH``, ``postgresql://...``, or a JSONL
    file's path); each task's writes are claimed under ``RUN_ID/TASK_ID`` (``run_id``), so every
    batch that runs the same tasks of the same run on the same site sends each write once.
    ``trace_dir``: each run's JSONL trace goes there (``trace_path`` of its result).
    """
    if not browsers:
        raise ConfigError("run_batch needs at least one browser")
    from agentjit.runtime.effectstore import open_store

    from .effectlog import logged_strategy, task_effects

    store = open_store(effects) if effects is not None else None
    cache = resolve_target(app_name, cache=cache, tasks=tasks, need_tasks=False).cache
    t_plans = time.perf_counter()
    made = {task.id: await _plan_or_failure(task, cache, plan_for) for task in tasks}
    compile_s = time.perf_counter() - t_plans
    results: list[TaskResult] = [res for res in made.values() if isinstance(res, TaskResult)]  # did not compile
    plans = {tid: plan for tid, plan in made.items() if not isinstance(plan, TaskResult)}
    if on_result is not None:
        for res in results:
            on_result(res)
    queue: asyncio.Queue[Task] = asyncio.Queue()
    for task in tasks:
        if task.id in plans:
            queue.put_nowait(task)
    per_endpoint: dict[str, int] = {}
    versions: set[str] = set()

    async def worker(pool: BrowserPool, label: str) -> None:
        target = resolve_target(app_name, site_url=site_url, cache=cache, tasks=tasks, latency_scale=latency_scale)
        site = target.site
        site.start()
        try:
            session = Session(target.cache, site_url=site.url, pool=pool, limits=limits, trace_dir=trace_dir)
            while True:
                try:
                    task = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                source, origin = plans[task.id]
                how = strategy
                if store is not None:
                    how = logged_strategy(session, source, strategy, task_effects(store, run_id, task.id))
                res = await run_task(task, source, session=session, site=site, strategy=how, plan_origin=origin,
                                     reset=site_url is None)  # fmt: skip
                results.append(res)
                per_endpoint[label] = per_endpoint.get(label, 0) + 1
                if on_result is not None:
                    on_result(res)
        finally:
            site.stop()

    t0 = time.perf_counter()
    async with contextlib.AsyncExitStack() as stack:
        if store is not None:
            stack.callback(store.close)
        pools = [(await stack.enter_async_context(BrowserPool.from_spec(spec)), spec or "local") for spec in browsers]
        versions.update(pool.version for pool, _ in pools)
        async with asyncio.TaskGroup() as group:
            for pool, label in pools:
                for _ in range(per_browser):
                    group.create_task(worker(pool, label))
    wall = time.perf_counter() - t0
    order = {t.id: i for i, t in enumerate(tasks)}
    results.sort(key=lambda r: order.get(r.id, 0))
    summary = {
        "passed": sum(r.ok for r in results),
        "total": len(results),
        "browser": ", ".join(sorted(versions)),
        "browsers": len(browsers),
        "workers": len(browsers) * per_browser,
        "per_browser": per_endpoint,
        "wall_s": round(wall, 3),
        "tasks_per_s": round(len(results) / wall, 3) if wall > 0 else None,
        "latency_scale": latency_scale,
        "compile_s": round(compile_s, 3),
        "effects": store.url if store is not None else None,
        "run_id": run_id if store is not None else None,
        "trace_dir": str(trace_dir) if trace_dir is not None else None,
    }
    return DemoReport(tasks=results, summary=summary)
