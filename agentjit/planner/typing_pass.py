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

from agentjit.plan.data import Record
from agentjit.plan.diagnostics import Diagnostic, UnknownField
from agentjit.plan.guard import ALLOWED_ATTRIBUTES, RECORD_METHODS
from agentjit.plan.sandbox import FORBIDDEN_ATTRIBUTES
from agentjit.protocol.manifest import ToolManifest

__all__ = ["Ty", "TypingPass", "literal", "MISSING", "props_of", "is_array", "element_of", "shape", "scalar_types"]

# what the run-time guard lets a plan read of each kind of value: the same tables, so the checker refuses what it would
RESULT_ATTRS = RECORD_METHODS  # a tool result is a read-only Record
LIST_ATTRS = ALLOWED_ATTRIBUTES[list]
_SCALAR_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}
STR = {"type": "string"}
INT = {"type": "integer"}
NUMBER = {"type": "number"}
DICT = {"type": "object", "$plan": "dict"}
"""A dict the plan made (a tool's open object is a read-only record instead)."""
#: str methods whose result is a str, and those whose result is a list of str
_STR_TO_STR = frozenset("""capitalize casefold center join ljust lower lstrip removeprefix removesuffix replace rjust
                           rstrip strip swapcase title upper zfill""".split())
_STR_TO_LIST = frozenset(("split", "rsplit", "splitlines"))


@dataclass(frozen=True)
class Ty:
    """A value's JSON schema, and how a message names the value (``the output of list_items()``).

    ``keys_of`` is set on a field name got by looping over a record (``for s in record``): the record's type and
    the source of the loop's iterable, so a message can say which list field to loop over instead.
    """

    schema: Mapping[str, Any]
    desc: str
    keys_of: tuple[Ty, str] | None = None


_ITERATING_BUILTINS = frozenset({
    "sorted", "list", "tuple", "set", "len", "min", "max", "sum", "enumerate", "reversed", "any", "all", "zip",
})  # fmt: skip
"""Builtins that iterate their positional arguments: given a record, they go over its field names."""


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


def scalar_types(schema: Mapping[str, Any]) -> tuple[type, ...] | None:
    """The Python types a value of scalar ``schema`` has at run time (``null`` aside); None when not a scalar."""
    typ = schema.get("type")
    raw: list[Any] = typ if isinstance(typ, list) else [typ]
    names = [n for n in raw if n != "null"]
    if not names or any(not isinstance(n, str) or n not in _SCALAR_TYPES for n in names):
        return None
    return tuple(t for n in names for t in _SCALAR_TYPES[str(n)])


def allowed_on(types: tuple[type, ...]) -> frozenset[str]:
    """The attributes the run-time guard lets a plan read on every one of ``types``."""
    per_type = [frozenset().union(*(ALLOWED_ATTRIBUTES.get(c, frozenset()) for c in t.__mro__)) for t in types]
    return frozenset.intersection(*per_type)


_SCALAR_NAMES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def shape(schema: Mapping[str, Any], depth: int = 2) -> str:
    """A short rendering of ``schema`` for a message: ``{items: list of {name: str, ...}, count: int}``."""
    props = props_of(schema)
    if props is not None:
        if depth <= 0:
            return "{...}"
        names = list(props)
        parts = [f"{k}: {shape(props[k], depth - 1) if isinstance(props[k], Mapping) else '?'}" for k in names[:12]]
        return "{" + ", ".join(parts + (["..."] if len(names) > 12 else [])) + "}"
    if is_array(schema):
        items = schema.get("items")
        return "list of " + shape(items, depth) if isinstance(items, Mapping) else "list"
    typ = schema.get("type")
    listed: list[Any] = typ if isinstance(typ, list) else [typ]
    return " | ".join(_SCALAR_NAMES.get(n, "dict" if n == "object" else "?") for n in listed if isinstance(n, str)) or "?"


def _kind(schema: Mapping[str, Any]) -> str:
    """``a str``, ``an int``... for a scalar schema."""
    name = " | ".join(t.__name__ for t in dict.fromkeys(scalar_types(schema) or ()))
    return ("an " if name[:1] in "aeiou" else "a ") + (name or "value")


def _paren(src: str) -> str:
    """``src`` as the base of an attribute: ``(await f())`` needs the parentheses."""
    return f"({src})" if src.startswith("await ") else src


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

    def __init__(self, tools: Mapping[str, ToolManifest], report: Callable[[Diagnostic], None],
                 functions: frozenset[str] = frozenset()) -> None:
        self.tools = tools
        self.report = report
        self.functions = functions
        """The names of the functions a plan may call (tools, plan functions, builtins): their attributes are no
        plan's to read."""
        self.types: dict[str, list[Ty | None]] = {}
        self.call_funcs: set[int] = set()
        """``id`` of every called expression (``f`` of ``f(...)``)."""
        self.assigned_anywhere: set[str] = set()
        self.notes: list[str] = []
        """Where a value's type is not known, so its attributes are checked only when the plan runs."""
        self.name_types: dict[int, Ty | None] = {}
        """The type of each use of a comprehension's variable inside it, by ``id`` of the ``Name``."""
        self._local: dict[str, Ty | None] = {}
        """A comprehension's variable while its element is typed (:meth:`infer` of a ``ListComp``)."""

    def infer(self, node: ast.AST) -> Ty | None:
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Name) and f.id in self.tools:
                return Ty(self.tools[f.id].output_schema, f"the output of {f.id}()")
            if isinstance(f, ast.Name) and f.id == "ask_human":
                return Ty(STR, "the answer of ask_human()")
            return None
        if isinstance(node, ast.Constant):
            kinds = {str: (STR, "a str"), int: (INT, "an int"), float: (NUMBER, "a float")}
            found = kinds.get(type(node.value))
            return Ty(*found) if found is not None else None
        if isinstance(node, ast.JoinedStr):
            return Ty(STR, "an f-string")
        if isinstance(node, ast.List) and not node.elts:
            return Ty({"type": "array"}, "a list")
        if isinstance(node, ast.Dict):
            return Ty(DICT, "a dict")
        if isinstance(node, ast.Name):
            if node.id in self._local:
                return self._local[node.id]
            if id(node) in self.name_types:
                return self.name_types[id(node)]
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
            if scalar_types(base.schema) == (str,):
                return Ty(STR, f"a part of {base.desc}")
            props = props_of(base.schema)
            key = node.slice
            if props is not None and isinstance(key, ast.Constant) and isinstance(key.value, str):
                sub = props.get(key.value)
                if isinstance(sub, Mapping):
                    return Ty(sub, f"{base.desc}.{key.value}")
            return None
        if isinstance(node, ast.Call):
            return self.infer_call(node)
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            if not isinstance(gen.target, ast.Name):
                return None
            if isinstance(node.elt, ast.Name) and node.elt.id == gen.target.id:
                inner = self.infer(gen.iter)  # a filter keeps the element type
                return inner if inner is not None and is_array(inner.schema) else None
            saved = self._local.get(gen.target.id, MISSING)
            self._local[gen.target.id] = self.iter_element(gen.iter)
            try:
                elt = self.infer(node.elt)
            finally:
                if saved is MISSING:
                    del self._local[gen.target.id]
                else:
                    self._local[gen.target.id] = saved  # type: ignore[assignment]
            return Ty({"type": "array", "items": elt.schema}, f"a list of {elt.desc}") if elt is not None else None
        if isinstance(node, ast.IfExp):
            if isinstance(node.orelse, ast.Constant) and node.orelse.value is None:
                return self.infer(node.body)
            return None
        return None

    def infer_call(self, node: ast.Call) -> Ty | None:
        """The type of a builtin's or a method's result, where it follows from its argument's."""
        f = node.func
        if isinstance(f, ast.Name):
            if f.id == "str":
                return Ty(STR, "a str")
            if f.id in ("len", "int") and len(node.args) == 1:
                return Ty(INT, "an int")
            if len(node.args) != 1:
                return None
            inner = self.infer(node.args[0])
            if inner is None or not is_array(inner.schema):
                return None
            if f.id in ("sorted", "list", "reversed"):
                return inner
            if f.id in ("min", "max") and not node.keywords:
                return element_of(inner)
            return None
        if isinstance(f, ast.Attribute):
            base = self.infer(f.value)
            if base is None:
                return None
            props = props_of(base.schema)
            if props is not None and f.attr == "get" and node.args and isinstance(node.args[0], ast.Constant):
                key, rest = node.args[0].value, node.args[1:]
                no_default = not rest or (isinstance(rest[0], ast.Constant) and rest[0].value is None)
                if isinstance(key, str) and isinstance(props.get(key), Mapping) and no_default and len(rest) <= 1:
                    return Ty(props[key], f"{base.desc}.{key}")
                return None
            if scalar_types(base.schema) == (str,):
                if f.attr in _STR_TO_STR:
                    return Ty(STR, f"{base.desc}.{f.attr}()")
                if f.attr in _STR_TO_LIST:
                    return Ty({"type": "array", "items": STR}, f"{base.desc}.{f.attr}()")
        return None

    def iter_element(self, it: ast.expr) -> Ty | None:
        """The type of what a loop over ``it`` gives: a list's item, a record's field names, a str's characters."""
        ty = self.infer(it)
        if ty is None:
            return None
        if is_array(ty.schema):
            return element_of(ty)
        if props_of(ty.schema) is not None:
            return Ty(STR, f"a field name of {ty.desc}", keys_of=(ty, ast.unparse(it)))
        if scalar_types(ty.schema) == (str,):
            return Ty(STR, f"a character of {ty.desc}")
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

    def loop_targets(self, target: ast.AST, it: ast.expr) -> dict[str, Ty | None]:
        """The names a loop ``for target in it`` binds, with their types (``enumerate`` followed)."""
        if (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "enumerate"
            and it.args
        ):
            index, item = target.elts
            out: dict[str, Ty | None] = {index.id: Ty(INT, "an index")} if isinstance(index, ast.Name) else {}
            if isinstance(item, ast.Name):
                out[item.id] = self.iter_element(it.args[0])
            else:
                out.update({n.id: None for n in ast.walk(item) if isinstance(n, ast.Name)})
            return out
        if isinstance(target, ast.Name):
            return {target.id: self.iter_element(it)}
        return {n.id: None for n in ast.walk(target) if isinstance(n, ast.Name)}

    def bind_loop(self, target: ast.AST, it: ast.expr) -> None:
        for name, ty in self.loop_targets(target, it).items():
            self.bind(ast.Name(id=name), ty)

    def collect(self, nodes: list[ast.AST]) -> None:
        """Flow-insensitive: every name gets the types of everything assigned to it, in source order."""
        for node in nodes:
            cls = type(node)
            if cls is ast.Assign:
                assert isinstance(node, ast.Assign)
                ty = self.infer(node.value)
                for t in node.targets:
                    self.bind(t, ty)
            elif cls is ast.For:
                assert isinstance(node, ast.For)
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
        self.scope_comprehensions(nodes)

    def scope_comprehensions(self, nodes: list[ast.AST]) -> None:
        """A comprehension's variables live in the comprehension (as in Python 3): each of their uses there
        gets the type of what the comprehension loops over, whatever the same name is outside.

        Outer comprehensions come first in ``nodes`` (``ast.walk`` order), so an inner one that reuses a
        name has the last word on its own uses.
        """
        for node in nodes:
            if not isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
                continue
            parts: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for i, gen in enumerate(node.generators):
                scope = self.loop_targets(gen.target, gen.iter)
                inside = [*gen.ifs, *(g for later in node.generators[i + 1:] for g in (later.iter, *later.ifs)), *parts]
                for sub in inside:
                    for n in ast.walk(sub):
                        if isinstance(n, ast.Name) and n.id in scope:
                            self.name_types[id(n)] = scope[n.id]

    def check_attribute(self, node: ast.Attribute) -> None:  # noqa: C901 - one case per kind of value
        """``unknown-field`` for ``x.name`` when the guard would refuse it: a field ``x``'s schema lacks, an
        attribute of a list or a str (a loop over a record gives its field names) it does not allow."""
        if node.attr.startswith("_") or node.attr in FORBIDDEN_ATTRIBUTES:
            return  # the sandbox reports it
        if (isinstance(node.value, ast.Name) and node.value.id in self.functions and node.value.id not in self.types
                and id(node.value) not in self.name_types):
            name = node.value.id  # `str.lower`, `list_stores.x`: the guard lets a plan read attributes of values only
            self.report(UnknownField.at(node, f"`{name}.{node.attr}`: {name} is a function, and a plan cannot read its "
                                              f"attributes; call a method on a value instead (`x.{node.attr}(...)`)"))
            return
        base = self.infer(node.value)
        if base is None:
            if isinstance(node.value, ast.Name) and (node.value.id in self.types or id(node.value) in self.name_types):
                self.notes.append(f"line {node.lineno}: the type of `{node.value.id}` is not known here, so "
                                  f"`.{node.attr}` is checked only when the plan runs")
            return
        props = props_of(base.schema)
        if props is not None and node.attr in props and id(node) in self.call_funcs:
            self.report(UnknownField.at(node, self._called_field(base, ast.unparse(node.value), node.attr)))
            return
        if props is not None and (node.attr in props or node.attr in RESULT_ATTRS):
            return  # the common case, before the source text a message would quote
        if props is None and id(node) in self.call_funcs and node.attr in self._methods(base):
            return
        src = ast.unparse(node.value)
        if props is None and id(node) not in self.call_funcs and node.attr in self._methods(base):
            self.report(UnknownField.at(node, f"`{src}.{node.attr}` is a method of {self._what(base, src)}, not a field: "
                                              f"call it (`{src}.{node.attr}()`) or read a field of a record instead"))
        elif props is not None:
            if node.attr not in props and node.attr not in RESULT_ATTRS:
                hint = self._list_field_hint(base, src, node.attr)
                self.report(UnknownField.at(node, f"{base.desc} has no field {node.attr!r}; it is {shape(base.schema)}{hint}"))
        elif is_array(base.schema):
            if node.attr not in LIST_ATTRS:
                item = element_of(base)
                has = item is not None and node.attr in (props_of(item.schema) or {})
                hint = (f"; each item has it: take one (`{_paren(src)}[0].{node.attr}`) or loop over them "
                        f"(`for x in {src}: ... x.{node.attr}`)") if has else "; index it or loop over it"
                self.report(UnknownField.at(node, f"{base.desc} is a list, it has no field {node.attr!r}{hint}"))
        elif base.schema is DICT or base.schema == DICT:
            if node.attr not in ALLOWED_ATTRIBUTES[dict]:
                self.report(UnknownField.at(node, f"`{src}` is a dict, and a plan cannot read {node.attr!r} of it; "
                                                  f"write `{src}[\"{node.attr}\"]` for its item"))
        else:
            types = scalar_types(base.schema)
            if types is not None and node.attr not in allowed_on(types):
                self.report(UnknownField.at(node, self._scalar_message(base, src, node.attr)))

    def value_class(self, f: ast.Attribute) -> type | None:
        """The class whose method ``f`` (``x.split`` of ``x.split(...)``) the guard calls, when ``x``'s type is known
        and the method one it allows: a record's (``Record.get``), a list's, a dict's the plan made, a str's..."""
        base = self.infer(f.value)
        if base is None:
            return None
        props = props_of(base.schema)
        if props is not None:
            return Record if f.attr in RESULT_ATTRS and f.attr not in props else None
        if is_array(base.schema):
            return list if f.attr in LIST_ATTRS else None
        if base.schema == DICT:
            return dict if f.attr in ALLOWED_ATTRIBUTES[dict] else None
        types = scalar_types(base.schema)
        if types is not None and len(set(types)) == 1 and f.attr in allowed_on(types):
            return types[0]
        return None

    @staticmethod
    def _called_field(base: Ty, src: str, attr: str) -> str:
        """``x.items()`` of a record with a field ``items``: the guard reads the field (a field comes before a
        method of the same name), so the call is of the field's value, which it refuses."""
        field = props_of(base.schema)[attr]  # type: ignore[index]
        hides = f"; the field hides the record's method {attr}()" if attr in RESULT_ATTRS else ""
        return (f"`{src}.{attr}` is a field of {base.desc} ({shape(field)}), not a method, so `{src}.{attr}(...)` "
                f"calls a value{hides}: read it without parentheses, `{_paren(src)}.{attr}`")

    @staticmethod
    def _methods(base: Ty) -> frozenset[str]:
        """The methods the guard lets a plan call on a value of ``base`` (not a record)."""
        if is_array(base.schema):
            return LIST_ATTRS
        if base.schema == DICT:
            return ALLOWED_ATTRIBUTES[dict]
        types = scalar_types(base.schema)
        return allowed_on(types) if types is not None else frozenset()

    @staticmethod
    def _what(base: Ty, src: str) -> str:
        if base.keys_of is not None:
            return f"a str (`{src}` is a field name: looping over {base.keys_of[0].desc} goes over its field names)"
        return "a list" if is_array(base.schema) else ("a dict" if base.schema == DICT else _kind(base.schema))

    def _list_field_hint(self, base: Ty, src: str, attr: str) -> str:
        """``; its list field items has it: ...`` when the record's one list field's items have field ``attr``."""
        props = props_of(base.schema) or {}
        for name, sub in props.items():
            item = element_of(Ty(sub, "")) if isinstance(sub, Mapping) else None
            if item is not None and attr in (props_of(item.schema) or {}):
                return f"; the items of its list field `{name}` have it: loop over `{_paren(src)}.{name}`"
        return ""

    def _scalar_message(self, base: Ty, src: str, attr: str) -> str:
        if base.keys_of is not None:
            record, it = base.keys_of
            props = props_of(record.schema) or {}
            lists = [k for k, v in props.items() if isinstance(v, Mapping) and is_array(v)]
            hint = (f"loop over its list field instead: `for {src} in {_paren(it)}.{lists[0]}`" if lists
                    else "read its fields by name instead")
            return (f"`{src}` is a str, a field name: looping over {record.desc} goes over its field names "
                    f"({', '.join(props) or 'none'}), not over the items of a list, and a str has no attribute {attr!r}; "
                    f"{hint}; {record.desc} is {shape(record.schema)}")
        what = f"`{src}`" if base.desc.startswith(("a ", "an ")) and " of " not in base.desc else f"`{src}` ({base.desc})"
        return f"{what} is {_kind(base.schema)}, and a plan cannot read {attr!r} of it"

    def check_iterating_call(self, node: ast.Call) -> None:
        """``unknown-field`` for ``sorted(stores)``, ``len(stores)``, ``list(stores)``... of a tool's record with a
        list field: a builtin that iterates a record goes over its field names (``['items']``), not the list."""
        f = node.func
        if not isinstance(f, ast.Name) or f.id not in _ITERATING_BUILTINS or f.id in self.types:
            return
        for arg in node.args:
            base = self.infer(arg)
            props = props_of(base.schema) if base is not None else None
            if base is None or props is None:
                continue
            lists = [k for k, v in props.items() if isinstance(v, Mapping) and is_array(v)]
            if not lists:
                continue
            src = ast.unparse(arg)
            self.report(UnknownField.at(arg, (
                f"`{f.id}({src})` goes over the field names of {base.desc} ({', '.join(props)}), not over a list; "
                f"pass its list field: `{f.id}({_paren(src)}.{lists[0]})`; {base.desc} is {shape(base.schema)}")))

    def check_subscript(self, node: ast.Subscript) -> None:
        """``unknown-field`` for ``x["name"]`` when ``x``'s schema has no field ``name``; an index of a record."""
        key = node.slice
        base = self.infer(node.value)
        if base is None:
            return
        props = props_of(base.schema)
        if props is None:
            return
        src = ast.unparse(node.value)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            if key.value.startswith("__"):
                return
            if props is not None and key.value not in props:
                self.report(UnknownField.at(node, f"{base.desc} has no field {key.value!r}; it is {shape(base.schema)}"))
        elif props is not None and (isinstance(key, ast.Slice) or (isinstance(key, ast.Constant) and type(key.value) is int)):
            lists = [k for k, v in props.items() if isinstance(v, Mapping) and is_array(v)]
            hint = f"; index its list field: `{_paren(src)}.{lists[0]}[...]`" if lists else ""
            self.report(UnknownField.at(node, f"{base.desc} is a record, not a list{hint}; it is {shape(base.schema)}"))
