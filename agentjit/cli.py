"""The ``agentjit`` command line.

Every command that reports results takes ``--json`` and then prints one JSON
document on stdout (progress, if any, goes to stderr).

Errors are handled in one place, :func:`guarded` around the command dispatch
(the ``toolcache`` command line uses it too): any exception becomes one line on
stderr (with ``--json``, ``{"error": {"type", "message", "file", "line"}}`` on
stdout) and an exit code from :func:`exit_code` (README, "Exit codes"):

    0    ok
    1    the plan or task failed: rejected by the checker, a plan error or
         limit, a tool failure, a task its judge failed, ``check`` found it invalid
    2    usage or bad input: bad flags, a missing / unreadable / non-UTF-8 file,
         a malformed cache, trace or task file, an unknown app
    3    the site, the browser, the machine or the model service failed
    4    an internal error (a bug in agentjit; ``-v`` prints the traceback)
    130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentjit.exceptions import (
    AgentJITError,
    ConfigError,
    InfrastructureError,
    ModelError,
    PlanError,
    ToolError,
    UserError,
)

__all__ = ["main", "guarded", "exit_code", "error_json", "report_error", "Parser", "UsageError", "EXIT_CODES"]

log = logging.getLogger(__name__)

Handler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]
_COMMANDS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _COMMANDS[name] = fn
        return fn

    return register


def _out() -> Console:
    """The console for results. Markup is off: plans, tasks, tool names and site text print
    literally (``[s.name for s in xs]`` is code, not a style); styles come from :func:`styled`."""
    # piped or captured output gets a wide table instead of an 80-column guess
    wide = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(highlight=False, markup=False, soft_wrap=True, width=160 if wide else None)


def _columns(table: Table, names: tuple[str, ...], *, ids: set[str] | frozenset[str] = frozenset()) -> None:
    """Add ``names`` as columns of ``table``. The ``ids`` columns (task ids, tool names) never
    wrap nor get cut (``food-custo...``): at 80 columns Rich wraps the others instead."""
    for name in names:
        table.add_column(name, no_wrap=name in ids)


def _err() -> Console:
    """The console for progress and warnings (stderr); markup off as in :func:`_out`."""
    return Console(stderr=True, highlight=False, markup=False, soft_wrap=True)  # one line stays one line


def styled(label: str, style: str, rest: str = "") -> Text:
    """``label`` in ``style`` followed by ``rest``, both literal (no console markup is parsed)."""
    return Text.assemble((label, style), rest)


def _warn(text: str) -> None:
    """One warning line on stderr, plain text (never wrapped, no markup), whatever the terminal."""
    sys.stderr.write(_printable(f"warning: {_one_line(text)}") + "\n")


def _printable(text: str) -> str:
    """``text`` with lone surrogates (which no stream can encode) as ``\\udXXX`` escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def emit_json(data: Any) -> None:
    # a lone surrogate becomes the JSON escape \udXXX, so the document stays valid JSON
    # NaN and infinity become null: the output is strict JSON whatever a plan computed
    from agentjit.protocol import jsonio  # not at start-up: `agentjit --help` stays fast

    sys.stdout.write(_printable(jsonio.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n")
    sys.stdout.flush()


# -- errors and exit codes ----------------------------------------------------

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INFRASTRUCTURE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "ok",
    EXIT_FAILED: "the plan or task failed (rejected by the checker, a plan error or limit, a tool failure, a failed judge)",
    EXIT_USAGE: "usage or bad input (flags, a missing or unreadable file, a malformed cache, trace or task file)",
    EXIT_INFRASTRUCTURE: "the site, the browser, the machine or the model service failed",
    EXIT_INTERNAL: "an internal error (a bug in agentjit; run with -v for the traceback)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


class UsageError(ConfigError):
    """A command line that does not parse (argparse's errors, raised instead of exiting)."""


class Parser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing and exiting, so the one
    error handler can print it (as JSON with ``--json``)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside exception groups (all hedged replicas failed)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def exit_code(exc: BaseException) -> int:
    """The documented exit code for ``exc`` (see the module docstring)."""
    exc = _leaf(exc)
    if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
        return EXIT_INTERRUPTED
    if isinstance(exc, PlanError | ToolError):
        return EXIT_FAILED
    if isinstance(exc, UserError):
        return EXIT_USAGE
    if isinstance(exc, InfrastructureError | ModelError):
        return EXIT_INFRASTRUCTURE
    if isinstance(exc, AgentJITError):
        return EXIT_FAILED
    if isinstance(exc, OSError):  # a path we were told to read or write
        return EXIT_USAGE
    return EXIT_INTERNAL


def error_json(exc: BaseException, *, file: str | None = None) -> dict[str, Any]:
    """``{"error": {"type", "message", "file", "line", ...}}`` for ``exc``.

    ``file`` is the input the command was given (a plan file), used when the
    error does not name a file of its own.
    """
    exc = _leaf(exc)
    if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
        kind, message = "KeyboardInterrupt", "interrupted"
    else:
        kind, message = type(exc).__name__, str(exc) or type(exc).__name__
    own = getattr(exc, "path", None) or getattr(exc, "source", None) or getattr(exc, "filename", None)
    if own is None and isinstance(exc, PlanError):
        own = file
    line = getattr(exc, "line", None)
    body: dict[str, Any] = {
        "type": kind,
        "message": message,
        "file": str(own) if own is not None else None,
        "line": line if isinstance(line, int) else None,
        "exit_code": exit_code(exc),
    }
    diagnostics = getattr(exc, "diagnostics", None)
    if diagnostics and all(hasattr(d, "to_dict") for d in diagnostics):
        body["diagnostics"] = [d.to_dict() for d in diagnostics]
    limit = getattr(exc, "limit", None)
    if isinstance(limit, str):
        body["limit"] = limit
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list) and notes:  # e.g. why a failed run was not repaired
        body["message"] = "; ".join([message, *map(str, notes)])
    rounds = getattr(exc, "rounds", None)
    if isinstance(rounds, list):
        body["rounds"] = rounds
    return {"error": body}


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " | ", text.strip())


def report_error(exc: BaseException, *, prog: str, json_mode: bool, verbose: bool = False, file: str | None = None) -> int:
    """Print ``exc`` as one line on stderr (or JSON on stdout) and return its exit code."""
    code = exit_code(exc)
    data = error_json(exc, file=file)
    if verbose and code == EXIT_INTERNAL:
        traceback.print_exception(exc, file=sys.stderr)
    if json_mode:
        emit_json(data)
    else:
        err = data["error"]
        text = err["message"] if err["type"] == "KeyboardInterrupt" else f"{err['type']}: {err['message']}"
        if code == EXIT_INTERNAL:
            text = f"internal error (a bug in agentjit), {text}" + ("" if verbose else "; run with -v for the traceback")
        sys.stderr.write(_printable(f"{prog}: error: {_one_line(text)}") + "\n")
        sys.stderr.flush()
    return code


def guarded(body: Callable[[], int], *, prog: str, argv: Sequence[str], file: str | None = None) -> int:
    """Run ``body`` (a parsed command); turn every exception into a message and an exit code.

    The one error handler of the ``agentjit`` and ``toolcache`` command lines.
    ``argv`` decides the output form (``--json`` there means JSON on stdout)
    and ``-v`` whether an internal error prints its traceback.
    """
    json_mode = "--json" in argv
    verbose = "-v" in argv or "--verbose" in argv
    try:
        return body()
    except SystemExit as exc:  # argparse's --help, or a command that exits with a message
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        return report_error(UsageError(str(exc.code)), prog=prog, json_mode=json_mode, verbose=verbose, file=file)
    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
        return report_error(exc, prog=prog, json_mode=json_mode, verbose=verbose, file=file)
    except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - the one place every error ends up
        log.debug("%s failed", prog, exc_info=True)
        return report_error(exc, prog=prog, json_mode=json_mode, verbose=verbose, file=file)


def _checked(kind: Callable[[str], Any], test: Callable[[Any], bool], what: str) -> Callable[[str], Any]:
    """An argparse ``type=`` that also refuses values failing ``test`` (NaN, negative, ...)."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not test(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    convert.__name__ = kind.__name__  # argparse names the type in its messages
    return convert


nonneg_float = _checked(float, lambda v: math.isfinite(v) and v >= 0, "a number >= 0")
positive_float = _checked(float, lambda v: math.isfinite(v) and v > 0, "a number > 0")
positive_int = _checked(int, lambda v: v >= 1, "an integer >= 1")
nonneg_int = _checked(int, lambda v: v >= 0, "an integer >= 0")
port_int = _checked(int, lambda v: 0 <= v <= 65535, "a port number (0-65535)")


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
        from agentjit.bench.apps import get_app

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
    from agentjit.bench.apps import get_app
    from agentjit.bench.taskfile import is_task_file, load_tasks
    from agentjit.bench.tasks import select_tasks

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


async def _run_command(handler: Handler, args: argparse.Namespace) -> int:
    with use_browser(getattr(args, "browser", None)), exit_promptly_on_ctrl_c(json_mode=getattr(args, "json", False)):
        try:
            return await handler(args)
        finally:
            await _close_models()


CTRL_C_GRACE_S = 5.0
"""How long Ctrl-C's clean-up (closing contexts, the browser, the sandbox child, sites) may take
before the command kills what it started and exits 130 anyway."""


@contextlib.contextmanager
def exit_promptly_on_ctrl_c(grace_s: float = CTRL_C_GRACE_S, *, json_mode: bool = False) -> Iterator[None]:
    """Ctrl-C cancels the command (asyncio's own handler) and its clean-up runs; should that
    clean-up hang (a browser or driver that died with the same signal and never answers), the
    command still ends ``grace_s`` later: every process it started is killed and it exits 130.

    Installed inside the event loop, chained to the loop's SIGINT handler and removed on the way
    out, so an in-process caller (tests, notebooks) keeps its own handler.
    """
    import signal
    import threading

    chained = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(chained):
        yield  # SIG_IGN (a background job) stays ignored; SIG_DFL already ends the process at once
        return
    handler = chained  # narrowed to the callable: asyncio's handler, or Python's default KeyboardInterrupt
    timers: list[threading.Timer] = []

    def on_sigint(signum: int, frame: Any) -> None:
        if not timers:
            timer = threading.Timer(grace_s, _hard_exit, kwargs={"json_mode": json_mode})
            timer.daemon = True
            timer.start()
            timers.append(timer)
        handler(signum, frame)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        for timer in timers:
            timer.cancel()
        if signal.getsignal(signal.SIGINT) is on_sigint:
            signal.signal(signal.SIGINT, chained)


def _hard_exit(*, json_mode: bool) -> None:  # pragma: no cover - runs in a process about to die
    """Kill every process this one started (children first found, grandchildren too) and exit 130."""
    _kill_descendants()
    message = f"agentjit: interrupted (clean-up did not finish within {CTRL_C_GRACE_S:g} s; stopped what it started)"
    with contextlib.suppress(Exception):
        if json_mode:
            sys.stdout.write(json.dumps({"error": {"type": "KeyboardInterrupt", "message": "interrupted"}}) + "\n")
            sys.stdout.flush()
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def _kill_descendants() -> None:
    """SIGKILL every process this one started, their children too."""
    import signal

    from agentjit.runtime.processes import descendants

    for pid in descendants():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


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


async def _close_models() -> None:
    while _OPEN_MODELS:
        _, model = _OPEN_MODELS.pop()
        await model.aclose()


def add_browser_arg(p: argparse.ArgumentParser) -> None:
    """``--browser`` for a command that opens a browser (also used by ``toolcache``)."""
    p.add_argument("--browser", default=None, metavar="SPEC",
                   help="use a browser agentjit does not launch: ws://HOST:PORT/... (`playwright launch-server`) "
                        "or cdp=http://HOST:PORT (default: $AGENTJIT_BROWSER, else launch the local Chromium)")


# -- commands ---------------------------------------------------------------


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
    from agentjit.bench.apps import get_app

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


@command("run")
async def cmd_run(args: argparse.Namespace) -> int:
    from agentjit.api import read_plan
    from agentjit.bench.harness import jsonable

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
        where = f"plan cache {_load_cache(args).plans_file}" if origin == "cache" else f"the plan {args.model} compiled"
    session = _session(args)
    if compiled is None:
        prepared = session.prepare(source, strategy=args.strategy or "serial", origin=where)  # gate, usage, schedule
        result = await _on_site(args, lambda url: session.execute(prepared, site_url=url, task=args.task))
    else:  # a compiled plan that fails before its first WRITE goes back to the model (run-time repair)
        use_cache = not getattr(args, "no_plan_cache", False)
        compiled, result = await _on_site(args, lambda url: session.run_compiled(
            args.task, compiled, strategy=args.strategy or "serial", site_url=url, use_cache=use_cache))
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
    out.print(f"result: {data['value']!r}")
    return 0


def _plan_source_line(plan: Any) -> str:
    """Where a compiled plan came from, and what compiling it cost now."""
    if plan.origin == "cache":
        return f"plan: from the plan cache {plan.plan_cache} (compiled by {plan.model}); no model was called"
    st = plan.stats
    return (f"plan: compiled by {plan.model} in {plan.time_s:.1f} s, {st.answered} model calls answered, "
            f"tokens {plan.usage.input_tokens}+{plan.usage.output_tokens}")


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
    out.print(
        f"cost {plan.cost}, origin {plan.origin}, {st.sampled} sampled, {st.repaired} repairs, {st.valid} valid, "
        f"rejected {st.rejected_by_code}, {plan.time_s:.2f} s, tokens {plan.usage.input_tokens}+{plan.usage.output_tokens}"
    )
    return 0


def _read_text(path: str) -> str:
    from agentjit.api import read_plan

    return read_plan(Path(path))


async def _on_site(args: argparse.Namespace, body: Callable[[str], Coroutine[Any, Any, Any]]) -> Any:
    """Await ``body(url)`` on ``--site URL``, or on the app's own site started for it (``--latency-scale``)."""
    if args.site:
        return await body(args.site)
    from agentjit.bench.apps import get_app

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


@command("demo")
async def cmd_demo(args: argparse.Namespace) -> int:
    from agentjit.bench.harness import TaskResult, run_demo

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
    from agentjit.bench.harness import TaskResult, run_batch

    if args.taskfile is not None:
        args.tasks = args.taskfile
    tasks = _selected_tasks(args)
    unplanned = [t.id for t in tasks if not t.has_plan]
    if unplanned and not args.model:
        raise UsageError(f"no reference plan for task(s) {', '.join(unplanned)}: give --model to compile them")
    browsers: list[str | None] = list(args.browser or [None])
    progress_console = _err()

    def on_result(res: TaskResult) -> None:
        mark = styled("  ok", "green") if res.ok else styled("  FAIL", "red")
        progress_console.print(mark, f"{res.id} ({res.latency_s:.2f} s) {'' if res.ok else res.reason}")

    report = await run_batch(
        tasks, app_name=_app_name(args), browsers=browsers, cache=_load_cache(args),
        latency_scale=args.latency_scale, strategy=_demo_strategy(args), per_browser=args.per_browser,
        on_result=on_result, limits=_limits(args), plan_for=_planning(args) if args.model else None,
    )  # fmt: skip
    s = report.summary
    if args.json:
        emit_json({"tasks": [{k: getattr(r, k) for k in ("id", "ok", "latency_s", "plan_origin", "reason")} for r in report.tasks],
                   "summary": s})
    else:
        _out().print(f"agentjit batch: {s['passed']}/{s['total']} ok on {s['browsers']} browser(s) x {args.per_browser} "
                     f"worker(s): wall {s['wall_s']:.2f} s, {s['tasks_per_s']} tasks/s; per browser {s['per_browser']}")
    return 0 if s["passed"] == s["total"] else 1


@command("bench")
async def cmd_bench(args: argparse.Namespace) -> int:
    if args.bench == "sandbox":  # the hostile-plan corpus (issue 8)
        from agentjit.bench.sandbox_bench import bench_sandbox_command

        return await bench_sandbox_command(args)
    handler = _BENCHES.get(args.bench)
    if handler is None:
        raise UsageError(f"agentjit bench: unknown benchmark {args.bench!r} (known: {', '.join(sorted([*_BENCHES, 'sandbox']))})")
    return await handler(args)


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


def _progress() -> Any:
    """A progress display on stderr: Rich bars on a terminal, else (a pipe, a log, CI) one line
    per step, so a long command (``bench scheduler``, ``profile``) is never silent."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    err = _err()
    if not err.is_terminal:
        return _LineProgress(err)
    return Progress(
        TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_err(), transient=True,
    )  # fmt: skip


class _LineProgress:
    """The part of Rich's ``Progress`` the commands use, printing a line per update."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.tasks: list[list[Any]] = []  # [description, completed, total]
        self.t0 = time.perf_counter()

    def __enter__(self) -> _LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None) -> int:
        self.tasks.append([description, 0, total])
        return len(self.tasks) - 1

    def advance(self, task_id: int, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def update(self, task_id: int, *, advance: float = 0, description: str | None = None,
               completed: float | None = None, total: float | None = None) -> None:
        task = self.tasks[task_id]
        if description is not None:
            task[0] = description
        if total is not None:
            task[2] = total
        task[1] = (completed if completed is not None else task[1]) + advance
        of = f"/{task[2]:g}" if task[2] is not None else ""
        self.console.print(f"  {task[0]}: {task[1]:g}{of} ({time.perf_counter() - self.t0:.0f} s)")


@command("profile")
async def cmd_profile(args: argparse.Namespace) -> int:
    """Fit per-tool latencies from serial runs of every task; ``--write`` stores them in the cache."""
    from agentjit.bench.apps import get_app
    from agentjit.bench.overheads import overheads_record
    from agentjit.bench.scheduler_bench import profile_app, write_latency
    from agentjit.cache import ToolCache

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
        bar = progress.add_task("e2e", total=3 * len(runnable) * args.repeats)

        def on_run(task_id: str, run: Any) -> None:
            progress.update(bar, advance=1, description=f"{task_id} {run.side}")

        report = await run_e2e(
            _app_name(args) or "food", runs=args.repeats, model=_model(args.model),
            profile=args.llm_profile or ("none" if args.model else "gpt-4.1"), model_scale=args.llm_scale,
            latency_scale=args.latency_scale, task_ids=[t.id for t in tasks], seed=args.seed, command=command,
            on_run=on_run,
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
    return 0 if all(v == s["runs"][k] for k, v in s["passed"].items()) else 1


async def bench_planner(args: argparse.Namespace) -> int:
    """Compile every task afresh with ``--model``, run and judge it: candidates, valid rate, repairs, calls,
    tokens, seconds, judged right, pass@1 / pass@k per task (:mod:`agentjit.bench.planner_bench`)."""
    from agentjit.bench.harness import TaskResult, run_demo
    from agentjit.bench.planner_bench import planner_rows, planner_summary

    if not args.model:
        raise UsageError("agentjit bench planner needs --model (e.g. --model openai:gpt-4.1)")
    args.n, args.no_plan_cache, args.any_model = args.samples, True, False  # -n is the bench's repetitions
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


def _write_json_file(path: str, data: Any) -> None:
    """Write a report as JSON, creating its folder (atomically: temp file, then rename)."""
    from agentjit.cache.store import atomic_write_json

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(Path(path), data)


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
    from agentjit.bench.faults_bench import DEFAULT_RUNS, run_fault_matrix

    runs = args.runs or DEFAULT_RUNS
    with _progress() as progress:
        bar = progress.add_task("faults", total=runs)

        def on_run(done: int, total: int, record: Any) -> None:
            progress.update(bar, advance=1, description=f"{record.strategy} {record.fault} {record.task}: {record.status}")

        report = await run_fault_matrix(_app_name(args) or "food", runs=runs, on_run=on_run)
    data = report.to_json()
    if args.json:
        emit_json(data)
        return 0 if report.passed else 1
    table = Table(title=f"faults on {report.app}: {len(report.runs)} runs, judged from the site's state")
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


_BENCHES: dict[str, Handler] = {
    "overhead": bench_overhead, "scheduler": bench_scheduler, "isolation": bench_isolation, "e2e": bench_e2e,
    "contexts": bench_contexts, "faults": bench_faults, "planner": bench_planner,
}  # fmt: skip


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
    ``args._compile_reports`` by task id (``demo --json`` prints it)."""
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
        reports[task.id] = {"origin": compiled.origin,
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
            compile_report(repaired.stats, repaired.usage, repaired.candidates, repaired.time_s))
        return repaired.source

    plan_for.repair = repair  # type: ignore[attr-defined]

    return plan_for


# -- argument parsing -------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    from agentjit.plan import DEFAULT_LIMITS

    parser = Parser(
        prog="agentjit", description="A just-in-time compiler for browser tasks.",
        epilog="exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()),
    )  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output to stderr")
    parser.add_argument("--version", action="version", version=f"agentjit {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    def app_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--app", default=None, help="named app profile: its site, cache and tasks (default: food, unless --cache is given)")

    def site_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--site", help="base URL of a running site; nothing is started (default: start the app's own site)")

    def tasks_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--tasks", help="a task file (.jsonl or .toml), or comma-separated task ids of the app (default: all the app's tasks)")
        p.add_argument("--only", help="comma-separated task ids to run from --tasks FILE or the app")

    def cache_dir_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--cache", help="tool cache directory (default: the app's bundled cache)")

    def json_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")

    def strategy_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--strategy", default="auto", choices=["serial", "parallel", "hedge", "auto"], help="execution strategy (default: auto, the scheduler picks per plan)")

    def cache_args(p: argparse.ArgumentParser) -> None:
        cache_dir_arg(p)
        p.add_argument("--plan-cache", help="plan cache file for the bundled cache (default: ~/.cache/agentjit/APP-plans.json)")

    def planner_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                       help="most model requests in flight at once (default: -n; 1 while the server times out). "
                            "Use 1 or 2 for a local server that shares this machine's cores")
        p.add_argument("--any-model", action="store_true",
                       help="accept a plan cache entry compiled by another model (default: only --model's own plans)")
        p.add_argument("-n", type=positive_int, default=4, help="planner workers sampling in parallel")
        p.add_argument("-k", type=positive_int, default=2, help="valid candidates before early accept")
        p.add_argument("--repairs", type=nonneg_int, default=2, help="repair rounds per failed candidate (M)")
        p.add_argument("--no-plan-cache", action="store_true", help="always ask the model (and store nothing)")
        p.add_argument("--compile-budget", type=positive_float, default=None, metavar="SECONDS",
                       help="most seconds a compile may take: then the cheapest valid plan so far wins "
                            "(default: no limit; each repair after a failed run gets its own)")

    def limit_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                       help=f"wall-clock limit of one plan run, tool calls included (default: {DEFAULT_LIMITS.time_s:g} s)")
        p.add_argument("--max-steps", type=positive_int, default=None, metavar="N",
                       help=f"step budget of one plan run: loop iterations, comprehension items and calls "
                            f"(default: {DEFAULT_LIMITS.max_steps:,})")

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
    app_arg(p)
    cache_args(p)
    json_arg(p)
    strategy_arg(p)
    planner_args(p)
    limit_args(p)

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

    p = sub.add_parser("bench", help="benchmarks: overhead (tool call vs bare evaluate), scheduler, sandbox, "
                                     "isolation, contexts, e2e, faults, planner")
    p.add_argument("bench", help="which benchmark: overhead | scheduler | sandbox | isolation | contexts | e2e | faults | planner")
    p.add_argument("--runs", type=positive_int, default=None,
                   help="faulted runs over the fault matrix (faults; default 108)")
    p.add_argument("--corpus", help="hostile plan corpus directory (sandbox; default: tests/security/corpus)")
    p.add_argument("-n", type=positive_int, default=200, help="repetitions (overhead) or tool calls per plan (isolation)")
    p.add_argument("--tool", default="list_stores", help="a tool that stays on its page (overhead; default: list_stores)")
    p.add_argument("--repeats", "-R", type=positive_int, default=3, help="runs per task and strategy (scheduler)")
    p.add_argument("--profile-repeats", "-P", type=nonneg_int, default=2,
                   help="serial runs per task to fit latencies first (scheduler; 0 = use the cache's latency.json)")
    tasks_arg(p)
    p.add_argument("--seed", type=int, default=0, help="site latency and Monte Carlo seed (scheduler)")
    p.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="injected latency (0 = off)")
    p.add_argument("--llm-profile", default=None,
                   help="simulated model latency both sides pay (e2e): gpt-4.1 (default), paper-browser-use, "
                        "local-small, none (default with --model)")
    p.add_argument("--llm-scale", type=nonneg_float, default=1.0, help="multiply the profile's latency (e2e; 0 = free calls)")
    p.add_argument("--out", help="also write the JSON report to this file (e2e)")
    p.add_argument("--model", help="a real model both sides use instead of the oracle and the reference plans (e2e); "
                                   "the model whose compiles are measured (planner)")
    p.add_argument("--samples", type=positive_int, default=4, help="planner workers sampling in parallel (planner)")
    p.add_argument("-k", type=positive_int, default=2, help="valid candidates before early accept; pass@k (planner)")
    p.add_argument("--repairs", type=nonneg_int, default=2, help="repair rounds per failed candidate (planner)")
    p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="most model requests in flight at once (planner; default: --samples)")
    p.add_argument("--compile-budget", type=positive_float, default=None, metavar="SECONDS",
                   help="most seconds a compile may take (planner; default: no limit)")
    add_browser_arg(p)
    app_arg(p)
    site_arg(p)
    cache_dir_arg(p)
    json_arg(p)

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

    finish_parser(parser, sub)
    return parser


def finish_parser(parser: argparse.ArgumentParser, sub: Any) -> None:
    """Give every command ``-v`` (also after the command: ``agentjit run -v``) and a help that
    shows each option's default."""
    parser.formatter_class = HelpFormatter
    for command_parser in sub.choices.values():
        command_parser.formatter_class = HelpFormatter
        if "-v" not in command_parser._option_string_actions:
            command_parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                                        help="log debug output to stderr")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, with ``(default: X)`` after each option whose help does not name its default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if not action.option_strings or "default" in text or default is None or default is False or default == []:
            return text
        if default is argparse.SUPPRESS:
            return text
        return f"{text} (default: %(default)s)"


def _version() -> str:
    from agentjit._version import __version__

    return __version__


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command; every error goes through :func:`guarded`."""
    argv = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        args = build_parser().parse_args(argv)
        logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
        return asyncio.run(_run_command(_COMMANDS[args.command], args))

    plan = next((a for a in argv if a.endswith(".py") and not a.startswith("-")), None)
    return guarded(body, prog="agentjit", argv=argv, file=plan)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
