"""The ``agentjit bench`` command group: one subcommand per benchmark, each with only its own flags.

The command line finds this group through its ``agentjit.cli`` entry point
(``pyproject.toml``), so nothing outside the bench imports the bench. It is a
plugin of the CLI: it uses the CLI's shared parts (errors, output, progress,
flags, the session a command makes) and nothing else of it. Every benchmark's
module is imported only when that benchmark runs: ``agentjit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.table import Table
from rich.text import Text

from agentjit.cli.base import Handler, command
from agentjit.cli.common import _app_name, _load_cache, _model, _planning, _selected_tasks
from agentjit.cli.errors import UsageError
from agentjit.cli.options import (
    add_browser_arg,
    app_arg,
    cache_dir_arg,
    json_arg,
    nonneg_float,
    nonneg_int,
    positive_float,
    positive_int,
    site_arg,
    tasks_arg,
)
from agentjit.cli.output import _columns, _err, _out, _write_json_file, emit_json, styled
from agentjit.cli.progress import _progress

__all__ = ["add_parsers", "BENCHES"]


@command("bench")
async def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark the subcommand named."""
    return await BENCHES[args.bench](args)


async def bench_sandbox(args: argparse.Namespace) -> int:
    """The hostile corpora: plans, caches and sites (issue 8)."""
    from agentjit.bench.sandbox.command import bench_sandbox_command

    return await bench_sandbox_command(args)


async def bench_overhead(args: argparse.Namespace) -> int:
    from agentjit.bench.overhead import measure_overhead

    report = await measure_overhead(
        _app_name(args), site_url=args.site, cache=_load_cache(args), tool_name=args.tool, n=args.n
    )
    if args.json:
        emit_json(report)
    else:
        _out().print(
            f"{report['tool']}: tool call median {report['tool_call_median_ms']} ms, bare evaluate "
            f"{report['bare_evaluate_median_ms']} ms, ratio {report['ratio']} (n={report['n']}, {report['browser']})"
        )
    return 0


async def bench_scheduler(args: argparse.Namespace) -> int:
    from agentjit.bench.scheduler_bench import run_scheduler_bench

    tasks = _selected_tasks(args)
    n_tasks = len(tasks)
    total = n_tasks * (args.profile_repeats + 3 * args.repeats)  # an upper bound: parallel only where it applies
    with _progress() as progress:
        bar = progress.add_task("profiling", total=total)

        def on_run(ev: Any) -> None:
            progress.update(bar, advance=1, description=f"{ev.phase} {ev.task} {ev.strategy}")

        report = await run_scheduler_bench(
            _app_name(args), site_url=args.site, cache=_load_cache(args), tasks=tasks, repeats=args.repeats,
            latency_scale=args.latency_scale, profile_repeats=args.profile_repeats, seed=args.seed, on_run=on_run,
        )  # fmt: skip
    summary = report.summary
    if args.json:
        emit_json(report.model_dump(mode="json"))
    else:
        table = Table(title=f"scheduler vs measured oracle ({args.repeats} runs per strategy, latency scale {args.latency_scale})")
        _columns(table, ("task", "chosen", "oracle", "serial s", "parallel s", "hedge s", "predicted s (ser/par/hed)", "regret"), ids={'task'})

        def fmt(v: float | None) -> str:
            return "-" if v is None else f"{v:.2f}"

        for row in report.tasks:
            chosen = row.chosen if row.chosen_workers == 1 else f"{row.chosen} x{row.chosen_workers}"
            mark = "green" if row.agree else "red"
            predicted = "/".join(fmt(row.predicted_mean_s.get(s)) for s in ("serial", "parallel", "hedge"))
            table.add_row(
                row.id, Text(chosen, style=mark), row.oracle or "-",
                *(fmt(row.measured_mean_s.get(s)) for s in ("serial", "parallel", "hedge")),
                predicted, "-" if row.regret is None else f"{row.regret:+.1%}",
            )  # fmt: skip
        out = _out()
        out.print(table)
        agreement, regret = summary["agreement"], summary["mean_regret"]
        out.print(
            f"agreement {agreement:.0%}, mean regret {regret:+.1%}, "
            f"decision time (median) {summary['decision_time_median_s'] * 1e3:.2f} ms, "
            f"{summary['runs']} runs in {summary['wall_s']:.0f} s ({summary['browser']})"
        )
        for failure in summary["failures"]:
            out.print(styled("judge failed:", "red", f" {failure}"))
    return 0 if not summary["failures"] else 1


async def bench_isolation(args: argparse.Namespace) -> int:
    """What the sandbox child costs per tool call and per run, and what isolation the OS gave."""
    from agentjit.bench.isolation import measure_isolation

    report = await measure_isolation(n=args.n, repeat=args.repeats)
    if args.json:
        emit_json(report)
    else:
        iso = report["isolation"]
        _out().print(
            f"per tool call: in-process {report['in_process_per_call_ms']} ms, isolated "
            f"{report['isolated_per_call_ms']} ms, added {report['added_per_call_ms']} ms wall / "
            f"{report['added_cpu_per_call_ms']} ms CPU; child start {report['child_startup_ms']} ms; "
            f"network namespace {iso.get('network')}, empty root {iso.get('filesystem')}, uid {iso.get('user')}",
            markup=False,
        )
    return 0


async def bench_e2e(args: argparse.Namespace) -> int:
    """The stepwise agent (oracle policy) against agentjit, both behind one simulated model latency."""
    from agentjit.bench.e2e import run_e2e
    from agentjit.bench.oracle import has_demo

    tasks = _selected_tasks(args)
    # offline, a task without a demonstration is skipped (listed in the report), so the bar leaves it out
    runnable = tasks if args.model else [t for t in tasks if has_demo(t)]
    command = "agentjit " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else "agentjit bench e2e"
    with _progress() as progress:
        sides = 3 + bool(args.variants) + bool(args.browser_use)
        bar = progress.add_task("e2e", total=sides * len(runnable) * args.repeats)

        def on_run(task_id: str, run: Any) -> None:
            progress.update(bar, advance=1, description=f"{task_id} {run.side}")

        report = await run_e2e(
            _app_name(args) or "food", runs=args.repeats, model=_model(args.model),
            profile=args.llm_profile or ("none" if args.model else "gpt-4.1"), model_scale=args.llm_scale,
            latency_scale=args.latency_scale, task_ids=[t.id for t in tasks], seed=args.seed, command=command,
            on_run=on_run, variants=args.variants, browser_use=args.browser_use,
        )  # fmt: skip
    data = report.model_dump(mode="json")
    if args.out:
        _write_json_file(args.out, data)
    if args.json:
        emit_json(data)
        return 0
    s = report.summary
    table = Table(title=f"end to end, {args.repeats} run(s) a task, model latency profile {report.profile['name']}")
    for col in ("task", "agent s", "calls", "agentjit s", "calls", "cached s", "speedup", "judges (agent/jit/cached)"):
        table.add_column(col)
    for t in report.tasks:
        a, j, c = t.summary["agent"], t.summary["agentjit"], t.summary["agentjit-cached"]
        table.add_row(
            t.id, f"{a['latency_s']:.2f}", f"{a['model_calls']:.1f}", f"{j['latency_s']:.2f}", f"{j['model_calls']:.1f}",
            f"{c['latency_s']:.2f}", f"{t.summary['speedup'] or 0:.1f}x",
            f"{a['passed']}/{j['passed']}/{c['passed']} of {a['runs']}",
        )  # fmt: skip
    out = _out()
    out.print(table)
    for skip in report.skipped:
        out.print(f"skipped {skip['id']} ({skip['kind'] or 'task'}): {skip['reason']}", markup=False)
    out.print(
        f"speedup {s['speedup_ratio_of_means']:.2f}x (ratio of means), {s['speedup_geomean']:.2f}x (geometric mean); "
        f"plan-cache hit {s['speedup_cached_ratio_of_means']:.2f}x; profile {report.profile['name']}: {report.profile['source']}"
    )
    lim = s["speedup_limits"]
    if lim["max"] is not None:
        out.print(
            f"at any per-call model latency the ratio of means stays between {lim['free_calls']:.2f}x (free calls: "
            f"time outside the model) and {lim['slow_calls']:.2f}x (slow calls: model calls per task), at most {lim['max']:.2f}x"
        )
    var = s["variants"]
    if var["tasks"]:
        out.print(
            f"variants of {var['tasks']} task(s): {var['template_hits']}/{var['runs']} compiled from a template, "
            f"{var['passed']['agentjit-template']}/{var['runs']} judged right; speedup over the agent: first compile "
            f"{var['speedup_first_compile'] or 0:.2f}x, template hit {var['speedup_template_hit'] or 0:.2f}x, "
            f"exact hit {var['speedup_exact_hit'] or 0:.2f}x", markup=False)  # fmt: skip
    over = var.get("speedup_over_browser_use")
    if over:
        out.print(
            f"browser-use on the variants (a replayed demonstration, values substituted; no model): "
            f"{var['passed']['browser-use']}/{var['runs']} judged right, {var['mean_latency_s']['browser-use']:.2f} s a "
            f"task; speedup over it: first compile {over['first_compile'] or 0:.2f}x, template hit "
            f"{over['template_hit'] or 0:.2f}x, exact hit {over['exact_hit'] or 0:.2f}x", markup=False)  # fmt: skip
    variants_ok = not var["tasks"] or all(n == var["runs"] for n in var["passed"].values())
    return 0 if all(v == s["runs"][k] for k, v in s["passed"].items()) and variants_ok else 1


async def bench_planner(args: argparse.Namespace) -> int:
    """Compile every task afresh with ``--model``, run and judge it: candidates, valid rate, repairs, calls,
    tokens, seconds, judged right, pass@1 / pass@k per task (:mod:`agentjit.bench.planner_bench`)."""
    from agentjit.bench.planner_bench import planner_rows, planner_summary
    from agentjit.tasks.runner import TaskResult, run_demo

    if not args.model:
        raise UsageError("agentjit bench planner needs --model (e.g. --model openai:gpt-4.1)")
    args.no_plan_cache, args.any_model = True, False  # every task compiled afresh by this model
    plan_for = _planning(args)
    progress_console = _err()

    def on_result(res: TaskResult) -> None:
        mark = styled("  ok", "green") if res.ok else styled("  FAIL", "red")
        progress_console.print(mark, f"{res.id} {'' if res.ok else res.reason}")

    report = await run_demo(
        _app_name(args), site_url=args.site, cache=_load_cache(args), tasks=_selected_tasks(args),
        latency_scale=args.latency_scale, strategy="serial", plan_for=plan_for, on_result=on_result,
        repair=getattr(plan_for, "repair", None),
    )  # fmt: skip
    rows = planner_rows(report.tasks, args._compile_reports, k=args.k)
    summary = planner_summary(rows, k=args.k)
    data = {"model": args.model, "app": _app_name(args) or "food", "tasks": rows, "summary": summary,
            "browser": report.summary.get("browser")}  # fmt: skip
    if args.out:
        _write_json_file(args.out, data)
    if args.json:
        emit_json(data)
    else:
        table = Table(title=f"planner bench: {args.model}, {summary['right']}/{summary['tasks']} right")
        _columns(table, ("task", "right", "cands", "valid", "repairs", "run repairs", "calls", "tokens", "compile s",
                         "pass@1", f"pass@{args.k}"), ids={"task"})  # fmt: skip
        for r in rows:
            table.add_row(r["id"], "yes" if r["right"] else "no", str(r["candidates"]), str(r["valid"]),
                          str(r["static_repairs"]), str(r["run_repairs"]), str(r["model_calls"]),
                          str(r["input_tokens"] + r["output_tokens"]), f"{r['compile_s']:.1f}",
                          f"{r['pass_at_1']:.2f}", f"{r['pass_at_k']:.2f}")  # fmt: skip
        _out().print(table)
        _out().print(f"valid-plan rate {summary['valid']}/{summary['candidates']}; compile s median "
                     f"{summary['compile_s_median']}, total {summary['compile_s_total']}; "
                     f"{summary['model_calls']} model calls", markup=False)  # fmt: skip
    return 0 if summary["right"] == summary["tasks"] else 1


async def bench_contexts(args: argparse.Namespace) -> int:
    """Memory per extra browser context (PSS of Chromium's processes as contexts open)."""
    from agentjit.bench.contexts import measure_contexts

    report = await measure_contexts(_app_name(args), site_url=args.site, cache=_load_cache(args), n=min(args.n, 16))
    if args.json:
        emit_json(report)
    elif not report.get("supported"):
        _out().print(f"not measured: {report.get('reason')}", markup=False)
    else:
        _out().print(
            f"browser alone {report['browser_alone_mib']} MiB; each extra context with one page "
            f"{report['per_context_median_mib']} MiB (median of {report['contexts']}); PSS {report['pss_mib']}",
            markup=False,
        )
    return 0


async def bench_faults(args: argparse.Namespace) -> int:
    """The fault matrix: WRITEs under injected faults, judged from the site's own state (0 duplicated, 0 lost)."""
    from agentjit.bench.faults_bench import DEFAULT_RUNS, FaultReport, run_fault_matrix

    runs = args.runs or DEFAULT_RUNS
    report: FaultReport
    with _progress() as progress:
        bar = progress.add_task("faults", total=runs)

        def on_run(done: int, total: int, record: Any) -> None:
            progress.update(bar, advance=1, description=f"{record.strategy} {record.fault} {record.task}: {record.status}"
                                                        f" (dup {record.duplicated}, lost {record.lost})")  # fmt: skip

        if args.processes:
            from agentjit.bench.faults_processes import run_process_fault_matrix
            from agentjit.bench.postgres import bench_stores

            with bench_stores(args.store or ()) as stores:
                report = await run_process_fault_matrix(_app_name(args) or "food", stores=stores, runs=runs,
                                                        workers=args.workers, address=args.ray, on_run=on_run)  # fmt: skip
        else:
            if args.store or args.ray:
                raise UsageError("agentjit bench faults: --store and --ray go with --processes")
            report = await run_fault_matrix(_app_name(args) or "food", runs=runs, on_run=on_run)
    data = report.to_json()
    if args.json:
        emit_json(data)
        return 0 if report.passed else 1
    where = f" on {data['workers']} Ray worker processes, stores {', '.join(data['stores'])}" if args.processes else ""
    table = Table(title=f"faults on {report.app}{where}: {len(report.runs)} runs, judged from the site's state")
    cols = ("strategy", "fault", "runs", "faults", "dup", "lost", "unacc", "uncertain", "ok", "clean fail", "unclear")
    _columns(table, cols, ids={"strategy", "fault"})
    for c in [*report.cells(), {"strategy": "total", "fault": "", **report.totals()}]:
        table.add_row(c["strategy"], c["fault"], *(str(c[k]) for k in (
            "runs", "faults_injected", "duplicated", "lost", "unaccounted", "uncertain_reported", "ok",
            "failed_clean", "unclear")))  # fmt: skip
    out = _out()
    out.print(table)
    t = report.totals()
    verdict = styled("PASS", "green") if report.passed else styled("FAIL", "red")
    out.print(Text.assemble(verdict, (
        f" {t['faulted_runs']} faulted runs, {t['faults_injected']} faults injected: {t['duplicated']} duplicated, "
        f"{t['lost']} lost, {t['unaccounted']} unaccounted writes; {t['uncertain_reported']} runs reported an "
        f"uncertain write, {t['failed_clean']} failed with a clear error, {t['ok']} finished; "
        f"{report.wall_s:.0f} s ({report.browser})")))
    return 0 if report.passed else 1


async def bench_templates(args: argparse.Namespace) -> int:
    """Plan templates: hits on literal variants of every bench task, none on near misses
    (:mod:`agentjit.bench.templates_bench`)."""
    from agentjit.bench.templates_bench import APPS, measure_templates

    apps = args.apps.split(",") if args.apps else list(APPS)
    unknown = [a for a in apps if a not in APPS]
    if unknown:
        raise UsageError(f"agentjit bench templates --apps: unknown app(s) {', '.join(unknown)} (have: {', '.join(APPS)})")
    bench = await measure_templates(apps, variants=args.variants, run=args.run)
    data = bench.to_json()
    if args.out:
        _write_json_file(args.out, data)
    s = data["summary"]
    passed = (s["near_miss_hits"] == 0 and (s["variant_hit_rate"] or 0.0) >= 0.8
              and s["hits_judged_right"] == s["hits_run"])  # fmt: skip
    if args.json:
        emit_json(data)
        return 0 if passed else 1
    table = Table(title="plan templates: literal variants must hit, near misses must go to the model")
    _columns(table, ("app", "tasks", "with template", "variants", "hits", "near misses", "near-miss hits"), ids={"app"})
    for app, a in data["apps"].items():
        table.add_row(app, str(a["tasks"]), str(a["with_template"]), str(a["variants"]), str(a["variant_hits"]),
                      str(a["near_misses"]), str(a["near_miss_hits"]))  # fmt: skip
    out = _out()
    out.print(table)
    for p in bench.probes:
        if (p.kind == "variant") != (p.origin == "template") or p.judged is False:
            wrong = f" judged wrong: {p.judge_reason}" if p.judged is False else ""
            out.print(f"  {p.kind} {p.of} ({p.how}): {p.origin}: {p.task}{wrong}", markup=False)
    verdict = styled("PASS", "green") if passed else styled("FAIL", "red")
    out.print(Text.assemble(verdict, (
        f" {s['variant_hits']}/{s['variants']} variants from a template ({s['variant_hit_rate']:.0%}), "
        f"{s['model_calls_on_hits']} model calls on hits; {s['near_miss_hits']}/{s['near_misses']} near misses hit; "
        f"{s['hits_judged_right']}/{s['hits_run']} hits run judged right; "
        f"{s['tasks_with_template']}/{s['tasks']} tasks have a template; {s['wall_s']} s")))
    return 0 if passed else 1


async def bench_batch(args: argparse.Namespace) -> int:
    """Tasks per minute against Ray workers on one site with its latency on (issue 23)."""
    from agentjit.bench.batch_bench import run_batch_bench

    try:
        counts = [int(n) for n in args.workers.split(",") if n.strip()]
    except ValueError:
        raise UsageError(f"--workers: comma-separated worker counts, e.g. 1,2,4 (got {args.workers!r})") from None
    tasks = _selected_tasks(args) if (args.tasks or args.only) else None
    err = _err()

    def on_row(row: dict[str, Any]) -> None:
        err.print(f"  {row['workers']} worker(s): {row['tasks_per_min']} tasks/min, {row['passed']}/{row['tasks']} ok, "
                  f"engine overhead {row['engine_overhead_s']} s/task")  # fmt: skip

    from agentjit.bench.postgres import bench_stores

    with bench_stores(args.store or ()) as stores:
        report = await run_batch_bench(_app_name(args) or "food", workers=counts, latency_scale=args.latency_scale,
                                       tasks=tasks, repeat=args.repeat, address=args.ray, stores=stores,
                                       on_row=on_row)  # fmt: skip
    if args.json:
        emit_json(report)
    else:
        table = Table(title=f"batch on Ray: {len(report['task_ids'])} tasks x{report['repeat']}, latency scale "
                            f"{report['latency_scale']}, in-process run {report['inprocess_s']} s/task")  # fmt: skip
        _columns(table, ("workers", "tasks/min", "speed-up", "wall s", "ok", "engine overhead s/task"), ids=set())
        for row in report["rows"]:
            table.add_row(str(row["workers"]), str(row["tasks_per_min"]), str(row["speedup"]), str(row["wall_s"]),
                          f"{row['passed']}/{row['tasks']}", str(row["engine_overhead_s"]))  # fmt: skip
        _out().print(table)
        for c in report["claims_per_s"]:
            _out().print(f"effect store {c['store']}: {c['per_s']} claims/s (claim + commit, one process)")
    return 0 if all(row["passed"] == row["tasks"] for row in report["rows"]) else 1


async def bench_heal(args: argparse.Namespace) -> int:
    """A reproducible redesign of a bundled app, and what ``toolcache heal`` makes of it (issue 21)."""
    from agentjit.bench.heal_bench import measure

    only = [t.strip() for t in args.only.split(",") if t.strip()] if args.only else None
    report = await measure(_app_name(args) or "food", seed=args.seed, wrap=args.wrap, rounds=args.rounds,
                           template=args.template, cache=args.cache, probe=not args.no_probe,
                           model=_model(args.model) if args.model else None, only=only,
                           in_run=args.heal_in_run)  # fmt: skip
    if args.json:
        emit_json(report)
        return 0
    o = report["original"]
    out = _out()
    out.print(f"{report['app']} ({report['redesign']}, seed {report['seed']}, wrap {report['wrap']}): original site "
              f"{o['passed']}/{o['tasks']} tasks, median {o['median_latency_s']} s, all {o['total_latency_s']} s")  # fmt: skip
    for i, r in enumerate(report["rounds"], 1):
        out.print(f"  redesigned, run {i}: {r['passed']}/{r['tasks']} tasks, median {r['median_latency_s']} s, "
                  f"all {r['total_latency_s']} s, suspects {', '.join(r['suspects']) or '-'}"
                  + (f", {r['fallback_calls']} calls fell back ({r['fallback_model_calls']} model calls, "
                     f"{r['fallback_s']} s)" if report["model"] else "")
                  + (f", {r['healed_calls']} calls by tools healed in the run ({r['heal_in_run_s']} s healing)"
                     if "healed_in_run" in r else "")
                  + (f", probe found {', '.join(r['probe_found']) or '-'}" if "probe_found" in r else ""))  # fmt: skip
    out.print(f"  tools broken {len(report['tools_broken'])} of {report['tools']}, healed {len(report['tools_healed'])}, "
              f"heal time {report['heal_s']} s")  # fmt: skip
    for name, why in report["not_healed"].items():
        out.print(f"  not healed {name}: {why}", markup=False)
    return 0


async def bench_menus(args: argparse.Namespace) -> int:
    """State-path menus against relevance-only menus on the large catalog (issue 22)."""
    from agentjit.bench.menus_bench import DEFAULT_KS, run_menus_bench

    report = run_menus_bench(seed=args.seed, ks=tuple(args.ks or DEFAULT_KS), hosted=args.sections,
                             held=not args.no_held_out)  # fmt: skip
    if args.out:
        _write_json_file(args.out, report)
    if args.json:
        emit_json(report)
        return 0
    cat = report["catalog"]
    table = Table(title=f"menus on {cat['tools']} tools, {cat['tasks']} tasks (seed {cat['seed']}); every stub: "
                        f"{report['prompt_tokens_all']:.0f} prompt tokens")
    _columns(table, ("menu", "K", "complete chain", "recall", "NDCG", "order violations", "prompt tokens", "drop"),
             ids={"menu"})
    for method, per_k in report["summary"].items():
        for k, m in per_k.items():
            table.add_row(method, k, f"{m['chain']:.0%}", f"{m['recall']:.0%}", f"{m['ndcg']:.3f}",
                          str(m["order_violations"]), f"{m['prompt_tokens']:.0f}", f"{m['token_drop']}x")
    out = _out()
    out.print(table)
    done = report["done_when"]
    if done is not None:
        out.print(f"K={done['k']}: complete chain {done['chain']:.0%} (target {done['chain_target']:.0%}; relevance-only "
                  f"{done['relevance_chain']:.0%}), prompt tokens {done['token_drop']}x fewer (target "
                  f"{done['token_drop_target']:g}x): {'met' if done['met'] else 'NOT met'}")
    loao = report["held_out"]
    if loao is not None:
        apps = ", ".join(f"{a} {v['chain']:.0%}" for a, v in loao["apps"].items())
        out.print(f"held out (knobs chosen on the other apps, K={loao['k']}): complete chain {loao['chain']:.0%} "
                  f"(default knobs {loao['chain_default']:.0%}); {apps}")
    return 0


BENCHES: dict[str, Handler] = {
    "overhead": bench_overhead, "scheduler": bench_scheduler, "sandbox": bench_sandbox, "isolation": bench_isolation,
    "contexts": bench_contexts, "e2e": bench_e2e, "faults": bench_faults, "planner": bench_planner,
    "templates": bench_templates, "batch": bench_batch, "heal": bench_heal,
    "menus": bench_menus,
}  # fmt: skip
"""Each benchmark's handler, by subcommand name."""


def add_parsers(sub: Any) -> None:
    """Add ``agentjit bench`` and one subcommand per benchmark, each with its own flags (the
    ``agentjit.cli`` entry point)."""
    group = sub.add_parser("bench", help="benchmarks: overhead (tool call vs bare evaluate), scheduler, sandbox, "
                                         "isolation, contexts, e2e, faults, planner, batch, templates, heal, menus",
                           description="Benchmarks. `agentjit bench NAME --help` lists a benchmark's own flags.")
    benches = group.add_subparsers(dest="bench", required=True, metavar="BENCHMARK")

    p = benches.add_parser("overhead", help="a tool call against a bare page.evaluate")
    p.add_argument("-n", type=positive_int, default=200, help="repetitions")
    p.add_argument("--tool", default="list_stores", help="a tool that stays on its page (default: list_stores)")
    app_arg(p)
    site_arg(p)
    cache_dir_arg(p)
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("scheduler", help="every strategy R times per task: oracle, agreement, regret")
    p.add_argument("--repeats", "-R", type=positive_int, default=3, help="runs per task and strategy")
    p.add_argument("--profile-repeats", "-P", type=nonneg_int, default=2,
                   help="serial runs per task to fit latencies first (0 = use the cache's latency.json)")
    tasks_arg(p)
    p.add_argument("--seed", type=int, default=0, help="site latency and Monte Carlo seed")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")
    app_arg(p)
    site_arg(p)
    cache_dir_arg(p)
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("sandbox", help="the hostile plan, cache and site corpora: escapes, hangs, crashes")
    p.add_argument("--corpus", help="hostile plan corpus directory (default: tests/security/corpus)")
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("isolation", help="the plan sandbox's cost per tool call, and what the OS isolates")
    p.add_argument("-n", type=positive_int, default=200, help="tool calls per plan")
    p.add_argument("--repeats", "-R", type=positive_int, default=3, help="measurements of each side")
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("contexts", help="memory per extra browser context (parallel workers, replicas)")
    p.add_argument("-n", type=positive_int, default=200, help="extra contexts to open (at most 16)")
    app_arg(p)
    site_arg(p)
    cache_dir_arg(p)
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("e2e", help="the stepwise agent against agentjit, behind one simulated model latency")
    tasks_arg(p)
    p.add_argument("--repeats", "-R", type=positive_int, default=3, help="runs per task and side")
    p.add_argument("--seed", type=int, default=0, help="site latency seed")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")
    p.add_argument("--llm-profile", default=None,
                   help="simulated model latency both sides pay: gpt-4.1 (default), paper-browser-use, "
                        "local-small, none (default with --model)")
    p.add_argument("--llm-scale", type=nonneg_float, default=1.0, help="multiply the profile's latency (0 = free calls)")
    p.add_argument("--out", help="also write the JSON report to this file")
    p.add_argument("--model", help="a real model both sides use instead of the oracle and the reference plans")
    p.add_argument("--variants", action="store_true",
                   help="follow each task whose judge reads the task by a literal variant, compiled from its template")
    p.add_argument("--browser-use", action="store_true",
                   help="with --variants: browser-use (the optional extra) runs each variant too, replaying the "
                        "task's demonstration with the variant's values (no model)")
    app_arg(p)
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("planner", help="compile every task afresh with a model, run and judge it: valid rate, "
                                           "repairs, calls, tokens, seconds, pass@1 / pass@k")
    p.add_argument("--model", help="the model whose compiles are measured (required)")
    tasks_arg(p)
    p.add_argument("-n", "--samples", dest="n", type=positive_int, default=4, help="planner workers sampling in parallel")
    p.add_argument("-k", type=positive_int, default=2, help="valid candidates before early accept; pass@k")
    p.add_argument("--repairs", type=nonneg_int, default=2, help="repair rounds per failed candidate")
    p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="most model requests in flight at once (default: --samples; 1 for a model at its own URL)")
    p.add_argument("--compile-budget", type=positive_float, default=None, metavar="SECONDS",
                   help="most seconds a compile may take (default: no limit)")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")
    p.add_argument("--out", help="also write the JSON report to this file")
    app_arg(p)
    site_arg(p)
    cache_dir_arg(p)
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("templates", help="plan templates: hit rate on literal variants of the bench tasks, "
                                             "0 hits on near misses (no model; a browser only with --run)")
    p.add_argument("--apps", default=None, help="comma-separated bench apps (default: food,roundup,fava,django_admin,trac)")
    p.add_argument("--variants", type=positive_int, default=3, help="literal variants per task (default: 3)")
    p.add_argument("--run", action="store_true",
                   help="run every hit whose judge reads its values from the task on the app's site, and judge it")
    add_browser_arg(p)
    p.add_argument("--out", help="also write the JSON report to this file")
    json_arg(p)

    p = benches.add_parser("heal", help="a seeded redesign of an app: tools broken, healed by toolcache heal, "
                                        "time to heal, tasks passing before and after")
    p.add_argument("--seed", type=int, default=7, help="the redesign's seed")
    p.add_argument("--wrap", type=nonneg_float, default=0.3, help="share of buttons wrapped in a new element")
    p.add_argument("--rounds", type=positive_int, default=4, help="most run-and-heal rounds")
    p.add_argument("--no-probe", action="store_true",
                   help="heal only the tools a run found suspect (default: heal probes the other tools too)")
    p.add_argument("--template", help="redesign by another template of the app instead of the proxy "
                                      "(roundup: jinja2, classic's schema)")
    p.add_argument("--cache", help="measure this cache of the app (a fresh toolcache build, say) instead of the "
                                   "bundled one; it is copied, never changed")
    p.add_argument("--model", help="on the redesigned site, a broken tool's call falls back to the stepwise agent "
                                   "driven by this model (default: no model, the call fails its task)")
    p.add_argument("--only", help="comma-separated task ids of the app (default: every task with a plan)")
    p.add_argument("--heal-in-run", action="store_true",
                   help="a run that finds a broken tool heals it at once (toolcache heal in the run's browser session, "
                        "no model) and goes on with the healed tool; default: it fails its task, healed after the run")
    app_arg(p)
    add_browser_arg(p)
    json_arg(p)

    p = benches.add_parser("batch", help="tasks/min of a batch on 1, 2, 4 Ray workers, one site with its latency on")
    p.add_argument("--workers", default="1,2,4", help="comma-separated worker counts")
    p.add_argument("--repeat", type=positive_int, default=2, help="runs of the task list per worker count")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")
    p.add_argument("--ray", default=None, metavar="ADDRESS", help="a Ray cluster's address (default: a local one)")
    p.add_argument("--store", action="append", default=None, metavar="URL",
                   help="also measure claims per second of this effect store, repeatable (sqlite:///PATH, "
                        "postgresql://..., or postgresql:local for a throw-away server of this machine's PostgreSQL; its "
                        "rows are removed after)")
    tasks_arg(p)
    app_arg(p)
    json_arg(p)

    p = benches.add_parser("menus", help="state-path tool menus against relevance-only ones on the 300+ tool catalog: "
                                         "chain coverage, recall, NDCG, order, prompt tokens at K = 8/16/32")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated distractor tools")
    p.add_argument("-k", dest="ks", type=positive_int, action="append", default=None, metavar="K",
                   help="menu size, repeatable (default: 8, 16 and 32)")
    p.add_argument("--sections", action="store_true",
                   help="harder: one made-up site becomes a section of each bench app, its tools reachable from the "
                        "app's start (default: every made-up site stays apart)")
    p.add_argument("--no-held-out", action="store_true",
                   help="skip the leave-one-app-out measurement (menu knobs chosen on the other apps)")
    p.add_argument("--out", help="also write the JSON report to this file")
    json_arg(p)

    p = benches.add_parser("faults", help="writes under injected faults: 0 duplicated, 0 lost")
    p.add_argument("--runs", type=positive_int, default=None, help="faulted runs over the fault matrix (default 108)")
    p.add_argument("--processes", action="store_true",
                   help="run the matrix on Ray worker processes sharing an effect store (a kill fault kills the "
                        "worker process mid-write; needs pip install 'agentjit[ray]')")
    p.add_argument("--workers", type=positive_int, default=2, metavar="N", help="with --processes: Ray workers")
    p.add_argument("--store", action="append", default=None, metavar="URL",
                   help="with --processes: an effect store the runs take turns on, repeatable (sqlite:///PATH, "
                        "postgresql://..., or postgresql:local for a throw-away server of this machine's PostgreSQL; "
                        "default a temporary SQLite file; the bench's rows are removed after)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="with --processes: a running Ray cluster on this machine (default: a local one)")
    app_arg(p)
    add_browser_arg(p)
    json_arg(p)
