"""The JIT planner (Algorithm 1): plan sandbox, CFG, checker, cost model, prompts and sampling.

``check(source, cache)`` validates and costs one plan; ``admit(source, cache)`` is the
gate every entry point applies before a plan runs (it raises PlanRejected); ``Planner(model, cache).compile(task)``
samples candidates in parallel, repairs failed ones from their diagnostics, and returns the
cheapest valid plan as a :class:`CompiledPlan` (or a stored one from the plan cache).
"""

from agentjit.plan.diagnostics import (
    ALL_CODES,
    ArgumentType,
    Diagnostic,
    EffectViolation,
    Forbidden,
    MissingArgument,
    NoResult,
    NoValidPlan,
    PreconditionNotMet,
    SyntaxErrorFound,
    TooComplex,
    UnexpectedArgument,
    UnknownField,
    UnknownName,
    UnknownTool,
    render,
)
from agentjit.plan.sandbox import (
    PLAN_BUILTINS,
    SAFE_BUILTINS,
    SAFE_EXCEPTIONS,
    check_sandbox,
    parse_source,
)

from .cfg import CFG, Block, build_cfg
from .checker import CheckResult, check, check_tree
from .compiled import CandidateReport, CompiledPlan, PlanOrigin, PlanStats
from .cost import CallSite, CostModel, call_sites, estimate_cost, trip_count
from .gate import admit, rejection
from .planner import Planner, normalize_task, pass_at_k, pass_at_t, plan_key
from .prompts import SYSTEM_PROMPT, extract_code, plan_messages, repair_messages
from .stubs import render_stubs, tool_stub
from .templates import Slot, Template, make_template

__all__ = [
    "CFG", "Block", "build_cfg",
    "CheckResult", "check", "check_tree", "admit", "rejection",
    "CandidateReport", "CompiledPlan", "PlanOrigin", "PlanStats",
    "CallSite", "CostModel", "call_sites", "estimate_cost", "trip_count",
    "ALL_CODES", "ArgumentType", "Diagnostic", "EffectViolation", "Forbidden", "MissingArgument",
    "NoResult", "NoValidPlan", "PreconditionNotMet", "SyntaxErrorFound", "TooComplex", "UnexpectedArgument", "UnknownField",
    "UnknownName", "UnknownTool", "render",
    "Planner", "normalize_task", "pass_at_k", "pass_at_t", "plan_key",
    "SYSTEM_PROMPT", "extract_code", "plan_messages", "repair_messages",
    "PLAN_BUILTINS", "SAFE_BUILTINS", "SAFE_EXCEPTIONS", "check_sandbox", "parse_source",
    "render_stubs", "tool_stub",
    "Slot", "Template", "make_template",
]  # fmt: skip
