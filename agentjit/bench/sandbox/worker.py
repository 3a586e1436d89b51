"""The worker process of the hostile-plan bench: one browser pool, many plans, events on a pipe.

Started by :mod:`agentjit.bench.sandbox.runner` as ``python -m agentjit.bench.sandbox.worker --worker ...``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import resource
import sys
import threading
import time
from typing import Any

from .corpus import CANARY_NAME
from .evidence import (
    TEXT_LIMIT,
    canary_in,
    error_chain,
    exc_text,
    plain_data,
    safe_repr,
    safe_str,
    walk_strings,
)


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
        msg["check_crash"] = f"{type(exc).__name__}: {safe_str(exc)[:TEXT_LIMIT]}"
        msg["check_traceback"] = exc_text(exc)[-TEXT_LIMIT:]
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
        msg["value"] = safe_repr(value)
        try:
            plain = plain_data(value)
            text = json.dumps(plain)
            if len(text) <= 100_000:
                msg["value_plain"] = plain
        except (ValueError, TypeError, RecursionError):
            pass
        texts.extend(walk_strings(value))
        for name in getattr(type(result), "model_fields", {}):  # calls, printed output, state...
            if name != "value":
                texts.extend(walk_strings(getattr(result, name, None)))
    else:
        chain = error_chain(error)
        msg["error_type"] = type(error).__name__
        msg["error"] = safe_str(error)[:TEXT_LIMIT]
        full = exc_text(error)
        texts.append(full)
        texts.extend(safe_str(e) for e in chain)
        bad = [type(e).__name__ for e in chain if isinstance(e, RecursionError | MemoryError)]
        if bad:
            msg["outcome"] = "crash"
            msg["crash"] = (f"{type(error).__name__}: {safe_str(error)[:300]} (with {', '.join(bad)} in its chain): "
                            f"{full[-TEXT_LIMIT:]}")
        elif isinstance(error, AgentJITError):
            msg["outcome"] = "error"
        else:
            msg["outcome"] = "crash"
            msg["crash"] = f"traceback: {full[-TEXT_LIMIT:]}"
        outcome = getattr(error, "outcome", None)
        if outcome is not None:
            texts.extend(walk_strings(outcome))
    msg["canary"] = canary_in(secret, texts)
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

    p = argparse.ArgumentParser(prog="agentjit.bench.sandbox.worker --worker")
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



if __name__ == "__main__":  # the worker process; people run `agentjit bench sandbox`
    if "--worker" in sys.argv[1:]:
        sys.exit(_worker_entry(sys.argv[1:]))
    sys.exit("run the corpus with: agentjit bench sandbox [--corpus DIR] [--json]")
