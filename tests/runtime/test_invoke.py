"""Tool calls in a real page: each failing phase gives its own outcome; a dead site does not hang."""

import asyncio
import time

import pytest

from agentjit.bench.food import FoodSite
from agentjit.exceptions import SiteUnreachable, ToolInputError
from agentjit.protocol import ToolManifest
from agentjit.runtime import call_tool
from agentjit.runtime.runner import goto_start

ON_HOME = "return document.body.dataset.page === 'home' || [false, 'not on the home page'];"

LIST = ToolManifest(
    name="first_cards",
    description="Names of the first n store cards.",
    type="listItems",
    input_schema={"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]},
    output_schema={"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}, "required": ["names"]},
    pre_check=ON_HOME,
    execute="return {names: [...document.querySelectorAll('[data-testid=store-card]')].slice(0, n).map(c => c.dataset.name)};",
    post_check="return output.names.length === inputs.n || [false, 'wrong count'];",
    timeout_ms=400,
)
GOTO = ToolManifest(
    name="open_first_store",
    description="Open the first store card.",
    type="gotoItem",
    navigates=True,
    pre_check=ON_HOME,
    execute="const c = document.querySelector('[data-testid=store-card]'); setTimeout(() => c.click(), 0); return {slug: c.dataset.storeSlug};",
    post_check="return document.body.dataset.page === 'store' && document.body.dataset.store === output.slug;",
    output_schema={"type": "object", "properties": {"slug": {"type": "string"}}},
    timeout_ms=3000,
)


@pytest.fixture
async def home(page, food_site):
    await goto_start(page, food_site.url + "/")
    return page


async def test_success_returns_output_and_timings(home):
    out = await call_tool(home, LIST, {"n": 3})
    assert out.ok and out.phase is None
    assert len(out.output["names"]) == 3 and all(isinstance(n, str) for n in out.output["names"])
    assert {"pre_check", "execute", "post_check", "total"} <= set(out.timings)


async def test_failing_pre_check(page, food_site):
    await goto_start(page, food_site.url + "/cart")
    out = await call_tool(page, LIST, {"n": 3})
    assert not out.ok and out.phase == "pre_check" and out.reason == "not on the home page"
    assert out.timings["pre_check"] >= 0.35  # it polled for the whole timeout inside the page


async def test_throwing_execute(home):
    bad = LIST.model_copy(update={"execute": "throw new Error('kaboom')"})
    out = await call_tool(home, bad, {"n": 1})
    assert not out.ok and out.phase == "execute" and "kaboom" in out.reason


async def test_failing_post_check(home):
    bad = LIST.model_copy(update={"post_check": "return [false, 'never satisfied'];"})
    out = await call_tool(home, bad, {"n": 2})
    assert not out.ok and out.phase == "post_check" and out.reason == "never satisfied"
    assert out.output["names"]  # execute did run once


async def test_output_schema_violation(home):
    bad = LIST.model_copy(update={"execute": "return {names: 'not a list'};", "post_check": "return true;"})
    out = await call_tool(home, bad, {"n": 1})
    assert not out.ok and out.phase == "output"


async def test_bad_arguments_raise(home):
    with pytest.raises(ToolInputError, match="n"):
        await call_tool(home, LIST, {"n": 0})


async def test_navigation_then_post_check_on_new_document(home):
    out = await call_tool(home, GOTO, {})
    assert out.ok, out.reason
    assert "/store/" + out.output["slug"] in out.url_after
    assert out.timings["navigation"] > 0


async def test_navigation_that_never_happens(home):
    stuck = GOTO.model_copy(update={"execute": "return {slug: 'x'};", "timeout_ms": 500})
    out = await call_tool(home, stuck, {})
    assert not out.ok and out.phase == "navigation"


async def test_stopped_site_fails_fast_not_hangs(page):
    site = FoodSite(latency_scale=0).start()
    url = site.url
    await goto_start(page, url + "/")
    site.stop()
    t0 = time.perf_counter()
    out = await call_tool(page, GOTO, {})
    assert not out.ok and out.phase in ("navigation", "post_check")
    assert time.perf_counter() - t0 < GOTO.timeout_ms / 1000 * 3
    with pytest.raises(SiteUnreachable, match="cannot open"):
        await goto_start(page, url + "/", timeout_ms=2000)


class _Page:
    def __init__(self, closed: bool = False) -> None:
        self.closed = closed

    def is_closed(self) -> bool:
        return self.closed


def test_a_navigation_error_is_told_by_its_type_not_its_text() -> None:
    from playwright.async_api import Error, TimeoutError

    from agentjit.runtime.invoke import _is_navigation_error

    destroyed = "Execution context was destroyed, most likely because of a navigation"
    assert _is_navigation_error(Error(destroyed), _Page())
    assert not _is_navigation_error(RuntimeError(destroyed), _Page())  # not Playwright's: the text does not count
    assert not _is_navigation_error(TimeoutError("Timeout 30000ms exceeded"), _Page())
    assert not _is_navigation_error(Error(destroyed), _Page(closed=True))  # the page is gone, not navigating


# A tool that does not say it navigates, whose click the page answers with a new document (a form
# its script submits, a link): the navigation is waited out, never a failed call.
_CLICK_AWAY = (
    "sessionStorage.setItem('aj_runs', String(Number(sessionStorage.getItem('aj_runs') || 0) + 1));"
    "if (document.body.dataset.page === 'home') {"
    "  document.querySelector('[data-testid=store-card]').click();"
    "  await new Promise((r) => setTimeout(r, 5000));"
    "}"
    "return {page: document.body.dataset.page};"
)


async def test_a_read_whose_page_navigates_under_it_runs_again_on_the_new_document(home):
    tool = ToolManifest(
        name="page_kind", description="The page's kind.", type="observe", execute=_CLICK_AWAY,
        output_schema={"type": "object", "properties": {"page": {"type": "string"}}, "required": ["page"]},
        post_check="return output.page === 'store' || [false, 'not on a store page'];", timeout_ms=3000,
    )
    out = await call_tool(home, tool, {})
    assert out.ok, (out.phase, out.reason)
    assert out.output == {"page": "store"} and "/store/" in out.url_after
    assert await home.evaluate("sessionStorage.getItem('aj_runs')") == "2"  # the first run's document went away


async def test_a_write_whose_page_navigates_under_it_is_judged_by_its_post_check_not_sent_again(home):
    tool = ToolManifest(
        name="open_store", description="Opens a store.", type="setFields", effect="WRITE", execute=_CLICK_AWAY,
        post_check="return document.body.dataset.page === 'store' || [false, 'not on a store page'];", timeout_ms=3000,
    )
    out = await call_tool(home, tool, {})
    assert out.ok, (out.phase, out.reason)
    assert await home.evaluate("sessionStorage.getItem('aj_runs')") == "1"
    failing = tool.model_copy(update={"post_check": "return [false, 'nothing saved'];", "timeout_ms": 300})
    await goto_start(home, home.url.split("/store/")[0] + "/")
    out = await call_tool(home, failing, {})
    assert not out.ok and out.phase == "post_check" and out.reason == "nothing saved"


async def test_a_slow_navigation_waits_as_long_as_the_caller_allows_a_navigation(home):
    """A site under load answers a link after the checks' timeout: the navigation may take what the
    caller allows it (the build's step timeout), the checks still poll for their own."""
    slow = GOTO.model_copy(update={
        "execute": "const c = document.querySelector('[data-testid=store-card]'); setTimeout(() => c.click(), 1200); return {slug: c.dataset.storeSlug};",
        "timeout_ms": 400,
    })
    out = await call_tool(home, slow, {})
    assert not out.ok and out.phase == "navigation" and "no navigation within 400 ms" in (out.reason or "")
    await home.wait_for_url("**/store/**")
    await goto_start(home, home.url.split("/store/")[0] + "/")
    out = await call_tool(home, slow, {}, navigation_timeout_ms=5000)
    assert out.ok, (out.phase, out.reason)


async def test_a_post_check_whose_document_is_replaced_by_script_runs_on_the_next_one(home):
    """The document a navigating call lands on sends the page on at once (a script redirect, as a
    sign-in page does): the post_check's document goes away under it, and it runs on the next one,
    once parsed, never on a document without its body and never as a raised error."""
    store = await home.evaluate("document.querySelector('[data-testid=store-card]').href")
    bounce = ("<html><body data-page='bounce'><script>"
              "setTimeout(() => location.replace(" + repr(store) + "), 50);</script></body></html>")
    await home.route("**/bounce", lambda route: route.fulfill(status=200, content_type="text/html", body=bounce))

    async def slow(route):  # the next document comes a moment later, while the post_check polls
        await asyncio.sleep(0.4)
        await route.fallback()

    await home.route("**/store/**", slow)
    tool = GOTO.model_copy(update={
        "execute": "const c = document.querySelector('[data-testid=store-card]'); const slug = c.dataset.storeSlug;"
                   " setTimeout(() => { location.href = '/bounce'; }, 0); return {slug};",
    })
    out = await call_tool(home, tool, {})
    assert out.ok, (out.phase, out.reason)
    assert "/store/" + out.output["slug"] in out.url_after
