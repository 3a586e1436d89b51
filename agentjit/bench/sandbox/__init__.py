"""The sandbox bench: hostile plans, hostile caches and hostile sites, and what got through.

The hostile-plan corpus (issue 8, item 6): run a corpus of attacks and count what got through.

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


The parts: :mod:`.corpus` (the plan files), :mod:`.runner` (worker processes,
scheduling, judging), :mod:`.worker` (the worker process), :mod:`.evidence` and
:mod:`.listeners` (the escape detectors), :mod:`.verdicts`, :mod:`.caches` (the
hostile caches), :mod:`.sites` with :mod:`.hostile_site` (the hostile sites),
:mod:`.command` (``agentjit bench sandbox``).
"""

from __future__ import annotations

from .corpus import (
           DEFAULT_CORPUS,
           EXPECTS,
           PLACEHOLDERS,
           CorpusPlan,
           load_corpus,
           parse_header,
           substitute,
)
from .runner import run_corpus
from .verdicts import PlanVerdict, SandboxReport

__all__ = ["CorpusPlan", "PlanVerdict", "SandboxReport", "DEFAULT_CORPUS", "EXPECTS", "PLACEHOLDERS", "load_corpus",
           "parse_header", "substitute", "run_corpus"]  # fmt: skip
