"""A field the page fills from another on a timer, as Wagtail's slug from its title, in real Chromium.

The add form's title input answers its change, keyup and blur events by writing the slug field
100 ms later (a debounced handler, Wagtail's ``w-sync``); the site refuses a page without a slug
(the form again, with "This field is required."). It also autosaves the form 1 s after an edit
(Wagtail's autosave, 500 ms there; longer here, so that a loaded machine's slower call, which does
not wait for it, is still sent before it): the page's own later work, not a reaction to wait for. The demonstration
fills the title and the intro. The form tool built from it must send the slug the page derives
from the title it was given (the page's short timers set in answer to the tool's own edits run
before the form is sent), and must not wait for, and so set off, the autosave.
"""

from __future__ import annotations

import html
import http.server
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool, call_tool
from toolcache.build import build_cache
from toolcache.record import record_scripts
from toolcache.script import Script

from .pages import PageHandler, serve

pytestmark = pytest.mark.browser


class Site:
    """The pages made (slug -> title, in order: a page's id is its place) and every POST's fields."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.posts: list[dict[str, str]] = []
        self.autosaves = 0


def _add_form(error: str = "") -> str:
    return f"""<!doctype html><html><head><title>New page</title></head><body><main>
<h1>New page</h1>
<form method="post" action="/pages/add/">
<label for="id_title">Title</label><input id="id_title" name="title" required>
<label for="id_intro">Intro</label><input id="id_intro" name="intro">
<label for="id_slug">Slug</label><input id="id_slug" name="slug">
{f'<p class="error-message">{html.escape(error)}</p>' if error else ''}
<button type="submit">Save draft</button>
</form></main>
<script>
// the slug follows the title 100 ms after its last change (a debounced handler)
const title = document.getElementById('id_title'), slug = document.getElementById('id_slug');
let timer = null;
const later = () => {{
  clearTimeout(timer);
  timer = setTimeout(() => {{ slug.value = title.value.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-'); }}, 100);
}};
for (const type of ['change', 'keyup', 'blur']) title.addEventListener(type, later);
// the form is autosaved 1 s after its last edit
let saving = null;
document.querySelector('form').addEventListener('change', () => {{
  clearTimeout(saving);
  saving = setTimeout(() => fetch('/pages/autosave/', {{method: 'POST', body: new FormData(document.querySelector('form'))}}), 1000);
}});
</script></body></html>"""


def _handler(site: Site) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(PageHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            path = self.path.split("?")[0]
            if path in ("/", "/pages/add/"):
                self.send_html(_add_form())
            elif (m := re.fullmatch(r"/pages/(\d+)/", path)) and int(m.group(1)) <= len(site.pages):
                title = list(site.pages.values())[int(m.group(1)) - 1]
                self.send_html(f"<!doctype html><title>{html.escape(title)}</title><h1>{html.escape(title)}</h1>")
            else:
                self.send_error(404)

        def do_POST(self) -> None:  # noqa: N802
            if self.path == "/pages/autosave/":
                site.autosaves += 1
                self.send_response(204)
                self.end_headers()
                return
            data = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()).items()}
            site.posts.append(data)
            slug = data.get("slug", "")
            if not slug:
                self.send_html(_add_form("Slug: This field is required."))
                return
            site.pages[slug] = data.get("title", "")
            self.send_response(302)
            self.send_header("Location", f"/pages/{len(site.pages)}/")
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


SCRIPTS = [
    {"name": "create_page", "description": "Add a page with a title and an intro, its slug filled by the page", "steps": [
        {"action": "goto", "url": "/pages/add/"},
        {"action": "fill", "target": {"role": "textbox", "name": "Title"}, "value": "Pigeons Guide"},
        {"action": "fill", "target": {"role": "textbox", "name": "Intro"}, "value": "About pigeons."},
        {"action": "click", "target": {"role": "button", "name": "Save draft"}},
    ]},
]


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[Site, str]]:
    state = Site()
    with serve(_handler(state)) as url:
        yield state, url + "/"


@pytest.fixture(scope="module")
async def built(site: tuple[Site, str], browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    state, url = site
    root = tmp_path_factory.mktemp("derived")
    await record_scripts([Script.model_validate(s) for s in SCRIPTS], url, root / "traces", pool=browser_pool)
    recorded = dict(state.pages)
    state.pages.clear()
    state.posts.clear()
    state.autosaves = 0
    cache, report = await build_cache([root / "traces"], root / "cache", base_url=url, pool=browser_pool)
    return {"cache": cache, "report": report, "recorded": recorded, "build_posts": list(state.posts), "build_autosaves": state.autosaves}


def test_the_demonstration_made_its_page_and_the_build_sent_nothing(built: dict[str, Any]) -> None:
    assert built["recorded"] == {"pigeons-guide": "Pigeons Guide"}
    assert built["build_posts"] == []
    assert built["build_autosaves"] == 0


async def test_the_form_tool_sends_the_field_the_page_derives_in_chromium(built: dict[str, Any], site: tuple[Site, str], page: Any) -> None:
    state, url = site
    cache: ToolCache = built["cache"]
    (create,) = [t for t in cache.tools.values() if t.is_write and "title" in t.parameters]
    await page.goto(url + "pages/add/")
    out = await call_tool(page, create, {"title": "Moons Guide", "intro": "About moons."})
    assert out.ok, (out.reason, state.posts)
    assert state.pages == {"moons-guide": "Moons Guide"}
    assert [p.get("slug") for p in state.posts] == ["moons-guide"]
    assert state.autosaves == 0
