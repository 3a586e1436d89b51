"""The site commands: a site's ``tools`` and ``tasks``, serve a bundled ``site``, run tasks and
judge them (``demo`` on one browser, ``batch`` over several), ``profile`` its latencies.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from agentjit.exceptions import AgentJITError

from .base import command
from .common import (
    _app_name,
    _demo_strategy,
    _limits,
    _load_cache,
    _planning,
    _selected_tasks,
    _title,
    _user_file,
)
from .errors import UsageError, error_json
from .options import (
    add_browser_arg,
    app_arg,
    cache_args,
    cache_dir_arg,
    effects_args,
    json_arg,
    limit_args,
    nonneg_float,
    planner_args,
    port_int,
    positive_int,
    site_arg,
    strategy_arg,
    tasks_arg,
)
from .output import _columns, _err, _out, emit_json, styled
from .progress import _progress


@command("tools")
async def cmd_tools(args: argparse.Namespace) -> int:
    cache = _load_cache(args)
    if args.json:
        emit_json([t.model_dump(mode="json") for t in cache.tools.values()])
        return 0
    table = Table(title=f"{_title(args)}: {len(cache.tools)} tools")
    _columns(table, ("name", "type", "effect", "pre", "post", "description"), ids={'name'})
    for t in cache.tools.values():
        table.add_row(t.name, t.type.value, t.effect.value, json.dumps(t.pre), json.dumps(t.post), t.description)
    _out().print(table)
    return 0


@command("tasks")
async def cmd_tasks(args: argparse.Namespace) -> int:
    rows = [t.to_json() for t in _selected_tasks(args)]
    if args.json:
        emit_json(rows)
        return 0
    table = Table(title=f"{args.tasks if args.tasks else _app_name(args)}: {len(rows)} tasks")
    _columns(table, ("id", "kind", "task"), ids={'id'})
    for r in rows:
        table.add_row(r["id"], r["kind"] or "-", r["task"])
    _out().print(table)
    return 0


@command("site")
async def cmd_site(args: argparse.Namespace) -> int:
    from agentjit.tasks.apps import get_app

    site = get_app(args.app).site(port=args.port, seed=args.seed, latency_scale=args.latency_scale)
    site.start()
    _err().print(f"{args.app} site on {site.url} (latency scale {args.latency_scale}); Ctrl-C stops it")
    try:
        await asyncio.Event().wait()  # until Ctrl-C
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    finally:
        site.stop()
    return 0


@command("demo")
async def cmd_demo(args: argparse.Namespace) -> int:
    from agentjit.tasks.runner import TaskResult, run_demo

    plan_for = None
    if args.model:
        plan_for = _planning(args)
    else:
        unplanned = [t.id for t in _selected_tasks(args) if not t.has_plan]
        if unplanned:
            from agentjit.exceptions import ConfigError

            raise ConfigError(f"no reference plan for task(s) {', '.join(unplanned)}: give --model to compile them")
    progress_console = _err()
    done: list[TaskResult] = []

    def on_result(res: TaskResult) -> None:
        done.append(res)  # on stderr with --json too: a long demo is never silent
        mark = styled("  ok", "green") if res.ok else styled("  FAIL", "red")
        progress_console.print(mark, f"{res.id} ({res.latency_s:.2f} s) {'' if res.ok else res.reason}")

    t0 = time.perf_counter()
    demo = run_demo(
        _app_name(args),
        site_url=args.site,
        cache=_load_cache(args),
        tasks=_selected_tasks(args),
        latency_scale=args.latency_scale,
        strategy=_demo_strategy(args),
        trace_dir=args.trace_dir,
        plan_for=plan_for,
        on_result=on_result,
        limits=_limits(args),
        repair=getattr(plan_for, "repair", None),
    )
    fields = ("id", "ok", "latency_s", "tool_calls", "writes", "strategy", "workers", "plan_origin", "reason",
              "run_rounds")
    try:
        report = await demo
    except AgentJITError as exc:  # the demo itself broke (the site, the browser): keep the tasks already judged
        if not args.json:
            raise
        data = error_json(exc)
        emit_json({"tasks": [{k: getattr(r, k) for k in fields} for r in done],
                   "summary": {"passed": sum(r.ok for r in done), "total": len(done), "complete": False},
                   "error": data["error"]})  # fmt: skip
        return int(data["error"]["exit_code"])
    wall = time.perf_counter() - t0
    report.summary["wall_s"] = round(wall, 3)
    if args.json:
        compiled = getattr(args, "_compile_reports", None)
        rows = [{k: getattr(r, k) for k in fields} for r in report.tasks]
        if compiled is not None:  # --model: what each task's compile did
            for row in rows:
                row["compile"] = compiled.get(row["id"])
        emit_json({"tasks": rows, "summary": report.summary})
    else:
        table = Table(title=f"agentjit demo: {report.summary['passed']}/{report.summary['total']} ok ({report.summary['browser']})")
        _columns(table, ("task", "ok", "latency s", "tool calls", "writes", "strategy", "plan"), ids={'task'})
        for r in report.tasks:
            strategy = r.strategy if r.workers == 1 else f"{r.strategy} x{r.workers}"
            table.add_row(r.id, "ok" if r.ok else "FAIL", f"{r.latency_s:.2f}", str(r.tool_calls), str(r.writes), strategy, r.plan_origin)
        _out().print(table)
        # a site agentjit did not start (--site) has no injected latency to report
        _out().print(f"wall time {wall:.1f} s" + ("" if args.site else f", latency scale {args.latency_scale}"))
    return 0 if report.summary["passed"] == report.summary["total"] else 1


@command("batch")
async def cmd_batch(args: argparse.Namespace) -> int:
    from agentjit.tasks.runner import TaskResult, run_batch

    if args.taskfile is not None:
        args.tasks = args.taskfile
    tasks = _selected_tasks(args)
    unplanned = [t.id for t in tasks if not t.has_plan]
    if unplanned and not args.model:
        raise UsageError(f"no reference plan for task(s) {', '.join(unplanned)}: give --model to compile them")
    browsers: list[str | None] = list(args.browser or [None])
    with _progress() as progress:  # one step per result (with its trace, on Ray) as it comes back
        bar = progress.add_task("batch", total=len(tasks))

        def on_result(res: TaskResult) -> None:
            mark = styled("  ok", "green") if res.ok else styled("  FAIL", "red")
            progress.console.print(mark, f"{res.id} ({res.latency_s:.2f} s) {'' if res.ok else res.reason}")
            progress.update(bar, advance=1, description=f"batch: {res.id}")

        if args.ray is not None:
            from agentjit.tasks.distributed import run_batch_ray

            report = await run_batch_ray(
                tasks, app_name=_app_name(args), task_file=args.tasks if args.taskfile else None,
                cache=_load_cache(args), cache_dir=args.cache, workers=args.ray_workers, address=args.ray,
                site_url=args.site, browsers=browsers, latency_scale=args.latency_scale,
                strategy=_demo_strategy(args), effects=args.effects, run_id=args.run_id, attempts=args.attempts,
                on_result=on_result, limits=_limits(args), plan_for=_planning(args) if args.model else None,
                trace_dir=args.trace_dir,
            )  # fmt: skip
        else:
            report = await run_batch(
                tasks, app_name=_app_name(args), browsers=browsers, cache=_load_cache(args),
                latency_scale=args.latency_scale, strategy=_demo_strategy(args), per_browser=args.per_browser,
                on_result=on_result, limits=_limits(args), plan_for=_planning(args) if args.model else None,
                site_url=args.site, effects=args.effects, run_id=args.run_id, trace_dir=args.trace_dir,
            )  # fmt: skip
    s = report.summary
    if args.json:
        emit_json({"tasks": [{k: getattr(r, k) for k in ("id", "ok", "latency_s", "plan_origin", "reason", "trace_path")}
                             for r in report.tasks], "summary": s})  # fmt: skip
    elif args.ray is not None:
        _out().print(f"agentjit batch --ray: {s['passed']}/{s['total']} ok on {s['workers']} Ray worker(s): wall "
                     f"{s['wall_s']:.2f} s, {s['tasks_per_min']} tasks/min, {s['retried']} retried, engine overhead "
                     f"{s['engine_overhead_s']} s/task")  # fmt: skip
        for row in s["per_worker"]:
            _out().print(f"  worker {row['worker']}: {row['tasks']} task(s), {row['tasks_per_min']} tasks/min"
                         + (" (died)" if row["died"] else ""))  # fmt: skip
    else:
        _out().print(f"agentjit batch: {s['passed']}/{s['total']} ok on {s['browsers']} browser(s) x {args.per_browser} "
                     f"worker(s): wall {s['wall_s']:.2f} s, {s['tasks_per_s']} tasks/s; per browser {s['per_browser']}")
    return 0 if s["passed"] == s["total"] else 1


@command("profile")
async def cmd_profile(args: argparse.Namespace) -> int:
    """Fit per-tool latencies from serial runs of every task; ``--write`` stores them in the cache."""
    from agentjit.cache import ToolCache
    from agentjit.tasks.apps import get_app
    from agentjit.tasks.overheads import overheads_record
    from agentjit.tasks.profile import profile_app, write_latency

    app = _app_name(args)
    cache_dir = Path(args.cache) if args.cache else get_app(app or "food").cache_dir
    cache = ToolCache.load(cache_dir)
    tasks = _selected_tasks(args)
    total = args.repeats * len(tasks)
    with _progress() as progress:
        bar = progress.add_task("profiling (serial runs)", total=total)
        profile = await profile_app(
            app, site_url=args.site, tasks=tasks, repeats=args.repeats, latency_scale=args.latency_scale,
            seed=args.seed, cache=cache, on_run=lambda _ev: progress.advance(bar),
        )  # fmt: skip
    written = None
    machine = overheads_record(profile.overheads) if profile.overheads is not None else None
    if args.write and args.cache:
        written = str(write_latency(cache_dir, profile.fits, profile.overheads))
    elif args.write:  # the bundled cache is read-only: fits and overheads go to per-user files it reads from then on
        from agentjit.cache import atomic_write_json
        from agentjit.scheduler.distributions import fits_to_json

        path = _user_file(app or "food", "latency")
        atomic_write_json(path, fits_to_json(profile.fits))
        if machine is not None:
            atomic_write_json(_user_file(app or "food", "machine"), machine)
        written = str(path)
    data = {
        "runs": profile.runs,
        "failures": profile.failures,
        "latency_scale": args.latency_scale,
        "written": written,
        "fits": profile.summary(),
        "overheads": machine,
    }
    if args.json:
        emit_json(data)
    else:
        table = Table(title=f"{_title(args)}: latency fits from {profile.runs} serial runs")
        _columns(table, ("tool", "family", "n", "mean s", "p50 s", "p95 s"), ids={'tool'})
        for row in data["fits"]:
            if "/" in row["tool"]:
                continue  # per-element keys repeat their tool's samples
            table.add_row(
                row["tool"], row["family"], str(row["n"]),
                f"{row['mean_s']:.3f}", f"{row['p50_s']:.3f}", f"{row['p95_s']:.3f}",
            )  # fmt: skip
        out = _out()
        out.print(table)
        if machine is not None:
            out.print(f"an extra browser context: start-up {machine['new_context_s'] + machine['new_page_s'] + machine['goto_s']:.3f} s, "
                      f"+{machine['busy_s']:.3f} s per call for each other context working at once")
        out.print(f"written to {written}" if written else "not written (pass --write to store the fits and overheads)")
        for failure in profile.failures:
            out.print(styled("failed:", "red", f" {failure}"))
    return 0 if not profile.failures else 1


def add_parsers(sub: Any) -> None:
    """The site commands' parsers."""
    p = sub.add_parser("tools", help="list the tool manifests of a cache (--cache DIR) or an app")
    app_arg(p)
    json_arg(p)
    cache_dir_arg(p)

    p = sub.add_parser("tasks", help="list the tasks of a task file (--tasks FILE) or an app")
    app_arg(p)
    json_arg(p)
    tasks_arg(p)

    p = sub.add_parser("site", help="serve a bundled bench site on 127.0.0.1")
    p.add_argument("app", nargs="?", default="food", help="the app to serve (default: food)")
    p.add_argument("--port", type=port_int, default=8000, help="port on 127.0.0.1 (0 = any free port)")
    p.add_argument("--seed", type=int, default=0, help="seed of the injected latencies")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")

    p = sub.add_parser("demo", help="run tasks (a task file or an app's) on a site and judge each")
    p.add_argument("--model", help="compile each task with this model instead of using its reference plan")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off; default 1)")
    tasks_arg(p)
    p.add_argument("--trace-dir", default=None, help="write each run's JSONL trace here (default: no traces)")
    add_browser_arg(p)
    app_arg(p)
    site_arg(p)
    json_arg(p)
    strategy_arg(p)
    cache_args(p)
    planner_args(p)
    limit_args(p)

    p = sub.add_parser("batch", help="spread a task file's plans over one or more browsers; print throughput")
    p.add_argument("taskfile", nargs="?", help="task file (.jsonl or .toml) (default: the app's tasks)")
    p.add_argument("--model", help="compile each task with this model (before any browser opens) instead of using "
                                    "its reference plan")
    p.add_argument("--only", help="comma-separated task ids to run")
    p.add_argument("--browser", action="append", default=None, metavar="SPEC",
                   help="a browser to use, repeatable: ws://HOST:PORT/... or cdp=http://HOST:PORT "
                        "(default: $AGENTJIT_BROWSER, else the local Chromium)")
    p.add_argument("--per-browser", type=positive_int, default=1, metavar="N", help="workers (and site copies) per browser")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency of each site copy (0 = off)")
    p.add_argument("--site", help="base URL of a running site every worker shares; never reset (default: a copy of "
                                  "the app's site per worker; with --ray one site for all)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the plans on Ray workers, each with its own browser: a cluster's address "
                        "(ray://HOST:10001, auto) or none for a local one (needs pip install 'agentjit[ray]')")
    p.add_argument("--ray-workers", type=positive_int, default=2, metavar="N", help="Ray workers (each a browser)")
    p.add_argument("--trace-dir", default=None,
                   help="write each run's JSONL trace here (default: no traces); with --ray each trace comes back "
                        "from its worker with the task's result")
    p.add_argument("--attempts", type=positive_int, default=3, metavar="N",
                   help="runs of a task that fails on a worker (an error, the worker died), each on another worker")
    app_arg(p)
    cache_args(p)
    json_arg(p)
    strategy_arg(p)
    planner_args(p)
    limit_args(p)
    effects_args(p)

    p = sub.add_parser("profile", help="fit per-tool latencies from serial runs of every bench task")
    p.add_argument("--repeats", "-P", type=positive_int, default=3, help="serial runs per task (default: 3)")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")
    p.add_argument("--seed", type=int, default=0, help="seed of the injected latencies")
    tasks_arg(p)
    add_browser_arg(p)
    p.add_argument("--cache", help="cache directory whose latency.json --write replaces (default: the bundled cache, "
                                   "whose fits --write stores in ~/.cache/agentjit/APP-latency.json instead)")
    p.add_argument("--write", action="store_true",
                   help="store the fits: DIR/latency.json with --cache DIR, else the per-user file the bundled cache "
                        "then uses (default: print only)")
    app_arg(p)
    site_arg(p)
    json_arg(p)
