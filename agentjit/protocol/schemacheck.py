"""JSON Schemas from cache files are data in a closed world.

A tool cache is shared, checked into repositories and downloaded, so its
schemas are untrusted input, checked when a manifest is loaded
(:func:`check_schema`):

* references are local: ``$ref`` (and ``$dynamicRef``) must be a ``#...``
  fragment of the same schema, ``$id`` is refused and ``$schema`` must name a
  known draft, so there is nothing to fetch; on top of that every validator is
  compiled with a retriever that refuses every URI (``http://``, ``file://``),
  whatever the walk might miss;
* regular expressions (``pattern``, ``patternProperties``) run on the
  linear-time engine of ``jsonschema-rs`` (Rust's ``regex`` crate), in
  validation and in the explanation of a failure alike: ``^(a+)+$`` against a
  40-character argument answers in microseconds, and a pattern that needs
  backtracking (lookaround, backreferences) is refused when the cache loads.

:func:`compiled` is the one place validators are made
(:mod:`agentjit.protocol.schema` validates with them, the checker too).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import jsonschema_rs

__all__ = ["check_schema", "compiled", "schema_key"]


_DRAFTS = frozenset({
    "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
})
"""The ``$schema`` values a manifest may name (with or without a trailing ``#``): built into the validator."""

_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SCHEMA_ONE = frozenset({
    "not", "if", "then", "else", "items", "additionalItems", "additionalProperties", "contains", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema",
})
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")

_REGEX = jsonschema_rs.RegexOptions(size_limit=1 << 20, dfa_size_limit=1 << 22)
"""The linear-time engine, with compiled patterns bounded (a pattern of a megabyte is refused)."""


def _no_retrieval(uri: str) -> Any:
    raise ValueError(f"{uri!r} is outside the schema: a cache's schemas may only refer to '#/...' inside themselves")


def _subschemas(schema: dict[str, Any], where: str) -> Iterator[tuple[Any, str]]:
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            yield from ((sub, f"{where}/{key}/{name}") for name, sub in value.items())
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            yield from ((sub, f"{where}/{key}/{i}") for i, sub in enumerate(value))
        elif key in _SCHEMA_ONE:
            yield value, f"{where}/{key}"


def _closed_world(schema: dict[str, Any]) -> None:
    """Refuse what would make validation reach outside the schema, naming the place (a JSON pointer)."""
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, where = stack.pop()
        if not isinstance(node, dict):
            continue
        here = where or "/"
        for key in _REFS:
            ref = node.get(key)
            if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
                raise ValueError(f"{here}: {key} {ref!r} refers outside the schema "
                                 "(only local references, '#/$defs/...', are allowed)")
        if "$id" in node:
            raise ValueError(f"{here}: $id is not allowed (a tool's schema is one document with local references)")
        meta = node.get("$schema")
        if meta is not None and (not isinstance(meta, str) or meta.rstrip("#") not in _DRAFTS):
            raise ValueError(f"{here}: unknown $schema {meta!r} (a JSON Schema draft URI, or none)")
        stack.extend(_subschemas(node, where))


@functools.lru_cache(maxsize=1024)
def compiled(schema_json: str) -> Any:
    """The validator of a schema (given as :func:`schema_key`'s canonical JSON), compiled once."""
    return jsonschema_rs.validator_for(json.loads(schema_json), retriever=_no_retrieval, pattern_options=_REGEX)


def check_schema(schema: dict[str, Any]) -> None:
    """Raise ``ValueError`` (naming the place) unless ``schema`` is a valid JSON Schema in the closed
    world: local references that resolve, patterns the linear-time engine runs, nothing to fetch."""
    _closed_world(schema)  # first: the meta-schema check must not be what follows a $schema
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as exc:
        at = "/" + "/".join(str(p) for p in exc.instance_path)
        raise ValueError(f"not a valid JSON Schema at {at}: {_first_line(exc)}") from None
    try:
        compiled(schema_key(schema))
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        raise ValueError(f"cannot be used: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    if '"regex"' in line:
        line += " (lookaround and backreferences are not allowed: patterns run on a linear-time engine)"
    return line if len(line) <= 300 else line[:300] + "..."


_KEYS: dict[int, tuple[dict[str, Any], str]] = {}


def schema_key(schema: dict[str, Any]) -> str:
    """The canonical JSON of ``schema``, computed once per schema object (manifests keep theirs)."""
    hit = _KEYS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = json.dumps(schema, sort_keys=True)
    if len(_KEYS) > 4096:
        _KEYS.clear()
    _KEYS[id(schema)] = (schema, key)
    return key
