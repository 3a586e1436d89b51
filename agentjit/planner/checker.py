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
   ``enumerate``: the types come from :mod:`.typing_pass`), and ``effect`` (a
   tool not awaited, a WRITE inside a comprehension);
4. a forward dataflow analysis (:mod:`.dataflow`) over the CFG (:mod:`.cfg`) with two facts per
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
import copy
import difflib
import itertools
import logging
import math
import string
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agentjit.cache import ToolCache
from agentjit.plan.data import Record
from agentjit.plan.diagnostics import (
    ArgumentType,
    Diagnostic,
    EffectViolation,
    MissingArgument,
    NoResult,
    TooComplex,
    UnexpectedArgument,
    UnknownTool,
)
from agentjit.plan.parsed import Plan, as_plan
from agentjit.plan.sandbox import PLAN_BUILTINS, SAFE_BUILTINS, scan
from agentjit.plan.signatures import (
    PLAN_FUNCTIONS,
    arity_error,
    builtin_signature,
    call_error,
    method_signature,
)
from agentjit.plan.trips import named_trip_counts
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.schema import argument_error

from .cfg import CFG, CallEvent, build_cfg
from .cost import CallSite, CostModel, call_sites, estimate_cost
from .dataflow import Dataflow
from .prompts import EXAMPLE_TOOLS
from .typing_pass import (
    DICT,
    MISSING,
    TypingPass,
    element_of,
    is_array,
    literal,
    props_of,
    scalar_types,
    shape,
)

__all__ = ["CheckResult", "check", "check_tree", "Checker"]

#: a sample value of each plain type a plan's value may have, to try a call of a builtin or a method on
_SAMPLES: dict[type, Any] = {str: "a b", int: 2, float: 1.5, bool: True, list: [], dict: {}}
_ANY_VALUE = (*_SAMPLES.values(), None, ())
#: builtins whose value is lazy (a generator or a range), not plain data a plan's ``result`` may hold
_LAZY_BUILTINS = frozenset({"range", "enumerate", "zip", "reversed"})
#: the builtins tried with sample arguments: pure, and cheap on small values
_TRIED_BUILTINS = frozenset({"round", "abs", "int", "float", "str", "len", "min", "max", "sum", "sorted", "list",
                             "tuple", "set", "dict", "bool", "any", "all", "isinstance", "range", "enumerate", "zip",
                             "reversed"})  # fmt: skip

log = logging.getLogger(__name__)

@dataclass
class CheckResult:
    """What :func:`check` found: validity, findings (sorted by position), cost and call sites."""

    valid: bool
    diagnostics: list[Diagnostic]
    cost: float | None
    calls: list[CallSite] = field(default_factory=list)
    time_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    """What the checker could not decide (a value whose type is not known), for people; not findings."""

    def codes(self) -> list[str]:
        return [d.code for d in self.diagnostics]

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "cost": self.cost,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "calls": [c.to_dict() for c in self.calls],
        }


class Checker:
    """One check of one plan; the findings end up in ``diagnostics``.

    The typing pass (:class:`~.typing_pass.TypingPass`, ``typing``) and the
    dataflow pass (:class:`~.dataflow.Dataflow`, ``flow``) live in their own
    modules and report here.
    """

    _handlers: ClassVar[dict[str, Callable[[Checker, Any], None]]] = {}

    def __init__(self, tree: ast.Module, source: str, tools: Mapping[str, ToolManifest], initial_state: Mapping[str, Any]) -> None:
        self.tree = tree
        self.source = source
        self.tools = tools
        self.initial_state = dict(initial_state)
        self.callables = set(tools) | PLAN_BUILTINS
        self.globals = set(SAFE_BUILTINS) | self.callables
        self.diagnostics: list[Diagnostic] = []
        self.nodes: list[ast.AST] = []
        self.await_outside: set[int] = set()
        """``id`` of calls reported by :meth:`handle_Await` (``await f().x``), not reported again as not awaited."""
        self.functions = frozenset(self.callables | {n for n, v in SAFE_BUILTINS.items() if callable(v)})
        """Every name a plan may call: a plan that assigns one of them and calls it calls its own value."""
        self.typing = TypingPass(tools, self.report, self.functions)
        self.flow = Dataflow(tools, self.initial_state, self.globals, self.typing, self.report)

    def report(self, diag: Diagnostic) -> None:
        self.diagnostics.append(diag)

    # -- pass 3: types (typing_pass.py), then one walk with handlers ----------------------

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
        if not ev.awaited and id(node) not in self.await_outside:
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
            value = literal(value_node)
            if value is MISSING:
                continue
            if not isinstance(tool.parameters.get(name), dict):
                continue
            err = argument_error(tool, name, value)
            if err is not None:
                self.report(ArgumentType.at(value_node, f"argument {name!r} of {tool.name}(): {err}"))

    def check_plan_function(self, node: ast.Call, name: str) -> ast.expr | None:
        """Arity and keywords of a call of ``ai_eval``/``ask_human``/``ai_exec``, by the runtime's own table.

        Returns the first parameter's argument (the question or the instruction) when the call binds.
        """
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None  # *args / **kwargs: cannot be checked statically
        sig = PLAN_FUNCTIONS[name]
        keywords = [k.arg for k in node.keywords if k.arg is not None]
        err = call_error(sig, len(node.args), keywords)
        if err is not None:
            cls = MissingArgument if "missing" in err else UnexpectedArgument
            self.report(cls.at(node, err))
            return None
        if node.args:
            return node.args[0]
        return next(k.value for k in node.keywords if k.arg == sig.params[0])

    def check_ai_eval(self, node: ast.Call) -> None:
        prompt = self.check_plan_function(node, "ai_eval")
        if prompt is None:
            return
        value = literal(prompt)
        if value is MISSING:
            return
        if not isinstance(value, str):
            self.report(ArgumentType.at(prompt, f"ai_eval() question must be a string, not {type(value).__name__}"))
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
        instruction = self.check_plan_function(node, "ai_exec")
        value = literal(instruction) if instruction is not None else MISSING
        if value is not MISSING and not isinstance(value, str):
            self.report(ArgumentType.at(node, f"ai_exec() instruction must be a string, not {type(value).__name__}"))

    def check_ask_human(self, node: ast.Call) -> None:
        self.check_plan_function(node, "ask_human")

    def handle_Await(self, node: ast.Await) -> None:
        """``await list_stores().items``: the await is of ``.items``, and the call is not awaited; say what to write."""
        inner: ast.expr = node.value
        path: list[ast.expr] = []
        while isinstance(inner, ast.Attribute | ast.Subscript):
            path.append(inner)
            inner = inner.value
        if not path or not isinstance(inner, ast.Call) or not isinstance(inner.func, ast.Name):
            return
        name = inner.func.id
        if name not in self.callables:
            return
        self.await_outside.add(id(inner))
        call = ast.unparse(inner)
        whole = ast.unparse(node.value)
        rest = whole[len(call):] if whole.startswith(call) else ""
        tool = self.tools.get(name)
        output = f"; {name}() returns {shape(tool.output_schema)}" if tool is not None else ""
        self.report(EffectViolation.at(node, f"`await {whole}` awaits `{whole}`, so {name}() itself is not awaited; "
                                             f"write `(await {call}){rest}`{output}"))

    def handle_Attribute(self, node: ast.Attribute) -> None:
        self.typing.check_attribute(node)

    def handle_Subscript(self, node: ast.Subscript) -> None:
        self.typing.check_subscript(node)

    def handle_Call(self, node: ast.Call) -> None:
        self.typing.check_iterating_call(node)
        self.check_builtin_arity(node)
        self.check_key_function(node)

    def handle_For(self, node: ast.For) -> None:
        self.check_unpacking(node.target, node.iter)

    def handle_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        for gen in node.generators:
            self.check_unpacking(gen.target, gen.iter)

    handle_SetComp = handle_GeneratorExp = handle_DictComp = handle_ListComp

    def check_unpacking(self, target: ast.expr, iterated: ast.expr) -> None:
        """``for name, rating in stores.items``: each item is a record, which does not unpack into its values (the
        run raises ValueError, or gives field names)."""
        if not isinstance(target, ast.Tuple | ast.List):
            return
        item = element_of(self.typing.infer(iterated))
        props = props_of(item.schema) if item is not None else None
        if props is None:
            return
        src = ast.unparse(iterated)
        var = ast.unparse(target.elts[0]) if target.elts and isinstance(target.elts[0], ast.Name) else "item"
        self.report(ArgumentType.at(target, f"the items of `{src}` are records ({', '.join(list(props)[:6])}), which do "
                                            f"not unpack into values: write `for {var} in {src}:` and read its fields "
                                            f"(`{var}.{next(iter(props), 'name')}`)"))  # fmt: skip

    def check_key_function(self, node: ast.Call) -> None:
        """``sorted(xs, key=xs[0].name)``: ``key=`` is called on each item, and a plan may call only functions by
        name (no lambda): any other value is refused at run time (``calling 'str' is not allowed``)."""
        key = next((k.value for k in node.keywords if k.arg == "key"), None)
        if key is None or isinstance(key, ast.Lambda) or literal(key) is None:
            return  # no key, key=None, or a lambda (the sandbox's own finding)
        if isinstance(key, ast.Name) and key.id in self.functions and key.id not in self.typing.types:
            return  # a function's name: key=len
        if isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name) and key.value.id in self.functions:
            return  # key=str.lower: check_attribute's finding (an attribute of a function)
        self.report(ArgumentType.at(key, f"key= is called on each item, and `{ast.unparse(key)}` is a value, not a "
                                         "function: use a function's name (key=len), or order by a field with pairs, "
                                         "`sorted([(s.rating, s.name) for s in items])`"))  # fmt: skip

    def check_builtin_arity(self, node: ast.Call) -> None:
        """Arity and keywords of a call of a safe builtin or of a method of a value whose type is known, by the
        signatures the guard checks with (:func:`~agentjit.plan.signatures.arity_error`)."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return  # *args / **kwargs: cannot be checked statically
        f = node.func
        if isinstance(f, ast.Name):
            if f.id not in SAFE_BUILTINS or f.id in self.typing.types or f.id in self.callables:
                return
            what, sig = f.id, builtin_signature(f.id)
        elif isinstance(f, ast.Attribute):
            cls = self.typing.value_class(f)
            if cls is None:
                return
            owner = "record" if cls is Record else cls.__name__  # the guard's words
            what, sig = f"{owner}.{f.attr}", method_signature(cls, f.attr)
        else:
            return
        err = arity_error(what, sig, len(node.args), [k.arg for k in node.keywords if k.arg is not None])
        if err is not None:
            cls_ = MissingArgument if "missing a required" in err else UnexpectedArgument
            self.report(cls_.at(node, err))
            return
        if isinstance(f, ast.Name) and f.id in _TRIED_BUILTINS:
            self.try_argument_types(node, what, SAFE_BUILTINS[f.id], None)
        elif isinstance(f, ast.Attribute) and cls in _SAMPLES:
            owners = [o for o in self._samples_of(f.value) or [] if type(o) is cls] or [_SAMPLES[cls]]
            self.try_argument_types(node, what, None, (owners, f.attr))
            if cls is list and f.attr in ("index", "remove") and len(node.args) == 1:
                self.check_never_in_list(node, f)

    def check_never_in_list(self, node: ast.Call, f: ast.Attribute) -> None:
        """``words.index(7)`` of a list of str: a literal of another type is never in the list, and ``index`` and
        ``remove`` raise ValueError for a value that is not."""
        value = literal(node.args[0])
        item = element_of(self.typing.infer(f.value))
        types = scalar_types(item.schema) if item is not None else None
        if value is MISSING or types is None or value is None:
            return
        numeric = (int, float, bool)
        kind = numeric if isinstance(value, numeric) else (type(value),)
        if not any(issubclass(t, kind) for t in types):
            src = ast.unparse(f.value)
            self.report(ArgumentType.at(node, f"`{src}` is a list of {' | '.join(t.__name__ for t in types)}, so it never "
                                              f"holds {value!r}: `{ast.unparse(node)}` would raise ValueError"))

    def try_argument_types(self, node: ast.Call, what: str, fn: Any, method: tuple[list[Any], str] | None) -> None:
        """``argument-type`` for a call of a builtin or a method that raises TypeError whatever its arguments of
        unknown value are (``round(x, "2")``, ``word.replace(7, "")``): the call is tried on small sample values
        of the types the arguments may have (Python's own functions are the table)."""
        if any(k.arg == "key" for k in node.keywords):
            return  # a key function: called on the items, with what they are
        options: list[list[Any]] = []
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            values = self._samples_of(arg)
            if values is None:
                return
            options.append(values)
        owners = method[0] if method is not None else [None]
        if math.prod(len(o) for o in options) * len(owners) > 64:
            return
        names = [str(k.arg) for k in node.keywords]  # no `**values`: returned above
        last: TypeError | None = None
        for owner, *combo in itertools.product(owners, *options):
            args, kwargs = combo[:len(node.args)], dict(zip(names, combo[len(node.args):], strict=True))
            try:
                if method is not None:
                    getattr(copy.copy(owner), method[1])(*args, **kwargs)  # a list's own copy to sort
                else:
                    fn(*args, **kwargs)
                return  # some value of the types the arguments may have binds
            except TypeError as exc:
                last = exc
            except Exception:  # noqa: BLE001 - a value error on a sample is the data's, not the types'
                return
        if last is not None:
            self.report(ArgumentType.at(node, f"{what}() fails on values of these types: {last}"))

    def _samples_of(self, arg: ast.expr) -> list[Any] | None:
        """Sample values ``arg`` may have: its literal value, samples of its known type, or of every plain type."""
        value = literal(arg)
        if value is not MISSING:
            small = not isinstance(value, int | str | list | dict) or (
                abs(value) <= 10_000 if isinstance(value, int) else len(value) <= 1_000)
            return [value] if small else None
        if isinstance(arg, ast.Name) and arg.id in SAFE_BUILTINS and arg.id not in self.typing.types:
            return [SAFE_BUILTINS[arg.id]]  # `isinstance(x, str)`
        ty = self.typing.infer(arg)
        if ty is None:
            return list(_ANY_VALUE)
        props = props_of(ty.schema)
        if props is not None:
            return [Record(dict.fromkeys(props, "a b"))]
        if is_array(ty.schema):  # two items of the list's type, so that sorted() and max() compare them
            item = element_of(ty)
            items = self._samples_of_type(item) if item is not None else None
            return [[one, one] for one in items] if items else [[]]
        return self._samples_of_type(ty) or list(_ANY_VALUE)

    @staticmethod
    def _samples_of_type(ty: Any) -> list[Any] | None:
        """Sample values of a record, a dict or a scalar type; None for another type (a list: unknown items)."""
        props = props_of(ty.schema)
        if props is not None:
            return [Record(dict.fromkeys(props, "a b"))]
        if ty.schema == DICT:
            return [{}]
        types = scalar_types(ty.schema)
        if types is None:
            return None
        return [_SAMPLES[t] for t in dict.fromkeys(types)] + ([None] if "null" in str(ty.schema.get("type")) else [])

    def check_shadowed_functions(self) -> None:
        """``list = [...]`` then ``list(x)``: the run calls the plan's value, not the builtin, and the guard refuses
        it (``calling 'list' is not allowed``). Flow-insensitive, as the typing pass: a function's name that the plan
        assigns anywhere (a comprehension's own variable aside) may not be called anywhere."""
        inside_comprehension = {id(n) for node in self.nodes if isinstance(node, ast.comprehension)
                                for n in ast.walk(node.target)}  # fmt: skip
        assigned: dict[str, ast.AST] = {}
        for node in self.nodes:
            if isinstance(node, ast.Name) and type(node.ctx) is ast.Store and id(node) not in inside_comprehension:
                if node.id in self.functions:
                    assigned.setdefault(node.id, node)
            elif isinstance(node, ast.ExceptHandler) and node.name in self.functions:
                assigned.setdefault(node.name, node)
        for node in self.nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in assigned:
                name, where = node.func.id, assigned[node.func.id]
                what = "the tool" if name in self.tools else "the function"
                self.report(UnknownTool.at(node, (
                    f"`{name}` is assigned on line {getattr(where, 'lineno', 1)}, so `{name}(...)` calls that value, "
                    f"not {what} {name}(), and a plan cannot call a value: give the value another name")))

    def check_result_values(self) -> None:
        """``result = zip(a, b)``, ``result = d.items()``: a lazy value or a view, which cannot leave the plan (the
        run refuses it after doing all the work); say to make a list of it."""
        for node in self.nodes:
            if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "result"
                                                         for t in node.targets)):
                continue
            value, kind = node.value, None
            if isinstance(value, ast.GeneratorExp):
                kind = "a generator"
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _LAZY_BUILTINS:
                if value.func.id not in self.typing.types:
                    kind = f"a lazy {value.func.id}()"
            elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                  and value.func.attr in ("keys", "values", "items") and not value.args):
                kind = f"a view of a dict's {value.func.attr}"
            if kind is not None:
                src = ast.unparse(value)
                inner = src[1:-1] if isinstance(value, ast.GeneratorExp) else src
                self.report(NoResult.at(node, f"`result = {src}` is {kind}, which cannot leave the plan (only plain "
                                              f"data: str, numbers, bool, None, list, dict, tuple, set, record): "
                                              f"write `result = list({inner})`"))

    def explain_unknown_tool(self, diag: Diagnostic) -> Diagnostic:
        """An ``unknown-tool`` finding that says where the name came from and which tool is close, if any."""
        if type(diag) is not UnknownTool:
            return diag
        name = diag.message.split("'")[1] if diag.message.count("'") >= 2 else ""
        extra = []
        if name in EXAMPLE_TOOLS:
            extra.append(f"{name}() is a made-up tool of the prompt's examples, not a tool of this site")
        close = difflib.get_close_matches(name, sorted(self.tools), n=3, cutoff=0.6)
        if close:
            extra.append("did you mean " + " or ".join(f"{c}()" for c in close))
        return UnknownTool(diag.line, diag.col, "; ".join([diag.message, *extra])) if extra else diag

    # -- all passes --------------------------------------------------------------------------

    def run(self) -> CFG | None:
        """All passes; returns the CFG (the call sites and the cost come from it).

        A tree over the sandbox's size bounds gets only the sandbox findings (and
        no CFG): the later passes recurse on the tree.
        """
        found, self.nodes = scan(self.tree, callables=self.callables)
        self.diagnostics.extend(self.explain_unknown_tool(d) for d in found)
        if any(type(d) is TooComplex for d in found):
            return None
        self.typing.collect(self.nodes)
        if "result" not in self.typing.assigned_anywhere:
            body = self.tree.body
            if not body:
                self.report(NoResult(1, 1, "the plan is empty: write the steps and put the final value in `result`"))
            else:
                self.report(NoResult.at(body[-1], "the plan never assigns `result`; put the final value in `result`"))
        cfg = build_cfg(self.tree, callables=self.callables, named_trips=named_trip_counts(self.nodes))
        self.run_handlers(cfg)
        self.check_shadowed_functions()
        self.check_result_values()
        self.flow.run(cfg)
        return cfg


Checker._handlers = {
    name.removeprefix("handle_"): fn
    for name, fn in vars(Checker).items()
    if name.startswith("handle_") and name[len("handle_")].isupper()
}


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
    return CheckResult(valid, diags, cost, calls, time.perf_counter() - start, notes=list(dict.fromkeys(checker.typing.notes)))


def check(source: str | Plan, cache: ToolCache, *, cost_model: CostModel | None = None) -> CheckResult:
    """Check ``source`` against ``cache``'s tools, starting from ``cache.info.initial_state``.

    ``source`` is plan text or a :class:`~agentjit.plan.parsed.Plan`; a Plan is
    not parsed again, and its verdict under this ``cache`` and ``cost_model``
    is kept on it (the planner's check is the gate's).
    """
    start = time.perf_counter()
    plan = as_plan(source)
    return plan.memo("check", (cache, cost_model), lambda: _check(plan, cache, cost_model, start))


def _check(plan: Plan, cache: ToolCache, cost_model: CostModel | None, start: float) -> CheckResult:
    if plan.tree is None:
        return CheckResult(False, list(plan.findings), None, [], time.perf_counter() - start)
    result = check_tree(
        plan.tree, plan.source, cache.tools, initial_state=cache.info.initial_state, latency=cache.latency,
        cost_model=cost_model,
    )  # fmt: skip
    result.time_s = time.perf_counter() - start
    return result
