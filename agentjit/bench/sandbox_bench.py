"""The hostile-plan bench (issue 8, item 6): run a corpus of attacks and count what got through.

The corpus is a directory of plan files, ``<class>/NNN_name.py``, each starting
with a header comment block::

    # expect: stopped        reject | stopped | ok
    # class: getattr_disguise
    # why: a result's get(name) is getattr by string; walks to the real builtins
    # result: 'Stonemill Matcha'      (ok plans only: a Python literal)

``reject``: the static checker (:func:`agentjit.planner.check`) must refuse the
plan with a diagnostic code. ``stopped``: it may pass the checker, but running
it must end in an :class:`~agentjit.exceptions.AgentJITError` (PlanError,
PlanLimitExceeded, ToolError, ...) with nothing escaping. ``ok``: a benign
look-alike that must pass the checker, run, and give the ``result`` value (it
catches a guard that is too eager).

Plans may use placeholders, replaced by their text before anything runs (so a
string wants them inside quotes): ``MARKER_PATH`` (a file the attack tries to
create), ``CANARY_NAME`` (an environment variable whose secret value the
attack tries to read into the plan's output), ``LISTENER_URL`` and
``LISTENER_PORT`` (a loopback TCP listener the attack tries to reach). Every
plan gets its own marker path and listener port.

Every plan, whatever its label, goes through the checker and then through the
real runtime (:class:`~agentjit.runtime.Runtime`) against the bundled food
site in real Chromium, with a short plan time limit. The verdicts:

* **escape**: the marker file exists, the canary's secret appears in the
  result, the recorded calls or the error text, or the listener saw a
  connection;
* **hang**: the run took longer than the time limit plus a grace period;
* **crash**: the checker or the run raised something that is not an
  :class:`~agentjit.exceptions.AgentJITError` (a traceback), a RecursionError
  or MemoryError appears anywhere in the error chain, or the process running
  the plan died;
* **mismatch**: a ``reject`` plan that the checker accepts, a ``stopped`` plan
  that finished normally, an ``ok`` plan that the checker refuses, that fails,
  or that gives another result.

A ``reject`` plan that the runtime ran to completion is also reported (as
``gate``: ``run`` should apply the checker), but does not count as a failure.

Why worker processes: a plan can block the thread that runs it (``while
True: pass`` in an interpreter that runs plans in-process), which no asyncio
timeout can interrupt. So the plans run in worker processes (each with its own
browser pool, started once; all of them use the one food site served here),
which the bench kills and restarts when a plan overruns; plans that were in
flight beside a hang or a crash are run again on their own, so only the
culprit is blamed. Workers also run with an address-space limit, so a memory
bomb ends in MemoryError there instead of taking the machine.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentjit.exceptions import ConfigError
from agentjit.protocol import jsonio
from agentjit.runtime.processes import descendants

from .cache_corpus import CASES as CACHE_CASES
from .cache_corpus import run_cache_corpus
from .site_corpus import TEXTS as SITE_TEXTS
from .site_corpus import run_site_corpus

__all__ = [
    "CorpusPlan",
    "PlanVerdict",
    "SandboxReport",
    "DEFAULT_CORPUS",
    "EXPECTS",
    "PLACEHOLDERS",
    "load_corpus",
    "parse_header",
    "substitute",
    "run_corpus",
    "bench_sandbox_command",
]

log = logging.getLogger(__name__)

#: tests/security/corpus of the source checkout this module lives in.
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "tests" / "security" / "corpus"

EXPECTS = ("reject", "stopped", "ok")
PLACEHOLDERS = ("MARKER_PATH", "CANARY_NAME", "LISTENER_URL", "LISTENER_PORT")
CANARY_NAME = "AGENTJIT_BENCH_CANARY_TOKEN"

_FILE_RE = re.compile(r"^\d{3}_[a-z0-9_]+\.py$")
_HEADER_RE = re.compile(r"^#\s*([a-z]+):\s?(.*)$")
_TEXT_LIMIT = 2_000  # characters of an error / value kept in a verdict


# -- the corpus ----------------------------------------------------------------


@dataclass(frozen=True)
class CorpusPlan:
    """One hostile (or benign look-alike) plan and its expected verdict."""

    id: str
    """``<class>/<file name>``, relative to the corpus directory."""
    path: Path
    cls: str
    expect: str
    why: str
    source: str
    result: Any = None
    """The expected ``result`` of an ``ok`` plan (parsed from the header)."""


def parse_header(text: str, where: str = "<plan>") -> dict[str, str]:
    """The ``# key: value`` lines at the top of a corpus file; raises ConfigError on a bad header.

    The header is the leading block of comment lines; it must hold ``expect``
    (one of :data:`EXPECTS`), ``class`` and a one-line ``why``, and ``result``
    exactly when ``expect`` is ``ok``.
    """
    header: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        m = _HEADER_RE.match(line)
        if m and m.group(1) in ("expect", "class", "why", "result"):
            if m.group(1) in header:
                raise ConfigError(f"{where}: header key {m.group(1)!r} given twice")
            header[m.group(1)] = m.group(2).strip()
    for key in ("expect", "class", "why"):
        if not header.get(key):
            raise ConfigError(f"{where}: the header has no '# {key}:' line")
    if header["expect"] not in EXPECTS:
        raise ConfigError(f"{where}: expect must be one of {', '.join(EXPECTS)}, not {header['expect']!r}")
    if header["expect"] == "ok":
        if "result" not in header:
            raise ConfigError(f"{where}: an 'ok' plan needs a '# result:' line")
        try:
            ast.literal_eval(header["result"])
        except (ValueError, SyntaxError) as exc:
            raise ConfigError(f"{where}: '# result:' is not a Python literal: {exc}") from None
    elif "result" in header:
        raise ConfigError(f"{where}: only 'ok' plans have a '# result:' line")
    return header


def load_corpus(corpus: str | Path | None = None) -> list[CorpusPlan]:
    """Every plan of ``corpus`` (default :data:`DEFAULT_CORPUS`), sorted by id.

    Raises ConfigError for a missing directory, a file name that is not
    ``NNN_name.py``, a bad header, or a ``# class:`` that is not the file's
    directory.
    """
    root = Path(corpus) if corpus is not None else DEFAULT_CORPUS
    if not root.is_dir():
        raise ConfigError(f"corpus directory {root} does not exist")
    plans: list[CorpusPlan] = []
    for path in sorted(root.glob("*/*.py")):
        pid = f"{path.parent.name}/{path.name}"
        if not _FILE_RE.match(path.name):
            raise ConfigError(f"{pid}: corpus files are named NNN_name.py (lower case)")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{pid}: cannot read: {exc}") from None
        header = parse_header(text, pid)
        if header["class"] != path.parent.name:
            raise ConfigError(f"{pid}: '# class: {header['class']}' is not its directory {path.parent.name!r}")
        result = ast.literal_eval(header["result"]) if header["expect"] == "ok" else None
        plans.append(CorpusPlan(pid, path, header["class"], header["expect"], header["why"], text, result))
    if not plans:
        raise ConfigError(f"corpus directory {root} has no <class>/NNN_name.py plans")
    return plans


def substitute(source: str, *, marker_path: str, canary_name: str, listener_port: int) -> str:
    """``source`` with the placeholders replaced by their text."""
    url = f"http://127.0.0.1:{listener_port}/"
    return (
        source.replace("MARKER_PATH", marker_path)
        .replace("CANARY_NAME", canary_name)
        .replace("LISTENER_URL", url)
        .replace("LISTENER_PORT", str(listener_port))
    )


# -- verdicts --------------------------------------------------------------------


@dataclass
class PlanVerdict:
    """What happened to one plan, and whether that is what its label asks for."""

    id: str
    cls: str
    expect: str
    check_valid: bool | None = None
    check_codes: list[str] = field(default_factory=list)
    outcome: str = "not run"
    """``ok`` (the plan finished), ``error`` (an agentjit error), ``hang``, ``crash``."""
    error_type: str | None = None
    error: str | None = None
    value: str | None = None
    elapsed_s: float = 0.0
    escapes: list[str] = field(default_factory=list)
    hang: str | None = None
    crash: str | None = None
    mismatch: str | None = None
    gate: bool = False
    solo: bool = False
    """The plan ran alone in its worker (a re-run after a hang or a crash beside it)."""

    @property
    def clean(self) -> bool:
        return not (self.escapes or self.hang or self.crash or self.mismatch)

    def problems(self) -> list[str]:
        out = [f"ESCAPE: {e}" for e in self.escapes]
        if self.hang:
            out.append(f"HANG: {self.hang}")
        if self.crash:
            out.append(f"CRASH: {self.crash}")
        if self.mismatch:
            out.append(f"MISMATCH: {self.mismatch}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class SandboxReport:
    """The whole corpus run: verdicts, per-class counts, totals, wall time."""

    corpus: str
    verdicts: list[PlanVerdict]
    wall_s: float
    time_limit_s: float
    grace_s: float
    limits_supported: bool
    browser: str | None = None
    worker_restarts: int = 0

    def classes(self) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}
        for v in self.verdicts:
            row = rows.setdefault(v.cls, _count_row(v.cls))
            _add(row, v)
        return [rows[k] for k in sorted(rows)]

    @property
    def totals(self) -> dict[str, Any]:
        row = _count_row("total")
        for v in self.verdicts:
            _add(row, v)
        return row

    @property
    def failures(self) -> list[PlanVerdict]:
        return [v for v in self.verdicts if not v.clean]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "wall_s": round(self.wall_s, 2),
            "time_limit_s": self.time_limit_s,
            "grace_s": self.grace_s,
            "limits_supported": self.limits_supported,
            "browser": self.browser,
            "worker_restarts": self.worker_restarts,
            "totals": self.totals,
            "classes": self.classes(),
            "plans": [v.to_dict() for v in self.verdicts],
        }

    def failure_listing(self, limit: int | None = None) -> str:
        """One block per offending plan: its file and what happened (for test failures)."""
        lines = []
        for v in self.failures[:limit]:
            lines.append(f"{v.id} (expect {v.expect}, outcome {v.outcome}):")
            lines += [f"    {p}" for p in v.problems()]
        return "\n".join(lines)


def _count_row(name: str) -> dict[str, Any]:
    return {"class": name, "plans": 0, "reject": 0, "stopped": 0, "ok": 0, "escapes": 0, "hangs": 0,
            "crashes": 0, "mismatches": 0, "gate": 0, "time_s": 0.0}  # fmt: skip


def _add(row: dict[str, Any], v: PlanVerdict) -> None:
    row["plans"] += 1
    row[v.expect] += 1
    row["escapes"] += bool(v.escapes)
    row["hangs"] += bool(v.hang)
    row["crashes"] += bool(v.crash)
    row["mismatches"] += bool(v.mismatch)
    row["gate"] += v.gate
    row["time_s"] = round(row["time_s"] + v.elapsed_s, 2)


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-shaped data for comparing an ``ok`` plan's result (bounded depth)."""
    if depth > 50:
        raise ValueError("too deep")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    dump = getattr(type(value), "model_dump", None)
    if dump is not None:
        return _plain(dump(value, mode="json"), depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    raise ValueError(f"not plain data: {type(value).__name__}")


def _norm(value: Any) -> Any:
    """``value`` with surrogates made whole or replaced (U+FFFD), for comparing results."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {_norm(k): _norm(v) for k, v in value.items()}
    return value


def _expected(value: Any) -> Any:
    return json.loads(json.dumps(_plain(value)))


# -- the escape detectors ----------------------------------------------------------


class Listeners:
    """Loopback TCP listeners, one per plan; a connection queues in the backlog until judged.

    No thread is needed: the kernel completes a loopback handshake against a
    listening socket by itself, and :meth:`hits` drains the backlog.
    """

    def __init__(self) -> None:
        self._socks: dict[int, socket.socket] = {}

    def open(self) -> int:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        s.setblocking(False)
        port = s.getsockname()[1]
        self._socks[port] = s
        return int(port)

    def hits(self, port: int) -> int:
        s = self._socks.get(port)
        n = 0
        while s is not None:
            try:
                conn, _ = s.accept()
            except (BlockingIOError, OSError):
                break
            conn.close()
            n += 1
        return n

    def close(self, port: int) -> None:
        s = self._socks.pop(port, None)
        if s is not None:
            s.close()

    def close_all(self) -> None:
        for port in list(self._socks):
            self.close(port)


# -- the worker process: one browser pool, many plans --------------------------------


def _walk_strings(value: Any, budget: int = 200_000) -> Iterator[str]:
    """Every string inside ``value`` (iteratively, bounded), plus the repr of other leaves."""
    stack = [value]
    seen: set[int] = set()
    while stack and budget > 0:
        budget -= 1
        v = stack.pop()
        if isinstance(v, str):
            yield v
            continue
        if isinstance(v, bytes | bytearray):
            yield bytes(v).decode("latin-1")
            continue
        if v is None or isinstance(v, bool | int | float):
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        try:
            if isinstance(v, dict):
                stack.extend(v.keys())
                stack.extend(v.values())
            elif isinstance(v, list | tuple | set | frozenset):
                stack.extend(v)
            elif callable(getattr(type(v), "model_dump", None)):
                stack.append(v.model_dump())
            elif dataclasses.is_dataclass(v) and not isinstance(v, type):
                stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
            else:
                yield _safe_repr(v, limit=100_000)
        except Exception as exc:  # an escaped object may raise anything on inspection
            yield f"<uninspectable {type(exc).__name__}>"


def _safe_repr(value: Any, limit: int = _TEXT_LIMIT) -> str:
    try:
        text = repr(value)
    except BaseException as exc:  # a huge int, a deep list, an object with a hostile __repr__
        text = f"<repr failed: {type(exc).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen and len(out) < 50:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _exc_text(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(exc))
    except BaseException:
        return "\n".join(f"{type(e).__name__}: {_safe_str(e)}" for e in _chain(exc))


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except BaseException as err:
        return f"<str failed: {type(err).__name__}>"


def _canary_in(secret: str, texts: Iterable[str]) -> bool:
    needles = (secret, secret[::-1], secret.encode().hex())
    return any(n in t for t in texts for n in needles)


class _Emitter:
    """Thread-safe JSON lines on the worker's report pipe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def send(self, **msg: Any) -> None:
        data = (json.dumps(msg, default=str) + "\n").encode()
        with self.lock:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]


class _Watchdog(threading.Thread):
    """Names the plan that blocks the worker's event loop (a synchronous hang).

    The loop ticks a timestamp; when it stops ticking, this thread walks the
    main thread's stack up to the ``_run_job`` frame that holds the job id and
    reports it, so the bench blames the culprit and not the plans beside it.
    """

    def __init__(self, emit: _Emitter, main_ident: int) -> None:
        super().__init__(daemon=True, name="sandbox-bench-watchdog")
        self.emit = emit
        self.main_ident = main_ident
        self.tick = time.monotonic()

    def run(self) -> None:
        stalled: str | None = None
        while True:
            time.sleep(0.25)
            if time.monotonic() - self.tick < 1.0:
                if stalled is not None:
                    self.emit.send(event="resume", id=stalled)
                    stalled = None
                continue
            if stalled is not None:
                continue
            frame = sys._current_frames().get(self.main_ident)
            while frame is not None:
                if frame.f_code is _run_job.__code__:
                    job_id = frame.f_locals.get("job_id")
                    if isinstance(job_id, str):
                        stalled = job_id
                        self.emit.send(event="stall", id=job_id, for_s=time.monotonic() - self.tick)
                    break
                frame = frame.f_back
            del frame


def _runtime_kwargs(time_s: float) -> tuple[dict[str, Any], bool]:
    """Keyword arguments for Runtime: the plan time limit where the runtime takes one."""
    from agentjit.runtime import Runtime

    params = inspect.signature(Runtime.__init__).parameters
    kwargs: dict[str, Any] = {}
    supported = False
    if "limits" in params:
        from agentjit.plan import DEFAULT_LIMITS

        kwargs["limits"] = DEFAULT_LIMITS.with_(time_s=time_s)
        supported = True
    if "tool_timeout_ms" in params:
        kwargs["tool_timeout_ms"] = int(max(time_s, 1.0) * 1000)
    return kwargs, supported


def _echo_model() -> Any:
    """A fake model for ``ai_eval``: it answers the formatted question back."""
    from agentjit.llm.function import FunctionModel

    return FunctionModel(lambda messages: messages[-1].content, name="echo")


async def _ask_human(question: str) -> str:
    return "yes"


async def _run_job(job: dict[str, Any], runtime: Any, cache: Any, emit: _Emitter, secret: str, hang_after: float) -> None:
    """Check and run one plan; report what happened on the pipe."""
    from agentjit.exceptions import AgentJITError
    from agentjit.planner import check

    job_id: str = job["id"]  # read by the watchdog
    source: str = job["source"]
    msg: dict[str, Any] = {"event": "done", "id": job_id}
    emit.send(event="check", id=job_id)
    try:
        res = check(source, cache)
        msg["check_valid"] = bool(res.valid)
        msg["check_codes"] = [str(d.code) for d in res.diagnostics]
    except BaseException as exc:
        msg["check_crash"] = f"{type(exc).__name__}: {_safe_str(exc)[:_TEXT_LIMIT]}"
        msg["check_traceback"] = _exc_text(exc)[-_TEXT_LIMIT:]
    emit.send(event="run", id=job_id)
    start = time.monotonic()
    task = asyncio.ensure_future(runtime.run(source))
    texts: list[str] = []
    done, _ = await asyncio.wait({task}, timeout=hang_after)
    msg["elapsed_s"] = time.monotonic() - start
    if not done:
        task.cancel()  # not awaited: a plan that swallows cancellation would hang us too
        msg["outcome"] = "hang"
        emit.send(**msg)
        return
    error = task.exception() if not task.cancelled() else asyncio.CancelledError("the run was cancelled")
    if error is None:
        result = task.result()
        value = getattr(result, "value", None)
        msg["outcome"] = "ok"
        msg["value"] = _safe_repr(value)
        try:
            plain = _plain(value)
            text = json.dumps(plain)
            if len(text) <= 100_000:
                msg["value_plain"] = plain
        except (ValueError, TypeError, RecursionError):
            pass
        texts.extend(_walk_strings(value))
        for name in getattr(type(result), "model_fields", {}):  # calls, printed output, state...
            if name != "value":
                texts.extend(_walk_strings(getattr(result, name, None)))
    else:
        chain = _chain(error)
        msg["error_type"] = type(error).__name__
        msg["error"] = _safe_str(error)[:_TEXT_LIMIT]
        full = _exc_text(error)
        texts.append(full)
        texts.extend(_safe_str(e) for e in chain)
        bad = [type(e).__name__ for e in chain if isinstance(e, RecursionError | MemoryError)]
        if bad:
            msg["outcome"] = "crash"
            msg["crash"] = (f"{type(error).__name__}: {_safe_str(error)[:300]} (with {', '.join(bad)} in its chain): "
                            f"{full[-_TEXT_LIMIT:]}")
        elif isinstance(error, AgentJITError):
            msg["outcome"] = "error"
        else:
            msg["outcome"] = "crash"
            msg["crash"] = f"traceback: {full[-_TEXT_LIMIT:]}"
        outcome = getattr(error, "outcome", None)
        if outcome is not None:
            texts.extend(_walk_strings(outcome))
    msg["canary"] = _canary_in(secret, texts)
    emit.send(**msg)


async def _worker_main(report_fd: int, site_url: str, time_s: float, grace_s: float, memory_mb: int) -> None:
    from agentjit.runtime import BrowserPool, Runtime
    from agentjit.tasks.apps import get_app

    emit = _Emitter(report_fd)
    secret = os.environ.get(CANARY_NAME, "")
    cache = get_app("food").load_cache()
    kwargs, supported = _runtime_kwargs(time_s)
    async with BrowserPool.from_spec() as pool:
        if memory_mb > 0:  # after Chromium started: its processes keep their own limits
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        runtime = Runtime(cache, site_url, pool=pool, model=_echo_model(), ask_human=_ask_human, **kwargs)
        watchdog = _Watchdog(emit, threading.get_ident())
        watchdog.start()

        async def ticker() -> None:
            while True:
                watchdog.tick = time.monotonic()
                await asyncio.sleep(0.1)

        tick_task = asyncio.ensure_future(ticker())
        emit.send(event="ready", browser=pool.version, limits=supported)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**26)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        jobs: set[asyncio.Future[None]] = set()
        while True:
            line = await reader.readline()
            if not line:
                break
            job = json.loads(line)
            fut = asyncio.ensure_future(_run_job(job, runtime, cache, emit, secret, time_s + grace_s))
            jobs.add(fut)
            fut.add_done_callback(jobs.discard)
        tick_task.cancel()


def _worker_entry(argv: list[str]) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="sandbox_bench --worker")
    p.add_argument("--worker", action="store_true")
    p.add_argument("--fd", type=int, required=True)
    p.add_argument("--site", required=True)
    p.add_argument("--time-s", type=float, required=True)
    p.add_argument("--grace-s", type=float, required=True)
    p.add_argument("--memory-mb", type=int, default=0)
    a = p.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    asyncio.run(_worker_main(a.fd, a.site, a.time_s, a.grace_s, a.memory_mb))
    return 0


# -- the parent: scheduling, judging ------------------------------------------------------


@dataclass
class _Job:
    plan: CorpusPlan
    marker: Path
    port: int
    solo: bool
    phase: str = "queued"
    """queued -> check -> run -> done."""
    started: float = 0.0


class _Worker:
    """One worker process (a process group: the worker, Playwright's driver and Chromium)."""

    def __init__(self, proc: asyncio.subprocess.Process, reader: asyncio.StreamReader, log_path: Path) -> None:
        self.proc = proc
        self.reader = reader
        self.log_path = log_path
        self.browser: str | None = None
        self.limits: bool = False

    @classmethod
    async def start(cls, site_url: str, time_s: float, grace_s: float, memory_mb: int, log_path: Path) -> _Worker:
        rfd, wfd = os.pipe()
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**26)
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "agentjit.bench.sandbox_bench", "--worker", "--fd", str(wfd),
                "--site", site_url, "--time-s", str(time_s), "--grace-s", str(grace_s),
                "--memory-mb", str(memory_mb),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL, stderr=log_fd,
                pass_fds=(wfd,), start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(log_fd)
            os.close(wfd)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(rfd, "rb", 0))
        worker = cls(proc, reader, log_path)
        try:
            ready = await asyncio.wait_for(worker.next_event(), timeout=60)
        except TimeoutError:
            ready = None
        if ready is None or ready.get("event") != "ready":
            await worker.kill()
            raise ConfigError(f"the sandbox bench worker did not start: {worker.log_tail()}")
        worker.browser = ready.get("browser")
        worker.limits = bool(ready.get("limits"))
        return worker

    async def next_event(self) -> dict[str, Any] | None:
        line = await self.reader.readline()
        if not line:
            return None
        return json.loads(line)  # type: ignore[no-any-return]

    def send(self, job: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(job) + "\n").encode())

    async def kill(self) -> None:
        # the worker's own process group, and every process it started: Playwright
        # launches Chromium detached, in a process group of its own
        family = descendants(self.proc.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in family:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.proc.wait(), timeout=10)
        with contextlib.suppress(Exception):
            if self.proc.stdin is not None:
                self.proc.stdin.close()

    async def close(self) -> None:
        """Ask the worker to finish (EOF on stdin), then make sure its group is gone."""
        with contextlib.suppress(Exception):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.proc.wait(), timeout=10)
        await self.kill()

    def log_tail(self, n: int = 1500) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[-n:]


class _Bench:
    def __init__(self, plans: list[CorpusPlan], *, site_url: str, workers: int, concurrency: int, time_s: float,
                 grace_s: float, memory_mb: int, on_verdict: Callable[[PlanVerdict], None] | None) -> None:
        self.plans = plans
        self.site_url = site_url
        self.n_workers = max(1, workers)
        self.concurrency = max(1, concurrency)
        self.time_s = time_s
        self.grace_s = grace_s
        self.memory_mb = memory_mb
        self.on_verdict = on_verdict
        self.tmp = Path(tempfile.mkdtemp(prefix="agentjit-sandbox-bench-"))
        self.listeners = Listeners()
        self.secret = "cnry" + secrets.token_hex(12)
        self.verdicts: dict[str, PlanVerdict] = {}
        self.restarts = 0
        self.browser: str | None = None
        self.limits = False
        self._n = 0

    # a plan's deadlines, from the start of its current phase
    @property
    def run_deadline(self) -> float:
        return self.time_s + self.grace_s + 3.0

    check_deadline = 30.0

    def new_job(self, plan: CorpusPlan, solo: bool) -> _Job:
        self._n += 1
        marker = self.tmp / f"marker-{self._n:04d}"
        return _Job(plan, marker, self.listeners.open(), solo)

    async def run(self) -> list[PlanVerdict]:
        old = os.environ.get(CANARY_NAME)
        os.environ[CANARY_NAME] = self.secret
        try:
            queue = [self.new_job(p, solo=self.concurrency == 1) for p in self.plans]
            rerun = await self.phase(queue, self.concurrency)
            if rerun:
                await self.phase([self.new_job(p, solo=True) for p in rerun], 1)
        finally:
            if old is None:
                os.environ.pop(CANARY_NAME, None)
            else:
                os.environ[CANARY_NAME] = old
            self.listeners.close_all()
            shutil.rmtree(self.tmp, ignore_errors=True)
        return [self.verdicts[p.id] for p in self.plans]

    async def phase(self, queue: list[_Job], concurrency: int) -> list[CorpusPlan]:
        """Run ``queue`` on the workers; returns the plans to run again, alone."""
        rerun: list[CorpusPlan] = []
        pending = list(reversed(queue))
        await asyncio.gather(*(self.drive(pending, concurrency, rerun, i) for i in range(self.n_workers)))
        return rerun

    async def drive(self, pending: list[_Job], concurrency: int, rerun: list[CorpusPlan], index: int) -> None:
        worker: _Worker | None = None
        in_flight: dict[str, _Job] = {}
        stalled: str | None = None  # the job blocking the worker's event loop right now
        stalled_since = 0.0
        try:
            while pending or in_flight:
                if worker is None:
                    worker = await self.start_worker(index)
                    self.browser = self.browser or worker.browser
                    self.limits = worker.limits
                    stalled = None
                restart = False
                while pending and len(in_flight) < concurrency:
                    job = pending.pop()
                    job.solo = job.solo or concurrency == 1
                    in_flight[job.plan.id] = job
                    job.phase, job.started = "check", time.monotonic()
                    source = substitute(job.plan.source, marker_path=str(job.marker), canary_name=CANARY_NAME,
                                        listener_port=job.port)
                    worker.send({"id": job.plan.id, "source": source})
                if not in_flight:  # another worker took the last plans while this one started
                    continue
                now = time.monotonic()
                deadlines = [j.started + (self.check_deadline if j.phase == "check" else self.run_deadline)
                             for j in in_flight.values()]
                timeout = max(0.05, min(deadlines) - now) if deadlines else None
                try:
                    event = await asyncio.wait_for(worker.next_event(), timeout=timeout)
                except TimeoutError:
                    overdue = [j for j in in_flight.values()
                               if time.monotonic() - j.started >= (self.check_deadline if j.phase == "check" else self.run_deadline)]
                    blocked = stalled if stalled and time.monotonic() - stalled_since >= self.time_s else None
                    self.blame_and_requeue(in_flight, overdue, blocked, pending, rerun,
                                           "the worker stopped answering (a synchronous hang)")
                    await worker.kill()
                    worker = None
                    self.restarts += 1
                    continue
                if event is None:  # the worker died
                    tail = worker.log_tail()
                    await worker.kill()
                    worker = None
                    self.restarts += 1
                    self.worker_died(in_flight, pending, rerun, tail)
                    continue
                kind, job_id = event.get("event"), event.get("id")
                current = in_flight.get(job_id) if isinstance(job_id, str) else None
                if kind == "stall":
                    stalled, stalled_since = job_id, time.monotonic() - float(event.get("for_s") or 1.0)
                elif kind == "resume":
                    stalled = None
                elif current is None:
                    continue
                elif kind in ("check", "run"):
                    current.phase, current.started = kind, time.monotonic()
                elif kind == "done":
                    del in_flight[current.plan.id]
                    verdict = self.judge(current, event)
                    if not current.solo and (verdict.hang or verdict.crash or (verdict.mismatch and current.plan.expect == "ok")):
                        rerun.append(current.plan)  # maybe a victim of its neighbours: try alone
                    else:
                        self.record(verdict)
                    restart = verdict.outcome in ("hang", "crash") or bool(verdict.escapes)
                if restart:  # a hung task, a crash or an escape may have left the worker unfit
                    for other in list(in_flight.values()):
                        in_flight.pop(other.plan.id)
                        self.release(other)
                        pending.append(self.new_job(other.plan, other.solo))
                    await worker.kill()
                    worker = None
                    self.restarts += 1
        finally:
            if worker is not None:
                await worker.close()

    async def start_worker(self, index: int) -> _Worker:
        """A fresh worker; a failed start is retried twice (the runtime may be mid-import)."""
        for attempt in range(3):
            try:
                return await _Worker.start(self.site_url, self.time_s, self.grace_s, self.memory_mb,
                                           self.tmp / f"worker-{index}.log")
            except ConfigError:
                if attempt == 2:
                    raise
                await asyncio.sleep(2.0)
        raise AssertionError("unreachable")

    def blame_and_requeue(self, in_flight: dict[str, _Job], overdue: list[_Job], stalled: str | None,
                          pending: list[_Job], rerun: list[CorpusPlan], why: str) -> None:
        culprits = [j for j in overdue if j.solo or len(in_flight) == 1 or j.plan.id == stalled]
        if stalled in in_flight and in_flight[stalled] not in culprits:
            culprits.append(in_flight[stalled])
        for job in list(in_flight.values()):
            in_flight.pop(job.plan.id)
            if job in culprits:
                elapsed = time.monotonic() - job.started
                event = {"outcome": "hang", "elapsed_s": elapsed, "phase": job.phase, "why": why}
                self.record(self.judge(job, event))
            elif job in overdue:
                self.release(job)
                rerun.append(job.plan)
            else:
                self.release(job)
                pending.append(self.new_job(job.plan, job.solo))

    def worker_died(self, in_flight: dict[str, _Job], pending: list[_Job], rerun: list[CorpusPlan], tail: str) -> None:
        alone = len(in_flight) == 1
        for job in list(in_flight.values()):
            in_flight.pop(job.plan.id)
            if job.solo or alone:
                event = {"outcome": "crash", "crash": f"the worker process died: {tail[-800:]}",
                         "elapsed_s": time.monotonic() - job.started}
                self.record(self.judge(job, event))
            else:
                self.release(job)
                rerun.append(job.plan)

    def release(self, job: _Job) -> None:
        self.listeners.hits(job.port)
        self.listeners.close(job.port)
        with contextlib.suppress(OSError):
            job.marker.unlink()

    def record(self, verdict: PlanVerdict) -> None:
        self.verdicts[verdict.id] = verdict
        if self.on_verdict is not None:
            self.on_verdict(verdict)

    def judge(self, job: _Job, event: dict[str, Any]) -> PlanVerdict:
        plan = job.plan
        v = PlanVerdict(plan.id, plan.cls, plan.expect, solo=job.solo)
        v.check_valid = event.get("check_valid")
        v.check_codes = list(event.get("check_codes") or [])
        v.outcome = event.get("outcome", "crash")
        v.error_type = event.get("error_type")
        v.error = event.get("error")
        v.value = event.get("value")
        v.elapsed_s = round(float(event.get("elapsed_s") or 0.0), 3)
        # escapes
        if job.marker.exists():
            v.escapes.append(f"created the marker file {job.marker.name}")
        hits = self.listeners.hits(job.port)
        if hits:
            v.escapes.append(f"reached the listener ({hits} connection{'s' if hits > 1 else ''})")
        if event.get("canary") or _canary_in(self.secret, [v.error or "", v.value or ""]):
            v.escapes.append(f"read the secret of {CANARY_NAME}")
        self.listeners.close(job.port)
        with contextlib.suppress(OSError):
            job.marker.unlink()
        # hangs and crashes
        if v.outcome == "hang":
            where = "checker" if event.get("phase") == "check" else "run"
            v.hang = (f"the {where} took over {v.elapsed_s:.1f} s (limit {self.time_s:g} s + grace {self.grace_s:g} s)"
                      + (f"; {event['why']}" if event.get("why") else ""))
        if event.get("check_crash"):
            v.crash = f"the checker raised {event['check_crash']}"
        elif v.outcome == "crash":
            v.crash = event.get("crash") or f"{v.error_type}: {v.error}"
        # the label
        if v.check_valid is not None:
            if plan.expect == "reject" and v.check_valid:
                v.mismatch = "the checker accepted a plan labelled reject"
            elif plan.expect == "ok" and not v.check_valid:
                v.mismatch = f"the checker refused a benign plan: {', '.join(v.check_codes)}"
        if v.mismatch is None and v.outcome == "ok":
            if plan.expect == "stopped":
                v.mismatch = f"the plan finished normally with result {v.value}"
            elif plan.expect == "reject":
                v.gate = True
            elif plan.expect == "ok":
                want = _expected(plan.result)
                if "value_plain" not in event or _norm(event["value_plain"]) != _norm(want):
                    v.mismatch = f"result {v.value}, expected {plan.result!r}"
        elif v.mismatch is None and plan.expect == "ok" and v.outcome == "error":
            v.mismatch = f"a benign plan failed: {v.error_type}: {v.error}"
        return v


async def run_corpus(
    corpus: str | Path | None = None,
    *,
    plans: list[CorpusPlan] | None = None,
    site_url: str | None = None,
    workers: int = 2,
    concurrency: int = 3,
    time_s: float = 5.0,
    grace_s: float = 5.0,
    memory_mb: int = 4096,
    on_verdict: Callable[[PlanVerdict], None] | None = None,
) -> SandboxReport:
    """Run every plan of ``corpus`` (or ``plans``) and judge it; see the module docstring.

    Without ``site_url`` the food site is started here (latency off) and
    stopped afterwards. ``workers`` processes each run up to ``concurrency``
    plans at once; ``time_s`` is the plan time limit given to the runtime and
    ``grace_s`` what a run may take beyond it before it counts as a hang.
    ``memory_mb`` is each worker's address-space limit (0: none).
    """
    from agentjit.tasks.apps import get_app

    todo = plans if plans is not None else load_corpus(corpus)
    site = None
    if site_url is None:
        site = get_app("food").site(latency_scale=0)
        site.start()
        site_url = site.url
    t0 = time.perf_counter()
    try:
        bench = _Bench(todo, site_url=site_url, workers=workers, concurrency=concurrency, time_s=time_s,
                       grace_s=grace_s, memory_mb=memory_mb, on_verdict=on_verdict)
        verdicts = await bench.run()
    finally:
        if site is not None:
            site.stop()
    return SandboxReport(
        corpus=str(corpus if corpus is not None else DEFAULT_CORPUS),
        verdicts=verdicts,
        wall_s=time.perf_counter() - t0,
        time_limit_s=time_s,
        grace_s=grace_s,
        limits_supported=bench.limits,
        browser=bench.browser,
        worker_restarts=bench.restarts,
    )


# -- the CLI command ---------------------------------------------------------------


async def bench_sandbox_command(args: Any) -> int:
    """``agentjit bench sandbox [--corpus DIR] [--json]``: the hostile plans, then the hostile caches
    (:mod:`agentjit.bench.cache_corpus`) and sites (:mod:`agentjit.bench.site_corpus`); exit 0 when
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


if __name__ == "__main__":  # the worker process; people run `agentjit bench sandbox`
    if "--worker" in sys.argv[1:]:
        sys.exit(_worker_entry(sys.argv[1:]))
    sys.exit("run the corpus with: agentjit bench sandbox [--corpus DIR] [--json]")
