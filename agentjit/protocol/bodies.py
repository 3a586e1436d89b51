"""A request body's parameters, as a demonstration's trace keeps the body (``post_data``): form fields, url-encoded
or multipart, or a JSON body flattened to key paths. The builder's verifier and heal match a tool's request against
its recorded one by them (``toolcache.recorded``); the runtime checks by them that a WRITE's request carried what
the call gave it (:func:`agentjit.runtime.healing.inputs_not_carried`)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["request_params", "scalar_text"]


def _flatten(value: Any, prefix: str, out: dict[str, list[str]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}[{i}]", out)
    else:
        out.setdefault(prefix, []).append(scalar_text(value))


def scalar_text(value: Any) -> str:
    """A scalar as a body carries it: strings as they are, numbers and booleans as JSON writes them."""
    return value if isinstance(value, str) else json.dumps(value)


_PART_NAME = re.compile(r'\bname="([^"]*)"(?:;\s*filename="([^"]*)")?', re.IGNORECASE)


def _multipart(body: str) -> list[tuple[str, str]]:
    """The fields of a ``multipart/form-data`` body (its first line is the boundary); a file
    field's value is its file name."""
    boundary = body.split("\r\n", 1)[0].split("\n", 1)[0].strip()
    fields = []
    for part in body.split(boundary)[1:]:
        head, sep, value = part.partition("\r\n\r\n") if "\r\n\r\n" in part else part.partition("\n\n")
        m = _PART_NAME.search(head)
        if sep and m:
            fields.append((m.group(1), m.group(2) if m.group(2) is not None else value.removesuffix("\r\n").removesuffix("\n")))
    return fields


def request_params(body: str | None) -> dict[str, list[str]]:
    """A request body's parameters: a JSON body flattened to paths (``entries[0].narration``),
    else form fields (``title``, url-encoded or multipart); repeated fields keep every value, in order."""
    if not body:
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    out: dict[str, list[str]] = {}
    if isinstance(data, (dict, list)):
        _flatten(data, "", out)
        return out
    pairs = _multipart(body) if body.startswith("--") else parse_qsl(body, keep_blank_values=True)
    for key, value in pairs:
        out.setdefault(key, []).append(value)
    return out
