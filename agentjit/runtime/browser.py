"""The browser pool: the system Chromium (or a remote endpoint) and isolated contexts.

Which browser, in order:

1. ``connect=`` a Playwright server websocket (``ws://...``) or ``cdp=`` a CDP
   endpoint (``http://host:9222``): connect instead of launching;
2. ``executable=`` or the ``AGENTJIT_CHROMIUM`` environment variable;
3. Debian's ``/usr/bin/chromium`` (or ``chromium`` on PATH);
4. Playwright's own downloaded browser, when one is installed.

Every outside lookup is blocked with a host-resolver rule (BROWSER.md), so a
plan can only reach 127.0.0.1 / localhost. That flag only applies to a browser
agentjit launches: a connected pool instead routes every request of every
context it opens and aborts those to any other origin (:meth:`BrowserPool.allows`).

A request that is not a read (any method but GET, HEAD, OPTIONS) to an allowed
origin is sent exactly once (``send_writes_once``, on by default). Chromium
re-sends a request, POSTs included, whose reused keep-alive connection closes
before an answer arrives (measured: a site that applies a POST and then drops
the connection gets it twice, and the page sees only the second answer), and
it can do so while a context closes under an in-flight write. The site may
have applied the first copy, so that retry duplicates a write below the
effect log. The pool therefore routes such requests through Playwright's own
HTTP client (``route.fetch``, no retries, no redirects followed) and hands the
answer to the page; a network error reaches the page as a failed request,
which the effect log records as uncertain.

:meth:`BrowserPool.from_spec` reads the one spelling commands and the API
share: ``ws://HOST:PORT/...`` (a Playwright browser server), ``cdp=http://HOST:PORT``
(a CDP endpoint), or nothing: the ``AGENTJIT_BROWSER`` environment variable,
else a launched local Chromium.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from agentjit.exceptions import BrowserError, ConfigError

from .network import track

__all__ = ["BrowserPool", "HOST_RULES", "LOOPBACK_HOSTS", "browser_default", "chromium_executable", "parse_browser_spec"]

log = logging.getLogger(__name__)

HOST_RULES = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods the pool lets Chromium send (and re-send) itself; every other request is sent once."""
ENV_VAR = "AGENTJIT_BROWSER"

#: The ``--browser`` of the running command: pools made with ``from_spec()`` and
#: no spec use it before ``AGENTJIT_BROWSER``. The CLI sets it once per command.
browser_default: ContextVar[str | None] = ContextVar("agentjit_browser_default", default=None)


def parse_browser_spec(spec: str) -> dict[str, str]:
    """``ws://...`` -> ``{"connect": spec}``; ``cdp=http://...`` -> ``{"cdp": url}``;
    anything else is a :class:`ConfigError` that says what is accepted."""
    text = spec.strip()
    expected = "expected ws://HOST:PORT/... (a Playwright browser server) or cdp=http://HOST:PORT"
    if text.startswith(("ws://", "wss://")):
        if not urlsplit(text).hostname:
            raise ConfigError(f"browser {spec!r} names no host: {expected}")
        return {"connect": text}
    if text.startswith("cdp="):
        url = text[4:]
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
            raise ConfigError(f"browser {spec!r}: the CDP endpoint must be an http://HOST:PORT URL; {expected}")
        return {"cdp": url}
    raise ConfigError(f"browser {spec!r} not understood: {expected}")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def chromium_executable(explicit: str | None = None) -> str | None:
    """The Chromium to launch, or None to let Playwright use its own browser."""
    for candidate in (explicit, os.environ.get("AGENTJIT_CHROMIUM")):
        if candidate:
            if not (os.path.exists(candidate) or shutil.which(candidate)):
                raise BrowserError(f"Chromium executable {candidate!r} does not exist")
            return shutil.which(candidate) or candidate
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserPool:
    """One browser, many isolated contexts. Use as ``async with BrowserPool.from_spec() as pool``.

    ``pool.context()`` is an async context manager yielding a fresh
    ``BrowserContext`` that is always closed on exit, cancellation included.
    """

    def __init__(
        self,
        *,
        executable: str | None = None,
        headless: bool = True,
        connect: str | None = None,
        cdp: str | None = None,
        args: list[str] | None = None,
        context_options: dict[str, Any] | None = None,
        allowed_origins: Iterable[str] | None = None,
        send_writes_once: bool = True,
    ) -> None:
        self.executable = executable
        self.headless = headless
        self.connect_endpoint = connect
        self.cdp_endpoint = cdp
        self.args = list(args or [])
        self.context_options = dict(context_options or {"viewport": {"width": 1280, "height": 720}})
        #: None: any loopback host (127.0.0.1, localhost, [::1]) on any port; else
        #: exactly these origins (``http://127.0.0.1:8000``), plus data:/blob:/about:.
        self.allowed_origins = None if allowed_origins is None else frozenset(_origin(o) for o in allowed_origins)
        self.send_writes_once = send_writes_once
        """Send non-read requests through Playwright, once (see the module docstring)."""
        self._playwright: Any = None
        self._browser: Any = None
        self.open_contexts = 0
        self.blocked: list[str] = []  # URLs the origin rule aborted, for tests and logs
        self.site_origins: set[str] = set()

    def allow_site(self, url: str) -> None:
        """Let pages reach ``url``'s origin too: the site a runtime drives (any host)."""
        self.site_origins.add(_origin(url))

    @classmethod
    def from_spec(cls, spec: str | None = None, **options: Any) -> BrowserPool:
        """A pool for ``spec`` (see :func:`parse_browser_spec`); with no spec, the running
        command's ``--browser``, else ``AGENTJIT_BROWSER``, else a launched local Chromium."""
        spec = spec or browser_default.get() or os.environ.get(ENV_VAR) or None
        if spec is None:
            return cls(**options)
        endpoint = parse_browser_spec(spec)
        return cls(connect=endpoint.get("connect"), cdp=endpoint.get("cdp"), **options)

    @property
    def remote(self) -> bool:
        """True when the pool connects to a browser it did not launch."""
        return bool(self.connect_endpoint or self.cdp_endpoint)

    def allows(self, url: str) -> bool:
        """May a page of this pool request ``url``? (the "plans reach only the site" rule)"""
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return True
        if parts.scheme not in ("http", "https", "ws", "wss"):
            return False
        if _origin(url) in self.site_origins:
            return True
        if self.allowed_origins is not None:
            return _origin(url) in self.allowed_origins
        host = (parts.hostname or "").lower()
        return host in LOOPBACK_HOSTS or f"[{host}]" in LOOPBACK_HOSTS

    async def _route(self, route: Any) -> None:
        url = route.request.url
        allowed = self.allows(url)
        try:
            if (self.remote or self.allowed_origins is not None) and not allowed:
                self.blocked.append(url)
                log.info("blocked a request outside the site: %s", url)
                await route.abort("blockedbyclient")
            elif self.send_writes_once and allowed and route.request.method not in READ_METHODS:
                await self._send_once(route)
            else:  # a launched browser's host-resolver rule still stops any other host
                await route.continue_()
        except Exception:  # the page or context closed under the request
            log.debug("routing %s failed", url, exc_info=True)

    async def _send_once(self, route: Any) -> None:
        """Send a write request once, from Playwright's HTTP client, and give the page its answer.

        Redirects are not followed here (the browser follows the 3xx it is
        handed, as a GET); a request that fails on the network is aborted, so
        the page sees a network error, never a silent second copy.
        """
        try:
            response = await route.fetch(max_redirects=0, max_retries=0)
        except Exception as exc:  # the connection dropped or timed out: the site may have applied it
            log.info("write request %s %s failed on the network: %s", route.request.method, route.request.url, exc)
            await route.abort("connectionfailed")
            return
        await route.fulfill(response=response)

    @property
    def browser(self) -> Any:
        if self._browser is None:
            raise BrowserError("the browser pool is not started (use `async with BrowserPool()`)")
        return self._browser

    @property
    def version(self) -> str:
        """The browser's version string, e.g. ``Chromium 156.0.8078.73``."""
        return f"Chromium {self.browser.version}"

    async def start(self) -> BrowserPool:
        if self._browser is not None:
            return self
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:  # pragma: no cover - playwright is a core dependency
            raise BrowserError("playwright is not installed") from exc
        self._playwright = await async_playwright().start()
        chromium = self._playwright.chromium
        try:
            if self.connect_endpoint:
                self._browser = await chromium.connect(self.connect_endpoint)
            elif self.cdp_endpoint:
                self._browser = await chromium.connect_over_cdp(self.cdp_endpoint)
            else:
                exe = chromium_executable(self.executable)
                self._browser = await chromium.launch(
                    executable_path=exe,
                    headless=self.headless,
                    args=[HOST_RULES, *self.args],
                )
        except BrowserError:
            await self._playwright.stop()
            self._playwright = None
            raise
        except Exception as exc:
            await self._playwright.stop()
            self._playwright = None
            raise BrowserError(f"cannot start or reach Chromium: {exc}") from exc
        log.debug("browser started: %s", self._browser.version)
        return self

    async def close(self) -> None:
        browser, pw = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                await browser.close()
        finally:
            if pw is not None:
                await pw.stop()

    async def __aenter__(self) -> BrowserPool:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def context(self, **options: Any) -> AsyncIterator[Any]:
        """A fresh isolated browser context, closed on exit."""
        try:
            ctx = await self.browser.new_context(**{**self.context_options, **options})
        except Exception as exc:
            raise BrowserError(f"cannot open a browser context: {exc}") from exc
        self.open_contexts += 1
        try:
            await track(ctx)  # each document's data requests, counted from its start
            if self.remote or self.allowed_origins is not None or self.send_writes_once:
                await ctx.route("**/*", self._route)
            yield ctx
        finally:
            self.open_contexts -= 1
            try:
                await ctx.close()
            except Exception:  # the browser may already be gone
                log.debug("context close failed", exc_info=True)

    @asynccontextmanager
    async def page(self, **options: Any) -> AsyncIterator[Any]:
        """A page in a fresh context; both closed on exit."""
        async with self.context(**options) as ctx:
            yield await ctx.new_page()
