"""Record and replay model exchanges to a JSONL cassette.

Each exchange is one line: ``{"v": 1, "key": sha256, "model": ..., "messages":
[...], "params": {...}, "response": {...}}``. ``key`` is a hash of the
messages (roles and contents) only, so a replay matches the same prompt
regardless of sampling parameters. Exchanges with the same key are replayed
in the order they were recorded (n samples of one prompt come back as the
same n answers).

Modes: ``"record"`` always asks the inner model and appends; ``"replay"``
only reads the cassette (a miss is a ModelRequestError naming the cassette);
``"auto"`` replays what it has and records the rest.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
from collections import defaultdict, deque
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..exceptions import ConfigError, ModelRequestError
from .base import Message, Model, ModelResponse

__all__ = ["CassetteModel", "CassetteMode", "messages_key"]

log = logging.getLogger(__name__)

CassetteMode = Literal["record", "replay", "auto"]
_FORMAT_VERSION = 1


def messages_key(messages: list[Message]) -> str:
    """A stable hash of the messages' roles and contents."""
    canonical = json.dumps(
        [[m.role, m.content] for m in messages], ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _append_line(path: Path, line: str) -> None:
    """Append one line with a single O_APPEND write (whole lines, never interleaved)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def _load(path: Path) -> dict[str, deque[ModelResponse]]:
    """The cassette's responses by key, in recorded order; errors name file and line."""
    table: dict[str, deque[ModelResponse]] = defaultdict(deque)
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError("a line must be a JSON object")
                key = record["key"]
                if not isinstance(key, str):
                    raise ValueError("'key' must be a string")
                response = ModelResponse.model_validate(record["response"])
            except (ValueError, KeyError, ValidationError) as exc:
                detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
                raise ConfigError(f"{path}:{number}: bad cassette line: {detail}") from exc
            table[key].append(response)
    return table


class CassetteModel(Model):
    """Wraps ``inner`` and records its exchanges, or replays them without it."""

    def __init__(
        self, inner: Model | None, path: str | os.PathLike[str], mode: CassetteMode = "auto"
    ) -> None:
        if mode not in ("record", "replay", "auto"):
            raise ConfigError(f"cassette mode must be record, replay or auto, got {mode!r}")
        if inner is None and mode != "replay":
            raise ConfigError(f"cassette mode {mode!r} needs an inner model to record from")
        self.inner = inner
        self.path = Path(path)
        self.mode: CassetteMode = mode
        self.name = f"cassette:{inner.name}" if inner is not None else f"cassette:{self.path.name}"
        self.recorded = 0
        self.replayed = 0
        self._lock = asyncio.Lock()
        self._table: dict[str, deque[ModelResponse]] = defaultdict(deque)
        if mode != "record":
            if self.path.exists():
                self._table = _load(self.path)
            elif mode == "replay":
                raise ConfigError(f"{self.path}: cassette not found (mode 'replay')")

    async def request(
        self,
        messages: list[Message],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        key = messages_key(messages)
        if self.mode != "record":
            queue = self._table.get(key)
            if queue:
                self.replayed += 1
                return queue.popleft()
            if self.mode == "replay":
                first = next((m.content for m in messages if m.role == "user"), "")
                raise ModelRequestError(
                    f"{self.path}: no recorded exchange left for this prompt "
                    f"(key {key[:12]}, user message {first[:60]!r}); re-record the cassette"
                )
        assert self.inner is not None  # checked in __init__
        response = await self.inner.request(
            messages, temperature=temperature, max_tokens=max_tokens
        )
        record: dict[str, Any] = {
            "v": _FORMAT_VERSION,
            "key": key,
            "model": self.inner.name,
            "messages": [m.model_dump() for m in messages],
            "params": {"temperature": temperature, "max_tokens": max_tokens},
            "response": response.model_dump(),
        }
        line = json.dumps(record, ensure_ascii=False)
        async with self._lock:
            await asyncio.to_thread(_append_line, self.path, line)
        self.recorded += 1
        log.debug("%s: recorded exchange %s", self.path, key[:12])
        return response

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()
