"""JSON from files agentjit did not write (histories, scripts, traces, caches), bounded in depth.

``json.loads`` recurses on nesting and raises RecursionError on a document
nested some thousands deep (``[[[[...]]]]``); code that walks the result may
recurse further still. :func:`loads` turns both into a
:class:`json.JSONDecodeError` (its subclass :class:`JSONTooDeep`), which every
reader already reports as "invalid JSON" naming the file.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "MAX_FILE_BYTES", "JSONTooDeep", "UnsafeFile", "loads", "depth_exceeds", "read_text", "finite", "dumps"]

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


MAX_FILE_BYTES = 64 << 20
"""The largest file :func:`read_text` reads (a cache's biggest real file, a plan cache, is well under 1 MiB)."""


class UnsafeFile(OSError):
    """A file agentjit will not read: not a regular file, outside the directory it belongs to, or too large."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason


def read_text(path: str | Path, *, within: str | Path | None = None, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of ``path``, read only if it is a regular file of at most ``max_bytes``
    (and, with ``within``, one that resolves inside that directory: a symlink out of a cache is
    refused). A FIFO, a device (``/dev/zero``) or a directory raises :class:`UnsafeFile` without
    being opened for reading; so does a file that grows past the bound while it is read."""
    p = Path(path)
    real = p.resolve()
    if within is not None and not real.is_relative_to(Path(within).resolve()):
        raise UnsafeFile(f"resolves to {real}, outside {within}")
    kind = os.stat(real).st_mode
    if not stat.S_ISREG(kind):
        raise UnsafeFile("not a regular file")
    fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped since the stat above
            raise UnsafeFile("not a regular file")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise UnsafeFile(f"larger than {max_bytes} bytes")
    return data.decode("utf-8")


def finite(data: Any) -> Any:
    """``data`` with every NaN and infinity replaced by ``None`` (as ``JSON.stringify`` does), all the
    way down: JSON has no such numbers, and ``json.dumps`` would write the bare words ``NaN`` and
    ``Infinity``, which strict parsers (``jq``, browsers, Go, Rust) refuse."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def dumps(data: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`finite` data, refusing anything that still is not strict JSON."""
    return json.dumps(finite(data), allow_nan=False, **kwargs)
