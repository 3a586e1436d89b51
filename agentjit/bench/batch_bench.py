"""``agentjit bench batch``: tasks per minute against Ray workers, on one site with its latency on.

For each worker count the same task list (an app's read tasks with reference
plans, ``repeat`` times over) runs through :func:`agentjit.tasks.distributed.run_batch_ray`
on one local Ray cluster and one shared site (started here with
``latency_scale``; read-only: read tasks only unless ``tasks`` says otherwise).
Each row has the wall time, tasks per minute, the speed-up over the first
count (throughput over the first count's), and the engine's overhead per task (seconds a task spent in Ray beyond
its run on the worker), next to ``inprocess_s``: the mean run time of the same
tasks in this process on one browser (what the task costs without the engine).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from agentjit.exceptions import ConfigError
from agentjit.tasks.apps import get_app
from agentjit.tasks.task import Task

__all__ = ["run_batch_bench", "claims_per_second"]


async def claims_per_second(url: str, n: int = 300) -> dict[str, Any]:
    """Claim-and-commit rounds per second of one process on the effect store at ``url`` (its rows
    are removed after: they live in a namespace of their own)."""
    import uuid

    from agentjit.runtime import CallOutcome, EffectKey, EffectLog
    from agentjit.runtime.effects import Claim, canonical_args

    effects = EffectLog.open(url, namespace=f"bench-{uuid.uuid4().hex}")
    keys = [EffectKey("bench", canonical_args({"i": i})) for i in range(n)]
    try:
        t0 = time.perf_counter()
        for key in keys:
            claim = await effects.claim(key)
            assert isinstance(claim, Claim)
            claim.commit(CallOutcome(tool="bench", ok=True))
        elapsed = time.perf_counter() - t0
    finally:
        for key in keys:
            effects.forget(key)
        effects.close()
    return {"store": url.split("@")[-1], "claims": n, "per_s": round(n / elapsed, 1)}


async def run_batch_bench(
    app: str = "food",
    *,
    workers: Sequence[int] = (1, 2, 4),
    latency_scale: float = 1.0,
    tasks: list[Task] | None = None,
    repeat: int = 2,
    address: str | None = None,
    stores: Sequence[str] = (),
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Throughput of a batch on 1, 2, 4... Ray workers (see the module's docstring)."""
    from agentjit.tasks.distributed import import_ray, init_ray, run_batch_ray
    from agentjit.tasks.runner import run_tasks

    ray = import_ray()
    profile = get_app(app)
    chosen = tasks if tasks is not None else [t for t in profile.tasks() if t.kind == "read" and t.has_plan]
    if not chosen:
        raise ConfigError(f"no read task with a reference plan in app {app!r}")
    if not workers or min(workers) < 1:
        raise ConfigError(f"worker counts must be at least 1, got {list(workers)}")
    batch = chosen * repeat
    site = profile.site(latency_scale=latency_scale)
    site.start()
    started = False
    rows: list[dict[str, Any]] = []
    try:
        local = await run_tasks(chosen, cache=profile.load_cache(), site=site.url, strategy="serial")
        inprocess_s = sum(r.latency_s for r in local.tasks) / len(local.tasks)
        if not ray.is_initialized():
            init_ray(ray, address, num_cpus=max(workers))
            started = True
        for n in workers:
            t0 = time.perf_counter()
            report = await run_batch_ray(batch, app_name=app, workers=n, site_url=site.url, strategy="serial")
            s = report.summary
            row = {
                "workers": n,
                "tasks": s["total"],
                "passed": s["passed"],
                "wall_s": s["wall_s"],
                "tasks_per_min": s["tasks_per_min"],
                "engine_overhead_s": s["engine_overhead_s"],
                "first_task_overhead_s": s["first_task_overhead_s"],
                "per_worker_tasks_per_min": [w["tasks_per_min"] for w in s["per_worker"]],
                "startup_s": round(time.perf_counter() - t0 - s["wall_s"], 3),
            }
            first = rows[0]["tasks_per_min"] if rows else row["tasks_per_min"]
            row["speedup"] = round(row["tasks_per_min"] / first, 2) if first else None
            rows.append(row)
            if on_row is not None:
                on_row(row)
    finally:
        if started:
            ray.shutdown()
        site.stop()
    claims = [await claims_per_second(url) for url in stores]
    return {
        "app": app,
        "claims_per_s": claims,
        "latency_scale": latency_scale,
        "task_ids": [t.id for t in chosen],
        "repeat": repeat,
        "inprocess_s": round(inprocess_s, 3),
        "rows": rows,
    }
