"""The food-delivery bench site: a stdlib HTTP server on 127.0.0.1.

``FoodSite`` serves the pages of :mod:`.pages` from a ``ThreadingHTTPServer``
in a daemon thread, so a slow (latency-injected) response never blocks the
other browser contexts. Every request first sleeps for a delay drawn from its
endpoint's profile (:mod:`.latency`) times ``latency_scale``, a common random
number of the request and the draws label the last reset gave; the test hooks
``/__state``, ``/__reset``, ``/__latency`` and ``/__faults`` are never delayed.

``/__faults`` sets the site's fault plan (:mod:`agentjit.bench.faults`): HTTP
500s, timeouts and dropped connections before or after a write is applied,
and restarts on the same port (:meth:`FoodSite.restart`, state kept).

Routes::

    GET  /  /store/<slug>  /category/<slug>  /search?q=  /cart  /checkout  /orders/<id>
    GET  /api/stores  /api/stores/<slug>/reviews  /api/cart
    POST /api/cart  /api/cart/remove  /checkout/place (form; 303 -> /orders/<id>)
    GET  /__state     POST /__reset[?draws=LABEL]     POST /__latency?scale=X     GET|POST /__faults
"""

from __future__ import annotations

import json
import logging
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ..faults import CLIENT_HEADER, FaultInjector
from . import pages
from .data import BY_SLUG, RESTAURANTS, category_by_slug, search_stores, stores_in_category
from .latency import LatencyModel
from .state import CartError, FoodState

__all__ = ["FoodSite", "serve_forever"]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"


class _Response:
    def __init__(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None):
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = headers or {}


def _html(text: str, status: int = 200) -> _Response:
    return _Response(status, text.encode("utf-8"), "text/html; charset=utf-8")


def _json(data: Any, status: int = 200) -> _Response:
    return _Response(status, json.dumps(data).encode("utf-8"), "application/json")


def _json_body(raw: bytes) -> Any:
    """A request body as JSON, or its text when it is not JSON (logged as sent)."""
    try:
        return json.loads(raw or b"{}")
    except json.JSONDecodeError:
        return raw.decode("utf-8", "replace")


def _redirect(location: str) -> _Response:
    return _Response(HTTPStatus.SEE_OTHER, b"", "text/plain", {"Location": location})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    site: FoodSite

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that went away mid-response (a cancelled hedge replica) is not an error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            log.debug("client %s disconnected mid-response", client_address)
            return
        super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        """Close every open (keep-alive) connection, so a stopped site really stops answering."""
        with self._open_lock:
            open_now, self._open = list(self._open), set()
        for sock in open_now:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:  # noqa: N802 (stdlib name)
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _dispatch(self, method: str) -> None:
        site = self.server.site
        url = urlsplit(self.path)
        raw = self._read_body() if method == "POST" else b""
        if url.path == "/__faults":
            status, data = site.faults.handle_hook(method, raw)
            self._send(_json(data, status))
            return
        hit = site.faults.decide(method, url.path)
        if hit is not None and hit[1].when == "before":
            self._faulted(site.faults.trip(*hit, method, url.path, self.headers.get(CLIENT_HEADER)), None)
            return
        try:
            kind, handler = site._route(method, url.path)
            delay = site._latency.delay(kind, f"{method} {self.path}") if kind else 0.0
            if delay > 0:
                time.sleep(delay)
            response = handler(url.path, parse_qs(url.query), raw)
        except Exception:  # a bug in a handler must answer 500, not kill the thread silently
            log.exception("food site: %s %s failed", method, self.path)
            response = _html(pages.error_page(site.state_obj, 500, "internal error"), 500)
        if hit is not None:  # an `after` fault: the request was applied, the answer is what fails
            self._faulted(site.faults.trip(*hit, method, url.path, self.headers.get(CLIENT_HEADER)), response)
            return
        self._send(response)

    def _faulted(self, action: str, response: _Response | None) -> None:
        """Finish a faulted request: a 500 page, a dropped connection, or the real answer, late."""
        if action == "error":
            self._send(_html(pages.error_page(self.server.site.state_obj, 500, "injected fault"), 500))
        elif action == "late" and response is not None:
            self._send(response)
        else:  # drop: close without an answer
            self.close_connection = True

    def _send(self, response: _Response) -> None:
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.send_header("Cache-Control", "no-store")
            for key, value in response.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(response.body)
        except (BrokenPipeError, ConnectionResetError):
            log.debug("client went away before the response")


_Handler_t = Callable[[str, dict[str, list[str]], bytes], _Response]


class FoodSite:
    """The food-delivery site, served in-process.

    >>> with FoodSite(latency_scale=0) as site:   # port 0: pick a free port
    ...     site.url                              # 'http://127.0.0.1:PORT'
    """

    def __init__(self, *, port: int = 0, seed: int = 0, latency_scale: float = 1.0):
        self.port = port
        self.seed = seed
        self._latency = LatencyModel(seed=seed, scale=latency_scale)
        self.state_obj = FoodState()
        self.faults = FaultInjector(restart=self.restart)
        self._restarting = False
        """The fault plan (``/__faults``); never delayed, untouched by :meth:`reset`."""
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._routes: list[tuple[str, re.Pattern[str], str, _Handler_t]] = [
            ("GET", re.compile(r"/"), "home", self._home),
            ("GET", re.compile(r"/store/([^/]+)"), "store", self._store),
            ("GET", re.compile(r"/category/([^/]+)"), "category", self._category),
            ("GET", re.compile(r"/search"), "search", self._search),
            ("GET", re.compile(r"/cart"), "cart", self._cart),
            ("GET", re.compile(r"/checkout"), "checkout", self._checkout),
            ("GET", re.compile(r"/orders/([^/]+)"), "order", self._order),
            ("GET", re.compile(r"/api/stores"), "stores_api", self._api_stores),
            ("GET", re.compile(r"/api/stores/([^/]+)/reviews"), "reviews", self._api_reviews),
            ("GET", re.compile(r"/api/cart"), "cart_api", self._api_cart),
            ("POST", re.compile(r"/api/cart"), "cart_api", self._api_add),
            ("POST", re.compile(r"/api/cart/remove"), "cart_api", self._api_remove),
            ("POST", re.compile(r"/checkout/place"), "place_order", self._place),
            ("GET", re.compile(r"/favicon\.ico"), "", self._favicon),
            ("GET", re.compile(r"/__state"), "", self._state),
            ("POST", re.compile(r"/__reset"), "", self._reset),
            ("POST", re.compile(r"/__latency"), "", self._set_latency),
        ]

    # -- lifecycle --------------------------------------------------------

    @property
    def latency_scale(self) -> float:
        return self._latency.scale

    @latency_scale.setter
    def latency_scale(self, value: float) -> None:
        if value < 0:
            raise ValueError(f"latency_scale must be >= 0, got {value}")
        self._latency.scale = float(value)

    @property
    def url(self) -> str:
        if self._server is None:
            if self._restarting:  # down for a moment, coming back on the same port
                return f"http://{HOST}:{self.port}"
            raise RuntimeError("FoodSite is not started")
        return f"http://{HOST}:{self._server.server_address[1]}"

    def start(self) -> FoodSite:
        if self._server is not None:
            return self
        server = _Server((HOST, self.port), _Handler)
        server.site = self
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, name=f"food-site-{self.port}", daemon=True)
        self._thread.start()
        log.info("food site on %s (latency_scale=%s)", self.url, self.latency_scale)
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        server.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def restart(self, down_s: float = 0.2) -> None:
        """Stop serving, stay down ``down_s`` seconds, serve again on the same port; the state is kept.

        Safe to call from a request thread (the ``restart`` fault does): it runs
        in its own thread and returns once the site answers again.
        """
        done = threading.Event()

        def bounce() -> None:
            self._restarting = True
            try:
                self.stop()
                time.sleep(down_s)
                self.start()
            finally:
                self._restarting = False
                done.set()

        threading.Thread(target=bounce, name=f"food-site-restart-{self.port}", daemon=True).start()
        done.wait(30)

    def __enter__(self) -> FoodSite:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def state(self) -> dict[str, Any]:
        """The mutable state, as ``GET /__state`` returns it."""
        return self.state_obj.snapshot()

    def reset(self, draws: str = "") -> None:
        """Back to the seed state (empty cart, no orders, empty log); latencies from the stream ``draws``.

        Two runs after ``reset(draws=X)`` meet the same delays for the same
        requests (see :mod:`.latency`).
        """
        self.state_obj.reset()
        self._latency.restart(draws)

    # -- routing ----------------------------------------------------------

    def _route(self, method: str, path: str) -> tuple[str, _Handler_t]:
        for m, pattern, kind, handler in self._routes:
            if m == method and pattern.fullmatch(path):
                return kind, handler
        if any(pattern.fullmatch(path) for _, pattern, _, _ in self._routes):
            return "", self._method_not_allowed
        return "", self._not_found

    def _not_found(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _html(pages.error_page(self.state_obj, 404, f"No page at {path}"), 404)

    def _method_not_allowed(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _html(pages.error_page(self.state_obj, 405, "method not allowed"), 405)

    @staticmethod
    def _arg(path: str, pattern: str) -> str:
        m = re.fullmatch(pattern, path)
        assert m is not None
        return unquote(m.group(1))

    # -- pages ------------------------------------------------------------

    def _home(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _html(pages.home_page(self.state_obj))

    def _store(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        store = BY_SLUG.get(self._arg(path, r"/store/([^/]+)"))
        if store is None:
            return _html(pages.error_page(self.state_obj, 404, "No such store"), 404)
        return _html(pages.store_page(self.state_obj, store))

    def _category(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        name = category_by_slug(self._arg(path, r"/category/([^/]+)"))
        if name is None:
            return _html(pages.error_page(self.state_obj, 404, "No such category"), 404)
        return _html(pages.category_page(self.state_obj, name, stores_in_category(name)))

    def _search(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        q = (query.get("q") or [""])[0]
        return _html(pages.search_page(self.state_obj, q, search_stores(q)))

    def _cart(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _html(pages.cart_page(self.state_obj))

    def _checkout(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _html(pages.checkout_page(self.state_obj))

    def _order(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        order = self.state_obj.order(self._arg(path, r"/orders/([^/]+)"))
        if order is None:
            return _html(pages.error_page(self.state_obj, 404, "No such order"), 404)
        return _html(pages.order_page(self.state_obj, order))

    # -- JSON API ---------------------------------------------------------

    def _api_stores(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _json({"stores": [
            {"name": r.name, "slug": r.slug, "category": r.category, "rating": r.rating,
             "review_count": r.review_count, "delivery": r.delivery}
            for r in RESTAURANTS
        ]})

    def _api_reviews(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        store = BY_SLUG.get(self._arg(path, r"/api/stores/([^/]+)/reviews"))
        if store is None:
            return _json({"error": "no such store"}, 404)
        return _json({"store": store.slug, "reviews": [
            {"author": rv.author, "rating": rv.rating, "text": rv.text} for rv in store.reviews
        ]})

    def _api_cart(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _json(self.state_obj.cart_json())

    def _write(self, path: str, body: Any, action: Callable[[], _Response]) -> _Response:
        """Run a state-changing action and log it (failed attempts are logged too)."""
        try:
            response = action()
        except CartError as exc:
            response = _json({"ok": False, "error": str(exc)}, exc.status)
        self.state_obj.record("POST", path, body, response.status)
        return response

    def _api_add(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        body = _json_body(raw)

        def act() -> _Response:
            line = self.state_obj.add(body)
            return _json({"ok": True, "line": line.to_json(), "cart_count": self.state_obj.cart_count})

        return self._write(path, body, act)

    def _api_remove(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        body = _json_body(raw)

        def act() -> _Response:
            line_id = body.get("line_id") if isinstance(body, dict) else None
            line = self.state_obj.remove(line_id)
            return _json({"ok": True, "removed": line.to_json(), "cart": self.state_obj.cart_json()})

        return self._write(path, body, act)

    def _place(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}

        def act() -> _Response:
            order = self.state_obj.place(form.get("mode", "delivery"), form.get("address", ""))
            return _redirect(f"/orders/{order['id']}")

        response = self._write(path, form, act)
        if response.status >= 400:  # a form post: answer with a page, not JSON
            message = json.loads(response.body)["error"]
            return _html(pages.error_page(self.state_obj, response.status, message), response.status)
        return response

    def _favicon(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _Response(HTTPStatus.NO_CONTENT, b"", "image/x-icon")

    # -- test hooks -------------------------------------------------------

    def _state(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        return _json(self.state())

    def _reset(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        self.reset(draws=(query.get("draws") or [""])[0])
        return _json({"ok": True})

    def _set_latency(self, path: str, query: dict[str, list[str]], raw: bytes) -> _Response:
        try:
            self.latency_scale = float((query.get("scale") or [""])[0])
        except ValueError:
            return _json({"ok": False, "error": "scale must be a number >= 0"}, 400)
        return _json({"ok": True, "scale": self.latency_scale})


def serve_forever(port: int = 8000, seed: int = 0, latency_scale: float = 1.0) -> None:
    """Serve the food site until interrupted (the CLI's ``agentjit site food``)."""
    site = FoodSite(port=port, seed=seed, latency_scale=latency_scale).start()
    print(f"food site on {site.url} (latency_scale={latency_scale}); Ctrl-C to stop", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        site.stop()

