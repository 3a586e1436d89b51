"""Plan trees as JSON, with their line numbers, for the trip to the sandboxed child.

Only node types of the :mod:`ast` module travel; the child rebuilds them with
their positions, so its errors name the plan's own lines.
"""

from __future__ import annotations

import ast
from typing import Any

__all__ = ["dump", "load"]

_POS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def dump(node: Any) -> Any:
    """``node`` (an AST, a list of them, or a field value) as JSON-ready data."""
    if isinstance(node, ast.AST):
        out: dict[str, Any] = {"_": type(node).__name__}
        for field in node._fields:
            out[field] = dump(getattr(node, field, None))
        for attr in _POS:
            value = getattr(node, attr, None)
            if value is not None:
                out[attr] = value
        return out
    if isinstance(node, list):
        return [dump(x) for x in node]
    if isinstance(node, complex):
        return {"_complex": [node.real, node.imag]}
    if isinstance(node, bytes):
        return {"_bytes": node.decode("latin-1")}
    if node is Ellipsis:
        return {"_ellipsis": True}
    return node


def load(data: Any) -> Any:
    """The AST that :func:`dump` made ``data`` from."""
    if isinstance(data, list):
        return [load(x) for x in data]
    if isinstance(data, dict):
        if "_complex" in data:
            real, imag = data["_complex"]
            return complex(real, imag)
        if "_bytes" in data:
            return str(data["_bytes"]).encode("latin-1")
        if "_ellipsis" in data:
            return Ellipsis
        cls = getattr(ast, str(data["_"]), None)
        if not (isinstance(cls, type) and issubclass(cls, ast.AST)):
            raise ValueError(f"not an AST node type: {data['_']!r}")
        node = cls()
        for field in cls._fields:
            setattr(node, field, load(data.get(field)))
        for attr in _POS:
            if attr in data:
                setattr(node, attr, data[attr])
        return node
    return data
