"""One tool call in the page: pre_check, execute, post_check, with a structured outcome.

A non-navigating tool is a single ``page.evaluate``: pre_check is polled *in the
page* until it holds or the timeout passes, execute runs once, post_check is
polled the same way. A navigating tool (``manifest.navigates``) runs
pre_check + execute in one evaluate, waits for the new document, and polls
post_check there in a second one; a WRITE whose new document came with an
HTTP error status (400 or more) failed at ``navigation``, whatever its
post_check would say of the error page. A check returns ``true``, or ``false`` /
``[false, "reason"]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from pydantic import BaseModel, Field

from agentjit.exceptions import SiteUnreachable
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.schema import validate_inputs, validate_output

from .navigation import is_navigation_race
from .network import SETTLE_LIMIT_S, waits_for_page

__all__ = ["CallOutcome", "call_tool", "run_post_check", "Phase"]

log = logging.getLogger(__name__)

Phase = str  # "pre_check" | "execute" | "navigation" | "post_check" | "output" | "timeout"

PRE_CHECK_QUIET_MS = 2000
"""A pre_check that fails on a loaded page quiet this long (no request of its own open, no DOM change) fails
then, not after the whole timeout: nothing is left on the way that could make it hold. It has not acted yet,
so failing early costs nothing but the call; a broken tool's call (a redesign) falls back in about 2 s, not
10. A post_check, after the tool acted, polls its whole timeout (a write's confirmation may come late)."""

# The in-page runner. ``stages`` says which of pre/exec/post to run in this
# round trip; checks poll every ``interval`` ms until true or ``timeout`` ms.
_RUNNER = r"""
async ({stages, pre, exec, post, inputs, names, output, timeout, interval, settle, quiet, busy}) => {
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const now = () => performance.now();
  const values = names.map((n) => inputs[n]);
  const verdict = (v) => {
    if (v === true) return [true, null];
    if (Array.isArray(v)) return [v[0] === true, v.length > 1 ? String(v[1]) : null];
    if (v && typeof v === 'object' && 'ok' in v) return [v.ok === true, v.reason ? String(v.reason) : null];
    return [false, null];
  };
  const net = window.__ajNet;  // the page's fetch/XHR calls (agentjit.runtime.network.TRACK_JS)
  // `quietMs` > 0: the check also fails once the loaded page has had no request of its own open (but
  // polls, open over `busy` ms) and no DOM change for that long: nothing is left to make it hold
  const poll = async (fn, extra, quietMs) => {
    const t0 = now();
    let last = null;
    let changed = t0;
    const watch = quietMs > 0 && net ? new MutationObserver(() => { changed = now(); }) : null;
    if (watch) watch.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
    try {
      for (;;) {
        let res;
        try {
          res = verdict(await fn(inputs, ...extra, ...values));
        } catch (e) {
          res = [false, 'threw: ' + (e && e.message ? e.message : String(e))];
        }
        if (res[0]) return {ok: true, ms: now() - t0};
        last = res[1];
        if (now() - t0 >= timeout) return {ok: false, ms: now() - t0, reason: last || 'check returned false'};
        if (watch) {
          const loading = document.readyState !== 'complete' ||
            [...net.open.values()].some((t) => Date.now() - t < busy);
          if (loading) changed = now();
          else if (now() - changed >= quietMs) return {ok: false, ms: now() - t0, reason: last || 'check returned false'};
        }
        await new Promise((r) => setTimeout(r, interval));
      }
    } finally {
      if (watch) watch.disconnect();
    }
  };
  const out = {timings: {}};
  let preFn, execFn, postFn;
  const fns = window.__ajFns || (window.__ajFns = new Map());
  const compile = (params, body) => {
    const key = params.join(',') + '\u0000' + body;
    let fn = fns.get(key);
    if (!fn) { fn = new AsyncFunction(...params, body); fns.set(key, fn); }
    return fn;
  };
  try {
    if (stages.includes('pre')) preFn = compile(['inputs', ...names], pre);
    if (stages.includes('exec')) execFn = compile(['inputs', ...names], exec);
    if (stages.includes('post')) postFn = compile(['inputs', 'output', ...names], post);
  } catch (e) {
    out.ok = false; out.phase = stages[0] === 'post' ? 'post_check' : 'pre_check';
    out.reason = 'syntax error in tool body: ' + e.message;
    return out;
  }
  if (preFn && settle > 0 && net) {
    // the page's own data still on its way (an app starting up): act once it is in and drawn;
    // a call open longer than `settle` ms is a poll
    const t0 = now();
    const busy = () => [...net.open.values()].some((t) => Date.now() - t < settle);
    if (busy()) {
      while (busy() && now() - t0 < settle) await new Promise((r) => setTimeout(r, interval));
      // then the DOM still for 100 ms, at most 1 s (a page that animates)
      const t1 = now();
      let last = t1;
      const obs = new MutationObserver(() => { last = now(); });
      obs.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
      while (now() - last < 100 && now() - t1 < 1000) await new Promise((r) => setTimeout(r, interval));
      obs.disconnect();
      out.timings.settle = now() - t0;
    }
  }
  if (preFn) {
    const r = await poll(preFn, [], quiet || 0);
    out.timings.pre_check = r.ms;
    if (!r.ok) { out.ok = false; out.phase = 'pre_check'; out.reason = r.reason; return out; }
  }
  if (execFn) {
    const t0 = now();
    try {
      output = await execFn(inputs, ...values);
    } catch (e) {
      out.timings.execute = now() - t0;
      out.ok = false; out.phase = 'execute';
      out.reason = 'threw: ' + (e && e.message ? e.message : String(e));
      return out;
    }
    out.timings.execute = now() - t0;
    out.output = output === undefined ? null : output;
  }
  if (postFn) {
    const r = await poll(postFn, [output], 0);
    out.timings.post_check = r.ms;
    if (!r.ok) { out.ok = false; out.phase = 'post_check'; out.reason = r.reason; return out; }
  }
  out.ok = true;
  return out;
}
"""


class CallOutcome(BaseModel):
    """What one tool call did. ``phase`` and ``reason`` are set when it failed."""

    tool: str
    ok: bool
    output: Any = None
    phase: Phase | None = None
    reason: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds per phase (pre_check, execute, navigation, post_check) and total."""
    url_before: str | None = None
    url_after: str | None = None
    start: float = 0.0
    end: float = 0.0
    replayed: bool = False
    """True when a WRITE was answered from the effect log instead of being sent again."""


def _playwright_errors() -> tuple[type[Exception], type[Exception]]:
    """Playwright's ``Error`` and ``TimeoutError`` (imported when a navigating call fails, not with the module)."""
    from playwright.async_api import Error, TimeoutError

    return Error, TimeoutError


def _is_navigation_error(exc: BaseException, page: Any) -> bool:
    """Whether ``exc`` (raised by ``page.evaluate`` while a navigation is expected) means the document went away.

    Classified by type: the runner catches every error of the tool's own
    JavaScript, so a Playwright error other than a timeout, on a page that is
    still open, is the execution context the navigation destroyed.
    """
    error, timeout = _playwright_errors()
    return isinstance(exc, error) and not isinstance(exc, timeout) and not page.is_closed()


# The runner is installed once per document and then called by a short expression,
# so a call does not ship (and V8 does not reparse) the runner every time.
_CALL = "(a) => window.__ajRun ? window.__ajRun(a) : '__aj_missing__'"
_INSTALL = "() => { window.__ajRun = " + _RUNNER.strip() + "; }"


async def _evaluate(page: Any, payload: dict[str, Any], limit_s: float) -> dict[str, Any]:
    """One round trip, bounded by ``limit_s`` so a dead site cannot hang the caller."""

    async def run() -> Any:
        result = await page.evaluate(_CALL, payload)
        if result == "__aj_missing__":
            await page.evaluate(_INSTALL)
            result = await page.evaluate(_CALL, payload)
        return result

    try:
        result = await asyncio.wait_for(run(), timeout=limit_s)
    except TimeoutError:
        raise SiteUnreachable(f"the page did not answer within {limit_s:.1f} s") from None
    if not isinstance(result, dict):  # pragma: no cover - the runner always returns an object
        return {"ok": False, "phase": "execute", "reason": f"runner returned {result!r}"}
    return result


async def _replaced_navigation(page: Any, url_before: str, limit_ms: int) -> None:
    """Wait for the navigation that replaced the expected one (a submit handler that navigates twice,
    a redirect) to load a document at another URL than ``url_before``; the landed response is unknown."""
    with contextlib.suppress(Exception):  # the same URL again, or no second navigation: post_check decides
        await page.wait_for_url(lambda url: url != url_before, wait_until="domcontentloaded", timeout=limit_ms)


_READY = ("() => document.readyState !== 'loading' && document.body !== null"
          " || new Promise((r) => addEventListener('DOMContentLoaded', () => r(true), {once: true}))")
"""Resolves once the page's document is parsed (``DOMContentLoaded``: its body is there)."""


async def _loaded(page: Any, limit_ms: int) -> None:
    """Wait for the document that replaced the page's to load, through further races, within ``limit_ms``.

    The load state Playwright keeps for the page can still be the old document's when the race
    is told (the new document's first lifecycle events not yet in), so the new document is asked
    itself, too, whether it is parsed: a check never runs on a document without its body.
    """
    deadline = time.monotonic() + limit_ms / 1000

    def left_ms() -> float:
        return max(deadline - time.monotonic(), 0.05) * 1000

    while True:
        try:
            await asyncio.wait_for(page.evaluate(_READY), timeout=left_ms() / 1000)
            await page.wait_for_load_state("load", timeout=left_ms())
            return
        except Exception as exc:
            if page.is_closed() or not is_navigation_race(exc) or time.monotonic() >= deadline:
                return  # a load that never comes (a hanging image): the checks decide
            await asyncio.sleep(0.02)


async def _post_check(page: Any, base: dict[str, Any], output: Any, limit_s: float, load_ms: int) -> dict[str, Any]:
    """The post_check of a navigating call, on the document it landed on; when that document is
    replaced under the check (a redirect by script after the first document), on the next one."""
    for attempt in (1, 2, 3):
        try:
            return await _evaluate(page, {**base, "stages": ["post"], "output": output}, limit_s)
        except SiteUnreachable:
            raise
        except Exception as exc:
            if page.is_closed() or not is_navigation_race(exc) or attempt == 3:
                raise
            await _loaded(page, load_ms)
    raise AssertionError("unreachable: the third attempt returns or raises")


async def _in_place(page: Any, tool: ToolManifest, base: dict[str, Any], limit_s: float, load_ms: int) -> dict[str, Any]:
    """A non-navigating call: pre_check, execute and post_check in one round trip.

    When the document is replaced under it (the page's script submitted a form, a navigation of an
    earlier call landed late), that is no failure: once the new document has loaded, a tool that
    sends no write runs again there (its state lived in the document that went away), once; a
    WRITE, which may have sent its request, is judged by its post_check on the new document.
    """
    stages = ["pre", "exec", "post"]
    for attempt in (1, 2, 3):
        try:
            return await _evaluate(page, {**base, "stages": stages}, limit_s)
        except SiteUnreachable:
            raise
        except Exception as exc:
            if page.is_closed() or not is_navigation_race(exc):
                raise
            if attempt == 3:
                return {"ok": False, "phase": "navigation", "reason": f"the page kept navigating: {str(exc).splitlines()[0]}"}
            log.debug("%s: the page navigated under the call (%s)", tool.name, str(exc).splitlines()[0])
            await _loaded(page, load_ms)
            if tool.is_write or attempt == 2:
                stages = ["post"]
    raise AssertionError("unreachable: the third attempt returns or raises")


def _navigation_failure(exc: BaseException, timeout: int) -> str:
    reason = str(exc).splitlines()[0]
    if isinstance(exc, (_playwright_errors()[1], TimeoutError)):
        reason = f"no navigation within {timeout} ms: {reason}"
    return reason


async def call_tool(
    page: Any,
    tool: ToolManifest,
    args: dict[str, Any] | None = None,
    *,
    timeout_ms: int | None = None,
    poll_interval_ms: int = 25,
    validate: bool = True,
    inputs_checked: bool = False,
    navigation_timeout_ms: int | None = None,
    pre_check_quiet_ms: int = PRE_CHECK_QUIET_MS,
) -> CallOutcome:
    """Run ``tool`` with ``args`` in ``page``; never raises for a tool failure.

    Bad arguments raise :class:`~agentjit.exceptions.ToolInputError` (a caller
    mistake); a page that stops answering raises
    :class:`~agentjit.exceptions.SiteUnreachable`. Everything else the tool
    does wrong comes back as ``CallOutcome(ok=False, phase=..., reason=...)``.
    ``validate`` checks the arguments and the output against the tool's
    schemas; ``inputs_checked`` says the caller (the interpreter) already
    checked the arguments, so they are validated once per call.
    ``navigation_timeout_ms``: how long the document a call loads may take to come (the checks'
    timeout when not given; a site under load can take longer to answer than a check may poll).
    ``pre_check_quiet_ms``: a pre_check that still fails once the loaded page has been quiet that
    long (no request of its own open, no DOM change) fails then, before the timeout (0: never).
    """
    args = dict(args or {})
    if validate and not inputs_checked:
        validate_inputs(tool, args)
    timeout = timeout_ms if timeout_ms is not None else tool.timeout_ms
    nav_timeout = max(timeout, navigation_timeout_ms or 0)
    limit_s = timeout / 1000 * 3 + 5  # pre + post polls + execute, with slack
    names = [n for n in tool.parameters if n.isidentifier()]
    for n in names:
        args.setdefault(n, None)
    base = {
        "pre": tool.pre_check,
        "exec": tool.execute,
        "post": tool.post_check,
        "inputs": args,
        "names": names,
        "output": None,
        "timeout": timeout,
        "interval": poll_interval_ms,
        "settle": SETTLE_LIMIT_S * 1000 if waits_for_page(tool) else 0,
        "quiet": pre_check_quiet_ms,
        "busy": SETTLE_LIMIT_S * 1000,
    }
    start = time.time()
    t0 = time.perf_counter()
    url_before = page.url
    outcome = CallOutcome(tool=tool.name, ok=False, url_before=url_before, start=start)
    timings: dict[str, float] = {}

    def finish(**fields: Any) -> CallOutcome:
        timings["total"] = time.perf_counter() - t0
        outcome.timings = timings
        outcome.end = time.time()
        try:
            outcome.url_after = page.url
        except Exception:  # pragma: no cover - a closed page
            outcome.url_after = None
        for key, value in fields.items():
            setattr(outcome, key, value)
        return outcome

    def take_timings(res: dict[str, Any]) -> None:
        for key, ms in (res.get("timings") or {}).items():
            timings[key] = float(ms) / 1000

    if not tool.navigates:
        res = await _in_place(page, tool, base, limit_s, nav_timeout)
        take_timings(res)
        if not res.get("ok"):
            return finish(phase=res.get("phase"), reason=res.get("reason"), output=res.get("output"))
        output = res.get("output")
    else:
        res = await _evaluate(page, {**base, "stages": ["pre"]}, limit_s)
        take_timings(res)
        if not res.get("ok"):
            return finish(phase=res.get("phase"), reason=res.get("reason"))
        nav_t0 = time.perf_counter()
        try:
            async with page.expect_navigation(wait_until="domcontentloaded", timeout=nav_timeout) as nav:
                try:
                    res = await _evaluate(page, {**base, "stages": ["exec"]}, limit_s)
                except SiteUnreachable:
                    raise
                except Exception as exc:
                    if not _is_navigation_error(exc, page):
                        raise
                    res = {"ok": True, "output": None, "timings": {}}
                take_timings(res)
                if not res.get("ok"):
                    # execute failed before navigating: leave the navigation wait at once
                    raise _ExecuteFailed(res)
            landed = await nav.value
        except _ExecuteFailed as failed:
            return finish(phase=failed.res.get("phase"), reason=failed.res.get("reason"))
        except SiteUnreachable:
            raise
        except Exception as exc:
            if not page.is_closed() and is_navigation_race(exc):
                await _replaced_navigation(page, url_before, nav_timeout)
                landed = None
            else:
                timings["navigation"] = time.perf_counter() - nav_t0
                return finish(phase="navigation", reason=_navigation_failure(exc, nav_timeout))
        timings["navigation"] = time.perf_counter() - nav_t0 - timings.get("execute", 0.0)
        status = getattr(landed, "status", None)
        if tool.is_write and isinstance(status, int) and status >= 400:
            # the site refused or failed the write's request: whatever the page shows (an error page
            # can pass a post_check that only looks at the URL), the write did not succeed
            return finish(phase="navigation", reason=f"the site answered HTTP {status} to the write ({landed.url})")
        output = res.get("output")
        if landed is None:  # the expected document was replaced: the post_check runs on the last, once parsed
            await _loaded(page, nav_timeout)
        post = await _post_check(page, base, output, limit_s, nav_timeout)
        take_timings(post)
        if not post.get("ok"):
            return finish(phase=post.get("phase"), reason=post.get("reason"), output=output)
    if validate:
        try:
            validate_output(tool, output if output is not None else {})
        except Exception as exc:
            return finish(phase="output", reason=str(exc), output=output)
    return finish(ok=True, output=output)


async def run_post_check(
    page: Any,
    tool: ToolManifest,
    args: dict[str, Any] | None = None,
    output: Any = None,
    *,
    timeout_ms: int | None = None,
    poll_interval_ms: int = 25,
) -> CallOutcome:
    """Run only ``tool``'s post_check on ``page`` (polled like in :func:`call_tool`).

    The effect log uses it to confirm that a WRITE answered from its record
    (not sent again) is visible on the replaying worker's page.
    """
    args = dict(args or {})
    timeout = timeout_ms if timeout_ms is not None else tool.timeout_ms
    names = [n for n in tool.parameters if n.isidentifier()]
    for n in names:
        args.setdefault(n, None)
    payload = {
        "stages": ["post"], "pre": tool.pre_check, "exec": tool.execute, "post": tool.post_check,
        "inputs": args, "names": names, "output": output, "timeout": timeout, "interval": poll_interval_ms,
    }  # fmt: skip
    start = time.time()
    t0 = time.perf_counter()
    res = await _evaluate(page, payload, timeout / 1000 + 5)
    timings = {key: float(ms) / 1000 for key, ms in (res.get("timings") or {}).items()}
    timings["total"] = time.perf_counter() - t0
    ok = bool(res.get("ok"))
    return CallOutcome(
        tool=tool.name,
        ok=ok,
        output=output,
        phase=None if ok else res.get("phase") or "post_check",
        reason=None if ok else res.get("reason"),
        timings=timings,
        url_before=page.url,
        url_after=page.url,
        start=start,
        end=time.time(),
    )


class _ExecuteFailed(Exception):
    def __init__(self, res: dict[str, Any]) -> None:
        super().__init__(res.get("reason"))
        self.res = res
