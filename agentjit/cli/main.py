"""The top-level parser and the dispatch: the command groups' parsers, then the groups that
installed packages add through the ``agentjit.cli`` entry points (the bench's is one), each
command run under the one error handler and the Ctrl-C watchdog."""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import logging
import sys

from . import plans, sites
from .base import COMMANDS, Handler
from .common import _close_models, use_browser
from .errors import EXIT_CODES, Parser, guarded
from .interrupt import exit_promptly_on_ctrl_c
from .options import finish_parser
from .output import json_only_stdout

__all__ = ["main", "build_parser", "ENTRY_POINT_GROUP"]


log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "agentjit.cli"
"""Command groups of other packages: each entry point is a function ``add_parsers(sub)`` that adds
its commands to the subparsers and registers their handlers (:func:`agentjit.cli.base.command`).
The bench's commands come in this way, so the CLI imports nothing from ``agentjit.bench``."""


def _plugin_groups(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    seen: set[str] = set()
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.value in seen:  # one distribution found twice on the path (a checkout and its install)
            continue
        seen.add(ep.value)
        try:
            add = ep.load()
        except Exception as exc:  # a broken plugin must not take the command line down
            log.warning("command group %s = %s failed to load: %s", ep.name, ep.value, exc)
            continue
        add(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="agentjit", description="A just-in-time compiler for browser tasks.",
        epilog="exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()),
    )  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output to stderr")
    parser.add_argument("--version", action="version", version=f"agentjit {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    plans.add_parsers(sub)
    sites.add_parsers(sub)
    _plugin_groups(sub)
    finish_parser(parser, sub)
    return parser


def _version() -> str:
    from agentjit._version import __version__

    return __version__


async def _run_command(handler: Handler, args: argparse.Namespace) -> int:
    json_mode = bool(getattr(args, "json", False))
    with use_browser(getattr(args, "browser", None)), exit_promptly_on_ctrl_c(json_mode=json_mode), \
            json_only_stdout(json_mode):
        try:
            return await handler(args)
        finally:
            await _close_models()


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command; every error goes through :func:`guarded`."""
    argv = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        args = build_parser().parse_args(argv)
        logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
        return asyncio.run(_run_command(COMMANDS[args.command], args))

    plan = next((a for a in argv if a.endswith(".py") and not a.startswith("-")), None)
    return guarded(body, prog="agentjit", argv=argv, file=plan)
