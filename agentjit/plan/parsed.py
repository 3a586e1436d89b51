"""One plan, parsed once: its source, its tree and what the stages read from it (issue 20).

The checker, the gate, the scheduler's usage analysis and the runtime each
took plan text and parsed it again. A :class:`Plan` is made once from the
text (:meth:`Plan.parse`) and handed through compile -> gate -> schedule ->
run; a stage that reads something off the tree for a given tool set (the
checker's verdict) keeps it with :meth:`Plan.memo`, so the next stage does not
read it again. Every stage still takes plain text too, through :func:`as_plan`.

Like the rest of this layer it imports only the standard library and the plan
layer.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .diagnostics import Diagnostic
from .sandbox import parse_source

__all__ = ["Plan", "as_plan"]

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Plan:
    """Plan ``source`` and its ``tree`` (None when it does not parse: then ``findings`` says why).

    Made by :meth:`parse`, which never raises (see
    :func:`~agentjit.plan.sandbox.parse_source`). The tree is shared: no stage
    may change it (the run-time guard rewrites a copy).
    """

    source: str
    tree: ast.Module | None
    findings: tuple[Diagnostic, ...] = ()
    _memo: list[tuple[str, tuple[object, ...], Any]] = field(default_factory=list, repr=False)

    @classmethod
    def parse(cls, source: str) -> Plan:
        tree, findings = parse_source(source)
        return cls(source, tree, tuple(findings))

    def memo(self, kind: str, inputs: tuple[object, ...], make: Callable[[], T]) -> T:
        """``make()``, read once per ``kind`` and ``inputs`` (compared by identity: the same tool cache)."""
        for k, known, value in self._memo:
            if k == kind and len(known) == len(inputs) and all(a is b for a, b in zip(known, inputs, strict=True)):
                return value  # type: ignore[no-any-return]
        value = make()
        self._memo.append((kind, inputs, value))
        return value


def as_plan(plan: str | Plan) -> Plan:
    """``plan`` itself, or the :class:`Plan` parsed from plan text."""
    return plan if isinstance(plan, Plan) else Plan.parse(plan)
