"""An editor that autosaves on a timer after an edit (Wagtail 8's page editor), in real Chromium.

The add form autosaves 800 ms after its last edit: a ``fetch`` POST of the form to the form's own
address that makes the item, answered late (2 s), whose answer moves the form and the URL to the new
item's editor. Meanwhile an indicator counts down to the autosave ("Autosave in 420 ms"), so a
recorded fill does not settle before the autosave is due (as on a loaded machine). Save submits the
form: a new item -> 303 to its page; one whose title an autosave already took -> the form again,
"An item with this title exists" (Wagtail's slug conflict).

The demonstration fills the title and the body and clicks Save. The autosave is the page's own
later work, set off by the fills: the recorder must not let it run into the Save (the step's
outcome is the Save's answer, the item's page), nor take it as a step's write. The create tool
built from it must save, landing on the item's page, and its post_check pass.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.protocol.trace import read_trace
from agentjit.runtime import BrowserPool, call_tool
from toolcache.build import build_cache
from toolcache.record import record_script
from toolcache.script import load_script

from .pages import PageHandler, serve

pytestmark = pytest.mark.browser

AUTOSAVE_MS = 800
ANSWER_S = 2.0
"""How late the site answers an autosave (it has made the item by then)."""


class Site:
    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []
        self.autosaves = 0
        self.saves = 0


def _form(action: str, item: dict[str, str] | None = None, error: str = "") -> str:
    item = item or {"title": "", "body": ""}
    return f"""<!doctype html><html><head><title>Item editor</title></head><body><main>
<h1>{'New item' if action.endswith('/add/') else 'Edit item'}</h1>
{f'<p class="error-message">{html.escape(error)}</p>' if error else ''}
<form method="post" action="{html.escape(action)}">
<label for="id_title">Title</label><input id="id_title" name="title" value="{html.escape(item['title'])}">
<label for="id_body">Body</label><textarea id="id_body" name="body">{html.escape(item['body'])}</textarea>
<button type="submit">Save</button>
</form><p id="autosave" role="status"></p></main>
<script>
const form = document.querySelector('form'), note = document.getElementById('autosave');
let saving = null, ticking = null;
form.addEventListener('input', () => {{
  clearTimeout(saving); clearInterval(ticking);
  const due = Date.now() + {AUTOSAVE_MS};
  ticking = setInterval(() => {{
    const left = due - Date.now();
    note.textContent = left > 0 ? `Autosave in ${{left}} ms` : 'Autosaving';
    if (left <= 0) clearInterval(ticking);
  }}, 40);
  saving = setTimeout(() => {{
    fetch(form.action, {{method: 'POST', body: new URLSearchParams(new FormData(form)), headers: {{Accept: 'application/json'}}}})
      .then((r) => r.json()).then((answer) => {{
        if (answer.url) {{ form.action = answer.url; history.replaceState(null, '', answer.url); }}
        note.textContent = 'Saved';
      }});
  }}, {AUTOSAVE_MS});
}});
</script></body></html>"""


def _handler(site: Site) -> type[PageHandler]:
    class Handler(PageHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            path = self.path.split("?")[0]
            if path in ("/", "/items/add/"):
                self.send_html(_form("/items/add/"))
            elif (m := re.fullmatch(r"/items/(\d+)/(edit/)?", path)) and int(m.group(1)) <= len(site.items):
                item = site.items[int(m.group(1)) - 1]
                if m.group(2):
                    self.send_html(_form(path, item))
                else:
                    self.send_html(f"<!doctype html><title>{html.escape(item['title'])}</title><main>"
                                   f"<h1>{html.escape(item['title'])}</h1><p>{html.escape(item['body'])}</p></main>")
            else:
                self.send_error(404)

        def do_POST(self) -> None:  # noqa: N802
            data = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode(),
                                                keep_blank_values=True).items()}
            autosave = "json" in (self.headers.get("Accept") or "")
            if autosave:
                site.autosaves += 1
            else:
                site.saves += 1
            path = self.path.split("?")[0]
            if path == "/items/add/":
                if any(i["title"] == data.get("title") for i in site.items):
                    if autosave:
                        self._json(400, {"error": "exists"})
                    else:
                        self.send_html(_form(path, data, "An item with this title exists."))
                    return
                site.items.append({"title": data.get("title", ""), "body": data.get("body", "")})
                n = len(site.items)
            elif (m := re.fullmatch(r"/items/(\d+)/edit/", path)) and int(m.group(1)) <= len(site.items):
                n = int(m.group(1))
                site.items[n - 1] = {"title": data.get("title", ""), "body": data.get("body", "")}
            else:
                self.send_error(404)
                return
            if autosave:
                time.sleep(ANSWER_S)  # made already; the answer comes late
                self._json(200, {"url": f"/items/{n}/edit/"})
            else:
                self.send_response(303)
                self.send_header("Location", f"/items/{n}/")
                self.send_header("Content-Length", "0")
                self.end_headers()

        def _json(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def site() -> Iterator[tuple[Site, str]]:
    state = Site()
    with serve(_handler(state)) as url:
        yield state, url


async def test_an_autosave_is_not_the_saves_outcome_and_the_create_tool_saves(
        site: tuple[Site, str], browser_pool: BrowserPool, page: Any, tmp_path: Path) -> None:
    state, url = site
    script = tmp_path / "create_item.json"
    script.write_text(json.dumps({"name": "create_item", "reset": False, "steps": [
        {"action": "goto", "url": "/items/add/"},
        {"action": "fill", "target": {"role": "textbox", "name": "Title"}, "value": "Pigeons Guide"},
        {"action": "fill", "target": {"role": "textbox", "name": "Body"}, "value": "Pigeons find their way home."},
        {"action": "click", "target": {"role": "button", "name": "Save"}},
    ]}))
    trace_path = await record_script(browser_pool, load_script(script), url, tmp_path / "create_item.jsonl")
    steps = read_trace(trace_path).steps
    # the Save made the item and showed its page; no autosave ran into it or counts as a step's write
    assert state.items == [{"title": "Pigeons Guide", "body": "Pigeons find their way home."}], state.items
    assert steps[-1].url_after == f"{url}/items/1/", steps[-1].url_after
    assert [[(r["method"], r["url"].removeprefix(url), r["resource"]) for r in st.requests] for st in steps] == [
        [], [], [], [("POST", "/items/add/", "document")]]

    items, saves = list(state.items), state.saves
    cache, report = await build_cache([trace_path], tmp_path / "cache", base_url=url, pool=browser_pool)
    assert (state.items, state.saves) == (items, saves)  # the build sent nothing
    (create,) = [t for t in cache.tools.values() if t.is_write and "title" in t.parameters]
    assert report.writes.get(create.name) == "recorded", report.writes

    # the tool on the live site: it saves, lands on the new item's page, and its post_check passes
    await page.goto(f"{url}/items/add/")
    out = await call_tool(page, create, {"title": "Moons Guide", "body": "The moon keeps one face to us."})
    assert out.ok, (out.phase, out.reason)
    assert state.items[-1] == {"title": "Moons Guide", "body": "The moon keeps one face to us."}
    assert page.url == f"{url}/items/{len(state.items)}/"


async def test_an_autosave_that_runs_while_the_demonstration_waits_is_the_pages_own(
        site: tuple[Site, str], browser_pool: BrowserPool, tmp_path: Path) -> None:
    """A demonstration that pauses (a ``wait`` step) lets the page's timers run: the autosave goes
    out then, and is the page's write (its ``background``, with its answer), not the wait's."""
    state, url = site
    script = tmp_path / "paused.json"
    script.write_text(json.dumps({"name": "paused", "reset": False, "steps": [
        {"action": "goto", "url": "/items/add/"},
        {"action": "fill", "target": {"role": "textbox", "name": "Title"}, "value": "Owls Guide"},
        {"action": "wait", "value": 1200},
        {"action": "click", "target": {"role": "button", "name": "Save"}},
    ]}))
    steps = read_trace(await record_script(browser_pool, load_script(script), url, tmp_path / "paused.jsonl")).steps
    assert state.autosaves == 1 and state.items == [{"title": "Owls Guide", "body": ""}]  # the autosave made it
    assert steps[2].requests == [], steps[2].requests
    assert [(r["method"], r["url"].removeprefix(url), r["status"]) for st in steps for r in st.background] == [
        ("POST", "/items/add/", 200)]
    # the Save went where the autosave's answer moved the form: the item's editor
    assert [(r["method"], r["url"].removeprefix(url)) for r in steps[3].requests] == [("POST", "/items/1/edit/")]
