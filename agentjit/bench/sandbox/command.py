"""``agentjit bench sandbox``: the hostile plans, caches and sites, as a table or ``--json``."""

from __future__ import annotations

import sys
from typing import Any

from agentjit.protocol import jsonio

from .caches import CASES as CACHE_CASES
from .caches import run_cache_corpus
from .corpus import DEFAULT_CORPUS, load_corpus
from .runner import run_corpus
from .sites import TEXTS as SITE_TEXTS
from .sites import run_site_corpus
from .verdicts import PlanVerdict

__all__ = ["bench_sandbox_command"]

async def bench_sandbox_command(args: Any) -> int:
    """``agentjit bench sandbox [--corpus DIR] [--json]``: the hostile plans, then the hostile caches
    (:mod:`.caches`) and sites (:mod:`.sites`); exit 0 when
    nothing got through any of them."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table
    from rich.text import Text

    corpus = getattr(args, "corpus", None) or DEFAULT_CORPUS
    plans = load_corpus(corpus)
    err = Console(stderr=True, highlight=False)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=True)
    with progress:
        bar = progress.add_task("hostile plans", total=len(plans))

        def on_verdict(v: PlanVerdict) -> None:
            progress.update(bar, advance=1, description=v.cls)

        report = await run_corpus(corpus, plans=plans, on_verdict=on_verdict)
        bar = progress.add_task("hostile caches", total=sum(len(c.expect) for c in CACHE_CASES))
        caches = await run_cache_corpus(CACHE_CASES, on_verdict=lambda v: progress.update(bar, advance=1,
                                                                                           description=v.case))
        bar = progress.add_task("hostile sites", total=len(SITE_TEXTS))
        sites = await run_site_corpus(SITE_TEXTS, on_verdict=lambda v: progress.update(bar, advance=1,
                                                                                        description=v.text))
    ok = report.ok and caches.ok and sites.ok
    if getattr(args, "json", False):
        data = {**report.to_dict(), "caches": caches.to_dict(), "sites": sites.to_dict()}
        sys.stdout.write(jsonio.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
        return 0 if ok else 1
    out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
    table = Table(title=Text(f"hostile plans: {len(plans)} from {corpus}"))
    for col in ("class", "plans", "reject/stopped/ok", "escapes", "hangs", "crashes", "mismatches", "gate", "time s"):
        table.add_column(col, justify="left" if col == "class" else "right")

    def row(r: dict[str, Any]) -> None:
        def n(key: str) -> Text:
            return Text(str(r[key]), style="red" if r[key] else "")

        table.add_row(Text(str(r["class"])), str(r["plans"]), f"{r['reject']}/{r['stopped']}/{r['ok']}",
                      n("escapes"), n("hangs"), n("crashes"), n("mismatches"), str(r["gate"]), f"{r['time_s']:.1f}")

    for r in report.classes():
        row(r)
    table.add_section()
    row(report.totals)
    out.print(table)
    t = report.totals
    limit = "" if report.limits_supported else ", which this runtime does not take"
    out.print(Text(f"escapes {t['escapes']}, hangs {t['hangs']}, crashes {t['crashes']}, mismatches {t['mismatches']}; "
                   f"wall time {report.wall_s:.1f} s (plan time limit {report.time_limit_s:g} s{limit}, "
                   f"grace {report.grace_s:g} s), {report.worker_restarts} worker restarts, {report.browser}"))
    if t["gate"]:
        out.print(Text(f"gate: {t['gate']} plans labelled reject ran to completion (`run` does not apply the checker)"))
    for v in report.failures:
        line = Text(v.id, style="red")
        line.append(" " + "; ".join(p.replace("\n", " ")[:300] for p in v.problems()))
        out.print(line)
    c = caches.totals
    out.print(Text(f"hostile caches: {len({v.case for v in caches.verdicts})} caches, {c['commands']} commands "
                   f"(tools, check, run): escapes {c['escapes']}, hangs {c['hangs']}, crashes {c['crashes']}, "
                   f"mismatches {c['mismatches']}; wall time {caches.wall_s:.1f} s"))
    for cv in caches.verdicts:
        if not cv.ok:
            out.print(Text(f"{cv.case} {cv.command}: exit {cv.exit_code} (expected {cv.expected}) {cv.stderr_tail}",
                           style="red"))
    st = sites.totals
    out.print(Text(f"hostile sites: {st['sites']} texts recorded, built and run: {st['injected']} injected requests, "
                   f"{st['unsafe_patterns']} unsafe patterns, {st['failures']} failures; wall time {sites.wall_s:.1f} s"))
    for sv in sites.verdicts:
        if not sv.ok:
            out.print(Text(f"{sv.text}: {sv.injected} injected; " + "; ".join(sv.problems), style="red"))
    return 0 if ok else 1
