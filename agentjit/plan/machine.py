"""The plan machine: guarded namespaces that run plan trees, in-process or in the sandbox child.

A :class:`PlanMachine` owns one :class:`~agentjit.plan.guard.Guard` and named
namespaces (``main`` for a serial run; the parallel strategy adds one per
iteration worker). :meth:`PlanMachine.run` compiles a checked tree through the
guard's rewrite (cached per tree), sets variables, installs accumulator
recorders, runs it and hands back the variables asked for and the recorded
ops. The runtime uses it directly (``isolate=False``) or through the child
process (:mod:`agentjit.plan.child`), which wraps the same class.
"""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .guard import Guard, plan_error, run_code
from .limits import DEFAULT_LIMITS, PlanLimits
from .recorder import Op, Recorder, apply_ops
from .rewrite import compile_plan

__all__ = ["PlanMachine", "ALL"]

ALL = "*"
"""``want=ALL``: every variable the plan set (what a parallel prefix hands its workers)."""


class PlanMachine:
    def __init__(
        self,
        callables: Mapping[str, Callable[..., Any]],
        limits: PlanLimits = DEFAULT_LIMITS,
        *,
        deadline: float | None = None,
        printer: Callable[[str], None] | None = None,
    ) -> None:
        self.guard = Guard(limits, deadline=deadline)
        self.guard.printer = printer
        self.callables = dict(callables)
        self._spaces: dict[str, dict[str, Any]] = {}
        self._own: set[str] = set()
        self._code: dict[int, tuple[ast.Module, Any]] = {}

    def namespace(self, name: str = "main", *, copy_from: str | None = None) -> dict[str, Any]:
        ns = self._spaces.get(name)
        if ns is None:
            if copy_from is not None and copy_from in self._spaces:
                ns = dict(self._spaces[copy_from])
            else:
                ns = self.guard.namespace(self.callables)
                self._own = set(ns)
            self._spaces[name] = ns
        return ns

    def user_names(self, ns: Mapping[str, Any]) -> list[str]:
        return [k for k in ns if k not in self._own and not k.startswith("__aj")]

    def _compiled(self, tree: ast.Module) -> Any:
        hit = self._code.get(id(tree))
        if hit is not None and hit[0] is tree:
            return hit[1]
        code = compile_plan(tree)
        self._code[id(tree)] = (tree, code)
        return code

    async def run(
        self,
        tree: ast.Module,
        *,
        ns: str = "main",
        copy_from: str | None = None,
        set_vars: Mapping[str, Any] | None = None,
        recorders: Iterable[str] = (),
        want: Iterable[str] | str = ("result",),
    ) -> tuple[dict[str, Any], list[Op]]:
        """Run ``tree`` in namespace ``ns``; return the ``want``ed variables and the recorders' ops."""
        space = self.namespace(ns, copy_from=copy_from)
        if set_vars:
            space.update(set_vars)
        ops: list[Op] = []
        for name in recorders:
            space[name] = Recorder(name, ops)
        self.guard.check_time()
        try:
            await run_code(self._compiled(tree), space)
        except BaseException as exc:
            # a limit or refusal that a ``finally`` turned into another exception is still what stopped the run
            halt = self.guard.halt
            if halt is not None and exc is not halt and not isinstance(exc, asyncio.CancelledError):
                raise plan_error(halt) from None
            raise
        if self.guard.halt is not None:  # the plan got past its limit (a ``finally`` dropped it) and ended
            raise plan_error(self.guard.halt)
        names = self.user_names(space) if want == ALL else list(want)
        values = {k: space[k] for k in names if k in space and not isinstance(space[k], Recorder)}
        return values, ops

    def apply_ops(self, ops: list[Op], *, ns: str = "main") -> None:
        apply_ops(self.namespace(ns), ops)

    def set_vars(self, values: Mapping[str, Any], *, ns: str = "main") -> None:
        self.namespace(ns).update(values)
