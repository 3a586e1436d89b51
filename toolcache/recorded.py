"""Verify writes without sending them: the demonstration's recorded answers, served in the browser.

``toolcache build --site`` must not change the site it checks. In the default mode
(``--verify-writes recorded``) a :class:`WriteGuard` routes every request of the
verifying page (a page route, which Playwright consults before the pool's
context route: what the guard lets through falls back to the pool, which sends
a write once). A state-changing request (any method but GET, HEAD, OPTIONS)
never reaches the site:

- one that matches a request the calling tool's demonstration sent (same
  method, same route template, :func:`param_diff` finds no difference) is
  fulfilled with the recorded response (status, content type, location, body);
- any other is aborted, and the call fails with a reason naming it; except a *background*
  write of the page (not a navigation: an editor's session ping, a beacon), which is aborted and
  no failure, as the recorder keeps it out of a step's requests: one sent by a document the
  call loaded, one sent while no call runs, and one sent to an address the same document
  already sent such a write to (a ping on a timer, during a call that starts on a page loaded
  before it), and one of a method and route template the demonstrations' pages sent by
  themselves (whenever it comes: a document's response event may reach the guard after its first
  ping). A write to an address the page never sent to by itself is the tool's, and refused.
  Such a background write that the demonstrations' pages sent too (same method and route
  template: the recorder keeps them in a step's ``background``) is answered with what it got
  then, never sent: a page that waits on its ping's answer (an editor that holds its form's
  submit until the session ping is answered, or asks for confirmation when the ping failed)
  goes on as it did in the demonstration.

A write answered from the record leaves the live site where it was, so the
replay has *diverged* from it: from then on, until the next trace, a page load
of a URL the demonstration loaded is answered with the document the browser
showed there (the step's snapshot), the redirect target of a form post
included, so the tool's post_check and the steps after it see the demonstrated
outcome. Every other GET goes to the site: reads change nothing. A script's
fetch answered so sees no redirect, and reports the write's own address as
where it ended: the page's next load of that address gets the same document
(heal adds such documents too: the page a run's write led to, :meth:`WriteGuard.add_document`).
Playwright routes no request a redirect leads to: a recorded redirect to a page
the site does not have reaches the site, and its error is noted
(:attr:`WriteGuard.dead_ends`).

A sign-in (a request that carries a secret) is answered from the record like any write,
without diverging (it changes a session, not the site's data): the verifier then installs the
session the demonstration saved (:func:`toolcache.record.session_path`). Only with the user's
consent (``toolcache build --sign-in``) is it sent to the site.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import unquote_plus, urljoin, urlsplit

from agentjit.protocol.bodies import request_params
from agentjit.protocol.bodies import scalar_text as _text
from agentjit.protocol.trace import REDACTED, Trace
from agentjit.runtime.browser import READ_METHODS

from .pages import page_name
from .urls import site_path, site_url

__all__ = ["WriteGuard", "request_params", "param_diff", "answerable", "answer_rank", "describe", "write_address"]

log = logging.getLogger(__name__)


def describe(method: str, url: str | None, routes: Sequence[str] = ()) -> str:
    """``POST issue{id}``: a request as the reasons name it (method and route template)."""
    return f"{method} {page_name(url, routes)}"


def answerable(write: dict[str, Any]) -> bool:
    """Whether a recorded request can be answered offline (traces from version 2 on keep its response)."""
    return isinstance(write.get("response"), dict) and isinstance(write.get("status"), int)


def param_diff(recorded: dict[str, list[str]], sent: dict[str, list[str]], args: dict[str, Any]) -> str | None:
    """How ``sent`` differs from the ``recorded`` body of the same request, or None.

    A parameter that carried one of the demonstrated arguments (``args``) must carry the same
    value again; every other recorded parameter must be present, with any value (a CSRF token,
    a date the form filled in by itself, differ from run to run). Redacted values match anything.
    """
    values = {_text(v) for v in args.values() if v is not None and v != ""}
    for key, want in recorded.items():
        if key not in sent:
            return f"no {key!r} parameter (the demonstration sent {key}={want[0]!r})"
        if any(v in values for v in want) and REDACTED not in want and sent[key] != want:
            return f"{key}={sent[key][0]!r}, the demonstration sent {key}={want[0]!r}"
    return None


def is_navigation(request: Any) -> bool:
    """Whether ``request`` loads a document (a form post, a link), not a script's fetch or beacon."""
    try:
        return bool(request.is_navigation_request())
    except Exception:  # a request of a frame that is gone
        return False


def arrives(response: Any) -> bool:
    """Whether ``response`` is a document its page's main frame shows (not a redirect, a frame's, a fetch's)."""
    try:
        request = response.request
        return bool(request.is_navigation_request() and request.frame.parent_frame is None and not 300 <= response.status < 400)
    except Exception:  # a frame that is gone
        return False


def answer_rank(write: dict[str, Any]) -> tuple[bool, bool]:
    """How good a recorded answer is to answer a page's own write with: one the page was content
    with (below 400) beats a failure, and one with its body beats one without."""
    return write["status"] < 400, write["response"].get("body") is not None


def write_address(url: str) -> str:
    """A write's address without its query and fragment: what tells a page's timer ping apart."""
    return urlsplit(url)._replace(query="", fragment="").geturl()


def _doc_key(url: str | None) -> str:
    """A page's path and query, decoded, as the guard compares a page load with a recorded one."""
    return unquote_plus(site_path(url))


def _script_literal(text: str) -> str:
    """``text`` as a JavaScript string literal that is safe inside an HTML ``<script>`` element."""
    return json.dumps(text).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _at_url(html: str, path: str) -> str:
    """``html`` with a first script that sets the page's URL to ``path`` (same origin) without loading it."""
    script = f"<script>history.replaceState(history.state, '', {_script_literal(path)});</script>"
    head = re.search(r"<head[^>]*>", html, re.IGNORECASE)
    if head is None:
        return script + html
    return html[: head.end()] + script + html[head.end():]


NO_BEACONS_JS = "navigator.sendBeacon = function () { return true; };"
"""Installed in every verifying page (not with ``--verify-writes live``): ``sendBeacon`` sends nothing."""


class WriteGuard:
    """The route of a verifying page; see the module docstring.

    The verifier calls :meth:`start_trace` before each trace, :meth:`begin` before each tool call
    (what that call may send) and :meth:`end` after it (what it did send).
    """

    def __init__(self, base_url: str, *, mode: str, routes: Sequence[str] = ()) -> None:
        self.base_url = base_url
        self.mode = mode
        """``recorded``, ``live`` or ``none`` (``--verify-writes``)."""
        self.routes = routes
        self.diverged = False
        self._pages: list[tuple[int, str, str]] = []
        self.cursor = 0
        """Position of the trace step being replayed: which recorded document a page load gets."""
        self._allow: list[dict[str, Any]] = []
        self._args: dict[str, Any] = {}
        self._live = False
        self.answered: list[str] = []
        self.sent_live: list[tuple[str, str]] = []
        self.refused: list[str] = []
        self.background: list[str] = []
        """Writes a page sent by itself (a session ping: see the module docstring), dropped unsent."""
        self._documents = 0
        self.last_document: tuple[str, int] | None = None
        """The URL and HTTP status of the last document the page showed (a redirect followed)."""
        self._documents_at_begin = 0
        self._in_call = False
        self._sign_in = False
        self._page_writes: set[str] = set()
        """Addresses the current document sent background writes to."""
        self._page_answers: dict[str, dict[str, Any]] = {}
        """A background write the demonstrations' pages sent (method and route template) -> the
        recorded request, with its answer (:meth:`learn_background`)."""
        self._answered_writes: set[tuple[str, str]] = set()
        """The writes (method, URL) answered from the record since :meth:`begin`."""
        self.dead_ends: list[str] = []
        """Since :meth:`begin`: the addresses a write answered from the record redirected to that the site answers
        with an error (HTTP 400 or more): the page the unsent write would have made (an order's), which the site
        does not have."""
        self._follow: tuple[str, str] | None = None
        """A script's write answered with the document its redirect leads to (:meth:`_answer`): the write's address
        and that document, which the page's next load of that address gets (:meth:`follows`)."""

    async def install(self, page: Any) -> None:
        page.on("response", self._on_response)
        await page.route("**/*", self._route)
        if self.mode != "live":
            # a beacon sent as a page unloads (an editor releasing its editing session) leaves after
            # the document is gone, where no route sees it: in verification it is never sent
            await page.add_init_script(NO_BEACONS_JS)

    def _on_response(self, response: Any) -> None:
        try:
            first = response.request
            while first.redirected_from is not None:
                first = first.redirected_from
            if first is not response.request and response.status >= 400 and (first.method, first.url) in self._answered_writes:
                self.dead_ends.append(response.url)
        except Exception:  # a request of a frame that is gone
            log.debug("cannot follow the redirects of %s", response.url, exc_info=True)
        if arrives(response):
            self._documents += 1
            self._page_writes = set()
            self.last_document = (response.url, response.status)

    def start_trace(self, trace: Trace | None) -> None:
        """A new trace: back on the live site; its recorded page loads are what a divergence serves."""
        self.diverged = False
        self.cursor = 0
        self._pages = []
        if trace is None:
            return
        self.learn_background([trace])
        for pos, st in enumerate(trace.steps):
            loaded = st.document if st.document is not None else (st.action == "goto" or st.url_after != st.url)
            if st.ok and loaded and st.snapshot and st.url_after:
                html = trace.snapshot_html(st)
                if html is not None:
                    self._pages.append((pos, _doc_key(st.url_after), html))

    def add_document(self, url: str, html: str) -> None:
        """Answer a page load of ``url`` while diverged, and a recorded redirect to ``url``, with ``html``: the page
        a run's write led to, which the site no longer shows (heal's ``landing``)."""
        self._pages.append((len(self._pages), _doc_key(url), html))

    def follows(self, url: str) -> bool:
        """Whether the page's next load of ``url`` gets the document a script's write was answered with."""
        return self._follow is not None and self._follow[0] == _doc_key(url)

    def learn_background(self, traces: Iterable[Trace]) -> None:
        """Keep the background writes ``traces`` recorded, to answer the page's own with them; an
        answer the page was content with (below 400) is kept over a failure, one with its body over
        one whose body the recorder no longer had (a page that read it went on), else the later wins."""
        for trace in traces:
            for st in trace.steps:
                for w in st.background:
                    if not answerable(w):
                        continue
                    key = describe(str(w.get("method")), w.get("url"), self.routes)
                    kept = self._page_answers.get(key)
                    if kept is None or answer_rank(kept) <= answer_rank(w):
                        self._page_answers[key] = w

    def diverge(self) -> None:
        """The replay left the live site's state (a write answered from the record, or skipped)."""
        self.diverged = True

    def begin(self, writes: Iterable[dict[str, Any]], args: dict[str, Any], *, live: bool, sign_in: bool = False) -> None:
        """A call may send ``writes`` (its demonstration's requests) with ``args``; ``live``: to the
        site; ``sign_in``: the call signs in, and its answer from the record does not diverge."""
        self._allow = list(writes)
        self._args = dict(args)
        self._live = live
        self._sign_in = sign_in
        self._in_call = True
        self.answered, self.sent_live, self.refused, self.background = [], [], [], []
        self._documents_at_begin = self._documents
        self._answered_writes, self.dead_ends, self._follow = set(), [], None

    def end(self) -> tuple[list[str], list[tuple[str, str]], list[str]]:
        """``(answered from the record, sent to the site as (method, url), refused)`` since :meth:`begin`;
        :attr:`dead_ends` stays as the call left it, until the next :meth:`begin`."""
        out, dead = (self.answered, self.sent_live, self.refused), self.dead_ends
        self.begin((), {}, live=False)
        self._in_call = False
        self.dead_ends = dead
        return out

    def _background(self, request: Any) -> bool:
        """Whether ``request`` (a write no demonstration sent) is the page's own: see the module docstring."""
        if is_navigation(request):
            return False
        # a write the demonstrations' pages sent by themselves (kept with its answer) is the page's
        # whenever it comes: the document's response event may reach us after its first ping did
        return (not self._in_call or self._documents > self._documents_at_begin
                or write_address(request.url) in self._page_writes
                or describe(request.method, request.url, self.routes) in self._page_answers)

    def recorded_document(self, url: str) -> str | None:
        """The document the demonstration showed at ``url``: the next one from the cursor on, else the last before."""
        key = _doc_key(url)
        hits = [(pos, html) for pos, k, html in self._pages if k == key]
        if not hits:
            return None
        later = [h for h in hits if h[0] >= self.cursor]
        return (later[0] if later else hits[-1])[1]

    def match(self, method: str, url: str, body: str | None) -> tuple[dict[str, Any] | None, str]:
        """The allowed recorded request that ``method url body`` is, else None and why not."""
        got = describe(method, url, self.routes)
        same_route = [w for w in self._allow if describe(str(w.get("method")), w.get("url"), self.routes) == got]
        if not same_route:
            shown = sorted({describe(str(w.get("method")), w.get("url"), self.routes) for w in self._allow})
            told = f"its demonstration sent {', '.join(shown)}" if shown else "it has no demonstrated request"
            return None, f"sent {got}, which {told}: not sent to the site"
        sent = request_params(body)
        why = ""
        for w in same_route:
            diff = param_diff(request_params(w.get("post_data")), sent, self._args)
            if diff is None:
                return w, ""
            why = diff
        return None, f"sent {got} with {why}: not sent to the site"

    async def _route(self, route: Any) -> None:
        request = route.request
        try:
            if request.method in READ_METHODS:
                html = None
                if request.resource_type == "document" and self._follow is not None and self.follows(request.url):
                    html, self._follow = self._follow[1], None
                elif self.diverged and request.method == "GET" and request.resource_type == "document":
                    html = self.recorded_document(request.url)
                if html is not None:
                    await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
                else:
                    await route.fallback()
                return
            await self._write(route, request)
        except Exception:  # the page or context closed under the request
            log.debug("routing %s failed", request.url, exc_info=True)

    async def _write(self, route: Any, request: Any) -> None:
        try:
            body = request.post_data
        except Exception:  # a binary body
            body = None
        if self._live and self.mode == "live":
            self.sent_live.append((request.method, request.url))
            await route.fallback()
            return
        recorded, why = self.match(request.method, request.url, body)
        if recorded is None and self._background(request):
            # sent by the page by itself: the recorder keeps such writes out of a step's requests
            # too; never sent, and no failure of the tool
            self._page_writes.add(write_address(request.url))
            self.background.append(describe(request.method, request.url, self.routes))
            answer = self._page_answers.get(self.background[-1])
            if answer is not None:  # the demonstration's pages sent it too: what they got, unsent
                log.info("verification answered %s %s from the record: the page sent it by itself", request.method, request.url)
                await route.fulfill(**self._answer(answer))
            else:
                log.info("verification dropped %s %s: the page sent it by itself", request.method, request.url)
                await route.abort("blockedbyclient")
        elif recorded is None:
            self.refused.append(why)
            log.info("verification refused %s %s: %s", request.method, request.url, why)
            await route.abort("blockedbyclient")
        elif self._live:  # a sign-in: a session, not the site's data
            self.sent_live.append((request.method, request.url))
            await route.fallback()
        else:
            self.answered.append(describe(request.method, request.url, self.routes))
            self._answered_writes.add((request.method, request.url))
            if not self._sign_in:  # a sign-in changes a session, not the site's data
                self.diverge()
            answer = self._answer(recorded)
            if answer.get("status") == 200 and 300 <= recorded["status"] < 400 and not is_navigation(request):
                # a script's fetch answered with the document its redirect leads to reports the write's own address
                # as where it ended (it saw no redirect): the page going there next is going to that document
                self._follow = (_doc_key(request.url), answer["body"])
            await route.fulfill(**answer)

    def _answer(self, recorded: dict[str, Any]) -> dict[str, Any]:
        """``route.fulfill`` arguments for a recorded request: its status, headers and body, the
        location moved onto this site (the demonstration ran on another port, maybe another host).

        A redirect whose target the demonstration showed is answered with that document at once:
        Playwright routes no request a redirect leads to, so the browser's follow-up GET would
        reach the live site, which never saw the write. The document moves the page's URL to the
        target itself (``history.replaceState`` before anything else runs), as the redirect would.
        """
        response = recorded["response"]
        headers = {k.lower(): str(v) for k, v in (response.get("headers") or {}).items()}
        if "location" in headers:
            headers["location"] = site_url(self.base_url, urljoin(str(recorded.get("url")), headers["location"]))
            html = self.recorded_document(headers["location"]) if 300 <= recorded["status"] < 400 else None
            if html is not None:
                return {"status": 200, "content_type": "text/html; charset=utf-8",
                        "body": _at_url(html, site_path(headers["location"]))}
        body = response.get("body")
        if body is None and not 300 <= recorded["status"] < 400:
            body = self.recorded_document(str(recorded.get("url"))) or ""
        return {"status": recorded["status"], "headers": headers, "body": body or ""}
