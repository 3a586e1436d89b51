"""Issue 21, a list whose records move from table cells to labelled parts: a redesign draws each record of a list
as a card of label/value pairs ("Author: bob", ``<dt>Author</dt><dd>bob</dd>``, ``<span class=label>Author</span>
bob``) where it drew a table row under column heads. The builder's row reading (``__cell``, ``__labeled`` of
``toolcache/js/prelude.js``) reads a record that is no table row by its labelled parts, each field by the label of
its name, so heal, re-reading the list with the builder's current helpers, finds the cards and gives the good
call's items again. In Chromium on a small tracker of several designs, the tool built by the builder on the first."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import ClassVar

import pytest

from agentjit.cache import SuspectStore, ToolCache
from agentjit.runtime import Runtime
from agentjit.tasks.runner import jsonable
from toolcache.heal import heal_cache
from toolcache.heal_fill import HELPERS_CHANGE

from .pages import PageHandler, record_and_build, serve

pytestmark = pytest.mark.browser

NOTES = [("bob", "2026-01-02", "Confirmed on two machines."), ("carol", "2026-01-01", "Export drops the last row."),
         ("dave", "2025-12-30", "Seen on the nightly build too.")]  # fmt: skip


def _table() -> str:
    rows = "".join(f"<tr><td>{a}</td><td>{d}</td><td>{escape(c)}</td></tr>" for a, d, c in NOTES)
    return f"<table class='notes'><tr><th>Author</th><th>Date</th><th>Note</th></tr>{rows}</table>"


def _divs() -> str:  # each part a block whose text is its label and value
    return "".join(f"<div class='note-card'><div class='meta'><div>Author: {a}</div><div>Date: {d}</div></div>"
                   f"<div>Note: {escape(c)}</div></div>" for a, d, c in NOTES)  # fmt: skip


def _dl() -> str:  # a description list per record
    return "".join(f"<dl class='note-card'><dt>Author</dt><dd>{a}</dd><dt>Date</dt><dd>{d}</dd>"
                   f"<dt>Note</dt><dd>{escape(c)}</dd></dl>" for a, d, c in NOTES)  # fmt: skip


def _spans() -> str:  # a label element before each value, several to a line
    return "".join(f"<article class='note-card'><p><span class='label'>Author</span> {a} <span class='label'>Date</span> "
                   f"{d}</p><p><span class='label'>Note:</span> {escape(c)}</p></article>" for a, d, c in NOTES)  # fmt: skip


DESIGNS = {"table": _table, "divs": _divs, "dl": _dl, "spans": _spans}


class Tracker(PageHandler):
    design: ClassVar[str] = "table"

    def do_GET(self) -> None:  # noqa: N802
        if self.path != "/issues/7":
            self.send_error(404)
            return
        self.send_html(f"<title>Issue 7</title><main><h1>Export drops a row</h1><h2>Notes</h2>"
                       f"{DESIGNS[type(self).design]()}</main>")  # fmt: skip


@pytest.fixture
def site():
    Tracker.design = "table"
    with serve(Tracker) as url:
        yield url
    Tracker.design = "table"


OLD_CELL = "  if (!row.cells) return __part(row, label);"
"""The line of ``__cell`` a builder before labelled parts lacked: its tools read no card."""


def _built_before_labelled_parts(cache_dir: Path, name: str) -> None:
    """Make the cache's tool ``name`` one an older builder wrote: its ``__cell`` reads table cells only."""
    cache = ToolCache.load(cache_dir)
    tool = cache.tools[name]
    bodies = {k: "\n".join(line for line in getattr(tool, k).split("\n") if not line.startswith(OLD_CELL))
              for k in ("pre_check", "execute", "post_check")}  # fmt: skip
    assert bodies["execute"] != tool.execute
    cache.add_tool(tool.model_copy(update=bodies))
    cache.save(cache_dir)


@pytest.mark.parametrize(("design", "older"), [("divs", False), ("dl", False), ("spans", False), ("divs", True)])
async def test_a_list_whose_rows_became_labelled_parts_is_healed_to_read_the_same_items(site, browser_pool, tmp_path: Path,
                                                                                         design: str, older: bool) -> None:  # fmt: skip
    """Built on the table, redesigned to cards of labelled parts, healed with no run in between (the build's good
    call is the evidence): the healed tool reads the same items. ``older``: the tool was built by a builder whose
    helpers read table cells only; heal gives it the current ones."""
    cache, _report = await record_and_build(browser_pool, site, {"read": [{"action": "scroll", "value": 100}]}, tmp_path,
                                            start="/issues/7")  # fmt: skip
    cache_dir = tmp_path / "cache"
    lists = [n for n, t in cache.tools.items() if not t.is_write and not t.navigates and t.output_schema.get("properties", {}).get("items")]
    assert len(lists) == 1, sorted(cache.tools)
    name = lists[0]
    assert "__cell(" in cache.tools[name].execute and "table" in cache.tools[name].execute  # read under column heads
    if older:
        _built_before_labelled_parts(cache_dir, name)
    tool = ToolCache.load(cache_dir).tools[name]
    good = SuspectStore(cache_dir).good(name)
    assert good is not None and [i["author"] for i in good["output"]["items"]] == ["bob", "carol", "dave"], good
    goto = next(n for n, t in cache.tools.items() if t.navigates and "id" in t.parameters)
    plan = f'await {goto}(id="7")\nresult = await {name}()'
    before = jsonable((await Runtime(ToolCache.load(cache_dir), site, pool=browser_pool).run(plan)).value)
    assert before == good["output"]

    Tracker.design = design
    healed = await heal_cache(cache_dir, site, pool=browser_pool)
    assert name in healed.healed, (healed.healed, healed.failed, healed.probed)
    assert (HELPERS_CHANGE in healed.changes[name]) == older, healed.changes
    after = ToolCache.load(cache_dir)
    assert after.tools[name].version == tool.version + 1
    assert jsonable((await Runtime(after, site, pool=browser_pool).run(plan)).value) == before
