"""Links that keep the page type become tools: a filter group (``filter_<list>_by_<group>``), the
column-header sort links (``sort_<rows>(column, direction)``), a numbered paginator
(``goto_<list>_page(page)``); and an item page's own link (its History) is found by its text on
whatever item is shown, never by the recorded item's ``href``.

A seed nursery of our own on 127.0.0.1 (not Django's markup: chips after a "Kind:" label, a
``fieldset`` of light filters, ``aria-sort`` headers with arrows, a paginator in a ``nav``) is
recorded once, built once with verification, and the tools are then called in Chromium with
values no demonstration used.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from agentjit.cache import ToolCache
from agentjit.exceptions import ToolInputError
from agentjit.runtime import BrowserPool
from agentjit.runtime.invoke import call_tool
from toolcache.build import BuildReport
from toolcache.dom import parse_html
from toolcache.extract import extract_snapshot, link_group

from .pages import PageHandler, one_tool, record_and_build, serve

pytestmark = pytest.mark.browser

PLANTS = [  # (name, kind, light, height cm)
    ("Basil", "herb", "sun", 40), ("Mint", "herb", "shade", 30), ("Thyme", "herb", "sun", 20),
    ("Fern", "foliage", "shade", 60), ("Hosta", "foliage", "shade", 50), ("Ivy", "foliage", "shade", 200),
    ("Lavender", "shrub", "sun", 70), ("Rosemary", "herb", "sun", 90), ("Sage", "herb", "sun", 55),
    ("Box", "shrub", "shade", 120), ("Holly", "shrub", "shade", 300), ("Yew", "shrub", "sun", 400),
]
KINDS = {"herb": "Herbs", "foliage": "Foliage", "shrub": "Shrubs"}
LIGHTS = {"sun": "Full sun", "shade": "Shade"}
PER_PAGE = 4


def _shelf(query: dict[str, str]) -> str:
    kind, light = query.get("kind", ""), query.get("light", "")
    sort, way = query.get("sort", ""), query.get("dir", "asc")
    rows = [(i, p) for i, p in enumerate(PLANTS, 1) if (not kind or p[1] == kind) and (not light or p[2] == light)]
    if sort:
        col = {"name": 0, "height": 3}[sort]
        rows.sort(key=lambda r: r[1][col], reverse=way == "desc")
    pages = max(1, -(-len(rows) // PER_PAGE))
    page = min(max(1, int(query.get("page", "1"))), pages)
    shown = rows[(page - 1) * PER_PAGE:page * PER_PAGE]

    def href(**change: str) -> str:
        q = {**query, **change}
        if "page" not in change:
            q.pop("page", None)
        return "?" + html.escape(urlencode({k: v for k, v in q.items() if v}))

    def chips(key: str, labels: dict[str, str], now: str) -> str:
        links = [f'<a href="{href(**{key: ""})}"{" aria-current=true" if not now else ""}>Any</a>']
        links += [f'<a href="{href(**{key: v})}"{" aria-current=true" if now == v else ""}>{t}</a>' for v, t in labels.items()]
        return " ".join(links)

    def head(key: str, title: str) -> str:
        if sort != key:
            return f'<th><a href="{href(sort=key, dir="asc")}">{title}</a></th>'
        other = "desc" if way == "asc" else "asc"
        aria, arrow = ("ascending", "\u25b2") if way == "asc" else ("descending", "\u25bc")
        return f'<th aria-sort="{aria}"><a href="{href(sort=key, dir=other)}">{title}</a> {arrow}</th>'

    body = "".join(f'<tr><td><a href="/plant/{i}">{p[0]}</a></td><td>{KINDS[p[1]]}</td><td>{p[3]}</td></tr>' for i, p in shown)
    numbers = " ".join(f"<strong>{n}</strong>" if n == page else f'<a href="{href(page=str(n))}">{n}</a>' for n in range(1, pages + 1))
    return (
        "<html><head><title>Shelf</title></head><body><h1>The shelf</h1>"
        f'<div class="chips"><span class="tag-label">Kind:</span> {chips("kind", KINDS, kind)}</div>'
        f'<fieldset class="light"><legend>Light</legend>{chips("light", LIGHTS, light)}</fieldset>'
        f'<table class="plants"><thead><tr>{head("name", "Name")}<th>Kind</th>{head("height", "Height")}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
        f'<nav class="pages">{numbers}</nav></body></html>'
    )


def _plant(i: int, history: bool = False) -> str:
    name = PLANTS[i - 1][0]
    if history:
        return f"<html><head><title>{name}: history</title></head><body><h1>{name}: history</h1><p>Potted.</p></body></html>"
    return (f"<html><head><title>{name}</title></head><body><h1>{name}</h1><p>Height {PLANTS[i - 1][3]} cm</p>"
            f'<p><a href="/plant/{i}/history">History</a> <a href="/catalog">Back to the shelf</a></p></body></html>')


class _Handler(PageHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        m = re.fullmatch(r"/plant/(\d+)(/history)?", url.path)
        if url.path == "/catalog":
            body = _shelf(query)
        elif m and 1 <= int(m.group(1)) <= len(PLANTS):
            body = _plant(int(m.group(1)), bool(m.group(2)))
        else:
            body = '<html><head><title>Nursery</title></head><body><h1>Nursery</h1><a href="/catalog">The shelf</a></body></html>'
        self.send_html(body)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(_Handler) as url:
        yield url


def _click(name: str) -> dict[str, Any]:
    return {"action": "click", "target": {"role": "link", "name": name, "exact": True}}


SCRIPTS = {  # two demonstrations: every verified replay costs a browser's while
    "catalog": [_click("The shelf"), _click("Height"), _click("2"), _click("Herbs"), _click("Shade")],
    "history": [_click("The shelf"), _click("Basil"), _click("History"), {"action": "goto", "url": "/plant/4"}, _click("History")],
}


@pytest.fixture(scope="module")
async def built(site: str, browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> tuple[ToolCache, BuildReport]:
    return await record_and_build(browser_pool, site, SCRIPTS, tmp_path_factory.mktemp("nav"), start="/")


def test_a_filter_link_belongs_to_the_group_its_heading_names() -> None:
    root = parse_html(_shelf({"kind": "herb"}))
    links = {a.text: a for a in root.iter() if a.tag == "a"}
    url = "http://x.test/catalog?kind=herb"
    assert link_group(links["Shrubs"], url) == "Kind" and link_group(links["Shade"], url) == "Light"
    assert link_group(links["Name"], url) is None  # a column header: the table's, no filter group
    ps = extract_snapshot(_shelf({}), "http://x.test/catalog")
    assert ps.link_groups == {"Kind": ["Any", "Herbs", "Foliage", "Shrubs"], "Light": ["Any", "Full sun", "Shade"]}
    rows = next(e for e in ps.elements.values() if e.repeated)
    assert rows.sort_columns == ["Name", "Height"] and not rows.sort_marks  # no header shows an order yet
    sorted_rows = next(e for e in extract_snapshot(_shelf({"sort": "height"}), "http://x.test/catalog").elements.values() if e.repeated)
    assert sorted_rows.sort_marks and "height" in sorted_rows.props  # the arrow is no part of the column's name


async def test_the_build_verifies_one_tool_per_control_class(built: tuple[ToolCache, BuildReport]) -> None:
    cache, report = built
    assert report.rejected == {}, report.rejected
    kind, light = one_tool(cache, "filter_catalogs_by_kind"), one_tool(cache, "filter_catalogs_by_light")
    assert kind.input_schema["properties"]["kind"]["enum"] == ["Any", "Herbs", "Foliage", "Shrubs"]
    assert light.input_schema["properties"]["light"]["enum"] == ["Any", "Full sun", "Shade"]
    sort = one_tool(cache, "sort_")
    assert sort.input_schema["properties"]["column"]["enum"] == ["Name", "Height"]
    assert sort.input_schema["properties"]["direction"]["enum"] == ["ascending", "descending"]
    assert one_tool(cache, "goto_catalogs_page").input_schema["properties"]["page"]["type"] == "integer"
    history = one_tool(cache, "goto_plant_id_history")
    assert "/plant/1/history" not in history.pre_check and "/plant/4/history" not in history.pre_check


async def _shelf_rows(page: Any) -> list[str]:
    return await page.eval_on_selector_all("table.plants tbody tr td:first-child", "(tds) => tds.map((td) => td.textContent)")


async def test_filters_sort_and_pages_work_with_values_no_demonstration_used(built: tuple[ToolCache, BuildReport], site: str, page: Any) -> None:
    cache, _ = built
    await page.goto(site + "/catalog")
    out = await call_tool(page, one_tool(cache, "filter_catalogs_by_kind"), {"kind": "Shrubs"})
    assert out.ok, out.reason
    assert await _shelf_rows(page) == ["Lavender", "Box", "Holly", "Yew"]
    out = await call_tool(page, one_tool(cache, "filter_catalogs_by_light"), {"light": "Full sun"})
    assert out.ok, out.reason
    assert await _shelf_rows(page) == ["Lavender", "Yew"]  # the kind filter stays
    with pytest.raises(ToolInputError, match="Moonlight"):  # one of the group's links, or nothing
        await call_tool(page, one_tool(cache, "filter_catalogs_by_light"), {"light": "Moonlight"})

    await page.goto(site + "/catalog")
    sort = one_tool(cache, "sort_")
    out = await call_tool(page, sort, {"column": "Height", "direction": "descending"})  # two clicks' worth
    assert out.ok, out.reason
    assert (await _shelf_rows(page))[:2] == ["Yew", "Holly"]
    out = await call_tool(page, sort, {"column": "Name", "direction": "ascending"})
    assert out.ok, out.reason
    assert (await _shelf_rows(page))[:2] == ["Basil", "Box"]
    out = await call_tool(page, sort, {"column": "Name", "direction": "ascending"})  # already so: stays so
    assert out.ok, out.reason
    assert (await _shelf_rows(page))[:2] == ["Basil", "Box"]

    goto = one_tool(cache, "goto_catalogs_page")
    out = await call_tool(page, goto, {"page": 3})
    assert out.ok, out.reason
    assert await _shelf_rows(page) == ["Rosemary", "Sage", "Thyme", "Yew"]  # still by name
    missing = await call_tool(page, goto, {"page": 7})
    assert not missing.ok and "no page 7" in (missing.reason or "")


async def test_an_item_pages_own_link_opens_that_items_page(built: tuple[ToolCache, BuildReport], site: str, page: Any) -> None:
    cache, _ = built
    history = one_tool(cache, "goto_plant_id_history")
    await page.goto(site + "/plant/11")  # Holly: no demonstration opened it
    out = await call_tool(page, history, {})
    assert out.ok, out.reason
    assert page.url.endswith("/plant/11/history")
    await page.goto(site + "/catalog")  # no item page: the check says so (a call would wait for it)
    wrong = await page.evaluate("async (inputs) => {" + history.pre_check + "}", {})
    assert wrong != True and "plant_{id}" in str(wrong)  # noqa: E712 (a [false, why] pair is not True)


FACETS = """<html><body><div class="content">
<h3>320 rows</h3>
<p class="suggested-facets">Suggested facets: <a href="/books?_facet=genre">genre</a>, <a href="/books?_facet=year">year</a></p>
<div class="facet-info" id="facet-kind">
  <p class="facet-info-name"><strong>kind <span class="total">3</span></strong> <a href="/books" class="cross">x</a></p>
  <ul class="tight-bullets">
    <li><a href="/books?kind=herb">Herbs</a> 5</li><li><a href="/books?kind=shrub">Shrubs</a> 4</li>
  </ul>
</div>
<table><tr><th>name</th></tr><tr><td>Basil</td></tr><tr><td>Mint</td></tr></table>
<p><a href="/books?_next=100">Next page</a></p>
</div></body></html>"""


async def test_a_pager_is_in_no_group_a_count_names_none_and_a_bold_title_names_its_list(page: Any) -> None:
    """datasette's table page, in small: "Next page" once joined the suggested facets in one filter
    group named after the "320 rows" heading (and the build lost its next_page tool), and the facet's
    choices were named by their list's layout class (``tight-bullets``). The page-side rule agrees."""
    from toolcache.codegen import PRELUDE
    from toolcache.codegen.navlinks import NAV_JS

    url = "http://x.test/books"
    root = parse_html(FACETS)
    python = {a.text: link_group(a, url) for a in root.iter() if a.tag == "a" and a.text != "x"}  # x leaves the query
    assert python == {"genre": "suggested-facets", "year": "suggested-facets", "Herbs": "kind", "Shrubs": "kind",
                      "Next page": None}
    await page.route("http://x.test/**", lambda route: route.fulfill(body=FACETS, content_type="text/html"))
    await page.goto(url)
    in_page = await page.evaluate("() => {" + PRELUDE + NAV_JS + """
        return Object.fromEntries([...document.querySelectorAll('a:not(.cross)')].map((a) => [__clean(a.textContent), __linkGroup(a)]));
    }""")
    assert in_page == python
