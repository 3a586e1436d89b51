"""A WRITE whose request lost a value the call gave (issue 21): the redesign left every name in place, but the field
the tool fills now sits under an editor that writes its own text into it on submit, so the note is sent empty.

Detection: the request leaves without the note, so it is held back before it reaches the site (phase ``request``);
the tool is suspect, known not sent, so a fallback may finish the call and a heal in the run may rebuild the tool and
send it once. Healing: a tool built before the builder filled a textarea under a
SimpleMDE editor (the markdown editor Roundup's jinja2 template puts over its note) gets the builder's current
helpers, verified behind the guard against its recorded request; an editor no helper knows is reported, not healed.

A notes site of our own on 127.0.0.1, recorded and built by the real builder; the redesigns are the same site
served with an editor over its note field; SimpleMDE is the copy Roundup ships (``agentjit[dev]``)."""

from __future__ import annotations

import html
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.cache import SuspectStore, ToolCache
from agentjit.runtime import BrowserPool, Runtime
from agentjit.runtime.healing import FallbackAnswer
from toolcache.heal import heal_cache
from toolcache.heal_fill import HELPERS_CHANGE, own_code, with_current_helpers

from .pages import PageHandler, as_built_before, record_and_build, serve

pytestmark = pytest.mark.browser

SIMPLEMDE = Path(sys.prefix) / "share" / "roundup" / "templates" / "jinja2" / "static"
"""SimpleMDE (over CodeMirror 5) as Roundup's jinja2 template ships it."""

# the redesigns: the textarea hidden under an editor that writes its own text into it when the form is sent
EDITORS = {
    "plain": "",
    # a page's own editor: a toolbar, then a contenteditable box; no fill helper knows it
    "own": """<script>
const t = document.querySelector('textarea[name=body]');
const bar = document.createElement('div'); bar.className = 'toolbar'; bar.textContent = 'B I';
const box = document.createElement('div'); box.className = 'box'; box.contentEditable = 'true';
t.style.display = 'none'; t.after(bar); bar.after(box);
t.form.addEventListener('submit', () => { t.value = box.innerText; });
</script>""",
    "simplemde": """<link rel="stylesheet" href="/static/simplemde.min.css"><script src="/static/simplemde.min.js"></script>
<script>new SimpleMDE({element: document.querySelector('textarea[name=body]'), status: false}).render();</script>""",
}


class Notes:
    """The site's data, shared by every design of it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.notes: list[dict[str, str]] = []
        self.posts = 0


def _page(title: str, body: str) -> str:
    return f"<html><head><title>{html.escape(title)}</title></head><body>{body}</body></html>"


def _handler(notes: Notes, design: str) -> type[PageHandler]:
    class Handler(PageHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            if self.path.startswith("/static/"):
                data = (SIMPLEMDE / self.path.removeprefix("/static/")).read_bytes()
                self.send_response(200)
                kind = "text/css" if self.path.endswith(".css") else "text/javascript"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            m = re.fullmatch(r"/notes/(\d+)", self.path)
            if self.path == "/new":
                self.send_html(_page("New note", '<h1>New note</h1><form method="post" action="/notes">'
                                   '<p><label for="title">Title</label> <input id="title" name="title"></p>'
                                   '<p><label for="body">Note</label> <textarea id="body" name="body"></textarea></p>'
                                   f'<p><button type="submit" id="save">Save</button></p></form>{EDITORS[design]}'))  # fmt: skip
            elif m and 0 < int(m.group(1)) <= len(notes.notes):
                note = notes.notes[int(m.group(1)) - 1]
                self.send_html(_page(note["title"], f'<h1>{html.escape(note["title"])}</h1>'
                                     f'<p class="body">{html.escape(note["body"])}</p><a href="/">Home</a>'))  # fmt: skip
            elif m or self.path.startswith("/notes"):
                data = _page("Not found", "<h1>No such note</h1>").encode()
                self.send_response(404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            else:
                self.send_html(_page("Notes", '<h1>Notes</h1><a href="/new">New note</a>'))

        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"] or 0)).decode(), keep_blank_values=True)
            with notes.lock:
                notes.posts += 1
                notes.notes.append({"title": form.get("title", [""])[0], "body": form.get("body", [""])[0]})
                where = f"/notes/{len(notes.notes)}"
            self.send_response(303)
            self.send_header("Location", where)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@pytest.fixture(scope="module")
def notes() -> Notes:
    return Notes()


@pytest.fixture(scope="module")
def sites(notes: Notes) -> Iterator[dict[str, str]]:
    if not (SIMPLEMDE / "simplemde.min.js").is_file():
        pytest.skip("Roundup's SimpleMDE is not installed (pip install 'agentjit[dev]')")
    with serve(_handler(notes, "plain")) as plain, serve(_handler(notes, "own")) as own, \
            serve(_handler(notes, "simplemde")) as mde, serve(_handler(Notes(), "simplemde")) as empty:  # fmt: skip
        # empty: the redesign with none of the notes (a site reset since): the page a recorded answer leads to is gone
        yield {"plain": plain, "own": own, "simplemde": mde, "empty": empty}


SCRIPT = {"new_note": [
    {"action": "click", "target": {"role": "link", "name": "New note"}},
    {"action": "fill", "target": {"selector": "#title"}, "value": "Shopping"},
    {"action": "fill", "target": {"selector": "#body"}, "value": "Milk and bread."},
    {"action": "click", "target": {"role": "button", "name": "Save"}},
]}


@pytest.fixture(scope="module")
async def built(sites: dict[str, str], notes: Notes, browser_pool: BrowserPool,
                tmp_path_factory: pytest.TempPathFactory) -> Path:  # fmt: skip
    root = tmp_path_factory.mktemp("notes")
    cache, report = await record_and_build(browser_pool, sites["plain"], SCRIPT, root, start="/")
    _goto, write = _tools(cache)
    assert write in report.verified and report.writes[write] == "recorded", report
    return root / "cache"


def _tools(cache: ToolCache) -> tuple[str, str]:
    """The names of the tool that opens the form and of the WRITE that sends it."""
    [write] = [t for t in cache.tools.values() if t.is_write]
    [goto] = [t for t in cache.tools.values() if not t.is_write and t.post.get("page") == write.pre.get("page")]
    return goto.name, write.name


def _plan(cache: ToolCache, title: str, body: str) -> str:
    goto, write = _tools(cache)
    return f"await {goto}()\nawait {write}(title={title!r}, body={body!r})\nresult = 'saved'\n"


OLD_FILL = ("  const cm = el.closest('.CodeMirror') || (el.nextElementSibling && el.nextElementSibling.classList.contains("
            "'CodeMirror') ? el.nextElementSibling : null);\n  if (cm && cm.CodeMirror && typeof cm.CodeMirror.setValue === "
            "'function') { cm.CodeMirror.setValue(String(value)); return; }\n")  # fmt: skip
NEW_FILL = "  const cm = __codeMirrorOf(el);\n  if (cm) { cm.setValue(String(value)); return; }\n"



async def _fresh_copy(built: Path, tmp_path: Path, browser_pool: BrowserPool, site: str, notes: Notes) -> Path:
    """A copy of the built cache with the WRITE's good call on record (run once on the site as it was)."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(built, cache_dir)
    (cache_dir / "suspects.json").unlink(missing_ok=True)
    cache = ToolCache.load(cache_dir)
    done = await Runtime(cache, site, pool=browser_pool, record_suspects=True).run(_plan(cache, "Chores", "Water the ferns."))
    assert done.value == "saved" and notes.notes[-1] == {"title": "Chores", "body": "Water the ferns."}
    _goto, write = _tools(cache)
    assert SuspectStore(cache_dir).good(write)["writes"]  # the request it sent, kept with its answer
    return cache_dir


async def test_a_write_whose_request_lost_the_note_is_held_back_then_falls_back_once(
        built: Path, tmp_path: Path, browser_pool: BrowserPool, sites: dict[str, str], notes: Notes) -> None:  # fmt: skip
    cache_dir = await _fresh_copy(built, tmp_path, browser_pool, sites["plain"], notes)
    cache = ToolCache.load(cache_dir)
    _goto, write = _tools(cache)
    # the site as it was: another note, and a note the good call never gave, pass (no false alarm)
    ok = await Runtime(cache, sites["plain"], pool=browser_pool, record_suspects=True).run(_plan(cache, "Gym", "Legs & arms\non Monday."))
    assert ok.value == "saved" and notes.notes[-1] == {"title": "Gym", "body": "Legs & arms\r\non Monday."}
    fell_back: list[str] = []

    async def fallback(page: Any, tool: Any, args: dict[str, Any], suspect: Any) -> FallbackAnswer:
        fell_back.append(tool.name)
        return FallbackAnswer(output={"success": True})

    posts = notes.posts
    runtime = Runtime(cache, sites["own"], pool=browser_pool, record_suspects=True)
    with pytest.raises(Exception, match="held") as failed:
        await runtime.run(_plan(cache, "Garden", "Plant the tulips."))
    # the request would have left without its note: held back, nothing reached the site, and the call says why
    assert notes.posts == posts and "body" in str(failed.value) and "held back" in str(failed.value)
    evidence = SuspectStore(cache_dir).suspects()[write]
    assert evidence["phase"] == "held" and evidence["write_sent"] is False and "body" in evidence["reason"]
    # known not sent, the call may fall back: once
    runtime = Runtime(cache, sites["own"], pool=browser_pool, record_suspects=True, fallback=fallback)
    assert (await runtime.run(_plan(cache, "Garden", "Plant the tulips."))).value == "saved"
    assert fell_back == [write] and notes.posts == posts


async def test_heal_gives_the_tool_the_builders_current_fill_verified_unsent(
        built: Path, tmp_path: Path, browser_pool: BrowserPool, sites: dict[str, str], notes: Notes) -> None:  # fmt: skip
    goto, write = _tools(ToolCache.load(built))
    cache_dir = tmp_path / "cache"
    shutil.copytree(built, cache_dir)
    as_built_before(cache_dir, write, NEW_FILL, OLD_FILL)
    cache = ToolCache.load(cache_dir)
    done = await Runtime(cache, sites["plain"], pool=browser_pool, record_suspects=True).run(_plan(cache, "Chores", "Dust."))
    assert done.value == "saved"
    posts = notes.posts
    with pytest.raises(Exception, match="held"):
        await Runtime(ToolCache.load(cache_dir), sites["simplemde"], pool=browser_pool,
                      record_suspects=True).run(_plan(cache, "Books", "Return them."))  # fmt: skip
    assert notes.posts == posts  # held back: it would have left without the note
    # healed on the redesign without the notes, verified by its request, the one its good call sent
    report = await heal_cache(cache_dir, sites["empty"], pool=browser_pool)
    assert notes.posts == posts  # verified behind the guard: its request answered from the record, never sent
    assert report.healed == [write] and report.changes[write] == {HELPERS_CHANGE: "current"}, report.failed
    healed = ToolCache.load(cache_dir)
    assert healed.tools[write].version == cache.tools[write].version + 1 and NEW_FILL in healed.tools[write].execute
    assert healed.info.revision > cache.info.revision
    again = await Runtime(healed, sites["simplemde"], pool=browser_pool, record_suspects=True).run(_plan(healed, "Books", "Return them."))
    assert again.value == "saved" and notes.notes[-1] == {"title": "Books", "body": "Return them."}


async def test_a_run_heals_it_in_the_run_and_sends_it_once_with_its_note(
        built: Path, tmp_path: Path, browser_pool: BrowserPool, sites: dict[str, str], notes: Notes) -> None:  # fmt: skip
    """No model, no heal between runs: the request held back, the tool healed in the run's own session
    (:class:`~agentjit.runtime.repair.HealInRun`), and the call sent once, with its note."""
    from agentjit.runtime.repair import HealInRun

    goto, write = _tools(ToolCache.load(built))
    cache_dir = tmp_path / "cache"
    shutil.copytree(built, cache_dir)
    as_built_before(cache_dir, write, NEW_FILL, OLD_FILL)
    cache = ToolCache.load(cache_dir)
    assert (await Runtime(cache, sites["plain"], pool=browser_pool, record_suspects=True).run(_plan(cache, "Chores", "Dust."))).value == "saved"
    posts = notes.posts
    repair = HealInRun(cache_dir, sites["simplemde"])
    runtime = Runtime(ToolCache.load(cache_dir), sites["simplemde"], pool=browser_pool, record_suspects=True, repair=repair)
    done = await runtime.run(_plan(cache, "Books", "Return them."))
    assert done.value == "saved" and notes.posts == posts + 1
    assert notes.notes[-1] == {"title": "Books", "body": "Return them."}
    assert [(f["tool"], f["ok"], f["how"]) for f in done.fallbacks] == [(write, True, "heal")]
    assert [(r["tool"], r["healed"]) for r in repair.reports] == [(write, True)]
    assert NEW_FILL in ToolCache.load(cache_dir).tools[write].execute


async def test_an_editor_no_helper_knows_is_reported_not_healed(
        built: Path, tmp_path: Path, browser_pool: BrowserPool, sites: dict[str, str], notes: Notes) -> None:  # fmt: skip
    cache_dir = await _fresh_copy(built, tmp_path, browser_pool, sites["plain"], notes)
    cache = ToolCache.load(cache_dir)
    _goto, write = _tools(cache)
    with pytest.raises(Exception, match="request"):
        await Runtime(cache, sites["own"], pool=browser_pool, record_suspects=True).run(_plan(cache, "Bills", "Pay rent."))
    posts = notes.posts
    report = await heal_cache(cache_dir, sites["own"], pool=browser_pool, probe=False)
    assert notes.posts == posts and report.healed == [] and write in report.failed
    assert "body" in report.failed[write]


def test_every_bundled_tool_tells_its_own_code_from_its_helpers() -> None:
    """Heal can give any tool of the bundled caches the builder's current helpers, its own code unchanged."""
    root = Path(__file__).resolve().parents[2] / "agentjit" / "bench"
    paths = sorted(root.glob("*/cache/tools/*.json")) + sorted(root.glob("*/built_cache/tools/*.json"))
    assert len(paths) > 50
    from agentjit.protocol.manifest import ToolManifest

    for path in paths:
        tool = ToolManifest.model_validate_json(path.read_text())
        fresh = with_current_helpers(tool)
        for key in ("pre_check", "execute", "post_check"):
            body = getattr(tool, key)
            if not body.startswith("const __ROUTES = ["):
                assert fresh is None or getattr(fresh, key) == body  # no helpers (``return true;``): as it is
                continue
            assert own_code(body) is not None, (path, key)
            if fresh is not None:
                assert own_code(getattr(fresh, key)) == own_code(body) and getattr(fresh, key).startswith(body.split("\n")[0])


def test_a_write_is_verified_and_probed_with_its_good_call_most_like_the_failed_one() -> None:
    from toolcache.heal_fill import likest_write_call

    first = {"url": "/issue1", "args": {"status": "testing"}, "writes": [{"method": "POST"}], "dom_path": "/c/good.html"}
    note = {"url": "/issue2", "args": {"note": "Fixed."}, "writes": [{"method": "POST", "post_data": "@note=Fixed."}]}
    calls = [first, note]
    # a call that gave a note is verified by the good call that gave one, on that call's page, with the first's pages
    assert likest_write_call(calls, {"note": "Later.", "status": None}) == {**first, **{k: note[k] for k in ("url", "args", "writes")}}
    assert likest_write_call(calls, {"status": "done"}) is first and likest_write_call(calls, {}) is first  # the first of equals
    assert likest_write_call([{"args": {}, "writes": []}], {"note": "x"}) is None  # none sent a request
