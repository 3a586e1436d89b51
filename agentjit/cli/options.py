"""The flags commands share (``--app``, ``--json``, ``--browser``, the planner's and the limits'),
checked argument types, and the help formatter that shows every default.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

__all__ = ["add_browser_arg", "finish_parser", "HelpFormatter"]


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


def add_browser_arg(p: argparse.ArgumentParser) -> None:
    """``--browser`` for a command that opens a browser (also used by ``toolcache``)."""
    p.add_argument("--browser", default=None, metavar="SPEC",
                   help="use a browser agentjit does not launch: ws://HOST:PORT/... (`playwright launch-server`) "
                        "or cdp=http://HOST:PORT (default: $AGENTJIT_BROWSER, else launch the local Chromium)")


def app_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--app", default=None, help="named app profile: its site, cache and tasks (default: food, unless --cache is given)")


def site_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--site", help="base URL of a running site; nothing is started (default: start the app's own site)")


def effects_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--effects", metavar="URL",
                   help="a shared effect log, so every write reaches the site once across processes and machines: "
                        "sqlite:///PATH (relative; sqlite:////abs/path), postgresql://USER@HOST/DB, or a JSONL "
                        "file's path (default: none)")
    p.add_argument("--run-id", default="", metavar="ID",
                   help="the run the writes belong to in --effects: the same on every worker of one run, a new one "
                        "for each run (default: '', the whole log is one run)")


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
    from agentjit.plan import DEFAULT_LIMITS  # the standard library only: cheap at start-up

    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help=f"wall-clock limit of one plan run, tool calls included (default: {DEFAULT_LIMITS.time_s:g} s)")
    p.add_argument("--max-steps", type=positive_int, default=None, metavar="N",
                   help=f"step budget of one plan run: loop iterations, comprehension items and calls "
                        f"(default: {DEFAULT_LIMITS.max_steps:,})")


def finish_parser(parser: argparse.ArgumentParser, sub: Any) -> None:
    """Give every command ``-v`` (also after the command: ``agentjit run -v``; a command group's
    commands too: ``agentjit bench e2e -v``) and a help that shows each option's default."""
    parser.formatter_class = HelpFormatter
    for command_parser in sub.choices.values():
        command_parser.formatter_class = HelpFormatter
        if "-v" not in command_parser._option_string_actions:
            command_parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                                        help="log debug output to stderr")
        for action in command_parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                finish_parser(command_parser, action)


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
