"""What the in-process WSGI bench sites share: a threaded ``wsgiref`` server on 127.0.0.1,
the bench endpoints (``POST /__reset``, ``GET /__state``) and the start/stop lifecycle.

A site subclasses :class:`WsgiSite` and provides :meth:`~WsgiSite._setup` (create the
app's data and return its WSGI application; the port is bound already, so the app can
be told its own URL), :meth:`~WsgiSite.state` and :meth:`~WsgiSite.reset`, and may
extend :meth:`~WsgiSite._teardown`. Requests to the app are served one at a time
(``self._lock``), so a reset never runs in the middle of a request; a site whose app is
thread-safe sets :attr:`~WsgiSite.concurrent` and its requests run side by side, a reset
(:meth:`~WsgiSite.exclusive`) waiting for them to end and holding new ones back.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from types import TracebackType
from typing import Any, Self
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

__all__ = ["HOST", "QuietDisconnects", "WsgiSite", "json_response"]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class QuietDisconnects:
    """A server mixin: a client that went away mid-answer (a browser page closed, a navigation that replaced a
    request) is logged at debug level, not printed as a traceback; other errors as the stdlib prints them."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError):  # BrokenPipeError, ConnectionResetError, ...
            log.debug("%s went away: %s", client_address, exc)
            return
        super().handle_error(request, client_address)  # type: ignore[misc]


class _Server(QuietDisconnects, ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        log.debug("%s " + format, self.address_string(), *args)


def json_response(start_response: StartResponse, data: Any) -> list[bytes]:
    body = json.dumps(data).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


class _Gate:
    """Many requests at a time, or one reset alone: a reader-writer lock."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._exclusive = False

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._exclusive)
            self._active += 1
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._exclusive)
            self._exclusive = True  # new requests wait from here on
            self._cond.wait_for(lambda: self._active == 0)
        try:
            yield
        finally:
            with self._cond:
                self._exclusive = False
                self._cond.notify_all()


class WsgiSite:
    """A bench app served in-process: ``with Site() as site: site.url`` (port 0 picks a free port)."""

    name = "site"
    """Used in thread names and messages."""
    concurrent = False
    """Whether the app may serve several requests at a time (else one after the other)."""

    def __init__(self, *, port: int = 0, seed: int = 0, latency_scale: float = 0.0) -> None:
        self.port = port
        self.seed = seed
        self.latency_scale = latency_scale  # accepted for the Site protocol; these sites add no latency
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._gate = _Gate()
        self._app: WsgiApp | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return f"http://{HOST}:{self._server.server_address[1]}/"

    def start(self) -> Self:
        if self._server is not None:
            return self
        server = _Server((HOST, self.port), _QuietHandler)
        self.port = server.server_address[1]
        try:
            self._app = self._setup()
        except BaseException:
            server.server_close()
            self._teardown()
            raise
        server.set_app(self._wsgi)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name=f"{self.name}-{self.port}", daemon=True)
        self._thread.start()
        log.info("%s on %s", self.name, self.url)
        return self

    def _setup(self) -> WsgiApp:
        """Create the app's data (``self.port`` is bound) and return the WSGI app to serve."""
        raise NotImplementedError

    def _teardown(self) -> None:
        """Release what :meth:`_setup` made (also after a failed start)."""

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._app = None
        self._teardown()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def exclusive(self) -> contextlib.AbstractContextManager[Any]:
        """Hold the site's requests back (and wait for those under way) while the data is replaced
        or read: what :meth:`reset` and :meth:`state` run under."""
        return self._gate.exclusive() if self.concurrent else self._lock

    def state(self) -> dict[str, Any]:
        raise NotImplementedError

    def reset(self, draws: str = "") -> None:
        raise NotImplementedError

    def _wsgi(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET")
        if path == "/__reset" and method == "POST":
            self.reset()
            return json_response(start_response, {"ok": True})
        if path == "/__state":
            return json_response(start_response, self.state())
        app = self._app
        assert app is not None
        with self._gate.shared() if self.concurrent else self._lock:
            response = app(environ, start_response)
            try:
                return [b"".join(response)]
            finally:
                close = getattr(response, "close", None)
                if close is not None:
                    close()
