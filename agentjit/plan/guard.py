"""The run-time guard: every attribute, item, call and operator of a plan goes through it.

The static sandbox (:mod:`agentjit.plan.sandbox`) is the first line; this is
the second, and safety must not depend on the first being complete. Before a
checked plan tree is compiled, :func:`agentjit.plan.rewrite.rewrite` turns

* ``x.name`` into ``__aj_attr(x, "name")``: only (type, name) pairs of the
  allow-list :data:`ALLOWED_ATTRIBUTES` (``str.lower``, ``list.append``,
  ``dict.items``...) and the fields of a :class:`~agentjit.plan.data.Record`
  pass; names starting with ``_`` never do; attribute assignment is refused;
* ``x[k]`` (read or write) into ``__aj_item`` / ``__aj_setitem``: a string key
  starting with ``__`` is refused, and records are read-only;
* every call ``f(...)`` into ``__aj_call(f, ...)``: only the plan's own
  callables (tools, ``ai_eval``, ``ask_human``, the safe builtins and
  exceptions) and bound methods of the allow-list may be called, with size
  checks before the call where a method could build a huge value
  (``ljust``, ``replace``, ``join``, ``extend``...);
* every binary operator into ``__aj_binop``: ``**``, ``<<``, ``*`` and ``+``
  are checked against the integer, string and item bounds *before* they run;
  ``%`` on a string is refused (use an f-string);
* every f-string field into ``__aj_fmt``: the conversion and format spec are
  applied here, with the spec's width bounded;
* every ``in`` / ``not in`` into ``__aj_in`` (a float in ``range(10**15)`` is answered
  without Python's scan in C), and every assignment or loop whose target has a
  starred name (``a, *rest = value``) sizes the value first (``__aj_unpack``);
* every loop iteration and comprehension item into a ``__aj_tick()`` that
  counts steps and watches the wall clock;
* a bare ``except:`` into ``except Exception:``, so no plan catches
  cancellation, interrupts or the guard's own limit (a ``BaseException``).

This module imports only the standard library, :mod:`agentjit.exceptions` and
the plan layer, so the sandboxed child process can load it.
"""

from __future__ import annotations

import builtins
import operator
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agentjit.exceptions import (
    AgentJITError,
    PlanError,
    PlanLimitExceeded,
    PreconditionFailed,
    SandboxViolation,
    ToolCallFailed,
    ToolError,
    ToolOutputError,
)

from .data import Record
from .limits import DEFAULT_LIMITS, PlanLimits
from .rewrite import PLAN_FILENAME
from .signatures import arity_error, builtin_signature, method_signature

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "RECORD_METHODS",
    "SAFE_EXCEPTIONS",
    "SAFE_FUNCTION_NAMES",
    "Guard",
    "LimitHit",
    "run_code",
    "plan_error",
    "allow_attributes",
]

#: Exceptions a plan may raise or catch by name (all ``Exception`` subclasses).
SAFE_EXCEPTIONS: dict[str, type[Exception]] = {
    "Exception": Exception,
    "ValueError": ValueError,
    "KeyError": KeyError,
    "IndexError": IndexError,
    "LookupError": LookupError,
    "TypeError": TypeError,
    "RuntimeError": RuntimeError,
    "ZeroDivisionError": ZeroDivisionError,
    "AttributeError": AttributeError,
    "StopIteration": StopIteration,
    "ToolError": ToolError,
    "PreconditionFailed": PreconditionFailed,
    "ToolCallFailed": ToolCallFailed,
    "ToolOutputError": ToolOutputError,
}

#: The builtin functions and types a plan may call (``print`` is the guard's own).
SAFE_FUNCTION_NAMES: tuple[str, ...] = (
    "len", "min", "max", "sum", "sorted", "reversed", "range", "enumerate", "zip",
    "str", "int", "float", "bool", "round", "abs", "any", "all",
    "list", "dict", "set", "tuple", "isinstance", "print",
)  # fmt: skip

_S = frozenset
#: (type, attribute) pairs a plan may read; bound methods among them may be called.
ALLOWED_ATTRIBUTES: dict[type, frozenset[str]] = {
    str: _S("""capitalize casefold center count endswith find index isalnum isalpha isascii isdecimal
               isdigit isidentifier islower isnumeric isspace istitle isupper join ljust lower lstrip
               partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip
               split splitlines startswith strip swapcase title upper zfill""".split()),
    list: _S("append clear copy count extend index insert pop remove reverse sort".split()),
    dict: _S("clear copy get items keys pop popitem setdefault update values".split()),
    set: _S("""add clear copy difference difference_update discard intersection intersection_update
               isdisjoint issubset issuperset pop remove symmetric_difference union update""".split()),
    frozenset: _S("copy difference intersection isdisjoint issubset issuperset symmetric_difference union".split()),
    tuple: _S(("count", "index")),
    int: _S(("bit_length",)),
    float: _S(("is_integer",)),
    range: _S(("start", "stop", "step", "count", "index")),
    BaseException: _S(("args",)),
    AgentJITError: _S(("tool", "line", "col")),
}
_RECORD_METHODS = _S(("get", "keys", "values", "items"))
RECORD_METHODS = _RECORD_METHODS
"""The methods of a :class:`~agentjit.plan.data.Record` a plan may call (besides reading its fields)."""
_MUTATING_GROWTH = {"append", "insert", "add", "setdefault"}


def allow_attributes(cls: type, names: Iterable[str]) -> None:
    """Let plans read ``names`` of ``cls`` (for runtime-made objects such as the parallel recorder)."""
    ALLOWED_ATTRIBUTES[cls] = ALLOWED_ATTRIBUTES.get(cls, frozenset()) | frozenset(names)


class LimitHit(BaseException):  # noqa: N818 - a BaseException so plans cannot catch it
    """A bound was crossed; a BaseException so that no ``except Exception`` in a plan swallows it."""

    def __init__(self, limit: str, message: str) -> None:
        super().__init__(message)
        self.limit = limit
        self.message = message


class _Refused(BaseException):  # noqa: N818
    """An operation the guard refuses; becomes a SandboxViolation with the plan line.

    A BaseException too: a refusal is a plan bug that stops the run, not a condition to catch.
    """


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitOr": operator.or_,
    "BitXor": operator.xor, "BitAnd": operator.and_,
}  # fmt: skip
_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul, "Div": operator.itruediv,
    "FloorDiv": operator.ifloordiv, "Mod": operator.imod, "Pow": operator.ipow,
    "LShift": operator.ilshift, "RShift": operator.irshift, "BitOr": operator.ior,
    "BitXor": operator.ixor, "BitAnd": operator.iand,
}  # fmt: skip
_SPEC_NUMBER = re.compile(r"\d+")


def _is_int(v: Any) -> bool:
    return type(v) is int or type(v) is bool


def _size(v: Any) -> int | None:
    """``len(v)`` for sized values (O(1) for every builtin container), None for iterators."""
    return _len(v) if hasattr(type(v), "__len__") else None


def _len(v: Any) -> int:
    """``len(v)`` for a sized value of any length (``len`` raises OverflowError past ``sys.maxsize``: ``range(10**30)``)."""
    try:
        return len(v)
    except OverflowError:
        return 1 << 63


def _in_range(item: Any, r: range) -> bool:
    """``item in r`` for a non-integer ``item``, as Python's item-by-item scan would answer it.

    Only numbers can equal an integer: a float or complex is in ``r`` when it is a
    whole number that is; the other plain values (str, None, containers, records)
    never equal one.
    """
    if type(item) is float:
        return item.is_integer() and int(item) in r
    if type(item) is complex:
        return item.imag == 0 and item.real.is_integer() and int(item.real) in r
    if type(item).__eq__ is object.__eq__ or isinstance(item, str | bytes | list | tuple | dict | set | frozenset
                                                           | range | Record | type(None)):
        return False
    raise LimitHit("steps", f"testing whether a {type(item).__name__} is in a range of {_len(r)} items "
                            "would compare it with each of them")


class Guard:
    """The checks of one plan run: its limits, its step count and its deadline.

    ``callables`` are the plan's own functions by identity (tools,
    ``ai_eval``, ``ask_human``); the safe builtins and exceptions are added.
    :meth:`namespace` gives the dict a rewritten plan runs in.
    """

    def __init__(self, limits: PlanLimits = DEFAULT_LIMITS, *, deadline: float | None = None) -> None:
        self.limits = limits
        self.steps = 0
        self.deadline = deadline if deadline is not None else time.monotonic() + limits.time_s
        self.cancelled = False
        self.halt: BaseException | None = None
        """The first limit crossed or operation refused (see :meth:`_stop`)."""
        self.output: list[str] = []
        self._output_chars = 0
        self.printer: Callable[[str], None] | None = None
        self._callables: set[int] = set()
        self._builtins: dict[str, Any] = {}
        for name in SAFE_FUNCTION_NAMES:
            self._builtins[name] = self.print if name == "print" else getattr(builtins, name)
        self._builtins.update(SAFE_EXCEPTIONS)
        # the lazy builtins tick for every item, so list(zip(range(10**9), ...)) meets the step budget
        self._builtins["zip"] = self._ticking(builtins.zip)
        self._builtins["enumerate"] = self._ticking(builtins.enumerate)
        self._builtins["reversed"] = self._ticking(builtins.reversed)
        self._builtins["sum"] = self._sum
        self._builtins["round"] = self._round
        for value in self._builtins.values():
            self._callables.add(id(value))
        # the checker's table: a builtin's call that does not bind fails with the checker's words, whatever wraps it
        self._arity = {id(self._builtins[name]): (name, builtin_signature(name)) for name in SAFE_FUNCTION_NAMES}
        self._prechecks: dict[int, Callable[[tuple[Any, ...], dict[str, Any]], None]] = {
            id(x): self._check_sized_args
            for x in (list, tuple, set, dict, sorted, self._builtins["sum"], min, max, any, all)
        }
        self._prechecks[id(str)] = self._check_str_call
        self._prechecks[id(int)] = self._check_int_call

    def _ticking(self, make: Callable[..., Iterable[Any]]) -> Callable[..., Any]:
        tick = self.tick

        def lazy(*args: Any, **kwargs: Any) -> Any:
            for item in make(*args, **kwargs):
                tick()
                yield item

        lazy.__name__ = getattr(make, "__name__", "lazy")
        return lazy

    # -- namespace -------------------------------------------------------------------------

    def namespace(self, callables: Mapping[str, Callable[..., Any]]) -> dict[str, Any]:
        """The globals of a rewritten plan: safe builtins, ``callables``, and the guard's hooks."""
        for fn in callables.values():
            self._callables.add(id(fn))
        ns: dict[str, Any] = {"__builtins__": {}}
        ns.update(self._builtins)
        ns.update(callables)
        ns.update(self.hooks())
        return ns

    def hooks(self) -> dict[str, Any]:
        return {
            "__aj_attr": self.attr, "__aj_item": self.item, "__aj_setitem": self.setitem,
            "__aj_augitem": self.augitem, "__aj_call": self.call, "__aj_binop": self.binop,
            "__aj_inplace": self.inplace, "__aj_tick": self.tick, "__aj_fmt": self.fmt,
            "__aj_slice": slice, "__aj_sized": self.sized, "__aj_in": self.contains,
            "__aj_unpack": self.unpack, "__aj_unpack_each": self.unpack_each,
        }  # fmt: skip

    # -- steps and time ----------------------------------------------------------------------

    def _stop(self, exc: BaseException) -> BaseException:
        """Remember the first limit or refusal: it stops the run even if the plan got past it once.

        Python lets a ``finally`` block drop an exception in flight (an exception raised there
        replaces it; ``break``/``continue`` there discards it), so a plan could outlive its limit
        by turning it into a ValueError it catches. Every later step, call and the end of the run
        raise it again (:meth:`halted`), with the first one's message and line.
        """
        if self.halt is None:
            self.halt = exc
        return exc

    def halted(self) -> BaseException:
        """A fresh copy of the remembered limit or refusal, to raise again."""
        first = self.halt
        if isinstance(first, LimitHit):
            return LimitHit(first.limit, first.message)
        return _Refused(*getattr(first, "args", ()))

    def tick(self) -> bool:
        if self.halt is not None:
            raise self.halted()
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise self._stop(LimitHit("steps", f"the plan took more than {self.limits.max_steps} steps "
                                    "(loop iterations and calls; raise it with --max-steps)"))
        if self.cancelled:
            raise self._stop(LimitHit("cancelled", "the plan run was cancelled"))
        if not self.steps & 15 and time.monotonic() > self.deadline:
            raise self._stop(LimitHit("time", f"the plan ran longer than its time limit of {self.limits.time_s:g} s "
                                   "(raise it with --time-limit)"))
        return True

    def check_time(self) -> None:
        if self.halt is not None:
            raise self.halted()
        if self.cancelled:
            raise self._stop(LimitHit("cancelled", "the plan run was cancelled"))
        if time.monotonic() > self.deadline:
            raise self._stop(LimitHit("time", f"the plan ran longer than its time limit of {self.limits.time_s:g} s "
                                   "(raise it with --time-limit)"))

    # -- work done in C in one step ---------------------------------------------------------

    def contains(self, item: Any, container: Any) -> bool:
        """``item in container``: a non-integer in a huge range is answered without the scan Python does in C."""
        if type(container) is range and not _is_int(item) and _len(container) > self.limits.max_items:
            return _in_range(item, container)
        return item in container

    def _range_method(self, owner: range, name: str, value: Any) -> Any:
        """``range.count``/``range.index`` of a non-integer in a huge range, without the scan."""
        found = _in_range(value, owner)
        if name == "count":
            return int(found)
        if not found:
            raise ValueError(f"{value!r} is not in range")
        return owner.index(int(value.real if type(value) is complex else value))

    def _sum(self, iterable: Any, /, start: Any = 0) -> Any:
        """``sum``, but lists and tuples are joined in one pass (Python's ``sum`` copies them quadratically)."""
        kind = type(start)
        if kind is not list and kind is not tuple:
            return builtins.sum(iterable, start)
        out = list(start)
        for part in iterable:
            self.tick()
            if type(part) is not kind:
                raise TypeError(f'can only concatenate {kind.__name__} (not "{type(part).__name__}") to {kind.__name__}')
            if len(out) + len(part) > self.limits.max_items:
                self._too_many(len(out) + len(part))
            out.extend(part)
        return out if kind is list else tuple(out)

    def _round(self, number: Any, ndigits: Any = None) -> Any:
        """``round``; an integer rounded to more digits than it has is 0 (Python computes ``10**-ndigits`` first)."""
        if _is_int(number) and _is_int(ndigits) and ndigits < 0 and -3 * ndigits > abs(number).bit_length() + 1:
            return 0  # |number| < 2**(bits) <= 10**(-ndigits) / 2: rounds to 0, as Python would
        if ndigits is None:
            return builtins.round(number)
        return builtins.round(number, ndigits)

    # -- attributes and items ----------------------------------------------------------------

    def attr(self, obj: Any, name: str) -> Any:
        if name.startswith("_"):
            raise self._stop(_Refused(f"attribute {name!r} is not allowed (no names starting with '_')"))
        if type(obj) is Record:
            fields = object.__getattribute__(obj, "_f")
            if name in fields:
                return fields[name]
            if name in _RECORD_METHODS:
                return getattr(obj, name)
            raise AttributeError(f"record has no field {name!r} (fields: {', '.join(list(fields)[:20])})")
        for cls in type(obj).__mro__:
            allowed = ALLOWED_ATTRIBUTES.get(cls)
            if allowed is not None and name in allowed:
                return getattr(obj, name)
        raise self._stop(_Refused(f"attribute {name!r} of a {type(obj).__name__} is not allowed in a plan"))

    def _key(self, key: Any) -> None:
        if type(key) is str and key.startswith("__"):
            raise self._stop(_Refused(f"key {key!r} is not allowed (no keys starting with '__')"))

    def item(self, obj: Any, key: Any) -> Any:
        self._key(key)
        t = type(obj)
        if t in (list, tuple, str, dict, Record, range) or isinstance(obj, list | tuple | str | dict | range):
            return obj[key]
        if t in ALLOWED_ATTRIBUTES or any(c in ALLOWED_ATTRIBUTES for c in t.__mro__[:-1]):
            return obj[key]  # runtime-made objects (the parallel recorder) that chose to be indexable
        raise self._stop(_Refused(f"a {t.__name__} cannot be indexed in a plan"))

    def setitem(self, obj: Any, key: Any, value: Any) -> None:
        self._key(key)
        t = type(obj)
        if t is list:
            obj[key] = value
            if len(obj) > self.limits.max_items:
                del obj[key]
                self._too_many(len(obj) + 1)
            return
        if t is dict:
            if key not in obj and len(obj) >= self.limits.max_items:
                self._too_many(len(obj) + 1)
            obj[key] = value
            return
        if t is Record:
            raise TypeError("records are read-only; build a dict if you need to change fields")
        if t in ALLOWED_ATTRIBUTES and hasattr(obj, "__setitem__"):
            obj[key] = value  # the parallel recorder
            return
        raise self._stop(_Refused(f"cannot assign items of a {t.__name__} in a plan"))

    def augitem(self, obj: Any, key: Any, op: str, value: Any) -> None:
        current = self.item(obj, key)
        self.setitem(obj, key, self.inplace(op, current, value))

    # -- calls -------------------------------------------------------------------------------

    def call(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.tick()
        key = id(fn)
        if key in self._callables:
            named = self._arity.get(key)
            if named is not None:
                self._bind(named[0], named[1], args, kwargs)
            pre = self._prechecks.get(key)
            if pre is not None:
                pre(args, kwargs)
            if "key" in kwargs and kwargs["key"] is not None:
                self._guard_key(kwargs)
            return fn(*args, **kwargs)
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", None)
        if owner is not None and name is not None and not isinstance(owner, type) and type(fn).__name__ in (
            "builtin_function_or_method", "method",
        ):
            if type(owner) is Record:
                if name not in _RECORD_METHODS:
                    raise self._stop(_Refused(f"calling {name!r} of a record is not allowed"))
                self._bind(f"record.{name}", method_signature(Record, name), args, kwargs)
                for a in args:
                    self._key(a)
                return fn(*args, **kwargs)
            for cls in type(owner).__mro__:
                allowed = ALLOWED_ATTRIBUTES.get(cls)
                if allowed is not None and name in allowed:
                    self._bind(f"{cls.__name__}.{name}", method_signature(cls, name), args, kwargs)
                    self._check_method(owner, name, args, kwargs)
                    if (type(owner) is range and name in ("count", "index") and len(args) == 1 and not kwargs
                            and not _is_int(args[0]) and _len(owner) > self.limits.max_items):
                        return self._range_method(owner, name, args[0])
                    result = fn(*args, **kwargs)
                    if type(result) in (list, tuple) and len(result) > self.limits.max_items:  # split() & co
                        self._too_many(len(result))
                    if type(result) is str and len(result) > self.limits.max_str:  # upper() of 'ﬃ' is 'FFI'
                        self._too_long(len(result))
                    return result
        what = name or type(fn).__name__
        raise self._stop(_Refused(f"calling {what!r} is not allowed in a plan (only tools, ai_eval, ask_human, "
                       "safe builtins and methods of plain values)"))

    @staticmethod
    def _bind(what: str, sig: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        err = arity_error(what, sig, len(args), list(kwargs))
        if err is not None:
            raise TypeError(err)

    def _guard_key(self, kwargs: dict[str, Any]) -> None:
        """``key=f`` is called from C (sorted, min, max, list.sort): route every call through the guard."""
        key_fn = kwargs["key"]
        call = self.call

        def guarded_key(value: Any) -> Any:
            return call(key_fn, value)

        kwargs["key"] = guarded_key

    def _too_many(self, n: int) -> None:
        raise self._stop(LimitHit("items", f"a list, dict, set or tuple would hold {n} items, more than the limit of "
                                f"{self.limits.max_items}"))

    def _too_long(self, n: int) -> None:
        raise self._stop(LimitHit("str", f"a string would be {n} characters long, more than the limit of {self.limits.max_str}"))

    def unpack(self, value: Any, depth: int) -> Any:
        """``a, *rest = value``: the starred name gets a list built in C, so ``value`` is sized first.

        ``depth`` is how many levels the target unpacks; inner lists and tuples are checked too.
        """
        n = _size(value)
        if n is not None and n > self.limits.max_items:
            self._too_many(n)
        if depth > 1 and type(value) in (list, tuple):
            for item in value:
                self.unpack(item, depth - 1)
        return value

    def unpack_each(self, iterable: Any, depth: int) -> Any:
        """The items of ``iterable``, each checked as :meth:`unpack` (``for a, *rest in rows``)."""
        for item in iterable:
            yield self.unpack(item, depth)

    def sized(self, value: Any) -> Any:
        """``*value`` / ``**value``: refuse unpacking more items than the limit."""
        n = _size(value)
        if n is not None and n > self.limits.max_items:
            self._too_many(n)
        return value

    def _check_sized_args(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        for a in args:
            n = _size(a)
            if n is not None and n > self.limits.max_items:
                self._too_many(n)

    def _check_str_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if args and _is_int(args[0]) and args[0].bit_length() > 14_000:
            raise self._stop(LimitHit("int", "converting an integer of more than 4,300 digits to a string"))

    def _check_int_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """``int(text, base)``: Python bounds decimal text (4,300 digits) but not hexadecimal or binary."""
        text = args[0] if args else None
        if isinstance(text, str | bytes) and len(text) * 4 > self.limits.max_int_bits + 64:
            base = args[1] if len(args) > 1 else kwargs.get("base", 10)
            if base != 10:  # a power-of-two base (or 0 with a 0x/0o/0b prefix) has no digit limit; 4 bits a digit at most
                bits = len(text) * (max(int(base), 2) - 1).bit_length() if _is_int(base) and base > 0 else len(text) * 4
                if bits > self.limits.max_int_bits + 64:
                    raise self._stop(LimitHit("int", f"int() of {len(text):,} digits in base {base} would have more "
                                                     f"than {self.limits.max_int_bits} bits"))

    def _check_method(self, owner: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        lim = self.limits
        if isinstance(owner, str):
            if name in ("ljust", "rjust", "center", "zfill") and args and _is_int(args[0]) and args[0] > lim.max_str:
                self._too_long(args[0])
            elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
                hits = owner.count(args[0]) if args[0] else len(owner) + 1
                if len(args) > 2 and _is_int(args[2]) and args[2] >= 0:
                    hits = min(hits, args[2])
                n = len(owner) + hits * (len(args[1]) - len(args[0]))
                if n > lim.max_str:
                    self._too_long(n)
            elif name == "join" and args:
                parts = args[0]
                count = _size(parts)
                if count is not None and count > lim.max_items:
                    self._too_many(count)
                if isinstance(parts, list | tuple):
                    total = sum(len(p) for p in parts if isinstance(p, str)) + len(owner) * max(len(parts) - 1, 0)
                    if total > lim.max_str:
                        self._too_long(total)
            return
        if name in _MUTATING_GROWTH:  # one more item, whatever it is
            n = (len(owner) if hasattr(owner, "__len__") else 0) + 1
            if n > lim.max_items:
                self._too_many(n)
        elif name in ("extend", "update", "union", "intersection", "difference", "symmetric_difference",
                      "difference_update", "intersection_update", "symmetric_difference_update",
                      "issubset", "issuperset", "isdisjoint"):  # each takes any iterable and runs through it in C
            n = len(owner) if hasattr(owner, "__len__") else 0
            for a in args:
                m = _size(a)
                n += m if m is not None else 1
            if n > lim.max_items:
                self._too_many(n)
        if "key" in kwargs and kwargs["key"] is not None:
            self._guard_key(kwargs)
        if name in ("get", "pop", "setdefault"):
            for a in args:
                self._key(a)

    # -- operators ---------------------------------------------------------------------------

    def _check_binop(self, op: str, a: Any, b: Any) -> None:
        lim = self.limits
        if op == "Pow":
            if _is_int(a) and _is_int(b) and b > 0 and abs(a) > 1 and (abs(a).bit_length() - 1) * b > lim.max_int_bits:
                raise self._stop(LimitHit("int", f"an integer power with more than {lim.max_int_bits} bits"))
        elif op == "LShift":
            if _is_int(a) and _is_int(b) and a and a.bit_length() + b > lim.max_int_bits:
                raise self._stop(LimitHit("int", f"an integer shift with more than {lim.max_int_bits} bits"))
        elif op == "Mult":
            if _is_int(a) and _is_int(b):
                if a.bit_length() + b.bit_length() > lim.max_int_bits + 1:
                    raise self._stop(LimitHit("int", f"an integer product with more than {lim.max_int_bits} bits"))
                return
            seq, n = (a, b) if _is_int(b) else (b, a) if _is_int(a) else (None, 0)
            size = _size(seq) if seq is not None else None
            if size is not None and n > 0:
                total = size * n
                if isinstance(seq, str | bytes):
                    if total > lim.max_str:
                        self._too_long(total)
                elif total > lim.max_items:
                    self._too_many(total)
        elif op == "Add":
            if isinstance(a, str | bytes) and isinstance(b, str | bytes):
                if len(a) + len(b) > lim.max_str:
                    self._too_long(len(a) + len(b))
            elif isinstance(a, list | tuple):  # list += range(10**9) extends in C from any iterable
                m = _size(b)
                if m is not None and len(a) + m > lim.max_items:
                    self._too_many(len(a) + m)
        elif op == "Mod" and isinstance(a, str | bytes | bytearray):
            raise self._stop(_Refused("'%' formatting of strings is not allowed in a plan; use an f-string"))

    def binop(self, op: str, a: Any, b: Any) -> Any:
        self._check_binop(op, a, b)
        return _BINOPS[op](a, b)

    def inplace(self, op: str, a: Any, b: Any) -> Any:
        self._check_binop(op, a, b)
        return _INPLACE[op](a, b)

    # -- f-strings and print -----------------------------------------------------------------

    def fmt(self, value: Any, conversion: int, spec: str) -> str:
        for number in _SPEC_NUMBER.findall(spec):
            digits = number.lstrip("0")  # '{:0005}' is width 5, zero-padded
            if len(digits) > 9 or (digits and int(digits) > self.limits.max_str):
                self._too_long(int(digits) if len(digits) <= 30 else 10**30)
        if conversion == ord("r"):
            value = repr(value)
        elif conversion == ord("a"):
            value = ascii(value)
        elif conversion == ord("s"):
            value = str(value)
        if _is_int(value) and value.bit_length() > 14_000:
            raise self._stop(LimitHit("int", "formatting an integer of more than 4,300 digits"))
        text = format(value, spec)
        if len(text) > self.limits.max_str:
            self._too_long(len(text))
        return text

    def print(self, *args: Any, sep: Any = " ", end: Any = "\n", **_ignored: Any) -> None:
        """The plan's ``print``: text goes to the run's log (``file=`` and ``flush=`` are ignored)."""
        room = 1_000_000 - self._output_chars
        if room <= 0:
            return
        sep = sep if isinstance(sep, str) else " "
        pieces: list[str] = []
        size = 0
        for i, arg in enumerate(args):  # only as much as the output has room for: no 10 MB sep a million times
            for piece in (sep, str(arg)) if i else (str(arg),):
                pieces.append(piece[:room - size])
                size += len(pieces[-1])
            if size >= room:
                break
        else:
            pieces.append((end if isinstance(end, str) else "\n")[:room - size])
        text = "".join(pieces)
        self._output_chars += len(text)
        self.output.append(text)
        if self.printer is not None:
            self.printer(text)


def _plan_line(exc: BaseException) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PLAN_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def current_plan_line() -> int | None:
    """The plan line running now (the innermost frame of the plan's own code on the stack), or None: where a
    tool call the plan is waiting on was made."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == PLAN_FILENAME:
            return frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _short(text: str, limit: int = 500) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[:limit] + "..."


def plan_error(exc: BaseException) -> BaseException:
    """What a plan's own failure becomes: a PlanError with the plan line (tool errors stay as they are)."""
    line = _plan_line(exc)
    if isinstance(exc, LimitHit):
        return PlanLimitExceeded(exc.message, limit=exc.limit, line=line)
    if isinstance(exc, _Refused):
        return SandboxViolation(_short(str(exc)), line=line)
    if isinstance(exc, AgentJITError):  # tool, config and plan errors stay as they are
        if isinstance(exc, PlanError) and exc.line is None and line is not None:
            exc.line = line
        return exc
    if isinstance(exc, RecursionError):
        return PlanLimitExceeded("the plan nested calls or values too deeply", limit="depth", line=line)
    if isinstance(exc, MemoryError):
        return PlanLimitExceeded("the plan ran out of memory", limit="memory", line=line)
    if isinstance(exc, RuntimeError) and isinstance(exc.__cause__, StopIteration):
        return PlanError("the plan raised StopIteration", line=line)
    if isinstance(exc, Exception):
        try:
            text = str(exc)
        except Exception:  # a str() that fails is still an error with a name
            text = "(no message)"
        return PlanError(f"{type(exc).__name__}: {_short(text)}", line=line)
    return exc


async def run_code(code: Any, namespace: dict[str, Any]) -> None:
    """Run compiled plan ``code`` in ``namespace``; plan failures become :func:`plan_error`'s errors."""
    try:
        maybe = eval(code, namespace)  # noqa: S307 - a checked, guarded tree with empty __builtins__
        if maybe is not None:
            await maybe
    except (Exception, LimitHit, _Refused) as exc:
        mapped = plan_error(exc)
        if mapped is exc:
            raise
        raise mapped from (None if isinstance(exc, LimitHit | _Refused) else exc)
