"""``agentjit bench planner``: what a model's compiles give on an app's tasks.

Every task is compiled afresh (no plan cache) with the model, its plan runs in Chromium (a plan that fails
before any WRITE goes back to the model, as ``run --task`` does) and the site's own judges say whether it
was right. Per task: candidates, valid ones, static repairs, run-time repairs, model calls, tokens,
compile seconds, judged right, pass@1 / pass@k over the compile's sample chains (a chain is one planner
worker: a first sample and its repairs; it passes when it ended with a valid plan), and the sources: the
plan that ran last and every candidate's, with its findings and run-time error.

The rows are built from what ``demo --model`` records (:func:`agentjit.planner.compiled.compile_report`
per compile, the run's rounds per task): :func:`planner_rows` and :func:`planner_summary` are pure.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from agentjit.planner import pass_at_k

__all__ = ["planner_rows", "planner_summary"]


def _compiles(report: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The task's compile and each repair after a failed run, in order."""
    if not report:
        return []
    first = [report] if "candidates" in report else []
    return first + [r for r in report.get("run_repairs") or [] if r]


def _final_plan(compiles: Sequence[Mapping[str, Any]]) -> str | None:
    """The source of the plan the task ran last: the latest compile or run-time repair that chose one."""
    chosen = [comp["plan"] for comp in compiles if comp.get("plan") is not None]
    return chosen[-1] if chosen else None


def _plans(cands: Sequence[Mapping[str, Any]], run_rounds: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every candidate's source with what was found wrong with it: the checker's findings and, for a plan
    that passed it and then failed when it ran, the run-time error the model was shown."""
    failed = {r.get("source"): r.get("error") for r in run_rounds}
    plans = []
    for c in cands:
        ran = c.get("valid") and c.get("source") in failed
        plans.append({"worker": c.get("worker", 0), "attempt": c.get("attempt", 0), "run_round": c.get("run_round", 0),
                      "valid": bool(c.get("valid")), "source": c.get("source"), "diagnostics": c.get("diagnostics", []),
                      "run_error": failed[c.get("source")] if ran else None})  # fmt: skip
    return plans


def planner_rows(tasks: Sequence[Any], reports: Mapping[str, Any], *, k: int) -> list[dict[str, Any]]:
    """One row per judged task (:class:`~agentjit.bench.harness.TaskResult`) from its compile ``reports``.

    Besides the counts, a row keeps the sources: ``plan``, the plan the task ran last (None when no compile
    chose one), ``plans``, every candidate's source with its static findings and run-time error, and
    ``run_failures``, each run that failed before any WRITE (its error and source) and went back to the model.
    """
    rows: list[dict[str, Any]] = []
    for res in tasks:
        compiles = _compiles(reports.get(res.id))
        cands = [c for comp in compiles for c in comp.get("candidates", [])]
        run_rounds = list(getattr(res, "run_rounds", None) or [])
        first = [c for c in cands if c.get("run_round", 0) == 0]
        chains: dict[int, bool] = {}
        for c in first:  # a chain passes when any of its candidates is valid (it stops at the first)
            chains[c["worker"]] = chains.get(c["worker"], False) or bool(c["valid"])
        n, c_ok = len(chains), sum(chains.values())
        codes: dict[str, int] = {}
        for cand in cands:
            for code in cand.get("codes", []):
                codes[code] = codes.get(code, 0) + 1
        rows.append({
            "id": res.id,
            "right": bool(res.ok),
            "plan_origin": res.plan_origin,
            "candidates": len(cands),
            "valid": sum(bool(c["valid"]) for c in cands),
            "valid_rate": round(sum(bool(c["valid"]) for c in cands) / len(cands), 3) if cands else None,
            "static_repairs": sum(1 for c in cands if c.get("attempt", 0) > 0),
            "run_repairs": len(run_rounds),
            "model_calls": sum(int(comp.get("model_calls", 0)) for comp in compiles),
            "input_tokens": sum(int(comp.get("input_tokens", 0)) for comp in compiles),
            "output_tokens": sum(int(comp.get("output_tokens", 0)) for comp in compiles),
            "compile_s": round(sum(float(comp.get("time_s", 0.0)) for comp in compiles), 3),
            "chains": n,
            "pass_at_1": round(pass_at_k(n, c_ok, 1), 3) if n else 0.0,
            "pass_at_k": round(pass_at_k(n, c_ok, min(k, n)), 3) if n else 0.0,
            "findings": dict(sorted(codes.items())),
            "reason": "" if res.ok else res.reason,
            "plan": _final_plan(compiles),
            "plans": _plans(cands, run_rounds),
            "run_failures": [{"round": r.get("round"), "error": r.get("error"), "source": r.get("source")}
                             for r in run_rounds],
        })
    return rows


def planner_summary(rows: Sequence[Mapping[str, Any]], *, k: int) -> dict[str, Any]:
    """Totals over the rows: valid-plan rate, tasks right, compile seconds, model calls, tokens, mean pass@1/@k."""
    cands = sum(r["candidates"] for r in rows)
    secs = [r["compile_s"] for r in rows]
    findings: dict[str, int] = {}
    for r in rows:
        for code, count in r["findings"].items():
            findings[code] = findings.get(code, 0) + count
    return {
        "tasks": len(rows),
        "right": sum(r["right"] for r in rows),
        "compiled": sum(r["plan_origin"] != "none" for r in rows),
        "candidates": cands,
        "valid": sum(r["valid"] for r in rows),
        "valid_rate": round(sum(r["valid"] for r in rows) / cands, 3) if cands else None,
        "static_repairs": sum(r["static_repairs"] for r in rows),
        "run_repairs": sum(r["run_repairs"] for r in rows),
        "model_calls": sum(r["model_calls"] for r in rows),
        "input_tokens": sum(r["input_tokens"] for r in rows),
        "output_tokens": sum(r["output_tokens"] for r in rows),
        "compile_s_total": round(sum(secs), 3),
        "compile_s_median": round(statistics.median(secs), 3) if secs else None,
        "pass_at_1": round(statistics.mean(r["pass_at_1"] for r in rows), 3) if rows else None,
        "k": k,
        "pass_at_k": round(statistics.mean(r["pass_at_k"] for r in rows), 3) if rows else None,
        "findings": dict(sorted(findings.items())),
    }
