"""The signatures of a plan's own functions: one table for the checker, the stubs and the runtime.

``ai_eval``, ``ask_human`` and ``ai_exec`` are called by plans the checker
read against a stub and the runtime runs against a function; both take their
parameters from :data:`PLAN_FUNCTIONS`, and both word a call that does not fit
with :func:`call_error`, so a call the checker passes binds at run time, and a
call that fails at run time says what the checker would have said (never the
name of an internal function). :func:`bind_call` is the runtime's side;
:func:`bind_tool_call` does the same for a tool's parameters (from its
manifest).

This module imports only the standard library and :mod:`agentjit.exceptions`,
so the sandboxed child process can load it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentjit.exceptions import ToolInputError

__all__ = ["Signature", "PLAN_FUNCTIONS", "call_error", "bind_call", "tool_call_error", "bind_tool_call"]


@dataclass(frozen=True)
class Signature:
    """One plan function: required parameters (positional or by name), and whether it takes ``**values``."""

    name: str
    params: tuple[str, ...]
    values: bool = False
    """Takes any other keyword argument (``ai_eval``'s ``{name}`` fields)."""
    returns: str = "Any"
    doc: str = ""

    def stub(self) -> str:
        """The ``async def`` stub the plan prompt shows."""
        params = [f"{p}: str" for p in self.params] + (["**values: Any"] if self.values else [])
        return f'async def {self.name}({", ".join(params)}) -> {self.returns}:\n    """{self.doc}"""\n    ...'


PLAN_FUNCTIONS: dict[str, Signature] = {
    "ai_eval": Signature(
        "ai_eval", ("question",), values=True,
        doc="Ask a language model. {name} fields in the question are filled with values[name]: pass every value\n"
            "    by name, e.g. ai_eval(\"Which of {names} is vegan?\", names=names). Returns the answer as text.\n"
            "    Slow and costly (about 100 tool calls): use it only for judgement that code cannot do.",
    ),
    "ask_human": Signature(
        "ask_human", ("question",), returns="str",
        doc="Ask the user; use it only when no tool can get what the task needs.",
    ),
    "ai_exec": Signature(
        "ai_exec", ("instruction",),
        doc="Have a browsing agent carry out one step no tool covers, on the plan's page.",
    ),
}  # fmt: skip
"""The functions every plan may call besides its tools and the safe builtins."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def call_error(sig: Signature, n_args: int, keywords: Sequence[str]) -> str | None:
    """Why ``name(<n_args positional>, <keywords>=...)`` does not fit ``sig``; None when it does."""
    params = sig.params
    if n_args > len(params):
        extra = "; pass every other value by name and use it in the question as {name}" if sig.values else ""
        example = f', e.g. {sig.name}("Which of {{names}} ...?", names=...)' if sig.values else ""
        return (f"{sig.name}() takes {_plural(len(params), 'positional argument')} ({', '.join(params)}) "
                f"but {n_args} were given{extra}{example}")
    for i, key in enumerate(keywords):
        if key in params[:n_args]:
            return f"{sig.name}() got {key!r} twice (as argument {params.index(key) + 1} and by name)"
        if key not in params and not sig.values:
            return f"{sig.name}() has no parameter {key!r} (it takes {', '.join(params)})"
        if key in keywords[:i]:
            return f"{sig.name}() got {key!r} twice"
    missing = [p for p in params[n_args:] if p not in keywords]
    if missing:
        return f"{sig.name}() is missing its {missing[0]!r} argument"
    return None


def bind_call(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """``(the parameters' values in order, the other keyword values)`` of a call of plan function ``name``.

    Raises :class:`ToolInputError` with :func:`call_error`'s message when the call does not fit.
    """
    sig = PLAN_FUNCTIONS[name]
    err = call_error(sig, len(args), list(kwargs))
    if err is not None:
        raise ToolInputError(err)
    rest = dict(kwargs)
    values = list(args) + [rest.pop(p) for p in sig.params[len(args):]]
    return values, rest


def tool_call_error(name: str, params: Sequence[str], n_args: int, keywords: Sequence[str]) -> str | None:
    """Why a call of tool ``name`` with ``n_args`` positional and ``keywords`` cannot bind; None when it can.

    Only the binding: missing required arguments and types are :func:`~agentjit.protocol.schema.validate_inputs`'.
    """
    if n_args > len(params):
        return (f"{name}() takes {_plural(len(params), 'positional argument')} ({', '.join(params) or 'none'}) "
                f"but {n_args} were given")
    for i, key in enumerate(keywords):
        if key not in params:
            return f"{name}() has no parameter {key!r} (parameters: {', '.join(params) or 'none'})"
        if key in params[:n_args] or key in keywords[:i]:
            return f"{name}() got {key!r} twice"
    return None


def bind_tool_call(name: str, params: Sequence[str], args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of a call of tool ``name`` by parameter name; ToolInputError when they cannot bind."""
    err = tool_call_error(name, params, len(args), list(kwargs))
    if err is not None:
        raise ToolInputError(err)
    return {**dict(zip(params, args, strict=False)), **kwargs}
