"""A CMS's page list of our own on 127.0.0.1, in the manner of Wagtail's admin (not its markup):

- a live search: typing fetches the results and swaps them in place, the URL's query follows
  (``history.replaceState``), and Enter submits nothing (the form's default button is a hidden,
  disabled submit), so a replayed Enter must not submit the form either;
- a table whose header row ends in an empty ``td`` (the column of row actions), with sort links
  (``?ordering=``) in its column headers and a pager;
- widgets hidden by the stylesheet, which a DOM snapshot does not carry: a date picker's calendar
  table, a bulk-action bar's list of links, and a bar slid out of view and made invisible.

Recorded once and built once with verification; the tools are then called with values no
demonstration used. The search tool returns the rows it leaves, the sort tool sorts by any column,
the list tool reads every row's cells, and no tool lists what the page does not show.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from agentjit.cache import ToolCache
from agentjit.protocol.trace import read_trace
from agentjit.runtime import BrowserPool
from agentjit.runtime.invoke import call_tool
from toolcache.build import BuildReport
from toolcache.record import record_script
from toolcache.script import load_script

from .pages import PageHandler, one_tool, record_and_build, serve

pytestmark = pytest.mark.browser

NOTES = [  # (title, updated, status)
    ("Owls Guide", "2026-11-03", "live"), ("Bees Notes", "2026-11-07", "draft"), ("Chess History", "2026-10-30", "live"),
    ("Owls History", "2026-11-01", "draft"), ("Apples Guide", "2026-11-05", "live"), ("Bees Guide", "2026-10-28", "live"),
    ("Chess Notes", "2026-11-02", "draft"),
]
PER_PAGE = 5
COLUMNS = {"title": 0, "updated": 1, "status": 2}

STYLE = "<style>.hidden, .picker { display: none; } .footer.away { transform: translateY(200px); visibility: hidden; } .w-sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; }</style>"

LIVE_JS = """
const form = document.querySelector('form[role=search]');
const input = form.querySelector('input[name=q]');
let timer = null;
input.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const url = new URL(location.href);
    url.searchParams.set('q', input.value);
    url.searchParams.delete('p');
    const res = await fetch('/notes/results' + url.search);
    document.querySelector('#listing-results').innerHTML = await res.text();
    history.replaceState(null, '', url.pathname + url.search);
  }, 150);
});
"""


def _rows(query: dict[str, str]) -> tuple[str, int]:
    q = query.get("q", "").lower()
    rows = [n for n in NOTES if q in n[0].lower()]
    order = query.get("ordering", "")
    if order.lstrip("-") in COLUMNS:
        rows.sort(key=lambda n: n[COLUMNS[order.lstrip("-")]], reverse=order.startswith("-"))
    page = max(1, int(query.get("p", "1")))
    shown = rows[(page - 1) * PER_PAGE:page * PER_PAGE]

    def href(**change: str) -> str:
        q2 = {k: v for k, v in {**query, **change}.items() if v}
        return "/notes/?" + html.escape(urlencode(q2))

    def head(key: str, title: str) -> str:
        now = order.lstrip("-") == key
        turn = ("" if order.startswith("-") else "-") + key if now else key
        return f'<th><a href="{href(ordering=turn, p="")}" title="Sort the notes by {title}">{title}</a></th>'

    body = "".join(
        f'<tr><td class="title"><a href="/notes/{NOTES.index(n) + 1}/edit/" title="Edit this note">{html.escape(n[0])}</a></td>'
        f'<td>{n[1]}</td><td><span class="status">{n[2]}</span></td>'
        f'<td><button type="button" aria-label="More options for {html.escape(n[0])!r}">...</button></td></tr>'
        for n in shown
    )
    pager = f'<nav class="pagination"><a href="{href(p=str(page + 1))}">Next</a></nav>' if len(rows) > page * PER_PAGE else ""
    table = (
        '<table class="listing full-width"><thead><tr>'
        f'{head("title", "Title")}{head("updated", "Updated")}{head("status", "Status")}<td></td>'
        f"</tr></thead><tbody>{body}</tbody></table>{pager}"
    )
    return table, len(rows)


def _list_page(query: dict[str, str]) -> str:
    table, _ = _rows(query)
    calendar = "".join("<tr>" + "".join(f"<td>{w * 7 + d + 1}</td>" for d in range(7)) + "</tr>" for w in range(4))
    return (
        f"<html><head><title>Notes</title>{STYLE}</head><body><main><h1>Notes</h1>"
        '<form role="search" action="/notes/" method="get">'
        f'<label for="id_q" class="w-sr-only">Search term</label><input id="id_q" name="q" value="{html.escape(query.get("q", ""))}">'
        '<input hidden disabled type="submit"></form>'
        f'<div id="listing-results">{table}</div>'
        '<section class="footer hidden"><h2>Bulk actions</h2><ul class="bulk-buttons">'
        '<li><a href="/bulk/move/">Move</a></li><li><a href="/bulk/delete/">Delete</a></li>'
        '<li><a href="/bulk/publish/">Publish</a></li><li><a href="/bulk/unpublish/">Unpublish</a></li></ul></section>'
        '<section class="footer away"><h2>Selection</h2><ul class="choices"><li><a href="/bulk/copy/">Copy</a></li>'
        '<li><a href="/bulk/export/">Export</a></li><li><a href="/bulk/archive/">Archive</a></li></ul></section>'
        "</main>"
        '<div class="picker"><table class="calendar"><thead><tr>'
        + "".join(f"<th>{d}</th>" for d in ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"))
        + f"</tr></thead><tbody>{calendar}</tbody></table></div>"
        f"<script>{LIVE_JS}</script></body></html>"
    )


class _Handler(PageHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/notes/results":
            self.send_html(_rows(query)[0])
        elif url.path == "/notes/":
            self.send_html(_list_page(query))
        elif url.path == "/notes/slow/":  # a longer debounce, as a slower site's search has
            self.send_html(_list_page(query).replace("}, 150);", "}, 280);"))
        else:
            self.send_html('<html><head><title>CMS</title></head><body><h1>CMS</h1><a href="/notes/">Notes</a></body></html>')


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(_Handler) as url:
        yield url


SCRIPTS = {
    "search": [{"action": "fill", "target": {"role": "textbox", "name": "Search term"}, "value": "owls"},
               {"action": "press", "target": {"role": "textbox", "name": "Search term"}, "value": "Enter"}],
    "sort": [{"action": "click", "target": {"role": "link", "name": "Title", "exact": True}},
             {"action": "click", "target": {"role": "link", "name": "Next"}}],
}


@pytest.fixture(scope="module")
async def built(site: str, browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> tuple[ToolCache, BuildReport]:
    return await record_and_build(browser_pool, site, SCRIPTS, tmp_path_factory.mktemp("live"), start="/notes/")


async def _titles(page: Any) -> list[str]:
    return await page.eval_on_selector_all("#listing-results tbody td.title", "(tds) => tds.map((td) => td.textContent)")


async def test_every_demonstrated_step_is_a_verified_tool_and_hidden_widgets_are_none(built: tuple[ToolCache, BuildReport]) -> None:
    cache, report = built
    assert report.rejected == {}, report.rejected
    assert report.coverage is not None and not report.coverage.missed, report.coverage.to_json()
    lists = sorted(n for n in cache.tools if n.startswith("list_"))
    assert lists == ["list_notes"], lists  # not the calendar, not the bulk-action bar
    items = cache.tools["list_notes"].output_schema["properties"]["items"]["items"]["properties"]
    assert {"title", "updated", "status"} <= set(items)
    sort = one_tool(cache, "sort_")
    assert sort.input_schema["properties"]["column"]["enum"] == ["Title", "Updated", "Status"]


async def test_the_search_filters_in_place_and_returns_the_rows(built: tuple[ToolCache, BuildReport], site: str, page: Any) -> None:
    cache, report = built
    search = next(t for n, t in cache.tools.items() if n in report.verified and ("search" in n or "filter" in n))
    assert not search.navigates and search.input_schema["required"] == [next(iter(search.input_schema["properties"]))]
    await page.goto(site + "/notes/")
    (pname,) = search.input_schema["required"]
    out = await call_tool(page, search, {pname: "chess"})
    assert out.ok, (out.phase, out.reason)
    assert page.url.endswith("/notes/?q=chess")  # swapped in place: no document was loaded for it
    assert await _titles(page) == ["Chess History", "Chess Notes"]
    assert [(i["title"], i["status"]) for i in out.output["items"]] == [("Chess History", "live"), ("Chess Notes", "draft")]


async def test_a_recorded_fill_ends_once_the_search_it_set_off_answered(site: str, browser_pool: BrowserPool, tmp_path: Path) -> None:
    """The recorder's fill step waits for what the edit set off (the debounced fetch and the URL it
    moves), however fast the machine ends the step otherwise: the recording is the same at any load."""
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"name": "slow", "reset": False, "steps": [
        {"action": "goto", "url": "/notes/slow/"},
        {"action": "fill", "target": {"role": "textbox", "name": "Search term"}, "value": "bees"},
    ]}))
    steps = read_trace(await record_script(browser_pool, load_script(script), site, tmp_path / "slow.jsonl")).steps
    fill = steps[1]
    assert fill.url_after is not None and fill.url_after.endswith("/notes/slow/?q=bees"), fill.url_after
    assert fill.end - fill.start < 12  # bounded: the search answered, not the step's 15 s settle limit
    html = read_trace(tmp_path / "slow.jsonl").snapshot_html(fill) or ""
    assert "Bees Guide" in html and "Owls Guide" not in html  # the snapshot shows the search's rows


async def test_sort_and_list_read_every_column(built: tuple[ToolCache, BuildReport], site: str, page: Any) -> None:
    cache, _ = built
    await page.goto(site + "/notes/")
    out = await call_tool(page, one_tool(cache, "sort_"), {"column": "Updated"})
    assert out.ok, (out.phase, out.reason)
    assert "ordering=updated" in page.url
    rows = await call_tool(page, cache.tools["list_notes"], {})
    assert rows.ok, rows.reason
    assert [i["updated"] for i in rows.output["items"]] == sorted(n[1] for n in NOTES)[:PER_PAGE]
    assert rows.output["items"][0]["title"] == "Bees Guide" and rows.output["items"][0]["status"] == "live"
