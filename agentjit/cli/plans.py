"""The plan commands: ``run`` a plan (or a task compiled first), ``check`` it statically,
``compile`` a task into one, show the tool ``menu`` a compile would use, ``schedule`` its strategies.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from .base import command
from .common import (
    _compile,
    _load_cache,
    _model,
    _on_site,
    _plan_source_line,
    _read_text,
    _session,
)
from .errors import UsageError
from .healing import add_healing_args, arm, heal_after
from .options import (
    add_browser_arg,
    app_arg,
    cache_args,
    effects_args,
    json_arg,
    limit_args,
    nonneg_float,
    planner_args,
    positive_int,
    site_arg,
    strategy_arg,
)
from .output import _columns, _out, emit_json, styled


@command("run")
async def cmd_run(args: argparse.Namespace) -> int:
    from agentjit.api import read_plan

    if args.plan is None and args.task is None:
        raise UsageError("agentjit run: give a plan file or --task TEXT")
    origin = "file"
    compiled = None
    if args.plan is not None:
        source: str = read_plan(Path(args.plan))
        where = args.plan
    else:
        compiled = await _compile(args.task, args)
        source, origin = compiled.source, compiled.origin
        where = (f"plan cache {_load_cache(args).plans_file}" if origin == "cache" else
                 f"plan template of {compiled.template_task!r} in {compiled.plan_cache}" if origin == "template" else
                 f"the plan {args.model} compiled")
    session = _session(args)
    arm(args, session, _model(args.model) if args.model else None)
    strategy: Any = args.strategy or "serial"
    effects = None
    if args.effects:  # every WRITE claimed in the shared log first (namespace: the run id)
        from agentjit.runtime import EffectLog
        from agentjit.tasks.effectlog import logged_strategy

        effects = EffectLog.open(args.effects, namespace=args.run_id)
        strategy = logged_strategy(session, source, strategy, effects)
    try:
        return await _run_and_report(args, session, source, strategy, compiled, origin, where)
    finally:
        if effects is not None:
            effects.close()


async def _run_and_report(args: argparse.Namespace, session: Any, source: str, strategy: Any, compiled: Any,
                          origin: str, where: str) -> int:
    from agentjit.tasks.runner import jsonable

    healed: dict[str, Any] | None = None

    async def on(url: str) -> Any:
        nonlocal healed, compiled
        if compiled is None:
            prepared = session.prepare(source, strategy=strategy, origin=where)  # gate, usage, schedule
            result = await session.execute(prepared, site_url=url, task=args.task)
        else:  # a compiled plan that fails before its first WRITE goes back to the model (run-time repair)
            use_cache = not getattr(args, "no_plan_cache", False)
            compiled, result = await session.run_compiled(args.task, compiled, strategy=strategy, site_url=url,
                                                          use_cache=use_cache)  # fmt: skip
        ran = source if compiled is None else compiled.source
        healed = await heal_after(args, result, url, cache=session.cache, source=ran)  # while the site is up
        return result

    result = await _on_site(args, on)
    if compiled is not None:
        source = compiled.source
    data = {
        "value": jsonable(result.value),
        "plan_origin": origin,
        "strategy": result.strategy,
        "workers": result.workers,
        "latency_s": round(result.timings.get("total_s", 0.0), 4),
        "tool_calls": len(result.tool_calls),
        "writes": len(result.writes),
        "trace": result.trace_path,
        "calls": [
            {"tool": c.tool, "ok": c.ok, "args": c.args, "duration_s": round(c.duration, 4), "worker": c.worker}
            for c in result.calls
        ],
        "fallbacks": result.fallbacks,
        "suspects": [{k: s.get(k) for k in ("tool", "phase", "reason", "url", "write_sent")} for s in result.suspects],
        "healed": healed,
    }
    if compiled is not None:
        data["plan"] = compiled.source
        data["rounds"] = [{k: v for k, v in r.items() if k != "source"} for r in result.rounds]
    if args.json:
        emit_json(data)
        return 0
    out = _out()
    table = Table(title=f"{len(result.calls)} calls, {data['latency_s']} s, strategy {result.strategy}")
    _columns(table, ("#", "tool", "ok", "duration s", "args"), ids={'tool'})
    for i, c in enumerate(result.calls):
        table.add_row(str(i), c.tool or c.action, "yes" if c.ok else "NO", f"{c.duration:.3f}", json.dumps(c.args))
    out.print(table)
    if compiled is not None:
        out.print(_plan_source_line(compiled))
    for f in result.fallbacks:
        out.print(f"fell back: {f['tool']} ({f.get('reason')}); {f.get('model_calls', 0)} model calls, "
                  f"{f.get('time_s', 0):.1f} s", markup=False)  # fmt: skip
    if healed is not None:
        if healed.get("healed") is not None:
            out.print(f"healed: {', '.join(healed['healed']) or 'none'}"
                      + "".join(f"; not {k}: {v}" for k, v in healed["failed"].items()), markup=False)
        else:
            out.print(f"not healed ({', '.join(healed['tools'])}): {healed.get('skipped') or healed.get('error')}",
                      markup=False)  # fmt: skip
    out.print(f"result: {data['value']!r}")
    return 0


@command("check")
async def cmd_check(args: argparse.Namespace) -> int:
    from agentjit.planner import render

    source = _read_text(args.plan)
    result = _session(args).check(source)
    if args.json:
        emit_json({"valid": result.valid, "cost": result.cost, "diagnostics": [d.to_dict() for d in result.diagnostics]})
    else:
        out = _out()
        if result.diagnostics:
            out.print(render(result.diagnostics, source, filename=args.plan))
        out.print(f"{'valid' if result.valid else 'INVALID'}; cost {result.cost}")
    return 0 if result.valid else 1


@command("compile")
async def cmd_compile(args: argparse.Namespace) -> int:
    plan = await _compile(args.task, args)
    data = {
        "task": plan.task,
        "plan": plan.source,
        "cost": plan.cost,
        "origin": plan.origin,
        "model": plan.model,
        "time_s": round(plan.time_s, 4),
        "tokens": {"input": plan.usage.input_tokens, "output": plan.usage.output_tokens},
        "stats": plan.stats.model_dump(),
        "candidates": [c.model_dump() for c in plan.candidates],
        "model_calls": plan.stats.answered,  # requests answered (not those cancelled before an answer)
        "plan_cache": plan.plan_cache,
        "template_task": plan.template_task,
        "slot_values": plan.slot_values,
    }
    if args.json:
        emit_json(data)
        return 0
    out = _out()
    out.print(plan.source)
    st = plan.stats
    if plan.origin == "cache":
        out.print(
            f"cost {plan.cost}, from the plan cache {plan.plan_cache} (compiled by {plan.model}); "
            f"no model was called: 0 requests, 0 tokens, {plan.time_s:.2f} s"
        )
        return 0
    if plan.origin == "template":
        out.print(
            f"cost {plan.cost}, from the plan template of {plan.template_task!r} in {plan.plan_cache} with "
            f"{plan.slot_values} (compiled by {plan.model}); no model was called: 0 requests, 0 tokens, {plan.time_s:.2f} s"
        )
        return 0
    out.print(
        f"cost {plan.cost}, origin {plan.origin}, {st.sampled} sampled, {st.repaired} repairs, {st.valid} valid, "
        f"rejected {st.rejected_by_code}, {plan.time_s:.2f} s, tokens {plan.usage.input_tokens}+{plan.usage.output_tokens}"
    )
    return 0


@command("schedule")
async def cmd_schedule(args: argparse.Namespace) -> int:
    """Price a plan's strategies by Monte Carlo over the cache's latency fits and pick one."""
    from agentjit.scheduler import Overheads

    source = _read_text(args.plan)
    session = _session(args)
    session.admit(source, origin=args.plan)  # a plan that cannot run (an unknown tool) is refused, not priced
    overheads = Overheads()
    if args.startup_s is not None:  # one number for context + page + start URL
        overheads = Overheads(new_context_s=0.0, new_page_s=0.0, goto_s=args.startup_s)
    schedule = session.schedule(
        source, objective=args.objective, n_trials=args.trials, max_workers=args.max_workers, overheads=overheads,
    )  # fmt: skip
    data = {"plan": args.plan, "objective": args.objective, "trials": args.trials, **schedule.to_dict()}
    if args.json:
        emit_json(data)
        return 0
    table = Table(title=f"{args.plan}: {args.trials} Monte Carlo trials, objective {args.objective}")
    _columns(table, ("strategy", "workers", "mean s", "p50 s", "p95 s", "win rate", ""), ids={'strategy'})
    for name, est in schedule.estimates.items():
        table.add_row(
            name, str(est.workers), f"{est.mean:.3f}", f"{est.p50:.3f}", f"{est.p95:.3f}",
            f"{schedule.win_rates.get(name, 0.0):.0%}", "chosen" if name == schedule.strategy else "",
        )  # fmt: skip
    out = _out()
    out.print(table)
    out.print(f"choice: {schedule.strategy} x{schedule.workers}: {schedule.reason}")
    out.print(f"decision time {schedule.decision_time_s * 1e3:.2f} ms")
    if schedule.missing_latency:
        out.print(styled("no latency fit for:", "yellow", f" {', '.join(schedule.missing_latency)} (priced at a constant)"))
    return 0


@command("menu")
async def cmd_menu(args: argparse.Namespace) -> int:
    """The state-path tool menu the planner would show for a task (producers before consumers)."""
    from agentjit.planner.menu import DEFAULT_MENU_K, ToolIndex

    cache = _load_cache(args)
    menu = ToolIndex.of(cache).menu(args.task, args.k or DEFAULT_MENU_K, state_path=not args.relevance_only)
    if args.json:
        emit_json(menu.to_dict())
        return 0
    kind = "relevance-only" if args.relevance_only else "state-path"
    table = Table(title=f"{kind} menu of {len(menu)} of {menu.total} tools for {args.task!r}")
    _columns(table, ("#", "tool", "role", "score", "why"), ids={"tool"})
    for i, e in enumerate(menu.entries, 1):
        table.add_row(str(i), e.name, e.role, f"{e.score:.2f}", e.why)
    _out().print(table)
    return 0


def add_parsers(sub: Any) -> None:
    """The plan commands' parsers."""
    p = sub.add_parser("run", help="run a plan file (or compile --task first) against an app")
    p.add_argument("plan", nargs="?", help="plan file (.py)")
    p.add_argument("--task", help="compile this task with --model instead of reading a plan file")
    p.add_argument("--model", help="model spec, e.g. openai:gpt-4.1 or gemini:gemini-2.5-flash")
    p.add_argument("--latency-scale", type=nonneg_float, default=0.0, help="bundled site's injected latency (0 = off)")
    p.add_argument("--trace-dir", default=None, help="write the run's JSONL trace here")
    add_browser_arg(p)
    app_arg(p)
    site_arg(p)
    json_arg(p)
    strategy_arg(p)
    cache_args(p)
    planner_args(p)
    limit_args(p)
    effects_args(p)
    add_healing_args(p)

    p = sub.add_parser("check", help="check a plan statically: sandbox, types, state flow, cost")
    p.add_argument("plan", help="plan file (.py)")
    app_arg(p)
    json_arg(p)
    cache_args(p)

    p = sub.add_parser("compile", help="compile a task to the cheapest valid plan with a model")
    p.add_argument("task", help="the task in plain words")
    p.add_argument("--model", required=True, help="model spec, e.g. openai:gpt-4.1")
    app_arg(p)
    json_arg(p)
    cache_args(p)
    planner_args(p)

    p = sub.add_parser("menu", help="the state-path tool menu a compile of a task shows the model (large caches)")
    p.add_argument("task", help="the task in plain words")
    p.add_argument("--k", type=positive_int, default=None, help="most tools in the menu (default: the planner's menu size)")
    p.add_argument("--relevance-only", action="store_true", help="the BM25 top K alone, no routes (the baseline)")
    app_arg(p)
    json_arg(p)
    cache_args(p)

    p = sub.add_parser("schedule", help="price serial, parallel and hedge for a plan and pick one")
    p.add_argument("plan", help="plan file (.py)")
    p.add_argument("--objective", default="mean", choices=["mean", "p95"], help="what to minimize (default: mean)")
    p.add_argument("--trials", type=positive_int, default=1000, help="Monte Carlo trials (default: 1000)")
    p.add_argument("--max-workers", type=positive_int, default=4, help="most parallel workers or hedge replicas")
    p.add_argument("--startup-s", type=nonneg_float, default=None,
                   help="seconds an extra worker takes to start (default: BROWSER.md's 0.185 s; "
                        "`agentjit bench scheduler` measures it)")
    app_arg(p)
    json_arg(p)
    cache_args(p)
