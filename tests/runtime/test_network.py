"""A tool call waits for the page's own data requests (a single-page app still starting up)."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentjit.protocol.manifest import ToolManifest
from agentjit.runtime.invoke import call_tool
from agentjit.runtime.network import settled, watch
from agentjit.runtime.runner import goto_start

# The page asks for its data once loaded and draws it when it comes (1.2 s later);
# /poll never answers within the test (a long poll).
APP = b"""<!doctype html><body><p id="v">loading</p><script>
fetch('/data').then((r) => r.text()).then((t) => { document.getElementById('v').textContent = t; });
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
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


READ = ToolManifest.model_validate({
    "name": "read_value", "description": "What the page shows.", "type": "getFields", "effect": "READ",
    "input_schema": {"type": "object", "properties": {}}, "output_schema": {"type": "object", "properties": {"v": {"type": "string"}}},
    "pre_check": "return true;", "execute": "return {v: document.getElementById('v').textContent};", "post_check": "return true;",
})


async def test_the_first_call_waits_for_the_data_the_page_is_loading(page: Any, slow_app: str) -> None:
    await goto_start(page, slow_app + "/")  # returns at DOMContentLoaded, the data still on its way
    out = await call_tool(page, READ, {})
    assert out.ok and out.output == {"v": "ready"}
    assert 0.5 < out.timings["settle"] < 3
    again = await call_tool(page, READ, {})  # nothing in flight: no wait
    assert again.ok and "settle" not in again.timings


async def test_a_request_that_stays_open_is_a_poll_waited_for_at_most_the_limit(page: Any, slow_app: str) -> None:
    await goto_start(page, slow_app + "/")
    assert await settled(page) > 0.5  # the page's data
    await page.evaluate("() => { fetch('/poll'); }")
    for _ in range(50):  # Playwright reports the request a moment after the page sends it
        if watch(page).open:
            break
        await page.wait_for_timeout(10)
    t0 = time.monotonic()
    waited = await settled(page, limit_s=0.6)
    assert 0.4 < waited < 1.5 and time.monotonic() - t0 < 1.5
    assert watch(page).open and not watch(page).waiting_on(0.6)  # still open, now taken for a poll
    assert await settled(page, limit_s=0.6) < 0.05
