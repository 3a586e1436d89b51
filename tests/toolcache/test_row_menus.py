"""A CMS-like page list, the classes Wagtail's admin showed (issue 18), in real Chromium.

The list is a table inside a ``<form>`` whose header row ends in an empty ``<td>`` (an actions
column's head); each row's title link carries ``title="Edit this page"`` (its accessible name is
still its text, ARIA's order), and a "More options for 'X'" toggle beside it draws the row's menu
(Edit, Delete) inside the title cell. The column header's sort link has a sentence for an ``aria-label``.
Delete goes to a confirmation page that POSTs. The editor is a
``contenteditable`` under a section heading "Body", no ``<label>``, that writes its text into
the form's hidden field 250 ms after the last edit (as Draftail does).

Built from the demonstrations, the row action must be a tool keyed by the row's
text (open that row's menu, pick Delete by its text), never the demonstrated
row; so must the row's own link, the editor of the row named at run time (``goto_page(title)``),
never the demonstrated row's ``href``; the editor a parameter named ``body``; the sort tool named
by its column.
"""

from __future__ import annotations

import html
import http.server
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.cache import ToolCache
from agentjit.protocol.trace import read_trace
from agentjit.runtime import BrowserPool, call_tool
from toolcache.build import build_cache
from toolcache.record import record_scripts
from toolcache.script import Script

from .pages import PageHandler, serve

pytestmark = pytest.mark.browser

TITLES = ["Owls Guide", "Chess Notes", "Maps Guide", "Bees History"]
SORT_LABEL = "Sort the order of child pages within 'Home' by 'Title'"


class Cms:
    """The site's state: the pages left, the bodies saved, the writes it got."""

    def __init__(self) -> None:
        self.pages = {i + 1: t for i, t in enumerate(TITLES)}
        self.bodies: dict[int, str] = {}
        self.posts: list[str] = []


def _shell(title: str, main: str) -> str:
    return f"""<!doctype html><html><head><title>{html.escape(title)}</title></head><body>
<aside><form action="/search/" role="search"><input name="q" placeholder="Search"><button>Go</button></form></aside>
<main>{main}</main>
<script>
// a row's menu is drawn on its first opening, inside the row's title cell (as Wagtail's dropdowns)
for (const t of document.querySelectorAll('[data-toggle]')) t.addEventListener('click', () => {{
  let menu = t.nextElementSibling;
  if (!menu) {{
    menu = document.createElement('div'); menu.className = 'w-dropdown__content'; menu.hidden = true;
    menu.innerHTML = `<a href="/pages/${{t.dataset.id}}/edit/">Edit</a> <a href="/pages/${{t.dataset.id}}/delete/">Delete</a>`;
    t.after(menu);
  }}
  menu.hidden = !menu.hidden; t.setAttribute('aria-expanded', String(!menu.hidden));
}});
// the page's own search is live: it swaps the rows in place and puts the query in the URL
const own = document.querySelector('main form[action="/pages/"]');
if (own) own.addEventListener('submit', async (e) => {{
  e.preventDefault();
  const q = own.querySelector('input[name=q]').value;
  const doc = new DOMParser().parseFromString(await (await fetch('/pages/?q=' + encodeURIComponent(q))).text(), 'text/html');
  document.querySelector('table.listing tbody').replaceWith(doc.querySelector('table.listing tbody'));
  history.pushState(null, '', '/pages/?q=' + encodeURIComponent(q));
}});
// the editor keeps its text in the form's hidden field, written 250 ms after the last edit (Draftail's way)
const ed = document.querySelector('[contenteditable]');
let saving = null;
if (ed) ed.addEventListener('input', () => {{
  clearTimeout(saving); saving = setTimeout(() => {{ document.querySelector('input[name=body]').value = ed.innerText; }}, 250);
}});
</script></body></html>"""


def _list(cms: Cms, q: str = "") -> str:
    shown = {i: t for i, t in cms.pages.items() if q.lower() in t.lower()}
    rows = "".join(
        f"""<tr><td class="title"><a href="/pages/{i}/edit/" title="Edit this page">{html.escape(t)}</a>
<div class="w-dropdown"><button type="button" data-toggle data-id="{i}" aria-expanded="false" aria-label="More options for '{html.escape(t)}'">&#8943;</button></div></td>
<td>live</td><td></td></tr>"""
        for i, t in sorted(shown.items()))
    return _shell("Pages", f"""<h1>Pages</h1>
<form action="/pages/"><input name="q" aria-label="Search pages" value="{html.escape(q)}"></form>
<div class="picker" style="display: none"><table><thead><tr><th>Sun</th><th>Mon</th></tr></thead>
<tbody><tr><td>1</td><td>2</td></tr><tr><td>8</td><td>9</td></tr></tbody></table></div>
<section><h2>Recent edits</h2><div class="w-full">Owls Guide, by admin</div><div class="w-full">Maps Guide, by admin</div></section>
<form method="post" action="/pages/bulk/"><table class="listing"><thead><tr>
<th><a href="/pages/?ordering=title" aria-label="{html.escape(SORT_LABEL)}">Title</a></th><th>Status</th><td></td></tr></thead>
<tbody>{rows}</tbody></table></form>""")


def _editor(i: int, cms: Cms) -> str:
    return _shell(f"Editing {cms.pages[i]}", f"""<h1>Editing {html.escape(cms.pages[i])}</h1>
<form method="post" action="/pages/{i}/edit/"><input type="hidden" name="body" value="{html.escape(cms.bodies.get(i, "Old text of the page."))}">
<section class="w-panel"><h2 class="w-panel__heading">Body</h2>
<div class="w-field"><div class="Draftail-Editor"><div class="public-DraftEditor-content" contenteditable="true" role="textbox">{html.escape(cms.bodies.get(i, "Old text of the page."))}</div></div></div>
</section><button type="submit">Save draft</button></form>""")


def _confirm(i: int, cms: Cms) -> str:
    return _shell(f"Delete {cms.pages[i]}", f"""<h1>Delete {html.escape(cms.pages[i])}</h1>
<p>Are you sure you want to delete this page?</p>
<form method="post" action="/pages/{i}/delete/"><button type="submit">Yes, delete it</button></form>""")


def _handler(cms: Cms) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(PageHandler):
        def _page_id(self, suffix: str) -> int | None:
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) == 3 and parts[0] == "pages" and parts[2] == suffix and parts[1].isdigit() and int(parts[1]) in cms.pages:
                return int(parts[1])
            return None

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            path = self.path.split("?")[0]
            if path in ("/", "/pages/"):
                self.send_html(_list(cms, (parse_qs(self.path.partition("?")[2]).get("q") or [""])[0]))
            elif (i := self._page_id("edit")) is not None:
                self.send_html(_editor(i, cms))
            elif (i := self._page_id("delete")) is not None:
                self.send_html(_confirm(i, cms))
            else:
                self.send_error(404)

        def do_POST(self) -> None:  # noqa: N802
            data = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
            cms.posts.append(self.path)
            if (i := self._page_id("edit")) is not None:
                cms.bodies[i] = (data.get("body") or [""])[0]
            elif (i := self._page_id("delete")) is not None:
                del cms.pages[i]
            else:
                self.send_error(404)
                return
            self.send_response(302)
            self.send_header("Location", "/pages/")
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


SCRIPTS = [
    {"name": "delete_page", "description": "Delete a page from its row's menu, confirming", "steps": [
        {"action": "goto", "url": "/pages/"},
        {"action": "click", "target": {"role": "button", "name": "More options for 'Chess Notes'"}},
        {"action": "click", "target": {"role": "link", "name": "Delete"}},
        {"action": "click", "target": {"role": "button", "name": "Yes, delete it"}},
    ]},
    {"name": "edit_body", "description": "Change a page's body and save a draft", "steps": [
        {"action": "goto", "url": "/pages/"},
        {"action": "click", "target": {"role": "link", "name": "Maps Guide", "exact": True}},
        {"action": "fill", "target": {"selector": ".public-DraftEditor-content"}, "value": "Start with the legend."},
        {"action": "click", "target": {"role": "button", "name": "Save draft"}},
    ]},
    {"name": "search_pages", "description": "Search the page list (the page's own search, not the sidebar's)", "steps": [
        {"action": "goto", "url": "/pages/"},
        {"action": "fill", "target": {"role": "textbox", "name": "Search pages"}, "value": "guide"},
        {"action": "press", "target": {"role": "textbox", "name": "Search pages"}, "value": "Enter"},
    ]},
    {"name": "sort_pages", "description": "Sort the pages by title", "steps": [
        {"action": "goto", "url": "/pages/"},
        {"action": "click", "target": {"role": "link", "name": SORT_LABEL}},
    ]},
]


@pytest.fixture(scope="module")
def cms_site() -> Iterator[tuple[Cms, str]]:
    cms = Cms()
    with serve(_handler(cms)) as url:
        yield cms, url + "/"


@pytest.fixture(scope="module")
async def built(cms_site: tuple[Cms, str], browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cms, url = cms_site
    root = tmp_path_factory.mktemp("rowmenus")
    traces = root / "traces"
    await record_scripts([Script.model_validate(s) for s in SCRIPTS], url, traces, pool=browser_pool)
    recorded = (dict(cms.pages), dict(cms.bodies))
    cms.pages = {i + 1: t for i, t in enumerate(TITLES)}
    cms.bodies.clear()
    cms.posts.clear()
    cache, report = await build_cache([traces], root / "cache", base_url=url, pool=browser_pool)
    return {"traces": traces, "cache": cache, "report": report, "recorded": recorded, "build_posts": list(cms.posts)}


def test_a_link_is_named_by_its_content_before_its_title(built: dict[str, Any]) -> None:
    trace = read_trace(built["traces"] / "edit_body.jsonl")
    row_link = trace.steps[1].target
    assert row_link is not None and row_link.role == "link" and row_link.name == "Maps Guide"
    sort = read_trace(built["traces"] / "sort_pages.jsonl").steps[1].target
    assert sort is not None and sort.name == SORT_LABEL and sort.text == "Title"  # aria-label wins over content


def test_the_demonstrations_did_what_they_say_and_the_build_wrote_nothing(built: dict[str, Any]) -> None:
    pages, bodies = built["recorded"]
    assert "Chess Notes" not in pages.values() and bodies == {3: "Start with the legend."}
    assert built["build_posts"] == []


def test_names_come_from_short_visible_names(built: dict[str, Any]) -> None:
    cache: ToolCache = built["cache"]
    assert not [n for n in cache.tools if "order" in n or "edit_this" in n], sorted(cache.tools)


def test_a_row_menu_action_is_a_tool_keyed_by_the_rows_text(built: dict[str, Any]) -> None:
    cache: ToolCache = built["cache"]
    tool = cache.tools.get("goto_delete_page")
    assert tool is not None, sorted(cache.tools)
    assert tool.required == ["page"], tool.input_schema
    assert "Chess Notes" not in tool.execute and "/pages/2/" not in tool.execute
    assert tool.name in built["report"].verified, built["report"].rejected
    # the confirmation page's button is a write tool of its own, verified from the recorded answer
    confirm = [n for n, t in cache.tools.items() if t.is_write and "delete" in n and n != tool.name]
    assert confirm and set(confirm) <= set(built["report"].verified), (sorted(cache.tools), built["report"].rejected)


def _row_link_tools(cache: ToolCache) -> dict[str, Any]:
    """The tools that open a page's editor (the edit_body demonstration's row link)."""
    return {n: t for n, t in cache.tools.items() if not t.is_write and t.post.get("page") == "pages_{id}_edit"}


def test_a_row_link_is_a_tool_keyed_by_the_rows_text(built: dict[str, Any]) -> None:
    cache: ToolCache = built["cache"]
    tools = _row_link_tools(cache)
    # one tool, keyed by the row's text: no tool bound to the demonstrated row's address
    assert [t.required for t in tools.values()] == [["title"]], {n: (t.required, t.description) for n, t in tools.items()}
    (name, tool), = tools.items()
    assert "Maps Guide" not in tool.execute and "/pages/3/" not in tool.execute
    assert name in built["report"].verified, built["report"].rejected


async def test_the_row_link_tool_opens_another_rows_editor_in_chromium(built: dict[str, Any], cms_site: tuple[Cms, str], page: Any) -> None:
    _, url = cms_site
    (tool,) = _row_link_tools(built["cache"]).values()
    await page.goto(url + "pages/")
    out = await call_tool(page, tool, {"title": "Bees History"})
    assert out.ok, out.reason
    await page.wait_for_url("**/pages/4/edit/")


def test_a_rich_text_editor_is_a_parameter_named_by_its_field(built: dict[str, Any]) -> None:
    cache: ToolCache = built["cache"]
    with_body = [t for t in cache.tools.values() if "body" in t.parameters]
    assert with_body, {n: list(t.parameters) for n, t in cache.tools.items()}
    assert not [t for t in cache.tools.values() if "text" in t.parameters]


async def test_the_body_written_by_its_tool_is_saved_in_chromium(built: dict[str, Any], cms_site: tuple[Cms, str], page: Any) -> None:
    cms, url = cms_site
    cache: ToolCache = built["cache"]
    (fill,) = [t for t in cache.tools.values() if "body" in t.parameters]
    (save,) = [t for t in cache.tools.values() if t.is_write and t.pre.get("page") == "pages_{id}_edit"]
    await page.goto(url + "pages/1/edit/")
    args = {"body": "Owls hunt at night."}
    if fill.name != save.name:  # the editor is a tool of its own, then the save
        assert (await call_tool(page, fill, args)).ok
        args = {}
    out = await call_tool(page, save, args)
    assert out.ok, out.reason
    await page.wait_for_url("**/pages/")
    saved = cms.bodies.pop(1, None)
    cms.posts.clear()  # the save was this test's own: the later tests count the site's writes from none
    assert saved == "Owls hunt at night.", (fill.name, save.name, saved)


async def test_the_row_tool_opens_another_rows_menu_in_chromium(built: dict[str, Any], cms_site: tuple[Cms, str], page: Any) -> None:
    cms, url = cms_site
    cache: ToolCache = built["cache"]
    tool = cache.tools["goto_delete_page"]
    await page.goto(url + "pages/")
    missing = await call_tool(page, tool, {"page": "No Such Page"})
    assert not missing.ok and "no item matches" in (missing.reason or "")
    out = await call_tool(page, tool, {"page": "Owls Guide"})
    assert out.ok, out.reason
    await page.wait_for_url("**/pages/1/delete/")
    assert cms.posts == []


def test_lists_are_visible_content_named_by_their_headings(built: dict[str, Any]) -> None:
    cache: ToolCache = built["cache"]
    lists = sorted(n for n, t in cache.tools.items() if n.startswith("list_"))
    # the page list (a table inside a form) under its heading; the edits under theirs; no hidden
    # calendar's rows, nothing named by a layout class
    assert "list_pages" in lists and "list_recent_edits" in lists, lists
    assert not [n for n in lists if "row" in n or "full" in n or "listing" in n], lists


async def test_the_search_tool_uses_the_pages_own_input_in_chromium(built: dict[str, Any], cms_site: tuple[Cms, str], page: Any) -> None:
    _, url = cms_site
    cache: ToolCache = built["cache"]
    search = [t for n, t in cache.tools.items() if n.startswith(("search", "filter_by"))]
    assert len(search) == 1, {n: (t.type, list(t.parameters)) for n, t in cache.tools.items()}
    assert search[0].name in built["report"].verified, built["report"].rejected
    await page.goto(url + "pages/")
    out = await call_tool(page, search[0], dict.fromkeys(search[0].required, "owls"))
    assert out.ok, out.reason
    await page.wait_for_url("**/pages/?q=owls")
    assert await page.input_value("aside input[name=q]") == ""
    assert await page.locator("table.listing tbody tr").count() == 1
