"""The page's own data requests in flight: a tool call waits for them before it acts.

A single-page app loads its data with ``fetch``/``XMLHttpRequest`` after the
document is in. A tool that acts before that load is done races the app: Fava,
asked to filter while its first report is still loading, mounts both reports,
and a read then finds the unfiltered totals first. On a quiet machine the load
takes milliseconds and the race is never seen; on a loaded one (or just after
the site reloaded its data) it takes seconds.

:data:`TRACK_JS` counts the page's fetch and XHR calls in the page itself.
:func:`track` makes it an init script of a browser context (the pool does it
for every context it opens) or of one page (``goto_start`` does it for a page
from elsewhere), so it runs before any script of every document and sees the
requests a document sends while it starts. Counting in Python from
Playwright's request events would race: an event can reach Python after the
page already sent its request (it did under load).

:func:`call_tool <agentjit.runtime.invoke.call_tool>` waits, in the page,
before a tool that changes the page in place (:func:`waits_for_page`: a filter,
a form, a click the app handles without a new document) until no counted call
younger than :data:`SETTLE_LIMIT_S` is open, then for a still DOM. A call
open longer is taken for a poll (long-polling, a stream), so a site that
always has one open costs at most that long once per request. A read does not
wait (a read that needs data still loading waits for it in its own checks, as
the food site's ``list_reviews`` does), nor does a tool that loads a new
document (the old one and its loads are dropped): on the food site waiting
before every call cost 30% of the demo's time (25.5 to 33.3 s), for reviews
that most calls never read. Generated tools' ``__settle`` and the stepwise
agent read the same counter.
"""

from __future__ import annotations

import weakref
from typing import Any

from agentjit.protocol.manifest import ToolManifest, ToolType

__all__ = ["SETTLE_LIMIT_S", "TRACK_JS", "PENDING_JS", "track", "waits_for_page"]

SETTLE_LIMIT_S = 5.0
"""The longest a tool call waits for the page's requests (and the age past which one is a poll)."""

TRACK_JS = r"""(() => {
  if (window.__ajNet) return window.__ajNet;
  const net = window.__ajNet = {open: new Map(), next: 0};
  // only the site's own calls: a third party's (analytics, ads) never holds a tool back
  const local = (u) => { try { return new URL(String(u), location.href).origin === location.origin; } catch (e) { return true; } };
  const start = (u) => {
    if (!local(u)) return () => {};
    const id = net.next++; net.open.set(id, Date.now()); return () => net.open.delete(id);
  };
  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function (...args) {
      const a = args[0];
      const done = start(a && a.url !== undefined ? a.url : a);
      try { const p = fetch0.apply(this, args); p.then(done, done); return p; } catch (e) { done(); throw e; }
    };
  }
  const open0 = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (...args) { this.__ajUrl = args[1]; return open0.apply(this, args); };
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    const done = start(this.__ajUrl);
    this.addEventListener('loadend', done, {once: true});
    try { return send0.apply(this, args); } catch (e) { done(); throw e; }
  };
  return net;
})()"""
"""An expression: the page's fetch and XHR calls to its own origin in flight, counted in the page
from the first time it runs in a document (``window.__ajNet.open``: call id -> start time in ms).
Running it again returns the same tracker."""

PENDING_JS = "() => window.__ajNet ? window.__ajNet.open.size : 0"
"""How many calls :data:`TRACK_JS` counts in flight (0 where it never ran)."""

_tracked: weakref.WeakSet[Any] = weakref.WeakSet()


async def track(target: Any) -> None:
    """Run :data:`TRACK_JS` in every document of ``target`` (a browser context or a page), once."""
    context = getattr(target, "context", None)  # a page of a tracked context runs it already
    if target in _tracked or (context is not None and not callable(context) and context in _tracked):
        return
    _tracked.add(target)
    await target.add_init_script(script=TRACK_JS + ";")


_IN_PLACE = frozenset({ToolType.SET_FILTER, ToolType.SET_FIELDS, ToolType.GOTO_ITEM, ToolType.GOTO_FIELD})


def waits_for_page(tool: ToolManifest) -> bool:
    """Whether a call of ``tool`` first waits for the page's own data: it changes the page in place."""
    return not tool.navigates and tool.type in _IN_PLACE
