"""A generated redesign of any bench app: an HTML-rewriting proxy in front of it, reproducible by seed (issue 21).

:class:`RedesignProxy` serves ``upstream`` on a port of its own and rewrites
every HTML, JavaScript and CSS response the way a redesign changes markup:

* **renames** the names sites key elements by, the values of ``class``,
  ``id`` and ``data-testid`` (``store-header`` becomes ``rd-3f9a1c``), the
  same way everywhere (in the page's own scripts and styles too, so the app
  keeps working), each new name a hash of the seed and the old one;
* **wraps** controls: a seeded share of ``<button>`` elements gets a
  ``<span>`` around it (a ``form > button`` selector no longer matches);
* **relabels** visible texts given in ``labels`` (``{"Full Menu": "Our menu"}``).

Only compound names (with ``-`` or ``_``) are renamed, and never after a ``/``
(``/store/taqueria-el-sol`` is a URL, not a class). ``only`` narrows the
renaming to some names: one element renamed, to test a single broken tool.
Requests pass through with every new name written back as the old one (a
renamed value the page's script sends, an item's id, reaches the app as the
app named it, a page address it sends back, Roundup's ``__came_from``, as the
app's own; redirects and the app's absolute addresses in its pages point
back at the proxy), so the app's state,
``/__state`` and ``/__reset`` behave as without the proxy.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import random
import re
import threading
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote, urlsplit

from .wsgi_site import QuietDisconnects

__all__ = ["RedesignProxy", "Redesign"]

log = logging.getLogger(__name__)

_ATTR = re.compile(r"""\b(class|id|data-testid)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_JS_NAMES = re.compile(
    r"""data-testid=["']?([\w-]+)|getElementById\(\s*["']([\w-]+)["']|classList\.\w+\(\s*["']([\w-]+)["']""")
_COMPOUND = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+$")
_NEW_NAME = re.compile(r"rd-[0-9a-f]{6}")
_BUTTON = re.compile(r"<button\b.*?</button>", re.S | re.I)
_TEXT_TYPES = ("text/html", "javascript", "text/css")
_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "accept-encoding",
        "proxy-connection", "te", "trailer", "upgrade", "host"}  # fmt: skip


class Redesign:
    """The rewriting itself: which names change to what, which buttons get wrapped (thread-safe)."""

    def __init__(self, seed: int = 0, *, only: Iterable[str] | None = None, wrap: float = 0.0,
                 labels: Mapping[str, str] | None = None) -> None:  # fmt: skip
        self.seed = seed
        self.only = set(only) if only is not None else None
        self.wrap = wrap
        self.labels = dict(labels or {})
        self.names: dict[str, str] = {}
        self._lock = threading.Lock()
        self._pattern: re.Pattern[str] | None = None

    def new_name(self, name: str) -> str:
        return "rd-" + hashlib.sha256(f"{self.seed}:{name}".encode()).hexdigest()[:6]

    def learn(self, text: str) -> None:
        """Add the element names ``text`` uses (attributes, selectors in scripts) to the renamed ones."""
        found: set[str] = set()
        for m in _ATTR.finditer(text):
            found.update((m.group(2) if m.group(2) is not None else m.group(3) or "").split())
        for m in _JS_NAMES.finditer(text):
            found.update(g for g in m.groups() if g)
        found = {n for n in found if _COMPOUND.match(n) and not n.startswith("rd-")}
        if self.only is not None:
            found &= self.only
        with self._lock:
            fresh = found - set(self.names)
            if fresh:
                for name in fresh:
                    self.names[name] = self.new_name(name)
                alts = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
                self._pattern = re.compile(rf"(?<![\w/-])({alts})(?![\w-])")

    def restore(self, text: str) -> str:
        """``text`` (a request's path or body) with every new name written back as the old one."""
        with self._lock:
            back = {new: old for old, new in self.names.items()}
        return _NEW_NAME.sub(lambda m: back.get(m.group(0), m.group(0)), text) if back else text

    def rewrite(self, text: str, *, html: bool) -> str:
        self.learn(text)
        with self._lock:
            pattern, names = self._pattern, dict(self.names)
        if pattern is not None:
            text = pattern.sub(lambda m: names[m.group(1)], text)
        if html:
            for old, new in self.labels.items():
                text = text.replace(f">{old}<", f">{new}<")
            if self.wrap > 0:
                rng = random.Random(f"{self.seed}:wrap")
                text = _BUTTON.sub(lambda m: f'<span class="rd-wrap">{m.group(0)}</span>' if rng.random() < self.wrap
                                   else m.group(0), text)  # fmt: skip
        return text


class _ProxyServer(QuietDisconnects, ThreadingHTTPServer):
    daemon_threads = True


class RedesignProxy:
    """``upstream`` (``http://127.0.0.1:PORT``) redesigned by :class:`Redesign`, served at :attr:`url`.

    ``with RedesignProxy(site.url, seed=3) as proxy: ... proxy.url ...``
    """

    def __init__(self, upstream: str, seed: int = 0, *, only: Iterable[str] | None = None, wrap: float = 0.0,
                 labels: Mapping[str, str] | None = None) -> None:  # fmt: skip
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"the redesign proxy needs an http:// upstream, got {upstream!r}")
        self.upstream = upstream.rstrip("/")
        self.redesign = Redesign(seed, only=only, wrap=wrap, labels=labels)
        self._host, self._port = parts.hostname, parts.port or 80
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def upstream_text(self, text: str) -> str:
        """``text`` (a request's path, body or Referer) as the app wrote it: its new names back to the old ones, the
        proxy's address (plain or percent-encoded: Roundup's ``__came_from`` field) back to the app's."""
        for mine, theirs in ((self.url, self.upstream), (quote(self.url, safe=""), quote(self.upstream, safe=""))):
            text = text.replace(mine, theirs)
        return self.redesign.restore(text)

    def start(self) -> RedesignProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
                log.debug("redesign proxy: " + format, *args)

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if body is not None:
                    body = proxy.upstream_text(body.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                for k, v in headers.items():  # the app checks where a form came from (Roundup's CSRF check)
                    if k.lower() in ("referer", "origin"):
                        headers[k] = proxy.upstream_text(v)
                conn = http.client.HTTPConnection(proxy._host, proxy._port, timeout=60)
                try:
                    conn.request(self.command, proxy.upstream_text(self.path), body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                finally:
                    conn.close()
                kind = resp.getheader("Content-Type") or ""
                if any(t in kind for t in _TEXT_TYPES):
                    # the app's own absolute addresses (Roundup's form actions and <base href>) point at the proxy:
                    # a form posted straight to the app would skip the proxy and fail the app's Referer check
                    text = data.decode("utf-8", "replace").replace(proxy.upstream, proxy.url)
                    data = proxy.redesign.rewrite(text, html="text/html" in kind).encode()
                self.send_response(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() in _HOP:
                        continue
                    if k.lower() == "location":
                        v = v.replace(proxy.upstream, proxy.url)
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward

        self._server = _ProxyServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="redesign-proxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
