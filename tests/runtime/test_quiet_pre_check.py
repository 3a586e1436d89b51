"""A pre_check that cannot hold any more fails once the page is quiet, not after its whole timeout; a page still
loading or still changing keeps it waiting (real Chromium; the pages are served by the test's own routes)."""

import asyncio

import pytest

from agentjit.protocol import ToolManifest
from agentjit.runtime import call_tool

pytestmark = pytest.mark.browser

ORIGIN = "http://127.0.0.1:9"
"""Never reached: every request to it is answered by the page's routes."""


def _needs_done(timeout_ms: int) -> ToolManifest:
    return ToolManifest(
        name="read_done", description="Read the done marker.", type="listItems", timeout_ms=timeout_ms,
        pre_check="return !!document.querySelector('#done') || [false, 'no #done on this page'];",
        execute="return {text: document.querySelector('#done').textContent};",
    )  # fmt: skip


async def _serve(page, body: str, api_delay_s: float = 0.0) -> None:
    async def html(route):
        await route.fulfill(status=200, content_type="text/html", body=f"<!doctype html><html><body>{body}</body></html>")

    async def api(route):
        await asyncio.sleep(api_delay_s)
        await route.fulfill(status=200, content_type="application/json", body='{"text": "loaded"}')

    await page.route(f"{ORIGIN}/api/**", api)
    await page.route(f"{ORIGIN}/page", html)
    await page.goto(f"{ORIGIN}/page")


@pytest.mark.timeout(120)
async def test_a_pre_check_on_a_quiet_page_fails_before_its_timeout(page) -> None:
    await _serve(page, "<p>nothing to see</p>")
    outcome = await call_tool(page, _needs_done(60_000), {})
    assert not outcome.ok and outcome.phase == "pre_check" and outcome.reason == "no #done on this page"
    assert outcome.timings["pre_check"] < 30  # the page was quiet long before the minute was up
    # with the early end switched off it polls its whole timeout
    outcome = await call_tool(page, _needs_done(3000), {}, pre_check_quiet_ms=0)
    assert not outcome.ok and outcome.timings["pre_check"] >= 3.0


@pytest.mark.timeout(120)
async def test_an_open_request_keeps_a_pre_check_waiting(page) -> None:
    """The element comes with the answer to a request the page made, answered after the quiet time has passed."""
    script = ("<script>fetch('/api/data').then((r) => r.json()).then((d) => {"
              " const p = document.createElement('p'); p.id = 'done'; p.textContent = d.text; document.body.append(p); });"
              "</script>")  # fmt: skip
    await _serve(page, "<p>loading</p>" + script, api_delay_s=3.5)
    outcome = await call_tool(page, _needs_done(60_000), {})
    assert outcome.ok and outcome.output == {"text": "loaded"}, outcome


@pytest.mark.timeout(120)
async def test_a_page_still_changing_keeps_a_pre_check_waiting(page) -> None:
    """A clock ticking in the page, and the element drawn by a timer after more than the quiet time."""
    script = ("<script>let n = 0; setInterval(() => { document.querySelector('#clock').textContent = ++n; }, 300);"
              " setTimeout(() => { const p = document.createElement('p'); p.id = 'done'; p.textContent = 'late';"
              " document.body.append(p); }, 3500);</script>")  # fmt: skip
    await _serve(page, "<p id='clock'>0</p>" + script)
    outcome = await call_tool(page, _needs_done(60_000), {})
    assert outcome.ok and outcome.output == {"text": "late"}, outcome
