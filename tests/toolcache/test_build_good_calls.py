"""The build keeps each verified READ's first passing call as its good call (issue 21), so a site redesigned before
any run is probed and healed from the build's own calls: `toolcache heal` right after `toolcache build`, no run in
between. A small shelf site of two designs in Chromium; the first design recorded, the second renames every class."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest

from agentjit.cache import SuspectStore, ToolCache
from agentjit.runtime import Runtime
from agentjit.tasks.runner import jsonable
from toolcache.heal import heal_cache

from .pages import PageHandler, record_and_build, serve

pytestmark = pytest.mark.browser

BOOKS = [("1", "River Songs", "2001"), ("2", "Salt Roads", "1998"), ("3", "Tide Tables", "2012")]
NAMES = {"a": {"shelf": "shelf", "book": "book", "year": "year", "page": "book-page"},
         "b": {"shelf": "rack-x9", "book": "vol-q2", "year": "yr-z7", "page": "leaf-k4"}}  # fmt: skip


class Shelf(PageHandler):
    design: ClassVar[str] = "a"

    def do_GET(self) -> None:  # noqa: N802
        n = NAMES[type(self).design]
        if self.path.startswith("/books/"):
            book = next((b for b in BOOKS if self.path == f"/books/{b[0]}"), None)
            if book is None:
                self.send_error(404)
                return
            self.send_html(f"<title>{book[1]}</title><main class='{n['page']}'><h1>{book[1]}</h1>"
                           f"<p class='{n['year']}'>{book[2]}</p><a href='/books'>All books</a></main>")  # fmt: skip
            return
        items = "".join(f"<li class='{n['book']}'><a href='/books/{i}'>{t}</a> <span class='{n['year']}'>{y}</span></li>"
                        for i, t, y in BOOKS)  # fmt: skip
        self.send_html(f"<title>Books</title><main><h1>Books</h1><ul class='{n['shelf']}'>{items}</ul></main>")


SCRIPTS = {"open_book": [{"action": "click", "target": {"role": "link", "name": "Salt Roads", "exact": True}}]}


@pytest.fixture
def site():
    Shelf.design = "a"
    with serve(Shelf) as url:
        yield url
    Shelf.design = "a"


async def test_heal_right_after_a_build_probes_the_builds_good_calls(site, browser_pool, tmp_path: Path) -> None:
    cache, report = await record_and_build(browser_pool, site, SCRIPTS, tmp_path, start="/books")
    cache_dir = tmp_path / "cache"
    lists = [n for n, t in cache.tools.items() if not t.is_write and not t.navigates and t.output_schema.get("properties", {}).get("items")]
    assert lists, sorted(cache.tools)
    name = lists[0]
    store = SuspectStore(cache_dir)
    good = store.good(name)
    assert report.good_calls >= 1 and good is not None and good["dom_path"].endswith(f"good-{name}.html"), report.to_json()
    titles = [i.get("name") or i.get("title") for i in good["output"]["items"]]
    assert "Salt Roads" in json.dumps(good["output"]) and len(titles) == 3
    plan = f"await goto_books()\nresult = await {name}()"
    before = jsonable((await Runtime(ToolCache.load(cache_dir), site, pool=browser_pool).run(plan)).value)

    Shelf.design = "b"  # the redesign, before any run of the cache
    healed = await heal_cache(cache_dir, site, pool=browser_pool)
    assert name in healed.healed, (healed.healed, healed.failed, healed.probed)
    assert any(p["tool"] == name and p["suspect"] for p in healed.probed)
    after = jsonable((await Runtime(ToolCache.load(cache_dir), site, pool=browser_pool).run(plan)).value)
    assert after == before
