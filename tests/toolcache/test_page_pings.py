"""Writes a page sends by itself once loaded (an editor's session ping, a beacon) are not the
step's: the recorder leaves them out of the step's ``requests``, and the verifier drops them
unsent without failing the tool, so a save that lands on a pinging editor still becomes a
verified WRITE tool, and the build sends nothing to the site.

A tiny editor of our own on 127.0.0.1: ``/edit`` is a form (post, then a redirect back to
``/edit``) whose script POSTs ``/ping`` as it runs, before the document has finished loading.
``/timed`` is the same editor pinging on a timer too, so the ping also goes out during a later
step on the editor loaded before it (and during a tool call that starts there); ``/greedy`` adds
a button whose click POSTs ``/other`` (a write no demonstration sent, which must be refused).
``/held`` holds its form's submit until a ping sent on the click is answered (as Wagtail's editor
does): verification answers that ping with the demonstration's answer, unsent, or nothing saves.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.protocol.trace import TraceWriter, read_trace
from agentjit.runtime import BrowserPool
from toolcache.build import build_cache
from toolcache.record import record_script
from toolcache.script import load_script

pytestmark = pytest.mark.browser

EDIT = """<html><head><title>Edit page</title></head><body><h1>Edit page</h1>
<form method="post" action="/edit"><label for="t">Title</label><input id="t" name="title" value="{title}">
<button type="submit">Save draft</button></form>
<script>fetch('/ping', {{method: 'POST', body: 'alive'}});</script>
</body></html>"""
TIMER = ("<script>const load = '{load}';"
         "setInterval(() => fetch('/ping', {method: 'POST', body: load}), 250);"
         "addEventListener('pagehide', () => navigator.sendBeacon('/release', load));</script>")
"""A ping on a timer, every 250 ms, so the steps and tool calls on the editor send some, and a
beacon as the page unloads (no route sees it); their body names the page load that sent them
(``load-N``: the site's N-th answer to a GET; a document the build serves from the recording
sends one of the recording's)."""
HELD = ("<script>document.querySelector('form').addEventListener('submit', (event) => {"
        " event.preventDefault(); const form = event.target;"
        " fetch('/ping', {method: 'POST', body: 'held'}).then((r) => r.json())"
        " .then((answer) => { if (answer.ok) form.submit(); }); });</script>")
"""The save waits on a ping: the form is submitted only once the ping's answer says ``ok``."""


class Editor:
    def __init__(self) -> None:
        self.title = "Old title"
        self.saves: list[str] = []
        self.pings = 0
        self.gets = 0
        """GETs the site answered."""
        self.loads: set[str] = set()
        """The page loads whose timer pinged the site (a ping's body)."""
        self.released: set[str] = set()
        """The page loads whose unload beacon reached the site."""


def _handler(editor: Editor) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def _send(self, status: int, body: str = "", location: str | None = None, ctype: str = "text/html; charset=utf-8") -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            page = EDIT.format(title=editor.title).replace('action="/edit"', f'action="{self.path}"')
            editor.gets += 1
            if self.path in ("/timed", "/greedy"):
                page = page.replace("</body>", TIMER.replace("{load}", f"load-{editor.gets}") + "</body>")
            if self.path == "/held":
                page = page.replace("</body>", HELD + "</body>")
            if self.path == "/greedy":  # its Save also POSTs somewhere the demonstration never saw
                page = page.replace("<form ", "<form onsubmit=\"fetch('/other', {method: 'POST', body: 'x'})\" ")
            self._send(200, page)

        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            if self.path == "/release":
                editor.released.add(body)
                self._send(200, "ok")
                return
            if self.path == "/ping":
                editor.pings += 1
                editor.loads.add(body)
                self._send(200, '{"ok": true}', ctype="application/json")
                return
            editor.title = parse_qs(body).get("title", [""])[0]
            editor.saves.append(editor.title)
            self._send(302, location=self.path)

        def log_message(self, *_args: Any) -> None:
            pass

    return Handler


@pytest.fixture(scope="module")
def editor() -> Iterator[tuple[str, Editor]]:
    state = Editor()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()


async def test_a_pinging_editor_gives_a_verified_save_and_the_build_sends_nothing(
        editor: tuple[str, Editor], browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, state = editor
    script = tmp_path / "rename.json"
    script.write_text(json.dumps({"name": "rename", "reset": False, "steps": [
        {"action": "goto", "url": "/edit"},
        {"action": "fill", "target": {"role": "textbox", "name": "Title"}, "value": "New title"},
        {"action": "click", "target": {"role": "button", "name": "Save draft"}},
    ]}))
    trace_path = await record_script(browser_pool, load_script(script), url, tmp_path / "rename.jsonl")
    assert state.saves == ["New title"] and state.pings >= 2  # the demonstration ran: a save, pings on every load
    steps = read_trace(trace_path).steps
    assert [r["method"] for r in steps[0].requests] == []  # the editor's ping after the goto is the page's
    assert [(r["method"], r["url"].removeprefix(url)) for r in steps[2].requests] == [("POST", "/edit")]

    pings, saves = state.pings, list(state.saves)
    cache, report = await build_cache([trace_path], tmp_path / "cache", base_url=url, pool=browser_pool)
    writes = {name: how for name, how in report.writes.items() if not how.startswith("rejected")}
    assert list(writes.values()) == ["recorded"], report.writes
    assert report.rejected == {}, report.rejected
    assert (state.saves, state.pings) == (saves, pings)  # neither the save nor a ping reached the site


async def test_a_save_that_waits_on_its_ping_is_verified_and_the_build_sends_nothing(
        editor: tuple[str, Editor], browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, state = editor
    script = tmp_path / "held.json"
    script.write_text(json.dumps({"name": "held", "reset": False, "steps": [
        {"action": "goto", "url": "/held"},
        {"action": "fill", "target": {"role": "textbox", "name": "Title"}, "value": "Held title"},
        {"action": "click", "target": {"role": "button", "name": "Save draft"}},
    ]}))
    trace_path = await record_script(browser_pool, load_script(script), url, tmp_path / "held.jsonl")
    assert state.saves[-1] == "Held title"  # the demonstration saved, once its ping was answered
    steps = read_trace(trace_path).steps
    assert [(r["method"], r["url"].removeprefix(url)) for r in steps[2].requests] == [("POST", "/held")]
    # the pings are the page's, kept apart with their answers
    kept = [(r["method"], r["url"].removeprefix(url), r["status"], r["response"]["body"]) for st in steps for r in st.background]
    assert ("POST", "/ping", 200, '{"ok": true}') in kept, kept

    await _quiet(state)  # a ping of the demonstration's last page may reach the server late
    pings, saves = state.pings, list(state.saves)
    _, report = await build_cache([trace_path], tmp_path / "cache", base_url=url, pool=browser_pool)
    assert report.rejected == {}, report.rejected
    assert {how for how in report.writes.values()} == {"recorded"}, report.writes
    assert (state.saves, state.pings) == (saves, pings)  # neither the save nor a ping reached the site

    # a ping answer whose body the recorder no longer had (the save navigated away from the page
    # that read it) does not replace one with its body: the page still gets "ok" and saves
    trace = read_trace(trace_path)
    for w in trace.steps[2].background:
        w["response"]["body"] = None
    lost = tmp_path / "lost.jsonl"
    with TraceWriter(lost, trace.session) as writer:
        for st in trace.steps:
            html = trace.snapshot_html(st)
            writer.step(st.model_copy(update={"snapshot": writer.snapshot(html) if html is not None else None}))
    _, report = await build_cache([lost], tmp_path / "lost-cache", base_url=url, pool=browser_pool)
    assert report.rejected == {}, report.rejected
    assert {how for how in report.writes.values()} == {"recorded"}, report.writes
    assert (state.saves, state.pings) == (saves, pings)


async def _quiet(state: Editor, still: float = 1.5, limit: float = 15.0) -> None:
    """Wait until no ping has reached the server for ``still`` seconds (at most ``limit``): the
    recording's pages are closed, but on a busy machine their last pings arrive late."""
    loop = asyncio.get_running_loop()
    t0 = last = loop.time()
    seen = state.pings
    while loop.time() - last < still and loop.time() - t0 < limit:
        await asyncio.sleep(0.1)
        if state.pings != seen:
            seen, last = state.pings, loop.time()


async def _record(url: str, path: str, browser_pool: BrowserPool, tmp_path: Path) -> Path:
    script = tmp_path / "retitle.json"
    script.write_text(json.dumps({"name": "retitle", "reset": False, "steps": [
        {"action": "goto", "url": path},
        {"action": "wait", "value": 600},
        {"action": "fill", "target": {"role": "textbox", "name": "Title"}, "value": "Timed title"},
        {"action": "wait", "value": 600},
        {"action": "click", "target": {"role": "button", "name": "Save draft"}},
    ]}))
    return await record_script(browser_pool, load_script(script), url, tmp_path / "retitle.jsonl")


async def test_an_editor_pinging_on_a_timer_gives_a_verified_save(
        editor: tuple[str, Editor], browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, state = editor
    pings = state.pings
    trace_path = await _record(url, "/timed", browser_pool, tmp_path)
    assert state.pings >= pings + 5  # the timer pinged all along the demonstration
    steps = read_trace(trace_path).steps
    assert [[(r["method"], r["url"].removeprefix(url)) for r in st.requests] for st in steps] == [
        [], [], [], [], [("POST", "/timed")]]  # the timer's pings during the fill and the save are the page's

    # the recording's last page (the save's answer, a new load) is closed; a ping it sent just
    # before may reach the server a moment later on a busy machine: it is the demonstration's
    await _quiet(state)
    served, saves = state.gets, list(state.saves)
    _, report = await build_cache([trace_path], tmp_path / "cache", base_url=url, pool=browser_pool)
    assert report.rejected == {}, report.rejected
    assert {how for how in report.writes.values()} == {"recorded"}, report.writes

    def by_the_build(loads: set[str]) -> set[str]:
        """Loads of a page the build had from the site (a late ping of the demonstration's own may still come)."""
        return {x for x in loads if x.startswith("load-") and int(x.removeprefix("load-")) > served}

    # neither the save nor a ping nor the unload beacon of a page the build loaded reached the site
    assert state.saves == saves and not by_the_build(state.loads) and not by_the_build(state.released)


async def test_a_write_the_demonstration_did_not_send_is_still_refused(
        editor: tuple[str, Editor], browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, state = editor
    trace_path = await _record(url, "/greedy", browser_pool, tmp_path)
    save = read_trace(trace_path).steps[-1]
    # the recorder keeps the save's own fetch: the page never sent to /other by itself
    assert sorted(r["url"].removeprefix(url) for r in save.requests) == ["/greedy", "/other"]
    trace = read_trace(trace_path)
    for st in trace.steps:  # a demonstration that sent only the form's post: /other is the tool's own, unshown
        st.requests = [r for r in st.requests if not r["url"].endswith("/other")]
    edited = tmp_path / "edited.jsonl"
    with TraceWriter(edited, trace.session) as writer:
        for st in trace.steps:
            html = trace.snapshot_html(st)
            writer.step(st.model_copy(update={"snapshot": writer.snapshot(html) if html is not None else None}))
    saves = list(state.saves)
    _, report = await build_cache([edited], tmp_path / "cache", base_url=url, pool=browser_pool)
    assert state.saves == saves
    assert any("/other" in why or "other" in why for why in report.rejected.values()), report.rejected
