"""The one trace format shared by the recorder, the runtime and the offline builder.

A trace is a JSONL file. Its first line is a :class:`SessionEvent`; then come
:class:`StepEvent` lines (one per primitive action or tool call) and
:class:`SnapshotEvent` lines (DOM snapshots, zlib-compressed, base64, stored
once per distinct content and referred to by id from steps). The format is
documented in ``traces/README.md``; ``version`` changes when it does.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote, quote_plus

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agentjit.exceptions import TraceError

from . import jsonio

__all__ = [
    "TRACE_FORMAT",
    "TRACE_VERSION",
    "READ_VERSIONS",
    "RESPONSE_BODY_MAX",
    "REDACTED",
    "redact_text",
    "redact_args",
    "Target",
    "SessionEvent",
    "StepEvent",
    "SnapshotEvent",
    "TraceEvent",
    "Trace",
    "TraceWriter",
    "read_trace",
    "iter_trace",
    "encode_snapshot",
    "decode_snapshot",
]

TRACE_FORMAT = "agentjit-trace"
TRACE_VERSION = 2
READ_VERSIONS = (1, 2)
"""Versions a reader accepts. 2 added what a state-changing request sent and got back
(``requests[].post_data`` and ``requests[].response``); a version-1 trace reads the same, without them."""

RESPONSE_BODY_MAX = 256 * 1024
"""The most characters of a request or response body a recorded request keeps."""

REDACTED = "<redacted>"
"""What a trace holds in place of a secret the writer kept out of it (a password typed, say)."""



def redact_text(text: str | None, secrets: Iterable[str]) -> str | None:
    """``text`` with every one of ``secrets`` (as typed, form- or URL-encoded, JSON-escaped) replaced by
    :data:`REDACTED`; the longest first, so a secret inside another is no leak."""
    if not text:
        return text
    for secret in sorted({str(s) for s in secrets if s not in (None, "")}, key=len, reverse=True):
        for form in {secret, quote_plus(secret), quote(secret, safe=""), json.dumps(secret)[1:-1]}:
            text = text.replace(form, REDACTED)
    return text


def redact_args(args: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """``args`` with the values of the inputs ``names`` (a tool's ``writeOnly`` ones) given as :data:`REDACTED`."""
    secret = set(names)
    return {k: (REDACTED if k in secret and v not in (None, "") else v) for k, v in args.items()}


Action = Literal["goto", "click", "fill", "select", "check", "press", "scroll", "evaluate", "tool", "wait"]


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow")


class Target(BaseModel):
    """An action's target as the recorder saw it."""

    model_config = ConfigDict(extra="allow")

    selector: str | None = None
    role: str | None = None
    name: str | None = None
    text: str | None = None
    tag: str | None = None


class SessionEvent(_Event):
    kind: Literal["session"] = "session"
    format: Literal["agentjit-trace"] = "agentjit-trace"
    version: int = TRACE_VERSION
    site: str | None = None
    start_url: str | None = None
    viewport: dict[str, int] = Field(default_factory=lambda: {"width": 1280, "height": 720})
    agentjit_version: str | None = None
    started_at: float = Field(default_factory=time.time)
    task: str | None = None
    strategy: str | None = None
    source: str = "runtime"
    """Who wrote the trace: ``runtime``, ``recorder`` or ``browser-use``."""
    script: str | None = None
    """The demonstration script a recorder ran, if any."""


class StepEvent(_Event):
    kind: Literal["step"] = "step"
    index: int
    worker: int = 0
    action: Action
    url: str | None = None
    title: str | None = None
    target: Target | None = None
    value: Any = None
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    effect: Literal["READ", "WRITE"] | None = None
    elements: list[str] = Field(default_factory=list)
    start: float
    end: float
    ok: bool = True
    output: Any = None
    phase: str | None = None
    """The phase that failed: ``precondition``, ``pre_check``, ``execute``, ``navigation``,
    ``post_check``, ``output`` or ``timeout``."""
    reason: str | None = None
    url_after: str | None = None
    snapshot: str | None = None
    """Id of the :class:`SnapshotEvent` holding the DOM after the step."""
    timings: dict[str, float] = Field(default_factory=dict)
    replayed: bool = False
    """True when a WRITE was answered from the effect log instead of the site."""
    requests: list[dict[str, Any]] = Field(default_factory=list)
    """State-changing requests (not GET, HEAD or OPTIONS) the page sent during the step: method, url,
    status; from version 2 also ``post_data`` (the request body) and ``response`` (``headers``:
    content-type and location, ``body``: text, at most :data:`RESPONSE_BODY_MAX` characters,
    ``truncated``), what verification answers the request with instead of sending it."""
    background: list[dict[str, Any]] = Field(default_factory=list)
    """Recorder: the state-changing requests the page sent by itself (not navigations: an editor's
    session ping) since the previous step's end, one per method and address, each as in
    ``requests`` with its answer; verification answers such a write of the page with them. Absent
    (empty) in traces written before it: readers of version 2 that do not know it ignore it."""
    goal: str | None = None
    """What the step was for, in words (from a demonstration script or an agent)."""
    document: bool | None = None
    """Recorder: whether the step loaded a new document (a page load, not a single-page app's
    redraw in place); None when the writer did not say."""
    suspect: dict[str, Any] | None = None
    """A failed tool call that made its tool suspect: the evidence (:class:`agentjit.runtime.healing.Suspect`)."""
    fallback: dict[str, Any] | None = None
    """A tool call answered by a fallback instead of the tool: its cost (model calls, tokens, seconds)."""

    @property
    def duration(self) -> float:
        return self.end - self.start


class SnapshotEvent(_Event):
    kind: Literal["snapshot"] = "snapshot"
    id: str
    encoding: Literal["zlib+base64"] = "zlib+base64"
    data: str


TraceEvent = Annotated[SessionEvent | StepEvent | SnapshotEvent, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[SessionEvent | StepEvent | SnapshotEvent] = TypeAdapter(TraceEvent)


def encode_snapshot(html: str) -> tuple[str, str]:
    """``(id, data)`` for a DOM snapshot: a content hash and its compressed form."""
    raw = html.encode("utf-8")
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return digest, base64.b64encode(zlib.compress(raw, 6)).decode("ascii")


def decode_snapshot(event: SnapshotEvent) -> str:
    return zlib.decompress(base64.b64decode(event.data)).decode("utf-8")


class Trace(BaseModel):
    """A whole trace read back: the session, its steps, and its snapshots by id."""

    path: str | None = None
    session: SessionEvent
    steps: list[StepEvent]
    snapshots: dict[str, SnapshotEvent] = Field(default_factory=dict)

    def snapshot_html(self, step: StepEvent) -> str | None:
        if step.snapshot is None:
            return None
        event = self.snapshots.get(step.snapshot)
        if event is None:
            raise TraceError(f"step {step.index} refers to missing snapshot {step.snapshot!r}", path=self.path)
        return decode_snapshot(event)


def iter_trace(path: str | Path) -> Iterator[tuple[int, SessionEvent | StepEvent | SnapshotEvent]]:
    """Yield ``(line_number, event)``; a bad line raises :class:`TraceError` naming file and line."""
    p = Path(path)
    try:
        fh = p.open("rb")
    except OSError as exc:
        raise TraceError(f"cannot read: {exc.strerror}", path=str(p)) from exc
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TraceError(f"not UTF-8 text (byte {exc.start} of the line)", path=str(p), line=lineno) from None
            if not line.strip():
                continue
            try:
                data = jsonio.loads(line)
            except json.JSONDecodeError as exc:  # jsonio.JSONTooDeep too
                raise TraceError(f"invalid JSON ({exc.msg}); truncated file?", path=str(p), line=lineno) from None
            if lineno == 1 or (isinstance(data, dict) and data.get("kind") == "session"):
                _check_session(data, p, lineno)
            try:
                yield lineno, _ADAPTER.validate_python(data)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(x) for x in err["loc"]) or "<root>"
                raise TraceError(f"field '{field}': {err['msg']}", path=str(p), line=lineno) from None


def _check_session(data: Any, path: Path, lineno: int) -> None:
    if not isinstance(data, dict) or data.get("kind") != "session":
        raise TraceError("the first line must be a session record (kind: session)", path=str(path), line=lineno)
    if data.get("format", TRACE_FORMAT) != TRACE_FORMAT:
        raise TraceError(f"unknown format {data.get('format')!r}", path=str(path), line=lineno)
    version = data.get("version")
    if version not in READ_VERSIONS:
        raise TraceError(
            f"unknown trace version {version!r} (this agentjit reads versions {', '.join(map(str, READ_VERSIONS))})",
            path=str(path),
            line=lineno,
        )


def read_trace(path: str | Path, *, check_snapshots: bool = True) -> Trace:
    """Read a whole trace; a missing snapshot is an error naming the step's line."""
    session: SessionEvent | None = None
    steps: list[StepEvent] = []
    step_lines: dict[int, int] = {}
    snapshots: dict[str, SnapshotEvent] = {}
    for lineno, event in iter_trace(path):
        if isinstance(event, SessionEvent):
            session = event
        elif isinstance(event, StepEvent):
            step_lines[len(steps)] = lineno
            steps.append(event)
        else:
            snapshots[event.id] = event
    if session is None:
        raise TraceError("empty trace: no session record", path=str(path), line=1)
    if check_snapshots:
        for i, step in enumerate(steps):
            if step.snapshot is not None and step.snapshot not in snapshots:
                raise TraceError(
                    f"step {step.index} refers to snapshot {step.snapshot!r}, which the file lacks",
                    path=str(path),
                    line=step_lines[i],
                )
    return Trace(path=str(path), session=session, steps=steps, snapshots=snapshots)


class TraceWriter:
    """Appends events to a JSONL trace, one line per event, flushed as it goes.

    Thread-safe and usable from several asyncio tasks (parallel workers share
    one writer). Snapshots are written once per distinct content.
    """

    def __init__(self, path: str | Path, session: SessionEvent) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._seen: set[str] = set()
        self._index = 0
        self._fh = self.path.open("w", encoding="utf-8")
        self._write(session)

    def _write(self, event: BaseModel) -> None:
        line = event.model_dump_json(exclude_none=False)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()

    def next_index(self) -> int:
        with self._lock:
            i = self._index
            self._index += 1
            return i

    def snapshot(self, html: str) -> str:
        """Store a DOM snapshot (once per content) and return its id."""
        sid, data = encode_snapshot(html)
        with self._lock:
            if sid in self._seen:
                return sid
            self._seen.add(sid)
        self._write(SnapshotEvent(id=sid, data=data))
        return sid

    def step(self, event: StepEvent) -> None:
        self._write(event)

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.flush()
                os.fsync(self._fh.fileno())
                self._fh.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
