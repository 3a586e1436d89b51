"""Tables whose rows start with a checkbox and a row header (an admin's change list) are lists,
and a row's link becomes ``goto_<row>(name)``, which opens the named row, not a recorded one."""

from __future__ import annotations

from typing import Any

from agentjit.protocol.trace import StepEvent
from toolcache.codegen import synthesize
from toolcache.extract import SiteSchema, extract_snapshot
from toolcache.label import LabeledStep, label_step

CHANGE_LIST = """<body><h1>Select book to change</h1><form id="changelist-form" method="post">
<table id="result_list"><thead><tr>
<th scope="col" class="action-checkbox-column"><div class="text"><span><input type="checkbox" id="action-toggle" aria-label="Select all"></span></div></th>
<th scope="col" class="sortable"><div class="text"><a href="?o=-1">Title</a></div></th>
<th scope="col"><div class="text"><a href="?o=2">Author</a></div></th>
<th scope="col"><div class="text"><a href="?o=3">Price</a></div></th>
<th scope="col"><div class="text"><a href="?o=4">In stock</a></div></th></tr></thead><tbody>
<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" value="4"></td><th class="field-title"><a href="/admin/book/4/change/">Harbour Songs</a></th><td>Maya Patel</td><td>12.50</td><td><img src="/yes.svg" alt="True"></td></tr>
<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" value="9"></td><th class="field-title"><a href="/admin/book/9/change/">Salt Roads</a></th><td>Jonas Becker</td><td>18.00</td><td><img src="/no.svg" alt="False"></td></tr>
</tbody></table></form></body>"""

SCOPED = """<body><table class="planets"><tr><th>Planet</th><th>Moons</th><th>Rings</th></tr>
<tr><th scope="row">Mars</th><td>2</td><td>no</td></tr><tr><th scope="row">Saturn</th><td>146</td><td>yes</td></tr></table></body>"""

FACTS = """<body><h1>Book 4</h1><table class="detail"><tr><th>Title</th><td>Harbour Songs</td></tr>
<tr><th>Author</th><td>Maya Patel</td></tr><tr><th>Price</th><td>12.50</td></tr></table></body>"""

MENU = """<body><table class="apps"><thead><tr><th>Model</th><th>Add</th></tr></thead><tbody>
<tr><th scope="row"><a href="/admin/author/">Authors</a></th><td><a href="/admin/author/add/">Add</a></td></tr>
<tr><th scope="row"><a href="/admin/book/">Books</a></th><td><a href="/admin/book/add/">Add</a></td></tr></tbody></table></body>"""


def test_a_change_list_row_is_a_list_item_with_every_column_and_its_row_header_as_name() -> None:
    ps = extract_snapshot(CHANGE_LIST, "http://x.test/admin/book/")
    rows = next(e for e in ps.elements.values() if e.repeated)
    assert [p.key for p in rows.props.values() if p.source == "cell"] == ["Title", "Author", "Price", "In stock"]
    assert rows.name_prop == "title" and rows.link_selector == "a[href]"
    assert rows.samples == ["Harbour Songs", "Salt Roads"] and rows.visible_count == 2
    assert rows.props["price"].type == "number"
    assert not ps.fields  # the rows are no label/value facts


def test_rows_headed_by_a_scoped_th_are_data_and_th_td_pairs_without_column_headers_are_facts() -> None:
    planets = next(e for e in extract_snapshot(SCOPED, "http://x.test/planets").elements.values() if e.repeated)
    assert planets.name_prop == "planet" and planets.samples == ["Mars", "Saturn"]
    ps = extract_snapshot(FACTS, "http://x.test/book/4")
    assert not [e for e in ps.elements.values() if e.repeated]
    assert set(ps.fields) == {"title", "author", "price"}


def test_a_table_of_links_to_pages_of_different_types_is_a_menu_not_a_list() -> None:
    ps = extract_snapshot(MENU, "http://x.test/admin/")
    assert not [e for e in ps.elements.values() if e.repeated]


def _row_click() -> StepEvent:
    """The recorded click on "Harbour Songs"'s title link (the row-header cell of #result_list)."""
    chain = [{"tag": "th", "classes": "field-title", "data": {}}, {"tag": "tr", "classes": "", "data": {}},
             {"tag": "tbody", "classes": "", "data": {}}, {"tag": "table", "classes": "", "id": "result_list", "data": {}}]
    target = {"selector": "x", "tag": "a", "text": "Harbour Songs", "attributes": {"href": "/admin/book/4/change/"}, "ancestors": chain}
    return StepEvent.model_validate({"index": 0, "action": "click", "start": 0, "end": 0, "target": target,
                                     "url": "http://x.test/admin/book/", "url_after": "http://x.test/admin/book/4/change/",
                                     "document": True})


async def test_goto_row_opens_the_row_named_by_its_input_not_the_recorded_one(page: Any) -> None:
    ps = extract_snapshot(CHANGE_LIST, "http://x.test/admin/book/")
    item = extract_snapshot("<body><h1>Change book</h1><h2>Harbour Songs</h2></body>", "http://x.test/admin/book/4/change/")
    el, action, name, _ = label_step(_row_click(), ps)
    assert el is not None and el.repeated and action is None and name == "Harbour Songs"
    step = LabeledStep("t", _row_click(), ps.page, item.page, element=el, card_name=name)
    tools = {s.manifest.name: s for s in synthesize(SiteSchema(pages={ps.page: ps, item.page: item}), {"t": [step]})}
    goto = next(s for s in tools.values() if s.kind == "goto_card")
    assert goto.manifest.input_schema["required"] == ["title"] and goto.source_list in tools
    await page.set_content(CHANGE_LIST)
    got = await page.evaluate("async (inputs) => { window.clicked = null; document.addEventListener('click', (e) => "
                              "{ e.preventDefault(); window.clicked = e.target.getAttribute('href'); }); "
                              + goto.manifest.execute + "}", {"title": "Salt Roads"})
    await page.wait_for_function("window.clicked !== null")
    assert got == {"title": "Salt Roads"} and await page.evaluate("window.clicked") == "/admin/book/9/change/"
    listed = await page.evaluate("async (inputs) => {" + tools[goto.source_list].manifest.execute + "}", {})
    assert listed["items"][1]["price"] == 18 and listed["items"][1]["in_stock"] == "False"
    # the item page opened must name the row asked for: another row's page fails the post-check
    check = "async ({inputs, output}) => {" + goto.manifest.post_check + "}"
    item_html = "<title>Harbour Songs | Change book</title><body><h1>Change book</h1><input value='Harbour Songs'></body>"
    await page.route("http://x.test/**", lambda route: route.fulfill(status=200, content_type="text/html", body=item_html))
    await page.goto("http://x.test/admin/book/4/change/")
    wrong = await page.evaluate(check, {"inputs": {"title": "Salt Roads"}, "output": {"title": "Salt Roads"}})
    right = await page.evaluate(check, {"inputs": {"title": "Harbour Songs"}, "output": {"title": "Harbour Songs"}})
    assert wrong != True and "Salt Roads" in str(wrong)  # noqa: E712 (a [false, why] pair is not True)
    assert right is True


ISSUE_LIST = """<body><h1>Open issues</h1><table class="listing issues"><thead><tr>
<th>Issue</th><th>Summary</th><th>Owner</th></tr></thead><tbody>
<tr class="even"><td class="id"><a title="View issue" href="/issue/3">#3</a></td><td class="summary"><a title="View issue" href="/issue/3">Export drops the last row</a></td><td>alice</td></tr>
<tr class="odd"><td class="id"><a title="View issue" href="/issue/8">#8</a></td><td class="summary"><a title="View issue" href="/issue/8">Dark mode</a></td><td>bob</td></tr>
</tbody></table></body>"""


def _summary_click() -> StepEvent:
    """The recorded click on "Export drops the last row": a plain ``td`` link in a classed row, named by its title."""
    chain = [{"tag": "td", "classes": "summary", "data": {}}, {"tag": "tr", "classes": "even", "data": {}},
             {"tag": "tbody", "classes": "", "data": {}}, {"tag": "table", "classes": "listing issues", "data": {}}]
    target = {"selector": "x", "tag": "a", "name": "View issue", "text": "Export drops the last row",
              "attributes": {"href": "/issue/3", "title": "View issue"}, "ancestors": chain}
    return StepEvent.model_validate({"index": 0, "action": "click", "start": 0, "end": 0, "target": target,
                                     "url": "http://x.test/issues", "url_after": "http://x.test/issue/3", "document": True})


async def test_a_td_title_link_beside_a_number_link_names_the_row_and_goto_finds_it_by_text(page: Any) -> None:
    ps = extract_snapshot(ISSUE_LIST, "http://x.test/issues")
    rows = next(e for e in ps.elements.values() if e.repeated)
    # the number column links the row too, but the summary is what names it
    assert rows.name_prop == "summary" and rows.samples == ["Export drops the last row", "Dark mode"]
    el, _, name, _ = label_step(_summary_click(), ps)
    assert el is rows and name == "Export drops the last row"
    item = extract_snapshot("<body><h1>Issue #3</h1></body>", "http://x.test/issue/3")
    step = LabeledStep("t", _summary_click(), ps.page, item.page, element=el, card_name=name)
    tools = {s.manifest.name: s for s in synthesize(SiteSchema(pages={ps.page: ps, item.page: item}), {"t": [step]})}
    goto = next(s for s in tools.values() if s.kind == "goto_card")
    await page.set_content(ISSUE_LIST)
    got = await page.evaluate("async (inputs) => { window.clicked = null; document.addEventListener('click', (e) => "
                              "{ e.preventDefault(); window.clicked = e.target.getAttribute('href'); }); "
                              + goto.manifest.execute + "}", {goto.name_param: "Dark mode"})
    await page.wait_for_function("window.clicked !== null")
    assert got == {goto.name_param: "Dark mode"} and await page.evaluate("window.clicked") == "/issue/8"
