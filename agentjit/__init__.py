"""agentjit: a just-in-time compiler for browser tasks.

The layers, lowest first; a module imports only from layers above it in this
list (``tests/test_layers.py`` walks the imports with ``ast`` to keep it so)::

    exceptions   the error tree
    plan         plan bounds and the run-time guard (stdlib only: the sandbox child loads it)
    protocol     tool manifests, the abstract-state algebra, schema checks, trace events
    cache        the on-disk tool cache (tools, page schemas, latency fits, plans)
    llm          the Model interface, OpenAI / Gemini adapters, fakes, record/replay
    planner      sandbox, CFG, checker, cost, prompts, Algorithm 1
    scheduler    latency fits, plan usage, Monte Carlo, Algorithm 2
    runtime      browser pool, tool invocation, plan interpreter, strategies, effect log
    agent        stepwise agent loop (the bench baseline, ai_exec, a trace source)
    session      one walk above the layers: cache, model, planner, scheduler, runtime, each made once
    tasks        the app registry, tasks and judges, task files, running a task list (demo, batch)
    bench        the bundled web apps (registered through entry points) and the benchmarks;
                 nothing outside it imports it
    api, sync, testing, cli   entry points

``toolcache`` (the offline builder) imports agentjit, never the reverse.

The package's own names are the centre: ``agentjit.compile`` (a task into a
checked plan), ``agentjit.check`` (a plan's verdict) and ``agentjit.run`` (a
plan on a site), each one walk of a :class:`Session`; the parts a caller
configures or gets back (``Runtime``, ``Planner``, ``ToolCache``, ``Model``,
``PlanLimits``, ``RunResult``, ``CompiledPlan``, ``CheckResult``) and the
errors. Everything else lives in its layer's module (``agentjit.llm`` for the
adapters and fakes, ``agentjit.runtime`` for the browser pool and strategies,
``agentjit.scheduler``, ``agentjit.protocol``, ...).
"""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from ._version import __version__
from .exceptions import (
    AgentJITError,
    BrowserError,
    CacheError,
    ConfigError,
    InfrastructureError,
    InputFileError,
    ManifestError,
    ModelError,
    PlanError,
    PlanLimitExceeded,
    PlanRejected,
    PreconditionFailed,
    SandboxViolation,
    SiteUnreachable,
    ToolCallFailed,
    ToolError,
    TraceError,
    UserError,
)

if _TYPE_CHECKING:  # the names below load on first use: `agentjit --help` must not import scipy
    from .api import check, compile, run
    from .cache import ToolCache
    from .llm import Model
    from .plan import PlanLimits
    from .planner import CheckResult, CompiledPlan, Planner
    from .runtime import RunResult, Runtime
    from .session import Session

_LAZY: dict[str, str] = {
    "run": ".api",
    "compile": ".api",
    "check": ".api",
    "Session": ".session",
    "Runtime": ".runtime",
    "RunResult": ".runtime",
    "Planner": ".planner",
    "CompiledPlan": ".planner",
    "CheckResult": ".planner",
    "ToolCache": ".cache",
    "Model": ".llm",
    "PlanLimits": ".plan",
}


def __getattr__(name: str) -> _Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentjit' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__",
    # the walk: compile a task, check a plan, run it
    "run", "compile", "check", "Session",
    # the parts a caller configures or gets back
    "Runtime", "RunResult", "Planner", "CompiledPlan", "CheckResult", "ToolCache", "Model", "PlanLimits",
    # errors
    "AgentJITError", "UserError", "ManifestError", "CacheError", "TraceError", "PlanError",
    "SandboxViolation", "PlanRejected", "PlanLimitExceeded", "InputFileError", "ConfigError",
    "ModelError", "ToolError", "PreconditionFailed", "ToolCallFailed", "InfrastructureError",
    "BrowserError", "SiteUnreachable",
]  # fmt: skip
