"""JSON from files agentjit did not write (histories, scripts, traces, caches), bounded in depth.

``json.loads`` recurses on nesting and raises RecursionError on a document
nested some thousands deep (``[[[[...]]]]``); code that walks the result may
recurse further still. :func:`loads` turns both into a
:class:`json.JSONDecodeError` (its subclass :class:`JSONTooDeep`), which every
reader already reports as "invalid JSON" naming the file.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JSONTooDeep", "loads", "depth_exceeds"]

MAX_JSON_DEPTH = 100
"""Deepest nesting of arrays and objects :func:`loads` accepts (real histories and traces reach ~10)."""


class JSONTooDeep(json.JSONDecodeError):
    """A JSON document nested more deeply than allowed (or than the parser can recurse)."""


def depth_exceeds(data: Any, max_depth: int) -> bool:
    """Whether ``data`` (parsed JSON) nests lists and dicts more than ``max_depth`` deep; iterative."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = [v for v in value.values() if isinstance(v, dict | list)]
        elif isinstance(value, list):
            children = [v for v in value if isinstance(v, dict | list)]
        else:
            continue
        if children:
            if depth >= max_depth:
                return True
            stack.extend((c, depth + 1) for c in children)
    return False


def loads(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)``, refusing documents nested more than ``max_depth`` deep.

    Raises :class:`json.JSONDecodeError` for invalid JSON and its subclass
    :class:`JSONTooDeep` for a too deeply nested one; never RecursionError.
    """
    doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(f"nested too deeply to parse (at most {max_depth} levels are allowed)", doc, 0) from None
    if depth_exceeds(data, max_depth):
        raise JSONTooDeep(f"nested more than {max_depth} levels deep", doc, 0)
    return data
