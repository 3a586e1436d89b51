"""Running bench tasks: a plan per task, judged by the site's own state.

:func:`run_task` resets the site, records ``/__state`` before and after the
run, and hands both to the task's judge. :func:`run_demo` does that for every
task of an app in one browser, with a progress callback for the CLI.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agentjit.cache import ToolCache
from agentjit.exceptions import AgentJITError
from agentjit.protocol.schema import to_plain
from agentjit.runtime import BrowserPool, Runtime

from .apps import Site, get_app
from .tasks import Task

__all__ = ["TaskResult", "DemoReport", "run_task", "run_demo", "jsonable", "reference_source"]

log = logging.getLogger(__name__)

PlanSource = Callable[[Task], "Any"]


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


class DemoReport(BaseModel):
    tasks: list[TaskResult]
    summary: dict[str, Any] = Field(default_factory=dict)


def jsonable(value: Any) -> Any:
    """A plan's value as plain JSON data (pydantic tool results become dicts)."""
    return to_plain(value, stringify=True)


def reference_source(task: Task) -> str:
    """The text of a task's reference plan."""
    return Path(task.reference_plan).read_text(encoding="utf-8")


async def run_task(
    task: Task,
    source: str,
    *,
    runtime: Runtime,
    site: Site,
    strategy: Any = "serial",
    plan_origin: str = "reference",
) -> TaskResult:
    """Run ``source`` for ``task`` from a freshly reset site and judge the outcome."""
    site.reset()
    before = site.state()
    t0 = time.perf_counter()
    base: dict[str, Any] = {"id": task.id, "task": task.task, "kind": task.kind, "plan_origin": plan_origin}
    try:
        result = await runtime.run(source, strategy=strategy, task=task.task)
    except (AgentJITError, ExceptionGroup) as exc:  # ExceptionGroup: every hedged replica failed
        return TaskResult(**base, ok=False, reason=f"{type(exc).__name__}: {exc}", error=str(exc), latency_s=time.perf_counter() - t0)
    latency = result.timings.get("total_s", time.perf_counter() - t0)
    after = site.state()
    verdict = task.judge(result.value, before, after)
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
    )


async def run_demo(
    app_name: str = "food",
    *,
    latency_scale: float = 1.0,
    strategy: Any = "serial",
    trace_dir: str | Path | None = None,
    task_ids: list[str] | None = None,
    plan_for: Callable[[Task, ToolCache], Any] | None = None,
    on_result: Callable[[TaskResult], None] | None = None,
    seed: int = 0,
) -> DemoReport:
    """Start the app's site, run every task's plan in one headless Chromium, judge each.

    ``plan_for(task, cache)`` may return ``(source, origin)`` or an awaitable
    of it (a compiled plan); by default each task's reference plan runs.
    """
    app = get_app(app_name)
    cache = app.load_cache()
    tasks = app.tasks()
    if task_ids:
        tasks = [t for t in tasks if t.id in set(task_ids)]
    site = app.site(latency_scale=latency_scale, seed=seed)
    site.start()
    results: list[TaskResult] = []
    t0 = time.perf_counter()
    try:
        async with BrowserPool() as pool:
            runtime = Runtime(cache, site.url, pool=pool, trace_dir=trace_dir)
            for task in tasks:
                if plan_for is not None:
                    plan = plan_for(task, cache)
                    if hasattr(plan, "__await__"):
                        plan = await plan
                    source, origin = plan
                else:
                    source, origin = reference_source(task), "reference"
                res = await run_task(task, source, runtime=runtime, site=site, strategy=strategy, plan_origin=origin)
                results.append(res)
                if on_result is not None:
                    on_result(res)
            browser = pool.version
    finally:
        site.stop()
    summary = {
        "passed": sum(r.ok for r in results),
        "total": len(results),
        "browser": browser,
        "wall_s": round(time.perf_counter() - t0, 3),
        "latency_scale": latency_scale,
    }
    return DemoReport(tasks=results, summary=summary)
