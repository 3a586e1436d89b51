"""A plan's findings, one small class each, and the one reporter that renders them.

They live in the plan layer because the sandbox (:mod:`agentjit.plan.sandbox`),
the planner's checker, the scheduler and the runtime all produce or read them.

Modelled on pyflakes' ``messages.py``: every finding is a :class:`Diagnostic`
with a stable ``code`` (a class attribute), a 1-based ``line`` and a 1-based
``col`` (``ast``'s ``col_offset`` + 1, so it matches what editors show), and a
message for people. :func:`render` turns a list of them into text, either for a
terminal or for the repair prompt (which also quotes the offending line so the
model sees exactly what it wrote).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from agentjit.exceptions import PlanError

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


class Diagnostic:
    """One finding about a plan: where it is and what is wrong.

    ``line`` and ``col`` are 1-based; ``col`` counts characters from the start
    of the line (``ast`` col_offset + 1).
    """

    code: ClassVar[str] = "diagnostic"

    __slots__ = ("line", "col", "message")

    def __init__(self, line: int, col: int, message: str) -> None:
        self.line = line
        self.col = col
        self.message = message

    @classmethod
    def at(cls, node: ast.AST | None, message: str) -> Diagnostic:
        """Build a finding located at ``node`` (line 1, col 1 when there is none)."""
        line = getattr(node, "lineno", 1) or 1
        col = (getattr(node, "col_offset", 0) or 0) + 1
        return cls(line, col, message)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "line": self.line, "col": self.col}

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Diagnostic)
            and self.code == other.code
            and (self.line, self.col, self.message) == (other.line, other.col, other.message)
        )

    def __hash__(self) -> int:
        return hash((self.code, self.line, self.col, self.message))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(line={self.line}, col={self.col}, message={self.message!r})"

    def __str__(self) -> str:
        return f"line {self.line}, col {self.col}: [{self.code}] {self.message}"


class SyntaxErrorFound(Diagnostic):
    """The plan does not parse."""

    code = "syntax"


class Forbidden(Diagnostic):
    """An import, a dunder attribute, exec/eval/open, or a node outside the allow-list."""

    code = "forbidden"


class UnknownName(Diagnostic):
    """A name read before any path assigns it, and not a tool or builtin."""

    code = "unknown-name"


class UnknownTool(Diagnostic):
    """A call to a name that is neither a tool, ``ai_eval``/``ask_human`` nor a safe builtin."""

    code = "unknown-tool"


class MissingArgument(Diagnostic):
    """A required input of the tool is not passed."""

    code = "missing-argument"


class UnexpectedArgument(Diagnostic):
    """An argument the tool's input schema does not declare (or too many positionals)."""

    code = "unexpected-argument"


class ArgumentType(Diagnostic):
    """A literal argument that does not match the property's JSON Schema."""

    code = "argument-type"


class UnknownField(Diagnostic):
    """Attribute use on a tool result whose output schema lacks that property."""

    code = "unknown-field"


class EffectViolation(Diagnostic):
    """A tool called without ``await``, or a WRITE inside a comprehension."""

    code = "effect"


class PreconditionNotMet(Diagnostic):
    """A call whose ``pre`` is not guaranteed on every path into it."""

    code = "precondition"


class TooComplex(Diagnostic):
    """A plan too large or too deeply nested to analyse (bytes, lines, AST nodes or depth).

    Found before any recursive pass runs, so a hostile plan gets this finding
    instead of a RecursionError or MemoryError.
    """

    code = "too-complex"


class NoResult(Diagnostic):
    """A plan that never assigns ``result`` (an empty plan, say): it cannot produce a value."""

    code = "no-result"


ALL_CODES: tuple[str, ...] = tuple(
    cls.code
    for cls in (
        SyntaxErrorFound,
        Forbidden,
        UnknownName,
        UnknownTool,
        MissingArgument,
        UnexpectedArgument,
        ArgumentType,
        UnknownField,
        EffectViolation,
        PreconditionNotMet,
        TooComplex,
        NoResult,
    )
)


class NoValidPlan(PlanError):
    """The planner found no valid candidate; ``diagnostics`` holds the last findings of each."""

    def __init__(self, message: str, *, diagnostics: Sequence[Sequence[Diagnostic]] = (), report: Any = None) -> None:
        self.diagnostics = [list(d) for d in diagnostics]
        self.report = report
        """What the compile did (the planner's candidates, stats and usage as a dict), when known."""
        super().__init__(message)


def _source_line(lines: Sequence[str], lineno: int) -> str | None:
    if 1 <= lineno <= len(lines):
        return lines[lineno - 1].rstrip("\n")
    return None


def render(diagnostics: Iterable[Diagnostic], source: str, *, for_model: bool = False, filename: str = "plan.py") -> str:
    """Render findings as text.

    For people: ``plan.py:4:5: precondition: message`` followed by the line and
    a caret. For the repair prompt (``for_model=True``): a numbered list where
    each entry names the code, the line and quotes the offending source line,
    without terminal decoration.
    """
    lines = source.splitlines()
    diags = sorted(diagnostics, key=lambda d: (d.line, d.col, d.code))
    out: list[str] = []
    for i, d in enumerate(diags, 1):
        text = _source_line(lines, d.line)
        if for_model:
            out.append(f"{i}. line {d.line}, column {d.col} [{d.code}]: {d.message}")
            if text is not None and text.strip():
                out.append(f"   {d.line:>3} | {text}")
        else:
            out.append(f"{filename}:{d.line}:{d.col}: {d.code}: {d.message}")
            if text is not None and text.strip():
                out.append(f"    {text}")
                out.append("    " + " " * max(0, d.col - 1) + "^")
    return "\n".join(out)
