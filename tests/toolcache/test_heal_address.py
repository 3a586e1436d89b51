"""Issue 21, a search whose redesigned form filters by a field of its own: Roundup's jinja2 search box adds a status
filter (open issues only) beside the text, so a search healed onto the new form lands on the same route with the
text and shows other rows than its good call did. Heal refuses that landing (the rows decide where the good call
redrew them) and, since the site still answers the address the good call landed on, heals the tool to open that
address with each call's text (:mod:`toolcache.heal_address`). In Chromium on a small tracker with two designs."""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.exceptions import ToolCallFailed
from agentjit.protocol.manifest import ToolManifest, ToolType
from agentjit.runtime import Runtime
from toolcache.heal import heal_cache
from toolcache.heal_address import address_template, by_address
from toolcache.heal_checks import lands_unlike_good, rows_unlike_good

from .pages import PageHandler, serve

TIMEOUT_MS = 10_000
"""A call's check and navigation limit: no call here is expected to fail, and the machine may be busy."""
ISSUES = [(1, "Login page times out", "closed"), (2, "Export drops a row", "open"), (3, "Login form too wide", "open"),
          (4, "Slow dashboard", "closed"), (5, "Login forgets the user", "closed"), (6, "Typo in the footer", "open"),
          (7, "Search ignores accents", "open"), (8, "Broken link", "closed")]  # fmt: skip
LOGIN = ["Login page times out", "Login form too wide", "Login forgets the user"]


class Tracker(PageHandler):
    """``/``: a search box (GET ``/issues?q=...&sort=title``); ``/issues``: the issues whose title has ``q``, only
    those of ``status`` when given, or a notice that none match, above its sort controls (laid out in a table in
    design 1, whose rows are no rows of the list's). Design 2 renames the box's button and adds a hidden
    ``status=open`` to it; the address answers as before. Design 3 searches by ``text`` (``q`` is no filter any
    more: the old address lists every issue) from a box whose button is another control."""

    design = 1

    def do_GET(self) -> None:
        path, query = urlsplit(self.path).path, parse_qs(urlsplit(self.path).query)
        if path == "/issues":
            text = (query.get("q" if self.design != 3 else "text") or [""])[0].lower()
            status = (query.get("status") or [None])[0]
            found = [i for i in ISSUES if text in i[1].lower() and status in (None, i[2])]
            rows = "".join(f'<tr><td>{n}</td><td><a href="/issue/{n}">{escape(t)}</a></td><td>{s}</td></tr>' for n, t, s in found)
            table = f"<table id='results'><tr><th>ID</th><th>Title</th><th>Status</th></tr>{rows}</table>" if found else "<p>No issues match.</p>"
            # the list's sort and group controls below it, laid out in a table (design 1) or not
            pick = "<select name='{}'><option>title</option><option>id</option></select>"
            controls = [("Sort on:", pick.format("sort")), ("Descending:", "<input type='checkbox' name='sortdir'>"),
                        ("Group on:", pick.format("group")), ("Page size:", "<input name='size' value='50'>")]
            form = ("<table class='form'>" + "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in controls) + "</table>"
                    if self.design == 1 else "".join(f"<div>{a} {b}</div>" for a, b in controls))
            self.send_html(f"<body><h1>Issues</h1>{table}<form action='/issues'>{form}</form></body>")
            return
        if self.design == 1:
            box = "<input id='q' name='q'><input type='hidden' name='sort' value='title'><button id='go' name='go'>Search</button>"
        elif self.design == 3:
            box = "<input id='q' name='text'><button class='btn'>Find</button>"
        else:
            box = ("<input class='form-control' id='q' name='q'><input type='hidden' name='sort' value='title'>"
                   "<input type='hidden' name='status' value='open'><button class='btn' name='go'>Search</button>")
        self.send_html(f"<body><h1>Home</h1><form action='/issues' method='get'>{box}</form></body>")


SEARCH = ToolManifest(
    name="search_issues", description="Search the issues by a word of their title.", type=ToolType.SET_FIELDS,
    navigates=True, timeout_ms=TIMEOUT_MS,
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
    output_schema={"type": "object", "properties": {"success": {"type": "boolean"}}, "required": ["success"]},
    pre_check="return document.querySelector('#go') ? true : [false, 'no search button'];",
    execute="document.querySelector('#q').value = inputs.text;\nconst b = document.querySelector('#go');\n"
            "if (!b) throw new Error('no search button here');\nsetTimeout(() => b.click(), 0);\nreturn {success: true};",
    post_check="return location.pathname === '/issues' ? true : [false, 'not on the issues'];",
)  # fmt: skip
ROWS = "#results tr:has(> td)"
LIST = ToolManifest(
    name="list_issues", description="The issues listed.", type=ToolType.LIST_ITEMS,
    output_schema={"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"title": {"type": "string"}}}}}},
    pre_check="return location.pathname === '/issues' ? true : [false, 'not on the issues'];",
    execute=f"return {{items: [...document.querySelectorAll({ROWS!r})].map((r) => ({{title: r.cells[1].textContent}}))}};",
)  # fmt: skip
PLAN = 'await search_issues(text="{}")\nfound = await list_issues()\nresult = [r["title"] for r in found["items"]]'


async def run(cache_dir: Path, url: str, pool, text: str):
    runtime = Runtime(ToolCache.load(cache_dir), url, pool=pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS)
    return await runtime.run(PLAN.format(text))


@pytest.fixture
def tracker(tmp_path):
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="tracker"), [SEARCH, LIST]).save(cache_dir)
    Tracker.design = 1
    with serve(Tracker) as url:
        yield cache_dir, url


@pytest.mark.browser
async def test_a_search_whose_new_form_filters_otherwise_is_healed_to_its_address(tracker, browser_pool) -> None:
    cache_dir, url = tracker
    assert (await run(cache_dir, url, browser_pool, "login")).value == LOGIN
    Tracker.design = 2
    with pytest.raises(ToolCallFailed, match="search_issues"):
        await run(cache_dir, url, browser_pool, "login")
    assert "search_issues" in SuspectStore(cache_dir).suspects()

    report = await heal_cache(cache_dir, url, pool=browser_pool, probe=False)
    assert report.healed == ["search_issues"], report.failed
    assert report.by_address["search_issues"] == "/issues?q={text}&sort=title&go="
    # the form was tried first: its landing, the route and the text, showed the open issues only
    assert ToolCache.load(cache_dir).tools["search_issues"].version == 2
    assert (await run(cache_dir, url, browser_pool, "login")).value == LOGIN
    assert (await run(cache_dir, url, browser_pool, "slow")).value == ["Slow dashboard"]  # another call's text


@pytest.mark.browser
async def test_an_address_that_no_longer_serves_the_rows_is_not_healed(tracker, browser_pool) -> None:
    cache_dir, url = tracker
    assert (await run(cache_dir, url, browser_pool, "login")).value == LOGIN
    Tracker.design = 3
    with pytest.raises(ToolCallFailed, match="search_issues"):
        await run(cache_dir, url, browser_pool, "login")
    report = await heal_cache(cache_dir, url, pool=browser_pool, probe=False)
    # no control is the button it clicked; the address it landed on lists every issue now, not the three
    assert report.healed == [] and "by its good call's address: it shows 8 row(s)" in report.failed["search_issues"], report.failed


def test_the_address_template_marks_the_parameters_that_carried_the_arguments() -> None:
    good = {"url": "http://a.test/", "args": {"text": "login"}, "output": {"success": True},
            "after_url": "http://a.test/issues?q=login&sort=title&%40columns=id%2Ctitle"}
    assert address_template(good) == ("/issues", [("q", "login", "text"), ("sort", "title", None), ("@columns", "id,title", None)])
    assert address_template({**good, "args": {"text": "login", "page": "2"}}) is None  # an argument the address lacks
    assert address_template({**good, "args": {"a": "login", "b": "login"}}) is None  # whose is which
    assert address_template({**good, "after_url": "http://a.test/"}) is None  # it did not move
    made = by_address(SEARCH, good)
    assert made is not None and "#go" not in made.execute + made.pre_check  # no name of the form is left
    assert '"id,title"' not in made.execute  # the values are inside one JSON string: no literal reads as a selector


def test_a_landing_of_the_route_with_the_text_but_other_rows_is_not_the_good_calls() -> None:
    good = {"url": "http://a.test/", "args": {"text": "login"}, "after_url": "http://a.test/issues?q=login&sort=title"}
    rows = ([], ["/issue/1", "/issue/3", "/issue/5"])
    filtered = "http://b.test/issues?q=login&sort=title&status=open"
    assert lands_unlike_good(filtered, None, good, rows) is not None  # the address alone no longer says it
    assert lands_unlike_good(filtered, ["/issue/3"], good, rows) is not None and rows_unlike_good(["/issue/3"], rows)
    assert lands_unlike_good(filtered, ["/issue/5", "/issue/3", "/issue/1"], good, rows) is None  # sorted otherwise
    assert rows_unlike_good(["/issue/1", "/issue/3", "/issue/5"], rows) is None
    assert rows_unlike_good([f"/issue/{n}" for n in range(1, 9)], rows) is not None  # every issue, not the three
    assert rows_unlike_good(["x"], (["x"], ["x"])) is None  # the good call redrew nothing to hold it to
