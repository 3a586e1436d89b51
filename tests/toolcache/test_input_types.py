"""Form inputs typed from their controls (decimals, checkboxes, radios, dates, multiple selects),
controls in table cells labeled by their column, and form tools named from what they do."""

from __future__ import annotations

from typing import Any

from agentjit.protocol.schema import argument_error
from agentjit.protocol.trace import StepEvent
from toolcache.codegen import Synth, synthesize
from toolcache.extract import SiteSchema, extract_snapshot
from toolcache.label import LabeledStep, label_step
from toolcache.record import describe_js

BASE = "http://kitchen.test"

RECIPE_FORM = """<body><h1>Change recipe</h1>
<form id="recipe" method="post" action="/kitchen/recipe/7/edit/">
<input type="hidden" name="token" value="abc">
<label for="r-weight">Weight</label><input id="r-weight" name="weight" type="number" step="0.5" min="0" value="1.5">
<label for="r-serves">Serves</label><input id="r-serves" name="serves" type="number" value="4">
<label for="r-rating">Rating</label><input id="r-rating" name="rating" type="number" value="3">
<input id="r-veg" name="veg" type="checkbox" checked><label for="r-veg">Vegetarian</label>
<fieldset><legend>Course</legend>
<input type="radio" name="course" value="c1" id="c1" checked><label for="c1">Starter</label>
<input type="radio" name="course" value="c2" id="c2"><label for="c2">Main dish</label></fieldset>
<label for="r-date">Cooked on</label><input id="r-date" name="cooked" type="date">
<label for="r-time">Ready at</label><input id="r-time" name="ready" type="time">
<label for="r-mail">Chef</label><input id="r-mail" name="chef_mail" type="email">
<label for="r-tags">Tags</label><select id="r-tags" name="tags" multiple>
<option value="t1">Quick</option><option value="t2">Spicy</option><option value="t3">Cheap</option></select>
<label for="r-notes">Notes</label><textarea id="r-notes" name="notes"></textarea>
<input type="submit" name="_go" value="Save"></form></body>"""

EDIT_URL = f"{BASE}/kitchen/recipe/7/edit/"
LIST_URL = f"{BASE}/kitchen/recipe/"
POSTED = [{"method": "POST", "url": EDIT_URL, "status": 302, "resource": "document"}]


def _step(i: int, action: str, html_attrs: dict[str, str], *, tag: str = "input", value: Any = None, url: str = EDIT_URL,
          url_after: str | None = None, requests: list[dict[str, Any]] | None = None, **extra: Any) -> StepEvent:
    sel = "#" + html_attrs["id"] if "id" in html_attrs else f"{tag}[name=\"{html_attrs.get('name', '')}\"]"
    target = {"selector": sel, "tag": tag, "text": "", "attributes": html_attrs, "ancestors": [], **extra}
    return StepEvent.model_validate({"index": i, "action": action, "start": 0, "end": 0, "target": target, "value": value,
                                     "url": url, "url_after": url_after or url, "requests": requests or [],
                                     "document": bool(requests)})


def _form_tools(html: str, url: str, after_url: str, steps: list[StepEvent]) -> dict[str, Synth]:
    ps = extract_snapshot(html, url)
    after = extract_snapshot("<body><h1>Recipes</h1></body>", after_url)
    labeled = []
    for s in steps:
        el, action, name, _ = label_step(s, ps)
        assert el is not None, s.target
        labeled.append(LabeledStep("t", s, ps.page, after.page if s.url_after != s.url else ps.page,
                                   element=el, action=action, card_name=name))
    tools = synthesize(SiteSchema(pages={ps.page: ps, after.page: after}), {"t": labeled})
    return {s.manifest.name: s for s in tools if s.kind == "form"}


def _recipe_steps(weight: str = "2.5", serves: str = "6") -> list[StepEvent]:
    return [
        _step(0, "fill", {"id": "r-weight", "name": "weight", "type": "number", "step": "0.5", "min": "0", "value": "1.5"}, value=weight),
        _step(1, "fill", {"id": "r-serves", "name": "serves", "type": "number", "value": "4"}, value=serves),
        _step(2, "fill", {"id": "r-rating", "name": "rating", "type": "number", "value": "3"}, value="4.5"),
        _step(3, "click", {"id": "r-veg", "name": "veg", "type": "checkbox", "checked": ""}),  # a toggle: was ticked
        _step(4, "click", {"id": "c2", "name": "course", "type": "radio", "value": "c2"}),
        _step(5, "fill", {"id": "r-date", "name": "cooked", "type": "date"}, value="2026-03-01"),
        _step(6, "fill", {"id": "r-time", "name": "ready", "type": "time"}, value="18:30"),
        _step(7, "fill", {"id": "r-mail", "name": "chef_mail", "type": "email"}, value="ana@kitchen.test"),
        _step(8, "select", {"id": "r-tags", "name": "tags", "multiple": ""}, tag="select", value=["t1", "t3"]),
        _step(9, "fill", {"id": "r-notes", "name": "notes"}, tag="textarea", value="less salt"),
        _step(10, "click", {"type": "submit", "name": "_go", "value": "Save"}, url_after=LIST_URL, requests=POSTED),
    ]


def test_each_input_is_typed_from_its_control_and_the_demonstrated_values() -> None:
    tools = _form_tools(RECIPE_FORM, EDIT_URL, LIST_URL, _recipe_steps())
    assert list(tools) == ["edit_recipe"]  # the route's verb and noun, not the button's name="_go"
    tool = tools["edit_recipe"]
    props = tool.manifest.input_schema["properties"]
    assert props["weight"] == {"type": "number", "minimum": 0}  # step="0.5"; its min kept, none invented
    assert props["serves"] == {"type": "integer"}  # no step, whole values: no minimum of 1 made up
    assert props["rating"] == {"type": "number"}  # no step, but a decimal was typed
    assert props["veg"]["type"] == "boolean"
    assert props["course"] == {"type": "string", "enum": ["Starter", "Main dish"]}  # labels, not c1/c2
    assert props["cooked"] == {"type": "string", "format": "date"}
    assert props["ready"]["type"] == "string" and props["ready"]["pattern"]
    assert props["chef_mail"] == {"type": "string", "format": "email"}
    assert props["tags"]["type"] == "array" and props["tags"]["items"]["enum"] == ["Quick", "Spicy", "Cheap"]
    assert props["notes"] == {"type": "string"}
    # the demonstrated values reach the verifier's call, typed
    assert tool.witness_args == [{"weight": 2.5, "serves": 6, "rating": 4.5, "veg": False, "course": "Main dish",
                                  "cooked": "2026-03-01", "ready": "18:30", "chef_mail": "ana@kitchen.test",
                                  "tags": ["Quick", "Cheap"], "notes": "less salt"}]
    assert argument_error(tool.manifest, "weight", 19.99) is None
    assert argument_error(tool.manifest, "serves", 2) is None and argument_error(tool.manifest, "serves", 2.5)
    assert argument_error(tool.manifest, "veg", "no") and argument_error(tool.manifest, "course", "c3")


def test_an_integer_step_with_whole_values_stays_an_integer() -> None:
    html = ('<body><form id="f" method="post"><input id="q" name="qty" type="number" step="1" min="1" max="9">'
            '<input type="submit" value="Save"></form></body>')
    steps = [_step(0, "fill", {"id": "q", "name": "qty", "type": "number", "step": "1", "min": "1", "max": "9"}, value="3"),
             _step(1, "click", {"type": "submit", "value": "Save"}, url_after=LIST_URL, requests=POSTED)]
    (tool,) = _form_tools(html, EDIT_URL, LIST_URL, steps).values()
    assert tool.manifest.input_schema["properties"]["qty"] == {"type": "integer", "minimum": 1, "maximum": 9}
    assert tool.witness_args == [{"qty": 3}]


async def test_the_setters_set_a_checkbox_by_state_a_decimal_radios_and_a_multiple_select(page: Any) -> None:
    tool = _form_tools(RECIPE_FORM, EDIT_URL, LIST_URL, _recipe_steps())["edit_recipe"].manifest
    await page.set_content(RECIPE_FORM)
    await page.evaluate("""() => {
      window.changes = 0;
      document.getElementById('r-veg').addEventListener('change', () => { window.changes += 1; });
      document.getElementById('recipe').addEventListener('submit', (e) => {
        e.preventDefault(); window.sent = [...new FormData(e.target)].map(([k, v]) => k + '=' + v); });
    }""")
    run = "async (inputs) => {" + tool.execute + "}"
    await page.evaluate(run, {"veg": True, "weight": 19.5, "course": "Main dish", "tags": ["Spicy", "Cheap"]})
    await page.wait_for_function("window.sent !== undefined")
    sent = await page.evaluate("window.sent")
    assert "weight=19.5" in sent and "veg=on" in sent and "course=c2" in sent
    assert [x for x in sent if x.startswith("tags=")] == ["tags=t2", "tags=t3"]
    assert await page.evaluate("window.changes") == 0  # ticked already: no click
    await page.evaluate("window.sent = undefined")
    await page.evaluate(run, {"veg": False, "course": "Starter"})
    await page.wait_for_function("window.sent !== undefined")
    sent = await page.evaluate("window.sent")
    assert not [x for x in sent if x.startswith("veg=")] and "course=c1" in sent
    assert await page.evaluate("window.changes") == 1  # one click, and the page heard it


NAMED_PAGES = {
    # (page URL, form, the submit's recorded attributes) -> the tool's name
    "add": (f"{BASE}/admin/kitchen/recipe/add/", '<input id="t" name="title">', {"type": "submit", "name": "_save", "value": "Save"}),
    "change": (f"{BASE}/admin/kitchen/recipe/7/change/", '<input id="t" name="title">', {"type": "submit", "name": "_save", "value": "Save"}),
    "delete": (f"{BASE}/admin/kitchen/recipe/7/delete/", '<input type="hidden" name="csrftoken" value="x">',
               {"type": "submit", "value": "Yes, I'm sure"}),
    "profile": (f"{BASE}/settings/profile/", '<input id="t" name="title">', {"type": "submit", "name": "index", "value": "Save"}),
}


def _named(url: str, fields: str, submit: dict[str, str]) -> tuple[str, Synth]:
    value = submit["value"]
    button = " ".join(f'{k}="{v}"' for k, v in submit.items())
    html = f'<body><h1>Recipe</h1><form id="f" method="post">{fields}<input {button}></form></body>'
    steps = [] if "hidden" in fields else [_step(0, "fill", {"id": "t", "name": "title"}, url=url, value="Soup")]
    steps.append(_step(1, "click", dict(submit), url=url, url_after=f"{BASE}/admin/kitchen/recipe/", name=value,
                       requests=[{"method": "POST", "url": url, "status": 302, "resource": "document"}]))
    ps = extract_snapshot(html, url)
    assert not [e for e in ps.elements if "csrf" in e.lower()]  # the button is not named after the hidden token
    (name, tool), = _form_tools(html, url, f"{BASE}/admin/kitchen/recipe/", steps).items()
    return name, tool


def test_form_tools_are_named_from_the_route_verb_and_noun_or_the_button_label() -> None:
    names = {k: _named(*v) for k, v in NAMED_PAGES.items()}
    assert {k: n for k, (n, _) in names.items()} == {
        "add": "add_recipe", "change": "change_recipe", "delete": "delete_recipe", "profile": "save_profile"}
    assert names["delete"][1].manifest.description.startswith("Delete the recipe")
    assert "Returns success" in names["change"][1].manifest.description


INLINE = """<body><h1>Change order</h1><form id="order_form" method="post"><table><thead><tr>
<th>Item</th><th>Qty</th></tr></thead><tbody>
<tr id="lines-0"><td><input id="id_lines-0-item" name="lines-0-item" value="Tea"></td><td><input id="id_lines-0-qty" name="lines-0-qty" type="number" value="2"></td></tr>
<tr id="lines-1"><td><input id="id_lines-1-item" name="lines-1-item" value="Rice"></td><td><input id="id_lines-1-qty" name="lines-1-qty" type="number" value="1"></td></tr>
</tbody></table><input type="submit" name="_save" value="Save"></form></body>"""


def test_a_control_in_a_table_cell_is_an_element_labeled_by_its_column() -> None:
    url = f"{BASE}/shop/order/3/change/"
    ps = extract_snapshot(INLINE, url)
    qty = next(e for e in ps.elements.values() if e.selector == "#id_lines-1-qty")
    assert qty.kind == "input" and qty.text == "Qty" and not qty.repeated
    steps = [_step(0, "fill", {"id": "id_lines-1-qty", "name": "lines-1-qty", "type": "number", "value": "1"}, url=url, value="5"),
             _step(1, "click", {"type": "submit", "name": "_save", "value": "Save"}, url=url, url_after=f"{BASE}/shop/order/",
                   requests=[{"method": "POST", "url": url, "status": 302, "resource": "document"}])]
    (name, tool), = _form_tools(INLINE, url, f"{BASE}/shop/order/", steps).items()
    assert name == "change_order" and tool.manifest.input_schema["properties"]["lines_1_qty"] == {"type": "integer"}


async def test_the_recorder_names_a_submit_input_by_its_value_and_keeps_a_checkbox_state(page: Any) -> None:
    await page.set_content('<form><input type="checkbox" id="c"><input type="submit" value="Save"><input type="submit"></form>')
    save = await page.locator("input[value=Save]").evaluate(describe_js)
    bare = await page.locator("input[type=submit]:not([value])").evaluate(describe_js)
    assert save["name"] == "Save" and bare["name"] == "Submit"
    await page.locator("#c").check()
    box = await page.locator("#c").evaluate(describe_js)
    assert box["checked"] is True and "checked" not in box["attributes"]  # the live state, not the default


FILTER_FORM = """<body><h1>Custom query</h1><form id="query" method="post" action="/query">
<label for="add">And</label><select id="add" name="add_filter"><option value="" disabled>-- pick --</option>
<optgroup label="Fields"><option value="owner">Owner</option><option value="prio">Priority</option></optgroup></select>
<div id="rows"></div><input type="submit" name="update" value="Update"></form>
<script>document.getElementById('add').addEventListener('change', (e) => setTimeout(() => {
  document.getElementById('rows').innerHTML = '<select name="0_prio"><option value="hi">High</option><option value="lo">Low</option></select>';
}, 300));</script></body>"""


async def test_a_select_value_maps_to_its_label_past_a_disabled_option_and_a_select_added_later_is_waited_for(page: Any) -> None:
    # the second select exists only after the first one's change: the page seen after it is the one labeled
    later = FILTER_FORM.replace('<div id="rows"></div>', '<div id="rows"><select name="0_prio"><option value="hi">High</option>'
                                '<option value="lo">Low</option></select></div>')
    url = f"{BASE}/query"
    steps = [_step(0, "select", {"id": "add", "name": "add_filter"}, tag="select", value="prio"),
             _step(1, "select", {"name": "0_prio"}, tag="select", value="hi"),
             _step(2, "click", {"type": "submit", "name": "update", "value": "Update"}, url=url, url_after=f"{url}?prio=hi",
                   requests=[{"method": "POST", "url": url, "status": 303, "resource": "document"}])]
    steps[0].url = steps[0].url_after = steps[1].url = steps[1].url_after = url
    tool = next(iter(_form_tools(later, url, f"{url}?prio=hi", steps).values()))
    props = tool.manifest.input_schema["properties"]
    assert props["add_filter"]["enum"] == ["Owner", "Priority"]
    assert tool.witness_args == [{"add_filter": "Priority", "0_prio": "High"}]  # the labels of the posted values
    await page.set_content(FILTER_FORM)
    await page.evaluate("document.forms[0].addEventListener('submit', (e) => e.preventDefault())")
    await page.evaluate("async (inputs) => {" + tool.manifest.execute + "}", {"add_filter": "Priority", "0_prio": "Low"})
    assert await page.evaluate("document.querySelector('select[name=\"0_prio\"]').value") == "lo"


def test_a_submit_input_recorded_without_a_name_is_named_by_its_value() -> None:
    from types import SimpleNamespace

    from toolcache.build import _named_buttons

    old = _step(0, "click", {"type": "submit", "id": "save", "value": "Submit  changes"}, name="")
    link = _step(1, "click", {"href": "/x"}, tag="a", name="")
    trace: Any = SimpleNamespace(steps=[old, link])
    _named_buttons(trace)
    assert old.target is not None and old.target.name == "Submit changes"
    assert link.target is not None and link.target.name == ""


PAGE_EDIT = """<body><h1>Editing OnCall</h1><form id="edit" method="post" action="/pages/OnCall">
<input type="hidden" name="token" value="abc"><textarea id="text" name="text">January: alice</textarea>
<label for="comment">Comment</label><input id="comment" name="comment" type="text">
<input type="submit" id="save" name="save" value="Submit changes"></form></body>"""


async def test_an_edit_form_whose_text_box_came_filled_gets_a_tool_that_reads_it(page: Any) -> None:
    url = f"{BASE}/pages/OnCall?action=edit"
    steps = [_step(0, "fill", {"id": "text", "name": "text"}, tag="textarea", value="January: alice\nApril: carol", url=url),
             _step(1, "fill", {"id": "comment", "name": "comment", "type": "text"}, value="rota", url=url),
             _step(2, "click", {"type": "submit", "id": "save", "name": "save", "value": "Submit changes"}, url=url,
                   url_after=f"{BASE}/pages/OnCall", requests=[{"method": "POST", "url": url, "status": 303, "resource": "document"}])]
    steps[0].target.text = "January: alice"  # type: ignore[union-attr]  # what the box held when it was filled
    ps = extract_snapshot(PAGE_EDIT, url)
    after = extract_snapshot("<body><h1>OnCall</h1></body>", f"{BASE}/pages/OnCall")
    labeled = [LabeledStep("t", s, ps.page, after.page if s.url_after != s.url else ps.page, element=label_step(s, ps)[0]) for s in steps]
    tools = {s.manifest.name: s for s in synthesize(SiteSchema(pages={ps.page: ps, after.page: after}), {"t": labeled})}
    form = next(s for s in tools.values() if s.kind == "form")
    values = tools[f"get_{form.manifest.name}_values"]
    assert list(values.manifest.output_schema["properties"]) == ["text"] and values.manifest.pre == form.manifest.pre
    await page.set_content(PAGE_EDIT)
    assert await page.evaluate("async (inputs) => {" + values.manifest.execute + "}", {}) == {"text": "January: alice"}


def test_a_select_the_result_page_shows_back_at_its_placeholder_is_not_post_checked() -> None:
    later = FILTER_FORM.replace('<div id="rows"></div>', '<div id="rows"><select name="0_prio"><option value="hi">High</option>'
                                '<option value="lo">Low</option></select></div>')
    result = later.replace('<option value="hi">', '<option value="hi" selected>')  # "And" back at its placeholder, the filter kept
    url = f"{BASE}/query"
    steps = [_step(0, "select", {"id": "add", "name": "add_filter"}, tag="select", value="prio"),
             _step(1, "select", {"name": "0_prio"}, tag="select", value="hi"),
             _step(2, "click", {"type": "submit", "name": "update", "value": "Update"}, url=url, url_after=f"{url}?prio=hi",
                   requests=[{"method": "POST", "url": url, "status": 303, "resource": "document"}])]
    for st in steps:
        st.url = url
    ps = extract_snapshot(later, url)
    after = extract_snapshot(result, f"{url}?prio=hi")
    labeled = [LabeledStep("t", s, ps.page, ps.page, element=label_step(s, ps)[0]) for s in steps]
    tools = synthesize(SiteSchema(pages={ps.page: ps, after.page: after}), {"t": labeled},
                       html_of=lambda ls: result if ls is labeled[-1] else later)
    form = next(s for s in tools if s.kind == "form")
    assert "add_filter shows" not in form.manifest.post_check and "0_prio shows" in form.manifest.post_check


def test_a_form_on_an_add_route_under_its_parent_that_opens_the_new_item_creates_it() -> None:
    """Wagtail's new page form, ``pages/add/home/homepage/3/`` (3: the parent), posts and opens the new
    page's editor ``pages/64/edit/``: a create, though the form's own route has an id in it."""
    url = f"{BASE}/admin/pages/add/home/homepage/3/"
    html = '<body><h1>New page</h1><form id="f" method="post"><input id="t" name="title"><button type="submit">Save draft</button></form></body>'
    steps = [_step(0, "fill", {"id": "t", "name": "title"}, url=url, value="Otters Guide"),
             _step(1, "click", {"type": "submit"}, tag="button", url=url, url_after=f"{BASE}/admin/pages/64/edit/", name="Save draft",
                   requests=[{"method": "POST", "url": url, "status": 302, "resource": "document"}])]
    (name, tool), = _form_tools(html, url, f"{BASE}/admin/pages/64/edit/", steps).items()
    assert name == "create_page" and tool.manifest.description.startswith("Create a new page")
