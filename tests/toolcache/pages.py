"""A small HTML site of a test's own on 127.0.0.1: a handler answers ``send_html``, :func:`serve` runs it."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class PageHandler(http.server.BaseHTTPRequestHandler):
    """A handler whose ``do_GET`` calls :meth:`send_html`; it logs nothing."""

    def send_html(self, body: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: Any) -> None:
        pass


@contextmanager
def serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` served on a free loopback port; yields the site's base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def record_and_build(pool: Any, site: str, scripts: dict[str, list[dict[str, Any]]], root: Any,
                           *, start: str | None = None) -> Any:
    """Record each of ``scripts`` (name -> steps, after a goto to ``start`` when given) on ``site``
    into ``root`` and build one cache from them with verification: ``(cache, report)``."""
    import json

    from toolcache.build import build_cache
    from toolcache.record import record_script
    from toolcache.script import load_script

    traces = []
    for name, steps in scripts.items():
        path = root / f"{name}.json"
        opening = [{"action": "goto", "url": start}] if start is not None else []
        path.write_text(json.dumps({"name": name, "reset": False, "steps": [*opening, *steps]}))
        traces.append(await record_script(pool, load_script(path), site, root / f"{name}.jsonl"))
    return await build_cache(traces, root / "cache", base_url=site, pool=pool)


def one_tool(cache: Any, prefix: str) -> Any:
    """The cache's one tool whose name starts with ``prefix`` (fails naming the tools when not one)."""
    found = [t for name, t in cache.tools.items() if name.startswith(prefix)]
    assert len(found) == 1, (prefix, sorted(cache.tools))
    return found[0]


def as_built_before(cache_dir: Any, name: str, new: str, old: str) -> None:
    """Make tool ``name`` of the cache at ``cache_dir`` one an older builder made: its helpers' text ``new``
    (which must be in each of its checks and its execute) written back as ``old``."""
    path = cache_dir / "tools" / f"{name}.json"
    data = json.loads(path.read_text())
    for key in ("pre_check", "execute", "post_check"):
        assert new in data[key]
        data[key] = data[key].replace(new, old)
    path.write_text(json.dumps(data))


DRAFT_EDITOR_JS = """
const ed = document.querySelector('[contenteditable]');
const field = document.querySelector('input[name=body]');
let model = field.value;
let saving = null;
const draw = () => {
  ed.replaceChildren();
  const block = document.createElement('div'), leaf = document.createElement('span');
  block.dataset.block = 'true';
  if (model) { const t = document.createElement('span'); t.dataset.text = 'true'; t.textContent = model; leaf.append(t); }
  else { const br = document.createElement('br'); br.dataset.text = 'true'; leaf.append(br); }
  block.append(leaf);
  ed.append(block);
};
const save = () => { clearTimeout(saving); saving = setTimeout(() => { field.value = model; }, 250); };
const clean = (s) => String(s).replace(/\\s+/g, ' ').trim();
// typed at the caret: at the start of an empty leaf the browser would write outside the text span,
// so the editor takes the text into its model and draws it (Draft.js's beforeinput handling)
ed.addEventListener('textInput', (e) => { if (model !== '') return; e.preventDefault(); model = e.data; draw(); save(); });
// any other change of the DOM: a block that held text is read back (its new text); an empty block
// (its leaf a <br>) is not, nor is text outside a block: the editor draws its model again (Draft.js's way)
ed.addEventListener('input', () => {
  const block = ed.querySelector('[data-block]');
  if (model !== '' && block && clean(block.textContent) === clean(ed.textContent)) model = clean(block.textContent);
  draw();
  save();
});
draw();
"""
"""A rich-text editor that keeps its text in a model of its own, as Draft.js does: the page's one
``[contenteditable]``, drawn from and saved (250 ms after an edit) to the hidden ``input[name=body]``."""
