"""The abstract-state algebra of the tool protocol.

A *state* maps keys (``"page"``, ``"store"``, ...) to values. A *pattern* (a
tool's ``pre`` or ``post``) maps keys to patterns:

========== ===============================================================
pattern    meaning
========== ===============================================================
``"home"`` that literal value (also ``42``, ``true``, ``1.5``)
``"*"``    any non-null value
``"a|b"``  one of the alternatives (each itself a pattern)
``"$x"``   equal to the call's argument (or output field) named ``x``
``""``     must be null (in ``post``: becomes null)
``null``   same as ``""``
========== ===============================================================

States may also hold *abstract* values, which the static checker needs and
the runtime produces when a ``post`` is not concrete:

* :data:`ANY`: some non-null value, not known which;
* :data:`UNKNOWN`: anything at all, null included (a key nobody has set holds
  null, not UNKNOWN);
* :class:`OneOf`: one of a finite set of values.

The whole algebra is :func:`satisfies` (does ``state`` guarantee ``pre``?) and
:func:`apply` (the state after a call whose ``post`` is given), plus
:func:`join` for the dataflow analysis: the state that every incoming path
guarantees. Satisfaction is *guaranteed* satisfaction: ``OneOf({"a", "b"})``
satisfies ``"a|b|c"`` but not ``"a"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "ANY",
    "UNKNOWN",
    "OneOf",
    "State",
    "Pattern",
    "satisfies",
    "apply",
    "join",
    "unmet",
    "render_value",
]


class _Abstract:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name


ANY: Final = _Abstract("ANY")
"""Some non-null value."""
UNKNOWN: Final = _Abstract("UNKNOWN")
"""Any value, null included."""


@dataclass(frozen=True)
class OneOf:
    """One of a finite set of concrete values (``None`` allowed)."""

    values: frozenset[Any]

    @classmethod
    def of(cls, values: Iterable[Any]) -> Any:
        vals = frozenset(values)
        if len(vals) == 1:
            return next(iter(vals))
        return cls(vals)

    def __repr__(self) -> str:
        return "OneOf(" + "|".join(sorted(render_value(v) for v in self.values)) + ")"


State = dict[str, Any]
Pattern = Mapping[str, Any]


def _alternatives(pattern: Any) -> list[Any] | None:
    if isinstance(pattern, str) and "|" in pattern:
        return pattern.split("|")
    return None


def _resolve(pattern: Any, bindings: Mapping[str, Any]) -> Any:
    """Turn one non-alternative pattern into the abstract value it denotes."""
    if pattern is None or pattern == "":
        return None
    if pattern == "*":
        return ANY
    if isinstance(pattern, str) and pattern.startswith("$") and len(pattern) > 1:
        name = pattern[1:]
        if name in bindings:
            return bindings[name]
        return ANY
    return pattern


def _concrete_set(value: Any) -> frozenset[Any] | None:
    """The set of concrete values ``value`` may take, or None when unbounded."""
    if value is ANY or value is UNKNOWN:
        return None
    if isinstance(value, OneOf):
        return value.values
    return frozenset([value])


def _value_satisfies(value: Any, pattern: Any, bindings: Mapping[str, Any]) -> bool:
    alts = _alternatives(pattern)
    if alts is not None:
        # every value the state may hold must match some alternative
        possible = _concrete_set(value)
        if possible is None:
            return any(_value_satisfies(value, alt, bindings) for alt in alts)
        return all(any(_value_satisfies(v, alt, bindings) for alt in alts) for v in possible)
    if pattern == "*":
        if value is UNKNOWN:
            return False
        if isinstance(value, OneOf):
            return None not in value.values
        return value is not None
    expected = _resolve(pattern, bindings)
    if expected is None:
        return value is None
    if expected is ANY:
        # "$x" whose binding is not known statically: cannot be disproved,
        # but the state must at least hold some non-null value.
        return _value_satisfies(value, "*", bindings)
    if value is ANY or value is UNKNOWN:
        return False
    possible = _concrete_set(value)
    wanted = _concrete_set(expected)
    assert possible is not None and wanted is not None
    return possible <= wanted and _eq_sets(possible, wanted)


def _eq_sets(possible: frozenset[Any], wanted: frozenset[Any]) -> bool:
    # bool/int confusion: True == 1 in Python; keep them apart.
    for v in possible:
        if not any(v == w and type(v) is type(w) for w in wanted):
            return False
    return True


def unmet(state: Mapping[str, Any], pre: Pattern, bindings: Mapping[str, Any] | None = None) -> list[str]:
    """The keys of ``pre`` that ``state`` does not guarantee (empty when it satisfies)."""
    b = bindings or {}
    return [key for key, pattern in pre.items() if not _value_satisfies(state.get(key), pattern, b)]


def satisfies(state: Mapping[str, Any], pre: Pattern, bindings: Mapping[str, Any] | None = None) -> bool:
    """Whether every key of ``pre`` is guaranteed by ``state``.

    ``bindings`` maps parameter names (the call's arguments and output fields)
    to their values, for ``"$name"`` patterns.
    """
    return not unmet(state, pre, bindings)


def apply(state: Mapping[str, Any], post: Pattern, bindings: Mapping[str, Any] | None = None) -> State:
    """The state after a call with postcondition ``post``; ``state`` is not changed.

    Keys ``post`` does not mention keep their value. ``"*"`` keeps a non-null
    value that is already there and otherwise becomes :data:`ANY`; ``"a|b"``
    becomes ``OneOf`` unless the current value already is one of them.
    """
    b = bindings or {}
    out: State = dict(state)
    for key, pattern in post.items():
        alts = _alternatives(pattern)
        if (pattern == "*" or alts is not None) and _value_satisfies(state.get(key), pattern, b):
            continue  # the value already meets a non-specific post: keep it
        if alts is not None:
            resolved = [_resolve(a, b) for a in alts]
            if any(r is ANY or r is UNKNOWN for r in resolved):
                out[key] = ANY if None not in resolved else UNKNOWN
            else:
                out[key] = OneOf.of(resolved)
            continue
        value = _resolve(pattern, b)
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def join(states: Iterable[Mapping[str, Any]]) -> State:
    """What every one of ``states`` guarantees (the meet at a CFG join point)."""
    states = list(states)
    if not states:
        return {}
    keys: set[str] = set()
    for s in states:
        keys.update(s)
    out: State = {}
    for key in keys:
        values = [s.get(key) for s in states]
        first = values[0]
        if all(_same(v, first) for v in values[1:]):
            if first is not None:
                out[key] = first
            continue
        sets = [_concrete_set(v) for v in values]
        if all(vs is not None for vs in sets):
            union: set[Any] = set()
            for vs in sets:
                union |= vs or frozenset()
            out[key] = OneOf.of(union)
        elif all(v is not None and v is not UNKNOWN and not (isinstance(v, OneOf) and None in v.values) for v in values):
            out[key] = ANY
        else:
            out[key] = UNKNOWN
    return out


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def render_value(value: Any) -> str:
    """A short human form of an abstract value, for diagnostics."""
    if value is None:
        return "null"
    if isinstance(value, OneOf):
        return "|".join(sorted(render_value(v) for v in value.values))
    if isinstance(value, str):
        return repr(value)
    return repr(value) if not isinstance(value, _Abstract) else str(value)
