"""Text a list tool reads from the page is the text the page shows: a cell's words for screen
readers only (Wagtail's status cell: a visually hidden "Current page status:" before "live") are
left out when the cell shows other text, and kept when they are all it has (an icon link's label);
in the page's own letters, not a stylesheet's upper case (Wagtail draws the status "LIVE")."""

from __future__ import annotations

from typing import Any

import pytest

from toolcache.extract import extract_snapshot

pytestmark = pytest.mark.browser

STYLE = """<style>
.w-sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
             clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
.visually-hidden { position: absolute !important; clip-path: inset(50%); overflow: hidden; white-space: nowrap; }
.status { text-transform: uppercase; }
</style>"""

LISTING = STYLE + """<body><h1>Pages</h1><table class="listing"><thead>
<tr><th>Title</th><th>Status</th><th>Edit</th></tr></thead><tbody>
<tr><td><a href="/admin/pages/3/edit/">Owls Guide</a></td>
<td><span class="status"><span class="w-sr-only">Current page status:</span> live</span></td>
<td><a href="/admin/pages/3/edit/"><svg width="10" height="10"></svg><span class="w-sr-only">Edit</span></a></td></tr>
<tr><td><a href="/admin/pages/4/edit/">Bees Notes</a></td>
<td><span class="status"><span class="visually-hidden">Current page status:</span> draft</span></td>
<td><a href="/admin/pages/4/edit/"><svg width="10" height="10"></svg><span class="visually-hidden">Edit</span></a></td></tr>
</tbody></table>
<ul class="results">
<li class="result"><h3 class="name">Kites History</h3><p class="state"><span class="w-sr-only">Status:</span> scheduled</p></li>
<li class="result"><h3 class="name">Maps Guide</h3><p class="state"><span class="w-sr-only">Status:</span> live</p></li>
</ul></body>"""


def _list(elements: dict[str, Any], sample: str) -> Any:
    return next(e for e in elements.values() if e.repeated and sample in e.samples)


async def test_list_outputs_leave_out_text_for_screen_readers_only(page: Any) -> None:
    from toolcache.codegen.base import PRELUDE, _item_expr

    ps = extract_snapshot(LISTING, "http://x.test/admin/pages/")
    await page.set_content(LISTING)

    def read(sel: str, expr: str) -> str:
        return "() => {" + PRELUDE + f"return [...document.querySelectorAll({sel!r})].map((c) => {expr}); }}"

    rows = _list(ps.elements, "Owls Guide")
    items = await page.evaluate(read(rows.selector, _item_expr(rows.props, "c")))
    assert [(i["title"], i["status"], i["edit"]) for i in items] == [("Owls Guide", "live", "Edit"), ("Bees Notes", "draft", "Edit")]
    assert [i["cells"] for i in items] == [{"Title": "Owls Guide", "Status": "live", "Edit": "Edit"},
                                           {"Title": "Bees Notes", "Status": "draft", "Edit": "Edit"}]  # fmt: skip
    cards = _list(ps.elements, "Kites History")
    got = await page.evaluate(read(cards.selector, _item_expr(cards.props, "c")))
    assert got == [{"name": "Kites History", "text": "Kites History scheduled"}, {"name": "Maps Guide", "text": "Maps Guide live"}]
