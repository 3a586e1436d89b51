"""The page's own data requests in flight: a tool call waits for them before it acts.

A single-page app loads its data with ``fetch``/``XMLHttpRequest`` after the
document is in. A tool that acts before that load is done races the app: Fava,
asked to filter while its first report is still loading, mounts both reports,
and a read then finds the unfiltered totals first. On a quiet machine the load
takes milliseconds and the race is never seen; on a loaded one (or just after
the site reloaded its data) it takes seconds.

:func:`watch` follows a page's requests through Playwright's events (so those
a document sends while it starts are seen too); :func:`settled` waits until no
fetch or XHR of the page is on its way. A request open longer than
``limit_s`` is taken for a poll (long-polling, a stream) and not waited for,
so a site that always has one open costs at most ``limit_s`` once per request.

Playwright's request event can reach Python after the page already sent the
request (a click handler's fetch, under load): what must not miss one counts
it in the page itself, with :data:`TRACK_JS`. Generated tools (their
``__settle``) and the stepwise agent do.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any

__all__ = ["InFlight", "watch", "settled", "SETTLE_LIMIT_S", "TRACK_JS", "PENDING_JS"]

SETTLE_LIMIT_S = 5.0
"""The longest a tool call waits for the page's requests (and the age past which one is a poll)."""

TRACK_JS = r"""(() => {
  if (window.__ajNet) return window.__ajNet;
  const net = window.__ajNet = {open: new Map(), next: 0};
  const start = () => { const id = net.next++; net.open.set(id, Date.now()); return () => net.open.delete(id); };
  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function (...args) {
      const done = start();
      try { const p = fetch0.apply(this, args); p.then(done, done); return p; } catch (e) { done(); throw e; }
    };
  }
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    const done = start();
    this.addEventListener('loadend', done, {once: true});
    try { return send0.apply(this, args); } catch (e) { done(); throw e; }
  };
  return net;
})()"""
"""An expression: the page's fetch and XHR calls in flight, counted in the page from the first time
it runs in a document (``window.__ajNet.open``: call id -> start time in ms). Running it again
returns the same tracker."""

PENDING_JS = "() => window.__ajNet ? window.__ajNet.open.size : 0"
"""How many calls :data:`TRACK_JS` counts in flight (0 where it never ran)."""

_DATA = frozenset({"fetch", "xhr"})
_watched: weakref.WeakKeyDictionary[Any, InFlight] = weakref.WeakKeyDictionary()


class InFlight:
    """The fetch/XHR requests of one page that have started and not yet finished or failed."""

    def __init__(self, page: Any) -> None:
        self.open: dict[Any, float] = {}
        self._changed = asyncio.Event()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: Any) -> None:
        if request.resource_type in _DATA:
            self.open[request] = time.monotonic()

    def _ended(self, request: Any) -> None:
        if self.open.pop(request, None) is not None:
            self._changed.set()

    def waiting_on(self, limit_s: float = SETTLE_LIMIT_S) -> list[float]:
        """Start times of the open requests younger than ``limit_s`` (older ones are polls)."""
        now = time.monotonic()
        return [t for t in self.open.values() if now - t < limit_s]

    async def settled(self, limit_s: float = SETTLE_LIMIT_S) -> float:
        """Wait until no request younger than ``limit_s`` is open, at most ``limit_s``; the seconds waited."""
        t0 = time.monotonic()
        while True:
            pending = self.waiting_on(limit_s)
            left = t0 + limit_s - time.monotonic()
            if not pending or left <= 0:
                return time.monotonic() - t0
            # wake when a request ends, or when the oldest one becomes a poll
            wake = min(left, min(pending) + limit_s - time.monotonic())
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout=max(wake, 0.001))
            except TimeoutError:
                pass


def watch(page: Any) -> InFlight:
    """The page's request tracker, attached on first use (before ``goto`` to see a document's start)."""
    tracker = _watched.get(page)
    if tracker is None:
        tracker = _watched[page] = InFlight(page)
    return tracker


async def settled(page: Any, limit_s: float = SETTLE_LIMIT_S) -> float:
    """Wait for ``page``'s data requests (see :class:`InFlight`); the seconds waited."""
    return await watch(page).settled(limit_s)
