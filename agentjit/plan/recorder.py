"""Accumulator recorders for the parallel strategy, and the merge that replays them.

During one parallel loop iteration each accumulator (an outer name the body
appends to, stores into or adds to) is a :class:`Recorder` that logs the
mutation as data; the merge replays the logs on the real objects in iteration
order, so the plan's value is the serial run's. Ops are plain tuples
``(name, key path, operation, arguments)`` and cross the process boundary as
plan data. The recorder's methods are on the guard's allow-list.
"""

from __future__ import annotations

import operator
from typing import Any

from .guard import allow_attributes

__all__ = ["Recorder", "apply_ops", "Op"]

Op = tuple[str, tuple[Any, ...], str, tuple[Any, ...]]
"""(accumulator name, key path, operation, arguments) as one iteration did it."""


class Recorder:
    """Stands for an accumulator during one iteration and logs what the body does to it.

    Usage analysis guarantees the body only appends/extends/adds/updates it,
    stores into it or ``+=``s it (or one of its items), never reads it.
    """

    __slots__ = ("_name", "_path", "_ops")

    def __init__(self, name: str, ops: list[Op], path: tuple[Any, ...] = ()) -> None:
        self._name = name
        self._ops = ops
        self._path = path

    def _log(self, op: str, *args: Any) -> None:
        self._ops.append((self._name, self._path, op, args))

    def append(self, value: Any) -> None:
        self._log("append", value)

    def extend(self, values: Any) -> None:
        self._log("extend", list(values))

    def add(self, value: Any) -> None:
        self._log("add", value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        # take iterators now: a generator would otherwise run at merge time, in a later namespace
        kept = tuple(a if hasattr(a, "keys") or isinstance(a, list | tuple | set | frozenset | str) else list(a)
                     for a in args)
        self._log("update", kept, kwargs)

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, Recorder):  # the store-back of `acc[k] += x`, already logged
            return
        self._log("setitem", key, value)

    def __getitem__(self, key: Any) -> Recorder:
        return Recorder(self._name, self._ops, (*self._path, key))

    def __iadd__(self, value: Any) -> Recorder:
        self._log("iadd", value)
        return self

    def __repr__(self) -> str:
        return f"<accumulator {self._name} (merged after the parallel loop)>"


allow_attributes(Recorder, ("append", "extend", "add", "update"))


def apply_ops(ns: dict[str, Any], ops: list[Op]) -> None:
    """Do to the real accumulators in ``ns`` what one iteration did to its recorders."""
    for name, path, op, args in ops:
        if op == "iadd":
            if not path:
                ns[name] = operator.iadd(ns[name], args[0])
                continue
            holder = ns[name]
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = operator.iadd(holder[path[-1]], args[0])
            continue
        target = ns[name]
        for key in path:
            target = target[key]
        if op == "setitem":
            target[args[0]] = args[1]
        elif op == "update":
            target.update(*args[0], **args[1])
        elif op in ("append", "extend", "add"):
            getattr(target, op)(*args)
        else:
            raise ValueError(f"unknown accumulator operation {op!r}")
