"""The checker's dataflow pass: the abstract state and the assigned names along every path.

A forward analysis over the CFG (:mod:`.cfg`) with two facts per point: the
abstract state (joined with :func:`agentjit.protocol.state.join`) and the set
of names assigned on every path (intersected). A tool call applies its
``post`` (with its literal arguments bound to ``$name``); ``ai_exec`` makes
every key UNKNOWN. Loops iterate to a fixpoint on block summaries, then one
reporting pass walks every event: a call whose ``pre`` is not guaranteed is
``precondition`` (the message says where the offending value comes from); a
name read where some path has not assigned it is ``unknown-name``.
"""

from __future__ import annotations

import ast
import heapq
import logging
from collections.abc import Callable, Mapping
from typing import Any

from agentjit.plan.diagnostics import Diagnostic, PreconditionNotMet, UnknownName
from agentjit.plan.sandbox import FORBIDDEN_NAMES
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.state import ANY, UNKNOWN, OneOf, State, apply, join, render_value, unmet

from .cfg import CFG, Block, CallEvent, Def, Use
from .typing_pass import MISSING, TypingPass, literal

__all__ = ["Dataflow", "describe", "reverse_postorder"]

log = logging.getLogger(__name__)


def describe(value: Any) -> str:
    """An abstract state value in words, for precondition messages."""
    if value is None:
        return "unset"
    if value is UNKNOWN:
        return "unset or unknown"
    if value is ANY:
        return "some unknown value"
    if isinstance(value, OneOf):
        return " or ".join(sorted("unset" if v is None else render_value(v) for v in value.values))
    return render_value(value)


class Dataflow:
    """One plan's dataflow: run :meth:`run` on its CFG; findings go to ``report``.

    ``known_names`` are the names a plan may read without assigning them (tools,
    plan builtins, safe builtins); ``typing`` says which names are called or
    assigned anywhere, for the ``unknown-name`` message.
    """

    def __init__(
        self,
        tools: Mapping[str, ToolManifest],
        initial_state: State,
        known_names: set[str],
        typing: TypingPass,
        report: Callable[[Diagnostic], None],
    ) -> None:
        self.tools = tools
        self.initial_state = initial_state
        self.known_names = known_names
        self.typing = typing
        self.report = report
        self._bindings: dict[int, dict[str, Any]] = {}
        self._outs: dict[int, tuple[State, frozenset[str], State]] = {}

    def unknown_state(self, state: State) -> State:
        """The state after ``ai_exec``: the agent may have gone anywhere, so every key is UNKNOWN."""
        keys = set(state)
        for tool in self.tools.values():
            keys.update(tool.pre or {})
            keys.update(tool.post or {})
        return {key: UNKNOWN for key in keys}

    def bindings(self, tool: ToolManifest, node: ast.Call) -> dict[str, Any]:
        """``$name`` bindings of a call: literal arguments by value, the rest ANY."""
        cached = self._bindings.get(id(node))
        if cached is not None:
            return cached
        params = list(tool.parameters)
        out: dict[str, Any] = {}
        self._bindings[id(node)] = out
        for i, a in enumerate(node.args):
            if i < len(params) and not isinstance(a, ast.Starred):
                v = literal(a)
                out[params[i]] = ANY if v is MISSING or v is None else v
        for k in node.keywords:
            if k.arg is not None:
                v = literal(k.value)
                out[k.arg] = ANY if v is MISSING or v is None else v
        return out

    def transfer(
        self,
        block: Block,
        state: State,
        names: frozenset[str],
        *,
        report: bool = False,
    ) -> tuple[State, frozenset[str], State]:
        """Run ``block``'s events; returns the out state, out names and the exceptional-exit state."""
        if not block.events:
            return state, names, state
        seen: list[State] = [state]
        assigned = set(names)
        for index, ev in enumerate(block.events):
            if isinstance(ev, Def):
                assigned.add(ev.name)
            elif isinstance(ev, Use):
                if report and ev.name not in assigned and ev.name not in self.known_names:
                    self.report_name(ev)
            elif isinstance(ev, CallEvent):
                tool = self.tools.get(ev.name)
                if tool is None:
                    if ev.name == "ai_exec":
                        state = self.unknown_state(state)
                        seen.append(state)
                    continue
                b = self.bindings(tool, ev.node)
                if report and tool.pre:
                    missing = unmet(state, tool.pre, b)
                    if missing:
                        self.report_precondition(block, index, ev, tool, state, missing)
                state = apply(state, tool.post, b) if tool.post else state
                seen.append(state)
        exc = join(seen) if block.exc_succs and len(seen) > 1 else state
        return state, frozenset(assigned), exc

    def report_name(self, ev: Use) -> None:
        if id(ev.node) in self.typing.call_funcs or ev.name in FORBIDDEN_NAMES or ev.name.startswith("__"):
            return  # reported by the sandbox as unknown-tool / forbidden
        if ev.name in self.typing.assigned_anywhere:
            msg = f"{ev.name!r} may be unassigned here: some path from the start does not assign it"
        else:
            msg = f"{ev.name!r} is not defined (not assigned, and not a tool or builtin)"
        self.report(UnknownName.at(ev.node, msg))

    def _summary(self, block: Block) -> tuple[frozenset[str], list[tuple[ToolManifest | None, dict[str, Any]]]]:
        """What the fixpoint needs of a block: the names it assigns and its tool calls in order."""
        defs = frozenset(ev.name for ev in block.events if isinstance(ev, Def))
        calls: list[tuple[ToolManifest | None, dict[str, Any]]] = [
            (self.tools[ev.name], self.bindings(self.tools[ev.name], ev.node)) if ev.name in self.tools else (None, {})
            for ev in block.events
            if isinstance(ev, CallEvent) and (ev.name in self.tools or ev.name == "ai_exec")
        ]
        return defs, calls

    def run(self, cfg: CFG) -> None:
        """Forward analysis to a fixpoint (worklist in reverse postorder), then one reporting pass.

        The fixpoint runs on block summaries (assigned names, tool calls); only the
        reporting pass walks every event.
        """
        order = reverse_postorder(cfg)
        rank = {b.id: i for i, b in enumerate(order)}
        summaries = [self._summary(b) for b in order]
        ins: dict[int, tuple[State, frozenset[str]]] = {cfg.entry.id: (self.initial_state, frozenset())}
        outs = self._outs
        work = [0]
        queued = {0}
        steps = 0
        limit = 64 * len(order)
        while work and steps < limit:
            steps += 1
            i = heapq.heappop(work)
            queued.discard(i)
            b = order[i]
            if b is not cfg.entry:
                facts = [outs[p.id][:2] for p in b.preds if p.id in outs]
                facts += [(outs[p.id][2], outs[p.id][1]) for p in b.exc_preds if p.id in outs]
                if not facts:
                    continue
                if len(facts) == 1:
                    fact = facts[0]
                else:
                    fact = (join(f[0] for f in facts), frozenset.intersection(*(f[1] for f in facts)))
                if b.id in outs and ins.get(b.id) == fact:
                    continue
                ins[b.id] = fact
            state, names = ins[b.id]
            defs, calls = summaries[i]
            seen = [state]
            for tool, bindings in calls:
                if tool is None:  # ai_exec
                    state = self.unknown_state(state)
                    seen.append(state)
                elif tool.post:
                    state = apply(state, tool.post, bindings)
                    seen.append(state)
            exc = join(seen) if b.exc_succs and len(seen) > 1 else state
            out = (state, names | defs if defs else names, exc)
            if outs.get(b.id) != out:
                outs[b.id] = out
                for s in b.succs + b.exc_succs:
                    j = rank.get(s.id)
                    if j is not None and j not in queued:
                        queued.add(j)
                        heapq.heappush(work, j)
        if work:
            log.warning("plan dataflow stopped after %d steps without a fixpoint", steps)
        for b in order:
            if b.id in ins and b.events:
                self.transfer(b, *ins[b.id], report=True)

    def report_precondition(
        self, block: Block, index: int, ev: CallEvent, tool: ToolManifest, state: State, missing: list[str]
    ) -> None:
        for key in missing:
            value = state.get(key)
            pattern = tool.pre[key]
            want = "unset" if pattern in (None, "") else f"{key}={pattern!r}"
            certain = not (isinstance(value, OneOf) or value is UNKNOWN)
            where = self.explain(block, index, key, tool.pre[key])
            verb = "is" if certain else "may be"
            hint = self.producers_hint(tool, state, key, pattern, want, self.bindings(tool, ev.node))
            self.report(
                PreconditionNotMet.at(
                    ev.node, f"{tool.name}() needs {want}, but {where} {key!r} {verb} {describe(value)}{hint}"
                )
            )

    def producers_hint(
        self, tool: ToolManifest, state: State, key: str, pattern: Any, want: str, bindings: dict[str, Any]
    ) -> str:
        """``; call X() first: it gives page=...``: the tools whose post gives ``key`` what ``tool`` needs (at most three).

        A small model reads "needs page='store{id}'" and does not know which call gets
        there; the tools that do are named, those callable from the state at the call first.
        """
        ready: list[str] = []
        later: list[str] = []
        for other in self.tools.values():
            if other.name == tool.name or key not in (other.post or {}):
                continue
            after = apply(state, other.post, {name: ANY for name in other.parameters})
            if unmet(after, {key: pattern}, bindings):
                continue
            (later if other.pre and unmet(state, other.pre) else ready).append(other.name)
        names = sorted(ready) + sorted(later)
        if not names:
            return ""
        shown = " or ".join(f"{n}()" for n in names[:3]) + (f" (or {len(names) - 3} more)" if len(names) > 3 else "")
        return f"; call {shown} first: it gives {want}"

    def explain(self, block: Block, index: int, key: str, pattern: Any) -> str:
        """Where the offending value of ``key`` comes from, for the message."""
        seen: set[int] = set()
        b: Block | None = block
        end = index
        exit_label = ""
        while b is not None and b.id not in seen:
            if not exit_label and b.label.startswith("after the") and " loop " in b.label:
                exit_label = b.label
            seen.add(b.id)
            for ev in reversed(b.events[:end]):
                if isinstance(ev, CallEvent) and ev.name in self.tools and key in self.tools[ev.name].post:
                    return f"after {ev.name}() at line {ev.node.lineno},"
            preds = [p for p in b.preds if p.id in self._outs] + [p for p in b.exc_preds if p.id in self._outs]
            if not preds:
                return "in the initial state," if b.id == 0 else f"{b.label},"
            if len(preds) > 1:
                if exit_label:
                    return f"{exit_label} (it may run no iteration, or leave after any),"
                bad = [p for p in preds if unmet(self._outs[p.id][0], {key: pattern})]
                via = ""
                if bad and all(p.id in b.back_preds for p in bad):
                    via = " (after an iteration of its body)"
                elif bad and not any(p.id in b.back_preds for p in bad) and b.back_preds:
                    via = " (on entry)"
                elif len(bad) == 1 and bad[0].label.startswith("in the "):
                    via = f" (coming from {bad[0].label[3:]})"
                return f"{b.label}{via},"
            b = preds[0]
            end = len(b.events)
        return "on some path,"


def reverse_postorder(cfg: CFG) -> list[Block]:
    """The blocks from the entry, each before its successors except along back edges."""
    seen: set[int] = set()
    post: list[Block] = []
    stack: list[tuple[Block, int]] = [(cfg.entry, 0)]
    seen.add(cfg.entry.id)
    while stack:
        b, i = stack.pop()
        succs = b.succs + b.exc_succs
        if i < len(succs):
            stack.append((b, i + 1))
            s = succs[i]
            if s.id not in seen:
                seen.add(s.id)
                stack.append((s, 0))
        else:
            post.append(b)
    post.reverse()
    return post
