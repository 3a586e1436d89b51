"""Batches past one process: plans compiled once, run on Ray workers that each own a browser.

:func:`run_batch_ray` compiles every task once in the driver (the plan cache and
templates first, as :func:`~agentjit.tasks.runner.run_batch` does), then ships
the plans to ``workers`` Ray actors (:class:`TaskWorker`). Each actor opens its
own browser (local Chromium, or the endpoint ``browsers[i % len(browsers)]``)
and a session on the one shared site, and runs one task at a time; results
stream back as they end. All workers share one effect store (``effects``:
``sqlite:///PATH`` on one machine, ``postgresql://...`` across machines), each
task's writes under ``RUN_ID/TASK_ID``, so a task that fails on one worker (an
exception, or the actor died) is retried on another (at most ``attempts``
runs): its committed writes are replayed, its uncertain ones refused, none sent
twice.

Ray is an optional extra (``pip install 'agentjit[ray]'``): nothing here
imports it until a batch runs on it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache
from agentjit.exceptions import ConfigError
from agentjit.plan import PlanLimits

from .runner import DemoReport, TaskResult, _plan_or_failure, resolve_target, run_task
from .task import Task

__all__ = ["WorkerSpec", "TaskWorker", "run_batch_ray", "import_ray", "init_ray", "worker_name"]

log = logging.getLogger(__name__)


def import_ray() -> Any:
    """The ``ray`` module, or a ConfigError that names the extra (as the model SDKs' do)."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"the 'ray' package is not installed: pip install 'agentjit[ray]' ({exc})") from exc
    return ray


def init_ray(ray: Any, address: str | None = None, num_cpus: int = 2, tries: int = 3) -> None:
    """Join the Ray cluster at ``address`` (``ray://HOST:10001``, ``auto``), or start a local one with
    ``num_cpus`` (``address`` None or ``"local"``). A local node that misses Ray's own 30 s start-up
    deadline (a machine under heavy load) is started again, at most ``tries`` times."""
    kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address not in (None, "local"):
        ray.init(address=address, **kwargs)
        return
    for attempt in range(1, tries + 1):
        try:
            ray.init(num_cpus=num_cpus, include_dashboard=False, **kwargs)
            return
        except Exception as exc:  # Ray raises a bare Exception for it
            if "timed out during startup" not in str(exc) or attempt == tries:
                raise
            log.warning("the local Ray node did not start in time (try %d of %d): starting it again", attempt, tries)
            ray.shutdown()


@dataclass(frozen=True)
class WorkerSpec:
    """What every worker needs to run any task of the batch (plain data: it travels to the workers)."""

    site_url: str
    plans: dict[str, tuple[str, str]]
    """Task id -> (plan source, origin)."""
    app: str | None = None
    task_file: str | None = None
    """The task file the tasks come from (each worker loads it: judges stay importable); else the app's."""
    cache_dir: str | None = None
    """The tool cache's directory (default: the app's bundled cache)."""
    strategy: str = "serial"
    effects: str | None = None
    run_id: str = ""
    browsers: tuple[str | None, ...] = (None,)
    limits: PlanLimits | None = None
    traces: bool = False
    """Trace every run and send the trace back with its result (the driver writes it)."""


@dataclass
class _Job:
    task_id: str
    attempt: int = 1
    tried: set[int] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)


class TaskWorker:
    """One worker: its own browser, a session on the shared site and a connection to the shared
    effect store, opened on its first task and kept until :meth:`close`."""

    def __init__(self, spec: WorkerSpec, index: int) -> None:
        self.spec = spec
        self.index = index
        self._tasks: dict[str, Task] | None = None
        self._stack: Any = None
        self._session: Any = None
        self._site: Any = None
        self._store: Any = None
        self._trace_dir: str | None = None

    def _load_tasks(self) -> dict[str, Task]:
        from .apps import get_app
        from .taskfile import load_tasks

        spec = self.spec
        if spec.task_file is not None:
            tasks = load_tasks(spec.task_file)
        elif spec.app is not None:
            tasks = get_app(spec.app).tasks()
        else:
            raise ConfigError("a worker needs a task file or an app")
        return {t.id: t for t in tasks}

    async def _open(self) -> None:
        import contextlib

        from agentjit.runtime import BrowserPool
        from agentjit.runtime.effectstore import open_store
        from agentjit.session import Session

        from .apps import RemoteSite, get_app

        spec = self.spec
        self._tasks = self._load_tasks()
        if spec.cache_dir is not None:
            cache = ToolCache.load(spec.cache_dir)
        elif spec.app is not None:
            cache = get_app(spec.app).load_cache()
        else:
            raise ConfigError("a worker needs a tool cache directory or an app")
        stack = contextlib.AsyncExitStack()
        try:
            browser = spec.browsers[self.index % len(spec.browsers)] if spec.browsers else None
            pool = await stack.enter_async_context(BrowserPool.from_spec(browser))
            if spec.effects is not None:
                self._store = open_store(spec.effects)
                stack.callback(self._store.close)
            if spec.traces:  # the worker's own scratch: each trace goes back to the driver and is removed
                self._trace_dir = tempfile.mkdtemp(prefix="agentjit-traces-")
                stack.callback(shutil.rmtree, self._trace_dir, True)
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self._site = RemoteSite(spec.site_url)
        self._session = Session(cache, site_url=spec.site_url, pool=pool, limits=spec.limits, trace_dir=self._trace_dir)

    async def run(self, task_id: str) -> dict[str, Any]:
        """Run one task on the shared site (never reset); its result as JSON data, with the
        worker's index, pid, the seconds it ran and (with ``spec.traces``) its trace's name and text."""
        from .effectlog import logged_strategy, task_effects

        t_open = time.perf_counter()
        if self._session is None:
            await self._open()
        open_s = time.perf_counter() - t_open
        assert self._tasks is not None
        task = self._tasks.get(task_id)
        if task is None:
            raise ConfigError(f"worker {self.index}: no task {task_id!r} in its task list")
        source, origin = self.spec.plans[task_id]
        t0 = time.perf_counter()
        strategy: Any = self.spec.strategy
        if self._store is not None:
            effects = task_effects(self._store, self.spec.run_id, task_id)
            strategy = logged_strategy(self._session, source, strategy, effects)
        res = await run_task(task, source, session=self._session, site=self._site, strategy=strategy,
                             plan_origin=origin, reset=False)  # fmt: skip
        trace = _take_trace(Path(res.trace_path)) if res.trace_path is not None else None
        return {"result": res.model_dump(mode="json"), "worker": self.index, "pid": os.getpid(),
                "run_s": time.perf_counter() - t0, "open_s": open_s, "trace": trace}  # fmt: skip

    async def close(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None


def worker_name(batch: str, index: int) -> str:
    """The Ray actor name of a batch's worker ``index`` (``ray.get_actor`` finds it)."""
    return f"{batch}-worker-{index}"


def _absolute(path: str | Path | None) -> str | None:
    """``path`` made absolute (workers may start in another directory)."""
    return os.path.abspath(path) if path is not None else None


def _actor_class(ray: Any) -> Any:
    """The Ray actor around :class:`TaskWorker` (an async actor: one event loop per worker)."""

    class RayTaskWorker:
        def __init__(self, spec: WorkerSpec, index: int) -> None:
            self.worker = TaskWorker(spec, index)

        async def run(self, task_id: str) -> dict[str, Any]:
            return await self.worker.run(task_id)

        async def close(self) -> None:
            await self.worker.close()

    return ray.remote(RayTaskWorker)


async def run_batch_ray(
    tasks: list[Task],
    *,
    app_name: str | None,
    task_file: str | Path | None = None,
    cache: ToolCache | None = None,
    cache_dir: str | Path | None = None,
    workers: int = 2,
    address: str | None = None,
    site_url: str | None = None,
    browsers: Sequence[str | None] = (None,),
    latency_scale: float = 1.0,
    strategy: str = "serial",
    effects: str | None = None,
    run_id: str = "",
    attempts: int = 3,
    on_result: Callable[[TaskResult], None] | None = None,
    limits: PlanLimits | None = None,
    plan_for: Callable[[Task, ToolCache], Any] | None = None,
    cpus_per_worker: float = 1.0,
    trace_dir: str | Path | None = None,
) -> DemoReport:
    """Run ``tasks`` on ``workers`` Ray actors sharing one site and one effect store; judge each.

    ``address``: a running Ray cluster (``ray://HOST:10001``, ``auto``); ``None`` or ``"local"``
    starts a local one for the batch (and stops it after). ``site_url``: the site every worker
    uses (default: the app's site, started here for the batch with ``latency_scale``; on a cluster
    give a URL the workers reach). ``task_file``: where each worker loads the tasks from (default:
    the app's tasks). ``effects``: the shared effect store (a JSONL path or ``sqlite:///`` only for
    workers on this machine). Results stream to ``on_result`` as they end. The summary has the
    throughput per worker and ``engine_overhead_s``: the mean seconds a task spent in Ray beyond
    its run on the worker (shipping, scheduling, the result's way back), each worker's first task
    apart in ``first_task_overhead_s`` (it also waits for the actor's process to start; the
    browser's launch is not counted). ``trace_dir``: each run's trace comes back with its result and
    is written there before ``on_result`` sees it (``trace_path`` names it), as a batch in one
    process writes its traces.
    """
    ray = import_ray()
    if workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    if attempts < 1:
        raise ConfigError(f"attempts must be at least 1, got {attempts}")
    target = resolve_target(app_name, cache=cache, tasks=tasks, need_tasks=False)
    t_plans = time.perf_counter()
    made = {task.id: await _plan_or_failure(task, target.cache, plan_for) for task in tasks}
    compile_s = time.perf_counter() - t_plans
    results: list[TaskResult] = [res for res in made.values() if isinstance(res, TaskResult)]
    plans = {tid: plan for tid, plan in made.items() if not isinstance(plan, TaskResult)}
    for res in results:
        if on_result is not None:
            on_result(res)
    site = None
    if site_url is None:
        site = resolve_target(app_name, cache=target.cache, tasks=tasks, latency_scale=latency_scale,
                              need_tasks=False).site  # fmt: skip
        site.start()
        site_url = site.url
    if cache_dir is None and cache is not None and app_name is None:
        cache_dir = cache.path
    spec = WorkerSpec(
        site_url=site_url, plans=plans, app=app_name, task_file=_absolute(task_file),
        cache_dir=str(cache_dir) if cache_dir else None, strategy=strategy, effects=effects, run_id=run_id,
        browsers=tuple(browsers) or (None,), limits=limits, traces=trace_dir is not None,
    )  # fmt: skip
    started_ray = False
    batch = ""
    per_worker: dict[int, dict[str, Any]] = {i: {"worker": i, "tasks": 0, "run_s": 0.0, "pid": None, "died": False,
                                                 "traces": 0} for i in range(workers)}  # fmt: skip
    overheads: list[float] = []
    startups: list[float] = []
    retried = 0
    t0 = time.perf_counter()
    try:
        if not ray.is_initialized():
            init_ray(ray, address, num_cpus=max(2, int(workers * cpus_per_worker + 0.999)))
            started_ray = True
        actor = _actor_class(ray)
        batch = f"agentjit-batch-{os.getpid()}-{int(time.time() * 1000)}"
        actors = {i: actor.options(num_cpus=cpus_per_worker, max_restarts=0, name=worker_name(batch, i)).remote(spec, i)
                  for i in range(workers)}  # fmt: skip
        t0 = time.perf_counter()
        queue: deque[_Job] = deque(_Job(t.id) for t in tasks if t.id in plans)
        running: dict[asyncio.Future[Any], tuple[int, _Job, float]] = {}
        by_id = {t.id: t for t in tasks}

        def fail(job: _Job, why: str) -> None:
            task = by_id[job.task_id]
            res = TaskResult(id=task.id, task=task.task, kind=task.kind, ok=False, plan_origin=plans[task.id][1],
                             reason=f"failed on every worker tried ({job.attempt} attempt(s)): {why}",
                             error="; ".join(job.errors))  # fmt: skip
            results.append(res)
            if on_result is not None:
                on_result(res)

        def dispatch() -> None:
            busy = {i for i, _, _ in running.values()}
            for i in sorted(set(actors) - busy):
                if not queue:
                    return
                # a task that failed on this worker goes to another when it can; else here again
                job = next((j for j in queue if i not in j.tried), None) or queue[0]
                queue.remove(job)
                job.tried.add(i)
                ref = actors[i].run.remote(job.task_id)
                running[asyncio.wrap_future(ref.future())] = (i, job, time.perf_counter())
                busy.add(i)

        dispatch()
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for fut in done:
                i, job, sent = running.pop(fut)
                try:
                    got = fut.result()
                except ray.exceptions.RayActorError as exc:  # the worker died (its browser with it)
                    log.warning("worker %d died running %s: %s", i, job.task_id, exc)
                    per_worker[i]["died"] = True
                    actors.pop(i, None)
                    job.errors.append(f"worker {i} died")
                except Exception as exc:  # noqa: BLE001 - the task raised on the worker: retry elsewhere
                    log.warning("task %s failed on worker %d: %s", job.task_id, i, exc)
                    job.errors.append(f"worker {i}: {type(exc).__name__}: {str(exc)[:300]}")
                else:
                    res = TaskResult.model_validate(got["result"])
                    stats = per_worker[i]
                    if trace_dir is not None and got.get("trace"):
                        res.trace_path = str(_write_trace(Path(trace_dir), got["trace"]["name"], got["trace"]["text"]))
                        stats["traces"] += 1
                    stats["tasks"] += 1
                    stats["run_s"] += got["run_s"]
                    stats["pid"] = got["pid"]
                    spent = max(0.0, time.perf_counter() - sent - got["run_s"] - got["open_s"])
                    (overheads if stats["tasks"] > 1 else startups).append(spent)
                    results.append(res)
                    if on_result is not None:
                        on_result(res)
                    continue
                if job.attempt >= attempts or not actors:
                    fail(job, job.errors[-1] if actors else "no worker left")
                else:
                    retried += 1
                    job.attempt += 1
                    queue.appendleft(job)
            if not actors:
                while queue:
                    fail(queue.popleft(), "no worker left")
            dispatch()
        wall = time.perf_counter() - t0
        closing = [a.close.remote() for a in actors.values()]
        try:
            await asyncio.wait_for(asyncio.gather(*(asyncio.wrap_future(r.future()) for r in closing)), 60)
        except Exception as exc:  # noqa: BLE001 - a worker that cannot close its browser is killed below
            log.warning("closing the workers: %s", exc)
        for a in actors.values():
            ray.kill(a)
    finally:
        if started_ray:
            ray.shutdown()
        if site is not None:
            site.stop()
    order = {t.id: n for n, t in enumerate(tasks)}
    results.sort(key=lambda r: order.get(r.id, 0))
    rows = []
    for stats in per_worker.values():
        rows.append({**stats, "run_s": round(stats["run_s"], 3),
                     "tasks_per_min": round(stats["tasks"] / wall * 60, 2) if wall > 0 else None})  # fmt: skip
    summary = {
        "passed": sum(r.ok for r in results),
        "total": len(results),
        "engine": "ray",
        "batch": batch,
        "address": address or "local",
        "workers": workers,
        "per_worker": rows,
        "retried": retried,
        "wall_s": round(wall, 3),
        "tasks_per_s": round(len(results) / wall, 3) if wall > 0 else None,
        "tasks_per_min": round(len(results) / wall * 60, 2) if wall > 0 else None,
        "engine_overhead_s": round(sum(overheads) / len(overheads), 4) if overheads else None,
        "first_task_overhead_s": round(sum(startups) / len(startups), 4) if startups else None,
        "latency_scale": latency_scale if site is not None else None,
        "site": site_url,
        "compile_s": round(compile_s, 3),
        "effects": effects,
        "run_id": run_id if effects else None,
        "trace_dir": str(trace_dir) if trace_dir is not None else None,
        "traces": sum(row["traces"] for row in rows),
    }
    return DemoReport(tasks=results, summary=summary)


def _take_trace(path: Path) -> dict[str, str]:
    """A trace file's name and text, the file removed (it travels to the driver)."""
    text = path.read_text(encoding="utf-8")
    path.unlink()
    return {"name": path.name, "text": text}


def _write_trace(trace_dir: Path, name: str, text: str) -> Path:
    """Write a trace a worker sent back (atomically: a reader never sees half of it); its path."""
    if Path(name).name != name or not name.endswith(".jsonl"):
        raise ConfigError(f"a worker sent a trace with a bad name {name!r}")
    trace_dir.mkdir(parents=True, exist_ok=True)
    path = trace_dir / name
    tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path
