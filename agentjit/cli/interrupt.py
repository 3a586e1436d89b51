"""Ctrl-C: the command's clean-up runs, and a clean-up that hangs is cut short (the watchdog).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from .errors import EXIT_INTERRUPTED
from .output import json_stream

__all__ = ["exit_promptly_on_ctrl_c", "CTRL_C_GRACE_S"]


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
            out = json_stream()
            out.write(json.dumps({"error": {"type": "KeyboardInterrupt", "message": "interrupted"}}) + "\n")
            out.flush()
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
