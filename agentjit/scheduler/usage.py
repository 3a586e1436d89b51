"""Tool usage of a plan, read from its source: what the Monte Carlo prices.

A plan is Python source with top-level ``await tool(...)`` calls (DESIGN.md
section 3). :func:`plan_usage` splits it around its *main loop* (the first
outermost ``for`` loop, ``while`` loop or comprehension whose body awaits a
tool) into

* ``prefix``: the calls before the loop (including the loop's own iterable),
* ``loop``: the calls of one iteration, the trip count and where it came from,
  and whether iterations may run on separate workers,
* ``suffix``: the calls after the loop.

Counting is static and conservative: every branch of an ``if`` is counted, a
nested loop multiplies its calls by its own trip count. Trip counts come from a
literal slice (``xs[:5]``), ``range(n)`` or a literal list; else from observed
output list lengths of the tool that produced the iterable (``observed_lengths``);
else :data:`DEFAULT_TRIPS`. ``LoopUse.trip_source`` says which. A count above
:data:`MAX_TRIPS` (``range(10**30)``, nested loops) is priced as :data:`MAX_TRIPS`:
the Monte Carlo holds trials x calls draws.

The plan is parsed and bounded by the plan layer's sandbox first
(:func:`agentjit.plan.sandbox.parse_source` and :func:`~agentjit.plan.sandbox.scan`),
so a huge or deeply nested plan is a :class:`PlanError`, never a RecursionError.

This module does its own small AST walk instead of importing the planner's CFG,
so the scheduler can price any plan, including hand-written reference plans.
"""

from __future__ import annotations

import ast
import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from agentjit.exceptions import PlanError
from agentjit.plan.diagnostics import TooComplex
from agentjit.plan.parsed import Plan, as_plan
from agentjit.plan.sandbox import scan
from agentjit.plan.trips import PASS_THROUGH, literal_count, range_count, slice_count
from agentjit.protocol.manifest import Effect, ToolManifest
from agentjit.protocol.trace import StepEvent

from .loop_shape import (
    ACCUMULATE,
    COMPS,
    MUTATING,
    base_name,
    comprehension_targets,
    later_reads,
    loop_body_nodes,
    parallel_check,
    stored_names,
)

__all__ = [
    "DEFAULT_TRIPS",
    "MAX_TRIPS",
    "LLM_CALL",
    "CallUse",
    "LoopUse",
    "PlanUsage",
    "plan_usage",
    "observed_lengths_from_steps",
]

log = logging.getLogger(__name__)

DEFAULT_TRIPS = 5
"""Trip count assumed for a loop whose iterable has no literal length and no observed length."""

MAX_TRIPS = 1_000
"""Largest trip count (and call count of one call site) the usage reports; larger ones are capped."""


def _cap(n: int) -> int:
    return n if n <= MAX_TRIPS else MAX_TRIPS

LLM_CALL = "ai_eval"
"""The plan-level LLM call; priced like a tool under this key when ``latency.json`` has it."""

TripSource = Literal["slice", "range", "literal", "observed", "default", "llm"]

_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


@dataclass(frozen=True)
class CallUse:
    """One call site of a tool; ``count`` is how often it runs per pass (nested loops multiply)."""

    tool: str
    effect: Effect
    line: int
    elements: tuple[str, ...] = ()
    count: int = 1
    navigates: bool = False
    """The tool leaves the current document (priced with ``Overheads.page_read_s``)."""


@dataclass(frozen=True)
class LoopUse:
    """The plan's main loop: one iteration's calls, how many iterations, and whether they may fan out."""

    line: int
    kind: Literal["for", "comprehension", "while", "llm"]
    body: list[CallUse]
    trips: int
    trip_source: TripSource
    parallel_ok: bool
    reason: str
    entry_replay: list[CallUse] = field(default_factory=list)
    """READ calls of the prefix that establish the loop's entry state (their post sets state
    or they navigate): what each new parallel worker replays before its iterations."""
    accumulators: dict[str, str] = field(default_factory=dict)
    """For a parallel-safe ``for`` loop: the outer names its iterations add to, and how
    (``append``, ``extend``, ``add``, ``update``, ``dict store`` or ``counter``); the runtime
    merges them in iteration order."""


@dataclass(frozen=True)
class PlanUsage:
    """The calls of a plan split around its main loop, with the effects the scheduler needs."""

    prefix: list[CallUse]
    loop: LoopUse | None
    suffix: list[CallUse]

    @property
    def calls(self) -> list[CallUse]:
        """Every call site in program order: prefix, one loop body, suffix."""
        return [*self.prefix, *(self.loop.body if self.loop else []), *self.suffix]

    @property
    def writes(self) -> bool:
        return any(c.effect is Effect.WRITE for c in self.calls)

    @property
    def first_write_index(self) -> int | None:
        """Index into :attr:`calls` of the first WRITE call site, or None for an all-READ plan."""
        for i, call in enumerate(self.calls):
            if call.effect is Effect.WRITE:
                return i
        return None

    def expanded(self) -> list[CallUse]:
        """Calls in serial execution order with counts: the first iteration apart from the rest.

        Keeping the first iteration separate lets :meth:`split_at_first_write`
        cut at a WRITE inside the loop body.
        """
        out = list(self.prefix)
        if self.loop is not None and self.loop.trips > 0:
            out.extend(self.loop.body)
            if self.loop.trips > 1:
                out.extend(
                    replace(c, count=c.count * (self.loop.trips - 1)) for c in self.loop.body
                )
        out.extend(self.suffix)
        return [c for c in out if c.count > 0]

    def split_at_first_write(self) -> tuple[list[CallUse], list[CallUse]]:
        """``(before, rest)``: the READ calls a hedge may race, and everything from the first WRITE."""
        seq = self.expanded()
        for i, call in enumerate(seq):
            if call.effect is Effect.WRITE:
                return seq[:i], seq[i:]
        return seq, []

    def total_calls(self) -> int:
        return sum(c.count for c in self.expanded())

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["writes"] = self.writes
        out["first_write_index"] = self.first_write_index
        return out


# -- trip counts -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Len:
    """What is known about an expression's length: a count and/or the tool that produced it."""

    count: int | None = None
    source: TripSource | None = None
    producer: str | None = None


class _Analyzer:
    def __init__(self, tools: Mapping[str, ToolManifest], observed: Mapping[str, float]) -> None:
        self.tools = tools
        self.observed = observed
        self.env: dict[str, _Len] = {}
        self.unstable: set[str] = set()
        """Names whose length a top-level assignment does not pin down (see ``record_assign``)."""
        self.mutations: Counter[str] = Counter()
        """How many places change each name in place (append, item store, ...)."""

    def scan(self, tree: ast.Module) -> None:
        """Find the names that are mutated, or bound other than by a top-level assignment."""
        top_level_targets = {
            id(t)
            for stmt in tree.body
            if isinstance(stmt, ast.Assign | ast.AnnAssign)
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
            if isinstance(t, ast.Name)
        }
        local = comprehension_targets(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                if id(node) not in top_level_targets and id(node) not in local:
                    self.unstable.add(node.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
                base = base_name(node)
                if base is not None:
                    self.unstable.add(base.id)
                    self.mutations[base.id] += 1
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in ACCUMULATE | MUTATING:
                    base = base_name(node.func.value)
                    if base is not None:
                        self.unstable.add(base.id)
                        self.mutations[base.id] += 1

    def record_appends(self, stmt: ast.stmt) -> None:
        """A list filled by one unconditional ``xs.append(...)`` per iteration of a top-level
        ``for`` loop (and changed nowhere else) is as long as the loop runs."""
        if not isinstance(stmt, ast.For | ast.AsyncFor):
            return
        trips, source = self.trips(stmt.iter)
        for inner in stmt.body:
            call = inner.value if isinstance(inner, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append"
                and isinstance(call.func.value, ast.Name)
                and self.mutations[call.func.value.id] == 1
            ):
                producer = self.length(stmt.iter).producer
                self.env[call.func.value.id] = _Len(trips, source, producer)

    # which calls are tool calls
    def call_name(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name in self.tools or name == LLM_CALL:
                return name
        return None

    def use(self, node: ast.Call, name: str, count: int) -> CallUse:
        tool = self.tools.get(name)
        effect = tool.effect if tool is not None else Effect.READ
        elements = tuple(tool.elements) if tool is not None else ()
        navigates = tool.navigates if tool is not None else False
        return CallUse(
            tool=name,
            effect=effect,
            line=node.lineno,
            elements=elements,
            count=count,
            navigates=navigates,
        )

    def has_tool_call(self, node: ast.AST) -> bool:
        return any(self.call_name(n) for n in ast.walk(node))

    def producer(self, node: ast.AST) -> str | None:
        for n in ast.walk(node):
            name = self.call_name(n)
            if name is not None and name != LLM_CALL:
                return name
        return None

    def length(self, node: ast.expr) -> _Len:
        """What is known about the length of the iterable ``node``."""
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            sl = node.slice
            inner = self.length(node.value)
            exact = inner.count if inner.source in ("slice", "literal", "range") else None
            n = slice_count(sl, exact)
            if n is None:
                return _Len(None, None, inner.producer)
            return _Len(_cap(n), "slice" if exact is None or sl.upper is not None else inner.source, inner.producer)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            fname = node.func.id
            if fname == "range":
                n = range_count(node)
                return _Len(_cap(n), "range") if n is not None else _Len()
            if fname in PASS_THROUGH and node.args:
                return self.length(node.args[0])
            if fname == "zip" and node.args:
                parts = [self.length(a) for a in node.args]
                known = [p for p in parts if p.count is not None]
                if known:
                    best = min(known, key=lambda p: p.count or 0)
                    return best
                return _Len(None, None, next((p.producer for p in parts if p.producer), None))
        n = literal_count(node)
        if n is not None:
            return _Len(_cap(n), "literal")
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return _Len()
        if isinstance(node, ast.Name):
            return self.env.get(node.id, _Len())
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            gen = node.generators[0]
            inner = self.length(gen.iter)
            if len(node.generators) == 1 and not gen.ifs:
                return inner
            return _Len(None, None, inner.producer)
        if isinstance(node, ast.Await):
            return self.length(node.value)
        # an attribute or key of some value: the list inside a tool's output
        if isinstance(node, ast.Attribute | ast.Subscript):
            base = node.value
            while isinstance(base, ast.Attribute | ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                return _Len(None, None, self.env.get(base.id, _Len()).producer)
            return _Len(None, None, self.producer(node))
        return _Len(None, None, self.producer(node))

    def trips(self, node: ast.expr | None) -> tuple[int, TripSource]:
        if node is None:  # a while loop
            return DEFAULT_TRIPS, "default"
        info = self.length(node)
        if info.count is not None and info.source is not None:
            return _cap(max(info.count, 0)), info.source
        if info.producer is not None and info.producer in self.observed:
            observed = self.observed[info.producer]
            n = int(round(observed)) if observed < MAX_TRIPS else MAX_TRIPS  # also inf / nan-free
            return _cap(max(n, 0)), "observed"
        return DEFAULT_TRIPS, "default"

    def record_assign(self, stmt: ast.stmt) -> None:
        """Remember the length / producer of names bound by a simple top-level assignment.

        A name that is also changed elsewhere (appended to, stored into, bound
        in a nested block) keeps only its producer: its literal length is stale.
        """
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        if not isinstance(target, ast.Name) or value is None:
            return
        info = self.length(value)
        if target.id in self.unstable:
            info = _Len(None, None, info.producer)
        self.env[target.id] = info

    # ordered call collection

    def collect(
        self,
        node: ast.AST,
        mult: int,
        out: list[tuple[CallUse, str]],
        region: list[str],
        main: ast.AST | None,
    ) -> None:
        """Append ``(call, region)`` in evaluation order; ``region`` flips around the main loop's body."""
        if node is main:
            self.collect_main(node, mult, out, region)
            return
        if isinstance(node, ast.For | ast.AsyncFor):
            self.collect(node.iter, mult, out, region, main)
            n, _ = self.trips(node.iter)
            for stmt in node.body:
                self.collect(stmt, _cap(mult * n), out, region, main)
            for stmt in node.orelse:
                self.collect(stmt, mult, out, region, main)
            return
        if isinstance(node, ast.While):
            n, _ = self.trips(None)
            self.collect(node.test, _cap(mult * n), out, region, main)
            for stmt in node.body:
                self.collect(stmt, _cap(mult * n), out, region, main)
            for stmt in node.orelse:
                self.collect(stmt, mult, out, region, main)
            return
        if isinstance(node, COMPS):
            self.collect_comprehension(node, mult, out, region, main)
            return
        for child in ast.iter_child_nodes(node):
            self.collect(child, mult, out, region, main)
        name = self.call_name(node)
        if name is not None:
            assert isinstance(node, ast.Call)
            out.append((self.use(node, name, mult), region[0]))

    def collect_comprehension(
        self,
        node: ast.AST,
        mult: int,
        out: list[tuple[CallUse, str]],
        region: list[str],
        main: ast.AST | None,
        *,
        as_main: bool = False,
    ) -> None:
        assert isinstance(node, COMPS)
        gens = node.generators
        self.collect(gens[0].iter, mult, out, region, main)
        if as_main:
            region[0] = "body"
            inner_mult = 1
        else:
            inner_mult = _cap(mult * self.trips(gens[0].iter)[0])
        for cond in gens[0].ifs:
            self.collect(cond, inner_mult, out, region, main)
        for gen in gens[1:]:
            self.collect(gen.iter, inner_mult, out, region, main)
            inner_mult = _cap(inner_mult * self.trips(gen.iter)[0])
            for cond in gen.ifs:
                self.collect(cond, inner_mult, out, region, main)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            self.collect(part, inner_mult, out, region, main)
        if as_main:
            region[0] = "after"

    def collect_main(
        self, node: ast.AST, mult: int, out: list[tuple[CallUse, str]], region: list[str]
    ) -> None:
        if isinstance(node, ast.For | ast.AsyncFor):
            self.collect(node.iter, mult, out, region, None)
            region[0] = "body"
            for stmt in node.body:
                self.collect(stmt, 1, out, region, None)
            region[0] = "after"
            for stmt in node.orelse:
                self.collect(stmt, mult, out, region, None)
        elif isinstance(node, ast.While):
            region[0] = "body"
            self.collect(node.test, 1, out, region, None)
            for stmt in node.body:
                self.collect(stmt, 1, out, region, None)
            region[0] = "after"
            for stmt in node.orelse:
                self.collect(stmt, mult, out, region, None)
        else:
            self.collect_comprehension(node, mult, out, region, None, as_main=True)


def _find_main_loop(analyzer: _Analyzer, stmt: ast.stmt) -> ast.AST | None:
    """The outermost loop in ``stmt`` whose body calls a tool (pre-order: outer loops first)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, _LOOPS) and _loop_body_has_call(analyzer, node):
            return node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


def _loop_body_has_call(analyzer: _Analyzer, node: ast.AST) -> bool:
    return any(analyzer.has_tool_call(part) for part in loop_body_nodes(node))


# -- entry point --------------------------------------------------------------------------


def plan_usage(
    source: str | Plan,
    tools: Mapping[str, ToolManifest] | Any,
    *,
    observed_lengths: Mapping[str, float] | None = None,
) -> PlanUsage:
    """Read the tool usage of plan ``source`` (plan text or a parsed :class:`~agentjit.plan.parsed.Plan`).

    ``tools`` is a :class:`agentjit.cache.ToolCache` or a mapping of tool names
    to manifests. ``observed_lengths`` maps a tool to the mean length of the
    list it returned in past traces (see :func:`observed_lengths_from_steps`).
    """
    manifests: Mapping[str, ToolManifest] = getattr(tools, "tools", tools)
    plan = as_plan(source)
    tree = plan.tree
    if tree is None:
        d = plan.findings[0]
        what = "plan is too complex" if isinstance(d, TooComplex) else "plan does not parse"
        raise PlanError(f"{what}: {d.message}", line=d.line, col=d.col)
    too_complex = [d for d in scan(tree, callables=())[0] if isinstance(d, TooComplex)]
    if too_complex:  # the walks below recurse on the tree
        d = too_complex[0]
        raise PlanError(f"plan is too complex: {d.message}", line=d.line, col=d.col)
    analyzer = _Analyzer(manifests, observed_lengths or {})
    analyzer.scan(tree)

    prefix: list[CallUse] = []
    suffix: list[CallUse] = []
    loop_use: LoopUse | None = None
    for index, stmt in enumerate(tree.body):
        main = _find_main_loop(analyzer, stmt) if loop_use is None else None
        region = ["before" if loop_use is None else "after"]
        found: list[tuple[CallUse, str]] = []
        if main is None:
            analyzer.collect(stmt, 1, found, region, None)
            (prefix if loop_use is None else suffix).extend(c for c, _ in found)
            analyzer.record_assign(stmt)
            analyzer.record_appends(stmt)
            continue
        if isinstance(main, ast.For | ast.AsyncFor):
            trips, trip_source = analyzer.trips(main.iter)
            kind: Literal["for", "comprehension", "while"] = "for"
        elif isinstance(main, ast.While):
            trips, trip_source = analyzer.trips(None)
            kind = "while"
        else:
            assert isinstance(main, COMPS)
            trips, trip_source = analyzer.trips(main.generators[0].iter)
            kind = "comprehension"
        analyzer.collect(stmt, 1, found, region, main)
        prefix.extend(c for c, r in found if r == "before")
        body = [c for c, r in found if r == "body"]
        suffix.extend(c for c, r in found if r == "after")
        outer = stored_names(tree.body[:index])
        later = later_reads(tree.body[index + 1 :])
        accumulators: dict[str, str] = {}
        ok, reason = parallel_check(main, body, outer, later, accumulators)
        replay = [
            c
            for c in prefix
            if c.effect is Effect.READ
            and c.tool in manifests
            and (manifests[c.tool].post or manifests[c.tool].navigates)
        ]
        loop_use = LoopUse(
            line=getattr(main, "lineno", stmt.lineno),
            kind=kind,
            body=body,
            trips=trips,
            trip_source=trip_source,
            parallel_ok=ok,
            reason=reason,
            entry_replay=replay,
            accumulators=accumulators if ok else {},
        )
        analyzer.record_assign(stmt)
        analyzer.record_appends(stmt)
    usage = PlanUsage(prefix=prefix, loop=loop_use, suffix=suffix)
    log.debug("plan usage: %d prefix, %s, %d suffix", len(prefix), loop_use, len(suffix))
    return usage


def observed_lengths_from_steps(steps: Iterable[StepEvent]) -> dict[str, float]:
    """Mean length of the list each tool returned in successful steps of past traces.

    A step's output counts when it is a list, or an object with exactly one
    list-valued field (``{"items": [...]}``).
    """
    totals: dict[str, list[int]] = {}
    for step in steps:
        if step.action != "tool" or not step.tool or not step.ok:
            continue
        out = step.output
        if isinstance(out, dict):
            lists = [v for v in out.values() if isinstance(v, list)]
            out = lists[0] if len(lists) == 1 else None
        if isinstance(out, list):
            totals.setdefault(step.tool, []).append(len(out))
    return {tool: sum(lens) / len(lens) for tool, lens in totals.items()}
