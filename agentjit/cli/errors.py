"""Errors and exit codes: the one handler every command (``agentjit`` and ``toolcache``) runs under.

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
import logging
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from agentjit.exceptions import (
    AgentJITError,
    ConfigError,
    InfrastructureError,
    ModelError,
    PlanError,
    ToolError,
    UserError,
)

from .output import _one_line, _printable, emit_json

__all__ = ["guarded", "exit_code", "error_json", "report_error", "Parser", "UsageError", "EXIT_CODES"]


log = logging.getLogger(__name__)


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
    fallbacks = getattr(exc, "fallbacks", None)
    if isinstance(fallbacks, list) and fallbacks:  # a run that failed after calls a fallback took over
        body["fallbacks"] = fallbacks
    return {"error": body}


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
