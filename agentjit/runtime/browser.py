"""The browser pool: the system Chromium (or a remote endpoint) and isolated contexts.

Which browser, in order:

1. ``connect=`` a Playwright server websocket (``ws://...``) or ``cdp=`` a CDP
   endpoint (``http://host:9222``): connect instead of launching;
2. ``executable=`` or the ``AGENTJIT_CHROMIUM`` environment variable;
3. Debian's ``/usr/bin/chromium`` (or ``chromium`` on PATH);
4. Playwright's own downloaded browser, when one is installed.

Every outside lookup is blocked with a host-resolver rule (BROWSER.md), so a
plan can only reach 127.0.0.1 / localhost.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from agentjit.exceptions import BrowserError

__all__ = ["BrowserPool", "HOST_RULES", "chromium_executable"]

log = logging.getLogger(__name__)

HOST_RULES = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"


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
    """One browser, many isolated contexts. Use as ``async with BrowserPool() as pool``.

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
    ) -> None:
        self.executable = executable
        self.headless = headless
        self.connect_endpoint = connect
        self.cdp_endpoint = cdp
        self.args = list(args or [])
        self.context_options = dict(context_options or {"viewport": {"width": 1280, "height": 720}})
        self._playwright: Any = None
        self._browser: Any = None
        self.open_contexts = 0

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
