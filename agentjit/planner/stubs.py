"""Python stubs of a cache's tools, for the plan prompt.

From each manifest: pydantic model classes for the output (nested objects and
arrays of objects become their own classes) and an ``async def`` stub with
typed parameters and a docstring that states the precondition, the
postcondition, the effect and the producer tools of each input (``pre_tools``).
The model never runs this code; it reads it as the API it may call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from agentjit.plan.signatures import PLAN_FUNCTIONS
from agentjit.protocol.manifest import ToolManifest

__all__ = ["camel", "output_models_source", "tool_stub", "builtins_stub", "render_stubs"]

_SCALAR = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


class _ModelWriter:
    """Emits class definitions, innermost first, so each name is defined before use."""

    def __init__(self) -> None:
        self.classes: list[str] = []

    def annotation(self, schema: Mapping[str, Any], name: str) -> str:
        typ = schema.get("type")
        if isinstance(typ, list):
            parts = [self.annotation({**schema, "type": t}, name) for t in typ]
            return " | ".join(dict.fromkeys(parts))
        if typ == "object" and isinstance(schema.get("properties"), Mapping):
            return self.model(schema, name)
        if typ == "array":
            items = schema.get("items")
            inner = self.annotation(items, name + "Item") if isinstance(items, Mapping) else "Any"
            return f"list[{inner}]"
        if typ == "object":
            return "dict[str, Any]"
        if isinstance(typ, str) and typ in _SCALAR:
            return _SCALAR[typ]
        if "enum" in schema:
            return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
        return "Any"

    def model(self, schema: Mapping[str, Any], name: str) -> str:
        required = set(schema.get("required", []))
        lines = [f"class {name}(BaseModel):"]
        if schema.get("description"):
            lines.append(f'    """{schema["description"]}"""')
        props = schema.get("properties", {})
        for prop, sub in props.items():
            sub = sub if isinstance(sub, Mapping) else {}
            ann = self.annotation(sub, name.removesuffix("Output") + camel(prop))
            note = f"  # {sub['description']}" if sub.get("description") else ""
            if prop in required:
                lines.append(f"    {prop}: {ann}{note}")
            else:
                lines.append(f"    {prop}: {ann} | None = None{note}")
        if not props:
            lines.append("    pass")
        self.classes.append("\n".join(lines))
        return name


def output_models_source(tool: ToolManifest) -> tuple[str, str]:
    """``(source, class name)`` of the pydantic model(s) for ``tool``'s output."""
    writer = _ModelWriter()
    schema = dict(tool.output_schema)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    name = writer.model(schema, camel(tool.name) + "Output")
    return "\n\n".join(writer.classes), name


def _pattern(pattern: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in pattern.items()) or "none"


def tool_stub(tool: ToolManifest) -> str:
    """The output model(s) and the ``async def`` stub of one tool."""
    models, out_name = output_models_source(tool)
    params: list[str] = []
    required = set(tool.required)
    arg_docs: list[str] = []
    writer = _ModelWriter()
    for name, schema in tool.parameters.items():
        schema = schema if isinstance(schema, Mapping) else {}
        ann = writer.annotation(schema, camel(tool.name) + camel(name))
        params.append(f"{name}: {ann}" if name in required else f"{name}: {ann} | None = None")
        doc = schema.get("description", "")
        producers = tool.pre_tools.get(name)
        if producers:
            doc = (doc + " " if doc else "") + f"(take it from the output of {', '.join(producers)})"
        if doc:
            arg_docs.append(f"        {name}: {doc}")
    doc_lines = [
        f'    """{tool.description}',
        "",
        f"    pre:    {_pattern(tool.pre)}   (the STATE must guarantee this before the call)",
        f"    post:   {_pattern(tool.post)}   (the STATE after the call)",
        f"    effect: {tool.effect.value}" + ("   (changes the site; runs once)" if tool.is_write else ""),
    ]
    if arg_docs:
        doc_lines += ["    args:", *arg_docs]
    doc_lines.append('    """')
    stub = f"async def {tool.name}({', '.join(params)}) -> {out_name}:\n" + "\n".join(doc_lines) + "\n    ..."
    parts = [p for p in ("\n\n".join(writer.classes), models, stub) if p]
    return "\n\n".join(parts)


def builtins_stub() -> str:
    """The stubs of ``ai_eval`` and ``ask_human``, from the signature table the runtime binds by."""
    return "\n\n\n".join(PLAN_FUNCTIONS[name].stub() for name in ("ai_eval", "ask_human"))


def render_stubs(tools: Iterable[ToolManifest], *, ordered: bool = False, builtins: bool = True) -> str:
    """Every tool's stub (by name, or in the given order when ``ordered``), then the plan builtins, as one
    Python block."""
    head = "from typing import Any, Literal\nfrom pydantic import BaseModel"
    body = [tool_stub(t) for t in (tools if ordered else sorted(tools, key=lambda t: t.name))]
    return "\n\n\n".join([head, *body, *([builtins_stub()] if builtins else [])])
