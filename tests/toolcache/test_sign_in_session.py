"""A site behind a sign-in, built without signing in: the recorder saves the session a
demonstration ended in beside its trace (0600), the build answers the sign-in from its recording
and verifies the tools behind it with that session, a goto tool opens the sign-in page a
demonstration started on (so a plan can sign in from the start), an expired session is said and
its tools kept unverified, and only ``sign_in=True`` (``toolcache build --sign-in``) sends it live.

A small notes site of our own on 127.0.0.1: ``/login`` (a form, POST sets a session cookie and
redirects to ``/notes``), ``/notes`` and ``/notes/<id>`` (redirect to ``/login`` without a session).
"""

from __future__ import annotations

import http.server
import json
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from agentjit.planner.checker import check
from agentjit.runtime import BrowserPool
from toolcache.build import build_cache
from toolcache.record import record_script, session_path
from toolcache.script import load_script

from .pages import serve

pytestmark = pytest.mark.browser

PASSWORD = "notes-pass-1"
NOTES = {"1": "Tea", "2": "Owls", "3": "Chess"}
LOGIN = """<html><head><title>Sign in</title></head><body><h1>Sign in</h1>
<form method="post" action="/login"><label for="u">Username</label><input id="u" name="username">
<label for="p">Password</label><input id="p" name="password" type="password">
<button type="submit">Sign in</button></form></body></html>"""
LIST = ("<html><head><title>Notes</title></head><body><h1>Notes</h1><ul>"
        + "".join(f'<li class="note"><a href="/notes/{k}">{v}</a></li>' for k, v in NOTES.items())
        + "</ul></body></html>")
NOTE = "<html><head><title>{t}</title></head><body><h1>{t}</h1><p>A note.</p></body></html>"


class Site:
    def __init__(self) -> None:
        self.sessions: set[str] = set()
        self.sign_ins = 0
        self.posts: list[str] = []


def _handler(site: Site) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def _send(self, status: int, body: str = "", headers: dict[str, str] | None = None) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _signed_in(self) -> bool:
            cookies = dict(c.strip().split("=", 1) for c in (self.headers.get("Cookie") or "").split(";") if "=" in c)
            return cookies.get("sid") in site.sessions

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            path = self.path.split("?")[0]
            if path == "/login":
                self._send(200, LOGIN)
            elif not self._signed_in():
                self._send(302, headers={"Location": f"/login?next={path}"})
            elif path == "/notes":
                self._send(200, LIST)
            elif path.startswith("/notes/") and path[7:] in NOTES:
                self._send(200, NOTE.format(t=NOTES[path[7:]]))
            else:
                self._send(404, "not found")

        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            site.posts.append(self.path)
            form = parse_qs(body)
            if self.path == "/login" and form.get("password") == [PASSWORD]:
                site.sign_ins += 1
                sid = secrets.token_hex(8)
                site.sessions.add(sid)
                self._send(302, headers={"Location": "/notes", "Set-Cookie": f"sid={sid}; Path=/; HttpOnly"})
            else:
                self._send(200, LOGIN)

    Handler.log_message = lambda *_a: None  # type: ignore[method-assign]
    return Handler


@pytest.fixture(scope="module")
def notes() -> Iterator[tuple[str, Site]]:
    site = Site()
    with serve(_handler(site)) as url:
        yield url, site


@pytest.fixture(scope="module")
async def recorded(notes: tuple[str, Site], browser_pool: BrowserPool, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One demonstration for the module (the tests run in order: the last two end the session)."""
    url, _ = notes
    tmp_path = tmp_path_factory.mktemp("notes")
    script = tmp_path / "read_note.json"
    script.write_text(json.dumps({"name": "read_note", "reset": False, "steps": [
        {"action": "goto", "url": "/login"},
        {"action": "fill", "target": {"role": "textbox", "name": "Username"}, "value": "ada"},
        {"action": "fill", "target": {"selector": "input[name=password]"}, "value": PASSWORD},
        {"action": "click", "target": {"role": "button", "name": "Sign in"}},
        {"action": "click", "target": {"role": "link", "name": "Owls"}},
    ]}))
    return await record_script(browser_pool, load_script(script), url, tmp_path / "traces" / "read_note.jsonl")


def _sign_in_tool(report: Any) -> str:
    return next(name for name, how in report.writes.items() if "login" in name or "sign" in name)


async def test_the_recorder_saves_the_session_for_its_owner_only(recorded: Path) -> None:
    saved = session_path(recorded)
    assert saved == recorded.with_name("read_note.session.json")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert [c["name"] for c in json.loads(saved.read_text())["cookies"]] == ["sid"]
    assert not list(saved.parent.glob(".*.part"))  # written atomically: no leftover


async def test_a_default_build_signs_in_from_the_record_and_verifies_behind_it_with_the_session(
        notes: tuple[str, Site], recorded: Path, browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, site = notes
    sign_ins, posts = site.sign_ins, list(site.posts)
    cache, report = await build_cache([recorded], tmp_path / "cache", base_url=url, pool=browser_pool,
                                      secrets={"password": PASSWORD})
    assert (site.sign_ins, site.posts) == (sign_ins, posts)  # nothing was sent, the sign-in included
    assert report.sent_live == [] and report.to_json()["sent_live"] == []
    login = _sign_in_tool(report)
    assert report.writes[login] == "recorded"
    assert report.sessions_expired == {} and report.unverified == {}, report.unverified
    assert {login, "goto_login"} <= set(report.verified), report.rejected
    note_tools = [n for n in report.verified if "note" in n and n not in (login, "goto_login")]
    assert note_tools, (report.verified, report.rejected)  # the tools behind the sign-in, verified with the session
    # a plan can sign in from the start: the sign-in page has a goto tool that needs no state
    assert cache.tools["goto_login"].pre == {}
    result = check(f"await goto_login()\nawait {login}(username='ada', password='x')\nresult = True\n", cache)
    assert result.valid, result.diagnostics


async def test_an_expired_session_is_said_and_its_tools_are_not_called_verified(
        notes: tuple[str, Site], recorded: Path, browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, site = notes
    site.sessions.clear()  # the site forgot the demonstration's session
    posts = list(site.posts)
    _, report = await build_cache([recorded], tmp_path / "cache", base_url=url, pool=browser_pool,
                                  secrets={"password": PASSWORD})
    assert site.posts == posts and report.sent_live == []
    assert report.sessions_expired == {str(recorded): "/login?next=/notes"}
    behind = [n for n, why in report.unverified.items() if "--sign-in" in why and "expired" in why]
    assert behind and not set(behind) & set(report.verified), report.unverified


async def test_sign_in_sends_the_sign_in_live_and_says_so(
        notes: tuple[str, Site], recorded: Path, browser_pool: BrowserPool, tmp_path: Path) -> None:
    url, site = notes
    site.sessions.clear()
    sign_ins = site.sign_ins
    _, report = await build_cache([recorded], tmp_path / "cache", base_url=url, pool=browser_pool,
                                  secrets={"password": PASSWORD}, sign_in=True)
    login = _sign_in_tool(report)
    assert site.sign_ins == sign_ins + 1
    assert report.sent_live == [{"tool": login, "request": "POST login", "why": "sign-in, --sign-in"}]
    assert report.writes[login] == "sign-in, live" and report.unverified == {}, report.unverified


async def test_heal_right_after_the_build_signs_in_with_the_builds_own_call(
        notes: tuple[str, Site], recorded: Path, browser_pool: BrowserPool, tmp_path: Path) -> None:
    """The build keeps each tool's first passing call as its good call, the sign-in's with its demonstrated
    request (its password redacted): heal right after the build, before any run, signs in with it and probes the
    tools behind the sign-in in that session. The sign-in is heal's one request; no file holds the password."""
    from toolcache.heal import heal_cache

    url, site = notes
    site.sessions.clear()
    cache_dir = tmp_path / "cache"
    _, report = await build_cache([recorded], cache_dir, base_url=url, pool=browser_pool,
                                  secrets={"password": PASSWORD}, sign_in=True)
    login = _sign_in_tool(report)
    assert report.good_calls >= 3, report.to_json()
    posts = list(site.posts)
    healed = await heal_cache(cache_dir, url, pool=browser_pool, sign_in={"password": PASSWORD})
    assert healed.signed_in == {"tool": login, "ok": True, "reason": None}, healed.signed_in
    assert site.posts[len(posts):] == ["/login"]  # heal's one request
    behind = [p for p in healed.probed if "note" in p["tool"]]
    assert behind and all(p["ok"] for p in behind), healed.probed  # probed signed in: no sign-in wall, nothing broken
    assert healed.healed == [] and healed.failed == {}
    leaked = [p.name for p in cache_dir.rglob("*") if p.is_file() and PASSWORD in p.read_text(errors="replace")]
    assert leaked == []
