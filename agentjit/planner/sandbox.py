"""The plan sandbox, re-exported: it lives in :mod:`agentjit.plan.sandbox`, below the planner and the runtime."""

from agentjit.plan.sandbox import (
    ALLOWED_NODES,
    FORBIDDEN_ATTRIBUTES,
    FORBIDDEN_NAMES,
    MAX_AST_DEPTH,
    MAX_AST_NODES,
    MAX_PLAN_BYTES,
    MAX_PLAN_LINES,
    PLAN_BUILTINS,
    SAFE_BUILTINS,
    SAFE_EXCEPTIONS,
    check_sandbox,
    child_nodes,
    parse_source,
    scan,
)

__all__ = [
    "SAFE_BUILTINS",
    "SAFE_EXCEPTIONS",
    "PLAN_BUILTINS",
    "FORBIDDEN_NAMES",
    "FORBIDDEN_ATTRIBUTES",
    "ALLOWED_NODES",
    "MAX_PLAN_BYTES",
    "MAX_PLAN_LINES",
    "MAX_AST_DEPTH",
    "MAX_AST_NODES",
    "check_sandbox",
    "scan",
    "parse_source",
    "child_nodes",
]
