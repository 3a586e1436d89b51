"""A tool that changes the page in place waits for the page's own data requests (a single-page app
still starting up); a read, a navigation and a third party's request do not hold a call back."""

from __future__ import annotations

import http.server
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentjit.protocol.manifest import ToolManifest
from agentjit.runtime.invoke import call_tool
from agentjit.runtime.network import PENDING_JS
from agentjit.runtime.runner import goto_start

from ..toolcache.pages import serve

# The page asks for its data once loaded and draws it when it comes (1.2 s later);
# /poll never answers within the test (a long poll). /third asks another origin
# (localhost for 127.0.0.1) for the same data, as an analytics script would.
APP = b"""<!doctype html><body><p id="v">loading</p><script>
const at = location.pathname === '/third' ? 'http://localhost:' + location.port + '/data' : '/data';
fetch(at, {mode: 'no-cors'}).then((r) => r.text()).then((t) => { document.getElementById('v').textContent = t || 'opaque'; });
</script></body>"""


class _Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        if self.path == "/data":
            time.sleep(1.2)
            body = b"ready"
        elif self.path == "/poll":
            time.sleep(20)
            body = b""
        else:
            body = APP
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the browser went away first (the long poll)
            pass

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def slow_app() -> Iterator[str]:
    with serve(_Slow) as url:
        yield url


def _tool(kind: str) -> ToolManifest:
    return ToolManifest.model_validate({
        "name": f"{kind}_value", "description": "What the page shows.", "type": kind, "effect": "READ",
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": {"type": "object", "properties": {"v": {"type": "string"}}},
        "pre_check": "return true;", "execute": "return {v: document.getElementById('v').textContent};",
        "post_check": "return true;",
    })


ACT = _tool("setFilter")  # changes the page in place (here it only reads what the page shows)
READ = _tool("getFields")


async def test_a_tool_acting_in_place_waits_for_the_data_the_page_is_loading(page: Any, slow_app: str) -> None:
    await goto_start(page, slow_app + "/")  # returns at DOMContentLoaded, the data still on its way
    out = await call_tool(page, ACT, {})
    assert out.ok and out.output == {"v": "ready"}
    assert 0.5 < out.timings["settle"] < 3
    again = await call_tool(page, ACT, {})  # nothing in flight: no wait
    assert again.ok and "settle" not in again.timings


async def test_a_read_does_not_wait(page: Any, slow_app: str) -> None:
    await goto_start(page, slow_app + "/")
    out = await call_tool(page, READ, {})
    assert out.ok and out.output == {"v": "loading"} and "settle" not in out.timings


async def test_a_third_partys_request_does_not_hold_a_call_back(page: Any, slow_app: str) -> None:
    await goto_start(page, slow_app + "/third")
    out = await call_tool(page, ACT, {})
    assert out.ok and out.output == {"v": "loading"} and "settle" not in out.timings


async def test_a_request_that_stays_open_is_a_poll_waited_for_at_most_the_limit(
    page: Any, slow_app: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agentjit.runtime.invoke.SETTLE_LIMIT_S", 0.8)
    await goto_start(page, slow_app + "/")
    await page.wait_for_function("document.getElementById('v').textContent === 'ready'")
    await page.evaluate("() => { fetch('/poll'); }")
    t0 = time.monotonic()
    out = await call_tool(page, ACT, {})
    assert out.ok and 0.6 < out.timings["settle"] < 4 and time.monotonic() - t0 < 10  # the 0.8 s limit, not the 5 s one
    assert await page.evaluate(PENDING_JS) == 1  # still open, now taken for a poll: no more waits
    again = await call_tool(page, ACT, {})
    assert again.ok and "settle" not in again.timings


async def test_every_page_of_the_pool_is_followed_from_its_first_document(page: Any, slow_app: str) -> None:
    """The pool's contexts count every document's requests, so a page opened by other code (the
    builder's verifier) is covered too, not only one opened with goto_start."""
    await page.goto(slow_app + "/", wait_until="domcontentloaded")
    out = await call_tool(page, ACT, {})
    assert out.ok and out.output == {"v": "ready"} and out.timings["settle"] > 0.5
