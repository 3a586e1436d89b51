"""Verify: run every synthesized tool against the live site; keep what passes.

Each recorded demonstration is replayed as a sequence of *tool calls*: a card
click becomes ``goto_<card>(name)``, a search becomes ``search(query)``, a
filled form and its submit become one ``setFields`` call, and so on, with the
arguments the demonstration used. On every page the replay reaches, the READ
tools whose ``pre`` holds there are probed too, with name inputs taken from a
list tool's output on that page. A tool is kept when at least one call passed
its checks; otherwise it is rejected with the last failure.

Relations (LIBRA's counterfactual test): a consumer's name input is tied to a
provider list (``pre_tools``) only when, from the same state, the call with a
value from the provider's output succeeds and the call with an unrelated value
fails.

Writes (``writes``, the ``--verify-writes`` of ``toolcache build``):

- ``recorded`` (the default) never changes the site: every state-changing
  request is answered from the demonstration's recorded response or refused
  (:mod:`toolcache.recorded`); a WRITE tool passes when it sent the demonstrated
  request and its post_check accepts the recorded outcome. No reset is needed
  or made. A WRITE tool whose demonstration kept no response (a trace from
  before format version 2) is kept unverified (:data:`OLD_TRACE`).
- ``live`` sends the WRITE calls of the replay, with the demonstrated arguments
  only, to the site, and runs ``reset`` before every trace.
- ``none`` calls no WRITE tool; they are kept, unverified.

Signing in (a demonstrated request that carries a secret) is a write like the others: by
default it is answered from its recording, never sent, and the session the demonstration saved
(``sessions``: :func:`toolcache.record.session_path`) is put into the browser in its place, so the
tools behind the sign-in are verified on the live site with it. When the site sends its sign-in
page for a page the demonstration saw signed in, the session has expired (or the trace saved
none): the tools the rest of that trace would verify are kept unverified (:data:`NO_SESSION`),
and the trace is listed in ``VerifyReport.sessions_expired``. Only with ``sign_in`` (the user's
consent, ``toolcache build --sign-in``) is the sign-in sent live, with the secret the user gave.
Whatever was sent to the site is listed in ``VerifyReport.sent_live``.

In every mode, the control call of a counterfactual test and the READ probes
never send a write: their state-changing requests are refused. A WRITE
consumer's relation is therefore kept only when its control fails in the page
(no card named the unrelated value), before any request; a control that gets
as far as sending its request was cut off and tells nothing, so no relation.
"""

# The per-trace closures (call, counterfactual, probe) are rebuilt for every trace and run only
# within it, so late binding of the loop variables is what is meant:
# ruff: noqa: B023
from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from agentjit.exceptions import SiteUnreachable
from agentjit.protocol.schema import to_plain
from agentjit.protocol.state import satisfies
from agentjit.protocol.trace import Trace
from agentjit.runtime import BrowserPool, CallOutcome, call_tool

from .codegen import Synth
from .inputs import typed
from .label import LabeledStep
from .navigation import Navigations, page_html
from .pages import PAGE_JS, page_name, with_routes
from .recorded import WriteGuard, answerable, describe
from .redact import REDACTED
from .script import STEP_TIMEOUT_S
from .urls import site_url

__all__ = ["ToolVerdict", "VerifyReport", "verify_tools", "UNRELATED", "WRITE_MODES", "OLD_TRACE", "NO_SESSION"]

log = logging.getLogger(__name__)

UNRELATED = "zzq unrelated value 7"
"""The control value of the counterfactual test: no site names anything like it."""
MAX_PROBES = 2
"""Passing calls per READ tool after which it is not probed again."""
WRITE_MODES = ("recorded", "live", "none")
"""How WRITE tools are verified (``toolcache build --verify-writes``); the first is the default."""
OLD_TRACE = "not verified: its demonstration kept no response (re-record the demonstration, or use --verify-writes live)"
NOT_ASKED = "not verified: --verify-writes none"
NO_SESSION = ("not verified: the site sent its sign-in page ({login}) where {trace} was signed in: its saved "
              "session has expired or it saved none (record the demonstration again, or build with --sign-in "
              "to sign in live)")
NO_SECRET = "<not sent>"
"""What a sign-in answered from its recording types for a secret the user did not give: the
request never leaves the browser."""


@dataclass
class ToolVerdict:
    name: str
    passed: int = 0
    failed: int = 0
    reasons: list[str] = field(default_factory=list)
    witness: dict[str, Any] | None = None
    """Arguments of a passing call."""
    witness_setup: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Tool calls (from a reset site, after ``witness_url``) that reached the passing call's state."""
    witness_url: str | None = None
    latencies: list[float] = field(default_factory=list)
    how: str | None = None
    """How a tool that sends writes passed: ``recorded`` (answered from the demonstration),
    ``live`` (sent to the site), ``sign-in, live`` (a sign-in with a secret the user gave)."""
    unverified: str | None = None
    """Why a tool that sends writes was never called (:data:`OLD_TRACE`, :data:`NOT_ASKED`):
    kept in the cache, flagged in the report."""
    good: dict[str, Any] | None = None
    """The first passing call on the live site's own state (no write answered from the record before it): ``url``,
    ``args`` (secrets redacted), ``html`` (the page it read; a navigating tool's or a WRITE's start page), a READ's
    ``output``, a WRITE's ``writes`` (its demonstration's requests) and, for a navigating tool, ``after_url`` and
    ``after_html``. The build keeps it as the tool's good call (``suspects.json``), which ``toolcache heal`` probes
    the tool with (and signs in with) before any run has recorded one."""

    @property
    def ok(self) -> bool:
        return self.passed > 0

    @property
    def reason(self) -> str:
        if self.ok:
            return ""
        if not self.reasons:
            return "never ran: no replayed state satisfied its pre"
        return Counter(self.reasons).most_common(1)[0][0]


@dataclass
class VerifyReport:
    verdicts: dict[str, ToolVerdict] = field(default_factory=dict)
    relations: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    relation_tests: list[dict[str, Any]] = field(default_factory=list)
    calls: int = 0
    seconds: float = 0.0
    writes: str = "recorded"
    """The write verification mode (:data:`WRITE_MODES`)."""
    sent_live: list[dict[str, str]] = field(default_factory=list)
    """Every state-changing request sent to the site: ``{tool, request, why}`` (none by default)."""
    sessions_expired: dict[str, str] = field(default_factory=dict)
    """Trace -> the sign-in page the site sent where the demonstration was signed in."""


def _path(url: str | None) -> str:
    u = urlparse(url or "/")
    return (u.path or "/") + (f"?{u.query}" if u.query else "")


async def _page_type(page: Any, routes: Sequence[str] = ()) -> str:
    try:
        return str(await page.evaluate("() => {" + with_routes(PAGE_JS, routes) + "return __page(); }"))
    except Exception:
        return ""


def _names(output: Any, key: str | None) -> list[str]:
    items = output.get("items") if isinstance(output, dict) else None
    if not isinstance(items, list):
        return []
    out = []
    for it in items:
        if isinstance(it, dict):
            val = it.get(key) if key else it.get("name")
            if val is None:
                val = next((v for k, v in it.items() if "name" in k and isinstance(v, str)), None)
            if isinstance(val, str):
                out.append(val)
            elif isinstance(val, (int, float)) and not isinstance(val, bool):
                out.append(f"{val:g}")  # a row id: a name too (7.0 is "7")
    return out


async def verify_tools(
    synths: list[Synth],
    traces: dict[str, list[LabeledStep]],
    pool: BrowserPool,
    base_url: str,
    *,
    reset: Callable[[], Awaitable[None]] | None = None,
    on_trace: Callable[[str], None] | None = None,
    secrets: dict[str, str] | None = None,
    routes: Sequence[str] = (),
    writes: str = "recorded",
    recorded: dict[str, Trace] | None = None,
    step_timeout_s: float = STEP_TIMEOUT_S,
    focus: set[str] | None = None,
    sessions: dict[str, dict[str, Any]] | None = None,
    sign_in: bool = False,
) -> VerifyReport:
    """Replay ``traces`` as tool calls on ``base_url``, probe READ tools, test relations.

    ``writes`` is one of :data:`WRITE_MODES` (see the module docstring); ``reset`` runs before
    every trace in ``live`` mode only. ``recorded`` holds the traces themselves (by the same
    names as ``traces``): the documents a replay that left the live site's state is shown.
    A site that leaves a page unanswered for ``step_timeout_s`` raises
    :class:`~agentjit.exceptions.SiteUnreachable`; a page that redirects is waited out.
    ``focus``: the tools to verify (the workflow tools of a second pass); the others only move
    the replay along as demonstrated, unprobed and untested. ``sessions``: the storage state each
    trace saved (by the names of ``traces``), put into the browser after its sign-in; ``sign_in``:
    send the sign-in to the site instead (see the module docstring).
    """
    if writes not in WRITE_MODES:
        raise ValueError(f"writes must be one of {', '.join(WRITE_MODES)}, not {writes!r}")
    t0 = time.perf_counter()
    report = VerifyReport(writes=writes)
    secrets = secrets or {}
    sessions = sessions or {}
    by_name = {s.manifest.name: s for s in synths}
    for s in synths:
        report.verdicts[s.manifest.name] = ToolVerdict(s.manifest.name)
    step_tool: dict[int, tuple[Synth, int]] = {}
    for s in synths:
        if s.kind in ("goto_card", "goto_link", "card_action", "open_dialog"):
            for ev in s.evidence:
                step_tool[id(ev)] = (s, 0)
        elif s.kind in ("sort", "filter_links", "page_number", "goto_route"):
            for i, ev in enumerate(s.evidence):
                step_tool[id(ev)] = (s, i)
        elif s.kind == "filter":
            for i, ev in enumerate(s.evidence[1::2]):
                step_tool[id(ev)] = (s, i)
        elif s.kind == "workflow":
            for i, ev in enumerate(getattr(s, "starts", ())):  # called where its segment starts
                step_tool[id(ev)] = (s, i)
        elif s.kind == "form":
            last_steps = [ev for ev in s.evidence if ev.element is not None and ev.element.name == s.element]
            for i, ev in enumerate(last_steps):
                step_tool[id(ev)] = (s, i)
    tested: set[tuple[str, str]] = set()

    # One page for all the replays: the site keeps its state on the server (reset between traces)
    # and every replay starts with a goto, so a fresh browser context per trace (over a second
    # each on a loaded machine) would buy nothing; cookies are cleared all the same.
    async with pool.page() as page:
        guard = WriteGuard(base_url, mode=writes, routes=routes)
        guard.learn_background((recorded or {}).values())  # a page's ping, whichever trace recorded it
        await guard.install(page)
        nav = Navigations(page, step_timeout_s)  # every goto and call waits out the page's own redirects
        for tname, steps in traces.items():
            if on_trace is not None:
                on_trace(tname)
            if reset is not None and writes == "live":
                await reset()
            guard.start_trace((recorded or {}).get(tname))
            await page.context.clear_cookies()
            login: list[str | None] = [None]
            """The page the trace signed in on, once its sign-in step is replayed without being sent."""
            await page.goto("about:blank")
            # mutable holders, emptied (never rebound) as the replay moves on
            setup: list[tuple[str, dict[str, Any]]] = []
            start: list[str | None] = [None]
            lists_here: dict[str, Any] = {}
            """List tool -> its output on the current page (None when it failed)."""
            probed_here: set[tuple[str, str]] = set()

            async def call(synth: Synth, args: dict[str, Any], *, record: bool = True, demonstrated: bool = False) -> CallOutcome:
                """One tool call; ``demonstrated``: a replayed step's call with its demonstrated
                arguments, the only kind whose writes are answered (or, live, sent)."""
                report.calls += 1
                v = report.verdicts[synth.manifest.name]
                shown = _shown_writes(synth) if demonstrated else []
                # a call on the live site's own state (no write answered from the record before it) is a good call;
                # a WRITE's only with the requests its demonstration sent, which heal answers it from
                keep_good = record and v.good is None and not guard.diverged and (not synth.manifest.is_write or bool(shown))
                start_html = await page_html(page) if keep_good and (synth.manifest.navigates or synth.manifest.is_write) else None
                signs_in = _signs_in(synth)
                live = demonstrated and _sent_live(synth, secrets, writes, sign_in)
                guard.begin(shown, args, live=live, sign_in=signs_in)
                mark = nav.started
                try:
                    # a navigation may take what a step may (the site under load), a check no longer than its own timeout
                    out = await call_tool(page, synth.manifest, args, navigation_timeout_ms=int(step_timeout_s * 1000))
                    await nav.settle(since=mark)
                except SiteUnreachable:
                    raise  # the site, not the tool: the build stops (exit 3) and keeps the cache there
                except Exception as exc:  # bad inputs or a dead page: a failed call
                    out = CallOutcome(tool=synth.manifest.name, ok=False, phase="execute", reason=str(exc).splitlines()[0])
                finally:
                    answered, sent, refused = guard.end()
                why = "sign-in, --sign-in" if signs_in and writes != "live" else "--verify-writes live"
                report.sent_live += [{"tool": synth.manifest.name, "request": describe(m, u, routes), "why": why} for m, u in sent]
                how = None
                if refused:  # a request the demonstration did not send: it never reached the site
                    out = CallOutcome(tool=synth.manifest.name, ok=False, phase="verify", reason=refused[0])
                elif out.ok and shown:
                    differs = _request_differs(synth, sent) if live else (None if answered else _request_differs(synth, []))
                    if differs:
                        out = CallOutcome(tool=synth.manifest.name, ok=False, phase="verify", reason=differs)
                    how = "recorded" if answered else ("live" if writes == "live" else "sign-in, live")
                if record:
                    if out.ok:
                        v.passed += 1
                        v.latencies.append(out.timings.get("total", 0.0))
                        v.how = v.how or how
                        if v.witness is None:
                            v.witness, v.witness_setup, v.witness_url = _masked(synth, args), list(setup), start[0]
                        if keep_good:
                            v.good = await _good_call(page, synth, _masked(synth, args), out, start_html, shown)
                    else:
                        v.failed += 1
                        v.reasons.append(f"{out.phase}: {out.reason}")
                return out

            async def counterfactual(consumer: Synth, args: dict[str, Any]) -> bool | None:
                """Run the control (unrelated value) from the current state; True when it failed."""
                pname = consumer.name_param
                provider = consumer.source_list
                if not pname or not provider or args.get(pname) is None:
                    return None
                names = await names_of(provider, pname)
                if names is None or str(args[pname]) not in names:
                    return None
                url_before = page.url
                control = await call(consumer, {**args, pname: UNRELATED}, record=False)
                if control.ok and page.url != url_before:
                    await nav.goto(url_before)
                if control.phase == "verify" and _shown_writes(consumer):
                    return None  # cut off at its request, which never reached the site: it tells nothing
                return not control.ok

            async def names_of(provider: str, key: str | None = None) -> list[str] | None:
                """The names a list tool shows on the current page, listed once per page (on demand);
                ``key`` is the item field the consumer takes (a row's ``id``), else the list's name field."""
                lister = by_name.get(provider)
                if lister is None:
                    return None
                if provider not in lists_here:
                    if not satisfies({"page": await _page_type(page, routes)}, lister.manifest.pre, {}):
                        return None
                    out = await call(lister, {})
                    lists_here[provider] = out.output if out.ok else None
                fields = lister.manifest.output_schema.get("properties", {}).get("items", {}).get("items", {}).get("properties", {})
                return _names(lists_here[provider], key if key in fields else _name_key(lister, lister.element))

            async def probe() -> None:
                """Run the READ tools whose pre holds here, until each has passed MAX_PROBES times.

                A list tool is called here only while it needs probing itself or when a consumer
                needs its names (``names_of``), not again on every page it applies to.
                """
                ptype = await _page_type(page, routes)
                state = {"page": ptype}
                for s in synths:
                    m = s.manifest
                    if m.is_write or m.navigates or s.kind not in ("list", "group_list", "fields", "card_details", "observe"):
                        continue
                    if focus is not None and m.name not in focus:
                        continue
                    if report.verdicts[m.name].passed >= MAX_PROBES or (m.name, ptype) in probed_here:
                        continue
                    if not satisfies(state, m.pre, {}):
                        continue
                    probed_here.add((m.name, ptype))
                    if s.kind == "list":
                        await names_of(m.name)
                        continue
                    args: dict[str, Any] = {}
                    if s.name_param:
                        names = await names_of(s.source_list or "", s.name_param)
                        if not names:
                            continue
                        args = {s.name_param: names[0]}
                        key = (m.name, ptype)
                        if key not in tested:
                            failed_control = await counterfactual(s, args)
                            out = await call(s, args)
                            _relation(report, s, args, failed_control, out.ok, tested, key)
                            continue
                    await call(s, args)

            def expired(pos: int) -> bool:
                """Whether the site just sent its sign-in page where the demonstration was signed in;
                if so the tools of the rest of the trace are marked (:data:`NO_SESSION`)."""
                if login[0] is None or page_name(page.url, routes) != login[0]:
                    return False
                if pos < len(steps) and page_name(steps[pos].step.url_after, routes) == login[0]:
                    return False
                reason = NO_SESSION.format(login=_path(page.url), trace=tname)
                report.sessions_expired[tname] = _path(page.url)
                later = {p for ls in steps[pos:] for p in (ls.page_before, ls.page_after) if p}
                for ls in steps[pos:]:
                    hit = step_tool.get(id(ls))
                    if hit is not None:
                        v = report.verdicts[hit[0].manifest.name]
                        v.unverified = v.unverified or reason
                for s in synths:  # the READ tools it would have probed on the pages it did not reach
                    m = s.manifest
                    if s.kind in ("list", "group_list", "fields", "card_details", "observe") and not m.is_write \
                            and any(satisfies({"page": p}, m.pre, {}) for p in later):
                        v = report.verdicts[m.name]
                        v.unverified = v.unverified or reason
                log.warning("%s: %s", tname, reason)
                return True

            async def after_sign_in(pos: int, sent_live: bool) -> bool:
                """After a recorded sign-in step that was not sent live: the session the demonstration
                saved stands in for it. Returns whether the site then sent its sign-in page (expired)."""
                st = steps[pos].step
                if sent_live or login[0] is not None or not _is_sign_in(st):
                    return False
                login[0] = page_name(st.url, routes)
                await _install_session(page, sessions.get(tname), base_url, (recorded or {}).get(tname))
                if st.url_after:  # the live page the sign-in led to, with the saved session: is it still good?
                    await nav.goto(site_url(base_url, st.url_after))
                return expired(pos + 1)

            for pos, ls in enumerate(steps):
                st = ls.step
                if not st.ok:
                    break
                guard.cursor = pos
                if st.action == "goto":
                    url = site_url(base_url, str(st.value or st.url_after))  # only its path: never off-site
                    await nav.goto(url)
                    if expired(pos):
                        break
                    setup.clear()
                    lists_here.clear()
                    probed_here.clear()
                    start[0] = _path(url)
                    mapped = step_tool.get(id(ls))
                    if mapped is not None:  # a page opened by its URL: its route's tool opens it again
                        args = _args_for(mapped[0], ls, mapped[1], secrets)
                        if args is not None:
                            out = await call(mapped[0], args, demonstrated=True)
                            if not out.ok:
                                await nav.goto(url)
                    await probe()
                    continue
                mapped = step_tool.get(id(ls))
                args = _args_for(mapped[0], ls, mapped[1], secrets) if mapped is not None else None
                if mapped is None or args is None:
                    if await after_sign_in(pos, False):
                        break
                    if mapped is None and st.url_after and not ls.writes and _path(page.url) != _path(st.url_after):
                        # a step no tool acts on (yet: a workflow tool's, verified later) that opened
                        # another page: the replay goes on from there, as after a failed call
                        await nav.goto(site_url(base_url, st.url_after))
                        lists_here.clear()
                        probed_here.clear()
                        await probe()
                    continue
                synth, i = mapped
                skip = _not_called(synth, writes)
                if skip is not None:  # the write is left out: the replay goes on from its recorded outcome
                    report.verdicts[synth.manifest.name].unverified = skip
                    if not _is_sign_in(st):
                        guard.diverge()
                    if st.url_after and _path(page.url) != _path(st.url_after):
                        await nav.goto(site_url(base_url, st.url_after))
                    lists_here.clear()
                    probed_here.clear()
                    if await after_sign_in(pos, False):
                        break
                    continue
                key = (synth.manifest.name, "scenario")
                failed_control = None
                if key not in tested and (focus is None or synth.manifest.name in focus):
                    failed_control = await counterfactual(synth, args)
                out = await call(synth, args, demonstrated=True)
                if key not in tested and failed_control is not None:
                    _relation(report, synth, args, failed_control, out.ok, tested, key)
                if not out.ok:
                    log.info("%s: %s failed on replay (%s: %s)", tname, synth.manifest.name, out.phase, out.reason)
                    if expired(pos):
                        break
                    if st.url_after:
                        await nav.goto(site_url(base_url, st.url_after))
                        if expired(pos + 1):
                            break
                setup.append((synth.manifest.name, _masked(synth, args)))
                if _path(page.url) != _path(st.url) or synth.manifest.navigates:
                    lists_here.clear()
                    probed_here.clear()
                if await after_sign_in(pos, _sent_live(synth, secrets, writes, sign_in)):
                    break
                await probe()
    report.seconds = time.perf_counter() - t0
    return report


def _shown_writes(synth: Synth) -> list[dict[str, Any]]:
    """The state-changing requests ``synth``'s demonstrations sent (each with its response, from version 2)."""
    return [w for ev in synth.evidence for w in ev.writes]


def _signs_in(synth: Synth) -> bool:
    """Whether ``synth`` signs in: it sends writes and an input of its is a secret (``writeOnly``).
    Signing in changes a session, not the site's data."""
    props = synth.manifest.input_schema.get("properties", {})
    return bool(_shown_writes(synth)) and any(spec.get("writeOnly") for spec in props.values())


def _has_secrets(synth: Synth, secrets: dict[str, str]) -> bool:
    """Whether the user gave (``--secret``) every secret input of ``synth``: it can be sent live."""
    props = synth.manifest.input_schema.get("properties", {})
    return all(name in secrets for name, spec in props.items() if spec.get("writeOnly"))


def _sent_live(synth: Synth, secrets: dict[str, str], writes: str, sign_in: bool) -> bool:
    """Whether ``synth``'s demonstrated call goes to the site: every write with ``--verify-writes live``,
    a sign-in only with the user's consent (``--sign-in``, or live mode) and every secret given."""
    if _signs_in(synth):
        return (sign_in or writes == "live") and _has_secrets(synth, secrets)
    return writes == "live"


def _is_sign_in(step: Any) -> bool:
    """Whether a recorded step signed in: a request it sent carried a secret (``<redacted>``)."""
    return any(REDACTED in str(w.get("post_data") or "") for w in step.requests or ())


def _cookies_for(state: dict[str, Any] | None, base_url: str, recorded_at: str | None) -> list[dict[str, Any]]:
    """The cookies of a saved storage state, moved from the host the demonstration ran on to ``base_url``'s."""
    if not state:
        return []
    host = urlparse(base_url).hostname or ""
    was = urlparse(recorded_at or "").hostname
    out = []
    for c in state.get("cookies") or ():
        if not isinstance(c, dict) or "name" not in c or "value" not in c:
            continue
        c = dict(c)
        if was and str(c.get("domain", "")).lstrip(".") == was:
            c["domain"] = host
        out.append(c)
    return out


async def _install_session(page: Any, state: dict[str, Any] | None, base_url: str, trace: Trace | None) -> None:
    """Put a saved storage state (its cookies, and its localStorage for this origin) into ``page``'s context."""
    cookies = _cookies_for(state, base_url, trace.session.start_url if trace is not None else None)
    if cookies:
        await page.context.add_cookies(cookies)
    origin = "{0.scheme}://{0.netloc}".format(urlparse(base_url))
    recorded_origin = "{0.scheme}://{0.netloc}".format(urlparse(trace.session.start_url or "")) if trace is not None else None
    for o in (state or {}).get("origins") or ():
        if isinstance(o, dict) and o.get("origin") in (origin, recorded_origin) and _path(page.url) and page.url.startswith(origin):
            items = {str(i.get("name")): str(i.get("value")) for i in o.get("localStorage") or () if isinstance(i, dict)}
            if items:
                await page.evaluate("(items) => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); }", items)


def _not_called(synth: Synth, writes: str) -> str | None:
    """Why the replay leaves ``synth``'s demonstrated call out (it would write and cannot be checked
    in this mode), or None."""
    shown = _shown_writes(synth)
    if not shown or writes == "live":
        return None
    if writes == "none":
        return NOT_ASKED
    return None if all(answerable(w) for w in shown) else OLD_TRACE


def _request_differs(synth: Synth, sent: list[tuple[str, str]]) -> str | None:
    """Why the requests a WRITE call sent are not the demonstration's (method and route template), or None."""
    shown = {(w.get("method"), page_name(w.get("url"))) for ev in synth.evidence for w in ev.writes}
    if not shown:
        return None
    want = ", ".join(sorted(f"{m} {p}" for m, p in shown))
    if not sent:
        return f"sent no request (the demonstration sent {want})"
    got = {(m, page_name(u)) for m, u in sent}
    if not got & shown:
        return f"sent {', '.join(sorted(f'{m} {p}' for m, p in got))}, not the demonstration's {want}"
    return None


async def _good_call(page: Any, synth: Synth, args: dict[str, Any], out: CallOutcome, start_html: str | None,
                     shown: list[dict[str, Any]]) -> dict[str, Any] | None:  # fmt: skip
    """What :attr:`ToolVerdict.good` keeps of a passing call ``out``, or None without its page: a READ's page (a
    navigating one's start page and landing) and output; a WRITE's start page, landing and the requests its
    demonstration sent (``shown``, secrets redacted by the recorder), as a run keeps them."""
    tool = synth.manifest
    good: dict[str, Any] = {"url": out.url_before, "args": args}
    if tool.is_write:
        good["writes"] = shown
    else:
        good["output"] = to_plain(out.output)
    now = await page_html(page)  # a read leaves its page as it was, with what it waited for drawn
    if tool.navigates or tool.is_write:
        good["html"] = start_html
        if tool.navigates:
            good.update(after_url=out.url_after, after_html=now)
    else:
        good["html"] = now
    return good if good["html"] is not None and (not tool.navigates or now is not None) else None


def _masked(synth: Synth, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with secret inputs (``writeOnly``: passwords, card numbers) redacted, for what is kept."""
    props = synth.manifest.input_schema.get("properties", {})
    return {k: REDACTED if props.get(k, {}).get("writeOnly") else v for k, v in args.items()}


def _name_key(s: Synth, _element: str | None) -> str | None:
    props = s.manifest.output_schema.get("properties", {}).get("items", {}).get("items", {}).get("properties", {})
    if "name" in props:
        return "name"
    named = sorted((k for k in props if k.endswith("name")), key=len)
    return named[0] if named else (next(iter(props), None))


def _relation(
    report: VerifyReport, consumer: Synth, args: dict[str, Any], control_failed: bool | None, real_ok: bool,
    tested: set[tuple[str, str]], key: tuple[str, str],
) -> None:
    if control_failed is None:
        return
    tested.add(key)
    kept = bool(control_failed and real_ok)
    pname = consumer.name_param or ""
    report.relation_tests.append({
        "consumer": consumer.manifest.name, "input": pname, "provider": consumer.source_list,
        "value": args.get(pname), "with_provider_value": real_ok, "control_failed": control_failed, "kept": kept,
    })
    if kept and consumer.source_list:
        rel = report.relations.setdefault(consumer.manifest.name, defaultdict(list))  # type: ignore[arg-type]
        if consumer.source_list not in rel[pname]:
            rel[pname].append(consumer.source_list)


def _args_for(synth: Synth, ls: LabeledStep, i: int, secrets: dict[str, str]) -> dict[str, Any] | None:
    if synth.kind in ("goto_card", "card_action"):
        if not ls.card_name or not synth.name_param:
            return None
        return {synth.name_param: ls.card_name}
    if synth.kind in ("goto_link", "open_dialog"):
        return {}
    if synth.kind == "sort":
        return dict(synth.witness_args[i]) if i < len(synth.witness_args) and synth.witness_args[i].get("column") else None
    if synth.kind in ("filter_links", "page_number", "goto_route"):  # one witness per clicked link or opened URL
        return dict(synth.witness_args[i]) if i < len(synth.witness_args) else None
    if synth.kind in ("filter", "form", "workflow"):
        if i < len(synth.witness_args):
            args = {k: v for k, v in synth.witness_args[i].items() if v is not None}
            for k, v in list(args.items()):
                if v == REDACTED:
                    # a sign-in is answered from its recording unless sent live with the secret given:
                    # without the secret it types a stand-in that never leaves the browser
                    args[k] = secrets.get(k, NO_SECRET)
            props = synth.manifest.input_schema.get("properties", {})
            for k, v in list(args.items()):
                if props.get(k, {}).get("type") in ("integer", "number", "boolean"):
                    args[k] = typed(props[k], v)  # a trace's text as the input's type
                    if args[k] is None:
                        del args[k]
            return args
        return None
    return None
