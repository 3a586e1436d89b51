"""Loopback HTTP servers that speak the OpenAI and Gemini wire formats.

They let tests, the CLI and notebooks drive the *real* provider SDKs over real
HTTP without leaving the machine: start one in a ``with`` block, point the
model at its ``base_url`` and script what it answers::

    with FakeOpenAIServer(["first answer", FakeReply(status=429), "second"]) as srv:
        model = OpenAIModel("fake", base_url=srv.base_url)
        ...
    assert len(srv.requests) == 3

Each scripted reply is either the answer text (HTTP 200 with a well-formed
body) or a :class:`FakeReply` for errors, malformed bodies and slow answers.
A callable gets each :class:`RecordedRequest` and returns the reply instead.
The server runs on ``127.0.0.1`` in a daemon thread, so it is allowed through
``ALLOW_MODEL_REQUESTS = False`` (loopback only) and needs no event loop.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeReply",
    "RecordedRequest",
    "FakeOpenAIServer",
    "FakeGeminiServer",
    "Script",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FakeReply:
    """One scripted answer of a fake server.

    ``text`` is the answer; ``status`` other than 200 sends a provider-shaped
    error body; ``body`` (str) is sent verbatim instead of a generated one
    (for malformed JSON); ``delay_s`` waits before answering (for timeouts);
    ``usage`` is ``(prompt_tokens, completion_tokens)`` and overrides the
    server's default; ``headers`` are extra response headers (``Retry-After``).
    """

    text: str = ""
    status: int = 200
    body: str | None = None
    delay_s: float = 0.0
    usage: tuple[int, int] | None = None
    headers: dict[str, str] | None = None


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    def messages(self) -> list[dict[str, Any]]:
        """The chat messages of an OpenAI request body (empty if none)."""
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return list(self.body["messages"])
        return []


Script = Sequence[str | FakeReply] | Callable[[RecordedRequest], str | FakeReply]


def _estimate_tokens(text: str) -> int:
    # the same rough rule FunctionModel uses: about four characters a token
    return max(1, (len(text) + 3) // 4) if text else 0


class _FakeServerBase:
    """The shared machinery: a scripted, recording HTTP server on 127.0.0.1."""

    def __init__(self, script: Script, *, usage: tuple[int, int] | None = None) -> None:
        self.script = script
        self.usage = usage
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._next = 0
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> None:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        if self._httpd is not None:
            return
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                server._handle(self)

            def do_GET(self) -> None:  # noqa: N802
                server._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                log.debug("fake server: " + format, *args)

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving; slow replies still in flight are cut short."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> _FakeServerBase:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running; use it in a `with` block")
        return int(self._httpd.server_address[1])

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT`` (no path)."""
        return f"http://127.0.0.1:{self.port}"

    # -- request handling --------------------------------------------------

    def _next_reply(self, request: RecordedRequest) -> FakeReply:
        if callable(self.script):
            reply = self.script(request)
        else:
            with self._lock:
                index = self._next
                self._next += 1
            if index >= len(self.script):
                return FakeReply(
                    status=400,
                    text=f"{type(self).__name__}: no scripted reply left "
                    f"(request {index + 1}, script has {len(self.script)})",
                )
            reply = self.script[index]
        return FakeReply(text=reply) if isinstance(reply, str) else reply

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest(
            method=handler.command,
            path=handler.path,
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=body,
        )
        with self._lock:
            self.requests.append(request)
        route_error = self._check_route(request)
        reply = FakeReply(status=404, text=route_error) if route_error else self._next_reply(request)
        if reply.delay_s > 0 and self._stopping.wait(reply.delay_s):
            return
        if reply.body is not None:
            payload = reply.body
        elif reply.status == 200:
            payload = json.dumps(self._success_body(request, reply))
        else:
            payload = json.dumps(self._error_body(reply))
        data = payload.encode("utf-8")
        try:
            handler.send_response(reply.status)
            extra = reply.headers or {}
            if not any(name.lower() == "content-type" for name in extra):  # a reply may be HTML, say
                handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for name, value in extra.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # the client gave up (a timeout test); nothing left to tell it
            log.debug("fake server: client went away before the reply")

    def _usage_for(self, request: RecordedRequest, reply: FakeReply) -> tuple[int, int]:
        if reply.usage is not None:
            return reply.usage
        if self.usage is not None:
            return self.usage
        return _estimate_tokens(json.dumps(request.body)), _estimate_tokens(reply.text)

    # provider specific -----------------------------------------------------

    def _check_route(self, request: RecordedRequest) -> str | None:
        raise NotImplementedError

    def _success_body(self, request: RecordedRequest, reply: FakeReply) -> dict[str, Any]:
        raise NotImplementedError

    def _error_body(self, reply: FakeReply) -> dict[str, Any]:
        raise NotImplementedError


_GEMINI_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class FakeOpenAIServer(_FakeServerBase):
    """Speaks ``POST /v1/chat/completions`` like an OpenAI-compatible server.

    ``base_url`` (``http://127.0.0.1:PORT/v1``) is what ``OPENAI_BASE_URL`` or
    ``OpenAIModel(base_url=...)`` takes. ``usage=(prompt, completion)`` fixes
    the reported token counts; by default they are estimated from the texts.
    """

    def __enter__(self) -> FakeOpenAIServer:
        self.start()
        return self

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def _check_route(self, request: RecordedRequest) -> str | None:
        if request.method == "POST" and request.path.split("?")[0] == "/v1/chat/completions":
            return None
        return f"FakeOpenAIServer: no route {request.method} {request.path}"

    def _success_body(self, request: RecordedRequest, reply: FakeReply) -> dict[str, Any]:
        prompt, completion = self._usage_for(request, reply)
        model = request.body.get("model", "fake") if isinstance(request.body, dict) else "fake"
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    def _error_body(self, reply: FakeReply) -> dict[str, Any]:
        return {
            "error": {
                "message": reply.text or f"fake error {reply.status}",
                "type": "rate_limit_error" if reply.status == 429 else "server_error",
                "code": None,
                "param": None,
            }
        }


class FakeGeminiServer(_FakeServerBase):
    """Speaks the Gemini API route ``POST /{version}/models/{model}:generateContent``.

    ``base_url`` (``http://127.0.0.1:PORT``) goes into
    ``GeminiModel(base_url=...)``, which hands it to google-genai as
    ``HttpOptions(base_url=...)``; the SDK appends ``v1beta/models/...``.
    """

    def __enter__(self) -> FakeGeminiServer:
        self.start()
        return self

    @property
    def base_url(self) -> str:
        return self.origin

    def _check_route(self, request: RecordedRequest) -> str | None:
        path = request.path.split("?")[0]
        if request.method == "POST" and "/models/" in path and path.endswith(":generateContent"):
            return None
        return f"FakeGeminiServer: no route {request.method} {request.path}"

    def _success_body(self, request: RecordedRequest, reply: FakeReply) -> dict[str, Any]:
        prompt, completion = self._usage_for(request, reply)
        model = request.path.split("?")[0].rsplit("/models/", 1)[-1].split(":")[0]
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": reply.text}]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": completion,
                "totalTokenCount": prompt + completion,
            },
            "modelVersion": model,
        }

    def _error_body(self, reply: FakeReply) -> dict[str, Any]:
        return {
            "error": {
                "code": reply.status,
                "message": reply.text or f"fake error {reply.status}",
                "status": _GEMINI_STATUS.get(reply.status, "UNKNOWN"),
            }
        }
