"""JSON-Schema checks of tool inputs and outputs, and pydantic models built from schemas.

A tool's schemas come from a cache file, which anybody may have written: they are
compiled by :mod:`agentjit.protocol.schemacheck`, in a closed world (local
references only, nothing fetched, linear-time patterns). One engine validates
and explains: a validator is compiled once per schema and answers
valid/invalid in microseconds; for an invalid value its errors (at most
:data:`_MAX_ERRORS`, each cut to :data:`_MAX_ERROR_CHARS`) are the message.
:func:`output_model` turns a tool's ``output_schema`` into a pydantic model
class so plans can write ``stores.items[0].name``; nested objects and arrays of
objects become nested models, optional properties default to ``None``.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from agentjit.exceptions import ToolInputError, ToolOutputError

from .manifest import ToolManifest
from .schemacheck import check_schema, compiled, schema_key

__all__ = [
    "validate_inputs", "validate_output", "argument_error", "check_schema", "output_model", "to_output_object",
    "ToolResult", "to_plain",
]


class ToolResult(BaseModel):
    """Base of every generated output model: unknown fields are kept, not dropped."""

    model_config = ConfigDict(extra="allow", frozen=False)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


_MAX_ERRORS = 20
_MAX_ERROR_CHARS = 300


def _path_key(path: list[str | int]) -> list[tuple[int, int, str]]:
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in path]


def _errors(schema: dict[str, Any], value: Any, *, under: str | None = None) -> list[str]:
    """Schema errors of ``value`` (only those at or below the property ``under``, when given)."""
    validator = compiled(schema_key(schema))
    plain = value
    try:
        try:
            if validator.is_valid(plain):
                return []
        except ValueError:  # a plan's Record or a tool result: as plain data (still not JSON: below)
            plain = to_plain(value)
            if validator.is_valid(plain):
                return []
        found = itertools.islice(
            (e for e in validator.iter_errors(plain) if under is None or e.instance_path[:1] == [under]), _MAX_ERRORS)
        errors = sorted(found, key=lambda e: _path_key(list(e.instance_path)))
    except ValueError as exc:  # a value that is not JSON data (a set, an object)
        return [f"<root>: not JSON data ({exc})"]
    out = []
    for err in errors:
        where = ".".join(str(p) for p in err.instance_path) or "<root>"
        out.append(f"{where}: {_short(err.message, err.instance)}")
    return out


def _short(message: str, value: Any) -> str:
    """``message`` cut to :data:`_MAX_ERROR_CHARS`: it quotes the value, and a plan's ten-megabyte
    argument would be the error text. A long quoted value is cut first, so what is wrong stays."""
    if len(message) > _MAX_ERROR_CHARS and isinstance(value, str | list | dict):
        for quoted in {json.dumps(value), json.dumps(value, ensure_ascii=False)}:
            if quoted in message:
                message = message.replace(quoted, quoted[:60] + "...", 1)
                break
    return message if len(message) <= _MAX_ERROR_CHARS else message[:_MAX_ERROR_CHARS] + "..."


def argument_error(tool: ToolManifest, name: str, value: Any) -> str | None:
    """Why ``value`` is not a valid argument ``name`` of ``tool`` (the first error), or None.

    Checked against the whole input schema, so a property's local ``$ref`` resolves."""
    errors = _errors(tool.input_schema, {name: value}, under=name)
    return errors[0].split(": ", 1)[1] if errors else None


def validate_inputs(tool: ToolManifest, args: dict[str, Any]) -> None:
    """Raise :class:`ToolInputError` when ``args`` break the tool's input schema."""
    errors = _errors(tool.input_schema, args)
    if errors:
        raise ToolInputError(f"{tool.name}: bad arguments: " + "; ".join(errors))


def validate_output(tool: ToolManifest, output: Any) -> None:
    """Raise :class:`ToolOutputError` when ``output`` breaks the tool's output schema."""
    errors = _errors(tool.output_schema, output)
    if errors:
        raise ToolOutputError("output does not match output_schema: " + "; ".join(errors), tool=tool.name)


_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


def _annotation(schema: dict[str, Any], name: str) -> Any:
    typ = schema.get("type")
    if isinstance(typ, list):
        non_null = [t for t in typ if t != "null"]
        inner = _annotation({**schema, "type": non_null[0]}, name) if len(non_null) == 1 else Any
        return inner | None if "null" in typ else inner
    if typ == "object" and "properties" in schema:
        return _model(json.dumps(schema, sort_keys=True), name)
    if typ == "array":
        items = schema.get("items", {})
        return list[_annotation(items, name + "Item") if isinstance(items, dict) else Any]  # type: ignore[misc]
    if typ == "object":
        return dict[str, Any]
    if typ in _SCALARS:
        # integers are valid numbers: keep JSON's 3 as 3, not 3.0
        return int | float if typ == "number" else _SCALARS[typ]
    return Any


@functools.lru_cache(maxsize=512)
def _model(schema_json: str, name: str) -> type[ToolResult]:
    schema = json.loads(schema_json)
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for prop, sub in schema.get("properties", {}).items():
        ann = _annotation(sub if isinstance(sub, dict) else {}, name + _camel(prop))
        if prop in required:
            fields[prop] = (ann, ...)
        else:
            fields[prop] = (ann | None, None)
    return create_model(name, __base__=ToolResult, **fields)


def output_model(tool: ToolManifest) -> type[ToolResult]:
    """The pydantic model of ``tool``'s output (``ListStoresOutput`` for ``list_stores``)."""
    schema = dict(tool.output_schema)
    schema.setdefault("properties", {})
    return _model(json.dumps(schema, sort_keys=True), _camel(tool.name) + "Output")


def to_output_object(tool: ToolManifest, output: Any) -> ToolResult:
    """Validate ``output`` against the schema and wrap it in the tool's output model."""
    if output is None:
        output = {}
    validate_output(tool, output)
    try:
        return output_model(tool).model_validate(output)
    except Exception as exc:  # pydantic ValidationError on exotic schemas
        raise ToolOutputError(f"output cannot be wrapped: {exc}", tool=tool.name) from exc


def to_plain(value: Any, *, stringify: bool = False) -> Any:
    """``value`` as plain JSON-shaped data: pydantic models (tool results) become dicts, tuples
    become lists, containers are converted all the way down.

    With ``stringify``, anything that is still not JSON (a set, an object) becomes its ``str``.
    """
    if isinstance(value, BaseModel):
        return to_plain(value.model_dump(mode="json"), stringify=stringify)
    if isinstance(value, Mapping) and not isinstance(value, dict):  # a plan's Record
        value = dict(value.items())
    if isinstance(value, list | tuple):
        return [to_plain(v, stringify=stringify) for v in value]
    if isinstance(value, dict):
        return {(str(k) if stringify else k): to_plain(v, stringify=stringify) for k, v in value.items()}
    if stringify and not (value is None or isinstance(value, str | int | float | bool)):
        return str(value)
    return value
