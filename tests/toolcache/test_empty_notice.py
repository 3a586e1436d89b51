"""Issue 21, a list on a page that says it has none: Roundup's jinja2 template answers a search that finds nothing
with "There are no issues yet!" (in a ``text-error`` paragraph) and no table at all, where classic draws the list's
table with its header only. A list tool built by the builder reads such a page as an empty list; a page with
neither the list nor such a notice (the list's markup gone, a notice in the site's chrome, an error) still fails
its pre_check. In Chromium."""

from __future__ import annotations

from typing import Any

import pytest

from toolcache.codegen import synthesize
from toolcache.extract import SiteSchema, extract_snapshot

ISSUES = """<body data-page="issue"><section><h3>Issues</h3>
<table class="list"><thead><tr><th>ID</th><th>Title</th><th>Status</th></tr></thead><tbody>
<tr><td>1</td><td><a href="/issue1">Login page times out</a></td><td>open</td></tr>
<tr><td>2</td><td><a href="/issue2">Export drops a row</a></td><td>closed</td></tr>
<tr><td>7</td><td><a href="/issue7">Slow dashboard</a></td><td>open</td></tr></tbody></table></section></body>"""


def page_of(content: str) -> str:
    return f'<body data-page="issue"><nav><a href="/">Home</a></nav><section><h3>Issues</h3>{content}</section></body>'


@pytest.fixture(scope="module")
def run() -> str:
    """The built list tool of the issues page: its pre_check, then its execute."""
    ps = extract_snapshot(ISSUES, "http://x.test/issue")
    tools = [s.manifest for s in synthesize(SiteSchema(pages={"issue": ps}), {}) if s.manifest.name.startswith("list_")]
    assert len(tools) == 1, [t.name for t in tools]
    tool = tools[0]
    return ("async (inputs) => { const pre = async () => { " + tool.pre_check + " }; const r = await pre(); "
            "if (r !== true) return r; return (async () => { " + tool.execute + " })(); }")  # fmt: skip


@pytest.mark.browser
@pytest.mark.parametrize("notice", ["<p class='text-error'>There are no issues yet!</p>", "<div>No matching issues.</div>",
                                    "<p>Your search found <em>0 results</em>.</p>"])  # fmt: skip
async def test_a_page_that_says_it_has_no_items_is_an_empty_list(page: Any, run: str, notice: str) -> None:
    await page.set_content(page_of(notice))
    assert await page.evaluate(run, {}) == {"items": []}


@pytest.mark.browser
@pytest.mark.parametrize("content", [
    "<div class='cards'><div class='card'><a href='/issue1'>Login page times out</a></div></div>",  # the list, renamed
    "<p>There are no issues yet: the search failed with an error.</p>",  # an error, in words
    "<footer><p>No issues? Tell us.</p></footer><div class='cards'><div class='card'>Login</div></div>",  # chrome
    "<p hidden>There are no issues yet!</p>",  # not shown
])  # fmt: skip
async def test_a_page_without_the_list_or_a_notice_of_none_still_fails(page: Any, run: str, content: str) -> None:
    await page.set_content(page_of(content))
    answer = await page.evaluate(run, {})
    assert isinstance(answer, list) and answer[0] is False, answer


@pytest.mark.browser
async def test_the_list_is_read_as_before(page: Any, run: str) -> None:
    await page.set_content(ISSUES)
    assert [r["title"] for r in (await page.evaluate(run, {}))["items"]] == ["Login page times out", "Export drops a row",
                                                                             "Slow dashboard"]  # fmt: skip
