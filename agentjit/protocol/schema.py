"""JSON-Schema checks of tool inputs and outputs, and pydantic models built from schemas.

Validation is compiled once per schema: ``jsonschema-rs`` answers valid/invalid
in microseconds, and the ``jsonschema`` package explains an invalid value. :func:`output_model` turns a tool's
``output_schema`` into a pydantic model class so plans can write
``stores.items[0].name``; nested objects and arrays of objects become nested
models, optional properties default to ``None``.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Mapping
from typing import Any

import jsonschema
import jsonschema_rs
from pydantic import BaseModel, ConfigDict, create_model

from agentjit.exceptions import ToolInputError, ToolOutputError

from .manifest import ToolManifest

__all__ = ["validate_inputs", "validate_output", "output_model", "to_output_object", "ToolResult", "to_plain"]


class ToolResult(BaseModel):
    """Base of every generated output model: unknown fields are kept, not dropped."""

    model_config = ConfigDict(extra="allow", frozen=False)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


@functools.lru_cache(maxsize=512)
def _validator(schema_json: str) -> jsonschema.protocols.Validator:
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=512)
def _fast_validator(schema_json: str) -> Any:
    """A compiled jsonschema-rs validator for the fast yes/no, or None for a schema it does not take."""
    try:
        return jsonschema_rs.validator_for(json.loads(schema_json))
    except Exception:  # an exotic schema: the pure-Python validator alone decides
        return None


_KEYS: dict[int, tuple[dict[str, Any], str]] = {}


def _schema_key(schema: dict[str, Any]) -> str:
    """The canonical JSON of ``schema``, computed once per schema object (manifests keep theirs)."""
    hit = _KEYS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = json.dumps(schema, sort_keys=True)
    if len(_KEYS) > 4096:
        _KEYS.clear()
    _KEYS[id(schema)] = (schema, key)
    return key


def _errors(schema: dict[str, Any], value: Any) -> list[str]:
    """Schema errors of ``value``: a compiled validator says yes fast; ``jsonschema`` explains a no."""
    key = _schema_key(schema)
    fast = _fast_validator(key)
    if fast is not None:
        try:
            if fast.is_valid(value):
                return []
        except Exception:  # a value it cannot take (a non-JSON type): let jsonschema judge
            pass
    validator = _validator(key)
    out = []
    for err in sorted(itertools.islice(validator.iter_errors(value), _MAX_ERRORS),
                      key=lambda e: [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path]):
        where = ".".join(str(p) for p in err.absolute_path) or "<root>"
        message = err.message  # quotes the value: a plan's ten-megabyte argument would be the error text
        out.append(f"{where}: {message if len(message) <= _MAX_ERROR_CHARS else message[:_MAX_ERROR_CHARS] + '...'}")
    return out


_MAX_ERRORS = 20
_MAX_ERROR_CHARS = 300


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
