"""Workflow tools: a demonstration no semantic pattern fits still yields tools that verify and run.

The site is a booking wizard of clickable ``div`` s (no form, no link, no role on
the controls): click Start, choose one of several desks, type a note, click
Finish, which posts the booking with ``fetch`` and shows a status message. The
builder's patterns make nothing that acts on these steps; the workflow tools
replay them, with the desk and the note as parameters. The Finish control's
label is hostile (quotes, ``${}``, code): it must stay data.
"""

from __future__ import annotations

import html
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool, call_tool
from toolcache.build import BuildReport, build_cache
from toolcache.cli import main
from toolcache.literal import js
from toolcache.record import record_scripts
from toolcache.script import Script

pytestmark = pytest.mark.browser

FINISH = "Finish '+(window.zqxj=1)+'\"${zqxj}"
"""The Finish control's label: code, if it were ever spliced into a tool body."""
DESKS = ["Alpha", "Beta", "Gamma", "</script><script>window.zqxj=1</script>"]

PAGE = """<!doctype html><html><head><title>Desk booking</title></head>
<body data-page="home"><main id="app">
<div class="panel" id="intro"><h1>Book a desk</h1><div class="act go">Start</div></div>
<div class="panel" id="choose" hidden><h2>Choose a desk</h2>
<div class="desks">%(desks)s</div>
<textarea class="note" placeholder="Note"></textarea>
%(finish)s</div>
<div class="panel" id="done" hidden><div class="status" role="status"></div></div>
</main>
<script>
const show = (id, page) => { for (const p of document.querySelectorAll('.panel')) p.hidden = p.id !== id; document.body.dataset.page = page; };
document.querySelector('.go').addEventListener('click', () => show('choose', 'wizard'));
let desk = null;
for (const d of document.querySelectorAll('.desk')) d.addEventListener('click', () => {
  for (const o of document.querySelectorAll('.desk')) o.classList.remove('picked');
  d.classList.add('picked'); desk = d.textContent;
});
document.querySelector('.end')?.addEventListener('click', async () => {
  const r = await fetch('/api/book', {method: 'POST', headers: {'content-type': 'application/json'},
    body: JSON.stringify({desk, note: document.querySelector('.note').value})});
  const d = await r.json();
  document.querySelector('.status').textContent = d.message;
  show('done', 'done');
});
</script></body></html>"""


class DeskSite:
    """The wizard on 127.0.0.1; ``bookings`` is its state (``POST /__reset`` empties it)."""

    def __init__(self, finish: str | None = FINISH) -> None:
        self.bookings: list[dict[str, Any]] = []
        desks = "".join(f'<div class="desk">{html.escape(d)}</div>' for d in DESKS)
        end = f'<div class="act end">{html.escape(finish)}</div>' if finish is not None else ""
        page = (PAGE % {"desks": desks, "finish": end}).encode()
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _send(self, code: int, ctype: str, body: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                if self.path.split("?")[0] == "/":
                    self._send(200, "text/html; charset=utf-8", page)
                else:
                    self._send(404, "text/plain", b"not found")

            def do_POST(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/__reset":
                    site.bookings.clear()
                    self._send(200, "application/json", b"{}")
                elif self.path == "/api/book":
                    req = json.loads(data or b"{}")
                    site.bookings.append({"desk": req.get("desk"), "note": req.get("note")})
                    body = {"id": len(site.bookings), "message": f"Booked {req.get('desk')} (#{len(site.bookings)})"}
                    self._send(200, "application/json", json.dumps(body).encode())
                else:
                    self._send(404, "text/plain", b"not found")

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


SCRIPT = {"name": "book", "description": "Book a desk with a note", "steps": [
    {"action": "goto", "url": "/"},
    {"action": "click", "target": {"text": "Start"}},
    {"action": "click", "target": {"selector": ".desk", "text": "Gamma"}},
    {"action": "fill", "target": {"selector": "textarea.note"}, "value": "window seat please"},
    {"action": "click", "target": {"text": FINISH}},
]}


@pytest.fixture(scope="module")
def desk_site() -> Iterator[DeskSite]:
    site = DeskSite()
    try:
        yield site
    finally:
        site.close()


@pytest.fixture(scope="module")
async def built(desk_site: DeskSite, browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demonstration recorded once, built with and without workflow tools."""
    root = tmp_path_factory.mktemp("workflow")
    traces = root / "traces"
    await record_scripts([Script.model_validate(SCRIPT)], desk_site.url, traces, pool=browser_pool)
    recorded = list(desk_site.bookings)
    desk_site.bookings.clear()
    cache, report = await build_cache([traces], root / "cache", base_url=desk_site.url, pool=browser_pool)
    after_build = list(desk_site.bookings)
    old_cache, old = await build_cache([traces], root / "old", base_url=desk_site.url, pool=browser_pool, workflow=False)
    return {"traces": traces, "cache": cache, "report": report, "old_cache": old_cache, "old": old,
            "recorded": recorded, "after_build": after_build, "root": root}


def _workflows(report: BuildReport) -> list[str]:
    assert report.workflow is not None
    return report.workflow["kept"]


def test_the_build_makes_workflow_tools_that_verify_and_cover_the_demonstration(built: dict[str, Any]) -> None:
    report: BuildReport = built["report"]
    assert built["recorded"] == [{"desk": "Gamma", "note": "window seat please"}]
    assert built["after_build"] == []  # verified from the recorded response: the site got no booking
    kept = _workflows(report)
    assert kept == report.workflow["made"] and len(kept) == 2, report.rejected  # type: ignore[index]
    cache: ToolCache = built["cache"]
    start, finish = (cache.tools[n] for n in kept)
    assert start.name == "do_start_home" and start.pre == {"page": "home"} and start.post == {"page": "wizard"}
    assert not start.is_write and start.parameters == {}
    # the desk (one of several like divs) and the note are parameters; the booking is a write
    assert finish.required == ["desk", "note"] and finish.is_write
    assert finish.pre == {"page": "wizard"} and finish.post == {"page": "done"}
    assert report.writes[finish.name] == "recorded"
    assert set(kept) <= set(report.verified)
    cov = report.coverage
    assert cov is not None and cov.steps == 4 and cov.fraction == 1.0 and cov.missed == []
    data = report.to_json()["workflow_tools"]
    assert data["made"] == 2 and data["kept"] == 2 and data["kept_names"] == kept


def test_without_workflow_tools_the_build_is_as_before(built: dict[str, Any]) -> None:
    old: BuildReport = built["old"]
    report: BuildReport = built["report"]
    assert old.workflow is None and old.to_json()["workflow_tools"] is None
    assert set(built["old_cache"].tools) == set(built["cache"].tools) - set(_workflows(report))
    assert old.coverage is not None and old.coverage.covered < old.coverage.steps  # the wizard's steps: no tool acts on them
    assert {m["index"] for m in old.coverage.missed} >= {2, 3, 4}


async def test_the_workflow_tools_book_another_desk_in_chromium(built: dict[str, Any], desk_site: DeskSite,
                                                                page: Any) -> None:
    cache: ToolCache = built["cache"]
    start, finish = (cache.tools[n] for n in _workflows(built["report"]))
    desk_site.bookings.clear()
    await page.goto(desk_site.url)
    out = await call_tool(page, start, {})
    assert out.ok, out.reason
    missing = await call_tool(page, finish, {"desk": "Epsilon", "note": "x"})
    assert not missing.ok and missing.phase == "pre_check" and "no item matches" in (missing.reason or "")
    out = await call_tool(page, finish, {"desk": "Beta", "note": "near the door"})
    assert out.ok, out.reason
    assert desk_site.bookings == [{"desk": "Beta", "note": "near the door"}]
    assert await page.evaluate("document.querySelector('[role=status]').textContent") == "Booked Beta (#1)"
    # the hostile desk name is a value like any other, and no page text ran as code
    await page.goto(desk_site.url)
    assert (await call_tool(page, start, {})).ok
    assert (await call_tool(page, finish, {"desk": DESKS[3], "note": ""})).ok
    assert desk_site.bookings[-1] == {"desk": DESKS[3], "note": ""}
    assert await page.evaluate("typeof window.zqxj") == "undefined"
    desk_site.bookings.clear()


def test_a_hostile_label_is_a_literal_in_the_tool_body(built: dict[str, Any]) -> None:
    cache: ToolCache = built["cache"]
    finish = cache.tools[_workflows(built["report"])[1]]
    assert js(FINISH) in finish.execute  # encoded once, by the encoder
    assert FINISH not in finish.execute and "zqxj=1)+'" not in finish.execute.replace(js(FINISH), "")
    assert finish.name.isidentifier() and finish.name.startswith("do_finish")


async def test_a_workflow_tool_that_fails_verification_is_rejected_and_its_steps_stay_uncovered(
        built: dict[str, Any], browser_pool: BrowserPool) -> None:
    other = DeskSite(finish=None)  # the site changed: its wizard lost the control the demonstration clicked last
    try:
        _, report = await build_cache([built["traces"]], built["root"] / "changed", base_url=other.url, pool=browser_pool)
    finally:
        other.close()
    assert report.workflow is not None
    rejected = [n for n in report.workflow["made"] if n not in report.workflow["kept"]]
    assert len(rejected) == 1 and "no element matches" in report.rejected[rejected[0]]
    assert report.coverage is not None and report.coverage.fraction < 1.0
    whys = {m["index"]: m["why"] for m in report.coverage.missed}
    assert set(whys) == {2, 3, 4} and all(f"workflow tool {rejected[0]} was rejected" in w for w in whys.values())


def test_the_command_line_turns_workflow_tools_off(built: dict[str, Any], desk_site: DeskSite,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = built["root"] / "cli"
    code = main(["build", str(built["traces"]), "-o", str(out), "--site", desk_site.url, "--json", "--no-workflow-tools"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["workflow_tools"] is None
    assert not [p for p in Path(out, "tools").glob("do_*.json")]
