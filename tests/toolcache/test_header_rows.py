"""A table's header row is found by one rule on both sides: ``extract.lists._header_row`` when the
builder reads a snapshot, ``__headRow`` in prelude.js when a built tool reads the page."""

from __future__ import annotations

from typing import Any

import pytest

from toolcache.dom import parse_html
from toolcache.extract import extract_snapshot
from toolcache.extract.lists import _header_row, _rows

# (table, the index of its header row among its own rows, or None)
TABLES = [
    # no thead: th cells beside an empty td (an actions column's head left blank)
    ("<table><tr><th>Title</th><th>Status</th><td></td></tr><tr><td>a</td><td>live</td><td><a href='/x'>Edit</a></td></tr></table>", 0),
    # no thead: one th is not enough, a td with text or an element is no blank head
    ("<table><tr><th>Title</th><td></td></tr><tr><td>a</td><td>b</td></tr></table>", None),
    ("<table><tr><th>Title</th><th>Status</th><td>x</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>", None),
    ("<table><tr><th>Title</th><th>Status</th><td><span></span></td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>", None),
    # label/value rows, then a header row further down
    ("<table><tr><th>Owner</th><td>ann</td></tr><tr><th>Name</th><th>Size</th></tr><tr><td>a</td><td>1</td></tr></table>", 1),
    # a thead: one th is enough; blank cells may hold elements but no control
    ("<table><thead><tr><th>sum</th></tr></thead><tbody><tr><td>12</td></tr></tbody></table>", 0),
    ("<table><thead><tr><th>Title</th><td><span></span></td></tr></thead><tbody><tr><td>a</td><td>b</td></tr></tbody></table>", 0),
    ("<table><thead><tr><th>Title</th><td><a href='?all'></a></td></tr></thead><tbody><tr><td>a</td><td>b</td></tr></tbody></table>", None),
    ("<table><thead><tr><td></td><td></td></tr></thead><tbody><tr><td>a</td><td>b</td></tr></tbody></table>", None),
    # a header of td cells, first row, with a class, above rows of values (a number, a link to an item)
    ("<table><tr class='head'><td>ID</td><td>Title</td></tr><tr><td>1</td><td><a href='/i/1'>Crash</a></td></tr></table>", 0),
    # ... and a select-all box and a sort link that stays on the page beside the names
    ("<table><tr><td><input type='checkbox'></td><td><a href='?sort=name'>Name</a></td><td>Assigned To</td></tr>"
     "<tr><td><input type='checkbox'></td><td><a href='/p/2'>ann</a></td><td>bob</td></tr></table>", 0),
    # a thead of td cells: its row heads the columns whatever the rows below hold
    ("<table><thead><tr><td>Name</td><td>City</td></tr></thead><tbody><tr><td>ann</td><td>Oslo</td></tr></tbody></table>", 0),
    # a row of columnheader cells, in a table with no thead
    ("<table><tr role='row'><td role='columnheader'>Name</td><td role='columnheader'>Size</td></tr>"
     "<tr><td>a</td><td>1</td></tr></table>", 0),
    # first rows that are data: a number, a date, a link to an item, a long text, or nothing but words below
    ("<table><tr><td>Ann</td><td>2024-01-02</td></tr><tr><td>Bob</td><td><a href='/b'>x</a></td></tr></table>", None),
    ("<table><tr><td><a href='/i/1'>Crash</a></td><td>open</td></tr><tr><td>2</td><td>open</td></tr></table>", None),
    ("<table><tr><td>a sentence far longer than any column name would be</td><td>open</td></tr>"
     "<tr><td>2</td><td>open</td></tr></table>", None),
    ("<table><tr><td>Name</td><td>City</td></tr><tr><td>ann</td><td>Oslo</td></tr></table>", None),
    # a record's keys down its first column, a value with a digit below: no header row
    ("<table><tr><td>Title</td><td>Owls Guide</td></tr><tr><td>Status</td><td>open</td></tr>"
     "<tr><td>Year</td><td>2001</td></tr></table>", None),
    # a header row of th further down wins over a first row of words
    ("<table><tr><td>Owner</td><td>ann</td></tr><tr><th>Name</th><th>Size</th></tr><tr><td>a</td><td>1</td></tr></table>", 1),
]


def _python_head(html: str) -> int | None:
    table = next(n for n in parse_html(html).iter() if n.tag == "table")
    head = _header_row(table)
    return None if head is None else _rows(table).index(head)


@pytest.mark.parametrize(("html", "want"), TABLES)
def test_the_builder_finds_the_header_row(html: str, want: int | None) -> None:
    assert _python_head(html) == want


async def test_the_page_finds_the_same_header_row(page: Any) -> None:
    from toolcache.codegen import PRELUDE

    await page.set_content("".join(html for html, _ in TABLES))
    got = await page.evaluate("() => {" + PRELUDE + """
        return [...document.querySelectorAll('body > table')].map((t) => {
          const own = [...t.querySelectorAll(':scope > tr, :scope > thead > tr, :scope > tbody > tr')];
          const head = __headRow(t);
          return head ? own.indexOf(head) : null;
        }); }""")
    assert got == [want for _, want in TABLES]
    assert got == [_python_head(html) for html, _ in TABLES]


# a page list whose header row is not in a thead: th cells, and a blank td over the row actions
LISTING = """<body><h1>Pages</h1><table class="listing"><tbody>
<tr><th>Title</th><th>Updated</th><th>Status</th><td></td></tr>
<tr><td><a href="/admin/pages/3/edit/">Owls Guide</a></td><td>2 days ago</td><td>live</td><td><a href="/admin/pages/3/delete/">Delete</a></td></tr>
<tr><td><a href="/admin/pages/4/edit/">Bees Notes</a></td><td>1 hour ago</td><td>draft</td><td><a href="/admin/pages/4/delete/">Delete</a></td></tr>
<tr><td><a href="/admin/pages/5/edit/">Kites History</a></td><td>just now</td><td>live</td><td><a href="/admin/pages/5/delete/">Delete</a></td></tr>
</tbody></table></body>"""


async def test_a_list_found_by_the_builder_reads_its_cells_by_header_on_the_page(page: Any) -> None:
    """The builder reads this table as a list of rows with Title, Updated and Status fields; the
    tool built from it must read each row's cells under those headers on the page (and a row's
    cells by its header names, not by their index)."""
    from toolcache.codegen.base import PRELUDE, _item_expr

    rows = next(e for e in extract_snapshot(LISTING, "http://x.test/admin/pages/").elements.values() if e.repeated)
    assert [p.key for p in rows.props.values() if p.source == "cell"] == ["Title", "Updated", "Status"]
    await page.set_content(LISTING)
    items = await page.evaluate(
        "() => {" + PRELUDE + f"return [...document.querySelectorAll({rows.selector!r})].map((c) => {_item_expr(rows.props, 'c')}); }}")
    assert [(i["title"], i["status"]) for i in items] == [("Owls Guide", "live"), ("Bees Notes", "draft"), ("Kites History", "live")]
    cells = await page.evaluate("() => {" + PRELUDE + f"return __row(document.querySelectorAll({rows.selector!r})[0]); }}")
    assert cells == {"Title": "Owls Guide", "Updated": "2 days ago", "Status": "live", "3": "Delete"}


async def _issue_rows(page: Any, site: Any) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The issue list of ``site`` as the builder reads it (its cell fields: header -> field) and as the list
    tool built from it reads the page."""
    from toolcache.codegen.base import PRELUDE, _cards_js, _item_expr

    await page.goto(site.url + "issue", wait_until="load")
    schema = extract_snapshot(await page.content(), page.url)
    rows = next(e for e in schema.elements.values() if e.repeated and e.member_sig == "tr"
                and {"ID", "Title"} <= {p.key for p in e.props.values() if p.source == "cell"})  # fmt: skip
    fields = {p.key: n for n, p in rows.props.items() if p.source == "cell"}
    assert rows.visible_count == await page.evaluate(f"() => {{ {PRELUDE}\n return {_cards_js(rows)}.length; }}")
    items = await page.evaluate(f"() => {{ {PRELUDE}\n return {_cards_js(rows)}.map((c) => {_item_expr(rows.props, 'c')}); }}")
    return fields, items


async def test_roundup_jinja2_issue_list_reads_as_classic_does(page: Any, roundup_site: Any) -> None:
    """Roundup's jinja2 template writes its issue list's header as a row of td cells (no th, no thead); the
    builder and the tool read it by those headers, as they read classic's th header, and never as an issue."""
    pytest.importorskip("jinja2")
    from agentjit.bench.roundup import RoundupSite

    classic_fields, classic = await _issue_rows(page, roundup_site)
    with RoundupSite(template="jinja2") as site:
        fields, items = await _issue_rows(page, site)
    assert {"ID", "Title", "Status", "Assigned To"} <= set(fields) and set(fields) <= set(classic_fields) | {"Keyword"}
    assert items and all(isinstance(i["id"], (int, float)) for i in items)  # no row of headers among them
    by_id = {i["id"]: (i["title"], i["status"]) for i in classic}
    assert {i["id"]: (i["title"], i["status"]) for i in items} == by_id
