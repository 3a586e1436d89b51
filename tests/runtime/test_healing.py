"""Telling a broken tool from a plan error, and the pieces healing is made of (no browser)."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from agentjit.bench.redesign import Redesign, RedesignProxy
from agentjit.cache import SuspectStore, ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.exceptions import CacheError
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime.healing import (
    RequestWatch,
    classify,
    document_selectors,
    selector_literals,
    write_not_sent,
)
from agentjit.runtime.invoke import CallOutcome
from toolcache.heal import rekey_plans, replace_literal, without_page_tokens
from toolcache.heal_checks import similarity

from ..toolcache.pages import PageHandler, serve


def tool(name: str = "t", effect: Effect = Effect.READ, execute: str = "return {};") -> ToolManifest:
    return ToolManifest(name=name, description="d", type=ToolType.OBSERVE, execute=execute, effect=effect)


def failed(phase: str, reason: str = "x", **kw: object) -> CallOutcome:
    return CallOutcome(tool="t", ok=False, phase=phase, reason=reason, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("phase", "reason", "args", "verdict"),
    [
        ("precondition", "needs page=store", {}, "plan_error"),
        ("pre_check", "store header missing", {}, "suspect"),
        ("execute", "threw: Cannot read properties of null (reading 'dataset')", {}, "suspect"),
        ("execute", 'threw: no menu item matches "Lasagna"', {"item_name": "Lasagna"}, "plan_error"),
        ("post_check", "check returned false", {}, "suspect"),
        ("output", "output does not match output_schema", {}, "suspect"),
        ("navigation", "no navigation within 3000 ms", {}, "suspect"),
        ("navigation", "the site answered HTTP 500 to the write (http://x/)", {}, "site"),
        ("effect_log", "uncertain", {}, "site"),
        ("timeout", "", {}, "site"),
    ],
)
def test_classify(phase: str, reason: str, args: dict, verdict: str) -> None:
    assert classify(tool(), failed(phase, reason), args) == verdict


def test_a_replayed_outcome_is_never_suspect_nor_unsent() -> None:
    outcome = failed("pre_check", replayed=True)
    assert classify(tool(effect=Effect.WRITE), outcome, {}) == "site"
    assert not write_not_sent(outcome, None)


def test_write_not_sent() -> None:
    class Page:  # no event API: the watch fails closed
        pass

    assert write_not_sent(failed("pre_check"), None)
    assert not write_not_sent(failed("execute"), None)
    assert not write_not_sent(failed("execute"), RequestWatch(Page()))
    watch = RequestWatch(Page())
    watch.watching = True
    assert write_not_sent(failed("execute"), watch)
    watch.requests.append("POST http://x/api/cart")
    assert not write_not_sent(failed("execute"), watch)
    assert not write_not_sent(failed("post_check"), watch)


def test_selector_literals_and_replacement() -> None:
    src = "const h = document.querySelector('[data-testid=store-header]');\nreturn h ? true : [false, \"header missing\"];"
    assert selector_literals(src) == ["[data-testid=store-header]", "header missing"]
    assert document_selectors(src + " el.querySelector('.inner');") == ["[data-testid=store-header]"]
    out = replace_literal(src, "[data-testid=store-header]", '[data-testid="rd-1</script>"]')
    assert "store-header" not in out and '"[data-testid=\\"rd-1\\u003c/script>\\"]"' in out  # through the encoder
    assert replace_literal(src, "absent", "x") == src


def test_similarity_to_a_fallbacks_answer() -> None:
    """How much of the fallback's (or a good call's) answer a healed READ gives: fields by value, numbers to 1e-6,
    list items by their best match in any order."""
    assert similarity({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 2]}) == 1.0
    assert similarity({"a": 1, "b": "y"}, {"a": 1.0000001, "b": "x"}) == 0.5
    assert similarity({"a": 1}, {}) == 0.0
    assert similarity({"items": [{"n": 1}, {"n": 2}]}, {"items": [{"n": 2}, {"n": 1}]}) == 1.0


def test_rekey_plans_keeps_what_no_changed_tool_touches() -> None:
    cache = ToolCache(CacheInfo(app="x"), [tool("a"), tool("b")])
    old = cache.fingerprint()
    cache.plans = {f"{old}:m:one": {"source": "result = await a()"}, f"{old}:m:two": {"source": "x = await b()\nresult = x"},
                   f"{old}:bad": {"source": "result = ("}, "other:m:three": {"source": "result = await b()"}}  # fmt: skip
    cache.add_tool(tool("b", execute="return {x: 1};"))
    new = cache.fingerprint()
    assert rekey_plans(cache, old, {"b"}) == (1, 2)
    assert set(cache.plans) == {f"{new}:m:one", "other:m:three"}


def test_suspect_store_is_versioned_and_checked(tmp_path) -> None:
    store = SuspectStore(tmp_path)
    assert store.suspects() == {}
    assert store.add("t", {"phase": "pre_check"}) == 1
    assert store.add("t", {"phase": "execute"}) == 2
    assert store.annotate("t", {"fallback_output": {"x": 1}}) == 3
    assert store.suspects()["t"] == {"phase": "execute", "times": 2, "fallback_output": {"x": 1}}
    digest, path = store.save_snapshot("<html>x</html>")
    assert path.read_text() == "<html>x</html>" and len(digest) == 64
    assert store.clear(["t"]) == 4 and store.suspects() == {}
    store.file.write_text(json.dumps({"format": "agentjit-suspects", "format_version": 9, "revision": 0, "suspects": {}}))
    with pytest.raises(CacheError, match="format_version 9"):
        store.suspects()


def test_redesign_renames_consistently_and_wraps_by_seed() -> None:
    page = ('<div class="store-header big" data-testid="store-header"><button id="add-btn">Add</button></div>'
            "<script>document.querySelector('[data-testid=store-header]');getElementById('add-btn');"
            "fetch('/store/store-header');</script>")  # fmt: skip
    a, b = Redesign(3, wrap=1.0, labels={"Add": "Add to bag"}), Redesign(3)
    out = a.rewrite(page, html=True)
    new = a.new_name("store-header")
    assert new != "store-header" and new == b.new_name("store-header")
    assert f'class="{new} big"' in out and f'data-testid="{new}"' in out and f"[data-testid={new}]" in out
    assert "/store/store-header" in out  # a URL path is not a name
    assert f"getElementById('{a.new_name('add-btn')}')" in out
    assert '<span class="rd-wrap"><button' in out and ">Add to bag<" in out
    only = Redesign(3, only={"add-btn"}).rewrite(page, html=True)
    assert "store-header" in only and "add-btn" not in only


def test_the_proxy_keeps_forms_on_itself() -> None:
    """An app that writes its own address into its pages (Roundup's form actions, ``<base href>``): through the
    proxy they name the proxy, so a form's post goes through it with a Referer the app accepts as its own."""
    seen: dict[str, str] = {}

    class App(PageHandler):
        def do_GET(self) -> None:
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            self.send_html(f'<base href="{base}/"><form class="login-form" action="{base}/" method="post"></form>')

        def do_POST(self) -> None:
            seen.update(referer=self.headers["Referer"], body=self.rfile.read(int(self.headers["Content-Length"])).decode())
            self.send_response(204)
            self.end_headers()

    with serve(App) as base, RedesignProxy(base + "/", seed=3) as proxy:
        page = urllib.request.urlopen(proxy.url + "/").read().decode()
        new = proxy.redesign.new_name("login-form")
        assert page == f'<base href="{proxy.url}/"><form class="{new}" action="{proxy.url}/" method="post"></form>'
        came_from = urllib.parse.quote(proxy.url + "/issue", safe="")  # a page address the form sends back
        post = urllib.request.Request(proxy.url + "/", data=f"form={new}&__came_from={came_from}".encode(),
                                      headers={"Referer": proxy.url + "/"})  # fmt: skip
        urllib.request.urlopen(post).read()
        assert seen == {"referer": base + "/",  # the app's own address and names
                        "body": "form=login-form&__came_from=" + urllib.parse.quote(base + "/issue", safe="")}


def test_page_tokens_are_not_the_tools_request() -> None:
    """A hidden input of the good page (a CSRF token) is the page's: a page that no longer has it does not make the
    tool's request another; a field the page still has, one that carried an argument and a JSON body stay."""
    login = {"method": "POST", "url": "http://x.test/", "post_data": "__login_name=alice&__login_password=%3Credacted%3E"
             "&%40action=login&%40csrf=f00d&__came_from=http%3A%2F%2Fx.test%2F&%40csrf=beef"}  # fmt: skip
    api = {"method": "POST", "url": "http://x.test/api", "post_data": json.dumps({"@csrf": "f00d", "name": "alice"})}
    hidden = {"@csrf", "@action", "__came_from", "owner"}
    here = {"__login_name", "__login_password", "@action"}
    out, dropped = without_page_tokens([login, api], hidden, here, {"login_name": "alice"})
    assert dropped == ["@csrf", "__came_from"]
    assert out[0]["post_data"] == "__login_name=alice&__login_password=%3Credacted%3E&%40action=login"
    assert out[0]["method"] == "POST" and login["post_data"].endswith("beef")  # a copy; the record is unchanged
    assert out[1] is api  # a script's JSON body: nothing of it is a form's hidden input
    edit = {"method": "POST", "url": "http://x.test/issue1", "post_data": "owner=alice&%40csrf=f00d"}
    [kept], dropped = without_page_tokens([edit], hidden, here, {"owner": "alice"})
    assert kept["post_data"] == "owner=alice" and dropped == ["@csrf"]  # a hidden input set to an argument stays
    assert without_page_tokens([edit], hidden, hidden, {}) == ([edit], [])  # the page still supplies them all


def test_the_store_reads_page_files_only_of_its_own_folder_wherever_the_cache_moved(tmp_path) -> None:
    """A good call's page file is named by its path in ``suspects.json``. In a cache copied or moved since, the file
    of that name in the store's own folder is read (heal keeps its evidence); a path anywhere else is none of the
    store's (a cache file is no way to read another file)."""
    import shutil

    store = SuspectStore(tmp_path / "a")
    store.save_good("list_books", 1, "http://x.test/books", "<table></table>", output={"items": []})
    named = store.good("list_books")["dom_path"]  # type: ignore[index]
    assert store.own_file(named) == (tmp_path / "a" / "suspects" / "good-list_books.html").resolve()
    moved = SuspectStore(Path(shutil.move(tmp_path / "a", tmp_path / "b")))
    assert moved.good("list_books")["dom_path"] == named  # type: ignore[index]  # the old folder's path
    assert moved.own_file(named) == (tmp_path / "b" / "suspects" / "good-list_books.html").resolve()
    (tmp_path / "secret.txt").write_text("x")
    for hostile in (str(tmp_path / "secret.txt"), "../../secret.txt", "/etc/passwd", "", None, 3, "suspects/../../x"):
        assert moved.own_file(hostile) is None, hostile
