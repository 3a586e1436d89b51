"""When the site changed under a tool: tell a broken tool from a plan error, and finish the call anyway (issue 21).

A failed call is one of

* a **plan error**: the plan called the tool in a state its ``pre`` does not
  allow (phase ``precondition``), or with an argument the page does not have
  (``execute`` threw naming an argument's value: "no menu item matches 'x'");
* a **site refusal**: a WRITE's request answered with an HTTP error, the
  effect log refusing a write it cannot confirm, a timeout;
* a **suspect tool**: the page is in the state the tool's ``pre`` names (the
  interpreter tracked it there) and still its ``pre_check`` fails, its
  ``execute`` cannot find its element (throws without naming an argument), its
  navigation never comes, its ``post_check`` fails after it ran, or its output
  no longer fits its schema. The markup the tool was made for has changed.

A suspect is recorded with its evidence (:class:`Suspect`: URL, the check that
failed, the DOM's hash and where the DOM was kept). A suspect READ may then be
answered by a :data:`ToolFallback` (the stepwise agent, :func:`agentjit.agent.agent_tool_fallback`),
its answer checked against the tool's output schema. A suspect WRITE falls back
only when it is known not to have reached the site: it failed before
``execute`` or its request was held back before it left the page, lacking a
value the call gave (:data:`NOT_SENT_PHASES`; :func:`request_hold`), or ``execute``
threw while the page sent no state-changing request and loaded no document
(:class:`RequestWatch`). Anything else could duplicate the write: the call
fails as before.
"""

from __future__ import annotations

import ast
import asyncio
import html
import json
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote_plus, urlsplit

from pydantic import BaseModel, Field

from agentjit.protocol.bodies import request_params
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.trace import RESPONSE_BODY_MAX

from .browser import READ_METHODS
from .invoke import CallOutcome
from .processes import run_command

__all__ = [
    "Suspect", "FallbackAnswer", "ToolFallback", "Verdict", "classify", "RequestWatch", "write_not_sent",
    "LITERAL", "selector_literals", "selectorish", "missing_selectors", "document_selectors", "COUNT_JS", "LOCATOR_TEXT",
    "heal_process", "inputs_not_carried", "text_inputs", "REQUEST_PHASE", "HELD_PHASE", "request_hold",
]  # fmt: skip

log = logging.getLogger(__name__)

Verdict = Literal["suspect", "plan_error", "site"]

#: Failure phases that say the tool no longer fits the page when the abstract state says it should.
_SUSPECT_PHASES = frozenset({"pre_check", "execute", "post_check", "output", "navigation", "request", "held"})

REQUEST_PHASE = "request"
"""The phase of a WRITE whose checks passed while its request lacked a value the call gave (:func:`inputs_not_carried`)."""

HELD_PHASE = "held"
"""The phase of a WRITE whose request :class:`RequestWatch` held back before it left the page (it would have lacked a
value the call gave), nothing else it started having reached the site: known not sent."""

NOT_SENT_PHASES: frozenset[str] = frozenset({"precondition", "pre_check", HELD_PHASE})
"""Failure phases of a write that cannot have reached the site (before ``execute`` ran, or held). The effect log's
own set (:data:`agentjit.runtime.effects.NOT_SENT_PHASES`),
not imported from there: the effect log names the interpreter, which imports this module (a test holds the two equal)."""

QUIET_S = 0.3
"""How long a failed WRITE's page is watched after the call for a request the tool's click started late."""


LITERAL = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\"""")
"""A JavaScript string literal in single or double quotes (no template literals)."""

LOCATOR_TEXT = " >> text="
"""What joins the CSS and the accessible name of the builder's Playwright-style locators (``button.btn >> text=Save``)."""

#: For each selector: -1 when it does not parse, else how many elements it matches; a locator ``CSS >> text=Name``
#: counts the elements its CSS matches whose accessible name or text is Name (the builder's ``__q`` reads it so).
COUNT_JS = r"""
(sels) => sels.map((s) => {
  const norm = (t) => String(t ?? '').replace(/\s+/g, ' ').trim().toLowerCase().replace(/&/g, 'and').replace(/[^a-z0-9]/g, '');
  const i = s.indexOf(' >> text=');
  try {
    if (i < 0) return document.querySelectorAll(s).length;
    const want = norm(s.slice(i + 9));
    const name = (e) => e.getAttribute('aria-label') || e.value || e.innerText || e.textContent;
    return [...document.querySelectorAll(s.slice(0, i))].filter((e) => norm(name(e)) === want).length;
  } catch (e) { return -1; }
})
"""


def selector_literals(source: str) -> list[str]:
    """The JavaScript string literals of ``source``, decoded, in order (duplicates kept once)."""
    out: list[str] = []
    for m in LITERAL.finditer(source):
        try:
            value = ast.literal_eval(m.group(0))  # JS and Python agree on simple quoted strings and their escapes
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str) and value not in out:
            out.append(value)
    return out


def selectorish(text: str) -> bool:
    """Whether a string literal looks like a CSS selector (an id, a class or an attribute in it), not a message."""
    return bool(text) and len(text) <= 200 and any(c in text for c in "[#.") and not text.rstrip().endswith(".")


_DOCUMENT_QUERY = re.compile(r"(?:\bdocument\.querySelector(?:All)?|(?<![\w.$])__q)\(\s*(" + LITERAL.pattern + ")")


def document_selectors(source: str) -> list[str]:
    """The selectors ``source`` looks up in the whole document (``document.querySelector('...')``, the builder's
    ``__q('...')``): elements that must be on the page whenever the tool runs, unlike those it looks up inside
    an element it opened (a dialog's fields)."""
    out: list[str] = []
    for m in _DOCUMENT_QUERY.finditer(source):
        out += [s for s in selector_literals(m.group(1)) if s not in out]
    return out


async def missing_selectors(page: Any, source: str, *, document_only: bool = False) -> list[str]:
    """The selectors written in ``source`` (a tool body) that parse and match nothing on ``page`` now; with
    ``document_only``, only those it looks up in the whole document (:func:`document_selectors`)."""
    found = document_selectors(source) if document_only else selector_literals(source)
    literals = [s for s in found if selectorish(s)]
    if not literals:
        return []
    try:
        counts = await page.evaluate(COUNT_JS, literals)
    except Exception:  # a page mid-navigation: no evidence either way
        return []
    return [s for s, n in zip(literals, counts, strict=True) if n == 0]


SAME_DESIGN = 0.5
"""The share of a good page's class names, ids and test ids a page must keep to count as the same design: a
READ that gives nothing on such a page read an empty list, not a redesign (:func:`read_nothing_where_it_read`)."""

_NAMES_JS = """() => {
  const out = new Set();
  for (const e of document.querySelectorAll('[class], [id], [data-testid]')) {
    for (const c of e.classList) out.add('.' + c);
    if (e.id) out.add('#' + e.id);
    const t = e.getAttribute('data-testid');
    if (t) out.add('@' + t);
  }
  return [...out];
}"""

_NAME_ATTRS = re.compile(r"""\s(class|id|data-testid)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def page_names(html: str) -> set[str]:
    """The class names (``.x``), ids (``#x``) and test ids (``@x``) written in ``html``, as :data:`_NAMES_JS` reads
    them from a live page."""
    out: set[str] = set()
    for m in _NAME_ATTRS.finditer(html):
        attr, value = m.group(1).lower(), m.group(2) if m.group(2) is not None else m.group(3)
        if attr == "class":
            out.update("." + c for c in value.split())
        elif value.strip():
            out.add(("#" if attr == "id" else "@") + value.strip())
    return out


def _read_text(path: str) -> str:
    return Path(path).read_text(encoding="utf-8", errors="replace")


async def names_kept(page: Any, good_dom_path: Any) -> float | None:
    """The share of the names (:func:`page_names`) of the good page saved at ``good_dom_path`` that ``page`` still
    has; None without that page or its names."""
    try:
        before = page_names(await asyncio.to_thread(_read_text, str(good_dom_path))) if good_dom_path else set()
        now = set(await page.evaluate(_NAMES_JS)) if before else set()
    except Exception:  # no saved page, or a page mid-navigation: no evidence either way
        return None
    return len(before & now) / len(before) if before else None


def gave_nothing(output: Any) -> bool:
    """Whether a READ's output holds no data: every value in it an empty list, dict or string, or None (a count,
    a flag or a name is data)."""
    if isinstance(output, dict):
        return all(gave_nothing(v) for v in output.values())
    if isinstance(output, list):
        return not output
    return output is None or output == ""


async def read_nothing_where_it_read(page: Any, tool: ToolManifest, outcome: CallOutcome,
                                     good_calls: list[dict[str, Any]]) -> str | None:  # fmt: skip
    """Why a READ that worked (``outcome``) but gave nothing looks broken rather than shown an empty page, or None.

    Broken: a good call of it on a page of the same path gave data (``good_calls``, the suspect store's), not one
    of the elements it looks up in the whole document is on the page now, and the page kept less than
    :data:`SAME_DESIGN` of the names its good page had (a redesign renamed the list it reads, so it finds no rows
    and no error). An empty cart or search result on the same design keeps its names: the tool stands.
    """
    if tool.is_write or tool.navigates or not gave_nothing(outcome.output):
        return None
    path = urlsplit(outcome.url_before or getattr(page, "url", "") or "").path
    worked = [c for c in good_calls
              if urlsplit(str(c.get("url") or "")).path == path and c.get("output") is not None and not gave_nothing(c.get("output"))]  # fmt: skip
    looked_up = [s for s in document_selectors(tool.execute) if selectorish(s)]
    if not worked or not looked_up:
        return None
    gone = await missing_selectors(page, tool.execute, document_only=True)
    if len(gone) < len(looked_up):
        return None
    kept = await names_kept(page, good_calls[0].get("dom_path"))
    if kept is None or kept >= SAME_DESIGN:
        return None  # the page keeps its names: an empty list on it, not a tool that no longer fits
    return (f"it gave nothing on {path}, where it gave data before (arguments {json.dumps(worked[0].get('args') or {}, default=str)}), "
            f"and none of the elements it looks up is on the page ({', '.join(gone[:4])}); the page keeps {kept:.0%} of the "
            "class names and ids it had")  # fmt: skip


class Suspect(BaseModel):
    """The evidence that ``tool`` no longer fits the site."""

    tool: str
    effect: Literal["READ", "WRITE"]
    phase: str
    """The check that failed: ``pre_check``, ``execute`` (element not found), ``post_check``, ``output``, ``navigation``."""
    reason: str | None = None
    url: str | None = None
    url_after: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    state: dict[str, Any] = Field(default_factory=dict)
    """The abstract state the interpreter tracked (it satisfied the tool's ``pre``)."""
    dom_sha256: str | None = None
    dom_path: str | None = None
    tool_version: int = 1
    at: float = Field(default_factory=time.time)
    write_sent: bool | None = None
    """For a WRITE: whether it may have reached the site (None for a READ)."""
    writes: list[dict[str, Any]] | None = None
    """For a WRITE that reached the site: the requests it sent with the site's answers (status, redirect location),
    as a good call keeps them (:meth:`RequestWatch.recorded`); heal answers a rebuilt tool's request with them."""
    landing_url: str | None = None
    landing_dom_path: str | None = None
    """For such a WRITE whose answer redirected: the page the redirect led to (its address, its HTML kept beside the
    other snapshots), where heal judges a rebuilt tool's script and post_check when the site no longer shows it."""


class FallbackAnswer(BaseModel):
    """What a fallback for one tool call gave: the output (checked against the tool's schema) and its cost."""

    output: Any = None
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    time_s: float = 0.0
    steps: int = 0
    trace_path: str | None = None


ToolFallback = Callable[[Any, ToolManifest, dict[str, Any], Suspect], Awaitable[FallbackAnswer]]
"""``fallback(page, tool, args, suspect)``: do what ``tool`` would have done on ``page``; its answer's output."""


def _names_an_argument(reason: str, args: dict[str, Any]) -> bool:
    text = reason.lower()
    for value in args.values():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            v = str(value).strip().lower()
            if len(v) >= 2 and v in text:
                return True
    return False


def classify(tool: ToolManifest, outcome: CallOutcome, args: dict[str, Any]) -> Verdict:
    """Who is at fault for failed ``outcome`` of a call whose abstract ``pre`` held (the interpreter checked it).

    ``precondition`` (the abstract state did not allow the call) and an execute error that names one of the
    arguments' values are the plan's; HTTP errors, timeouts and the effect log's refusals are the site's;
    any other failure of pre_check, execute, navigation, post_check or the output schema makes the tool suspect.
    """
    phase = outcome.phase or ""
    reason = outcome.reason or ""
    if phase == "precondition":
        return "plan_error"
    if outcome.replayed or phase not in _SUSPECT_PHASES:
        return "site"
    if phase == "navigation" and "answered HTTP" in reason:
        return "site"
    if phase == "execute" and _names_an_argument(reason, args):
        return "plan_error"
    return "suspect"


def _text_body(request: Any) -> str | None:
    """A request's body as text; None for none or a binary one (an upload)."""
    try:
        body = request.post_data
    except Exception:  # a binary body
        return None
    return body if isinstance(body, str) else None


class RequestWatch:
    """The state-changing requests (and document loads) a page starts while a WRITE runs.

    ``async with RequestWatch(page) as watch: ...`` then ``watch.sent``: whether any request that can change the
    site (not GET/HEAD/OPTIONS, or a document navigation) started. A page without ``on``/``remove_listener``
    (a fake) counts as having sent: fail closed.
    """

    def __init__(self, page: Any, *, hold: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.page = page
        self.requests: list[str] = []
        self.watching = False
        self.hold = hold
        """Asked of each state-changing request before it leaves the page (:func:`request_hold`): why it must not
        reach the site, or None. A request it names is aborted, never sent."""
        self.held: list[str] = []
        """Why each aborted request was held back."""
        self._writes: list[Any] = []
        self._held: list[Any] = []

    def _on_request(self, request: Any) -> None:
        try:
            method = str(request.method).upper()
            document = request.resource_type == "document"
        except Exception:  # a request we cannot read: fail closed
            self.requests.append("?")
            return
        if method not in READ_METHODS or document:
            self.requests.append(f"{method} {request.url}")
        if method not in READ_METHODS:
            self._writes.append(request)

    async def _route(self, route: Any) -> None:
        request = route.request
        why = None
        if str(request.method).upper() not in READ_METHODS and self.hold is not None:
            try:
                write = {"method": str(request.method).upper(), "url": request.url, "post_data": _text_body(request)}
                why = self.hold(write)
            except Exception:  # a request it cannot read: let it go, the check after the call still holds it
                log.debug("cannot hold %s", request.url, exc_info=True)
        try:
            if why is None:
                await route.fallback()
                return
            self.held.append(why)
            self._held.append(request)
            log.warning("held back %s %s before it reached the site: %s", request.method, request.url, why)
            await route.abort("blockedbyclient")
        except Exception:  # a page closed meanwhile: its request goes nowhere either way
            log.debug("route of %s not finished", request.url, exc_info=True)

    def sent_writes(self) -> list[dict[str, Any]]:
        """The state-changing requests the page sent so far: ``method``, ``url``, ``post_data`` (None when binary)."""
        return [{"method": str(req.method).upper(), "url": req.url, "post_data": _text_body(req)} for req in self._writes
                if req not in self._held]  # fmt: skip

    async def recorded(self) -> list[dict[str, Any]]:
        """The state-changing requests the page sent, as a demonstration's trace keeps them (method, url,
        ``post_data``, ``status``, ``response``: the content type and location headers and a text body): what
        ``toolcache heal`` answers a healed WRITE's request with instead of sending it."""
        out: list[dict[str, Any]] = []
        for req in (r for r in self._writes if r not in self._held):
            body = _text_body(req)
            status, response = None, None
            try:
                resp = await req.response()
                if resp is not None:
                    status = resp.status
                    headers = {k: v for k, v in (resp.headers or {}).items() if k.lower() in ("content-type", "location")}
                    text = None
                    kind = headers.get("content-type", "")
                    if not 300 <= status < 400 and (not kind or kind.startswith("text/") or "json" in kind):
                        try:
                            text = (await resp.text())[:RESPONSE_BODY_MAX]
                        except Exception:  # a document the page left: its body is gone
                            text = None
                    response = {"headers": headers, "body": text}
            except Exception:  # a request that never got an answer
                log.debug("no response for %s %s", req.method, req.url, exc_info=True)
            out.append({"method": str(req.method).upper(), "url": req.url, "resource": req.resource_type,
                        "post_data": body[:RESPONSE_BODY_MAX] if isinstance(body, str) else None,
                        "status": status, "response": response})  # fmt: skip
        return out

    async def landing(self, page: Any) -> tuple[str, str] | None:
        """The page the last state-changing request's answer redirected to, as the site answered it: its address and
        HTML (a script's fetch follows the redirect without loading it, a form post loads it: ``page``'s own HTML
        when the answer's body is gone); None when no such request redirected to an HTML page."""
        last = next((req for req in reversed(self._writes) if _redirected_to(req) is not None), None)
        if last is None:
            return None
        final = last
        while (nxt := _redirected_to(final)) is not None:
            final = nxt
        try:
            resp = await final.response()
            if resp is None or "html" not in (resp.headers or {}).get("content-type", "html"):
                return None
            return final.url, await resp.text()
        except Exception:  # a document the page left, or still shows (its body is the page's)
            log.debug("no body for %s", final.url, exc_info=True)
        try:
            return (final.url, await page.content()) if getattr(page, "url", None) == final.url else None
        except Exception:  # a page mid-navigation: no landing to keep
            return None

    async def __aenter__(self) -> RequestWatch:
        on = getattr(self.page, "on", None)
        if callable(on):
            on("request", self._on_request)
            self.watching = True
            if self.hold is not None:
                await self.page.route("**/*", self._route)
        return self

    async def settle(self, quiet_s: float = QUIET_S) -> None:
        """Wait ``quiet_s`` more: a click's handler may send its request after the tool's script returned."""
        if self.watching:
            await asyncio.sleep(quiet_s)

    async def __aexit__(self, *exc: object) -> None:
        if self.watching:
            try:
                self.page.remove_listener("request", self._on_request)
                if self.hold is not None:
                    await self.page.unroute("**/*", self._route)
            except Exception:  # a closed page
                pass

    @property
    def sent(self) -> bool:
        """Whether a state-changing request or a document load may have reached the site (those held back did not)."""
        if not self.watching:
            return True
        left = list(self.requests)
        for req in self._held:
            name = f"{str(req.method).upper()} {req.url}"
            if name in left:
                left.remove(name)
        return bool(left)


def _redirected_to(request: Any) -> Any:
    try:
        return request.redirected_to
    except Exception:  # a fake request, or one of a frame that is gone
        return None


def write_not_sent(outcome: CallOutcome, watch: RequestWatch | None) -> bool:
    """Whether a failed WRITE is known not to have reached the site.

    Failed before ``execute`` (``precondition``, ``pre_check``), or ``execute`` threw while the page started no
    state-changing request and no document load. A replayed outcome, a navigation, a post_check or output
    failure all ran the write's click: never known not sent.
    """
    if outcome.replayed:
        return False
    if outcome.phase in NOT_SENT_PHASES:
        return True
    return outcome.phase == "execute" and watch is not None and not watch.sent


def _spaced(text: str) -> str:
    """``text`` as a value is compared in a request: its spacing collapsed (a form sends a textarea's line breaks as
    CRLF), its HTML entities read (an editor may escape what it sends)."""
    return " ".join(html.unescape(text).split())


def _texts(write: dict[str, Any]) -> list[str]:
    """Every text a request carries a value in: its parameters' values (form fields, a JSON body's leaves), its body
    as sent and url-decoded (a body of another kind), its URL's query, decoded; spacing collapsed."""
    raw = write.get("post_data")
    body = raw if isinstance(raw, str) else ""
    values = [v for vs in request_params(body).values() for v in vs]
    # a field whose value is JSON (an editor's hidden field: its content state), read as its leaves too
    values += [leaf for v in values if v[:1] in "{[" and _json(v) for vs in request_params(v).values() for leaf in vs]
    return [_spaced(t) for t in (*values, body, unquote_plus(body), unquote_plus(str(write.get("url") or "")))]


def _json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _carries(write: dict[str, Any], value: str) -> bool:
    want = _spaced(value)
    return any(want in text for text in _texts(write))


def _param_of(write: dict[str, Any], value: str) -> str | None:
    """The parameter of ``write`` that carried ``value``, when it is a form field or a JSON leaf."""
    want = _spaced(value)
    body = write.get("post_data") if isinstance(write.get("post_data"), str) else None
    return next((k for k, vs in request_params(body).items() if any(want in _spaced(v) for v in vs)), None)


def inputs_not_carried(tool: ToolManifest, args: dict[str, Any], sent: list[dict[str, Any]],
                       good_calls: list[dict[str, Any]]) -> list[str]:  # fmt: skip
    """Why the requests a WRITE call ``sent`` did not carry what the call gave it, one reason per input; empty when
    they did, or when there is nothing to hold them to.

    Held to the tool's good calls on record (each with its ``args`` and the ``writes`` it sent, as the suspect store
    keeps them: :meth:`~agentjit.cache.SuspectStore.good_calls`): an input is checked when such a call gave it a text
    that one of its requests carried (a form field, a JSON leaf, the body or the URL, its spacing aside), and this
    call gives it a text too; then one of the requests sent now must carry this call's text. An input the site sends
    otherwise than given (a date reformatted) was not carried as given by a good call either, and is not checked;
    only free texts are (:func:`text_inputs`: not a choice, whose label is sent as its option's value, nor a secret,
    whose value is never on record). A call that sent no state-changing request is not judged here."""
    if not sent:
        return []
    texts = text_inputs(tool)
    out: list[str] = []
    for name, value in args.items():
        if name not in texts or not isinstance(value, str) or not _spaced(value):
            continue
        carried = _carried_by(good_calls, name)
        if carried is None or any(_carries(w, value) for w in sent):
            continue
        param = _param_of(*carried)
        now = [vs for w in sent for k, vs in request_params(w.get("post_data")).items() if k == param] if param else []
        shown = f"{param}={now[0][0]!r}" if now else (f"no {param!r}" if param else "no such text")
        out.append(f"{name}: the request sent carries not the value given ({shown}) where the recorded one carried "
                   f"the value its good call gave{f' as {param!r}' if param else ''}")  # fmt: skip
    return out


def request_hold(tool: ToolManifest, args: dict[str, Any],
                 good_calls: list[dict[str, Any]]) -> Callable[[dict[str, Any]], str | None] | None:  # fmt: skip
    """What holds a WRITE call's request back before it reaches the site (:class:`RequestWatch`'s ``hold``): a
    request to the route (method and path) of a good call's request that carried the text that call gave an input,
    which does not carry the text this call gives it (a fill the redesign sent nowhere). :func:`inputs_not_carried`'s
    rule, asked before the request leaves instead of after; None when there is nothing to hold it to."""
    texts = text_inputs(tool)
    targets: list[tuple[str, str, str, str, str | None]] = []
    for name, value in args.items():
        if name not in texts or not isinstance(value, str) or not _spaced(value):
            continue
        carried = _carried_by(good_calls, name)
        if carried is not None:
            w = carried[0]
            targets.append((str(w.get("method") or "POST").upper(), urlsplit(str(w.get("url") or "")).path, name, value,
                            _param_of(*carried)))  # fmt: skip
    if not targets:
        return None

    def hold(write: dict[str, Any]) -> str | None:
        path = urlsplit(str(write.get("url") or "")).path
        lost = [f"{name}: the request leaves without the value given{f' (as {param!r})' if param else ''}"
                for method, where, name, value, param in targets
                if write.get("method") == method and path == where and not _carries(write, value)]  # fmt: skip
        return "; ".join(lost) or None

    return hold


def text_inputs(tool: ToolManifest) -> list[str]:
    """The inputs of ``tool`` that take a free text (a string with no ``enum`` of choices, no secret): what a
    request carries as given."""
    return [name for name, spec in tool.parameters.items() if isinstance(spec, dict) and spec.get("type") == "string"
            and "enum" not in spec and not spec.get("writeOnly")]  # fmt: skip


def _carried_by(good_calls: list[dict[str, Any]], name: str) -> tuple[dict[str, Any], str] | None:
    """A request of a good call that carried the text that call gave input ``name``, and that text; or None."""
    for call in good_calls:
        old = call.get("args", {}).get(name) if isinstance(call.get("args"), dict) else None
        writes = call.get("writes")
        if not isinstance(old, str) or not _spaced(old) or not isinstance(writes, list):
            continue
        for w in writes:
            if isinstance(w, dict) and _carries(w, old):
                return w, old
    return None


PROBE_S_PER_TOOL = 30.0
"""What probing may add to a heal's time limit per tool of the cache (a page or two loaded and the tool run once,
on a busy machine)."""


async def heal_process(cache_dir: str, site_url: str, tools: list[str], secrets: dict[str, str],
                       timeout_s: float, *, probe: bool = True,
                       session: dict[str, Any] | None = None) -> tuple[int | None, str, str]:  # fmt: skip
    """``toolcache heal --json`` on ``tools`` as a process of its own (the builder imports agentjit, never the
    reverse): its exit code (None past ``timeout_s``), stdout and stderr. With ``secrets`` it signs in first, the
    values handed over on stdin (``--secrets-stdin``), out of the process list; with ``session`` (a browser storage
    state) every page it opens starts from it instead (``--session-stdin``, on stdin too). ``probe``: the heal also
    probes the cache's other tools and heals those found broken (``--no-probe`` when False); ``timeout_s`` then grows
    by :data:`PROBE_S_PER_TOOL` per tool of the cache."""
    if session is not None and secrets:
        raise ValueError("heal_process: a session or secrets, not both")
    argv = [sys.executable, "-m", "toolcache.cli", "heal", "--cache", cache_dir, "--site", site_url, "--json"]
    if probe:
        timeout_s += PROBE_S_PER_TOOL * len(list((Path(cache_dir) / "tools").glob("*.json")))
    else:
        argv.append("--no-probe")
    for name in tools:
        argv += ["--tool", name]
    stdin = None
    if session is not None:
        argv.append("--session-stdin")
        stdin = json.dumps(session)
    elif secrets:
        argv += ["--sign-in", "--secrets-stdin"]
        stdin = json.dumps(secrets)
    return await run_command(argv, timeout_s, stdin=stdin)
