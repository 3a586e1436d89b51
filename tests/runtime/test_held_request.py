"""A WRITE's request that leaves without a value the call gave is held back before it reaches the site (issue 21):
:class:`agentjit.runtime.healing.RequestWatch` with a ``hold``, on the food site in Chromium. The site's own request
log says what reached it."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime.healing import (
    HELD_PHASE,
    REQUEST_PHASE,
    RequestWatch,
    request_hold,
    write_not_sent,
)
from agentjit.runtime.invoke import CallOutcome

pytestmark = pytest.mark.browser

TOOL = ToolManifest(name="place", description="d", type=ToolType.SET_FIELDS, execute="return {};", effect=Effect.WRITE,
                    input_schema={"type": "object", "properties": {"address": {"type": "string"}}})  # fmt: skip

POST_JS = """async (body) => {
  try { const r = await fetch('/checkout/place', {method: 'POST', body: new URLSearchParams(body)}); return r.status; }
  catch (e) { return String(e); }
}"""


def posts(site) -> list[dict]:
    return [e for e in site.state()["log"] if e["method"] == "POST" and e["path"] == "/checkout/place"]


async def test_a_request_without_the_value_given_never_reaches_the_site(page, food_site) -> None:
    good = [{"args": {"address": "1 Main St"},
             "writes": [{"method": "POST", "url": f"{food_site.url}/checkout/place",
                         "post_data": urlencode({"mode": "delivery", "address": "1 Main St"})}]}]  # fmt: skip
    hold = request_hold(TOOL, {"address": "9 Elm St"}, good)
    await page.goto(food_site.url + "/")
    async with RequestWatch(page, hold=hold) as watch:
        answer = await page.evaluate(POST_JS, {"mode": "delivery", "address": ""})
    assert "Failed to fetch" in answer
    assert posts(food_site) == [] and not watch.sent and watch.sent_writes() == []
    [why] = watch.held
    assert why.startswith("address:")
    assert write_not_sent(CallOutcome(tool="place", ok=False, phase=HELD_PHASE, reason=why), watch)  # known not sent
    # the same request with the value given goes through, and is what the watch says was sent
    async with RequestWatch(page, hold=hold) as watch:
        assert await page.evaluate(POST_JS, {"mode": "delivery", "address": "9 Elm St"}) in (200, 303, 400, 409)
    assert len(posts(food_site)) == 1 and watch.sent and watch.held == []
    assert not write_not_sent(CallOutcome(tool="place", ok=False, phase=REQUEST_PHASE, reason="x"), watch)
    # after the watch, nothing of it is left on the page: a request without the value goes through
    await page.evaluate(POST_JS, {"mode": "delivery", "address": ""})
    assert len(posts(food_site)) == 2
