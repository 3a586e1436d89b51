"""``toolcache``: record demonstrations, import browser-use histories, build a verified cache.

::

    toolcache record --app food traces/food/scripts/*.json -o /tmp/food-traces/ [--repeat N] [--force]
    toolcache import-browser-use history.json -o traces/imported/ [--site food]
    toolcache build traces/food -o CACHE [--site URL | --app food] [--model M] [--json]
        [--verify-writes recorded|live|none] [--reset-command CMD] [--secret NAME=VALUE] [--sign-in]
    toolcache heal --cache CACHE --site URL [--tool NAME] [--no-probe] [--json] [--sign-in [--secret NAME=VALUE | --secrets-stdin]]
                   [--session-stdin]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agentjit.cli.options import nonneg_float, positive_float, positive_int
from agentjit.exceptions import ConfigError

from .script import STEP_TIMEOUT_S

__all__ = ["main"]

WRITE_MODES = ("recorded", "live", "none")
"""``--verify-writes`` (toolcache.verify.WRITE_MODES; not imported from there: ``--help`` stays light)."""

log = logging.getLogger(__name__)


@contextlib.contextmanager
def _site(args: argparse.Namespace, *, latency_scale: float) -> Iterator[tuple[str | None, str | None]]:
    """``(base_url, app)``: the ``--site`` URL, or the bundled app started in-process."""
    if getattr(args, "site", None):
        yield args.site, getattr(args, "app", None)
        return
    app = getattr(args, "app", None)
    if app is None:
        yield None, None
        return
    from agentjit.tasks.apps import get_app

    site = get_app(app).site(latency_scale=latency_scale)  # any registered profile: food, roundup, ...
    site.start()
    try:
        yield site.url, app
    finally:
        site.stop()


def _cmd_record(args: argparse.Namespace) -> int:
    from .record import output_paths, record_scripts
    from .script import load_script

    scripts = [load_script(p) for p in args.scripts]
    existing = [str(p) for p in output_paths(scripts, args.output, args.repeat) if p.exists()]
    if existing and not args.force:  # `-o traces/food/` would silently replace the recorded traces
        more = f" and {len(existing) - 1} more" if len(existing) > 1 else ""
        raise ConfigError(f"record would overwrite {existing[0]}{more}; pass --force to replace them, or -o a new directory")
    with _site(args, latency_scale=args.latency_scale) as (url, app):
        if url is None:
            raise ConfigError("record needs --site URL or --app food")
        paths = asyncio.run(record_scripts(scripts, url, args.output, repeat=args.repeat, site=app or args.site_name,
                                           step_timeout_s=args.step_timeout, on_trace=lambda p: print(p, flush=True)))
    from agentjit.protocol.trace import read_trace

    failed = 0
    for p in paths:
        bad = next((st for st in read_trace(p).steps if not st.ok), None)
        if bad is not None:  # the trace stops at it: what follows was never demonstrated
            failed += 1
            print(f"{p}: step {bad.index} ({bad.action}) failed, the recording stops there: {bad.reason}", file=sys.stderr)
    return 1 if failed else 0


def _cmd_import(args: argparse.Namespace) -> int:
    from .browser_use import import_history

    out = Path(args.output)
    for src in args.histories:
        dest = out / (Path(src).stem + ".jsonl") if out.suffix != ".jsonl" else out
        import_history(src, dest, site=args.site_name)
        print(dest)
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from agentjit.cli.output import emit_json, styled

    from .build import STAGES, build_cache, trace_files

    err = Console(stderr=True, markup=False)  # trace paths and site text print literally
    _check_write_flags(args)
    model = None
    if args.model:
        from agentjit.llm import infer_model

        model = infer_model(args.model)
    t0 = time.perf_counter()
    with _site(args, latency_scale=0.0) as (url, app):
        reset = _reset_between_traces(args, url)

        with Progress(TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True, disable=args.json and not err.is_terminal) as prog:
            # totals known before the build: one per trace file (load, verify), one step (codegen, save);
            # the others (snapshots, steps, latency keys) as soon as their stage starts, "?" until then
            n_files = len(trace_files(args.traces))
            known = {"load": n_files, "verify": n_files, "codegen": 1, "save": 1}
            tasks = {s: prog.add_task(s, total=known.get(s)) for s in STAGES if s != "verify" or url is not None}

            def progress(stage: str, done: int, total: int) -> None:
                if stage in tasks:
                    prog.update(tasks[stage], completed=done, total=total)

            secrets = _secrets(args.secret)
            cache, report = asyncio.run(build_cache(args.traces, args.output, base_url=url, app=app or args.app_name,
                                                    model=model, reset=reset, progress=progress, secrets=secrets,
                                                    writes=args.verify_writes, step_timeout_s=args.step_timeout,
                                                    workflow=not args.no_workflow_tools, sign_in=args.sign_in))
    elapsed = time.perf_counter() - t0
    for trace, login in report.sessions_expired.items():
        n = sum(1 for why in report.unverified.values() if trace in why)
        err.print(f"toolcache: {trace}: the site sent its sign-in page ({login}) where the demonstration was signed in: "
                  f"its saved session has expired (or it saved none); {n} tools behind it are not verified. Record it "
                  "again, or build with --sign-in to sign in live (that sends the sign-in to the site).", markup=False)
    data = report.to_json()
    data["wall_s"] = round(elapsed, 2)
    if args.json:
        emit_json(data)
    else:
        out = Console(markup=False)
        t = Table(title=f"toolcache build -> {args.output} ({elapsed:.1f} s)")
        t.add_column("what")
        t.add_column("figure", justify="right")
        t.add_row("traces read / bad", f"{report.traces} / {len(report.bad_traces)}")
        t.add_row("steps (labeled / unlabeled)", f"{report.steps} ({report.labeled} / {report.unlabeled})")
        t.add_row("pages", ", ".join(report.pages))
        t.add_row("elements", str(report.elements))
        t.add_row("tools synthesized", str(len(report.synthesized)))
        t.add_row("tools verified", str(len(report.verified)) if url else "not verified (no --site/--app)")
        if url:
            t.add_row("writes verified", report.verify_writes or "")
            t.add_row("sent to the site", ", ".join(f"{s['tool']} ({s['request']})" for s in report.sent_live) or "nothing")
        t.add_row("tools kept unverified", str(len(report.unverified)))
        t.add_row("tools rejected", str(len(report.rejected)))
        t.add_row("relations kept / tested", f"{sum(len(v) for v in report.relations.values())} / {len(report.relation_tests)}")
        t.add_row("distributions", str(len(report.distributions)))
        if report.workflow is not None:
            t.add_row("workflow tools made / kept", f"{len(report.workflow['made'])} / {len(report.workflow['kept'])}")
        cov = report.coverage
        if cov is not None:
            t.add_row("steps covered by a tool", f"{cov.covered} / {cov.steps} ({cov.fraction:.0%})")
        out.print(t)
        for miss in (cov.missed if cov is not None else []):
            where = f"{miss['trace']} step {miss['index']} ({miss['action']} on {miss['page']})"
            out.print(styled("not covered", "yellow", f" {where}: {miss['why']} {miss['element'] or miss['target']}"))
        for name, reason in report.rejected.items():
            out.print(styled("rejected", "red", f" {name}: {reason}"))
        for name, reason in report.unverified.items():
            out.print(styled("unverified", "yellow", f" {name}: {reason}"))
        for bad in report.bad_traces:
            out.print(styled("bad trace", "yellow", f" {bad['error']}"))
    if report.not_written or report.traces == 0:
        kept = " (the cache there is unchanged)" if Path(args.output).exists() else ""
        err.print(f"toolcache: {report.not_written or 'no readable trace'}: nothing written to {args.output}{kept}",
                  markup=False)
        return 1
    if report.previous:
        err.print(f"toolcache: the cache it replaced is in {report.previous}", markup=False)
    return 0


def _cmd_heal(args: argparse.Namespace) -> int:
    from agentjit.cli.output import emit_json

    from .heal import heal_sync, render

    if (args.secret or args.secrets_stdin) and not args.sign_in:
        raise ConfigError("--secret and --secrets-stdin are for --sign-in (heal sends nothing else)")
    if args.session_stdin and (args.sign_in or args.secrets_stdin):
        raise ConfigError("--session-stdin starts heal signed in as that session: no --sign-in or --secrets-stdin with it")
    secrets = _secrets(args.secret)
    if args.secrets_stdin:
        secrets.update(_stdin_secrets(sys.stdin.read()))
    session = _stdin_session(sys.stdin.read()) if args.session_stdin else None
    report = heal_sync(args.cache, args.site, tools=args.tool or None, sign_in=secrets if args.sign_in else None,
                       probe=not args.no_probe, session=session,
                       progress=lambda line: print(f"toolcache heal: {line}", file=sys.stderr, flush=True))
    if args.json:
        emit_json(report.to_json())
    else:
        print(render(report))
    return 1 if report.failed else 0


def _secrets(pairs: Sequence[str]) -> dict[str, str]:
    """``--secret NAME=VALUE`` options by name; one without ``=`` is a usage error naming it (not its value)."""
    out: dict[str, str] = {}
    for kv in pairs:
        name, sep, value = kv.partition("=")
        if not sep or not name:
            raise ConfigError(f"--secret {name or '?'}...: give NAME=VALUE")
        out[name] = value
    return out


def _stdin_secrets(text: str) -> dict[str, str]:
    """``--secrets-stdin``: a JSON object of input names to values (a program passing a secret keeps it out of
    the process list); anything else is a usage error that never echoes the text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--secrets-stdin: stdin is not a JSON object ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and k and isinstance(v, str) for k, v in data.items()):
        raise ConfigError('--secrets-stdin: stdin must be a JSON object of names to strings, e.g. {"password": "..."}')
    return data


def _stdin_session(text: str) -> dict[str, Any]:
    """``--session-stdin``: a browser storage state as Playwright writes it (``{"cookies": [...], "origins": [...]}``);
    anything else is a usage error that never echoes the text (it holds a session's cookies)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--session-stdin: stdin is not JSON ({exc.msg} at line {exc.lineno})") from None
    if (not isinstance(data, dict) or not isinstance(data.get("cookies", []), list)
            or not isinstance(data.get("origins", []), list) or set(data) - {"cookies", "origins"}):  # fmt: skip
        raise ConfigError('--session-stdin: stdin must be a browser storage state, {"cookies": [...], "origins": [...]}')
    return data


def _check_write_flags(args: argparse.Namespace) -> None:
    """``--verify-writes live`` against a site given by URL needs ``--reset-command``; the command
    makes sense only with it."""
    if args.reset_command and args.verify_writes != "live":
        raise ConfigError("--reset-command is for --verify-writes live (the default, recorded, never changes the site)")
    if args.verify_writes == "live" and not args.reset_command and not args.app:
        raise ConfigError("--verify-writes live sends the demonstrated writes to the site: it needs --reset-command CMD "
                          "to put the site back between traces")


def _reset_between_traces(args: argparse.Namespace, url: str | None) -> Callable[[], Awaitable[None]] | None:
    """What runs before each trace in live mode: the user's ``--reset-command`` (through the shell),
    else a bundled ``--app``'s ``POST /__reset``; nothing in the other modes."""
    if args.verify_writes != "live" or url is None:
        return None
    command = args.reset_command
    if command:

        async def run_command() -> None:
            proc = await asyncio.create_subprocess_shell(command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, errs = await proc.communicate()
            if proc.returncode != 0:
                tail = (errs or out).decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                raise ConfigError(f"the reset command {command!r} failed with exit status {proc.returncode}: {tail[0]}")

        return run_command
    from .record import reset_site

    async def reset_app() -> None:
        await asyncio.to_thread(reset_site, url)

    return reset_app


def _parser() -> argparse.ArgumentParser:
    from agentjit.cli.errors import EXIT_CODES, Parser
    from agentjit.cli.options import add_browser_arg

    p = Parser(
        prog="toolcache", description="Build verified website tool caches from recorded traces.",
        epilog="exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()),
    )  # fmt: skip
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    p.add_argument("--version", action="version", version=f"toolcache (agentjit) {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("record", help="replay demonstration scripts in Chromium and write traces")
    r.add_argument("scripts", nargs="+", help="demonstration scripts (.json)")
    r.add_argument("-o", "--output", required=True, help="directory for the traces (existing trace files are kept unless --force)")
    r.add_argument("--force", action="store_true", help="replace trace files that already exist in --output (default: refuse)")
    r.add_argument("--site", help="base URL of a running site")
    r.add_argument("--app", help="start a registered app in-process (food, roundup, ...)")
    r.add_argument("--site-name", default=None, help="app name written into the traces (with --site)")
    r.add_argument("--repeat", type=positive_int, default=1, help="record each script N times (<name>-<i>.jsonl)")
    r.add_argument("--latency-scale", type=nonneg_float, default=1.0, help="bundled app latency (0 turns it off)")
    r.add_argument("--step-timeout", type=positive_float, default=STEP_TIMEOUT_S, metavar="S",
                   help=f"seconds a step may wait for the site before it counts as not answering, exit 3 (default {STEP_TIMEOUT_S:g})")
    add_browser_arg(r)
    r.set_defaults(func=_cmd_record)

    i = sub.add_parser("import-browser-use", help="convert browser-use AgentHistoryList JSON files to traces")
    i.add_argument("histories", nargs="+", help="browser-use AgentHistoryList JSON files")
    i.add_argument("-o", "--output", required=True, help="directory (or one .jsonl file)")
    i.add_argument("--site-name", default=None, help="app name written into the traces (default: none)")
    i.set_defaults(func=_cmd_import)

    b = sub.add_parser("build", help="extract, label, fit, codegen, verify; write the cache")
    b.add_argument("traces", nargs="+", help="trace files or directories of them")
    b.add_argument("-o", "--output", required=True,
                   help="cache directory; an existing one is replaced only by a build that made tools, and kept as OUT.prev")
    b.add_argument("--site", help="base URL of the live site to verify against")
    b.add_argument("--app", help="start a registered app in-process (food, roundup, ...) and verify against it")
    b.add_argument("--app-name", default=None, help="app name for cache.json")
    b.add_argument("--model", help="a model for steps without targets (e.g. openai:gpt-4.1)")
    b.add_argument("--secret", action="append", default=[], metavar="NAME=VALUE",
                   help="a redacted input's value for verification (e.g. login_password=...); never stored")
    b.add_argument("--sign-in", action="store_true",
                   help="send the demonstrated sign-in to the site (with --secret); by default it is checked against "
                        "its recording and the session the demonstration saved verifies the tools behind it")
    b.add_argument("--verify-writes", choices=WRITE_MODES, default=WRITE_MODES[0],
                   help="recorded (default): WRITE tools are checked against the demonstration's recorded answers, "
                        "never sent to the site; live: the demonstrated writes are sent (needs --reset-command with "
                        "--site); none: WRITE tools are kept unverified")
    b.add_argument("--reset-command", metavar="CMD",
                   help="with --verify-writes live: a shell command that puts the site back, run before every trace")
    b.add_argument("--no-workflow-tools", action="store_true",
                   help="make no workflow tools (the demonstrated steps no other tool covers, replayed as recorded)")
    b.add_argument("--json", action="store_true", help="print the build report as JSON")
    b.add_argument("--step-timeout", type=positive_float, default=STEP_TIMEOUT_S, metavar="S",
                   help=f"seconds a page may take to answer while verifying before the site counts as down, exit 3 (default {STEP_TIMEOUT_S:g})")
    add_browser_arg(b)
    b.set_defaults(func=_cmd_build)

    h = sub.add_parser("heal", help="rebuild the tools runs found broken (suspects.json), verify them, save a new version")
    h.add_argument("--cache", required=True, help="the cache directory (its suspects.json lists the broken tools)")
    h.add_argument("--site", required=True, help="base URL of the live site to heal against (read-only)")
    h.add_argument("--tool", action="append", default=[], metavar="NAME", help="heal only this suspect (repeatable)")
    h.add_argument("--sign-in", action="store_true",
                   help="sign in first with the cache's sign-in tool (its last good call's arguments and --secret), so "
                        "the tools behind it are healed signed in; the only request heal sends")
    h.add_argument("--secret", action="append", default=[], metavar="NAME=VALUE",
                   help="with --sign-in: a sign-in input's value (e.g. login_password=...); never stored")
    h.add_argument("--secrets-stdin", action="store_true",
                   help='with --sign-in: read the secrets as a JSON object from stdin ({"login_password": "..."}), '
                        "out of the process list; never stored")  # fmt: skip
    h.add_argument("--session-stdin", action="store_true",
                   help="start every page from the browser session (a Playwright storage state, JSON) read from stdin: "
                        "a run's cookies and local storage, so a tool broken mid-run is healed on the pages that run "
                        "saw (its cart, its sign-in); never stored")  # fmt: skip
    h.add_argument("--no-probe", action="store_true",
                   help="heal the suspects only (default: also probe, read-only, the cache's other tools with a good "
                        "call on record and heal those found broken in the same round)")  # fmt: skip
    h.add_argument("--json", action="store_true", help="print the heal report as JSON")
    add_browser_arg(h)
    h.set_defaults(func=_cmd_heal)
    from agentjit.cli.options import finish_parser

    finish_parser(p, sub)
    return p


def _version() -> str:
    from agentjit._version import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the command; errors and exit codes as ``agentjit``'s (README, "Exit codes")."""
    from agentjit.cli.common import use_browser
    from agentjit.cli.errors import guarded

    argv = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        args = _parser().parse_args(argv)
        logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        with use_browser(getattr(args, "browser", None)):
            code: int = args.func(args)
        return code

    return guarded(body, prog="toolcache", argv=argv)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
