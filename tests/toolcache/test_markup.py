"""The builder on ordinary markup: page names from route templates, tables, label/value pairs, secrets."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from agentjit.protocol.trace import redact_args, redact_text
from toolcache.extract import extract_snapshot
from toolcache.pages import PAGE_JS, page_name
from toolcache.redact import REDACTED, is_secret, looks_like_card

URLS = [
    ("http://x.test/", "home"),
    ("http://x.test/?%40ok_message=Welcome", "home"),
    ("http://x.test/issue", "issue"),
    ("http://x.test/issue123", "issue{id}"),
    ("http://x.test/issue15?@ok_message=saved&@template=item", "issue{id}"),
    ("http://x.test/issue?@template=item", "issue_item"),
    ("http://x.test/issue?@template=search&x=1", "issue_search"),
    ("http://x.test/orders/8f3a9c1d", "orders_{id}"),
    ("http://x.test/account/settings", "account_settings"),
    ("http://x.test/users/42/edit", "users_{id}_edit"),
    ("http://x.test/ledger/account/Assets:US:Cash/", "ledger_account_{name}"),
    ("http://x.test/ledger/account/Expenses:Food/?time=2025", "ledger_account_{name}"),
    # one path, other forms: the view, its edit form and its rename form are pages of their own
    ("http://x.test/wiki/OnCall", "wiki_{name}"),
    ("http://x.test/wiki/OnCall?action=edit", "wiki_{name}_edit"),
    ("http://x.test/wiki/OnCall?version=3&action=rename", "wiki_{name}_rename"),
]


@pytest.mark.parametrize(("url", "name"), URLS)
def test_page_name_from_route_template(url: str, name: str) -> None:
    assert page_name(url) == name


async def test_browser_names_pages_the_same_way(page: Any) -> None:
    await page.set_content("<body></body>")
    got = await page.evaluate("(urls) => {" + PAGE_JS + "return urls.map(__pageOf); }", [u for u, _ in URLS])
    assert got == [n for _, n in URLS]


TABLE = """<body><nav><p class="block"><a href="issue?@template=search">Search</a></p>
<p class="block"><a href="user1">Me</a></p></nav>
<main><table class="list"><tr><th>ID</th><th>Title</th><th>Status</th></tr>
<tr><th colspan="3">critical</th></tr>
<tr><td>3</td><td><a href="issue3">Crash on save</a></td><td>open</td></tr>
<tr><td>7</td><td><a href="issue7">Slow start</a></td><td>closed</td></tr></table>
<form name="edit"><table class="form"><tr><th>Priority</th><td><select name="priority">
<option value="-1">- no selection -</option><option value="1" selected>bug</option></select></td>
<th>Owner:</th><td>alice</td></tr></table>
<input type="submit" value="Save"></form></main></body>"""


def test_tables_become_lists_with_header_fields() -> None:
    ps = extract_snapshot(TABLE, "http://x.test/issue")
    issue = ps.elements["issue"]
    assert issue.repeated and issue.selector == "table.list tr:has(> td)"
    assert {n: (p.source, p.key) for n, p in issue.props.items()} == {
        "id": ("cell", "ID"), "title": ("cell", "Title"), "status": ("cell", "Status")}
    assert issue.name_prop == "title" and issue.link_selector == "a[href]"
    assert issue.samples == ["Crash on save", "Slow start"]


def test_chrome_is_not_a_list_and_nothing_is_a_bare_tag() -> None:
    ps = extract_snapshot(TABLE, "http://x.test/issue")
    assert not [e for e in ps.elements.values() if e.repeated and e.name != "issue"]
    assert all(e.selector not in ("a", "input", "button", "select") for e in ps.elements.values())
    assert ps.elements["saveButton"].selector == 'form[name="edit"] input[type="submit"][value="Save"]'
    assert ps.elements["priority"].option_labels == ["- no selection -", "bug"]


def test_label_value_pairs_are_fields() -> None:
    ps = extract_snapshot(TABLE, "http://x.test/issue3")  # an item page: its form holds the item's values
    assert {n: (p.source, p.key) for n, p in ps.fields.items()} == {
        "priority": ("pair", "Priority"), "owner": ("pair", "Owner")}
    assert extract_snapshot(TABLE, "http://x.test/issue").fields == {}  # beside a list: the list's controls
    dl = "<body><main><dl><dt>Owner:</dt><dd>alice</dd><dt>Due</dt><dd>Friday</dd></dl></main></body>"
    assert set(extract_snapshot(dl, "http://x.test/about").fields) == {"owner", "due"}
    form = "<body><main><form><table><tr><th>Title</th><td><input name=title></td></tr></table></form></main></body>"
    assert extract_snapshot(form, "http://x.test/issue?@template=item").fields == {}  # an empty form to fill


def test_secrets() -> None:
    assert is_secret({"type": "password"}, "hunter2")
    assert is_secret({"autocomplete": "cc-number"}, "1")
    assert is_secret({}, "4111 1111 1111 1111") and looks_like_card("4111-1111-1111-1111")
    assert not is_secret({"type": "text"}, "4111 1111 1111 1112")  # fails the Luhn check
    assert not is_secret({"name": "title"}, "Crash on save")
    assert REDACTED == "<redacted>"


def test_a_secret_is_redacted_in_every_form_a_body_carries_it() -> None:
    secret = 'p&ss "w"/1'
    body = f"a=1&pw={quote_plus(secret)}&q={quote(secret, safe='')}&raw={secret}&json={json.dumps(secret)}"
    out = redact_text(body, [secret, ""])
    assert out is not None and secret not in out and quote_plus(secret) not in out and out.count(REDACTED) == 4
    assert redact_text(None, [secret]) is None
    assert redact_args({"user": "alice", "pw": secret, "empty": ""}, ["pw", "empty"]) == {
        "user": "alice", "pw": REDACTED, "empty": ""}


def test_a_write_must_send_the_demonstrations_request() -> None:
    from types import SimpleNamespace

    from toolcache.verify import _request_differs

    synth: Any = SimpleNamespace(evidence=[SimpleNamespace(writes=[{"method": "POST", "url": "http://x.test/issue3"}])])
    assert _request_differs(synth, [("POST", "http://x.test/issue7?@template=item")]) is None  # another item, same route
    assert "sent no request" in (_request_differs(synth, []) or "")
    assert "not the demonstration's POST issue{id}" in (_request_differs(synth, [("POST", "http://x.test/user1")]) or "")
    assert _request_differs(SimpleNamespace(evidence=[]), []) is None  # nothing recorded: nothing to compare


BUTTONS = """<body><main><input placeholder="Search issues"><div class="bar">
<button class="btn">Cancel</button><button class="btn">Save changes</button>
<span role="tab">Journal</span></div></main></body>"""


def test_buttons_and_fields_without_ids_are_found_by_name_not_by_tag() -> None:
    ps = extract_snapshot(BUTTONS, "http://x.test/settings")
    sels = {e.name: e.selector for e in ps.elements.values()}
    assert sels["saveChangesButton"] == "button.btn >> text=Save changes"
    assert sels["cancelButton"] == "button.btn >> text=Cancel"
    assert sels["journal"] == "span >> text=Journal"
    assert sels["searchIssues"] == 'input[placeholder="Search issues"]'  # named by its placeholder


async def test_text_locators_find_the_named_element(page: Any) -> None:
    from toolcache.codegen import PRELUDE

    await page.set_content(BUTTONS)
    got = await page.evaluate("(sels) => {" + PRELUDE + "return sels.map((s) => { const e = __q(s); return e && e.textContent; }); }",
                              ["button.btn >> text=Save changes", "button.btn >> text=cancel", "button >> text=Delete"])
    assert got == ["Save changes", "Cancel", None]


async def test_recorder_waits_for_the_dom_to_settle(page: Any) -> None:
    from toolcache.record import DOM_QUIET_JS

    await page.set_content("<body><ul></ul></body>")
    # a single-page app rendering in three late steps, with no request in flight
    await page.evaluate("""() => { let n = 0; const add = () => { document.querySelector('ul').append(document.createElement('li'));
        if (++n < 3) setTimeout(add, 40); }; setTimeout(add, 40); }""")
    await page.evaluate(DOM_QUIET_JS, [1000, 20000])
    assert await page.evaluate("document.querySelectorAll('li').length") == 3


MESSAGES = """<body><main><table class="messages"><tr><th colspan="3">Messages</th></tr>
<tr><th><a href="msg3">msg3</a></th><th>Author: bob</th><th>Date: 2026-01-02</th></tr>
<tr><td colspan="3"><pre>Confirmed.</pre></td></tr>
<tr><th><a href="msg2">msg2</a></th><th>Author: carol</th><th>Date: 2026-01-01</th></tr>
<tr><td colspan="3"><pre>It drops the last row.</pre></td></tr></table></main></body>"""


def test_two_row_records_become_a_list_with_labeled_fields() -> None:
    ps = extract_snapshot(MESSAGES, "http://x.test/issue2")
    msg = ps.elements["message"]
    assert msg.selector == "table.messages tr:has(> th):has(+ tr > td)"
    assert {n: (p.source, p.key) for n, p in msg.props.items()} == {
        "author": ("labeled", "Author"), "date": ("labeled", "Date"), "content": ("next", "")}


async def test_record_list_reads_in_the_browser(page: Any) -> None:
    from toolcache.codegen.base import PRELUDE, _item_expr

    msg = extract_snapshot(MESSAGES, "http://x.test/issue2").elements["message"]
    await page.set_content(MESSAGES)
    items = await page.evaluate(
        "() => {" + PRELUDE + f"return [...document.querySelectorAll({msg.selector!r})].map((c) => {_item_expr(msg.props, 'c')}); }}")
    assert items == [{"author": "bob", "date": "2026-01-02", "content": "Confirmed."},
                     {"author": "carol", "date": "2026-01-01", "content": "It drops the last row."}]


SPA = """<body><header><div class="flex-row svelte-1cc11g6">
<span class="svelte-1kd9pqk"><input class="content-sized svelte-1kd9pqk" role="combobox" placeholder="Time"></span>
<span class="svelte-1kd9pqk"><input class="content-sized svelte-1kd9pqk" role="combobox" placeholder="Account"></span>
<span class="svelte-1kd9pqk"><input class="content-sized svelte-1kd9pqk" role="combobox" placeholder="Filter by tag"></span>
</div></header>
<article><ol class="journal"><li class="transaction cleared">a</li><li class="transaction pending">b</li>
<li class="transaction cleared">c</li><li class="svelte-2a4xq8">x</li><li class="svelte-2a4xq8">y</li></ol>
<form><div class="cm-content" role="textbox" contenteditable="true" aria-placeholder="enter a BQL query. help"></div>
<button type="submit" class="svelte-qhxsgh">Submit</button></form>
<table><thead><tr><th>sum(position)</th></tr></thead><tbody><tr><td>12.00 USD</td></tr></tbody></table></article>
<dialog class="svelte-17bkxwi"><form><h3>Add Entry</h3><input type="date">
<input role="combobox" class="svelte-1kd9pqk" placeholder="Account"><button type="submit">Save</button></form></dialog></body>"""


def test_single_page_app_controls_are_told_apart_by_name_never_by_hashed_class() -> None:
    ps = extract_snapshot(SPA, "http://x.test/ledger/journal/")
    inputs = {n: e.selector for n, e in ps.elements.items() if e.kind == "input"}
    # three comboboxes with one shared (hashed) class are three fields, not one list
    assert inputs["time"] == 'input[placeholder="Time"]' and inputs["account"] == 'input[placeholder="Account"]'
    assert inputs["query"] == '[aria-placeholder="enter a BQL query. help"]'  # a contenteditable editor
    # a native <dialog>: its own controls, scoped to it; closed, so not open in this snapshot
    assert inputs["addEntryModal.account"] == 'dialog input[placeholder="Account"]'
    assert inputs["addEntryModal.date"] == 'dialog input[type="date"]'
    assert ps.modals == {"addEntryModal": "dialog"} and not ps.open_modals
    lists = {n: e for n, e in ps.elements.items() if e.repeated}
    assert "transaction" in lists and lists["transaction"].visible_count == 3  # class variants, one row kind
    assert not any("svelte" in n.lower() for n in ps.elements)  # hashed classes name nothing
    # a <thead> table is data even with one column and one row; its cells come by their live headers
    row = next(e for e in lists.values() if e.member_sig == "tr")
    assert row.props["cells"].source == "row"


NOTICES = """<body><main>
<div class="alert alert-success alert-dismissible" role="alert">Welcome alice!</div>
<p class="ok-message" role="alert">Issue saved</p>
<div class="alert alert-info" role="alert">3 issues shown</div>
<div class="alert alert-danger" role="alert">Invalid login</div>
<div class="alert alert-warning" role="alert">You are not allowed to view this page.</div>
<div role="alert">Title is required</div>
<p class="error-message">Date is not valid</p>
<span class="error success-mark">Both: an error class wins</span>
<div class="alert alert-success" role="alert" hidden>Hidden success</div>
<div class="error" hidden>Hidden error</div>
</main></body>"""


async def test_errors_are_read_from_error_markup_not_from_success_notices(page: Any) -> None:
    """A post_check's ``__errors()``: a success or info notice in an alert role (a Bootstrap template's "Welcome
    alice!") is not the site saying no; every error, danger, warning or unclassed alert still is."""
    from toolcache.codegen import PRELUDE

    await page.set_content(NOTICES)
    said = await page.evaluate("() => {" + PRELUDE + "return __errors(); }")
    assert said == ["Invalid login", "You are not allowed to view this page.", "Title is required",
                    "Date is not valid", "Both: an error class wins"]  # fmt: skip


STATUS = """<body><main>
<h2 role="alert">There are 3 matching pages</h2>
<h2 role="alert">Sorry, no pages match <em>bees</em></h2>
<p role="alert">12 results</p>
<div aria-live="polite"><p role="alert">Saved 2 minutes ago</p></div>
<div role="status"><span role="alert">Loading the next page</span></div>
<output role="alert">Showing 1-10 of 30</output>
<div role="status" class="error">Upload failed</div>
<div aria-live="polite"><p role="alert">This field is required.</p></div>
<p role="alert">3 fields are invalid</p>
<h2 role="alert">Could not find any pages: the search index is down</h2>
<ul class="errorlist"><li class="error">Enter a valid email address.</li></ul>
</main></body>"""


async def test_status_messages_and_result_counts_are_no_errors(page: Any) -> None:
    """A live region's count of results (Wagtail's search says "There are 3 matching pages" in an
    ``h2 role=alert``), a polite or status region's message: how things stand, not the site saying
    no; error classes and error words (required, invalid, could not) keep a message an error anywhere."""
    from toolcache.codegen import PRELUDE

    await page.set_content(STATUS)
    said = await page.evaluate("() => {" + PRELUDE + "return __errors(); }")
    assert said == ["Upload failed", "This field is required.", "3 fields are invalid",
                    "Could not find any pages: the search index is down", "Enter a valid email address."]  # fmt: skip
