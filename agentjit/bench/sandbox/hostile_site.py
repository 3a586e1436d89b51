"""A tiny site on 127.0.0.1 whose every name, label and text is hostile: the builder's adversary.

Every place the builder reads from a page carries ``text``: the page names
(``<body data-page>``, with ``|`` and ``*`` and a quote that would end a JS
string), test ids, ids, classes, ``data-*`` values, link ``href``\\ s, input
names, placeholders, ``aria-label``\\ s, option values and labels, headings,
table headers, card texts, a dialog's title and its opener's accessible name.
A request for ``/x`` (or any path under it) is what an injected ``fetch('/x')``
would send: :attr:`HostileSite.injected` counts them, and no page of the site
ever asks for it. Writes (``POST /save``, ``/remove``) answer ``{"ok": true}``.

The home page shows a list of cards (each opens an item page), a search box
(Enter reloads with ``?q=``), a filter box (Enter filters in place and writes
the value to a URL parameter named with ``text``), a pager link, a data table
whose header sorts it, a link to the first item and a button that opens a
``<dialog>`` with a form whose Save posts; the item page shows fields. :data:`SCRIPT` demonstrates all of them
(a demonstration script as plain data, the format of ``traces/README.md``).

Used by the injection tests (``tests/toolcache/test_injection.py``) and by
``agentjit bench sandbox`` (:mod:`agentjit.bench.sandbox.sites`).
"""

from __future__ import annotations

import html
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["HostileSite", "SCRIPT", "INJECTED_PAGE", "DIALOG_OPENER"]

INJECTED_PAGE = "list|*|'+(fetch('/x'),'')+'"
"""The home page's ``data-page``: a wildcard, alternatives and a quote that ends a JS string."""
DIALOG_OPENER = "Add'+(fetch('/x/dialog'),'')+'"
"""The accessible name of the button that opens the dialog: a quote, then code."""

_JS = """
const d = document.getElementById('d');
document.getElementById('open').addEventListener('click', () => d.showModal());
document.getElementById('save').addEventListener('click', async () => {
  await fetch('/save', {method: 'POST', body: JSON.stringify({title: document.querySelector('dialog input').value})});
  d.close();
});
for (const b of document.querySelectorAll('[data-testid=remove]')) {
  b.addEventListener('click', () => fetch('/remove', {method: 'POST', body: b.closest('li').dataset.name}));
}
const f = document.querySelector('input[name=f]');
f.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  history.pushState(null, '', '?' + encodeURIComponent(f.dataset.key) + '=' + encodeURIComponent(f.value));
  for (const li of document.querySelectorAll('[data-testid=card]')) li.hidden = !li.dataset.name.includes(f.value);
});
const q = document.querySelector('input[type=search]');
q.addEventListener('keydown', (e) => { if (e.key === 'Enter') location.search = '?q=' + encodeURIComponent(q.value); });
"""


def _home(text: str, query: str) -> str:
    t = html.escape(text, quote=True)
    page = html.escape(INJECTED_PAGE + text, quote=True)
    names = [f"{text} {i}" for i in (1, 2, 3)]
    shown = [n for n in names if query.lower() in n.lower()] or names
    cards = "".join(
        f'<li class="card x{t}" data-testid="card" data-name="{html.escape(n, quote=True)}" data-note="{t}">'
        f'<a href="/item/{names.index(n) + 1}"><h3 data-testid="card-name">{html.escape(n)}</h3></a>'
        f'<span data-testid="card-price">{names.index(n) + 1}.50 {t}</span>'
        '<button data-testid="remove">Remove</button></li>'
        for n in shown
    )
    nested = "<div>" * 60 + t + "</div>" * 60
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{t} shop</title></head>
<body data-page="{page}">
<header><h1 data-testid="title">{t} Store</h1></header>
<nav><a href="/item/1?tab=x{t}" id="nav-{t}">First {t}</a></nav>
<main>
<input type="search" name="q-{t}" placeholder="Find {t}" aria-label="Search {t}" value="{html.escape(query, quote=True)}">
<input name="f" placeholder="Filter" data-key="k{t}">
<a href="/?page=2" rel="next">Next page</a>
<ul class="cards">{cards}</ul>
<table id="t-{t}"><thead><tr><th><a href="/?sort=x{t}">{t} name</a></th><th>qty</th></tr></thead>
<tbody><tr><td>a {t}</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody></table>
<button id="open" aria-label="{html.escape(DIALOG_OPENER, quote=True)}">Open {t}</button>
<dialog id="d" aria-label="{t} dialog"><h2>{t}</h2>
<input name="title-{t}" placeholder="Title {t}">
<select name="kind"><option value="{t}">{t} kind</option><option value="b">b</option></select>
<button id="save">Save</button></dialog>
<section data-testid="deep">{nested}</section>
</main>
<script>{_JS}</script>
</body></html>"""


def _item(text: str, n: int) -> str:
    t = html.escape(text, quote=True)
    page = html.escape("item*|" + text, quote=True)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{t} {n}</title></head>
<body data-page="{page}">
<h1>{t} {n}</h1>
<div data-testid="item-price" data-value="{n}.50">{n}.50</div>
<p data-testid="item-about">About {t} {n}</p>
<a href="/" id="back">Back to {t}</a>
</body></html>"""


class HostileSite:
    """The site for ``text``, served in a daemon thread: ``with HostileSite(text) as site: site.url``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.injected: list[str] = []
        """Paths of the requests an injected ``fetch('/x')`` sent (``/x`` and below)."""
        self.writes: list[str] = []
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> HostileSite:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                u = urlsplit(self.path)
                if u.path == "/x" or u.path.startswith("/x/"):
                    site.injected.append(self.path)
                    return self._send(200, b"", "text/plain")
                if u.path == "/":
                    q = (parse_qs(u.query).get("q") or [""])[0]
                    return self._send(200, _home(site.text, q).encode(), "text/html; charset=utf-8")
                if u.path.startswith("/item/") and u.path[6:].isdigit():
                    return self._send(200, _item(site.text, int(u.path[6:])).encode(), "text/html; charset=utf-8")
                return self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                u = urlsplit(self.path)
                if u.path == "/x" or u.path.startswith("/x/"):
                    site.injected.append(self.path)
                elif u.path in ("/save", "/remove"):
                    site.writes.append(u.path)
                elif u.path != "/__reset":
                    return self._send(404, b"not found", "text/plain")
                return self._send(200, b'{"ok": true}', "application/json")

            def _send(self, status: int, body: bytes, ctype: str) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the page went on before reading the answer

            def log_message(self, *_args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


SCRIPT: dict[str, Any] = {"name": "hostile", "reset": False, "steps": [
    {"action": "goto", "url": "/"},
    {"action": "click", "target": {"selector": "[data-testid=card] a", "nth": 1}},
    {"action": "goto", "url": "/"},
    {"action": "click", "target": {"selector": "nav a"}},
    {"action": "goto", "url": "/"},
    {"action": "fill", "target": {"selector": "input[type=search]"}, "value": "2"},
    {"action": "press", "target": {"selector": "input[type=search]"}, "value": "Enter"},
    {"action": "goto", "url": "/"},
    {"action": "fill", "target": {"selector": "input[name=f]"}, "value": "2"},
    {"action": "press", "target": {"selector": "input[name=f]"}, "value": "Enter"},
    {"action": "goto", "url": "/"},
    {"action": "click", "target": {"selector": "a[rel=next]"}},
    {"action": "click", "target": {"selector": "thead a"}},
    {"action": "goto", "url": "/"},
    {"action": "click", "target": {"selector": "[data-testid=remove]"}},
    {"action": "click", "target": {"selector": "#open"}},
    {"action": "fill", "target": {"selector": "dialog input"}, "value": "hello"},
    {"action": "select", "target": {"selector": "dialog select"}, "value": "b"},
    {"action": "click", "target": {"selector": "#save"}},
]}
"""A demonstration of every control of the site."""
