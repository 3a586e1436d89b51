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
    bench        local web apps, tasks and judges, harness
    api, sync, testing, cli   entry points

``toolcache`` (the offline builder) imports agentjit, never the reverse.
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
    from .agent import StepwiseAgent, agent_ai_exec
    from .cache import ToolCache
    from .llm import (
        FunctionModel,
        GeminiModel,
        Message,
        Model,
        ModelResponse,
        OpenAIModel,
        SimulatedLatency,
        TestModel,
        Usage,
        infer_model,
    )
    from .plan import PlanLimits
    from .planner import CheckResult, CompiledPlan, Diagnostic, NoValidPlan, Planner, check
    from .protocol import Effect, ToolManifest, apply, load_manifest, read_trace, satisfies
    from .runtime import BrowserPool, CallOutcome, RunResult, Runtime, call_tool, run_plan
    from .scheduler import Schedule, Scheduler, fit_latency, plan_usage, schedule_plan
    from .session import Session

_LAZY: dict[str, str] = {
    "ToolCache": ".cache",
    "PlanLimits": ".plan",
    "FunctionModel": ".llm",
    "GeminiModel": ".llm",
    "Message": ".llm",
    "Model": ".llm",
    "ModelResponse": ".llm",
    "OpenAIModel": ".llm",
    "TestModel": ".llm",
    "Usage": ".llm",
    "infer_model": ".llm",
    "SimulatedLatency": ".llm",
    "StepwiseAgent": ".agent",
    "agent_ai_exec": ".agent",
    "CheckResult": ".planner",
    "CompiledPlan": ".planner",
    "Diagnostic": ".planner",
    "NoValidPlan": ".planner",
    "Planner": ".planner",
    "check": ".planner",
    "Effect": ".protocol",
    "ToolManifest": ".protocol",
    "apply": ".protocol",
    "load_manifest": ".protocol",
    "read_trace": ".protocol",
    "satisfies": ".protocol",
    "BrowserPool": ".runtime",
    "CallOutcome": ".runtime",
    "RunResult": ".runtime",
    "Runtime": ".runtime",
    "call_tool": ".runtime",
    "run_plan": ".runtime",
    "Schedule": ".scheduler",
    "Scheduler": ".scheduler",
    "fit_latency": ".scheduler",
    "plan_usage": ".scheduler",
    "schedule_plan": ".scheduler",
    "Session": ".session",
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
    # errors
    "AgentJITError", "UserError", "ManifestError", "CacheError", "TraceError", "PlanError",
    "SandboxViolation", "PlanRejected", "PlanLimitExceeded", "InputFileError", "ConfigError",
    "ModelError", "ToolError", "PreconditionFailed", "ToolCallFailed", "InfrastructureError",
    "BrowserError", "SiteUnreachable",
    "PlanLimits",
    # protocol and cache
    "ToolManifest", "Effect", "load_manifest", "satisfies", "apply", "read_trace", "ToolCache",
    # models
    "Model", "Message", "ModelResponse", "Usage", "FunctionModel", "TestModel", "OpenAIModel",
    "GeminiModel", "infer_model", "SimulatedLatency",
    # planner
    "Planner", "CompiledPlan", "check", "CheckResult", "Diagnostic", "NoValidPlan",
    # scheduler
    "Scheduler", "Schedule", "schedule_plan", "plan_usage", "fit_latency",
    # runtime
    "BrowserPool", "Runtime", "RunResult", "CallOutcome", "call_tool", "run_plan",
    # agent
    "StepwiseAgent", "agent_ai_exec",
    # the walk through the layers
    "Session",
]  # fmt: skip
