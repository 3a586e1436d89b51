"""Issue 21, a healed READ is held to each of its good calls, not the first alone: the suspect store keeps a few
distinct good calls per tool (another page, other arguments; :data:`agentjit.cache.suspects.MAX_GOOD_CALLS`),
and a list healed onto names that read the right table on its first call's page and another table on the next
page is refused for the names that read the list on both (a Django admin's change lists, redesigned)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.cache.suspects import GOOD_OUTPUT_MAX_CHARS, MAX_GOOD_CALLS
from agentjit.protocol.manifest import ToolManifest, ToolType
from agentjit.runtime import Runtime
from toolcache import heal as heal_module
from toolcache.heal import heal_cache

from .pages import PageHandler, serve

TIMEOUT_MS = 10_000
"""A call's check and navigation limit: no call here is expected to fail, and the machine may be busy."""
ROWS = {"/books": [("Dune", "12"), ("Emma", "7")], "/loans": [("#31", "overdue"), ("#32", "returned"), ("#33", "out")]}
OTHER = {"/books": [("Added Dune", "today"), ("Changed Emma", "today"), ("Added Kim", "monday")], "/loans": [("Changed #31", "monday"), ("Added #33", "sunday")]}


class AdminSite(PageHandler):
    """``/books`` and ``/loans``: each a change list (``table#result_list``) beside a table of recent actions.
    Design 2 renames the ids: the change list's table is ``#rd-a`` on the books page but ``#rd-b`` on the loans
    page, where ``#rd-a`` is the recent actions' (the name the good page shows first reads another table on the
    next page); the change list's body is ``#rd-list`` on both."""

    design = 1

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path not in ROWS:
            self.send_html("<body><a href='/books'>Books</a></body>")
            return
        rows = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in ROWS[path])
        other = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in OTHER[path])
        head = "<thead><tr><th>Name</th><th>Value</th></tr></thead>"
        if self.design == 1:
            tables = f'<table id="result_list">{head}<tbody>{rows}</tbody></table><table id="recent">{head}{other}</table>'
        else:  # the list's body keeps a name of its own; the tables swap theirs between the pages
            lst = f'{head}<tbody id="rd-list">{rows}</tbody>'
            rec = f"{head}<tbody>{other}</tbody>"
            first, second = (lst, rec) if path == "/books" else (rec, lst)
            tables = f'<table id="rd-a">{first}</table><table id="rd-b">{second}</table>'
        self.send_html(f"<body><h1>{path[1:]}</h1>{tables}</body>")


SEL = "#result_list tr:has(> td)"
LIST = ToolManifest(
    name="list_rows", description="The rows of the change list.", type=ToolType.LIST_ITEMS,
    output_schema={"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}}}},
    pre_check=f"return document.querySelector({SEL!r}) ? true : [false, 'no rows'];",
    execute=f"return {{items: [...document.querySelectorAll({SEL!r})].map((r) => "
            "({name: r.cells[0].textContent, value: r.cells[1].textContent}))};",
)  # fmt: skip
PLAN = 'rows = await list_rows()\nresult = [r["name"] for r in rows["items"]]'


@pytest.fixture
def admin(tmp_path):
    cache_dir = tmp_path / "cache"
    ToolCache(CacheInfo(app="admin"), [LIST]).save(cache_dir)
    AdminSite.design = 1
    with serve(AdminSite) as url:
        yield cache_dir, url


async def run(cache_dir: Path, url: str, pool, start: str):
    cache = ToolCache.load(cache_dir)
    cache.info.start_path = start
    return await Runtime(cache, url, pool=pool, record_suspects=True, tool_timeout_ms=TIMEOUT_MS).run(PLAN)


def names(path: str) -> list[str]:
    return [a for a, _b in ROWS[path]]


@pytest.mark.browser
async def test_a_list_is_held_to_its_good_call_on_every_page(admin, browser_pool, monkeypatch) -> None:
    cache_dir, url = admin
    assert (await run(cache_dir, url, browser_pool, "/books")).value == names("/books")
    assert (await run(cache_dir, url, browser_pool, "/books")).value == names("/books")  # the same call: kept once
    assert (await run(cache_dir, url, browser_pool, "/loans")).value == names("/loans")
    calls = SuspectStore(cache_dir).good_calls("list_rows")
    assert [urlsplit(c["url"]).path for c in calls] == ["/books", "/loans"]
    assert [r["name"] for r in calls[1]["output"]["items"]] == names("/loans")
    AdminSite.design = 2
    SuspectStore(cache_dir).add("list_rows", {"tool": "list_rows", "phase": "pre_check", "url": url + "/books", "args": {}})
    saved = cache_dir.with_name("saved")
    shutil.copytree(cache_dir, saved)

    # held to its first good call alone, heal takes the class the books page shows for the list
    monkeypatch.setattr(heal_module, "_other_calls", lambda store, tool: [])
    report = await heal_cache(cache_dir, url, pool=browser_pool)
    assert report.healed == ["list_rows"] and report.changes["list_rows"] == {SEL: "#rd-a tr:has(> td)"}, report.failed
    assert (await run(cache_dir, url, browser_pool, "/loans")).value != names("/loans")  # the recent actions' rows

    # held to both, it takes the names that read the list on both pages
    shutil.rmtree(cache_dir)
    shutil.copytree(saved, cache_dir)  # the tool, its good calls and its suspect as they were
    monkeypatch.undo()
    report = await heal_cache(cache_dir, url, pool=browser_pool)
    assert report.healed == ["list_rows"], report.failed
    assert report.changes["list_rows"] == {SEL: "#rd-list tr:has(> td)"}
    assert (await run(cache_dir, url, browser_pool, "/loans")).value == names("/loans")
    assert (await run(cache_dir, url, browser_pool, "/books")).value == names("/books")


def test_the_store_keeps_a_few_distinct_good_calls_within_the_output_limit(tmp_path) -> None:
    store = SuspectStore(tmp_path)
    out = {"items": [{"name": "a"}]}
    assert not store.add_good_call("t", 1, "http://x/a", args={}, output=out)  # no first good call on record
    store.save_good("t", 1, "http://x/a", "<body></body>", args={}, output=out)
    assert not store.add_good_call("t", 1, "http://y/a/", args={}, output=out)  # the same page on another host
    assert not store.add_good_call("t", 2, "http://x/b", args={}, output=out)  # another version's
    assert store.add_good_call("t", 1, "http://x/a", args={"q": "b"}, output=out)  # other arguments
    big = {"items": ["x" * GOOD_OUTPUT_MAX_CHARS]}
    assert not store.add_good_call("t", 1, "http://x/c", args={}, output=big)  # over the limit with the others
    for i in range(MAX_GOOD_CALLS):
        store.add_good_call("t", 1, f"http://x/p{i}", args={}, output=out)
    calls = store.good_calls("t")
    assert len(calls) == MAX_GOOD_CALLS and len(json.dumps([c.get("output") for c in calls])) <= GOOD_OUTPUT_MAX_CHARS
    store.save_good("t", 2, "http://x/a", "<body></body>", args={}, output=out)  # a new version starts over
    assert len(store.good_calls("t")) == 1
