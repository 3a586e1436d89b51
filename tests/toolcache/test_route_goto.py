"""An item page a demonstration opened by its URL (a note that does not exist yet, to create it)
becomes ``goto_<page>_by_<param>(value)``: the page's route with the value as one encoded path
segment, on the origin of the page the tool runs on.

A notebook of our own on 127.0.0.1 (``/note/<Name>``, a page for any name, "Create this note"
for a new one) is recorded once, built with verification, and the tool is then called with names
no demonstration used, a ``/`` and a ``..`` among them.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool
from agentjit.runtime.invoke import call_tool
from toolcache.build import BuildReport, build_cache
from toolcache.codegen.route_goto import route_template
from toolcache.record import record_script
from toolcache.script import load_script

from .pages import PageHandler, serve

NOTES = {"Shopping": "Milk, bread.", "Garden": "Water the ferns."}


def test_a_route_template_keeps_the_constant_segments_and_names_the_variable_one() -> None:
    assert route_template("http://x.test/wiki/Glossary") == ("/wiki/", "name", "")
    assert route_template("http://x.test/item/42/edit/") == ("/item/", "id", "/edit/")
    assert route_template("http://x.test/wiki/Glossary?action=edit") is None  # a query selects a view
    assert route_template("http://x.test/wiki") is None  # no item in it
    assert route_template("http://x.test/Ann/Notes/Todo") is None  # two variable segments: which one?


def _note(name: str) -> str:
    e = html.escape(name)
    if name in NOTES:
        return f"<html><head><title>{e}</title></head><body><h1>{e}</h1><p>{html.escape(NOTES[name])}</p></body></html>"
    return (f"<html><head><title>{e}</title></head><body><h1>{e}</h1><p>This note does not exist yet.</p>"
            '<form method="get"><input type="hidden" name="action" value="edit"><input type="submit" value="Create this note"></form></body></html>')


class _Handler(PageHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        url = urlparse(self.path)
        segs = url.path.split("/")
        if len(segs) == 3 and segs[1] == "note" and segs[2]:
            body = _note(unquote(segs[2]))
        else:
            links = "".join(f'<li><a href="/note/{n}">{n}</a></li>' for n in NOTES)
            body = f"<html><head><title>Notebook</title></head><body><h1>Notebook</h1><ul>{links}</ul></body></html>"
        self.send_html(body)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(_Handler) as url:
        yield url


@pytest.fixture(scope="module")
async def built(site: str, browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> tuple[ToolCache, BuildReport]:
    root = tmp_path_factory.mktemp("route")
    path = root / "new_note.json"
    path.write_text(json.dumps({"name": "new_note", "reset": False, "steps": [{"action": "goto", "url": "/note/Groceries"}]}))
    traces: list[Path] = [await record_script(browser_pool, load_script(path), site, root / "new_note.jsonl")]
    return await build_cache(traces, root / "cache", base_url=site, pool=browser_pool)


@pytest.mark.browser
async def test_a_page_opened_by_its_url_gets_a_verified_goto_by_its_name(built: tuple[ToolCache, BuildReport], site: str, page: Any) -> None:
    cache, report = built
    assert "goto_note_by_name" in cache.tools, sorted(cache.tools)
    assert "goto_note_by_name" in report.verified, (report.verified, report.rejected)
    tool = cache.tools["goto_note_by_name"]
    assert not tool.is_write and tool.input_schema["required"] == ["name"]
    assert "Groceries" not in tool.execute  # the demonstrated name is the witness, not the code
    await page.goto(site + "/")
    out = await call_tool(page, tool, {"name": "Tea & Cake/Recipes"})
    assert out.ok, out.reason
    assert urlparse(page.url).path == "/note/Tea%20%26%20Cake%2FRecipes"  # one path segment, encoded
    assert await page.text_content("h1") == "Tea & Cake/Recipes"
    out = await call_tool(page, tool, {"name": "Garden"})
    assert out.ok and await page.text_content("p") == "Water the ferns."
    out = await call_tool(page, tool, {"name": ".."})
    assert not out.ok and urlparse(page.url).path == "/note/Garden"  # no way up the path
