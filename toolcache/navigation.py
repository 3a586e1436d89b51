"""Waiting out a page's navigations, and telling a site that stopped answering from one that redirects.

A click or a goto often starts a navigation that the page itself replaces at
once: a script's ``location.replace``, a meta refresh, a chain of 302s, a
submit handler that sets ``location`` twice. Playwright then says "navigation
is interrupted by another navigation", "Execution context was destroyed" or
"the page is navigating and changing the content". None of that is a failure
of the step; the page is on its way, and the step goes on once the last
navigation has loaded. :class:`Navigations` watches the main frame's document
requests to know when that is, and to notice the other case: a document request
the site accepted but never answered within the step timeout, which is
:class:`~agentjit.exceptions.SiteUnreachable` (exit 3), not a hang.

The recorder (:mod:`toolcache.record`) and the build's verifier
(:mod:`toolcache.verify`) both open pages through :meth:`Navigations.goto` and
wait with :meth:`Navigations.settle`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urldefrag, urlsplit

from agentjit.exceptions import SiteUnreachable
from agentjit.runtime.navigation import is_navigation_race

from .script import STEP_TIMEOUT_S

__all__ = ["Navigations", "is_navigation_race", "page_html"]

log = logging.getLogger(__name__)

T = TypeVar("T")

async def page_html(page: Any) -> str | None:
    """The page's document as HTML, or None for a page mid-navigation (whatever keeps it goes on without it)."""
    try:
        html: str = await page.content()
    except Exception:  # a page mid-navigation
        return None
    return html


NAV_QUIET_S = 0.15
"""After a navigation loads, how long no new one must start (a meta refresh, an onload redirect start within it)."""
POLL_S = 0.02

_DOWN = ("net::err_connection", "net::err_empty_response", "net::err_address", "net::err_timed_out", "net::err_name")
"""Chromium's words for a site that refused, dropped or never took the connection."""


def _is_timeout(exc: BaseException) -> bool:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    return isinstance(exc, PlaywrightTimeout | TimeoutError)


def _same_document(a: str, b: str) -> bool:
    """``a`` and ``b`` name one document (the fragment aside; ``http://h:1`` is ``http://h:1/``)."""

    def norm(url: str) -> str:
        url = urldefrag(url)[0]
        return url + "/" if not urlsplit(url).path else url

    return norm(a) == norm(b)


class Navigations:
    """The main frame's document requests of one page: which are unanswered, and since when.

    Attach one per page, before the page navigates. ``started`` counts the
    document requests seen (a redirect's next hop counts again), so a caller can
    ask :meth:`settle` whether anything navigated since a mark.
    """

    def __init__(self, page: Any, timeout_s: float = STEP_TIMEOUT_S) -> None:
        self.page = page
        self.timeout_s = timeout_s
        """The step timeout: what :meth:`settle`, :meth:`goto` and :meth:`stable` allow when not told."""
        self.pending: dict[Any, float] = {}
        """Document requests without a response yet, with their monotonic start time."""
        self.started = 0
        self.answered: list[tuple[str, int]] = []
        """``(url, status)`` of every document response, in order (redirect hops included)."""
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfailed", self._on_failed)

    def _mine(self, request: Any) -> bool:
        try:
            return bool(request.is_navigation_request()) and request.frame == self.page.main_frame
        except Exception:  # a request of a frame already gone
            return False

    def _on_request(self, request: Any) -> None:
        if self._mine(request):
            self.pending[request] = time.monotonic()
            self.started += 1

    def _on_response(self, response: Any) -> None:
        request = response.request
        if request in self.pending or self._mine(request):
            self.pending.pop(request, None)
            self.answered.append((request.url, response.status))

    def _on_failed(self, request: Any) -> None:
        self.pending.pop(request, None)

    def unanswered(self, timeout_s: float) -> str | None:
        """The URL of a document request open for ``timeout_s`` or longer, if any."""
        now = time.monotonic()
        return next((r.url for r, t0 in self.pending.items() if now - t0 >= timeout_s), None)

    def down(self) -> str | None:
        """Why the page shows the site as down (Chromium's error page, a 5xx document), or None."""
        if self.page.url.startswith("chrome-error://"):
            return "the site did not answer (the browser shows its error page)"
        if self.answered and self.answered[-1][1] >= 500:
            url, status = self.answered[-1]
            return f"{url} answered HTTP {status}"
        return None

    def _unreachable(self, url: str, timeout_s: float) -> SiteUnreachable:
        return SiteUnreachable(f"{url} did not answer within {timeout_s:g} s")

    async def settle(self, timeout_s: float | None = None, *, since: int | None = None) -> None:
        """Return once the page's last navigation has loaded and no other followed it.

        With ``since`` (a value of :attr:`started`) and nothing navigated since,
        it returns as soon as the page has loaded. A document request still
        unanswered after ``timeout_s`` raises :class:`SiteUnreachable`; a page
        whose ``load`` never comes (a hanging image) is taken as it is.
        """
        timeout_s = timeout_s or self.timeout_s
        deadline = time.monotonic() + timeout_s
        while True:
            if self.pending:
                if time.monotonic() >= deadline:
                    url = self.unanswered(0) or self.page.url
                    raise self._unreachable(url, timeout_s)
                await asyncio.sleep(POLL_S)
                continue
            remaining = deadline - time.monotonic()
            try:
                await self.page.wait_for_load_state("load", timeout=max(remaining, 0.05) * 1000)
            except Exception as exc:
                if is_navigation_race(exc):
                    continue
                if not _is_timeout(exc):
                    raise
                if self.pending:
                    continue  # the next loop raises
                log.info("%s did not fire load within %g s; going on", self.page.url, timeout_s)
                return
            if since is not None and self.started == since and not self.pending:
                return
            mark = self.started
            await asyncio.sleep(NAV_QUIET_S)  # a meta refresh or an onload redirect starts right after load
            if self.started == mark and not self.pending:
                return
            since = None

    async def goto(self, url: str, timeout_s: float | None = None, *, wait_until: str = "load") -> None:
        """Open ``url`` and wait out the redirects its page makes.

        A goto interrupted by another navigation is fine when ``url`` itself was
        answered (the page redirected); when a navigation left over from the
        previous page (a late meta refresh) cut it off before that, it is tried
        again once. A site that refuses the connection or never answers within
        ``timeout_s`` raises :class:`SiteUnreachable`.
        """
        timeout_s = timeout_s or self.timeout_s
        for attempt in (1, 2):
            mark, answered = self.started, len(self.answered)
            try:
                await self.page.goto(url, wait_until=wait_until, timeout=timeout_s * 1000)
            except Exception as exc:
                if _is_timeout(exc):
                    raise self._unreachable(url, timeout_s) from exc
                if any(m in str(exc).lower() for m in _DOWN):
                    raise SiteUnreachable(f"cannot open {url}: {str(exc).splitlines()[0]}") from exc
                if not is_navigation_race(exc):
                    raise
                log.debug("goto %s: %s", url, str(exc).splitlines()[0])
                await self.settle(timeout_s, since=mark)
                if attempt == 1 and not any(_same_document(u, url) for u, _ in self.answered[answered:]):
                    continue  # cut off before the site answered: not the page's own redirect
                return
            await self.settle(timeout_s, since=mark)
            return

    async def stable(self, op: Callable[[], Awaitable[T]], timeout_s: float | None = None) -> T:
        """``await op()`` once the page has settled, again after each navigation race, within ``timeout_s``.

        For reads of the page (``content()``, ``title()``, an ``evaluate``) that
        fail or block while a document is being replaced.
        """
        timeout_s = timeout_s or self.timeout_s
        deadline = time.monotonic() + timeout_s
        while True:
            mark = self.started
            await self.settle(max(deadline - time.monotonic(), 0.05), since=mark)
            remaining = deadline - time.monotonic()
            try:
                return await asyncio.wait_for(op(), timeout=max(remaining, 0.05))
            except TimeoutError:
                raise self._unreachable(self.unanswered(0) or self.page.url, timeout_s) from None
            except Exception as exc:
                if not is_navigation_race(exc) or time.monotonic() >= deadline:
                    raise
                log.debug("page changed under a read (%s); again", str(exc).splitlines()[0])
