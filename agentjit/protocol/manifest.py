"""Tool manifests: the invariant-enforcing tool protocol as pydantic models.

A manifest carries everything the planner, the checker, the scheduler and the
runtime need about one website tool (DESIGN.md section 3)::

    name, description, type, input_schema, output_schema,
    pre, post, pre_check, execute, post_check, pre_tools, effect, elements, version

``pre_check``, ``execute`` and ``post_check`` are JavaScript *function bodies*
run in the page; ``inputs`` is in scope in all three (and each input also as a
bare name), ``post_check`` also sees ``output`` (what ``execute`` returned).
A check returns ``true`` when it holds, or ``false`` / ``[false, "reason"]``.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentjit.exceptions import ManifestError

from . import jsonio
from .schemacheck import check_schema

__all__ = ["Effect", "ToolType", "ToolManifest", "load_manifest", "parse_manifest"]


class Effect(StrEnum):
    """READ calls may be repeated, reordered, parallelized and hedged; WRITEs happen once."""

    READ = "READ"
    WRITE = "WRITE"


class ToolType(StrEnum):
    OBSERVE = "observe"
    LIST_ITEMS = "listItems"
    GET_FIELDS = "getFields"
    SET_FILTER = "setFilter"
    SET_FIELDS = "setFields"
    GOTO_ITEM = "gotoItem"
    GOTO_FIELD = "gotoField"


_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


class ToolManifest(BaseModel):
    """One protocol-compliant website tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    description: str
    type: ToolType
    input_schema: dict[str, Any] = Field(default_factory=lambda: dict(_EMPTY_OBJECT))
    output_schema: dict[str, Any] = Field(default_factory=lambda: dict(_EMPTY_OBJECT))
    pre: dict[str, Any] = Field(default_factory=dict)
    post: dict[str, Any] = Field(default_factory=dict)
    pre_check: str = "return true;"
    execute: str
    post_check: str = "return true;"
    pre_tools: dict[str, list[str]] = Field(default_factory=dict)
    effect: Effect = Effect.READ
    elements: list[str] = Field(default_factory=list)
    version: int = 1
    navigates: bool = False
    """True when ``execute`` leaves the current document (a link click, a form post)."""
    timeout_ms: int = 10_000
    """How long pre_check / post_check may poll, and how long a navigation may take."""

    @field_validator("input_schema", "output_schema")
    @classmethod
    def _valid_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        check_schema(schema)  # the closed world: local references, linear-time patterns, nothing fetched
        if schema.get("type", "object") != "object":
            raise ValueError("must describe an object (type: object)")
        return schema

    @field_validator("pre", "post")
    @classmethod
    def _valid_state(cls, pattern: dict[str, Any]) -> dict[str, Any]:
        for key, value in pattern.items():
            if not isinstance(value, str | int | float | bool) and value is not None:
                raise ValueError(f"state key {key!r}: a pattern must be a string, number, bool or null")
        return pattern

    @property
    def parameters(self) -> dict[str, Any]:
        return dict(self.input_schema.get("properties", {}))

    @property
    def required(self) -> list[str]:
        return list(self.input_schema.get("required", []))

    @property
    def is_write(self) -> bool:
        return self.effect is Effect.WRITE

    @property
    def secret_inputs(self) -> list[str]:
        """The inputs marked ``writeOnly`` (a password, a card number): given at call time, never stored."""
        return [name for name, spec in self.parameters.items() if isinstance(spec, dict) and spec.get("writeOnly")]


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "<root>"


def parse_manifest(data: Any, *, source: str | None = None) -> ToolManifest:
    """Validate one manifest from already-parsed JSON; errors name ``source`` and the field.

    A manifest file must spell out ``input_schema``, even an empty one: only
    manifests built in Python may leave it to the default.
    """
    if not isinstance(data, dict):
        raise ManifestError("a manifest must be a JSON object", path=source)
    if "input_schema" not in data:  # a default would hide a typo ("inputs", "input_scheme")
        raise ManifestError(
            'required (a tool without inputs has {"type": "object", "properties": {}})', path=source, field="input_schema"
        )
    try:
        return ToolManifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field_path(first["loc"])
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ManifestError(first["msg"] + more, path=source, field=field) from None


def load_manifest(path: str | Path, *, within: str | Path | None = None) -> ToolManifest:
    """Read and validate ``path``; a bad file raises :class:`ManifestError` naming it.

    The file must be a regular file of bounded size (with ``within``, one inside that directory:
    a cache's ``tools/x.json`` that links to ``/etc/passwd`` or ``/dev/zero`` is refused unread)."""
    p = Path(path)
    try:
        text = jsonio.read_text(p, within=within)
    except OSError as exc:
        raise ManifestError(f"cannot read: {exc.strerror}", path=str(p)) from exc
    except UnicodeDecodeError as exc:
        raise ManifestError(f"not UTF-8 text (byte {exc.start}): {exc.reason}", path=str(p)) from exc
    try:
        data = jsonio.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path=str(p)) from exc
    return parse_manifest(data, source=str(p))
