"""The list a live search narrows is the one whose items the demonstrated query named, whichever
snapshot of the page showed them: before the search a page's list may be named otherwise (its rows
link elsewhere) and another, larger table may sit on the page (a closed dialog's shortcuts)."""

from __future__ import annotations

from toolcache.codegen.base import _Site
from toolcache.codegen.filters import _list_on
from toolcache.extract import SiteSchema, extract_snapshot, merge_page

SHORTCUTS = "".join(f"<tr><td>Shortcut {i}</td><td>Ctrl {i}</td></tr>" for i in range(20))


def _search_page(rows: str) -> str:
    return f"""<body><header><form><input name="q" aria-label="Search term"></form></header>
<div class="w-dialog" hidden-until-open><table class="shortcuts"><thead><tr><th>Action</th><th>Keys</th></tr></thead><tbody>{SHORTCUTS}</tbody></table></div>
<table class="listing"><thead><tr><th>Title</th><th>Status</th><td></td></tr></thead><tbody>{rows}</tbody></table></body>"""


BEFORE = _search_page("<tr><td><a href='/admin/pages/'>Root</a></td><td></td><td></td></tr>"
                      + "".join(f"<tr><td><a href='/admin/pages/{i}/'>Topic {i} Guide</a></td><td>live</td><td></td></tr>" for i in range(3, 9)))
AFTER = _search_page("".join(f"<tr><td><a href='/admin/pages/{i}/edit/'>Bees {t}</a></td><td>live</td><td></td></tr>"
                             for i, t in ((31, "Guide"), (32, "Notes"), (33, "History"))))


def test_the_search_narrows_the_list_its_query_named_in_any_snapshot() -> None:
    url = "http://x.test/admin/pages/search/"
    page = extract_snapshot(BEFORE, url)
    merge_page(page, extract_snapshot(AFTER, url + "?q=bees"))
    site = _Site.index(SiteSchema(pages={page.page: page}), {})
    shown = _list_on(site, {page.page}, {"bees"})
    assert shown is not None and shown.selector.startswith("table.listing"), shown and (shown.name, shown.selector)
