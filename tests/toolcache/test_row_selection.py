"""Actions on several rows of a list, and a confirmation page served at the list's URL.

A small help desk of our own (not Django's markup): a table of tickets, a checkbox per row
(no label, no id: the row is told by its subject link), a choice of actions and an Apply
button. "Close tickets" closes the ticked rows and goes back to the list; "Delete tickets"
answers the POST to the list's own URL with a confirmation page ("Delete 1 tickets?", a
form of hidden inputs and an unnamed ``<input type=submit value="Delete them">``), whose
submit deletes. Two demonstrations are recorded and built once per module, verified with
their recorded answers; the tools then run in Chromium on rows the demonstrations never
ticked.
"""

from __future__ import annotations

import html
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.cache import ToolCache
from agentjit.protocol.trace import StepEvent
from agentjit.runtime import BrowserPool, call_tool
from toolcache.build import BuildReport, build_cache
from toolcache.dom import parse_html
from toolcache.extract import extract_snapshot, page_key
from toolcache.pages import PAGE_JS, heading_slug, with_routes
from toolcache.record import record_script
from toolcache.rows import checked_row
from toolcache.script import Script
from toolcache.variants import learn_variants

SEED = {1: ("Printer on fire", "ana"), 2: ("Lost badge", "bo"), 3: ("Coffee machine", "cy"), 4: ("VPN down", "ana")}


class Desk:
    """The help desk's state: ticket id -> [subject, owner, state]."""

    def __init__(self) -> None:
        self.tickets: dict[int, list[str]] = {}
        self.reset()

    def reset(self) -> None:
        self.tickets = {i: [s, o, "open"] for i, (s, o) in SEED.items()}

    def list_page(self, note: str = "") -> str:
        rows = "".join(
            f"<tr><td><input type='checkbox' name='ids' value='{i}'></td>"
            f"<th scope='row'><a href='/tickets/{i}'>{html.escape(s)}</a></th><td>{o}</td><td>{st}</td></tr>"
            for i, (s, o, st) in self.tickets.items())
        return (
            "<html><head><title>Tickets</title></head><body><header><h1>Help desk</h1></header>"
            f"<main><h1>Tickets</h1>{note}<form method='post' action='/tickets' id='bulk'>"
            "<label>With the ticked: <select name='op'><option value=''>Choose...</option>"
            "<option value='close'>Close tickets</option><option value='delete'>Delete tickets</option></select></label>"
            "<button type='submit'>Apply</button>"
            "<table class='tickets'><thead><tr><th></th><th>Subject</th><th>Owner</th><th>State</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></form></main></body></html>")

    def confirm_page(self, ids: list[int]) -> str:
        hidden = "".join(f"<input type='hidden' name='ids' value='{i}'>" for i in ids)
        items = "".join(f"<li>{html.escape(self.tickets[i][0])}</li>" for i in ids if i in self.tickets)
        return (
            "<html><head><title>Confirm</title></head><body><header><h1>Help desk</h1></header>"
            f"<main><h1>Delete {len(ids)} tickets?</h1><ul>{items}</ul>"
            f"<form method='post' action='/tickets'><input type='hidden' name='op' value='delete'>{hidden}"
            "<input type='hidden' name='confirmed' value='yes'><input type='submit' value='Delete them'>"
            "<a href='/tickets'>Cancel</a></form></main></body></html>")


def _handler(desk: Desk) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def _send(self, body: str, status: int = 200) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _back(self) -> None:
            self.send_response(303)
            self.send_header("Location", "/tickets")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            if self.path in ("/", "/tickets"):
                self._send(desk.list_page())
            else:
                self._send("<html><body><h1>Ticket</h1></body></html>")

        def do_POST(self) -> None:  # noqa: N802
            if self.path == "/__reset":
                desk.reset()
                self._send("ok")
                return
            form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
            ids = [int(i) for i in form.get("ids", []) if int(i) in desk.tickets]
            op = (form.get("op") or [""])[0]
            if not ids or not op:
                self._send(desk.list_page("<p class='warning'>Tick some tickets and choose an action.</p>"))
            elif op == "close":
                for i in ids:
                    desk.tickets[i][2] = "closed"
                self._back()
            elif form.get("confirmed") != ["yes"]:
                self._send(desk.confirm_page(ids))  # the confirmation, at the list's own URL
            else:
                for i in ids:
                    del desk.tickets[i]
                self._back()

        def log_message(self, *_args: Any) -> None:
            pass

    return Handler


@pytest.fixture(scope="module")
def desk() -> Iterator[tuple[Desk, str]]:
    state = Desk()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _tick(value: int) -> dict[str, Any]:
    return {"action": "check", "target": {"selector": f"input[name=ids][value='{value}']"}}


SCRIPTS = [
    {"name": "close_two", "reset": False, "steps": [
        {"action": "goto", "url": "/tickets"}, _tick(1), _tick(3),
        {"action": "select", "target": {"selector": "select[name=op]"}, "value": "Close tickets"},
        {"action": "click", "target": {"role": "button", "name": "Apply"}}]},
    {"name": "delete_one", "reset": False, "steps": [
        {"action": "goto", "url": "/tickets"}, _tick(2),
        {"action": "select", "target": {"selector": "select[name=op]"}, "value": "Delete tickets"},
        {"action": "click", "target": {"role": "button", "name": "Apply"}},
        {"action": "click", "target": {"role": "button", "name": "Delete them"}}]},
]


@pytest.fixture(scope="module")
async def built(desk: tuple[Desk, str], browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> tuple[ToolCache, BuildReport, list[Path]]:
    """The two demonstrations recorded (the desk reset before each) and built, verified on the desk."""
    state, url = desk
    out = tmp_path_factory.mktemp("desk")
    traces = []
    for script in SCRIPTS:
        state.reset()
        traces.append(await record_script(browser_pool, Script.model_validate(script), url, out / f"{script['name']}.jsonl"))
    state.reset()
    cache, report = await build_cache(traces, out / "cache", base_url=url, pool=browser_pool)
    return cache, report, traces


async def test_ticked_rows_and_a_chosen_action_are_one_tool_over_the_rows_names(built: Any) -> None:
    cache, report, _ = built
    assert report.rejected == {}
    assert report.writes == {"close_tickets": "recorded", "delete_tickets": "recorded", "delete_them": "recorded"}
    close = cache.tools["close_tickets"]
    assert close.input_schema["required"] == ["rows"] and close.input_schema["properties"]["rows"]["type"] == "array"
    assert close.pre == {"page": "tickets"} and close.post == {"page": "tickets"}
    # the verifier called it with the rows the demonstration ticked, by their names
    assert cache.info.builder["witnesses"]["close_tickets"] == {"rows": ["Printer on fire", "Coffee machine"]}
    assert report.coverage.covered == report.coverage.steps


async def test_the_confirmation_at_the_lists_url_is_a_page_of_its_own_and_the_tools_chain(built: Any) -> None:
    cache, report, _ = built
    assert report.routes == ["tickets#delete_tickets"]
    assert "tickets_delete_tickets" in cache.schemas["pages"]
    delete, confirm = cache.tools["delete_tickets"], cache.tools["delete_them"]
    assert delete.post == {"page": "tickets_delete_tickets"}
    assert confirm.pre == {"page": "tickets_delete_tickets"} and confirm.post == {"page": "tickets"}
    assert confirm.input_schema.get("properties") == {}


async def test_the_tools_act_on_the_rows_they_are_given_not_the_recorded_ones(built: Any, desk: tuple[Desk, str], browser_pool: BrowserPool) -> None:
    cache, _, _ = built
    state, url = desk
    state.reset()
    async with browser_pool.page() as page:
        await page.goto(url + "/tickets")
        out = await call_tool(page, cache.tools["close_tickets"], {"rows": ["Lost badge", "VPN down"]})
        assert out.ok, out.reason
        await page.wait_for_load_state()
        assert [t[2] for t in state.tickets.values()] == ["open", "closed", "open", "closed"]
        missing = await call_tool(page, cache.tools["close_tickets"], {"rows": ["No such ticket"]})
        assert not missing.ok and "No such ticket" in str(missing.reason)
        # delete two rows: the action opens the confirmation, whose own tool confirms
        out = await call_tool(page, cache.tools["delete_tickets"], {"rows": ["Printer on fire", "Coffee machine"]})
        assert out.ok, out.reason
        await page.wait_for_load_state()
        assert await page.evaluate("() => {" + with_routes(PAGE_JS, ["tickets#delete_tickets"]) + "return __page(); }") == "tickets_delete_tickets"
        assert len(state.tickets) == 4  # nothing deleted before the confirmation
        on_list = await call_tool(page, cache.tools["close_tickets"], {"rows": ["Lost badge"]})
        assert not on_list.ok and on_list.phase == "pre_check"  # the confirmation is not the list
        out = await call_tool(page, cache.tools["delete_them"], {})
        assert out.ok, out.reason
        await page.wait_for_load_state()
        assert sorted(t[0] for t in state.tickets.values()) == ["Lost badge", "VPN down"]
    state.reset()


# -- the parts, without a site ---------------------------------------------------------------


LIST = Desk().list_page()
CONFIRM = Desk().confirm_page([1])


class _Trace:
    """What :func:`learn_variants` reads of a trace: its steps and their snapshots."""

    def __init__(self, steps: list[tuple[StepEvent, str]]) -> None:
        self.steps = [s for s, _ in steps]
        self._html = {id(s): h for s, h in steps}

    def snapshot_html(self, step: StepEvent) -> str | None:
        return self._html.get(id(step))


def _step(index: int, action: str, status: int | None = None, url: str = "http://x.test/tickets") -> StepEvent:
    requests = [{"method": "POST", "url": url, "resource": "document", "status": status}] if status else []
    return StepEvent.model_validate({"index": index, "action": action, "start": 0, "end": 0, "url": url, "url_after": url,
                                     "document": True, "snapshot": f"s{index}", "requests": requests})


def test_a_form_shown_again_with_its_errors_is_no_variant_and_a_redirected_post_is_none() -> None:
    errors = LIST.replace("<h1>Tickets</h1>", "<h1>Tickets: 1 error</h1><p class='error'>Choose an action</p>")
    assert learn_variants([_Trace([(_step(0, "goto"), LIST), (_step(1, "click", 200), errors)])]) == []
    # the confirmation is one only when a write answered it: after a redirect it is just the page
    assert learn_variants([_Trace([(_step(0, "goto"), LIST), (_step(1, "click", 303), CONFIRM)])]) == []
    assert learn_variants([_Trace([(_step(0, "goto"), LIST), (_step(1, "click", 200), CONFIRM)])]) == ["tickets#delete_tickets"]
    # without a plain load of the same page there is nothing to tell it from
    assert learn_variants([_Trace([(_step(1, "click", 200), CONFIRM)])]) == []


def _serving(doc: str) -> Any:
    async def handler(route: Any) -> None:
        await route.fulfill(status=200, content_type="text/html", body=doc)
    return handler


async def test_the_browser_names_a_variant_as_python_does(page: Any) -> None:
    routes = ["tickets#delete_tickets"]
    heads = ["Delete 12 tickets?", "Delete <b>3</b>\n tickets", "Tickets", "delete&nbsp;tickets", "Délete tickets"]
    for head in heads:
        doc = CONFIRM.replace("<h1>Delete 1 tickets?</h1>", f"<h1>{head}</h1>")
        body = parse_html(doc).find(lambda n: n.tag == "body")
        want = page_key(body, "http://x.test/tickets", routes)
        await page.route("http://x.test/**", _serving(doc))
        await page.goto("http://x.test/tickets")
        got = await page.evaluate("() => {" + with_routes(PAGE_JS, routes) + "return __page(); }")
        assert got == want, (head, got, want)
        await page.unroute("http://x.test/**")
    assert heading_slug("Delete 12 tickets?") == "delete_tickets"
    assert page_key(parse_html(LIST).find(lambda n: n.tag == "body"), "http://x.test/tickets", routes) == "tickets"


def test_a_ticked_row_is_named_by_its_link_even_without_a_label() -> None:
    ps = extract_snapshot(LIST, "http://x.test/tickets")
    rows = next(el for el in ps.elements.values() if el.repeated)
    box = {"selector": "#bulk > table > tbody > tr:nth-of-type(3) > td > input", "tag": "input", "role": "checkbox",
           "attributes": {"type": "checkbox", "name": "ids", "value": "3"}}
    step = StepEvent.model_validate({"index": 1, "action": "check", "start": 0, "end": 0, "target": box})
    assert checked_row(LIST, step, rows) == "Coffee machine"
    # a selector the snapshot cannot resolve: the rows the box's own name mentions
    lost = StepEvent.model_validate({"index": 1, "action": "check", "start": 0, "end": 0,
                                     "target": {**box, "selector": "#gone > input", "name": "Select Lost badge"}})
    assert checked_row(LIST, lost, rows) == "Lost badge"
