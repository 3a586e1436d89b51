"""Issue 21, a healed tool gives what the tool gave while it worked, in Chromium on a small library site with two
designs: a list read from the wrong table of the redesigned page, a list whose column was renamed, a sort that
clicks another table's header, a form field found by a name that is another field's. Each was reported healed
by the checks of the tool alone; each is now held to its last good call (its output, the page it landed on, the
control it filled)."""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime import Runtime
from toolcache.heal import heal_cache
from toolcache.heal_checks import (
    ROWS_JS,
    key_map,
    lands_like,
    lands_unlike_good,
    renamed,
    similarity,
    unlike_good,
)

from .pages import PageHandler, serve

TIMEOUT_MS = 10_000
"""A call's check and navigation limit: no call here is expected to fail, and the machine may be busy."""
BOOKS = [("Moths of the Steppe", "Out"), ("Dune", "Returned"), ("Beowulf", "Overdue")]
RECENT = [("Added Dune", "today"), ("Changed Beowulf", "today"), ("Added Emma", "monday"), ("Deleted Ulysses", "monday"),
          ("Added Beowulf", "sunday")]  # fmt: skip


class LibrarySite(PageHandler):
    """``/books``: a table of recent actions (a header link to its next page) above the books (header links that
    sort them, ``?o=book``); a change form at ``/books/1`` posting ``price`` and ``in_stock``, below a filter form
    with a checkbox named ``in_stock`` too. Design 2 renames the ids (``results``, ``id_price``, ``id_stock``);
    design 3 calls the Book column Title; design 4 shows loan numbers where the books were."""

    design = 1
    posts: list[str] = []

    def do_GET(self) -> None:
        path, query = urlsplit(self.path).path, parse_qs(urlsplit(self.path).query)
        if path == "/books/1":
            self.send_html(self.form())
            return
        rows = sorted(BOOKS) if query.get("o") == ["book"] else BOOKS
        results = "results" if self.design != 2 else "rd-results"
        book = "Title" if self.design == 3 else "Book"
        recent = "".join(f"<tr><td>{escape(a)}</td><td>{w}</td></tr>" for a, w in RECENT)
        books = "".join(f"<tr><td>{escape(b)}</td><td>{s}</td></tr>" for b, s in rows)
        if self.design == 4:  # the books' names as links in a column headed by nothing the good call knew
            book, books = "Loan", "".join(f'<tr><td><a href="/loans/{i}">#{i}</a></td><td>{s}</td></tr>'
                                          for i, (_b, s) in enumerate(rows))  # fmt: skip
        self.send_html(f'<body><table id="recent-actions"><thead><tr><th><a href="/books?page=2">Book</a></th>'
                       f'<th>When</th></tr></thead><tbody>{recent}</tbody></table>'
                       f'<table id="{results}"><thead><tr><th><a href="/books?o=book">{book}</a></th><th>Status</th>'
                       f'</tr></thead><tbody>{books}</tbody></table></body>')  # fmt: skip

    def form(self) -> str:
        price, stock, only = ("id_price", "id_stock", "filter-stock") if self.design != 2 else ("rd-price", "rd-stock", "rd-only")
        return (f'<body><form action="/books"><label for="{only}">Only in stock</label>'
                f'<input id="{only}" name="in_stock" type="checkbox"></form>'
                f'<form method="post" action="/books/1"><label for="{price}">Price</label>'
                f'<input id="{price}" name="price" value="12.5"><label for="{stock}">In stock</label>'
                f'<input id="{stock}" name="in_stock" type="checkbox" checked>'
                f'<input id="rd-notify" name="notify" type="checkbox"><button id="save">Save</button></form></body>')

    def do_POST(self) -> None:
        type(self).posts.append(self.rfile.read(int(self.headers["Content-Length"])).decode())
        self.send_response(303)
        self.send_header("Location", "/books")
        self.send_header("Content-Length", "0")
        self.end_headers()


ROWS = "#results tr:has(> td)"
LIST_ROWS = ToolManifest(
    name="list_books", description="The books of the list, each row's cells by their column.", type=ToolType.LIST_ITEMS,
    output_schema={"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"cells": {"type": "object"}}}}}},
    pre_check=f"return document.querySelector({ROWS!r}) ? true : [false, 'no rows'];",
    execute=f"return {{items: [...document.querySelectorAll({ROWS!r})].map((r) => {{\n"
            "  const head = [...r.closest('table').querySelectorAll('th')].map((h) => h.textContent.trim());\n"
            "  const cells = {}; [...r.cells].forEach((c, i) => { cells[head[i] || String(i)] = c.textContent.trim(); });\n"
            "  return {cells};\n})};",
)  # fmt: skip

LINKS = "#results thead a[href]"
SORT = ToolManifest(
    name="sort_books", description="Sort the books by a column.", type=ToolType.SET_FILTER, navigates=True,
    input_schema={"type": "object", "required": ["column"], "properties": {"column": {"type": "string"}}},
    output_schema={"type": "object", "properties": {"column": {"type": "string"}}},
    pre_check=f"return document.querySelector({LINKS!r}) ? true : [false, 'no column headers'];",
    execute=f"const a = [...document.querySelectorAll({LINKS!r})].find((l) => l.textContent.trim() === inputs.column);\n"
            "if (!a) throw new Error('no column ' + inputs.column);\nsetTimeout(() => a.click(), 0);\nreturn {column: inputs.column};",
)  # fmt: skip

CHANGE = ToolManifest(
    name="change_book", description="Change the book's price or stock.", type=ToolType.SET_FIELDS, effect=Effect.WRITE,
    navigates=True,
    input_schema={"type": "object", "properties": {"price": {"type": "number"}, "in_stock": {"type": "boolean"}}},
    output_schema={"type": "object", "properties": {"success": {"type": "boolean"}}},
    pre_check="return document.querySelector('#save') ? true : [false, 'no save button'];",
    execute="if (inputs.price != null) document.querySelector('#id_price').value = inputs.price;\n"
            "if (inputs.in_stock != null) { const b = document.querySelector('#id_stock');"
            " if (b.checked !== inputs.in_stock) b.click(); }\n"
            "const s = document.querySelector('#save');\nsetTimeout(() => s.click(), 0);\nreturn {success: true};",
)  # fmt: skip


@pytest.fixture
def library(tmp_path):
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="library"), [LIST_ROWS, SORT, CHANGE]).save(cache_dir)
    LibrarySite.design, LibrarySite.posts = 1, []
    with serve(LibrarySite) as url:
        yield cache_dir, url


async def run(cache_dir: Path, url: str, pool, plan: str, start: str = "/books"):
    cache = ToolCache.load(cache_dir)
    cache.info.start_path = start
    return await Runtime(cache, url, pool=pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS).run(plan)


def suspect(cache_dir: Path, tool: str, url: str, **args: object) -> None:
    SuspectStore(cache_dir).add(tool, {"tool": tool, "phase": "pre_check", "url": url, "args": args})


LIST_PLAN = 'rows = await list_books()\nresult = [r["cells"]["Book"] for r in rows["items"]]'


@pytest.mark.browser
async def test_a_list_is_healed_onto_the_table_its_good_call_read(library, browser_pool) -> None:
    """The first replacement, the old selector without its renamed id, finds the rows of every table: its output
    is not empty and fits the schema, but it is not the good call's list. The table that gives that list is."""
    cache_dir, url = library
    assert (await run(cache_dir, url, browser_pool, LIST_PLAN)).value == [b for b, _s in BOOKS]
    assert SuspectStore(cache_dir).good("list_books")["output"]["items"][0] == {"cells": {"Book": BOOKS[0][0], "Status": "Out"}}
    LibrarySite.design = 2
    suspect(cache_dir, "list_books", url + "/books")
    report = await heal_cache(cache_dir, url, pool=browser_pool)
    assert report.healed == ["list_books"], report.failed
    assert report.changes["list_books"] == {ROWS: "#rd-results tr:has(> td)"}
    assert (await run(cache_dir, url, browser_pool, LIST_PLAN)).value == [b for b, _s in BOOKS]


@pytest.mark.browser
async def test_a_relabelled_column_is_read_under_its_old_key(library, browser_pool) -> None:
    """Design 3 calls the Book column Title: every selector still matches and the rows are read, but a plan that
    reads ``cells["Book"]`` got a KeyError. The Title cells hold the good call's Book values: the healed tool
    gives them as Book again."""
    cache_dir, url = library
    await run(cache_dir, url, browser_pool, LIST_PLAN)
    LibrarySite.design = 3
    suspect(cache_dir, "list_books", url + "/books")
    report = await heal_cache(cache_dir, url, pool=browser_pool)
    assert report.healed == ["list_books"], report.failed
    assert report.renamed_keys == {"list_books": {".items[].cells.Title": "Book"}} and report.changes["list_books"] == {}
    assert ToolCache.load(cache_dir).tool("list_books").version == 2
    assert (await run(cache_dir, url, browser_pool, LIST_PLAN)).value == [b for b, _s in BOOKS]


@pytest.mark.browser
async def test_a_list_that_lost_a_column_is_not_healed(library, browser_pool) -> None:
    """Design 4 shows loan numbers where the books were: no column holds the good call's Book values, so heal
    says why and leaves the tool suspect instead of reporting it healed."""
    cache_dir, url = library
    await run(cache_dir, url, browser_pool, LIST_PLAN)
    LibrarySite.design = 4
    suspect(cache_dir, "list_books", url + "/books")
    report = await heal_cache(cache_dir, url, pool=browser_pool)
    assert report.healed == [] and ".items[].cells.Book" in report.failed["list_books"], report.failed
    assert SuspectStore(cache_dir).suspects().keys() == {"list_books"}  # still suspect


SORT_PLAN = 'await sort_books(column="Book")\nrows = await list_books()\nresult = rows["items"][0]["cells"]["Book"]'


@pytest.mark.browser
async def test_a_sort_is_healed_onto_the_links_that_sort(library, browser_pool) -> None:
    """The first replacements of the renamed table's header links find the recent actions' header first: a link
    named Book that opens their next page. Its checks pass; the page it lands on is not the sorted list its good
    call landed on, so the links of the renamed table are taken."""
    cache_dir, url = library
    assert (await run(cache_dir, url, browser_pool, SORT_PLAN)).value == "Beowulf"
    LibrarySite.design = 2
    suspect(cache_dir, "sort_books", url + "/books", column="Book")
    # the sort alone (a probe would find list_books broken by the same design and heal it too)
    report = await heal_cache(cache_dir, url, pool=browser_pool, tools=["sort_books"], probe=False)
    assert report.healed == ["sort_books"], report.failed
    assert report.changes["sort_books"] == {LINKS: "#rd-results thead a[href]"}
    assert report.candidates_tried["sort_books"] > 1  # the wrong tables' links were tried and refused


CHANGE_PLAN = 'r = await change_book(price=19.99)\nresult = r.success'


@pytest.mark.browser
async def test_a_form_field_the_good_call_left_alone_is_named_by_its_evidence(library, browser_pool) -> None:
    """The good call set only the price: run again with its arguments, the healed tool never touches the
    checkbox, so any replacement passed, the first: ``[name="in_stock"]``, which names both the filter's checkbox
    (first on the page) and the form's. The one the tool ticks is the one element named ``in_stock`` whose label
    says In stock; and nothing is sent while healing."""
    cache_dir, url = library
    assert (await run(cache_dir, url, browser_pool, CHANGE_PLAN, "/books/1")).value is True
    assert LibrarySite.posts == ["price=19.99&in_stock=on"]
    LibrarySite.design = 2
    suspect(cache_dir, "change_book", url + "/books/1")
    report = await heal_cache(cache_dir, url, pool=browser_pool)
    assert report.healed == ["change_book"], report.failed
    assert report.changes["change_book"] == {"#id_price": "#rd-price", "#id_stock": "#rd-stock"}
    assert LibrarySite.posts == ["price=19.99&in_stock=on"]  # verified against the recorded request, never sent


def test_similarity_is_of_the_good_items_found_and_the_lengths() -> None:
    good = {"items": [{"t": "a"}, {"t": "b"}]}
    assert similarity(good, {"items": [{"t": "b"}, {"t": "a"}]}) == 1.0  # a set: a row that moved is still there
    assert similarity(good, {"items": [{"t": x} for x in "abcdefgh"]}) == 0.25  # everything is not the filtered list
    assert similarity({"n": 2.0, "s": "x"}, {"n": 2, "s": "y"}) == 0.5
    assert unlike_good({"items": [{"t": None}, {"t": None}]}, good) == "its output has no value for .items[].t, which the good call's had"
    assert unlike_good({"items": []}, good) is not None and unlike_good({"items": [{"t": "a"}]}, {"items": []}) is not None
    assert unlike_good({"items": [{"t": "a"}, {"t": "c"}], "more": 1}, good) is None  # a row changed since, a field more


def test_a_field_named_otherwise_is_mapped_back_by_its_values() -> None:
    good = {"items": [{"cells": {"Book": "Dune", "Status": "Out"}}, {"cells": {"Book": "Emma", "Status": "Out"}}]}
    got = {"items": [{"cells": {"Title": "Dune", "Status": "Out", "Due": "Out"}}, {"cells": {"Title": "Emma", "Status": "Out"}}]}
    assert key_map(got, good) == {".items[].cells.Title": "Book"}
    assert renamed(got, key_map(got, good))["items"][1] == {"cells": {"Book": "Emma", "Status": "Out"}}
    assert key_map({"items": [{"cells": {"Loan": "#1"}}]}, {"items": [{"cells": {"Book": "Dune"}}]}) == {}


def test_a_landing_is_judged_by_its_address_else_by_its_rows() -> None:
    good = {"url": "http://a.test/books", "after_url": "http://a.test/books?o=book"}
    rows = (["c", "a", "b"], ["a", "b", "c"])  # the good call sorted them
    assert lands_unlike_good("http://b.test/books/?o=book", None, good, rows) is None  # another host, same address
    assert lands_unlike_good("http://b.test/books?page=2", None, good, rows) is not None
    assert lands_unlike_good("http://b.test/books?sort=title", ["a", "b", "c"], good, rows) is None  # its rows, its order
    assert lands_unlike_good("http://b.test/books?sort=title", ["c", "a", "b"], good, rows) is not None
    stay = {"url": "http://a.test/books", "after_url": "http://a.test/books"}
    assert lands_unlike_good("http://b.test/books", ["x"], stay, (["x"], ["x"])) is None  # it changed nothing to hold to


def test_a_redesigned_search_form_lands_like_its_good_call() -> None:
    """Roundup's jinja2 search box posts a sort and a status filter of its own beside the text classic's posts:
    the landing is the same route with the parameter that carried the argument, so it lands like the good call
    when it shows the good call's rows (its filter may drop them: open issues only).
    A search typed into another box, sent to another route, or sent without the text does not."""
    good = {"url": "http://a.test/", "args": {"search_text": "login"},
            "after_url": "http://a.test/issue?%40columns=id%2Ctitle&%40sort=activity&%40search_text=login&submit=Search"}
    jinja2 = "http://b.test/issue?%40columns=id%2Ctitle&%40sort=-activity&%40filter=status&status=-1%2C1&%40search_text=login"
    rows = (["/issue1", "/issue2", "/issue5"], ["/issue2"])
    assert lands_like(jinja2, good) and lands_unlike_good(jinja2, ["/issue2"], good, rows) is None
    # where the good call redrew the rows, the route and the text are not enough: the filter of its own may drop them
    assert lands_unlike_good(jinja2, None, good, rows) is not None and lands_unlike_good(jinja2, [], good, rows) is not None
    for wrong in ("http://b.test/issue?title=login&%40sort=-activity",  # another box of the page
                  "http://b.test/user?%40search_text=login",  # another route
                  "http://b.test/issue?%40search_text=&%40sort=-activity",  # the text never typed
                  "http://b.test/issue2?%40search_text=login"):  # an item's page
        assert not lands_like(wrong, good), wrong
        assert lands_unlike_good(wrong, ["/issue1", "/issue2", "/issue5"], good, rows) is not None, wrong
    assert lands_unlike_good("http://b.test/issue?title=login", ["/issue2"], good, rows) is None  # its rows say it
    assert not lands_like(jinja2, {**good, "args": {}})  # no argument carried: the address or the rows decide


CLASSIC_ROWS = """<table class="list"><tr><th>ID</th><th>Title</th><th>Activity</th></tr>
<tr><th colspan="3">bug</th></tr>
<tr><td>2</td><td><a href="issue2">Export to CSV drops the last row</a></td><td>2 minutes ago</td></tr>
<tr><td>9</td><td><a href="issue9">Typo on the welcome screen</a></td><td>3 minutes ago</td></tr></table>"""
JINJA2_ROWS = """<table class="table"><tr class="info"><td>Activity</td><td>ID</td><td>Title</td></tr>
<tr><td>just now</td><td>9</td><td><a href='issue9'>Typo on the welcome screen</a></td></tr>
<tr><td>just now</td><td>2</td><td><a href='http://b.test/issue2'>Export to CSV drops the last row</a></td></tr></table>"""


@pytest.mark.browser
async def test_rows_are_the_items_they_link_to_whatever_draws_them(page) -> None:
    """The same search results drawn by two templates (a header of th or of td cells, other columns, other times,
    relative or absolute links) are the same rows; a row without a link is its cells' text."""
    classic, jinja2, plain = await page.evaluate(ROWS_JS, [[CLASSIC_ROWS, "http://a.test/issue?x=1"],
                                                           [JINJA2_ROWS, "http://b.test/issue?y=2"],
                                                           ["<table><tr><td>b</td><td>a</td></tr></table>", None]])
    assert sorted(classic) == sorted(jinja2) == ["/issue2", "/issue9"]
    assert plain == ["a | b"]  # a row of words alone in its table is no header
