"""The recorder and the verifier explain themselves: targets that fit no element (or several) are named
errors with the page's candidates (exit 2), a page's own redirects are waited out, and a site that stops
answering is exit 3 within about the step timeout. A tiny site on 127.0.0.1 plays every part."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agentjit.cli.errors import exit_code
from agentjit.exceptions import SiteUnreachable
from agentjit.protocol.trace import Trace, read_trace
from agentjit.runtime import BrowserPool
from toolcache.cli import main
from toolcache.record import TARGET_WAIT_S, record_script
from toolcache.script import load_script
from toolcache.targets import TargetError

pytestmark = pytest.mark.browser

HOME = """<html><head><title>Home</title></head><body><h1>Home</h1>
<nav><a href="/js">JS redirect</a> <a href="/meta">Meta refresh</a> <a href="/chain">Redirect chain</a>
<a href="/hang">Slow page</a></nav>
<form id="f" action="/landed"><input name="q" aria-label="Query"><button type="submit">Go</button></form>
<section><button id="save-a" aria-label="Save">Save draft</button><button id="save-b" aria-label="Save">Save and close</button>
<button>Add  To   Cart</button><button hidden>Delete</button><button>Delete</button></section>
<footer><a href="/landed?via=help">Help</a> <a href="/landed?via=help">Help</a></footer>
<script>document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault();
  location.href = '/js'; setTimeout(() => { location.href = '/landed?via=form'; }, 0); });</script>
</body></html>"""
PAGES = {
    "/js": "<html><head><script>location.replace('/landed?via=js')</script></head><body>moving</body></html>",
    "/meta": "<html><head><meta http-equiv='refresh' content='0;url=/js'></head><body>moving</body></html>",
}
LANDED = "<html><head><title>Landed</title></head><body><h1>Landed</h1><button>Again</button></body></html>"


@dataclass
class Site:
    url: str
    hang_all: threading.Event = field(default_factory=threading.Event)
    """Set: every path hangs (the site accepts connections and never answers)."""
    release: threading.Event = field(default_factory=threading.Event)


def _handler(site_ref: list[Site]) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            site = site_ref[0]
            path = self.path
            if path.startswith("/hang") or site.hang_all.is_set():
                site.release.wait(120)
                return
            if path in ("/chain", "/chain2"):  # 302 -> 302 -> a meta refresh -> a script's location.replace
                self.send_response(302)
                self.send_header("Location", "/chain2" if path == "/chain" else "/meta")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = (PAGES.get(path) or (LANDED if path.startswith("/landed") else HOME)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def site() -> Iterator[Site]:
    ref: list[Site] = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(ref))
    server.daemon_threads = True
    ref.append(Site(f"http://127.0.0.1:{server.server_address[1]}"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield ref[0]
    finally:
        ref[0].release.set()
        server.shutdown()
        server.server_close()


def _script(tmp_path: Path, name: str, *steps: dict[str, Any]) -> Path:
    path = tmp_path / "scripts" / f"{name}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"name": name, "reset": False, "steps": [{"action": "goto", "url": "/"}, *steps]}))
    return path


def _record(site: Site, tmp_path: Path, *scripts: Path, extra: tuple[str, ...] = ()) -> int:
    """``toolcache record`` of ``scripts`` into ``tmp_path/out``: its exit code."""
    return main(["record", "--site", site.url, *map(str, scripts), "-o", str(tmp_path / "out"), *extra])


async def _api(pool: BrowserPool, site: Site, tmp_path: Path, *steps: dict[str, Any], timeout_s: float = 15.0) -> Trace:
    """Record ``/`` then ``steps`` in the session's browser (no browser start per test); the trace."""
    script = load_script(_script(tmp_path, "api", *steps))
    return read_trace(await record_script(pool, script, site.url, tmp_path / "api.jsonl", step_timeout_s=timeout_s))


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert err, "no error printed"
    return err[-1]


# -- targets ------------------------------------------------------------------------------------


def test_a_target_that_matches_nothing_names_the_step_and_the_closest_elements(site, tmp_path, capsys) -> None:
    script = _script(tmp_path, "s", {"action": "click", "target": {"role": "button", "name": "Sav changes"}})
    assert _record(site, tmp_path, script) == 2
    err = _one_line_error(capsys)
    assert f"{script}: step 1 (click): no element matches" in err
    assert '{"role": "button", "name": "Sav changes"}' in err
    assert 'button "Save" (text "Save draft") at #save-a' in err.split("closest the page has:")[1]  # most alike first
    assert not (tmp_path / "out" / "s.jsonl").exists()  # a script that does not fit leaves no trace


async def test_a_target_that_matches_several_lists_them_and_nth_picks_one(pool, site, tmp_path) -> None:
    with pytest.raises(TargetError) as info:
        await _api(pool, site, tmp_path, {"action": "click", "target": {"role": "button", "name": "Save"}})
    err = str(info.value)
    assert exit_code(info.value) == 2 and info.value.step == 1 and info.value.path.endswith("api.json")
    assert "api.json: step 1 (click)" in err and "matches 2 elements" in err
    assert '[0] button "Save" (text "Save draft") at #save-a' in err and '[1] button "Save" (text "Save and close") at #save-b' in err
    assert '"nth"' in err

    trace = await _api(pool, site, tmp_path, {"action": "click", "target": {"role": "button", "name": "Save", "nth": 1}})
    click = trace.steps[1]
    assert click.ok and click.target is not None and click.target.selector == "#save-b"

    with pytest.raises(TargetError, match=r"nth=2, but 2 elements match"):
        await _api(pool, site, tmp_path, {"action": "click", "target": {"role": "button", "name": "Save", "nth": 2}})


async def test_a_hidden_twin_or_a_link_shown_twice_is_no_ambiguity(pool, site, tmp_path) -> None:
    trace = await _api(pool, site, tmp_path, {"action": "click", "target": {"selector": "section button", "text": "Delete"}},
                       {"action": "click", "target": {"role": "link", "name": "Help"}})
    assert trace.steps[1].ok and trace.steps[1].target is not None and trace.steps[1].target.selector.endswith("nth-of-type(5)")
    assert trace.steps[2].ok and (trace.steps[2].url_after or "").endswith("/landed?via=help")


async def test_a_name_that_differs_in_case_and_spacing_finds_its_one_element_unless_exact(pool, site, tmp_path) -> None:
    trace = await _api(pool, site, tmp_path, {"action": "click", "target": {"role": "button", "name": "add to cart"}})
    click = trace.steps[1]
    assert click.ok and click.target is not None and click.target.text == "Add To Cart"
    t0 = time.monotonic()
    with pytest.raises(TargetError, match=r'"exact": true}.*closest the page has: button "Add To Cart"') as info:
        await _api(pool, site, tmp_path, {"action": "click", "target": {"role": "button", "name": "add to cart", "exact": True}})
    assert "nor ignoring" not in str(info.value)  # exact: no second try, and the message does not claim one
    assert time.monotonic() - t0 < TARGET_WAIT_S + 10  # a short wait for the element, then the answer


async def test_a_selector_that_is_no_css_is_a_target_error(pool, site, tmp_path) -> None:
    with pytest.raises(TargetError, match=r"step 1 \(click\): .*button\[ is not a valid CSS selector") as info:
        await _api(pool, site, tmp_path, {"action": "click", "target": {"selector": "button["}})
    assert exit_code(info.value) == 2


# -- navigation races ------------------------------------------------------------------------------


RACES = [
    {"action": "click", "target": {"role": "link", "name": "JS redirect"}},
    {"action": "click", "target": {"role": "button", "name": "Again"}},
    {"action": "goto", "url": "/meta"},
    {"action": "goto", "url": "/"},
    {"action": "click", "target": {"role": "link", "name": "Redirect chain"}},
    {"action": "goto", "url": "/chain"},
    {"action": "goto", "url": "/"},
    {"action": "fill", "target": {"role": "textbox", "name": "Query"}, "value": "x"},
    {"action": "click", "target": {"role": "button", "name": "Go"}},
]
"""A link to a page that redirects with location.replace; gotos of a meta refresh and of a 302 chain; a
link to that chain; a form whose submit handler navigates twice."""


async def test_navigations_the_page_redirects_or_replaces_are_waited_out(pool, site, tmp_path) -> None:
    steps = (await _api(pool, site, tmp_path, *RACES)).steps
    assert all(s.ok for s in steps), [(s.index, s.reason) for s in steps if not s.ok]
    after = {i: (s.url_after or "").removeprefix(site.url) for i, s in enumerate(steps)}
    assert after[1] == after[3] == after[5] == after[6] == "/landed?via=js"
    assert after[9] == "/landed?via=form" and steps[9].title == "Landed"


def test_a_build_verifying_against_redirecting_pages_never_ends_in_an_internal_error(site, tmp_path, capsys) -> None:
    assert _record(site, tmp_path, _script(tmp_path, "races", *RACES)) == 0
    capsys.readouterr()
    code = main(["build", str(tmp_path / "out"), "-o", str(tmp_path / "cache"), "--site", site.url, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    # the link to the JS redirect, the page's reads, and the form whose handler navigates twice
    assert data["tools"]["verified"] == data["tools"]["synthesized"] >= 3, data["tools"]


# -- a site that stops answering ---------------------------------------------------------------------


@pytest.mark.parametrize("step", [{"action": "click", "target": {"role": "link", "name": "Slow page"}},
                                  {"action": "goto", "url": "/hang"}], ids=["click", "goto"])
async def test_a_step_the_site_never_answers_fails_within_the_step_timeout(pool, site, tmp_path, step) -> None:
    t0 = time.monotonic()
    with pytest.raises(SiteUnreachable, match=rf"step 1 \({step['action']}\).*/hang did not answer within 2 s") as info:
        await _api(pool, site, tmp_path, step, timeout_s=2)
    assert time.monotonic() - t0 < 2 + 2 + 8  # the goto of /, the step timeout, a few seconds (a loaded machine)
    assert exit_code(info.value) == 3
    assert not (tmp_path / "api.jsonl").exists() and not list(tmp_path.glob(".*.part"))


def test_record_against_a_site_that_stops_answering_exits_3_and_keeps_what_it_recorded(site, tmp_path, capsys) -> None:
    first = _script(tmp_path, "first", {"action": "click", "target": {"role": "link", "name": "JS redirect"}})
    hangs = _script(tmp_path, "hangs", {"action": "click", "target": {"role": "link", "name": "Slow page"}})
    assert _record(site, tmp_path, first, hangs, extra=("--step-timeout", "2")) == 3
    err = _one_line_error(capsys)
    assert f"{hangs}: step 1 (click)" in err and "/hang did not answer within 2 s" in err
    assert read_trace(tmp_path / "out" / "first.jsonl").steps[-1].ok  # what was recorded before it stays
    assert not (tmp_path / "out" / "hangs.jsonl").exists()
    assert not list((tmp_path / "out").glob(".*.part"))


def test_a_build_against_a_site_that_hangs_while_verifying_is_exit_3_and_keeps_the_cache(site, tmp_path, capsys) -> None:
    assert _record(site, tmp_path, _script(tmp_path, "races", *RACES[:2])) == 0
    cache = tmp_path / "cache"
    assert main(["build", str(tmp_path / "out"), "-o", str(cache)]) == 0  # unverified: no site
    before = {str(f.relative_to(cache)): f.read_bytes() for f in cache.rglob("*") if f.is_file()}
    capsys.readouterr()
    site.hang_all.set()
    t0 = time.monotonic()
    assert main(["build", str(tmp_path / "out"), "-o", str(cache), "--site", site.url, "--step-timeout", "2"]) == 3
    assert time.monotonic() - t0 < 60  # the step timeout and a build's start-up; it hung for minutes before
    assert "did not answer within 2 s" in _one_line_error(capsys)
    assert {str(f.relative_to(cache)): f.read_bytes() for f in cache.rglob("*") if f.is_file()} == before
    assert not (tmp_path / "cache.prev").exists()
    shutil.rmtree(cache)
