"""The signatures of a plan's own functions: one table for the checker, the stubs and the runtime.

``ai_eval``, ``ask_human`` and ``ai_exec`` are called by plans the checker
read against a stub and the runtime runs against a function; both take their
parameters from :data:`PLAN_FUNCTIONS`, and both word a call that does not fit
with :func:`call_error`, so a call the checker passes binds at run time, and a
call that fails at run time says what the checker would have said (never the
name of an internal function). :func:`bind_call` is the runtime's side;
:func:`bind_tool_call` does the same for a tool's parameters (from its
manifest). The safe builtins and the methods a plan may call have theirs too:
:func:`builtin_signature` and :func:`method_signature` (the runtime's own, read
with :mod:`inspect`, or written below where Python does not say), and
:func:`arity_error` words a call that does not bind, for the checker and the
guard alike.

This module imports only the standard library and :mod:`agentjit.exceptions`,
so the sandboxed child process can load it.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from agentjit.exceptions import ToolInputError

__all__ = ["Signature", "PLAN_FUNCTIONS", "call_error", "bind_call", "tool_call_error", "bind_tool_call",
           "builtin_signature", "method_signature", "arity_error"]


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


# -- the safe builtins and the methods of plain values --------------------------------------------------------
# What Python's inspect cannot read (builtins without a text signature), written as the documentation gives it.


def _min_max(first: Any, /, *rest: Any, key: Any = None, default: Any = None) -> None: ...
def _range(start_or_stop: Any, stop: Any = None, step: Any = None, /) -> None: ...
def _zip(*iterables: Any, strict: bool = False) -> None: ...
def _str(object: Any = "", encoding: Any = None, errors: Any = None) -> None: ...
def _int(x: Any = 0, /, base: Any = 10) -> None: ...
def _bool(x: Any = False, /) -> None: ...
def _dict(mapping: Any = (), /, **pairs: Any) -> None: ...
def _set(iterable: Any = (), /) -> None: ...
def _no_argument() -> None: ...
def _one(value: Any, /) -> None: ...
def _any_number(*others: Any) -> None: ...
def _search(sub: Any, start: Any = None, end: Any = None, /) -> None: ...
def _pop(key: Any, default: Any = None, /) -> None: ...
def _update(other: Any = (), /, **pairs: Any) -> None: ...


_WRITTEN: dict[str, Callable[..., None]] = {
    "min": _min_max, "max": _min_max, "range": _range, "zip": _zip, "str": _str, "int": _int, "bool": _bool,
    "dict": _dict, "set": _set,
    **dict.fromkeys(("str.count", "str.find", "str.index", "str.rfind", "str.rindex", "str.startswith",
                     "str.endswith"), _search),
    **dict.fromkeys(("dict.clear", "dict.copy", "dict.items", "dict.keys", "dict.values", "set.clear", "set.copy",
                     "set.pop", "frozenset.copy"), _no_argument),
    "dict.pop": _pop, "dict.update": _update,
    **dict.fromkeys(("set.add", "set.discard", "set.remove", "range.count", "range.index"), _one),
    **dict.fromkeys(tuple(f"{t}.{m}" for t in ("set", "frozenset")
                          for m in ("symmetric_difference", "isdisjoint", "issubset", "issuperset")), _one),
    "set.symmetric_difference_update": _one,
    **dict.fromkeys(tuple(f"{t}.{m}" for t in ("set", "frozenset")
                          for m in ("difference", "intersection", "union")), _any_number),
    **dict.fromkeys(("set.difference_update", "set.intersection_update", "set.update"), _any_number),
}  # fmt: skip


def _read(fn: Any, name: str, *, method: bool) -> inspect.Signature | None:
    written = _WRITTEN.get(name)
    if written is not None:
        return inspect.signature(written)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if method and params and params[0].name == "self":
        sig = sig.replace(parameters=params[1:])
    return sig


@cache
def builtin_signature(name: str) -> inspect.Signature | None:
    """The signature of builtin ``name`` as a plan calls it; None when not known (any call then binds)."""
    fn = getattr(builtins, name, None)
    return _read(fn, name, method=False) if callable(fn) else None


@cache
def method_signature(cls: type, name: str) -> inspect.Signature | None:
    """The signature of method ``name`` of ``cls`` (without ``self``); None when not known."""
    fn = getattr(cls, name, None)
    return _read(fn, f"{cls.__name__}.{name}", method=True) if callable(fn) else None


def arity_error(what: str, sig: inspect.Signature | None, n_args: int, keywords: Sequence[str]) -> str | None:
    """Why ``what(<n_args positional>, <keywords>=...)`` cannot bind to ``sig``; None when it can (or ``sig`` is
    None). The same words for the checker and the guard."""
    if sig is None:
        return None
    try:
        sig.bind(*range(n_args), **dict.fromkeys(keywords))
    except TypeError as exc:
        return f"{what}() cannot take this call: {exc} (it takes {_params(sig) or 'no arguments'})"
    return None


def _params(sig: inspect.Signature) -> str:
    """``iterable, key=None, reverse=False``: the parameters as a plan writes them."""
    out = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            out.append(f"**{p.name}")
        else:
            out.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return ", ".join(out)
