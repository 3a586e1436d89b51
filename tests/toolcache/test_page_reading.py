"""Reading pages: a scroll to a region that holds a list is covered by that list's tool, and a
plain ``<ul><li><a>`` list of links (no class anywhere) is a list with a tool that opens an item.

A small recipe site of our own on 127.0.0.1 (not the food site's markup: comments are
``<article class="note">`` in a ``div#discussion`` that fills in after the page loads; the tips
index is bare HTML lists under a heading, beside a site menu that is a list of links too) is
recorded once per demonstration and built once with verification; every demonstrated step must
end up in a verified tool, and the tools are called with values no demonstration used.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool
from toolcache.build import BuildReport
from toolcache.extract import extract_snapshot
from toolcache.rows import looked_at_list

from .pages import PageHandler, record_and_build, serve

pytestmark = pytest.mark.browser

RECIPES = {
    "soup": ("Pumpkin soup", [("Ana", "Needs more ginger."), ("Bo", "Lovely in autumn."), ("Cy", "Made it twice.")]),
    "bread": ("Rye bread", [("Dee", "Dense but good."), ("Eli", "Use a hot oven.")]),
}


TIPS = {"knives": "Knife skills", "oven": "Oven basics", "salt": "Salting early", "rest": "Resting meat"}


def _page(title: str, body: str) -> str:
    menu = '<ul><li><a href="/">Recipes</a></li><li><a href="/tips">Tips</a></li></ul>'
    return (f"<!doctype html><html><head><title>{title}</title></head><body>"
            f"<header>{menu}</header><main>{body}</main></body></html>")


def _tips() -> str:
    links = "".join(f'<li><a href="/tip/{k}">{t}</a></li>' for k, t in TIPS.items())
    return _page("Tips", f"<h1>Tips</h1><p>Short lessons.</p><ul>{links}</ul>")


def _tip(key: str) -> str:
    related = "".join(f'<li><a href="/tip/{k}">{t}</a></li>' for k, t in TIPS.items() if k != key)
    return _page(TIPS[key], f"<h1>{TIPS[key]}</h1><p>What to know about {TIPS[key].lower()}.</p>"
                            f"<h2>Related</h2><ul>{related}</ul>")


def _home() -> str:
    cards = "".join(f'<div class="recipe"><a href="/recipe/{k}">{t}</a></div>' for k, (t, _) in RECIPES.items())
    return _page("Recipes", f"<h1>Recipes</h1>{cards}")


def _recipe(key: str) -> str:
    title, notes = RECIPES[key]
    filler = "".join(f"<p>Step {i}: stir and wait.</p>" for i in range(1, 40))  # the discussion is below the fold
    items = "".join(f'<article class="note"><b class="who">{w}</b><p class="said">{s}</p></article>' for w, s in notes)
    script = ("<script>setTimeout(() => {document.getElementById('discussion').insertAdjacentHTML('beforeend', "
              + json.dumps(items) + ")}, 30)</script>")
    return _page(title, f'<h1>{title}</h1>{filler}<div id="discussion"><h2>Discussion</h2></div>{script}')


class _Handler(PageHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?")[0]
        if path == "/":
            body = _home()
        elif path.startswith("/recipe/") and path[8:] in RECIPES:
            body = _recipe(path[8:])
        elif path == "/tips":
            body = _tips()
        elif path.startswith("/tip/") and path[5:] in TIPS:
            body = _tip(path[5:])
        else:
            self.send_error(404)
            return
        self.send_html(body)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(_Handler) as url:
        yield url


def _link(name: str) -> dict[str, Any]:
    return {"action": "click", "target": {"role": "link", "name": name, "exact": True}}


SCRIPTS = {
    "read_notes": [{"action": "goto", "url": "/"}, _link("Pumpkin soup"), {"action": "scroll", "target": {"selector": "#discussion"}},
                   _link("Recipes")],
    "open_tip": [{"action": "goto", "url": "/tips"}, _link("Salting early"), _link("Oven basics"), _link("Tips"), _link("Knife skills")],
}


@pytest.fixture(scope="module")
async def built(site: str, browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> tuple[ToolCache, BuildReport]:
    return await record_and_build(browser_pool, site, SCRIPTS, tmp_path_factory.mktemp("reading"))


async def test_a_scroll_to_a_region_is_covered_by_the_list_it_shows(built: tuple[ToolCache, BuildReport]) -> None:
    cache, report = built
    assert report.coverage is not None and report.coverage.missed == [], report.coverage.missed
    assert report.coverage.covered == report.coverage.steps == 7
    notes = [t for name, t in cache.tools.items() if name.startswith("list_") and "note" in name]
    assert len(notes) == 1, sorted(cache.tools)


async def test_a_plain_list_of_links_is_a_list_and_opens_any_item(built: tuple[ToolCache, BuildReport], site: str, page: Any) -> None:
    from agentjit.runtime.invoke import call_tool

    cache, report = built
    assert "list_tips" in report.verified and "goto_tip" in report.verified, (report.verified, report.rejected)
    await page.goto(site + "/tips")
    listed = await call_tool(page, cache.tools["list_tips"], {})
    assert listed.ok and [i["name"] for i in listed.output["items"]] == list(TIPS.values())  # the menu's links are no tips
    opened = await call_tool(page, cache.tools["goto_tip"], {"name": "Resting meat"})  # no demonstration opened it
    assert opened.ok and opened.output == {"name": "Resting meat"} and page.url.endswith("/tip/rest"), opened.reason
    # a tip's own list of related tips opens another tip: the same tool, from a tip's page
    again = await call_tool(page, cache.tools["goto_tip"], {"name": "Knife skills"})
    assert again.ok and page.url.endswith("/tip/knives"), again.reason
    await page.goto(site + "/tips")
    wrong = await call_tool(page, cache.tools["goto_tip"], {"name": "Boiling eggs"})
    assert not wrong.ok and page.url.endswith("/tips")
    assert not [n for n in cache.tools if n.startswith(("goto_oven", "goto_knife", "goto_salting", "do_"))]


def test_one_list_seen_with_other_links_is_one_element() -> None:
    from toolcache.extract import merge_page

    def snap(items: str) -> Any:
        return extract_snapshot(f"<body><main><h1>X</h1><ul>{items}</ul></main></body>", "http://x.test/wiki/Index")

    mixed = snap('<li><a href="/wiki/A">A</a></li><li><a href="http://other.test/">Elsewhere</a></li>')
    merge_page(mixed, snap('<li><a href="/wiki/B">B</a></li><li><a href="/wiki/C">C</a></li>'))
    lists = {n: e.samples for n, e in mixed.elements.items() if e.repeated}
    assert lists == {"wiki": ["A", "Elsewhere", "B", "C"]}  # the shared path names it, over "link"


def test_lists_of_links_that_are_menus_pagers_or_forms_are_not_lists() -> None:
    def lists(items: str, wrap: str = "main") -> list[str]:
        html = f"<body><{wrap}><h1>X</h1><ul>{items}</ul></{wrap}></body>"
        return [e.name for e in extract_snapshot(html, "http://x.test/things").elements.values() if e.repeated]

    assert lists('<li><a href="/a/1">One</a></li><li><a href="/a/2">Two</a></li>') == ["a"]
    assert lists('<li><a href="/a/1">One</a></li><li><a href="/a/2">Two</a></li>', wrap="nav") == []  # site menu
    assert lists('<li><a href="?page=1">1</a></li><li><a href="?page=2">2</a></li>') == []  # a pager
    assert lists('<li><a href="/a/1">One</a> <a href="/a/1/edit">edit</a></li><li><a href="/a/2">Two</a></li>') == []
    assert lists('<li><a href="/a/1">One</a><input name="q"></li><li><a href="/a/2">Two</a></li>') == []


def test_a_region_without_a_list_names_none() -> None:
    from agentjit.protocol.trace import StepEvent

    html = _recipe("bread").replace("<script>", "<!--").replace("</script>", "-->")
    items = "".join(f'<article class="note"><b class="who">{w}</b><p class="said">{s}</p></article>' for w, s in RECIPES["bread"][1])
    filled = html.replace('<h2>Discussion</h2>', '<h2>Discussion</h2>' + items)
    elements = list(extract_snapshot(filled, "http://x.test/recipe/bread").elements.values())

    def step(action: str, target: dict[str, Any]) -> StepEvent:
        return StepEvent.model_validate({"index": 2, "action": action, "url": "http://x.test/recipe/bread", "start": 0, "end": 0,
                                         "target": target})

    region = {"selector": "#discussion", "attributes": {"id": "discussion"}}
    found = looked_at_list(filled, step("scroll", region), elements)
    assert found is not None and found.repeated and "note" in found.name
    assert looked_at_list(html, step("scroll", region), elements) is None  # the region holds no member yet
    assert looked_at_list(filled, step("scroll", {"selector": "header", "tag": "header"}), elements) is None
    assert looked_at_list(filled, step("click", region), elements) is None  # a click acts: not a look
