"""The ``agentjit`` command line: a package by command group.

* :mod:`~agentjit.cli.plans`: ``run``, ``check``, ``compile``, ``schedule``;
* :mod:`~agentjit.cli.sites`: ``tools``, ``tasks``, ``site``, ``demo``, ``batch``, ``profile``;
* ``bench``: the benchmarks, one subcommand each with only its own flags, defined in
  :mod:`agentjit.bench.cli` and found through the ``agentjit.cli`` entry points
  (:mod:`~agentjit.cli.main`), so the command line imports nothing from the bench.

The shared parts: :mod:`~agentjit.cli.errors` (the one error handler and the
exit codes), :mod:`~agentjit.cli.output` (tables, ``--json``, stderr),
:mod:`~agentjit.cli.progress`, :mod:`~agentjit.cli.interrupt` (Ctrl-C),
:mod:`~agentjit.cli.options` (shared flags and argument types),
:mod:`~agentjit.cli.common` (the session, tasks and site a command uses) and
:mod:`~agentjit.cli.base` (the command registry). Nothing here imports numpy,
scipy or playwright at start-up: `agentjit --help` stays fast.

Every command that reports results takes ``--json`` and then prints one JSON
document on stdout (progress, if any, goes to stderr); exit codes are in
:mod:`~agentjit.cli.errors`.
"""

from .common import use_browser
from .errors import EXIT_CODES, Parser, UsageError, error_json, exit_code, guarded, report_error
from .interrupt import CTRL_C_GRACE_S, exit_promptly_on_ctrl_c
from .main import build_parser, main
from .options import HelpFormatter, add_browser_arg, finish_parser
from .output import emit_json, styled

__all__ = [
    "main", "build_parser", "guarded", "exit_code", "error_json", "report_error", "Parser", "UsageError", "EXIT_CODES",
    "emit_json", "styled", "add_browser_arg", "finish_parser", "HelpFormatter", "use_browser", "exit_promptly_on_ctrl_c",
    "CTRL_C_GRACE_S",
]  # fmt: skip
