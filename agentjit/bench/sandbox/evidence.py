"""What a plan's run left behind, made safe to inspect: its strings, its value as plain data, its errors.

A hostile plan's result or exception may raise on ``repr``, nest without end or
hide the canary's secret in a hex dump; everything here is bounded and never raises.
"""

from __future__ import annotations

import dataclasses
import json
import traceback
from collections.abc import Iterable, Iterator
from typing import Any

TEXT_LIMIT = 2_000  # characters of an error / value kept in a verdict

def plain_data(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-shaped data for comparing an ``ok`` plan's result (bounded depth)."""
    if depth > 50:
        raise ValueError("too deep")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [plain_data(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): plain_data(v, depth + 1) for k, v in value.items()}
    dump = getattr(type(value), "model_dump", None)
    if dump is not None:
        return plain_data(dump(value, mode="json"), depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain_data(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    raise ValueError(f"not plain data: {type(value).__name__}")


def norm(value: Any) -> Any:
    """``value`` with surrogates made whole or replaced (U+FFFD), for comparing results."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [norm(v) for v in value]
    if isinstance(value, dict):
        return {norm(k): norm(v) for k, v in value.items()}
    return value


def as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(plain_data(value)))


def walk_strings(value: Any, budget: int = 200_000) -> Iterator[str]:
    """Every string inside ``value`` (iteratively, bounded), plus the repr of other leaves."""
    stack = [value]
    seen: set[int] = set()
    while stack and budget > 0:
        budget -= 1
        v = stack.pop()
        if isinstance(v, str):
            yield v
            continue
        if isinstance(v, bytes | bytearray):
            yield bytes(v).decode("latin-1")
            continue
        if v is None or isinstance(v, bool | int | float):
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        try:
            if isinstance(v, dict):
                stack.extend(v.keys())
                stack.extend(v.values())
            elif isinstance(v, list | tuple | set | frozenset):
                stack.extend(v)
            elif callable(getattr(type(v), "model_dump", None)):
                stack.append(v.model_dump())
            elif dataclasses.is_dataclass(v) and not isinstance(v, type):
                stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
            else:
                yield safe_repr(v, limit=100_000)
        except Exception as exc:  # an escaped object may raise anything on inspection
            yield f"<uninspectable {type(exc).__name__}>"


def safe_repr(value: Any, limit: int = TEXT_LIMIT) -> str:
    try:
        text = repr(value)
    except BaseException as exc:  # a huge int, a deep list, an object with a hostile __repr__
        text = f"<repr failed: {type(exc).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def error_chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen and len(out) < 50:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def exc_text(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(exc))
    except BaseException:
        return "\n".join(f"{type(e).__name__}: {safe_str(e)}" for e in error_chain(exc))


def safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except BaseException as err:
        return f"<str failed: {type(err).__name__}>"


def canary_in(secret: str, texts: Iterable[str]) -> bool:
    needles = (secret, secret[::-1], secret.encode().hex())
    return any(n in t for t in texts for n in needles)

