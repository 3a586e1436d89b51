"""A control-flow graph of a plan, built from ``ast``.

Plans are top-level code without function definitions, so one graph covers a
whole plan. Each :class:`Block` holds *events* in evaluation order: name reads
(:class:`Use`), name writes (:class:`Def`) and calls of tools, ``ai_eval`` and
``ask_human`` (:class:`CallEvent`). The checker runs its dataflow analyses over
these events; it never has to look inside expressions again.

Edges cover ``if``/``elif``/``else``, ``for``/``while`` with ``else``, ``break``,
``continue``, ``try``/``except``/``else``/``finally``, ``raise`` and ``return``
(both end the path), short-circuit ``and``/``or`` and ``x if c else y`` when
the skipped part awaits something, and comprehensions: every ``for`` clause
of a comprehension is a loop (a header, a body, a back edge), so an ``await``
inside a comprehension sits in a loop body like one inside a ``for``.

Exceptions: every block inside a ``try`` body has *exception edges* to the
``except`` handlers (and to an exceptional copy of the ``finally`` body, which
then ends the path, since the exception propagates). The dataflow sends along
an exception edge the join of every state the block passes through, because a
call may fail before its post holds. ``break``/``continue`` inside a
``try``/``finally`` jump straight to their loop target (the ``finally`` body on
that path is not modelled; documented imprecision).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentjit.plan.sandbox import child_nodes
from agentjit.plan.trips import trip_count

__all__ = ["Use", "Def", "CallEvent", "Event", "Block", "CFG", "build_cfg"]


@dataclass(slots=True, eq=False)
class Use:
    """A read of ``name`` at ``node``."""

    name: str
    node: ast.Name


@dataclass(slots=True, eq=False)
class Def:
    """A write of ``name`` at ``node`` (an assignment, a loop target, ``except ... as``)."""

    name: str
    node: ast.AST


@dataclass(slots=True, eq=False)
class CallEvent:
    """A call of a tool, ``ai_eval`` or ``ask_human`` named ``name``."""

    name: str
    node: ast.Call
    awaited: bool
    comp_depth: int
    """How many comprehensions enclose the call (0 outside any)."""
    trips: tuple[int | None, ...] = ()
    """Static trip count of each enclosing loop, outermost first (None: unknown)."""


Event = Use | Def | CallEvent


@dataclass(eq=False)
class Block:
    """A basic block: events run in order, then control goes to one of ``succs``."""

    id: int
    loop_depth: int
    label: str
    """Where this block starts, for messages ("after the if at line 4")."""
    events: list[Event] = field(default_factory=list)
    stmts: list[ast.stmt] = field(default_factory=list)
    succs: list[Block] = field(default_factory=list)
    preds: list[Block] = field(default_factory=list)
    exc_succs: list[Block] = field(default_factory=list)
    exc_preds: list[Block] = field(default_factory=list)
    back_preds: set[int] = field(default_factory=set)
    """Ids of predecessors that reach this block along a loop's back edge."""

    def __repr__(self) -> str:
        return f"Block({self.id}, depth={self.loop_depth}, {self.label!r}, events={len(self.events)}, succs={[b.id for b in self.succs]})"

    def calls(self) -> list[CallEvent]:
        return [e for e in self.events if isinstance(e, CallEvent)]


@dataclass
class CFG:
    entry: Block
    blocks: list[Block]

    def calls(self) -> list[CallEvent]:
        return [c for b in self.blocks for c in b.calls()]


def _link(a: Block, b: Block, *, back: bool = False) -> None:
    a.succs.append(b)
    b.preds.append(a)
    if back:
        b.back_preds.add(a.id)


def _has_await(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Await) for n in ast.walk(node))


def _always_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


# the builder's ``stmt_<Type>`` / ``expr_<Type>`` method per node class (None: the generic walk),
# looked up once per class instead of by name on every node
_STMT: dict[type, Callable[[_Builder, Any], None] | None] = {}
_EXPR: dict[type, Callable[[_Builder, Any], None] | None] = {}


class _Builder:
    def __init__(self, callables: Collection[str], named_trips: Mapping[str, int]) -> None:
        self.callables = callables
        self.named_trips = named_trips
        self.trips: list[int | None] = []
        self.blocks: list[Block] = []
        self.depth = 0
        self.comp_depth = 0
        self.loops: list[tuple[Block, Block]] = []  # (continue target, break target)
        self.handlers: list[list[Block]] = []  # exception targets of enclosing try bodies
        self.cur: Block | None = self.new("at the start of the plan")

    # -- blocks ---------------------------------------------------------------

    def new(self, label: str) -> Block:
        b = Block(len(self.blocks), self.depth, label)
        for targets in self.handlers:
            for t in targets:
                b.exc_succs.append(t)
                t.exc_preds.append(b)
        self.blocks.append(b)
        return b

    def goto(self, target: Block, *, back: bool = False) -> None:
        if self.cur is not None:
            _link(self.cur, target, back=back)

    def emit(self, event: Event) -> None:
        if self.cur is not None:
            self.cur.events.append(event)

    def ensure(self) -> Block:
        # code after break/continue/raise is unreachable; give it a block with no preds
        if self.cur is None:
            self.cur = self.new("in unreachable code")
        return self.cur

    # -- statements -----------------------------------------------------------

    def body(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        block = self.ensure()
        block.stmts.append(s)
        cls = type(s)
        try:
            method = _STMT[cls]
        except KeyError:
            method = _STMT[cls] = getattr(_Builder, "stmt_" + cls.__name__, None)
        if method is not None:
            method(self, s)
        else:  # the sandbox rejects anything else; still read its expressions
            for child in child_nodes(s):
                if isinstance(child, ast.expr):
                    self.expr(child)

    def stmt_Expr(self, s: ast.Expr) -> None:
        self.expr(s.value)

    def stmt_Assign(self, s: ast.Assign) -> None:
        self.expr(s.value)
        for t in s.targets:
            self.target(t)

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        if isinstance(s.target, ast.Name):
            self.emit(Use(s.target.id, s.target))
        else:
            self.expr(s.target)
        self.expr(s.value)
        self.target(s.target)

    def stmt_Assert(self, s: ast.Assert) -> None:
        self.expr(s.test)
        if s.msg is not None:
            self.expr(s.msg)

    def stmt_Raise(self, s: ast.Raise) -> None:
        if s.exc is not None:
            self.expr(s.exc)
        self.cur = None

    def stmt_Return(self, s: ast.Return) -> None:
        if s.value is not None:
            self.expr(s.value)
        self.cur = None

    def stmt_Break(self, s: ast.Break) -> None:
        if self.loops:
            self.goto(self.loops[-1][1])
        self.cur = None

    def stmt_Continue(self, s: ast.Continue) -> None:
        if self.loops:
            self.goto(self.loops[-1][0], back=True)
        self.cur = None

    def stmt_If(self, s: ast.If) -> None:
        self.expr(s.test)
        before = self.cur
        after = self.new(f"after the if at line {s.lineno}")
        self.cur = self.new(f"in the if branch at line {s.lineno}")
        if before is not None:
            _link(before, self.cur)
        self.body(s.body)
        self.goto(after)
        if s.orelse:
            self.cur = self.new(f"in the else branch of the if at line {s.lineno}")
            if before is not None:
                _link(before, self.cur)
            self.body(s.orelse)
            self.goto(after)
        elif before is not None:
            _link(before, after)
        self.cur = after

    def _loop(self, header: Block, s: ast.For | ast.While, exits_normally: bool) -> None:
        after = self.new(f"after the {'for' if isinstance(s, ast.For) else 'while'} loop at line {s.lineno}")
        self.depth += 1
        self.trips.append(trip_count(s.iter, self.named_trips) if isinstance(s, ast.For) else None)
        body = self.new(f"in the body of the loop at line {s.lineno}")
        _link(header, body)
        self.cur = body
        if isinstance(s, ast.For):
            self.target(s.target)
        self.loops.append((header, after))
        self.body(s.body)
        self.loops.pop()
        self.goto(header, back=True)
        self.depth -= 1
        self.trips.pop()
        if exits_normally:
            if s.orelse:
                self.cur = self.new(f"in the else of the loop at line {s.lineno}")
                _link(header, self.cur)
                self.body(s.orelse)
                self.goto(after)
            else:
                _link(header, after)
        self.cur = after

    def stmt_For(self, s: ast.For) -> None:
        self.expr(s.iter)
        header = self.new(f"at the top of the for loop at line {s.lineno}")
        self.goto(header)
        self._loop(header, s, exits_normally=True)

    def stmt_While(self, s: ast.While) -> None:
        header = self.new(f"at the top of the while loop at line {s.lineno}")
        self.goto(header)
        self.cur = header
        self.trips.append(None)  # the test runs once per iteration
        self.expr(s.test)
        self.trips.pop()
        self._loop(header, s, exits_normally=not _always_true(s.test))

    def stmt_Try(self, s: ast.Try) -> None:
        handler_entries = [self.new(f"in the except at line {h.lineno}") for h in s.handlers]
        exc_finally = self.new(f"in the finally at line {s.finalbody[0].lineno} (after an exception)") if s.finalbody else None
        after = self.new(f"after the try at line {s.lineno}")
        targets = handler_entries + ([exc_finally] if exc_finally is not None else [])
        self.handlers.append(targets)
        body = self.new(f"in the try at line {s.lineno}")
        self.goto(body)
        self.cur = body
        self.body(s.body)
        self.handlers.pop()
        # the else runs only when the body raised nothing; its exceptions skip the handlers
        if exc_finally is not None:
            self.handlers.append([exc_finally])
        self.body(s.orelse)
        ends: list[Block] = [self.cur] if self.cur is not None else []
        for h, entry in zip(s.handlers, handler_entries, strict=True):
            self.cur = entry
            if h.name:
                self.emit(Def(h.name, h))
            self.body(h.body)
            if self.cur is not None:
                ends.append(self.cur)
        if exc_finally is not None:
            self.handlers.pop()
        if s.finalbody:
            fin = self.new(f"in the finally at line {s.finalbody[0].lineno}")
            for e in ends:
                _link(e, fin)
            self.cur = fin
            self.body(s.finalbody)
            self.goto(after)
            assert exc_finally is not None
            self.cur = exc_finally
            self.body(s.finalbody)  # then the exception propagates: the path ends
        else:
            for e in ends:
                _link(e, after)
        self.cur = after

    # -- expressions ----------------------------------------------------------

    def target(self, t: ast.expr) -> None:
        if isinstance(t, ast.Name):
            self.emit(Def(t.id, t))
        elif isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                self.target(e)
        elif isinstance(t, ast.Starred):
            self.target(t.value)
        else:  # x.a = ..., x[i] = ...: reads x
            self.expr(t)

    def expr(self, e: ast.AST) -> None:
        cls = type(e)
        try:
            method = _EXPR[cls]
        except KeyError:
            method = _EXPR[cls] = getattr(_Builder, "expr_" + cls.__name__, None)
        if method is not None:
            method(self, e)
            return
        for child in child_nodes(e):
            self.expr(child)

    def expr_Name(self, e: ast.Name) -> None:
        if isinstance(e.ctx, ast.Load):
            self.emit(Use(e.id, e))
        else:
            self.emit(Def(e.id, e))

    def expr_NamedExpr(self, e: ast.NamedExpr) -> None:
        self.expr(e.value)
        self.target(e.target)

    def expr_Await(self, e: ast.Await) -> None:
        if isinstance(e.value, ast.Call):
            self.call(e.value, awaited=True)
        else:
            self.expr(e.value)

    def expr_Call(self, e: ast.Call) -> None:
        self.call(e, awaited=False)

    def call(self, e: ast.Call, *, awaited: bool) -> None:
        func = e.func
        if isinstance(func, ast.Name) and func.id in self.callables:
            pass  # the callee is a tool or a plan builtin, not a variable read
        else:
            self.expr(func)
        for a in e.args:
            self.expr(a)
        for k in e.keywords:
            self.expr(k.value)
        if isinstance(func, ast.Name) and func.id in self.callables:
            self.emit(CallEvent(func.id, e, awaited, self.comp_depth, tuple(self.trips)))

    def _branch(self, parts: list[ast.expr], line: int, what: str) -> None:
        """Each of ``parts`` may be skipped: ``a and b``, ``x if c else y``."""
        before = self.cur
        after = self.new(f"after the {what} at line {line}")
        for p in parts:
            self.cur = self.new(f"in the {what} at line {line}")
            if before is not None:
                _link(before, self.cur)
            self.expr(p)
            self.goto(after)
        if before is not None and what == "and/or":
            _link(before, after)
        self.cur = after

    def expr_BoolOp(self, e: ast.BoolOp) -> None:
        self.expr(e.values[0])
        rest = e.values[1:]
        if any(_has_await(v) for v in rest):
            # later operands run only when the earlier ones did not decide
            for v in rest:
                self._branch([v], e.lineno, "and/or")
        else:
            for v in rest:
                self.expr(v)

    def expr_IfExp(self, e: ast.IfExp) -> None:
        self.expr(e.test)
        if _has_await(e.body) or _has_await(e.orelse):
            self._branch([e.body, e.orelse], e.lineno, "conditional expression")
        else:
            self.expr(e.body)
            self.expr(e.orelse)

    def _comprehension(self, e: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        self.expr(e.generators[0].iter)
        self.comp_depth += 1
        self._comp_loop(e, 0)
        self.comp_depth -= 1

    def _comp_loop(self, e: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, i: int) -> None:
        gen = e.generators[i]
        header = self.new(f"at the top of the comprehension at line {e.lineno}")
        self.goto(header)
        after = self.new(f"after the comprehension at line {e.lineno}")
        self.depth += 1
        self.trips.append(trip_count(gen.iter, self.named_trips))
        body = self.new(f"in the comprehension at line {e.lineno}")
        _link(header, body)
        self.cur = body
        self.target(gen.target)
        for cond in gen.ifs:
            self.expr(cond)
        if gen.ifs:  # a filtered-out element goes straight back to the header
            self.goto(header, back=True)
            inner = self.new(f"in the comprehension at line {e.lineno}")
            self.goto(inner)
            self.cur = inner
        if i + 1 < len(e.generators):
            self.expr(e.generators[i + 1].iter)
            self._comp_loop(e, i + 1)
        elif isinstance(e, ast.DictComp):
            self.expr(e.key)
            self.expr(e.value)
        else:
            self.expr(e.elt)
        self.goto(header, back=True)
        self.depth -= 1
        self.trips.pop()
        _link(header, after)
        self.cur = after

    expr_ListComp = _comprehension
    expr_SetComp = _comprehension
    expr_DictComp = _comprehension
    expr_GeneratorExp = _comprehension

    def expr_Lambda(self, e: ast.Lambda) -> None:
        pass  # forbidden by the sandbox; its body is not part of the plan's flow


def build_cfg(tree: ast.Module, *, callables: Collection[str], named_trips: Mapping[str, int] | None = None) -> CFG:
    """The CFG of ``tree``; calls of names in ``callables`` become :class:`CallEvent` s.

    ``named_trips`` maps names bound once to a sequence of static length
    (``first = xs[:5]``) to that length, for loops over them.
    """
    b = _Builder(callables, named_trips or {})
    entry = b.cur
    assert entry is not None
    b.body(tree.body)
    return CFG(entry, b.blocks)
