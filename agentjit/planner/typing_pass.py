"""The checker's typing pass: what a plan's values are, statically, for ``unknown-field``.

Flow-insensitive: every name gets the types (:class:`Ty`, a JSON schema and a
description) of everything assigned to it, in source order; a name is typed
only when all of them agree. Types come from tool outputs (``output_schema``)
and follow attributes, indexing, slices, loop and comprehension variables,
``enumerate``, ``sorted``/``list``/``reversed`` and filtering comprehensions.
:meth:`TypingPass.check_attribute` and :meth:`TypingPass.check_subscript`
report a field the schema does not have. :func:`literal` is the other static
fact about a value: its value when it is a literal.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agentjit.plan.diagnostics import Diagnostic, UnknownField
from agentjit.protocol.manifest import ToolManifest

__all__ = ["Ty", "TypingPass", "literal", "MISSING", "props_of", "is_array", "element_of"]

# methods and attributes every tool result (a pydantic model) and list have
RESULT_ATTRS = frozenset({"get", "keys", "values", "items"})  # a tool result is a read-only Record
LIST_ATTRS = frozenset({"append", "extend", "index", "count", "copy", "insert", "pop", "remove", "reverse", "sort", "clear"})


@dataclass(frozen=True)
class Ty:
    """A value's JSON schema, and how a message names the value (``the output of list_items()``)."""

    schema: Mapping[str, Any]
    desc: str


def props_of(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The properties of an object schema, or None when it is not a closed object."""
    typ = schema.get("type")
    is_obj = typ == "object" or (isinstance(typ, list) and "object" in typ)
    props = schema.get("properties")
    if is_obj and isinstance(props, Mapping):
        return props
    return None


def is_array(schema: Mapping[str, Any]) -> bool:
    typ = schema.get("type")
    return typ == "array" or (isinstance(typ, list) and "array" in typ)


def element_of(ty: Ty | None) -> Ty | None:
    if ty is not None and is_array(ty.schema) and isinstance(ty.schema.get("items"), Mapping):
        return Ty(ty.schema["items"], f"an item of {ty.desc}")
    return None


MISSING = object()
"""What :func:`literal` returns for an expression that is not a literal."""


def literal(node: ast.expr) -> Any:
    """The value of a literal argument, or ``MISSING`` when it is not a literal."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple | ast.Dict | ast.Set | ast.UnaryOp):
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return MISSING
        return list(value) if isinstance(value, tuple | set) else value
    return MISSING


class TypingPass:
    """The types of one plan's names, and the names it assigns or calls anywhere."""

    def __init__(self, tools: Mapping[str, ToolManifest], report: Callable[[Diagnostic], None]) -> None:
        self.tools = tools
        self.report = report
        self.types: dict[str, list[Ty | None]] = {}
        self.call_funcs: set[int] = set()
        """``id`` of every called expression (``f`` of ``f(...)``)."""
        self.assigned_anywhere: set[str] = set()

    def infer(self, node: ast.AST) -> Ty | None:
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Name) and f.id in self.tools:
                return Ty(self.tools[f.id].output_schema, f"the output of {f.id}()")
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
            props = props_of(base.schema) if base is not None else None
            if base is not None and props is not None and isinstance(props.get(node.attr), Mapping):
                return Ty(props[node.attr], f"{base.desc}.{node.attr}")
            return None
        if isinstance(node, ast.Subscript):
            base = self.infer(node.value)
            if base is None:
                return None
            if is_array(base.schema):
                return base if isinstance(node.slice, ast.Slice) else element_of(base)
            props = props_of(base.schema)
            key = node.slice
            if props is not None and isinstance(key, ast.Constant) and isinstance(key.value, str):
                sub = props.get(key.value)
                if isinstance(sub, Mapping):
                    return Ty(sub, f"{base.desc}.{key.value}")
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            if node.func.id in ("sorted", "list", "reversed"):
                inner = self.infer(node.args[0])
                return inner if inner is not None and is_array(inner.schema) else None
            return None
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            if isinstance(gen.target, ast.Name) and isinstance(node.elt, ast.Name) and node.elt.id == gen.target.id:
                inner = self.infer(gen.iter)  # a filter keeps the element type
                return inner if inner is not None and is_array(inner.schema) else None
            return None
        if isinstance(node, ast.IfExp):
            if isinstance(node.orelse, ast.Constant) and node.orelse.value is None:
                return self.infer(node.body)
            return None
        return None

    def bind(self, target: ast.AST, ty: Ty | None) -> None:
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
            self.bind(target.elts[1], element_of(self.infer(it.args[0])))
            return
        self.bind(target, element_of(self.infer(it)))

    def collect(self, nodes: list[ast.AST]) -> None:
        """Flow-insensitive: every name gets the types of everything assigned to it, in source order."""
        for node in nodes:
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

    def check_attribute(self, node: ast.Attribute) -> None:
        """``unknown-field`` for ``x.name`` when ``x``'s schema has no field ``name`` (or ``x`` is a list)."""
        if node.attr.startswith("_"):
            return  # the sandbox reports it
        base = self.infer(node.value)
        if base is None:
            return
        props = props_of(base.schema)
        if props is not None:
            if node.attr not in props and node.attr not in RESULT_ATTRS:
                fields = ", ".join(props) or "none"
                self.report(UnknownField.at(node, f"{base.desc} has no field {node.attr!r} (fields: {fields})"))
        elif is_array(base.schema) and node.attr not in LIST_ATTRS:
            self.report(UnknownField.at(node, f"{base.desc} is a list, it has no field {node.attr!r}; index it or loop over it"))

    def check_subscript(self, node: ast.Subscript) -> None:
        """``unknown-field`` for ``x["name"]`` when ``x``'s schema has no field ``name``."""
        key = node.slice
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or key.value.startswith("__"):
            return
        base = self.infer(node.value)
        props = props_of(base.schema) if base is not None else None
        if base is not None and props is not None and key.value not in props:
            self.report(UnknownField.at(node, f"{base.desc} has no field {key.value!r} (fields: {', '.join(props) or 'none'})"))
