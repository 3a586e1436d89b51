"""How well a cache survives a redesign: tools broken, tools healed, time to heal, task pass rates (issue 21).

::

    agentjit bench heal --app food --seed 7 [--wrap 0.3] [--rounds 4] [--json]
    agentjit bench heal --app roundup --template jinja2     # Roundup's own redesign: another template, same schema
    agentjit bench heal --app roundup --template jinja2 --cache DIR   # a cache of your own build, not the bundled one
    agentjit bench heal --app food --model SPEC [--only ID,...]     # broken tools' calls fall back to the agent

Starts the bundled app (latency off), runs every task's reference plan on the
original site (the baseline), then puts a :class:`~agentjit.bench.redesign.RedesignProxy`
in front of it (every compound class, id and ``data-testid`` renamed by
``seed``, a ``wrap`` share of buttons wrapped) and, on a copy of the app's
cache, repeats: run every task with suspects recorded, ``heal`` the suspects;
until every task passes with no fallback, nothing new is suspect, or ``rounds`` ran
(each heal also probes the tools no run found suspect, unless ``probe`` is off).
Without ``model`` no model is used: a broken tool fails its task (no fallback),
which is what marks it suspect. With ``model`` (``--model SPEC``) a broken
tool's call falls back to the stepwise agent driven by that model, as
``agentjit run --model`` does, and each run reports its fallbacks (calls, model
calls, seconds): run 1 shows whether the tasks pass anyway, a run after a heal
that it needs none. Read-only on the redesigned site except for the tasks' own writes
(the site is reset before each task). Healing is the user's own command,
``toolcache heal --json``, run as a process (nothing in agentjit imports the
builder).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.suspects import sign_in_secrets
from agentjit.exceptions import ConfigError, InfrastructureError
from agentjit.llm import Model
from agentjit.runtime import BrowserPool, Runtime
from agentjit.runtime.healing import ToolFallback, heal_process
from agentjit.runtime.repair import HealInRun
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import run_task

from .redesign import RedesignProxy

__all__ = ["measure", "HEAL_TIMEOUT_S"]

HEAL_TIMEOUT_S = 600.0
"""The longest one ``toolcache heal`` may take before the bench gives up on it (probing adds
:data:`~agentjit.runtime.healing.PROBE_S_PER_TOOL` per tool of the cache)."""

TOOL_TIMEOUT_MS = 8_000
"""Each tool call's check and navigation limit: a broken tool fails in 8 s; a slow, shared machine is not broken."""


async def _run_all(cache: ToolCache, url: str, site: Any, tasks: list[Any], pool: BrowserPool,
                   *, record: bool, fallback: ToolFallback | None = None,
                   repair: HealInRun | None = None) -> list[dict[str, Any]]:  # fmt: skip
    runtime = Runtime(cache, url, pool=pool, record_suspects=record, tool_timeout_ms=TOOL_TIMEOUT_MS, fallback=fallback,
                      repair=repair)  # fmt: skip
    out = []
    for task in tasks:
        res = await run_task(task, task.plan_source(), runtime=runtime, site=site)
        out.append({"id": task.id, "ok": res.ok, "latency_s": round(res.latency_s, 3), "reason": None if res.ok else res.reason,
                    "fallbacks": res.fallbacks})  # fmt: skip
    return out


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    lat = [r["latency_s"] for r in runs if r["ok"]]
    every = [r["latency_s"] for r in runs]
    fell = [f for r in runs for f in r["fallbacks"] if f.get("how") != "heal"]
    mended = [f for r in runs for f in r["fallbacks"] if f.get("how") == "heal"]
    return {"passed": sum(r["ok"] for r in runs), "tasks": len(runs),
            "median_latency_s": round(statistics.median(lat), 3) if lat else None,
            "total_latency_s": round(sum(every), 2),
            "latency_s": {r["id"]: r["latency_s"] for r in runs},
            "failed": {r["id"]: r["reason"] for r in runs if not r["ok"]},
            "fallbacks": {r["id"]: r["fallbacks"] for r in runs if r["fallbacks"]},
            "fallback_calls": len(fell),
            "healed_calls": len(mended),
            "fallback_model_calls": sum(int(f.get("model_calls") or 0) for f in fell),
            "fallback_s": round(sum(float(f.get("time_s") or 0.0) for f in fell), 2)}  # fmt: skip


async def _heal(cache_dir: Path, site_url: str, tools: list[str], secrets: dict[str, str],
                probe: bool = True) -> dict[str, Any]:  # fmt: skip
    """``toolcache heal --json`` on ``tools``: its report (exit 1 only means some stayed broken); signed in with
    ``secrets`` when the tasks sign in; ``probe``: probing the other tools too."""
    code, out, err = await heal_process(str(cache_dir), site_url, tools, secrets, HEAL_TIMEOUT_S, probe=probe)
    if code not in (0, 1):
        why = "ran past its time limit" if code is None else f"exited {code}"
        raise InfrastructureError(f"toolcache heal {why}: {(err.strip() or out.strip())[-800:]}")
    report: dict[str, Any] = json.loads(out)
    return report


def _state(site: Any) -> Any:
    """The site's own state (``/__state``), or None for a site without it."""
    state = getattr(site, "state", None)
    return state() if callable(state) else None


@contextlib.contextmanager
def _redesigned(site: Any, seed: int, wrap: float, template: str | None) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """The redesigned site: ``(url, site to reset and judge, facts)``; the proxy in front of ``site``, or with
    ``template`` the same app started again with another of its templates (Roundup's ``jinja2``)."""
    if template is None:
        with RedesignProxy(site.url, seed, wrap=wrap) as proxy:
            facts: dict[str, Any] = {"redesign": "proxy"}
            yield proxy.url, site, facts
            facts["renamed_names"] = len(proxy.redesign.names)
        return
    if "template" not in inspect.signature(type(site)).parameters:
        raise ConfigError(f"the app's site {type(site).__name__} has no templates (--template is for roundup)")
    other = type(site)(latency_scale=0, template=template)
    other.start()
    try:
        yield other.url, other, {"redesign": f"template {template}"}
    finally:
        other.stop()


async def measure(app_name: str = "food", *, seed: int = 7, wrap: float = 0.3, rounds: int = 4,
                  template: str | None = None, cache: str | Path | None = None, probe: bool = True,
                  model: Model | None = None, only: list[str] | None = None, in_run: bool = False) -> dict[str, Any]:  # fmt: skip
    """Run 1 on the redesigned site, heal, run 2 (and so on, at most ``rounds`` runs); each against the original.
    ``cache``: a cache of the app to measure (copied) instead of the bundled one. ``probe``: each heal probes the
    tools no run found suspect and heals those found broken (``toolcache heal``'s default). ``model``: the calls of
    broken tools on the redesigned site fall back to the stepwise agent driven by it (never on the original).
    ``only``: these task ids of the app (default: every task with a plan). ``in_run``: a broken tool is healed in the
    run that finds it (:class:`~agentjit.runtime.repair.HealInRun`, before any model fallback), in that run's browser
    session, and the call goes on with the healed tool; the heal between runs then takes what is left."""
    app = get_app(app_name)
    tasks = [t for t in app.tasks() if t.has_plan]
    if only:
        unknown = sorted(set(only) - {t.id for t in tasks})
        if unknown:
            raise ConfigError(f"no task {', '.join(unknown)} with a plan in app {app_name}")
        tasks = [t for t in tasks if t.id in only]
    fallback = None
    if model is not None:
        from agentjit.agent import agent_tool_fallback

        fallback = agent_tool_fallback(model)
    site = app.site(latency_scale=0)
    site.start()
    try:
        with tempfile.TemporaryDirectory(prefix="heal-bench-") as tmp:
            cache_dir = Path(tmp) / "cache"
            shutil.copytree(app.cache_dir if cache is None else cache, cache_dir)
            for stale in ("suspects.json", "plans.json"):
                (cache_dir / stale).unlink(missing_ok=True)
            report: dict[str, Any] = {"app": app_name, "seed": seed, "wrap": wrap, "probe": probe, "tools": 0, "rounds": [],
                                      "cache": "bundled" if cache is None else str(cache),
                                      "model": None if model is None else getattr(model, "name", str(model))}  # fmt: skip
            async with BrowserPool.from_spec() as pool:
                original = ToolCache.load(cache_dir)
                report["tools"] = len(original.tools)
                secrets = sign_in_secrets(original, [t.plan_source() for t in tasks])
                # recorded: each tool's good page is kept, for heal to see what its selectors matched
                report["original"] = _summary(await _run_all(original, site.url, site, tasks, pool, record=True))
                with _redesigned(site, seed, wrap, template) as (url, judged, facts):
                    broken: set[str] = set()
                    healed: set[str] = set()
                    not_healed: dict[str, str] = {}
                    heal_s = 0.0
                    for _round in range(rounds):
                        repair = HealInRun(cache_dir, url) if in_run else None
                        runs = await _run_all(ToolCache.load(cache_dir), url, judged, tasks, pool, record=True,
                                              fallback=fallback, repair=repair)  # fmt: skip
                        summary = _summary(runs)
                        suspects = set(SuspectStore(cache_dir).suspects())
                        summary["suspects"] = sorted(suspects)
                        report["rounds"].append(summary)
                        if repair is not None:
                            summary["healed_in_run"] = repair.reports
                            summary["heal_in_run_s"] = round(sum(r.get("time_s") or 0.0 for r in repair.reports), 2)
                            heal_s += summary["heal_in_run_s"]
                            broken |= {r["tool"] for r in repair.reports}
                            healed |= {r["tool"] for r in repair.reports if r["healed"]}
                        new = suspects - set(not_healed)
                        if summary["passed"] == summary["tasks"] and not summary["fallback_calls"] and not summary["healed_calls"]:
                            break
                        if not new:
                            if summary["healed_calls"]:
                                continue  # healed in the run: the next run shows whether it needs anything more
                            break
                        broken |= new
                        before = _state(judged)
                        t0 = time.perf_counter()
                        try:
                            heal = await _heal(cache_dir, url, sorted(new), secrets, probe)
                        except InfrastructureError as exc:  # a heal past its limit: the runs so far still count
                            summary["heal_s"] = round(time.perf_counter() - t0, 2)
                            summary["heal_error"] = str(exc)
                            heal_s += summary["heal_s"]
                            not_healed.update({name: str(exc) for name in new})
                            break
                        summary["heal_s"] = round(time.perf_counter() - t0, 2)
                        # healing is read-only: the site's own state says whether anything reached it
                        summary["site_unchanged_by_heal"] = None if before is None else _state(judged) == before
                        heal_s += summary["heal_s"]
                        summary["healed"] = heal.get("healed") or []
                        if probe:
                            probed = heal.get("probed") or []
                            summary["probed"] = len(probed)
                            summary["probe_s"] = round(sum(p["seconds"] for p in probed), 2)
                            summary["probe_found"] = sorted(p["tool"] for p in probed if p["suspect"])
                            summary["probe_reasons"] = {p["tool"]: p["reason"] for p in probed if p["ok"] is not True}
                            broken |= set(summary["probe_found"])
                        summary["signed_in"] = heal.get("signed_in")
                        healed |= set(summary["healed"])
                        not_healed.update(heal.get("failed") or {})
                report.update(facts)
                report.update(tools_broken=sorted(broken), tools_healed=sorted(healed), not_healed=not_healed,
                              heal_s=round(heal_s, 2))  # fmt: skip
    finally:
        site.stop()
    return report
