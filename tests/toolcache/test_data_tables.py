"""The builder on a data browser's markup (found on datasette, examples/datasette/): sortable
column headers, a code editor over a textarea, a list whose items open pages named by data,
select options whose values are not their labels, row ids."""

from __future__ import annotations

from typing import Any

from agentjit.protocol.trace import StepEvent
from toolcache.codegen.base import PRELUDE, _option_label
from toolcache.extract import Element, extract_snapshot
from toolcache.label import label_step
from toolcache.pages import PAGE_JS, learn_routes, page_name, with_routes
from toolcache.record import _why

TABLE = """<body><section><h3>3 rows</h3>
<form class="filters" action="/db/books" method="get"><select name="_filter_op">
<option value="exact">=</option><option value="gt">&gt;</option></select></form>
<table class="rows-and-columns"><thead><tr>
<th class="col-id"><a href="/db/books?_sort_desc=id">id&nbsp;▼</a></th>
<th class="col-title"><a href="/db/books?_sort=title">title</a></th></tr></thead>
<tbody><tr><td class="col-id"><a href="/db/books/1">1</a></td><td>River</td></tr>
<tr><td class="col-id"><a href="/db/books/2">2</a></td><td>Salt</td></tr>
<tr><td class="col-id"><a href="/db/books/17">17</a></td><td>Tide</td></tr></tbody></table></section></body>"""


def _click(tag: str, ancestors: list[dict[str, Any]], text: str = "") -> StepEvent:
    target = {"selector": "x", "tag": tag, "text": text, "attributes": {},
              "ancestors": [{"tag": a, "classes": c, "data": {}} for a, c in ancestors]}
    return StepEvent.model_validate({"index": 0, "action": "click", "start": 0, "end": 0, "target": target})


def test_a_table_with_sort_links_in_its_thead_is_a_list_and_a_header_click_is_no_row() -> None:
    ps = extract_snapshot(TABLE, "http://x.test/db/books")
    rows = next(e for e in ps.elements.values() if e.repeated)
    assert rows.selector == "table.rows-and-columns tr:has(> td)"
    assert set(rows.props) == {"id", "title", "cells"} and rows.name_prop == "id" and rows.link_selector == "a[href]"
    table = [("tr", ""), ("tbody", ""), ("table", "rows-and-columns")]
    el, _, name, _ = label_step(_click("a", [("td", "col-id"), *table], "17"), ps)
    assert el is rows and name == "17"
    assert [p.key for p in rows.props.values() if p.source == "cell"] == ["id", "title"]  # "id ▼": sorted by id
    assert rows.sort_selector == "table.rows-and-columns thead th a[href]"
    header = _click("a", [("th", "col-title"), ("tr", ""), ("thead", ""), ("table", "rows-and-columns")], "title")
    assert label_step(header, ps) == (rows, "sort", "title", "target")  # sorting by a column opens no row


async def test_a_header_click_makes_a_sort_tool_that_finds_the_column_by_name(page: Any) -> None:
    from toolcache.codegen import synthesize
    from toolcache.extract import SiteSchema
    from toolcache.label import LabeledStep

    ps = extract_snapshot(TABLE, "http://x.test/db/books")
    rows = next(e for e in ps.elements.values() if e.repeated)
    header = _click("a", [("th", "col-title"), ("tr", ""), ("thead", ""), ("table", "rows-and-columns")], "title")
    ev = header.model_copy(update={"url": "http://x.test/db/books", "url_after": "http://x.test/db/books?_sort=title", "document": True})
    step = LabeledStep("t", ev, "db_books", "db_books", element=rows, action="sort", card_name="title")
    tools = {s.manifest.name: s for s in synthesize(SiteSchema(pages={"db_books": ps}), {"t": [step]})}
    sort = tools["sort_rows_and_columns"]
    assert sort.manifest.input_schema["properties"]["column"]["enum"] == ["id", "title"] and sort.witness_args == [{"column": "title"}]
    assert sort.manifest.navigates and sort.manifest.post == {}
    await page.set_content(TABLE)
    got = await page.evaluate("async (inputs) => { window.clicked = null; document.addEventListener('click', (e) => "
                              "{ e.preventDefault(); window.clicked = e.target.getAttribute('href'); }); "
                              + sort.manifest.execute + "}", {"column": "id"})
    await page.wait_for_function("window.clicked !== null")
    assert got == {"column": "id", "direction": None} and await page.evaluate("window.clicked") == "/db/books?_sort_desc=id"


EDITOR = """<body><form action="/db" method="get"><div class="sql"><textarea id="sql-editor" name="sql" style="display: none;">select 1</textarea>
<div class="CodeMirror cm-s-default"><div style="overflow: hidden;"><textarea tabindex="0"></textarea></div>
<div class="CodeMirror-lines" role="presentation"><div role="presentation"><div class="CodeMirror-measure"><pre>x</pre></div>
<div class="CodeMirror-measure"></div><pre class="CodeMirror-line" role="presentation"><span class="cm-keyword">select</span>
<span class="cm-number">1</span> <span class="cm-keyword">from</span> <span class="cm-bracket">(</span><span class="cm-bracket">)</span></pre>
</div></div></div></div><input type="submit" value="Run SQL"></form>
<ul aria-hidden="true"><li class="tick">1</li><li class="tick">2</li></ul>
<ul><li class="spacer"></li><li class="spacer"></li><li class="spacer"></li></ul></body>"""


def test_a_code_editor_is_one_named_control_not_lists_of_its_machinery() -> None:
    ps = extract_snapshot(EDITOR, "http://x.test/db")
    assert not [e.name for e in ps.elements.values() if e.repeated]  # no keywords, measures, ticks, spacers
    box = ps.elements["sql"]  # named after the textarea the editor replaced
    assert box.kind == "textarea" and box.selector == ".CodeMirror textarea"
    step = StepEvent.model_validate({"index": 0, "action": "fill", "start": 0, "end": 0, "value": "select 2", "target": {
        "selector": "x", "tag": "textarea", "attributes": {"tabindex": "0"}, "ancestors": [{"tag": "div"}]}})
    assert label_step(step, ps)[0] is box


async def test_values_go_through_a_code_editor_and_numbers_name_rows_exactly(page: Any) -> None:
    await page.set_content(EDITOR + "<script>for (const cm of document.querySelectorAll('.CodeMirror')) "
                           "cm.CodeMirror = {text: '', setValue(v) { this.text = v; }};</script>")
    got = await page.evaluate("() => {" + PRELUDE + """
      __setValue(__q('.CodeMirror textarea'), 'select 2');
      const a = document.querySelector('.CodeMirror').CodeMirror.text;
      __setValue(__q('#sql-editor'), 'select 3');  // the replaced textarea: the editor too
      const cells = ['1', '17', '170', 'Tide'].map((t) => ({t}));
      const find = (w) => { const c = __find(cells, (c) => c.t, w); return c && c.t; };
      const same = [['=', '>'], ['>', '>'], ['!=', '!='], ['Sort by Year', 'sort by year'], ['', '']].map(([a, b]) => __same(a, b));
      return [a, document.querySelector('.CodeMirror').CodeMirror.text, find(17), find('7'), find('ti'), same]; }""")
    assert got == ["select 2", "select 3", "17", None, "Tide", [False, True, True, True, True]]


ROUTES_URLS = [
    ("http://x.test/db/books", "db_{name}"),
    ("http://x.test/db/authors?_sort=name", "db_{name}"),
    ("http://x.test/db/books/7", "db_{name}_{id}"),
    ("http://x.test/db", "db"),
    ("http://x.test/", "home"),
    ("http://x.test/other/books", "other_books"),
]


async def test_items_of_one_list_opening_different_pages_teach_a_route(page: Any) -> None:
    routes = learn_routes([("db .db-table", ["http://x.test/db/books", "http://x.test/db/authors"]),
                           ("issue tr", ["http://x.test/issue3", "http://x.test/issue7"]),  # already one page
                           ("nav", ["http://x.test/a/b", "http://x.test/c/d"])])  # two segments differ: no route
    assert routes == ["db/{name}"]
    assert [page_name(u, routes) for u, _ in ROUTES_URLS] == [n for _, n in ROUTES_URLS]
    assert page_name("http://x.test/db/books") == "db_books"  # without the route
    await page.set_content("<body></body>")
    got = await page.evaluate("(urls) => {" + with_routes(PAGE_JS, routes) + "return urls.map(__pageOf); }", [u for u, _ in ROUTES_URLS])
    assert got == [n for _, n in ROUTES_URLS]


def test_a_recorded_option_value_is_replayed_as_its_label() -> None:
    ps = extract_snapshot(TABLE, "http://x.test/db/books")
    op: Element = ps.elements["filterOp"]
    assert _option_label(op, "exact") == "=" and _option_label(op, ">") == ">" and _option_label(op, "zz") == "zz"


def test_a_failed_recording_step_says_what_it_waited_for() -> None:
    exc = Exception("Locator.fill: Timeout 10000ms exceeded.\nCall log:\n  - waiting for locator(\"textarea\")\n"
                    "    - locator resolved to <textarea>\n  - attempting fill action\n    2 × waiting for element to be visible\n"
                    "      - element is not visible\n    - retrying fill action\n      - waiting 500ms\n")
    assert _why(exc) == "Locator.fill: Timeout 10000ms exceeded. (element is not visible)"
    assert _why(Exception("net::ERR_CONNECTION_REFUSED")) == "net::ERR_CONNECTION_REFUSED"


def test_a_query_change_that_loaded_a_document_is_a_navigation_not_a_redraw() -> None:
    from toolcache.codegen.base import _redraws_in_place
    from toolcache.label import LabeledStep

    def step(document: bool | None) -> LabeledStep:
        ev = StepEvent.model_validate({"index": 0, "action": "press", "start": 0, "end": 0, "value": "Enter", "document": document,
                                       "url": "http://x.test/db/books", "url_after": "http://x.test/db/books?_search=salt"})
        return LabeledStep("t", ev, "db_books", "db_books")

    assert _redraws_in_place(step(None)) and _redraws_in_place(step(False))  # a single-page app (or an older trace)
    assert not _redraws_in_place(step(True))  # a server-rendered form's GET: the tool waits for the new page


PAGER = """<body><section><p class="facets"><a href="/db/books?genre=Mystery">Mystery</a></p>
<p><a href="/db/books?_next=100">Next page</a></p></section></body>"""


def test_a_link_that_moves_the_list_along_is_a_pager_tool_and_a_facet_is_not() -> None:
    from toolcache.codegen import synthesize
    from toolcache.extract import SiteSchema
    from toolcache.label import LabeledStep

    ps = extract_snapshot(PAGER, "http://x.test/db/books")

    def click(name: str, text: str, href: str, before: str, after: str) -> LabeledStep:
        ev = StepEvent.model_validate({"index": 0, "action": "click", "start": 0, "end": 0, "document": True, "url": before, "url_after": after,
                                       "target": {"selector": "x", "tag": "a", "text": text, "attributes": {"href": href}}})
        return LabeledStep("t", ev, "db_books", "db_books", element=ps.elements[name])

    base = "http://x.test/db/books"
    steps = [click("nextPageLink", "Next page", "/db/books?_next=100", base, base + "?_next=100"),
             click("nextPageLink", "Next page", "/db/books?_next=200", base + "?_next=100", base + "?_next=200"),
             click("mysteryLink", "Mystery", "/db/books?genre=Mystery", base, base + "?genre=Mystery")]
    tools = {s.manifest.name: s.manifest for s in synthesize(SiteSchema(pages={"db_books": ps}), {"t": steps})}
    pager = tools["next_page"]
    assert pager.pre == {"page": "db_books"} and pager.post == {} and pager.navigates
    assert "a >> text=Next page" in pager.execute and "_next=100" not in pager.execute  # found by text, not by one href
    assert not [n for n in tools if "mystery" in n]  # one click that changed the query: a facet, not a pager


def test_row_ids_are_names_a_relation_can_be_tested_with() -> None:
    from toolcache.verify import _names

    assert _names({"items": [{"id": 7}, {"id": 1.5}, {"id": True}, {"id": "x"}]}, "id") == ["7", "1.5", "x"]


def test_record_exits_1_and_names_the_step_that_failed(food_site: Any, tmp_path: Any, capsys: Any) -> None:
    import json

    from toolcache.cli import main

    script = tmp_path / "s.json"  # the target is there, the action cannot be done on it
    script.write_text(json.dumps({"name": "s", "steps": [{"action": "goto", "url": "/"},
                                                          {"action": "fill", "target": {"selector": "body"}, "value": "x"}]}))
    assert main(["record", "--site", food_site.url, str(script), "-o", str(tmp_path / "out")]) == 1
    assert "step 1 (fill) failed, the recording stops there" in capsys.readouterr().err


CARDS = """<body><section><div class="db-table"><h3><a href="/db/books">books</a></h3><p>id, title</p><p>320 rows</p></div>
<div class="db-table"><h3><a href="/db/authors">authors</a></h3><p>id, name</p><p>40 rows</p></div></section></body>"""


def test_cards_with_a_heading_are_named_by_it_and_keep_their_text() -> None:
    from toolcache.extract import merge_page

    ps = extract_snapshot(CARDS, "http://x.test/db")
    card = ps.elements["dbTable"]
    assert {n: (p.source, p.key) for n, p in card.props.items()} == {"name": ("text", "h3"), "text": ("self", "")}
    assert card.name_prop == "name" and card.samples == ["books", "authors"]
    merge_page(ps, extract_snapshot(CARDS, "http://x.test/db"))
    assert set(ps.elements["dbTable"].props) == {"name", "text"}  # the whole text is no stand-in here


def test_choices_and_columns_that_differ_between_pages_of_one_type_are_data_not_enums() -> None:
    from toolcache.codegen import synthesize
    from toolcache.extract import SiteSchema, merge_page
    from toolcache.label import LabeledStep

    other = TABLE.replace('<option value="gt">&gt;</option>', "").replace(">title<", ">name<").replace("_sort=title", "_sort=name")
    ps = extract_snapshot(TABLE, "http://x.test/db/books", routes=["db/{name}"])
    merge_page(ps, extract_snapshot(TABLE, "http://x.test/db/books", routes=["db/{name}"]))
    rows = next(e for e in ps.elements.values() if e.repeated)
    assert not rows.columns_vary and not ps.elements["filterOp"].options_vary  # the same page twice
    merge_page(ps, extract_snapshot(other, "http://x.test/db/authors", routes=["db/{name}"]))
    assert rows.columns_vary and ps.elements["filterOp"].options_vary
    header = _click("a", [("th", "col-title"), ("tr", ""), ("thead", ""), ("table", "rows-and-columns")], "title")
    step = LabeledStep("t", header, "db_{name}", "db_{name}", element=rows, action="sort", card_name="title")
    sort = next(s for s in synthesize(SiteSchema(pages={"db_{name}": ps}), {"t": [step]}) if s.kind == "sort")
    column = sort.manifest.input_schema["properties"]["column"]
    assert "enum" not in column and "seen: id, title, name" in column["description"]


FILTERED = """<body><header><input type="text" placeholder="Time" autocomplete="off"></header>
<article><ul class="rows"><li class="row">a</li><li class="row">b</li></ul></article></body>"""


def test_an_in_place_filter_learns_its_url_parameter_and_its_witness_is_the_typed_value() -> None:
    """Fava's time box: typed, then Enter; the app redraws and writes the value to ``?time=``. The tool
    waits for the URL to carry the value and its post_check checks it; the witness is what was typed."""
    from toolcache.codegen import synthesize
    from toolcache.extract import SiteSchema
    from toolcache.label import LabeledStep

    url = "http://x.test/l/income/"
    ps = extract_snapshot(FILTERED, url)
    box = next(e for e in ps.elements.values() if e.kind == "input")
    target = {"selector": box.selector, "tag": "input", "name": "Time", "role": "combobox", "attributes": {"placeholder": "Time"}}

    def step(i: int, action: str, value: str, after: str) -> LabeledStep:
        ev = StepEvent.model_validate({"index": i, "action": action, "value": value, "target": target, "start": 0, "end": 0,
                                       "url": url, "url_after": after})
        return LabeledStep("t", ev, "l_income", "l_income", element=box)

    steps = [step(0, "fill", "2025", url), step(1, "press", "Enter", url + "?time=2025")]
    tools = {s.manifest.name: s for s in synthesize(SiteSchema(pages={"l_income": ps}), {"t": steps})}
    tool = tools["filter_by_time"]
    assert tool.witness_args == [{"time": "2025"}]  # not the key that submitted it ("Enter")
    assert 'searchParams.get("time")' in tool.manifest.execute and 'searchParams.get("time")' in tool.manifest.post_check
    # recordings that disagree on where the value goes: no parameter, the tool settles on the DOM alone
    other = [step(2, "fill", "2024", url), step(3, "press", "Enter", url + "?period=2024")]
    tools = {s.manifest.name: s for s in synthesize(SiteSchema(pages={"l_income": ps}), {"t": steps, "u": other})}
    assert "searchParams.get(\"" not in tools["filter_by_time"].manifest.post_check


async def test_a_table_drawn_with_no_rows_is_an_empty_list(page: Any) -> None:
    """A search that found nothing shows the list's table with its header only: the list tool says
    ``items: []`` at once (it failed its pre_check, "no row cards yet", after its whole timeout);
    a page without the table is still not its list."""
    from toolcache.codegen import synthesize
    from toolcache.codegen.reads import table_of_rows
    from toolcache.extract import SiteSchema

    assert table_of_rows("table.list tr:has(> td)") == "table.list"
    assert table_of_rows("#result_list > tbody > tr") == "#result_list > tbody"
    assert table_of_rows("div.cards > div.card") is None and table_of_rows("table tr td a") is None
    ps = extract_snapshot(TABLE, "http://x.test/db/books")
    tool = next(s.manifest for s in synthesize(SiteSchema(pages={"db_books": ps}), {}) if s.manifest.name == "list_rows_and_columns")
    run = "async (inputs) => { const pre = async () => { " + tool.pre_check + " }; const r = await pre(); " \
          "if (r !== true) return r; return (async () => { " + tool.execute + " })(); }"
    empty = TABLE.replace("<body>", '<body data-page="db_books">').split("<tbody>")[0] + "<tbody></tbody></table></section></body>"
    await page.set_content(empty)
    assert await page.evaluate(run, {}) == {"items": []}
    await page.set_content('<body data-page="db_books"><section><h3>Loading</h3></section></body>')
    assert (await page.evaluate(run, {}))[0] is False
    await page.set_content(TABLE.replace("<body>", '<body data-page="db_books">'))
    assert [r["title"] for r in (await page.evaluate(run, {}))["items"]] == ["River", "Salt", "Tide"]


def test_a_rows_action_link_teaches_no_route_its_title_link_does() -> None:
    """A page list's rows open their editor (``pages/28/edit``) by the title link and their delete page
    (``pages/17/delete``) from the row menu: the two pages differ in one segment, but the Delete link is
    no item's own link (its text names no row), so ``edit`` and ``delete`` stay two page types."""
    from toolcache.build import _list_clicks
    from toolcache.extract import Element
    from toolcache.label import LabeledStep

    rows = Element(name="page", page="pages_{id}", kind="card", selector="table.listing tr", repeated=True,
                   samples=["Maps Guide", "Tea Notes", "Chess Notes"])

    def click(text: str, url_after: str) -> LabeledStep:
        ev = StepEvent.model_validate({"index": 0, "action": "click", "start": 0, "end": 0, "url": "http://x.test/pages/3/",
                                       "url_after": url_after, "target": {"tag": "a", "text": text}})
        return LabeledStep("t", ev, "pages_{id}", page_name(url_after), element=rows, card_name=text)

    opened = _list_clicks({"t": [click("Maps Guide", "http://x.test/pages/28/edit/"), click("Delete", "http://x.test/pages/17/delete/"),
                                 click("Tea Notes", "http://x.test/pages/26/edit/")]})
    assert learn_routes(opened) == []
    assert [u for _, urls in opened for u in urls] == ["http://x.test/pages/28/edit/", "http://x.test/pages/26/edit/"]


def test_a_rows_name_is_its_title_link_not_the_menu_beside_it_in_the_cell() -> None:
    """A CMS page list's title cell holds the title link and the row's menu (Edit, Delete): the rows'
    names are the links' texts, so a menu link ("Delete") is told from a row's own link."""
    rows = "".join(f'<tr><td class="title"><a href="/pages/{i}/edit/">{t}</a><ul class="actions"><li><div class="w-dropdown">'
                   f'<a href="/pages/{i}/edit/">Edit</a><a href="/pages/{i}/delete/">Delete</a></div></li></ul></td><td>live</td><td></td></tr>'
                   for i, t in enumerate(["Owls Guide", "Tea Notes", "Chess Notes"], 2))
    html = (f'<body><table class="listing"><thead><tr><th><a href="?ordering=title">Title</a></th><th>Status</th><td></td></tr></thead>'
            f"<tbody>{rows}</tbody></table></body>")
    (el,) = [e for e in extract_snapshot(html, "http://x.test/pages/3/").elements.values() if e.repeated]
    assert el.samples == ["Owls Guide", "Tea Notes", "Chess Notes"] and el.name == "page"
    assert el.sort_columns == ["Title"] and el.selector.endswith(":not(thead > tr)")
