"""Fixtures for the runtime tests: a tiny shop site on 127.0.0.1 (Chromium: tests/conftest.py's ``browser_pool``).

The shop (:class:`ShopSite`) has a start page, a list page, item pages with an
order form, and a POST endpoint that records every order. Each browser
context gets its own session cookie on its first request; the k-th session
to arrive waits ``session_delays[k]`` seconds on every request (so one hedged
replica can be made slow and another fast), and ``path_delays`` adds a wait
per path prefix (so parallel workers have something to overlap). ``path_meetings``
makes the first requests of a path prefix wait for each other: with ``{"/item/": 2}``
the first item request is answered only once a second one has arrived (at most
``MEETING_LIMIT_S``), so requests that can overlap do, however slow the machine.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from agentjit.cache import ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime import BrowserPool, CallOutcome, Runtime

ITEMS: list[dict[str, Any]] = [
    {"id": "a1", "name": "Apple", "price": 3, "cat": "fruit"},
    {"id": "b2", "name": "Bread", "price": 5, "cat": "bakery"},
    {"id": "c3", "name": "Cheese", "price": 9, "cat": "dairy"},
    {"id": "d4", "name": "Dates", "price": 7, "cat": "fruit"},
    {"id": "e5", "name": "Eggs", "price": 4, "cat": "dairy"},
    {"id": "f6", "name": "Figs", "price": 8, "cat": "fruit"},
]


@dataclass
class Request:
    session: int
    method: str
    path: str
    start: float
    end: float = 0.0


MEETING_LIMIT_S = 30.0
"""The longest a request waits for the others of its meeting: a guard against a hang, not a timing."""


@dataclass
class ShopSite:
    """The shop's state and knobs; ``url`` is its base URL."""

    url: str = ""
    orders: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    session_delays: list[float] = field(default_factory=list)
    path_delays: dict[str, float] = field(default_factory=dict)
    path_meetings: dict[str, int] = field(default_factory=dict)
    arrivals: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    met: threading.Condition = field(default_factory=threading.Condition)
    _sessions: Iterator[int] = field(default_factory=itertools.count)

    def reset(self) -> None:
        with self.lock:
            self.orders.clear()
            self.requests.clear()
            self.session_delays = []
            self.path_delays = {}
            self.path_meetings = {}
            self.arrivals = {}
            self._sessions = itertools.count()

    def new_session(self) -> int:
        with self.lock:
            return next(self._sessions)

    def delay(self, session: int, path: str) -> float:
        d = self.session_delays[session] if session < len(self.session_delays) else 0.0
        for prefix, extra in self.path_delays.items():
            if path.startswith(prefix):
                d += extra
        return d

    def meet(self, path: str) -> None:
        """Hold a request of a ``path_meetings`` prefix until that many have arrived (or ``MEETING_LIMIT_S``)."""
        for prefix, count in list(self.path_meetings.items()):
            if path.startswith(prefix):
                with self.met:
                    self.arrivals[prefix] = self.arrivals.get(prefix, 0) + 1
                    self.met.notify_all()
                    self.met.wait_for(lambda p=prefix, n=count: self.arrivals[p] >= n, timeout=MEETING_LIMIT_S)

    def session_of_order(self, order: dict[str, Any]) -> int:
        return int(order["session"])


def _page(title: str, body: str) -> bytes:
    return f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>".encode()


def _make_handler(site: ShopSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _session(self) -> tuple[int, bool]:
            cookie = SimpleCookie(self.headers.get("Cookie", ""))
            if "sid" in cookie:
                return int(cookie["sid"].value), False
            return site.new_session(), True

        def _send(self, status: int, body: bytes, session: int, new: bool, headers: dict[str, str] | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            if new:
                self.send_header("Set-Cookie", f"sid={session}; Path=/")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _begin(self) -> tuple[int, bool, str, Request]:
            session, new = self._session()
            path = urlsplit(self.path).path
            req = Request(session, self.command, path, time.monotonic())
            delay = site.delay(session, path)
            if delay:
                time.sleep(delay)
            site.meet(path)
            return session, new, path, req

        def _end(self, req: Request) -> None:
            req.end = time.monotonic()
            with site.lock:
                site.requests.append(req)

        def do_GET(self) -> None:  # noqa: N802
            session, new, path, req = self._begin()
            try:
                if path == "/":
                    self._send(200, _page("Shop", '<a id="to-list" href="/list">All items</a>'), session, new)
                elif path == "/list":
                    lis = "".join(
                        f'<li class="item" data-id="{it["id"]}" data-price="{it["price"]}">'
                        f'<a href="/item/{it["id"]}">{html.escape(it["name"])}</a></li>'
                        for it in ITEMS
                    )
                    self._send(200, _page("Items", f'<ul id="items">{lis}</ul>'), session, new)
                elif path.startswith("/item/"):
                    item = next((it for it in ITEMS if it["id"] == unquote(path[6:])), None)
                    if item is None:
                        self._send(404, _page("Not found", "<p>no such item</p>"), session, new)
                        return
                    body = (
                        f'<div id="item" data-id="{item["id"]}" data-name="{item["name"]}" '
                        f'data-price="{item["price"]}" data-cat="{item["cat"]}">{item["name"]}</div>'
                        f'<form id="order" method="post" action="/order">'
                        f'<input type="hidden" name="item" value="{item["id"]}">'
                        f'<input name="qty" value="1"><button type="submit">Order</button></form>'
                    )
                    self._send(200, _page(item["name"], body), session, new)
                elif path.startswith("/orders/"):
                    n = int(path[8:])
                    with site.lock:
                        order = site.orders[n] if n < len(site.orders) else None
                    if order is None:
                        self._send(404, _page("Not found", "<p>no such order</p>"), session, new)
                        return
                    body = f'<div id="confirm" data-order="{n}" data-item="{order["item"]}">Order {n} confirmed</div>'
                    self._send(200, _page("Order", body), session, new)
                else:
                    self._send(404, _page("Not found", ""), session, new)
            finally:
                self._end(req)

        def do_POST(self) -> None:  # noqa: N802
            session, new, path, req = self._begin()
            try:
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                if path != "/order":
                    self._send(404, _page("Not found", ""), session, new)
                    return
                with site.lock:
                    n = len(site.orders)
                    site.orders.append(
                        {"item": form.get("item", [""])[0], "qty": int(form.get("qty", ["1"])[0]), "session": session}
                    )
                self._send(303, b"", session, new, {"Location": f"/orders/{n}"})
            finally:
                self._end(req)

    return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # cancelled replicas hang up mid-response
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def shop_server() -> Iterator[ShopSite]:
    site = ShopSite()
    server = _QuietServer(("127.0.0.1", 0), _make_handler(site))
    server.daemon_threads = True
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="shop-site", daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def shop(shop_server: ShopSite) -> ShopSite:
    """The shop with no orders, no requests and no delays."""
    shop_server.reset()
    return shop_server


_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "price": {"type": "number"}},
}


def shop_tools() -> list[ToolManifest]:
    """READ navigation/list/get tools and one WRITE (a form post) for :class:`ShopSite`."""
    return [
        ToolManifest(
            name="goto_list",
            description="Open the list of all items.",
            type=ToolType.GOTO_ITEM,
            post={"page": "list"},
            execute="location.href = '/list'; return null;",
            post_check="return location.pathname === '/list' && document.querySelectorAll('li.item').length > 0;",
            navigates=True,
        ),
        ToolManifest(
            name="list_items",
            description="The items on the list page.",
            type=ToolType.LIST_ITEMS,
            pre={"page": "list"},
            output_schema={"type": "object", "properties": {"items": {"type": "array", "items": _ITEM_SCHEMA}},
                           "required": ["items"]},
            execute=(
                "return {items: [...document.querySelectorAll('li.item')].map((li) => "
                "({id: li.dataset.id, name: li.textContent.trim(), price: Number(li.dataset.price)}))};"
            ),
        ),
        ToolManifest(
            name="goto_item",
            description="Open the page of item `id`.",
            type=ToolType.GOTO_ITEM,
            input_schema={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            post={"page": "item", "item": "$id"},
            execute="location.href = '/item/' + encodeURIComponent(id); return null;",
            post_check=(
                "const el = document.querySelector('#item');"
                "return el && el.dataset.id === id ? true : [false, 'not on the page of item ' + id];"
            ),
            navigates=True,
            timeout_ms=5000,
        ),
        ToolManifest(
            name="get_item",
            description="The fields of the open item.",
            type=ToolType.GET_FIELDS,
            pre={"page": "item"},
            output_schema={**_ITEM_SCHEMA, "properties": {**_ITEM_SCHEMA["properties"], "cat": {"type": "string"}}},
            execute=(
                "const el = document.querySelector('#item');"
                "return {id: el.dataset.id, name: el.dataset.name, price: Number(el.dataset.price), cat: el.dataset.cat};"
            ),
        ),
        ToolManifest(
            name="fetch_item",
            description="The fields of item `id`, fetched without leaving the page.",
            type=ToolType.GET_FIELDS,
            input_schema={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            output_schema=_ITEM_SCHEMA,
            execute=(
                "const r = await fetch('/item/' + encodeURIComponent(id));"
                "if (!r.ok) throw new Error('HTTP ' + r.status);"
                "const doc = new DOMParser().parseFromString(await r.text(), 'text/html');"
                "const el = doc.querySelector('#item');"
                "return {id: el.dataset.id, name: el.dataset.name, price: Number(el.dataset.price)};"
            ),
        ),
        ToolManifest(
            name="order_item",
            description="Order `qty` of the open item `id` (places an order).",
            type=ToolType.SET_FIELDS,
            effect=Effect.WRITE,
            input_schema={
                "type": "object",
                "properties": {"id": {"type": "string"}, "qty": {"type": "integer"}},
                "required": ["id", "qty"],
            },
            pre={"page": "item", "item": "$id"},
            post={"page": "confirmation"},
            execute=(
                "const f = document.querySelector('#order');"
                "f.querySelector('input[name=qty]').value = String(qty); f.submit(); return null;"
            ),
            post_check=(
                "const c = document.querySelector('#confirm');"
                "return c && c.dataset.item === id ? true : [false, 'no confirmation for ' + id];"
            ),
            navigates=True,
        ),
        ToolManifest(
            name="get_confirmation",
            description="The number of the order just placed.",
            type=ToolType.GET_FIELDS,
            pre={"page": "confirmation"},
            output_schema={"type": "object", "properties": {"order": {"type": "integer"}, "item": {"type": "string"}}},
            execute=(
                "const c = document.querySelector('#confirm');"
                "return {order: Number(c.dataset.order), item: c.dataset.item};"
            ),
        ),
    ]


@pytest.fixture(scope="session")
def shop_cache() -> ToolCache:
    info = CacheInfo(app="shop", start_path="/", initial_state={"page": "home"})
    return ToolCache(info, shop_tools())


@pytest.fixture
def shop_runtime(shop: ShopSite, shop_cache: ToolCache, browser_pool: BrowserPool) -> Runtime:
    """A runtime on the shop; tools keep their own timeouts."""
    return Runtime(shop_cache, shop.url, pool=browser_pool)


class FakeSite:
    """Counts sends; each send takes ``delay`` seconds and answers ``ok`` (or fails at ``phase``)."""

    def __init__(self, delay: float = 0.0, phase: str | None = None) -> None:
        self.sent = 0
        self.delay = delay
        self.phase = phase

    async def send(self) -> CallOutcome:
        self.sent += 1
        await asyncio.sleep(self.delay)
        if self.phase:
            return CallOutcome(tool="order", ok=False, phase=self.phase, reason="boom")
        return CallOutcome(tool="order", ok=True, output={"order": self.sent}, url_after="http://x/orders/1")
