"""The plan sandbox: which Python a plan may contain, and which builtins it sees.

A plan is a small top-level Python program (DESIGN.md section 3). It may
assign names, branch, loop, catch a few named exceptions, build containers and
comprehensions, and ``await`` tools, ``ai_eval`` and ``ask_human``. Everything
else is rejected *statically*, by an explicit allow-list of AST node types:
unknown or new node types are forbidden by default.

Beyond the node allow-list:

* names that open doors (``exec``, ``eval``, ``open``, ``getattr``,
  ``__import__``, ``type``, ...) may not even be mentioned;
* attributes starting with ``_`` and a short list of frame/code attributes
  (``cr_frame``, ``f_globals``, ...) and ``str.format``/``format_map`` (whose
  ``{0.__class__}`` fields reach dunders at run time) are forbidden;
* a subscript by a string literal starting with ``__`` is forbidden;
* a bare-name call must name a tool, ``ai_eval``/``ask_human`` or a safe
  builtin (``callables`` + :data:`SAFE_BUILTINS`); otherwise ``unknown-tool``;
* ``raise StopIteration`` is forbidden (in a plan, which runs as a coroutine,
  Python turns it into a RuntimeError);
* ``break``/``continue`` leaving a ``finally`` block is forbidden (it drops the
  exception in flight; the guard also remembers a limit it raised, so any later
  step raises it again);
* a chained comparison with ``in`` (``a in b < c``) is forbidden: the guard
  checks each ``in`` as one call (``x in range(10**15)`` with a float ``x``
  would scan the range in C), which a chain cannot be split into.

Size bounds come first (``too-complex``): :func:`parse_source` refuses a plan
over :data:`MAX_PLAN_BYTES` or :data:`MAX_PLAN_LINES` before parsing it, and
turns a RecursionError or MemoryError of the parser into a finding;
:func:`scan` (iterative) refuses a tree deeper than :data:`MAX_AST_DEPTH` or
with more than :data:`MAX_AST_NODES` nodes. Every later pass (the checker's
walks, the CFG, the cost model, the scheduler's usage analysis) may recurse on
the tree, so none of them runs on a plan with a ``too-complex`` finding.

The runtime runs only plans this check accepts. The names here are the ones
the run-time guard (:mod:`agentjit.plan.guard`) allows: :data:`SAFE_EXCEPTIONS`
and the functions of :data:`SAFE_BUILTINS` are the guard's own lists. This module
sits in the plan layer (standard library, :mod:`agentjit.exceptions` and
:mod:`agentjit.plan` only), so the planner, the scheduler and the runtime share it.
"""

from __future__ import annotations

import ast
import builtins
import logging
from collections.abc import Collection

from .diagnostics import Diagnostic, Forbidden, SyntaxErrorFound, TooComplex, UnknownTool
from .guard import SAFE_EXCEPTIONS, SAFE_FUNCTION_NAMES
from .nodes import ALLOWED_NODES
from .signatures import PLAN_FUNCTIONS

__all__ = [
    "SAFE_BUILTINS",
    "SAFE_EXCEPTIONS",
    "PLAN_BUILTINS",
    "FORBIDDEN_NAMES",
    "FORBIDDEN_ATTRIBUTES",
    "ALLOWED_NODES",
    "MAX_PLAN_BYTES",
    "MAX_PLAN_LINES",
    "MAX_AST_DEPTH",
    "MAX_AST_NODES",
    "check_sandbox",
    "scan",
    "parse_source",
    "child_nodes",
]

log = logging.getLogger(__name__)

#: Largest plan, in UTF-8 bytes, that is parsed at all (plans a model writes are a few KB).
MAX_PLAN_BYTES = 100_000
#: Most lines a plan may have.
MAX_PLAN_LINES = 5_000
#: Deepest AST a plan may have (the module is depth 1; reference plans reach 12). Every
#: recursive pass stays far below Python's recursion limit at this depth.
MAX_AST_DEPTH = 100
#: Most AST nodes a plan may have (not counting contexts and operators).
MAX_AST_NODES = 50_000

#: The builtins a plan sees: a few pure functions and the safe exceptions.
SAFE_BUILTINS: dict[str, object] = {
    **{name: getattr(builtins, name) for name in SAFE_FUNCTION_NAMES},
    **SAFE_EXCEPTIONS,
    "None": None,
    "True": True,
    "False": False,
}

#: Awaitable builtins provided to every plan by the runtime.
PLAN_BUILTINS: frozenset[str] = frozenset(PLAN_FUNCTIONS)

#: Names a plan may not mention at all.
FORBIDDEN_NAMES: frozenset[str] = frozenset({
    "exec", "eval", "compile", "open", "getattr", "setattr", "delattr", "hasattr",
    "globals", "locals", "vars", "dir", "__import__", "__builtins__", "breakpoint",
    "input", "help", "type", "object", "super", "memoryview", "classmethod",
    "staticmethod", "property", "exit", "quit", "id", "iter", "next", "aiter", "anext",
})  # fmt: skip

#: Attribute names that reach frames, code objects or format-string dunders.
FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset({
    "format", "format_map", "mro",
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await",
    "ag_frame", "ag_code", "ag_await", "f_globals", "f_locals", "f_builtins",
    "f_back", "f_code", "tb_frame", "tb_next", "co_code", "co_consts",
    "model_construct", "model_rebuild",
})  # fmt: skip

_WHY: dict[type[ast.AST], str] = {
    ast.Import: "imports are not allowed; every tool is already in scope",
    ast.ImportFrom: "imports are not allowed; every tool is already in scope",
    ast.FunctionDef: "plans may not define functions; write the steps at top level",
    ast.AsyncFunctionDef: "plans may not define functions; write the steps at top level",
    ast.Lambda: ("lambdas are not allowed (nor key= functions): to pick the best item, loop and keep the best so "
                 "far (`if best is None or x.rating > best.rating: best = x`); to order items, sort tuples "
                 "(`sorted([(x.rating, x.name) for x in xs], reverse=True)`)"),
    ast.ClassDef: "plans may not define classes",
    ast.Global: "'global' is not allowed",
    ast.Nonlocal: "'nonlocal' is not allowed",
    ast.With: "'with' is not allowed",
    ast.AsyncWith: "'async with' is not allowed",
    ast.AsyncFor: "'async for' is not allowed; use a plain 'for' over a tool's result",
    ast.Yield: "'yield' is not allowed",
    ast.YieldFrom: "'yield from' is not allowed",
    ast.Delete: "'del' is not allowed",
    ast.AnnAssign: "annotated assignments are not allowed; write 'x = ...'",
    ast.Return: "'return' is not allowed; put the final value in 'result'",
}


def _name(node: ast.AST) -> str:
    return type(node).__name__


# fields that never hold a node a plan check looks at (names, flags, contexts, operators)
_SKIP_FIELDS = frozenset({
    "ctx", "op", "ops", "kind", "type_ignores", "type_comment", "id", "attr", "arg", "name",
    "names", "is_async", "level", "module", "conversion", "simple",
})  # fmt: skip
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {ast.Constant: ()}


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` that can matter to a plan check, in source order.

    Like :func:`ast.iter_child_nodes`, but without the expression contexts and
    operator nodes (every one of which the sandbox allows), and a few times
    faster: the checker's time budget is about 2 ms a candidate.
    """
    cls = type(node)
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
        _CHILD_FIELDS[cls] = fields
    out: list[ast.AST] = []
    for f in fields:
        v = getattr(node, f, None)
        if v is None:
            continue
        if type(v) is list:
            out.extend(v)
        else:
            out.append(v)
    if cls is ast.Dict:  # ``{**x}`` leaves a None key
        out = [x for x in out if x is not None]
    return out


def parse_source(source: str, *, filename: str = "<plan>") -> tuple[ast.Module | None, list[Diagnostic]]:
    """Parse plan ``source`` without ever raising: ``(tree, [])`` or ``(None, [finding])``.

    A plan over the size bounds is not parsed (``too-complex``); a syntax
    error, a NUL byte or a lone surrogate is ``syntax``; the parser's own
    RecursionError or MemoryError (``-`` repeated thousands of times) is
    ``too-complex``. The tree still has to go through :func:`scan`, which
    bounds its depth and node count.
    """
    size = len(source)
    if size > MAX_PLAN_BYTES // 4:  # cheap before exact: a str char is at most 4 UTF-8 bytes
        try:
            size = len(source.encode("utf-8", "surrogatepass"))
        except UnicodeError:  # pragma: no cover - surrogatepass encodes every str
            pass
    if size > MAX_PLAN_BYTES:
        return None, [TooComplex(1, 1, f"the plan is {size} bytes; at most {MAX_PLAN_BYTES} are allowed")]
    lines = source.count("\n") + 1
    if lines > MAX_PLAN_LINES:
        return None, [TooComplex(1, 1, f"the plan has {lines} lines; at most {MAX_PLAN_LINES} are allowed")]
    try:
        return ast.parse(source, filename=filename), []
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        msg = exc.msg or "invalid syntax"
        if "too many nested" in msg or "too complex" in msg or "too many levels" in msg:
            return None, [TooComplex(line, col, f"the plan is nested too deeply to parse ({msg})")]
        return None, [SyntaxErrorFound(line, col, msg)]
    except (ValueError, UnicodeError) as exc:  # NUL bytes; lone surrogates the parser cannot encode
        return None, [SyntaxErrorFound(1, 1, f"the plan is not valid source text: {exc}")]
    except (RecursionError, MemoryError):
        return None, [TooComplex(1, 1, "the plan is nested too deeply or is too long to parse")]


_UP = ast.AST()  # the end-of-children marker of scan's stack


def _deeper_than(node: ast.AST, limit: int) -> bool:
    """Whether the subtree under ``node`` is more than ``limit`` levels deep (iteratively)."""
    stack = [(node, 0)]
    while stack:
        n, d = stack.pop()
        if d > limit:
            return True
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(n))
    return False


def _jumps_out_of(body: list[ast.stmt]) -> list[ast.stmt]:
    """The ``break``/``continue`` statements of ``body`` that leave it (not those of a loop inside it)."""
    out: list[ast.stmt] = []
    todo = list(body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.Break | ast.Continue):
            out.append(stmt)
        elif isinstance(stmt, ast.For | ast.While):
            todo.extend(stmt.orelse)  # a loop's own body may break out of that loop; its else may not
        elif isinstance(stmt, ast.If):
            todo.extend(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            todo.extend(stmt.body + stmt.orelse + stmt.finalbody)
            for handler in stmt.handlers:
                todo.extend(handler.body)
    return out


def check_sandbox(tree: ast.Module, *, callables: Collection[str]) -> list[Diagnostic]:
    """Findings for everything in ``tree`` that the sandbox forbids.

    ``callables`` are the names a plan may call besides :data:`SAFE_BUILTINS`
    (the cache's tools and ``ai_eval``/``ask_human``). Findings are
    :class:`~agentjit.plan.diagnostics.Forbidden` (code ``forbidden``) and
    :class:`~agentjit.plan.diagnostics.UnknownTool` for calls to other names;
    columns are 1-based. An empty list means the plan may run.
    """
    return scan(tree, callables=callables)[0]


def scan(tree: ast.Module, *, callables: Collection[str]) -> tuple[list[Diagnostic], list[ast.AST]]:
    """The sandbox findings and every allowed node of ``tree`` in source (pre)order.

    The node list lets the checker run its per-node handlers without walking
    the tree again. Nodes under a forbidden node are neither checked nor listed,
    nor are those below :data:`MAX_AST_DEPTH` (one ``too-complex`` finding
    says so). The walk is iterative: any depth is safe here.
    """
    out: list[Diagnostic] = []
    nodes: list[ast.AST] = []
    # pre-order with an explicit stack; ``_UP`` marks where a node's children end, so
    # ``depth`` (the depth of the node popped) needs no tuple per node
    stack: list[ast.AST] = [tree]
    depth = 1
    too_deep = False
    while stack:
        node = stack.pop()
        if node is _UP:
            depth -= 1
            continue
        cls = type(node)
        if cls not in ALLOWED_NODES:
            why = _WHY.get(cls, f"'{_name(node)}' is not allowed in a plan")
            out.append(Forbidden.at(node, why))
            if not too_deep and _deeper_than(node, MAX_AST_DEPTH - depth):  # other walks may still recurse into it
                too_deep = True
                out.append(TooComplex.at(node, f"the plan is nested more than {MAX_AST_DEPTH} levels deep here"))
            continue  # one finding per forbidden construct, not one per child
        nodes.append(node)
        children = child_nodes(node)
        if children:
            if depth >= MAX_AST_DEPTH:
                if not too_deep:
                    too_deep = True
                    out.append(TooComplex.at(node, f"the plan is nested more than {MAX_AST_DEPTH} levels deep here"))
            else:
                stack.append(_UP)
                children.reverse()
                stack.extend(children)
                depth += 1
        if cls is ast.Name:
            assert isinstance(node, ast.Name)
            if node.id in FORBIDDEN_NAMES:
                out.append(Forbidden.at(node, f"'{node.id}' is not allowed in a plan"))
            elif node.id.startswith("__"):
                out.append(Forbidden.at(node, f"dunder name '{node.id}' is not allowed"))
        elif cls is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            if node.attr.startswith("_"):
                out.append(Forbidden.at(node, f"attribute '{node.attr}' is not allowed (no names starting with '_')"))
            elif node.attr in FORBIDDEN_ATTRIBUTES:
                out.append(Forbidden.at(node, f"attribute '{node.attr}' is not allowed; use an f-string"
                                        if node.attr in ("format", "format_map")
                                        else f"attribute '{node.attr}' is not allowed"))
            elif not isinstance(node.ctx, ast.Load):
                out.append(Forbidden.at(node, f"assigning attribute '{node.attr}' is not allowed; "
                                              "plans change only their own variables, lists and dicts"))
        elif cls is ast.Subscript:
            assert isinstance(node, ast.Subscript)
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("__"):
                out.append(Forbidden.at(node, f"subscript {key.value!r} is not allowed"))
        elif cls is ast.Call:
            assert isinstance(node, ast.Call)
            func = node.func
            if isinstance(func, ast.Name):
                if func.id not in FORBIDDEN_NAMES and func.id not in callables and func.id not in SAFE_BUILTINS:
                    out.append(UnknownTool.at(node, f"'{func.id}' is not a tool, ai_eval, ask_human or a safe builtin"))
            elif not isinstance(func, ast.Attribute):
                out.append(Forbidden.at(node, "only tools, builtins and methods may be called"))
        elif cls is ast.ExceptHandler:
            assert isinstance(node, ast.ExceptHandler)
            if node.name is not None and node.name.startswith("__"):  # a str field, not a Name node
                out.append(Forbidden.at(node, f"dunder name '{node.name}' is not allowed"))
            if node.type is not None:
                names = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
                for n in names:
                    if not (isinstance(n, ast.Name) and n.id in SAFE_EXCEPTIONS):
                        out.append(Forbidden.at(n, "except only names one of: " + ", ".join(sorted(SAFE_EXCEPTIONS))))
        elif cls is ast.comprehension:
            assert isinstance(node, ast.comprehension)
            if node.is_async:
                out.append(Forbidden.at(node.target, "'async for' is not allowed in a comprehension"))
        elif cls is ast.Try:
            assert isinstance(node, ast.Try)
            for jump in _jumps_out_of(node.finalbody):
                word = "break" if isinstance(jump, ast.Break) else "continue"
                out.append(Forbidden.at(jump, f"'{word}' in a 'finally' block is not allowed (it would drop an "
                                              "exception in flight, a time limit included)"))
        elif cls is ast.Compare:
            assert isinstance(node, ast.Compare)
            if len(node.ops) > 1 and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
                out.append(Forbidden.at(node, "a chained comparison with 'in' is not allowed; split it with 'and'"))
        elif cls is ast.Raise:
            assert isinstance(node, ast.Raise)
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "StopIteration":
                out.append(Forbidden.at(node, "raising StopIteration is not allowed (in a plan it becomes a RuntimeError); raise ValueError"))
    if len(nodes) > MAX_AST_NODES:
        out.append(TooComplex(1, 1, f"the plan has {len(nodes)} syntax nodes; at most {MAX_AST_NODES} are allowed"))
    out.sort(key=lambda d: (d.line, d.col))
    return out, nodes
