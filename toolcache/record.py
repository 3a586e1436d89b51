"""The recorder: replay a demonstration script in real Chromium and write a trace.

Each script step becomes one :class:`~agentjit.protocol.trace.StepEvent` with
the target as the page saw it (CSS selector, role, accessible name, text, tag,
test id and the chain of ancestors, so the builder can find the element in the
snapshot), the URL before and after, the page title after, start and end
times, the state-changing requests the step caused (``requests``: every request
but GET, HEAD and OPTIONS, with its body, status and response, see
:class:`_Network`), the writes the page sent by itself meanwhile with their answers
(``background``: an editor's session ping, which verification answers from there), and the DOM
after the step (``page.content()``, stored once per distinct content). A step ends when the page has loaded and no
request has been in flight for a short quiet period; a fill or key press first waits for what the
edit set off (the short timers it set, and the page's calls they started: a debounced live search),
so the recording is the same on a quiet machine and a loaded one. The page's own long timers (an
autosave set off by a fill) are held while a step's action runs (:data:`PAGE_CLOCK_JS`), for the same reason.

At the end of a demonstration the browser's storage state (cookies, localStorage: the session
a sign-in opened) is written beside the trace, ``<name>.session.json`` (:func:`session_path`),
readable by its owner only: ``toolcache build`` verifies the tools behind a sign-in with it
instead of signing in again. It is a secret: whoever holds it is signed in while it lasts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import agentjit
from agentjit.agent.observe import ELEMENT_HELPERS_JS
from agentjit.exceptions import SiteUnreachable
from agentjit.protocol.trace import (
    RESPONSE_BODY_MAX,
    SessionEvent,
    StepEvent,
    Target,
    TraceWriter,
    redact_text,
)
from agentjit.runtime import BrowserPool
from agentjit.runtime.browser import READ_METHODS

from .js import source
from .navigation import Navigations, is_navigation_race
from .recorded import answer_rank, arrives, is_navigation, write_address
from .redact import REDACTED, is_secret
from .script import STEP_TIMEOUT_S, Script, ScriptStep
from .targets import TargetError, resolve_target
from .urls import site_url

__all__ = ["record_script", "record_scripts", "describe_js", "reset_site", "session_path", "write_secret_json"]

log = logging.getLogger(__name__)

QUIET_S = 0.05
"""How long the network must stay idle before a step counts as finished."""
SETTLE_TIMEOUT_S = 15.0
OWN_WRITE_S = 1.0
"""How far apart a write's request event and the page's word that its own timer sent it may come."""
BACKGROUND_ANSWER_S = 2.0
"""The longest the recorder waits for the answer of a write the page sent by itself."""
DOM_SETTLE_MAX_S = 2.0
"""The longest a step waits for the DOM to go quiet (an animation may never stop)."""
DOM_QUIET_JS = """
([quiet, max]) => new Promise((resolve) => {
  let timer = setTimeout(() => done(true), quiet);
  const obs = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(() => done(true), quiet); });
  const cap = setTimeout(() => done(false), max);
  function done(quietNow) { obs.disconnect(); clearTimeout(timer); clearTimeout(cap); resolve(quietNow); }
  obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})
"""
"""Resolves once no DOM mutation happened for ``quiet`` ms (true), or after ``max`` ms with the DOM still changing
(false)."""
EDITOR_HELD_JS = "(el) => el.isContentEditable ? [...document.querySelectorAll('input[type=hidden]')].map((f) => f.value) : null"
"""Before a fill: the page's hidden fields' values when the target is a rich-text editor, else null."""
EDITOR_SAVED_JS = """async (before) => {
  const now = () => [...document.querySelectorAll('input[type=hidden]')].map((f) => f.value);
  for (const t0 = Date.now(); Date.now() - t0 < 2000 && now().every((v, i) => v === before[i]);) await new Promise((r) => setTimeout(r, 25));
}"""
"""After a fill of a rich-text editor: wait (at most 2 s) until it wrote its text into a hidden field of the
page (Draftail does, 250 ms after the last edit), so the save the next step sends carries it."""
EDIT_TIMERS_JS = """() => {
  if (window.__ajEdit) return;
  const plain = window.setTimeout, clear = window.clearTimeout;
  const edit = window.__ajEdit = {pending: new Map(), plain, clear, t0: Date.now()};
  window.setTimeout = function (cb, ms, ...rest) {
    if (typeof cb !== 'function' || Number(ms) > 300) return plain.call(window, cb, ms, ...rest);
    const id = plain.call(window, (...a) => { edit.pending.delete(id); return cb(...a); }, ms, ...rest);
    edit.pending.set(id, Date.now());
    return id;
  };
  window.clearTimeout = function (id) { edit.pending.delete(id); return clear.call(window, id); };
}"""
"""Before an edit (a fill, a key press): note the short timers the page sets while it runs (at most
300 ms, as the tools' prelude counts a reaction to an edit: a live search's debounce; a longer one,
an autosave, is the page's own later work)."""
EDIT_SETTLED_JS = """async (limit) => {
  const edit = window.__ajEdit;
  if (!edit) return;
  window.setTimeout = edit.plain; window.clearTimeout = edit.clear; delete window.__ajEdit;
  const sleep = () => new Promise((r) => edit.plain.call(window, r, 10));
  const t0 = Date.now();
  while (edit.pending.size && Date.now() - t0 < limit) await sleep();
  const net = window.__ajNet;  // the page's own calls (agentjit.runtime.network.TRACK_JS)
  const set_off = () => !!net && [...net.open.values()].some((t) => t >= edit.t0);
  while (set_off() && Date.now() - t0 < limit) await sleep();
}"""
"""After an edit: wait (at most ``limit`` ms) until the timers it set off ran and the page's calls
they started (a live search's fetch) were answered; the step's settling waits for the rest."""
PAGE_CLOCK_JS = """(() => {
  if (window.__ajClock) return;
  const plain = {timeout: window.setTimeout, interval: window.setInterval, clearT: window.clearTimeout, clearI: window.clearInterval};
  const clock = window.__ajClock = {held: false, epoch: 0, step: 0, queue: new Map(), own: 0, quiet: false};
  // a callback of a timer set before the current step began is the page's own work
  const run = (cb, self, args, epoch) => {
    const own = epoch < clock.step;
    if (own) clock.own++;
    try { return cb.apply(self, args); } finally { if (own) clock.own--; }
  };
  // a callback due while the clock is held, of a timer set before the hold began, waits in the queue
  const wrap = (cb, epoch, key) => function (...args) {
    if (clock.held && epoch < clock.epoch) { clock.queue.set(key, () => run(cb, this, args, epoch)); return; }
    return run(cb, this, args, epoch);
  };
  let keys = 0;
  const ids = new Map();  // a timer's id -> its key in the queue
  window.setTimeout = function (cb, ms, ...rest) {
    if (typeof cb !== 'function' || !(Number(ms) > 300)) return plain.timeout.call(window, cb, ms, ...rest);
    const key = ++keys, id = plain.timeout.call(window, wrap(cb, clock.epoch, key), ms, ...rest);
    ids.set(id, key);
    return id;
  };
  window.setInterval = function (cb, ms, ...rest) {
    if (typeof cb !== 'function' || !(Number(ms) > 300)) return plain.interval.call(window, cb, ms, ...rest);
    const key = ++keys, id = plain.interval.call(window, wrap(cb, clock.epoch, key), ms, ...rest);
    ids.set(id, key);
    return id;
  };
  const cleared = (id) => { if (ids.has(id)) { clock.queue.delete(ids.get(id)); ids.delete(id); } };
  window.clearTimeout = function (id) { cleared(id); return plain.clearT.call(window, id); };
  window.clearInterval = function (id) { cleared(id); return plain.clearI.call(window, id); };
  clock.hold = () => { clock.held = true; clock.epoch++; };
  clock.begin = () => { clock.step = clock.epoch; };
  // between steps (tell = false) what runs is no step's: nothing to tell
  clock.release = (tell) => {
    clock.held = false;
    const due = [...clock.queue.values()]; clock.queue.clear();
    clock.quiet = !tell;
    try {
      for (const f of due) { try { f(); } catch (e) { plain.timeout.call(window, () => { throw e; }); } }
    } finally { clock.quiet = false; }
  };
  // the writes such a callback sends are the page's, not the step's: told to the recorder
  const tell = (method, url) => {
    if (clock.own && !clock.quiet && window.__ajOwnWrite) window.__ajOwnWrite(String(method || 'GET').toUpperCase(), new URL(url, location.href).href);
  };
  const fetch0 = window.fetch;
  window.fetch = function (input, init) {
    try { tell((init && init.method) || (input && input.method) || 'GET', (input && input.url) || String(input)); } catch (e) {}
    return fetch0.apply(this, arguments);
  };
  const open0 = XMLHttpRequest.prototype.open, send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) { this.__ajWrite = [method, url]; return open0.apply(this, arguments); };
  XMLHttpRequest.prototype.send = function () {
    try { if (this.__ajWrite) tell(...this.__ajWrite); } catch (e) {}
    return send0.apply(this, arguments);
  };
  if (navigator.sendBeacon) {
    const beacon0 = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url, data) => { try { tell('POST', url); } catch (e) {} return beacon0(url, data); };
  }
})()"""
"""Installed in every page the recorder opens: the page's own clock. A timer longer than an edit's
reaction (over 300 ms: an autosave's debounce, a poll), or an interval of that period, set before a step's action, or by an edit
(a fill, a key press), does not fire until a step that is not an edit (a click) has settled: it
fires then, between steps, or when the demonstration waits (a ``wait`` step) or needs an element
the page has not drawn yet. A recorded step's outcome is then what its own action sent, on a quiet
machine and a loaded one: an editor that autosaves 500 ms after a fill would otherwise send its
autosave during the Save that follows when the fill takes longer, and the save come back as a
conflict; a tool, which fills and saves at once, never meets that autosave. The writes a callback
of a timer set before the step began sends during the step are told to the recorder
(``__ajOwnWrite``) and kept out of the step's requests: they are the page's own (its
``background``); a long timer the step's own click set (a save it defers) stays the step's."""
HOLD_JS = "() => window.__ajClock && window.__ajClock.hold()"
BEGIN_JS = "() => window.__ajClock && window.__ajClock.begin()"
RELEASE_JS = "() => window.__ajClock && window.__ajClock.release(true)"
"""Let the page's held timers run during a step (a ``wait``, a target not drawn yet): their writes are the page's."""
RELEASE_BETWEEN_JS = "() => window.__ajClock && window.__ajClock.release(false)"
"""Let them run between steps, where every write is the page's anyway."""
EDIT_SETTLE_MAX_S = 2.0
"""The longest a step waits for what its edit set off (:data:`EDIT_SETTLED_JS`)."""
TARGET_WAIT_S = 3.0
"""How long a script step waits for its target to appear (the page has settled by then; a ``wait``
step waits up to the step timeout). Actions wait for their target to become actionable (visible,
enabled, editable) up to the step timeout."""

# Runs on the target element: everything the builder needs to find it again.
describe_js = "(el) => {\n" + ELEMENT_HELPERS_JS + r"""  const ancestors = [];
  for (let p = el.parentElement; p && p.tagName.toLowerCase() !== 'body'; p = p.parentElement) ancestors.push(sig(p));
  const attrs = {};
  for (const a of el.attributes) attrs[a.name] = a.value.slice(0, 200);
  const me = sig(el);
  return {selector: selectorOf(el), role: me.role, name: labelOf(el), text: clean(el.innerText || el.textContent).slice(0, 200),
          tag: me.tag, testid: me.testid, attributes: attrs, ancestors,
          in_dialog: !!el.closest('dialog[open],[role=dialog],[aria-modal=true]'),
          // a checkbox's or radio's live state before the step (its checked attribute is only the default)
          ...(el.tagName === 'INPUT' && /^(checkbox|radio)$/i.test(el.type) ? {checked: el.checked} : {})};
}
"""


def _stored_value(step: ScriptStep, target: Target | None, base_url: str) -> Any:
    """The step's value as the trace keeps it: goto URLs made absolute, secrets redacted."""
    if step.action == "goto":
        return site_url(base_url, step.url, keep_host=True)
    attrs = (target.model_extra or {}).get("attributes") if target is not None else None
    if step.action == "fill" and is_secret(attrs, step.value):
        return REDACTED
    return step.value


def session_path(trace: str | Path) -> Path:
    """Where the storage state saved with ``trace`` is: ``<name>.session.json`` beside ``<name>.jsonl``."""
    trace = Path(trace)
    return trace.with_name(f"{trace.name.removesuffix('.jsonl')}.session.json")


def write_secret_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically, readable and writable by its owner only (0600)."""
    tmp = path.with_name(f".{path.name}.part")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def reset_site(base_url: str) -> bool:
    """``POST /__reset`` when the site offers it; returns whether it did."""
    req = urllib.request.Request(urljoin(base_url, "/__reset"), data=b"{}", method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:  # noqa: S310 - a loopback bench site
            return bool(200 <= resp.status < 300)
    except Exception:  # a site without the bench endpoints
        log.debug("no /__reset on %s", base_url, exc_info=True)
        return False


class _Network:
    """In-flight requests and the state-changing ones, per page.

    For each state-changing request (any method but GET, HEAD, OPTIONS) it keeps what
    ``toolcache build`` needs to answer the request without sending it again: the request
    body, the response's status, content type, location and text body (each body at most
    :data:`~agentjit.protocol.trace.RESPONSE_BODY_MAX` characters). Secrets the script
    typed (``secrets``) are redacted from both bodies, as from the step's value.
    """

    def __init__(self, page: Any) -> None:
        self.inflight: set[Any] = set()
        self.writes: list[dict[str, Any]] = []
        self.secrets: set[str] = set()
        """Plain values of the secret fields typed so far (a password), kept out of the bodies."""
        self.last_change = time.monotonic()
        self.documents = 0
        """New documents loaded in the page (``domcontentloaded``; a pushState redraw is none)."""
        self.arrived = 0
        """Documents the page's main frame was answered with (a navigation's non-redirect response):
        from then on that document's own scripts run, before its ``domcontentloaded``."""
        self.step_arrived = 0
        """``arrived`` when the current step began."""
        self.in_step = False
        self.page_writes: set[str] = set()
        """Addresses the current document sent writes to by itself (a session ping on a timer)."""
        self.background: list[dict[str, Any]] = []
        """The writes the page sent by itself since they were last taken (:meth:`take_background`)."""
        self.own: list[tuple[str, str, float]] = []
        """``(method, url, when)`` of the writes the page's own timers sent (:data:`PAGE_CLOCK_JS`), not yet matched."""
        page.on("domcontentloaded", self._on_document)
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_done)

    def _on_request(self, request: Any) -> None:
        self.inflight.add(request)
        self.last_change = time.monotonic()
        if request.method in READ_METHODS:
            return
        if self._background(request):
            # the page sent it by itself (an editor's session ping, a beacon): the page's doing,
            # not the step's, and the verifier drops it the same way
            self.page_writes.add(write_address(request.url))
            self.background.append({"method": request.method, "url": request.url, "resource": request.resource_type, "_req": request})
            log.debug("not the step's write, sent by the page by itself: %s %s", request.method, request.url)
            return
        self.writes.append({"method": request.method, "url": request.url, "resource": request.resource_type, "_req": request,
                            "_t": time.monotonic()})

    def _background(self, request: Any) -> bool:
        """Whether a write is the page's own, not the step's: not a navigation, and sent between
        steps, by a document the step loaded, or to an address the same document sent such a
        write to before (a ping on a timer)."""
        if is_navigation(request):
            return False
        return not self.in_step or self.arrived > self.step_arrived or write_address(request.url) in self.page_writes

    def step_started(self) -> None:
        """A step begins: writes sent by a document it loads, once loaded, are that page's own."""
        self.step_arrived = self.arrived
        self.in_step = True

    def step_ended(self) -> None:
        """The step's writes are taken: until the next step begins, writes are the page's own."""
        self.in_step = False

    def _on_document(self, _page: Any) -> None:
        self.documents += 1

    def _on_response(self, response: Any) -> None:
        if arrives(response):
            self.arrived += 1
            self.page_writes = set()

    def _on_done(self, request: Any) -> None:
        self.inflight.discard(request)
        self.last_change = time.monotonic()
        for w in self.background:
            if w["_req"] is request and "_answer" not in w:
                # read its answer now, while the document that sent it is there: the step may
                # navigate before it ends (a save the ping let through), and the answer go with it
                w["_answer"] = asyncio.ensure_future(self._answer_of(request))

    async def _answer_of(self, req: Any) -> tuple[Any, dict[str, Any]] | None:
        """A background write's response and what verification answers it with, or None (it failed)."""
        resp = None
        with contextlib.suppress(Exception):  # a request that failed has no response
            resp = await asyncio.wait_for(req.response(), BACKGROUND_ANSWER_S)
        return None if resp is None else (resp, await self._response(resp))

    async def settle(self, page: Any) -> None:
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        with contextlib.suppress(Exception):
            await page.wait_for_load_state("load", timeout=SETTLE_TIMEOUT_S * 1000)
        while time.monotonic() < deadline:
            if not self.inflight and time.monotonic() - self.last_change >= QUIET_S:
                break
            await asyncio.sleep(0.01)
        else:
            log.warning("network did not settle within %.0f s", SETTLE_TIMEOUT_S)
        # single-page apps render after their requests: wait for the DOM to stop changing too
        with contextlib.suppress(Exception):
            await page.evaluate(DOM_QUIET_JS, [int(QUIET_S * 1000), int(DOM_SETTLE_MAX_S * 1000)])

    def _redact(self, text: str | None) -> str | None:
        """``text`` with every typed secret (plain, form- or URL-encoded) replaced by ``<redacted>``."""
        return redact_text(text, self.secrets)

    def own_write(self, _source: Any, method: str, url: str) -> None:
        """The page told of a write its own timer sent (:data:`PAGE_CLOCK_JS`)."""
        if method not in READ_METHODS:
            self.own.append((method, url, time.monotonic()))

    def _sent_by_timer(self, w: dict[str, Any]) -> bool:
        """Whether the page's own timer sent write ``w`` (an autosave): matched once against what the page told."""
        if w["resource"] == "document":
            return False
        for mark in self.own:  # told as it was sent: within moments of the request event
            if mark[:2] == (w["method"], w["url"]) and abs(mark[2] - w["_t"]) < OWN_WRITE_S:
                self.own.remove(mark)
                return True
        return False

    async def take_writes(self) -> list[dict[str, Any]]:
        for w in [w for w in self.writes if self._sent_by_timer(w)]:
            # an autosave set off by an earlier edit, sent while this step ran: the page's, not the step's
            log.debug("not the step's write, sent by the page's own timer: %s %s", w["method"], w["url"])
            self.writes.remove(w)
            self.page_writes.add(write_address(w["url"]))
            self.background.append(w)
            if w["_req"] not in self.inflight:
                w["_answer"] = asyncio.ensure_future(self._answer_of(w["_req"]))
        out = []
        for w in self.writes:
            req = w.pop("_req")
            w.pop("_t", None)
            status, response = None, None
            with contextlib.suppress(Exception):
                resp = await req.response()
                if resp is not None:
                    status = resp.status
                    response = await self._response(resp)
            out.append({**w, "status": status, "post_data": _bounded(self._redact(_post_data(req))), "response": response})
        self.writes = []
        return out

    async def take_background(self) -> list[dict[str, Any]]:
        """The page's own writes answered since the last call, one per method and address (a timer's
        pings differ in their body only), with what they got back: the verifier answers the page's
        writes with them, so a page that waits on its ping (a save held until the ping is answered)
        behaves as it did. One still in flight stays for the next call."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        pending = []
        for w in self.background:
            req = w["_req"]
            if req in self.inflight:
                pending.append(w)
                continue
            answer = await (w["_answer"] if "_answer" in w else self._answer_of(req))
            if answer is None:
                continue
            resp, response = answer
            key = (w["method"], write_address(w["url"]))
            if key in out and answer_rank(out[key]) > answer_rank({"status": resp.status, "response": response}):
                continue  # an answer the page was content with beats a failure (sqlite's "database is locked")
            out[key] = {**{k: v for k, v in w.items() if not k.startswith("_")}, "status": resp.status,
                        "post_data": _bounded(self._redact(_post_data(req))), "response": response}
        self.background = pending
        return list(out.values())

    async def _response(self, resp: Any) -> dict[str, Any]:
        """What verification answers the request with: the headers that matter and the text body."""
        headers = {k: v for k, v in (resp.headers or {}).items() if k.lower() in ("content-type", "location")}
        body: str | None = None
        ctype = headers.get("content-type", "")
        if not 300 <= resp.status < 400 and (not ctype or ctype.startswith("text/") or "json" in ctype or "xml" in ctype):
            with contextlib.suppress(Exception):  # a document the page left: its body is gone
                body = await resp.text()
        text = self._redact(body)
        return {"headers": headers, "body": _bounded(text), "truncated": text is not None and len(text) > RESPONSE_BODY_MAX}


def _post_data(request: Any) -> str | None:
    try:
        return request.post_data  # type: ignore[no-any-return]
    except Exception:  # a binary body (an upload) is not text
        return None


def _bounded(text: str | None) -> str | None:
    return text if text is None else text[:RESPONSE_BODY_MAX]


def _why(exc: BaseException) -> str:
    """The first line of a Playwright error and, from its call log, the last thing it waited for
    (``element is not visible``): a timeout alone does not say what to change in the script."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    if not lines:
        return type(exc).__name__
    waited = [ln.lstrip("- ") for ln in lines[1:] if ln.startswith("- ") and not ln.startswith(("- waiting", "- retrying", "- attempting"))]
    return f"{lines[0]} ({waited[-1]})" if waited else lines[0]


async def _perform(page: Any, nav: Navigations, step: ScriptStep, base_url: str, loc: Any, timeout_s: float) -> None:
    if step.action == "goto":
        await nav.goto(site_url(base_url, step.url, keep_host=True), timeout_s, wait_until="domcontentloaded")
    elif step.action == "click":
        await loc.click()
    elif step.action == "check":
        await loc.check()
    elif step.action == "fill":
        held = await loc.evaluate(EDITOR_HELD_JS)
        await loc.fill(str(step.value))
        if held:  # a rich-text editor: the step ends once it wrote its text into its form
            with contextlib.suppress(Exception):
                await page.evaluate(EDITOR_SAVED_JS, held)
    elif step.action == "select":
        await loc.select_option(str(step.value))
    elif step.action == "press":
        if loc is not None:
            await loc.press(str(step.value))
        else:
            await page.keyboard.press(str(step.value))
    elif step.action == "scroll":
        if loc is not None:
            await loc.scroll_into_view_if_needed()
        else:
            await page.mouse.wheel(0, float(step.value or 600))
    elif step.action == "wait":
        if loc is not None:
            await loc.wait_for()
        else:
            await asyncio.sleep(float(step.value or 0) / 1000)


def _check_gotos(script: Script, base_url: str) -> None:
    """Raise :class:`~toolcache.urls.OffSiteURL` for a ``goto`` of ``script`` that leaves the site."""
    for step in script.steps:
        if step.action == "goto":
            site_url(base_url, step.url, keep_host=True)


async def record_script(
    pool: BrowserPool,
    script: Script,
    base_url: str,
    out: str | Path,
    *,
    site: str | None = None,
    reset: bool | None = None,
    step_timeout_s: float = STEP_TIMEOUT_S,
) -> Path:
    """Run ``script`` against ``base_url`` in a fresh context and write its trace to ``out``.

    A ``goto`` that leads off the site raises :class:`~toolcache.urls.OffSiteURL`
    before anything is opened. A step whose target does not fit the page raises
    :class:`~toolcache.targets.TargetError` (the page's closest elements in the
    message); a site that does not answer a step within ``step_timeout_s``
    raises :class:`~agentjit.exceptions.SiteUnreachable`. Either way nothing is
    written to ``out`` (the trace is written beside it and moved there only
    once the run is over). A step that fails otherwise (an element that never
    becomes clickable) is recorded as failed, and the run stops there.
    """
    _check_gotos(script, base_url)
    if reset if reset is not None else script.reset:
        await asyncio.to_thread(reset_site, base_url)
    session = SessionEvent(
        site=site,
        start_url=base_url,
        agentjit_version=agentjit.__version__,
        task=script.description or script.name,
        source="recorder",
        script=script.name,
        viewport=pool.context_options.get("viewport", {"width": 1280, "height": 720}),
    )
    out = Path(out)
    part = out.with_name(f".{out.name}.part")
    try:
        async with pool.page() as page:
            page.set_default_timeout(step_timeout_s * 1000)
            page.set_default_navigation_timeout(step_timeout_s * 1000)
            nav = Navigations(page)
            net = _Network(page)
            await page.expose_binding("__ajOwnWrite", net.own_write)
            await page.add_init_script(PAGE_CLOCK_JS)
            with TraceWriter(part, session) as writer:
                for i, step in enumerate(script.steps):
                    where = f"{script.source}: step {i} ({step.action})"
                    try:
                        ok = await _record_step(page, nav, net, writer, step, base_url, where, step_timeout_s)
                    except TargetError as exc:
                        exc.path, exc.step = script.source, i
                        raise
                    if not ok:
                        break
                # the session the demonstration ended in (a sign-in's cookie): the build verifies with it
                state = await page.context.storage_state()
        write_secret_json(session_path(out), state)
        os.replace(part, out)
    finally:
        part.unlink(missing_ok=True)
    return out


SNAPSHOT_JS = source("snapshot.js")
"""The page's HTML with what it does not render marked (``toolcache/js/snapshot.js``)."""


async def snapshot_html(page: Any) -> str:
    """The DOM of ``page`` for a step's snapshot: :data:`SNAPSHOT_JS` (``page.content()`` where the
    page cannot run it)."""
    html = await page.evaluate(SNAPSHOT_JS)
    return html if isinstance(html, str) and html else str(await page.content())


async def _record_step(
    page: Any, nav: Navigations, net: _Network, writer: TraceWriter, step: ScriptStep, base_url: str, where: str,
    timeout_s: float,
) -> bool:
    """Run one step and write its trace line; returns whether it succeeded.

    Raises :class:`TargetError` for a target that does not fit the page and
    :class:`SiteUnreachable` (naming ``where`` and the URL) for a site that
    stopped answering, or is down when the target is missing.
    """
    url_before = page.url
    target: Target | None = None
    await net.take_writes()
    net.own = []
    net.step_started()
    await _clock(page, BEGIN_JS)
    if step.action == "wait":  # the demonstration waits: the page's own timers run meanwhile
        await _clock(page, RELEASE_JS)
    documents, mark = net.documents, nav.started
    start = time.time()
    ok, reason = True, None
    edit = step.action in ("fill", "press")
    try:
        loc = None
        if step.target is not None:
            wait_s = timeout_s if step.action == "wait" else min(TARGET_WAIT_S, timeout_s)
            spec = step.target
            loc = await _resolve_held(page, nav, spec, wait_s, where, timeout_s)
            target = Target.model_validate(await nav.stable(lambda: loc.evaluate(describe_js), timeout_s))
            start = time.time()
        if step.value and _stored_value(step, target, base_url) == REDACTED:
            net.secrets.add(str(step.value))  # kept out of this and every later request body
        if edit:  # a debounced handler (a live search) acts after the edit, whatever the machine's load
            with contextlib.suppress(Exception):
                await page.evaluate(EDIT_TIMERS_JS)
        await _perform(page, nav, step, base_url, loc, timeout_s)
        if edit:  # the long timers the edit set (an autosave) wait too, until a step that is no edit has settled
            await _clock(page, HOLD_JS)
            with contextlib.suppress(Exception):  # the edit loaded another document: the settling below waits for it
                await page.evaluate(EDIT_SETTLED_JS, int(EDIT_SETTLE_MAX_S * 1000))
        await nav.settle(timeout_s, since=mark)
        await net.settle(page)
    except TargetError:
        if (down := nav.down()) is not None:
            raise SiteUnreachable(f"{where}: {down}") from None
        raise
    except SiteUnreachable as exc:
        raise SiteUnreachable(f"{where} on {page.url}: {exc}") from exc
    except Exception as exc:  # a step that fails is recorded as failed, then the run stops
        hung = nav.unanswered(0)
        if hung is not None:  # the action waited for a page the site never sent
            raise SiteUnreachable(f"{where}: {hung} did not answer within {timeout_s:g} s") from exc
        if is_navigation_race(exc):  # the action's own navigation was replaced: wait it out, the step is done
            await nav.settle(timeout_s)
            await net.settle(page)
        else:
            ok, reason = False, _why(exc)
    end = time.time()
    writes = await net.take_writes()
    net.step_ended()
    background = await net.take_background()
    try:
        html = await nav.stable(lambda: snapshot_html(page), timeout_s)
        title = await nav.stable(page.title, timeout_s)
    except SiteUnreachable as exc:
        raise SiteUnreachable(f"{where} on {page.url}: {exc}") from exc
    # the step is over: after a step that is no edit, what the page's own timers held back runs now
    # (an edit's autosave when the click left the editor in place); then they wait for the next one
    if not edit:
        await _clock(page, RELEASE_BETWEEN_JS)
    await _clock(page, HOLD_JS)
    writer.step(
        StepEvent(
            index=writer.next_index(),
            action=step.action,
            url=url_before if url_before != "about:blank" else None,
            title=title,
            target=target,
            value=_stored_value(step, target, base_url),
            start=start,
            end=end,
            ok=ok,
            reason=reason,
            url_after=page.url,
            snapshot=writer.snapshot(html),
            requests=writes,
            background=background,
            goal=step.note,
            document=net.documents > documents,
        )
    )
    if not ok:
        log.warning("%s failed: %s", where, reason)
    return ok


async def _clock(page: Any, script: str) -> None:
    """Hold or release the page's own timers (:data:`PAGE_CLOCK_JS`); a page that is going away has none."""
    with contextlib.suppress(Exception):
        await page.evaluate(script)


HELD_FIRST_S = 0.5
"""How long a target is looked for while the page's own timers are held, before they are let run."""


async def _resolve_held(page: Any, nav: Navigations, spec: Any, wait_s: float, where: str, timeout_s: float) -> Any:
    """The step's target, looked for with the page's own timers held (:data:`PAGE_CLOCK_JS`); one the
    page has not drawn yet may wait on them (a results list a slow debounce fills): then they run,
    and the target is looked for again for the rest of ``wait_s``."""
    if wait_s > HELD_FIRST_S:
        try:
            return await nav.stable(lambda: resolve_target(page, spec, wait_s=HELD_FIRST_S, where=where), timeout_s + HELD_FIRST_S)
        except TargetError:
            await _clock(page, RELEASE_JS)
            wait_s -= HELD_FIRST_S
    return await nav.stable(lambda: resolve_target(page, spec, wait_s=wait_s, where=where), timeout_s + wait_s)


def output_paths(scripts: Sequence[Script], out_dir: str | Path, repeat: int = 1) -> list[Path]:
    """The trace files :func:`record_scripts` writes, in order: ``<name>.jsonl`` or ``<name>-<i>.jsonl``."""
    return [
        Path(out_dir) / (f"{s.name}.jsonl" if repeat == 1 else f"{s.name}-{i + 1}.jsonl")
        for s in scripts
        for i in range(repeat)
    ]


async def record_scripts(
    scripts: Sequence[Script],
    base_url: str,
    out_dir: str | Path,
    *,
    repeat: int = 1,
    site: str | None = None,
    pool: BrowserPool | None = None,
    step_timeout_s: float = STEP_TIMEOUT_S,
    on_trace: Callable[[Path], None] | None = None,
) -> list[Path]:
    """Record each script ``repeat`` times; one trace per run, ``<name>.jsonl`` or ``<name>-<i>.jsonl``.

    ``on_trace`` hears of each trace as it is written. An error of one script
    (:class:`~toolcache.targets.TargetError`, :class:`~agentjit.exceptions.SiteUnreachable`)
    stops the run; the traces written before it stay.
    """
    out_dir = Path(out_dir)
    paths: list[Path] = []

    for script in scripts:  # before the browser starts
        _check_gotos(script, base_url)

    async def run(p: BrowserPool) -> None:
        for script, out in zip((s for s in scripts for _ in range(repeat)), output_paths(scripts, out_dir, repeat), strict=True):
            paths.append(await record_script(p, script, base_url, out, site=site, step_timeout_s=step_timeout_s))
            if on_trace is not None:
                on_trace(paths[-1])

    if pool is not None:
        await run(pool)
    else:
        async with BrowserPool.from_spec() as own:
            await run(own)
    return paths
