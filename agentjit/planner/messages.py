"""The plan findings, re-exported: they live in :mod:`agentjit.plan.diagnostics`."""

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

__all__ = [
    "Diagnostic",
    "SyntaxErrorFound",
    "Forbidden",
    "UnknownName",
    "UnknownTool",
    "MissingArgument",
    "UnexpectedArgument",
    "ArgumentType",
    "UnknownField",
    "EffectViolation",
    "PreconditionNotMet",
    "TooComplex",
    "NoResult",
    "ALL_CODES",
    "NoValidPlan",
    "render",
]
