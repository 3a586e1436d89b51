"""The static plan checker: sandbox, names, arguments, fields, effects and state flow.

A pyflakes-style walker (STYLE.md item 5): node handlers are found by the
node's type name (``handle_Call``, ``handle_Attribute``, ...); findings are the
small classes of :mod:`agentjit.plan.diagnostics`. The passes:

1. parse (``syntax``), with the size bounds first (``too-complex``);
2. the sandbox allow-list (``forbidden``, ``unknown-tool``) and the AST depth
   and node bounds (``too-complex``: no later pass runs then), see :mod:`agentjit.plan.sandbox`;
3. a walk over the nodes: arguments against ``input_schema``
   (``missing-argument``, ``unexpected-argument``, ``argument-type`` for
   literals), attribute use against ``output_schema`` (``unknown-field``,
   following ``x.items[0].name``, loop and comprehension variables, and
   ``enumerate``), and ``effect`` (a tool not awaited, a WRITE inside a
   comprehension);
4. a forward dataflow analysis over the CFG (:mod:`.cfg`) with two facts per
   point, the abstract state (joined with :func:`agentjit.protocol.state.join`)
   and the set of names assigned on every path (intersected): a call whose
   ``pre`` is not guaranteed is ``precondition``; a name read where some path
   has not assigned it is ``unknown-name``. Loops iterate to a fixpoint.

A plan that assigns ``result`` nowhere (an empty plan) is ``no-result``: it
could only fail when run.

:func:`check` returns a :class:`CheckResult` with the cost (None when the plan
is invalid) and the call sites the scheduler uses.
"""

from __future__ import annotations

import ast
import heapq
import logging
import string
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import jsonschema

from agentjit.cache import ToolCache
from agentjit.plan.diagnostics import (
    ArgumentType,
    Diagnostic,
    EffectViolation,
    MissingArgument,
    NoResult,
    PreconditionNotMet,
    TooComplex,
    UnexpectedArgument,
    UnknownField,
    UnknownName,
)
from agentjit.plan.sandbox import FORBIDDEN_NAMES, PLAN_BUILTINS, SAFE_BUILTINS, parse_source, scan
from agentjit.plan.trips import named_trip_counts
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.state import ANY, UNKNOWN, OneOf, State, apply, join, render_value, unmet

from .cfg import CFG, Block, CallEvent, Def, Use, build_cfg
from .cost import CallSite, CostModel, call_sites, estimate_cost

__all__ = ["CheckResult", "check", "check_tree", "Checker"]

log = logging.getLogger(__name__)

# methods and attributes every tool result (a pydantic model) and list have
_RESULT_ATTRS = frozenset({"get", "keys", "values", "items"})  # a tool result is a read-only Record
_LIST_ATTRS = frozenset({"append", "extend", "index", "count", "copy", "insert", "pop", "remove", "reverse", "sort", "clear"})


@dataclass
class CheckResult:
    """What :func:`check` found: validity, findings (sorted by position), cost and call sites."""

    valid: bool
    diagnostics: list[Diagnostic]
    cost: float | None
    calls: list[CallSite] = field(default_factory=list)
    time_s: float = 0.0

    def codes(self) -> list[str]:
        return [d.code for d in self.diagnostics]

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "cost": self.cost,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "calls": [c.to_dict() for c in self.calls],
        }


# -- types of values, for unknown-field ------------------------------------------------


@dataclass(frozen=True)
class _Ty:
    schema: Mapping[str, Any]
    desc: str


def _props(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The properties of an object schema, or None when it is not a closed object."""
    typ = schema.get("type")
    is_obj = typ == "object" or (isinstance(typ, list) and "object" in typ)
    props = schema.get("properties")
    if is_obj and isinstance(props, Mapping):
        return props
    return None


def _is_array(schema: Mapping[str, Any]) -> bool:
    typ = schema.get("type")
    return typ == "array" or (isinstance(typ, list) and "array" in typ)


def _element(ty: _Ty | None) -> _Ty | None:
    if ty is not None and _is_array(ty.schema) and isinstance(ty.schema.get("items"), Mapping):
        return _Ty(ty.schema["items"], f"an item of {ty.desc}")
    return None


_validators: dict[int, tuple[ToolManifest, dict[str, Any]]] = {}


def _prop_validator(tool: ToolManifest, prop: str) -> Any:
    """A cached jsonschema validator for one input property of ``tool``."""
    entry = _validators.get(id(tool))
    if entry is None or entry[0] is not tool:
        entry = (tool, {})
        _validators[id(tool)] = entry
    cache = entry[1]
    if prop not in cache:
        schema = tool.parameters.get(prop)
        cache[prop] = jsonschema.Draft202012Validator(schema) if isinstance(schema, dict) else None
    return cache[prop]


_MISSING = object()


def _literal(node: ast.expr) -> Any:
    """The value of a literal argument, or ``_MISSING`` when it is not a literal."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple | ast.Dict | ast.Set | ast.UnaryOp):
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return _MISSING
        return list(value) if isinstance(value, tuple | set) else value
    return _MISSING


def _describe(value: Any) -> str:
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


class Checker:
    """One check of one plan; the findings end up in ``diagnostics``."""

    _handlers: ClassVar[dict[str, Callable[[Checker, Any], None]]] = {}

    def __init__(self, tree: ast.Module, source: str, tools: Mapping[str, ToolManifest], initial_state: Mapping[str, Any]) -> None:
        self.tree = tree
        self.source = source
        self.tools = tools
        self.initial_state = dict(initial_state)
        self.callables = set(tools) | PLAN_BUILTINS
        self.globals = set(SAFE_BUILTINS) | self.callables
        self.diagnostics: list[Diagnostic] = []
        self.types: dict[str, list[_Ty | None]] = {}
        self.call_funcs: set[int] = set()
        self.assigned_anywhere: set[str] = set()
        self.nodes: list[ast.AST] = []
        self._bindings: dict[int, dict[str, Any]] = {}
        self._outs: dict[int, tuple[State, frozenset[str], State]] = {}

    def report(self, diag: Diagnostic) -> None:
        self.diagnostics.append(diag)

    # -- pass 3: types, then one walk with handlers ------------------------------------

    def infer(self, node: ast.AST) -> _Ty | None:
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Name) and f.id in self.tools:
                return _Ty(self.tools[f.id].output_schema, f"the output of {f.id}()")
            return None
        if isinstance(node, ast.Name):
            tys = self.types.get(node.id)
            if not tys or any(t is None for t in tys):
                return None
            first = tys[0]
            assert first is not None
            return first if all(t == first for t in tys[1:]) else None
        if isinstance(node, ast.Attribute):
            base = self.infer(node.value)
            props = _props(base.schema) if base is not None else None
            if base is not None and props is not None and isinstance(props.get(node.attr), Mapping):
                return _Ty(props[node.attr], f"{base.desc}.{node.attr}")
            return None
        if isinstance(node, ast.Subscript):
            base = self.infer(node.value)
            if base is None:
                return None
            if _is_array(base.schema):
                return base if isinstance(node.slice, ast.Slice) else _element(base)
            props = _props(base.schema)
            key = node.slice
            if props is not None and isinstance(key, ast.Constant) and isinstance(key.value, str):
                sub = props.get(key.value)
                if isinstance(sub, Mapping):
                    return _Ty(sub, f"{base.desc}.{key.value}")
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            if node.func.id in ("sorted", "list", "reversed"):
                inner = self.infer(node.args[0])
                return inner if inner is not None and _is_array(inner.schema) else None
            return None
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            if isinstance(gen.target, ast.Name) and isinstance(node.elt, ast.Name) and node.elt.id == gen.target.id:
                inner = self.infer(gen.iter)  # a filter keeps the element type
                return inner if inner is not None and _is_array(inner.schema) else None
            return None
        if isinstance(node, ast.IfExp):
            if isinstance(node.orelse, ast.Constant) and node.orelse.value is None:
                return self.infer(node.body)
            return None
        return None

    def bind(self, target: ast.AST, ty: _Ty | None) -> None:
        if isinstance(target, ast.Name):
            self.types.setdefault(target.id, []).append(ty)
            self.assigned_anywhere.add(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for e in target.elts:
                self.bind(e, None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None)

    def bind_loop(self, target: ast.AST, it: ast.expr) -> None:
        if (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "enumerate"
            and it.args
        ):
            self.bind(target.elts[0], None)
            self.bind(target.elts[1], _element(self.infer(it.args[0])))
            return
        self.bind(target, _element(self.infer(it)))

    def collect_types(self) -> None:
        """Flow-insensitive: every name gets the types of everything assigned to it, in source order."""
        for node in self.nodes:
            cls = type(node)
            if cls is ast.Assign:
                assert isinstance(node, ast.Assign)
                ty = self.infer(node.value)
                for t in node.targets:
                    self.bind(t, ty)
            elif cls is ast.For or cls is ast.comprehension:
                assert isinstance(node, ast.For | ast.comprehension)
                self.bind_loop(node.target, node.iter)
            elif cls is ast.NamedExpr:
                assert isinstance(node, ast.NamedExpr)
                self.bind(node.target, self.infer(node.value))
            elif cls is ast.AugAssign:
                assert isinstance(node, ast.AugAssign)
                self.bind(node.target, None)
            elif cls is ast.ExceptHandler:
                assert isinstance(node, ast.ExceptHandler)
                if node.name:
                    self.types.setdefault(node.name, []).append(None)
                    self.assigned_anywhere.add(node.name)
            elif cls is ast.Name:
                assert isinstance(node, ast.Name)
                if type(node.ctx) is ast.Store:
                    self.assigned_anywhere.add(node.id)
            elif cls is ast.Call:
                assert isinstance(node, ast.Call)
                self.call_funcs.add(id(node.func))

    def run_handlers(self, cfg: CFG) -> None:
        """Pyflakes-style dispatch: ``handle_<NodeType>`` for every node, then the calls of the CFG."""
        handlers = self._handlers
        for node in self.nodes:
            h = handlers.get(type(node).__name__)
            if h is not None:
                h(self, node)
        seen: set[int] = set()
        for block in cfg.blocks:
            for ev in block.calls():
                if id(ev.node) not in seen:
                    seen.add(id(ev.node))
                    self.handle_call_event(ev)

    # -- node handlers ---------------------------------------------------------------------

    def handle_call_event(self, ev: CallEvent) -> None:
        """Effects and arguments of one call of a tool, ``ai_eval`` or ``ask_human``."""
        node, name = ev.node, ev.name
        if not ev.awaited:
            self.report(EffectViolation.at(node, f"{name}() is not awaited; write 'await {name}(...)'"))
        if name == "ai_eval":
            self.check_ai_eval(node)
        elif name == "ask_human":
            self.check_ask_human(node)
        elif name == "ai_exec":
            self.check_ai_exec(node)
        else:
            tool = self.tools[name]
            if tool.is_write and ev.comp_depth > 0:
                self.report(EffectViolation.at(node, f"{name}() is a WRITE; call it in a for loop, not inside a comprehension"))
            self.check_arguments(tool, node)

    def check_arguments(self, tool: ToolManifest, node: ast.Call) -> None:
        params = list(tool.parameters)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return  # *args / **kwargs: cannot be checked statically
        given: dict[str, ast.expr] = {}
        for i, a in enumerate(node.args):
            if i >= len(params):
                self.report(
                    UnexpectedArgument.at(a, f"{tool.name}() takes {len(params)} positional argument(s) "
                                          f"({', '.join(params) or 'none'}) but {len(node.args)} were given")
                )
                break
            given[params[i]] = a
        for k in node.keywords:
            assert k.arg is not None
            if k.arg not in tool.parameters:
                self.report(
                    UnexpectedArgument.at(k, f"{tool.name}() has no parameter {k.arg!r} (parameters: {', '.join(params) or 'none'})")
                )
            elif k.arg in given:
                self.report(UnexpectedArgument.at(k, f"{tool.name}() got {k.arg!r} twice"))
            else:
                given[k.arg] = k.value
        for req in tool.required:
            if req not in given:
                self.report(MissingArgument.at(node, f"{tool.name}() is missing the required argument {req!r}"))
        for name, value_node in given.items():
            value = _literal(value_node)
            if value is _MISSING:
                continue
            validator = _prop_validator(tool, name)
            if validator is None:
                continue
            err = next(iter(validator.iter_errors(value)), None)
            if err is not None:
                self.report(ArgumentType.at(value_node, f"argument {name!r} of {tool.name}(): {err.message}"))

    def check_ai_eval(self, node: ast.Call) -> None:
        prompt: ast.expr | None = node.args[0] if node.args else None
        for k in node.keywords:
            if k.arg in ("expr", "prompt") and prompt is None:
                prompt = k.value
        if prompt is None:
            self.report(MissingArgument.at(node, "ai_eval() needs the question as its first argument"))
            return
        value = _literal(prompt)
        if value is _MISSING:
            return
        if not isinstance(value, str):
            self.report(ArgumentType.at(prompt, f"ai_eval() question must be a string, not {type(value).__name__}"))
            return
        if any(k.arg is None for k in node.keywords):
            return
        given = {k.arg for k in node.keywords}
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(value) if f]
        except ValueError:
            return
        for name in fields:
            base = name.split(".")[0].split("[")[0]
            if base and not base.isdigit() and base not in given:
                self.report(MissingArgument.at(node, f"ai_eval() question uses {{{base}}} but no {base}= argument is passed"))

    def check_ai_exec(self, node: ast.Call) -> None:
        n = len(node.args) + len(node.keywords)
        if n != 1:
            self.report(MissingArgument.at(node, "ai_exec() takes exactly one argument, the instruction"))
            return
        value = _literal(node.args[0] if node.args else node.keywords[0].value)
        if value is not _MISSING and not isinstance(value, str):
            self.report(ArgumentType.at(node, f"ai_exec() instruction must be a string, not {type(value).__name__}"))

    def unknown_state(self, state: State) -> State:
        """The state after ``ai_exec``: the agent may have gone anywhere, so every key is UNKNOWN."""
        keys = set(state)
        for tool in self.tools.values():
            keys.update(tool.pre or {})
            keys.update(tool.post or {})
        return {key: UNKNOWN for key in keys}

    def check_ask_human(self, node: ast.Call) -> None:
        n = len(node.args) + len(node.keywords)
        if n == 0:
            self.report(MissingArgument.at(node, "ask_human() needs the question as its argument"))
        elif n > 1:
            self.report(UnexpectedArgument.at(node, "ask_human() takes exactly one argument, the question"))

    def handle_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            return  # the sandbox reports it
        base = self.infer(node.value)
        if base is None:
            return
        props = _props(base.schema)
        if props is not None:
            if node.attr not in props and node.attr not in _RESULT_ATTRS:
                fields = ", ".join(props) or "none"
                self.report(UnknownField.at(node, f"{base.desc} has no field {node.attr!r} (fields: {fields})"))
        elif _is_array(base.schema) and node.attr not in _LIST_ATTRS:
            self.report(UnknownField.at(node, f"{base.desc} is a list, it has no field {node.attr!r}; index it or loop over it"))

    def handle_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or key.value.startswith("__"):
            return
        base = self.infer(node.value)
        props = _props(base.schema) if base is not None else None
        if base is not None and props is not None and key.value not in props:
            self.report(UnknownField.at(node, f"{base.desc} has no field {key.value!r} (fields: {', '.join(props) or 'none'})"))

    # -- pass 4: dataflow over the CFG -------------------------------------------------------

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
                v = _literal(a)
                out[params[i]] = ANY if v is _MISSING or v is None else v
        for k in node.keywords:
            if k.arg is not None:
                v = _literal(k.value)
                out[k.arg] = ANY if v is _MISSING or v is None else v
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
                if report and ev.name not in assigned and ev.name not in self.globals:
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
        if id(ev.node) in self.call_funcs or ev.name in FORBIDDEN_NAMES or ev.name.startswith("__"):
            return  # reported by the sandbox as unknown-tool / forbidden
        if ev.name in self.assigned_anywhere:
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

    def dataflow(self, cfg: CFG) -> None:
        """Forward analysis to a fixpoint (worklist in reverse postorder), then one reporting pass.

        The fixpoint runs on block summaries (assigned names, tool calls); only the
        reporting pass walks every event.
        """
        order = _reverse_postorder(cfg)
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
            self.report(
                PreconditionNotMet.at(
                    ev.node, f"{tool.name}() needs {want}, but {where} {key!r} {verb} {_describe(value)}"
                )
            )

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

    # -- all passes --------------------------------------------------------------------------

    def run(self) -> CFG | None:
        """All passes; returns the CFG (the call sites and the cost come from it).

        A tree over the sandbox's size bounds gets only the sandbox findings (and
        no CFG): the later passes recurse on the tree.
        """
        found, self.nodes = scan(self.tree, callables=self.callables)
        self.diagnostics.extend(found)
        if any(type(d) is TooComplex for d in found):
            return None
        self.collect_types()
        if "result" not in self.assigned_anywhere:
            body = self.tree.body
            if not body:
                self.report(NoResult(1, 1, "the plan is empty: write the steps and put the final value in `result`"))
            else:
                self.report(NoResult.at(body[-1], "the plan never assigns `result`; put the final value in `result`"))
        cfg = build_cfg(self.tree, callables=self.callables, named_trips=named_trip_counts(self.nodes))
        self.run_handlers(cfg)
        self.dataflow(cfg)
        return cfg


Checker._handlers = {
    name.removeprefix("handle_"): fn
    for name, fn in vars(Checker).items()
    if name.startswith("handle_") and name[len("handle_")].isupper()
}


def _reverse_postorder(cfg: CFG) -> list[Block]:
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


def _dedupe(diags: Sequence[Diagnostic]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    seen: set[tuple[str, int, int, str]] = set()
    for d in sorted(diags, key=lambda d: (d.line, d.col, d.code, d.message)):
        key = (d.code, d.line, d.col, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def check_tree(
    tree: ast.Module,
    source: str,
    tools: Mapping[str, ToolManifest],
    *,
    initial_state: Mapping[str, Any] | None = None,
    latency: Mapping[str, Any] | None = None,
    cost_model: CostModel | None = None,
) -> CheckResult:
    """Check an already-parsed plan against ``tools`` (see :func:`check`)."""
    start = time.perf_counter()
    checker = Checker(tree, source, tools, initial_state or {})
    try:
        cfg = checker.run()
    except (RecursionError, MemoryError):  # a last resort: the sandbox's bounds should prevent it
        log.warning("the checker ran out of stack or memory on a plan the size bounds let through")
        cfg = None
        checker.diagnostics.append(TooComplex(1, 1, "the plan is too complex to analyse"))
    diags = _dedupe(checker.diagnostics)
    calls = call_sites(cfg, tools) if cfg is not None else []
    valid = not diags
    cost = estimate_cost(calls, cost_model or CostModel(), latency=latency) if valid else None
    return CheckResult(valid, diags, cost, calls, time.perf_counter() - start)


def check(source: str, cache: ToolCache, *, cost_model: CostModel | None = None) -> CheckResult:
    """Check ``source`` against ``cache``'s tools, starting from ``cache.info.initial_state``."""
    start = time.perf_counter()
    tree, found = parse_source(source)
    if tree is None:
        return CheckResult(False, found, None, [], time.perf_counter() - start)
    result = check_tree(
        tree, source, cache.tools, initial_state=cache.info.initial_state, latency=cache.latency, cost_model=cost_model
    )
    result.time_s = time.perf_counter() - start
    return result
