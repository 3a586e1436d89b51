"""What the commands share: the session (cache, model, planner, runtime) a command makes once,
the tasks it selects, the site it runs on, compiling with a heartbeat, the browser it uses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from agentjit.exceptions import ConfigError

from .errors import UsageError
from .output import _err, _warn

__all__ = ["use_browser"]


def _plan_cache_file(app: str) -> Path:
    return _user_file(app, "plans")


def _user_file(app: str, kind: str) -> Path:
    """A per-user file that stands in for a part of a bundled (read-only) cache:
    ``$XDG_CACHE_HOME/agentjit/APP-KIND.json`` (``~/.cache`` by default)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "agentjit" / f"{app}-{kind}.json"


def _app_name(args: argparse.Namespace) -> str | None:
    """The app profile a command uses: ``--app``, else ``food`` unless ``--cache`` is given."""
    app: str | None = getattr(args, "app", None)
    return app or (None if getattr(args, "cache", None) else "food")


def _session(args: argparse.Namespace) -> Any:
    """The command's :class:`~agentjit.session.Session`: the tool cache (``--cache DIR``, else the
    app's bundled one), the model (``--model``, made on first use), the planner, the scheduler and
    the runtime, each made once per command.

    Compiled plans of the bundled (read-only, packaged) cache are kept in a
    per-user file instead of the package directory (``--plan-cache``), and the
    latency fits ``profile --write`` stored for this user replace its own.
    """
    from agentjit.session import Session, open_cache

    session = getattr(args, "_session", None)
    if session is not None:
        return session
    if getattr(args, "cache", None):
        cache = open_cache(args.cache)
    else:
        from agentjit.tasks.apps import get_app

        app = _app_name(args) or "food"
        cache = open_cache(
            get_app(app).cache_dir, read_only=True, warn=_warn, latency_file=_user_file(app, "latency"),
            machine_file=_user_file(app, "machine"),
            plans_file=getattr(args, "plan_cache", None) or _plan_cache_file(app),
        )  # fmt: skip
    planner = {
        "n": getattr(args, "n", 4), "k": getattr(args, "k", 2), "max_repairs": getattr(args, "repairs", 2),
        "any_model": getattr(args, "any_model", False), "max_concurrency": getattr(args, "workers", None),
        "progress": _say_compile, "compile_budget_s": getattr(args, "compile_budget", None),
    }  # fmt: skip
    args._session = session = Session(
        cache, model=lambda: _model(getattr(args, "model", None)), trace_dir=getattr(args, "trace_dir", None),
        limits=_limits(args), planner_options=planner,
    )  # fmt: skip
    return session


def _load_cache(args: argparse.Namespace) -> Any:
    """The tool cache a command works on (the session's; loaded once per command)."""
    return _session(args).cache


def _say_compile(line: str) -> None:
    _err().print(f"  compile: {line}")


def _selected_tasks(args: argparse.Namespace) -> list[Any]:
    """The tasks a command runs: ``--tasks FILE`` (a task file) or the app's, narrowed by
    ``--tasks ID,ID`` or ``--only ID,ID``; unknown ids and an empty selection are errors.

    Loaded once per command (a task file's judges are imported once).
    """
    selected: list[Any] | None = getattr(args, "_selected_tasks", None)
    if selected is not None:
        return selected
    args._selected_tasks = selected = _select_tasks(args)
    return selected


def _select_tasks(args: argparse.Namespace) -> list[Any]:
    from agentjit.tasks.apps import get_app
    from agentjit.tasks.task import select_tasks
    from agentjit.tasks.taskfile import is_task_file, load_tasks

    spec = getattr(args, "tasks", None)
    only = getattr(args, "only", None)
    ids = only.split(",") if only else None
    if spec and is_task_file(spec):
        return select_tasks(load_tasks(spec), ids)
    if spec:
        ids = spec.split(",") + (ids or [])
    app = _app_name(args)
    if app is None:
        raise UsageError("no tasks: give --tasks FILE (a .jsonl or .toml task file) or --app NAME")
    return select_tasks(get_app(app).tasks(), ids)


def _title(args: argparse.Namespace) -> str:
    """What a command works on, for table titles: the app, or the cache directory."""
    return str(getattr(args, "cache", None) or _app_name(args))


_OPEN_MODELS: list[Any] = []


def _model(spec: str | None) -> Any:
    """The model for ``--model``; one per spec per command, closed when the command ends."""
    if not spec:
        return None
    from agentjit.llm import infer_model

    for name, model in _OPEN_MODELS:
        if name == spec:
            return model
    model = infer_model(spec)
    _OPEN_MODELS.append((spec, model))
    return model


async def _close_models() -> None:
    while _OPEN_MODELS:
        _, model = _OPEN_MODELS.pop()
        await model.aclose()


@contextlib.contextmanager
def use_browser(spec: str | list[str] | None) -> Iterator[None]:
    """Make ``--browser SPEC`` (checked here: a bad one is a ConfigError) the pool every
    part of the command opens; with none, ``AGENTJIT_BROWSER`` or a local Chromium."""
    from agentjit.runtime.browser import browser_default, parse_browser_spec

    if isinstance(spec, list):  # `batch`: several browsers, each checked here, none the default
        for one in spec:
            parse_browser_spec(one)
        spec = None
    elif spec is not None:
        parse_browser_spec(spec)
    elif os.environ.get("AGENTJIT_BROWSER"):
        parse_browser_spec(os.environ["AGENTJIT_BROWSER"])  # fail before anything starts
    token = browser_default.set(spec)
    try:
        yield
    finally:
        browser_default.reset(token)


def _limits(args: argparse.Namespace) -> Any:
    """The run's :class:`~agentjit.plan.PlanLimits` from ``--time-limit`` / ``--max-steps``, or None
    (the runtime's defaults) when neither is given."""
    from agentjit.plan import DEFAULT_LIMITS

    time_s, max_steps = getattr(args, "time_limit", None), getattr(args, "max_steps", None)
    if time_s is None and max_steps is None:
        return None
    return DEFAULT_LIMITS.with_(time_s=time_s, max_steps=max_steps)


def _planning(args: argparse.Namespace) -> Callable[..., Any]:
    """``plan_for`` of the demo and batch: compiles each task; what each compile did goes to
    ``args._compile_reports`` by task id (``demo --json`` prints it), with the plan it chose as ``plan``
    (a compile that found none has no ``plan``)."""
    from agentjit.plan.diagnostics import NoValidPlan
    from agentjit.planner.compiled import compile_report

    reports: dict[str, Any] = {}
    args._compile_reports = reports

    async def plan_for(task: Any, _bundled: Any) -> tuple[str, str]:
        try:
            compiled = await _compile(task.task, args)
        except NoValidPlan as exc:
            if exc.report is not None:
                reports[task.id] = exc.report
            raise
        reports[task.id] = {"origin": compiled.origin, "plan": compiled.source,
                            **compile_report(compiled.stats, compiled.usage, compiled.candidates, compiled.time_s)}
        return compiled.source, compiled.origin

    async def repair(task: Any, source: str, error: str, run_round: int) -> str:
        """A new plan after ``source`` failed when it ran (before any WRITE) with ``error``."""
        planner = _session(args).planner
        report = reports.setdefault(task.id, {})
        try:
            repaired = await planner.repair_after_run(task.task, source, error, run_round=run_round,
                                                      use_cache=not getattr(args, "no_plan_cache", False))  # fmt: skip
        except NoValidPlan as exc:
            report.setdefault("run_repairs", []).append(exc.report)
            raise
        report.setdefault("run_repairs", []).append(
            {"plan": repaired.source,
             **compile_report(repaired.stats, repaired.usage, repaired.candidates, repaired.time_s)})
        return repaired.source

    plan_for.repair = repair  # type: ignore[attr-defined]

    return plan_for


async def _compile(task: str, args: argparse.Namespace) -> Any:
    """Compile ``task`` with the session's planner, saying every so often that the model is slow."""
    if not args.model:
        raise UsageError("compiling a task needs --model (e.g. --model openai:gpt-4.1)")
    session = _session(args)
    model = session.model
    work = asyncio.ensure_future(session.compile(task, use_cache=not getattr(args, "no_plan_cache", False)))
    t0 = time.perf_counter()
    try:
        while not (await asyncio.wait({work}, timeout=_HEARTBEAT_S))[0]:
            _say_compile(_waiting(model, time.perf_counter() - t0))
    finally:
        work.cancel()  # no-op when it finished; Ctrl-C must not leave it running
    return work.result()


_HEARTBEAT_S = 15.0
"""Seconds between "still waiting" lines while a model is slow to answer."""


def _waiting(model: Any, elapsed: float) -> str:
    line = f"waiting for {model.name} at {getattr(model, 'base_url', None) or 'its API'}, {elapsed:.0f} s so far"
    pacing = getattr(model, "pacing", None)
    if pacing is not None and pacing.tokens_per_s is not None:
        line += f" (measured {pacing.tokens_per_s:.1f} tokens/s, a request waits up to {pacing.timeout_s():.0f} s)"
    return line


def _read_text(path: str) -> str:
    from agentjit.api import read_plan

    return read_plan(Path(path))


async def _on_site(args: argparse.Namespace, body: Callable[[str], Coroutine[Any, Any, Any]]) -> Any:
    """Await ``body(url)`` on ``--site URL``, or on the app's own site started for it (``--latency-scale``)."""
    if args.site:
        return await body(args.site)
    from agentjit.tasks.apps import get_app

    app = _app_name(args)
    if app is None:
        raise ConfigError("give --site URL (the site to run on) with --cache, or an --app whose site can be started")
    site = get_app(app).site(latency_scale=args.latency_scale)
    site.start()
    try:
        return await body(site.url)
    finally:
        site.stop()


def _demo_strategy(args: argparse.Namespace) -> Any:
    """The demo's strategy name (``auto``: the session schedules each task's plan)."""
    return args.strategy


def _plan_source_line(plan: Any) -> str:
    """Where a compiled plan came from, and what compiling it cost now."""
    if plan.origin == "cache":
        return f"plan: from the plan cache {plan.plan_cache} (compiled by {plan.model}); no model was called"
    if plan.origin == "template":
        return (f"plan: from the plan template of {plan.template_task!r} in {plan.plan_cache} with {plan.slot_values} "
                f"(compiled by {plan.model}); no model was called")
    st = plan.stats
    return (f"plan: compiled by {plan.model} in {plan.time_s:.1f} s, {st.answered} model calls answered, "
            f"tokens {plan.usage.input_tokens}+{plan.usage.output_tokens}")
