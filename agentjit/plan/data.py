"""The data a plan sees: plain values and read-only records, and their wire form.

A plan is handed only plain data: ``str``, ``int``, ``float``, ``bool``,
``None``, lists, dicts, tuples, sets and :class:`Record` (a tool result, or an
object inside one). A :class:`Record` is a read-only mapping whose fields are
also readable as attributes (``stores.items[0].name``); it has no methods of
its own beyond ``get``/``keys``/``values``/``items``, and none of them reaches
an attribute by name, so ``r.get("__class__")`` is just a missing field.

Values cross between the plan's child process and the runtime as tagged JSON
(:func:`encode`, :func:`decode`): lists are JSON arrays, and every other
container is an object with one tag key (``$d`` dict, ``$r`` record, ``$t``
tuple, ``$s`` set, ``$f`` frozenset) holding a list, so dict keys keep their
types; an integer too long for JSON's decimal form is ``{"$i": hex}``. Nothing else crosses: a generator or an exception is refused with a
:class:`ValueError` that names its type. Depth and size are bounded both ways.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["Record", "ValueTooLarge", "to_record", "to_plan_value", "encode", "decode", "plain", "PLAIN_SCALARS"]

PLAIN_SCALARS = (str, int, float, bool, type(None))


class Record(Mapping[str, Any]):
    """A read-only record: a tool result or one object inside it.

    ``rec.name``, ``rec["name"]`` and ``rec.get("name")`` read a field;
    iteration, ``len`` and ``in`` are over field names, as for a dict, and a
    record equals a dict with the same items.
    """

    __slots__ = ("_f",)

    def __init__(self, fields: Mapping[str, Any] | None = None) -> None:
        object.__setattr__(self, "_f", dict(fields or {}))

    def __getitem__(self, key: str) -> Any:
        return self._f[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._f)

    def __len__(self) -> int:
        return len(self._f)

    def __contains__(self, key: object) -> bool:
        return key in self._f

    def __getattr__(self, name: str) -> Any:
        # only reached for names that are not real attributes; the plan guard never calls it
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._f[name]
        except KeyError:
            raise AttributeError(f"record has no field {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError("records are read-only")

    def __delattr__(self, name: str) -> None:
        raise TypeError("records are read-only")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._f == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._f)

    def __reduce__(self) -> Any:  # copy/deepcopy keep records records
        return (Record, (self._f,))


class ValueTooLarge(ValueError):
    """A value past a bound (``limit``: ``depth`` or ``items``) where it leaves the plan."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


def _depth_error(max_depth: int) -> ValueError:
    return ValueTooLarge(f"value nested deeper than {max_depth} levels", "depth")


def to_record(value: Any, schema: Mapping[str, Any] | None = None, *, max_depth: int = 100) -> Any:
    """JSON ``value`` (a tool output) as plan data: objects become :class:`Record`.

    Properties that ``schema`` declares but ``value`` lacks are present as
    None, so a plan can test ``if item.rating is None`` for optional fields.
    """

    def conv(v: Any, sch: Any, depth: int) -> Any:
        if depth > max_depth:
            raise _depth_error(max_depth)
        if isinstance(v, dict):
            props = sch.get("properties") if isinstance(sch, dict) else None
            fields: dict[str, Any] = {}
            if isinstance(props, dict):
                for name in props:
                    fields[str(name)] = None
            for k, item in v.items():
                sub = props.get(k) if isinstance(props, dict) else None
                fields[str(k)] = conv(item, sub, depth + 1)
            return Record(fields)
        if isinstance(v, list | tuple):
            items = sch.get("items") if isinstance(sch, dict) else None
            return [conv(x, items, depth + 1) for x in v]
        if isinstance(v, PLAIN_SCALARS):
            return v
        return str(v)

    return conv(value, schema, 0)


def to_plan_value(value: Any, *, max_depth: int = 100) -> Any:
    """Any value from outside the plan (ai_eval, ask_human) as plan data.

    Containers are copied down to plain ones (mappings that are not dicts
    become records); anything else that is not a plain scalar becomes its ``str``.
    """

    def conv(v: Any, depth: int) -> Any:
        if depth > max_depth:
            raise _depth_error(max_depth)
        if isinstance(v, PLAIN_SCALARS):
            return v
        if isinstance(v, Record):
            return Record({k: conv(x, depth + 1) for k, x in v.items()})
        if isinstance(v, dict):
            return {conv(k, depth + 1): conv(x, depth + 1) for k, x in v.items()}
        if isinstance(v, Mapping):
            return Record({str(k): conv(x, depth + 1) for k, x in v.items()})
        if isinstance(v, list):
            return [conv(x, depth + 1) for x in v]
        if isinstance(v, tuple):
            return tuple(conv(x, depth + 1) for x in v)
        if isinstance(v, set | frozenset):
            return type(v)(conv(x, depth + 1) for x in v)
        dump = getattr(v, "model_dump", None)  # a pydantic model from a Python ai_eval
        if callable(dump):
            return conv(dump(mode="json"), depth + 1)
        return str(v)

    return conv(value, 0)


_TAGS: dict[type, str] = {dict: "$d", Record: "$r", tuple: "$t", set: "$s", frozenset: "$f"}


def encode(value: Any, *, max_depth: int = 100, max_items: int = 10_000_000) -> Any:
    """``value`` (plan data) as tagged JSON-ready data; raises ValueError for anything else.

    A value nested past ``max_depth`` (far below the recursion limit) or with
    more than ``max_items`` containers is refused.
    """
    budget = [max_items]

    def enc(v: Any, depth: int) -> Any:
        if depth > max_depth:
            raise _depth_error(max_depth)
        t = type(v)
        if t is int and v.bit_length() > 4096:  # JSON writes ints in decimal, which Python caps at 4300 digits
            return {"$i": hex(v)}
        if t in (str, int, float, bool) or v is None:
            return v
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueTooLarge(f"value has more than {max_items} items", "items")
        if t is list:
            return [enc(x, depth + 1) for x in v]
        tag = _TAGS.get(t)
        if tag is None:
            raise ValueError(f"a value of type {t.__name__} is not plain data (str, numbers, bool, None, "
                             "list, dict, tuple, set, record)")
        if t is dict or t is Record:
            return {tag: [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]}
        return {tag: [enc(x, depth + 1) for x in v]}

    return enc(value, 0)


def decode(data: Any, *, max_depth: int = 100) -> Any:
    """The plan data that :func:`encode` made ``data`` from (refuses anything else)."""

    def dec(v: Any, depth: int) -> Any:
        if depth > max_depth:
            raise _depth_error(max_depth)
        if isinstance(v, PLAIN_SCALARS):
            return v
        if isinstance(v, list):
            return [dec(x, depth + 1) for x in v]
        if isinstance(v, dict) and len(v) == 1:
            (tag, body), = v.items()
            if tag == "$i" and isinstance(body, str):
                return int(body, 16)
            if isinstance(body, list):
                if tag in ("$d", "$r"):
                    pairs = [(dec(p[0], depth + 1), dec(p[1], depth + 1)) for p in body
                             if isinstance(p, list) and len(p) == 2]
                    if len(pairs) != len(body):
                        raise ValueError(f"malformed {tag} entry")
                    return dict(pairs) if tag == "$d" else Record({str(k): x for k, x in pairs})
                items = [dec(x, depth + 1) for x in body]
                if tag == "$t":
                    return tuple(items)
                if tag == "$s":
                    return set(items)
                if tag == "$f":
                    return frozenset(items)
        raise ValueError(f"not encoded plan data: {str(v)[:80]!r}")

    return dec(data, 0)


def plain(value: Any, *, max_depth: int = 100) -> Any:
    """Plan data as JSON-shaped data for people and files: records become dicts, tuples lists."""

    def conv(v: Any, depth: int) -> Any:
        if depth > max_depth:
            raise _depth_error(max_depth)
        if isinstance(v, Mapping):
            return {(k if isinstance(k, str) else str(k)): conv(x, depth + 1) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [conv(x, depth + 1) for x in v]
        return v

    return conv(value, 0)
