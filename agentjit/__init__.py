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
    agent        stepwise agent loop (baseline)
    bench        local web apps, tasks and judges, harness
    api, sync, testing, cli   entry points

``toolcache`` (the offline builder) imports agentjit, never the reverse.
"""

from ._version import __version__
from .cache import ToolCache
from .exceptions import (
    AgentJITError,
    BrowserError,
    CacheError,
    ConfigError,
    InfrastructureError,
    ManifestError,
    ModelError,
    PlanError,
    PreconditionFailed,
    SandboxViolation,
    SiteUnreachable,
    ToolCallFailed,
    ToolError,
    TraceError,
    UserError,
)
from .llm import (
    FunctionModel,
    GeminiModel,
    Message,
    Model,
    ModelResponse,
    OpenAIModel,
    TestModel,
    Usage,
    infer_model,
)
from .planner import CheckResult, CompiledPlan, Diagnostic, NoValidPlan, Planner, check
from .protocol import Effect, ToolManifest, apply, load_manifest, read_trace, satisfies
from .runtime import BrowserPool, CallOutcome, RunResult, Runtime, call_tool, run_plan
from .scheduler import Schedule, Scheduler, fit_latency, plan_usage, schedule_plan

__all__ = [
    "__version__",
    # errors
    "AgentJITError", "UserError", "ManifestError", "CacheError", "TraceError", "PlanError",
    "SandboxViolation", "ConfigError", "ModelError", "ToolError", "PreconditionFailed",
    "ToolCallFailed", "InfrastructureError", "BrowserError", "SiteUnreachable",
    # protocol and cache
    "ToolManifest", "Effect", "load_manifest", "satisfies", "apply", "read_trace", "ToolCache",
    # models
    "Model", "Message", "ModelResponse", "Usage", "FunctionModel", "TestModel", "OpenAIModel",
    "GeminiModel", "infer_model",
    # planner
    "Planner", "CompiledPlan", "check", "CheckResult", "Diagnostic", "NoValidPlan",
    # scheduler
    "Scheduler", "Schedule", "schedule_plan", "plan_usage", "fit_latency",
    # runtime
    "BrowserPool", "Runtime", "RunResult", "CallOutcome", "call_tool", "run_plan",
]  # fmt: skip
