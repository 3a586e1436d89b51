"""What an extra browser context costs on this machine, measured (the scheduler's ``Overheads``).

Two things decide whether fanning out or hedging pays on a given machine:

* **start-up**: a new context, a page in it and the start URL, paid by every
  worker or replica beyond the first. Measured with ``concurrent`` contexts
  starting at once, because that is how workers and replicas start, and on 2
  cores Chromium's own CPU work is what they compete for (BROWSER.md);
* **per-call concurrency cost** (``busy_s``): how much longer one call takes
  for each other context working at the same time. One context loads the start
  page ``calls`` times alone, then ``concurrent`` contexts do the same at once;
  ``busy_s = (median concurrent call - median lone call) / (concurrent - 1)``.
  The site's own waiting is in both and cancels out; what is left is the work
  the contexts share: Chromium's rendering, the driver, this process. It is
  larger on a loaded machine, which is what keeps the scheduler from fanning
  out when the cores are already busy.

``agentjit profile`` measures both and keeps them with the cache
(``machine.json``); ``agentjit bench scheduler`` measures them again for its run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
from typing import Any

from agentjit.runtime.browser import BrowserPool
from agentjit.runtime.runner import goto_start
from agentjit.scheduler import Overheads

__all__ = ["measure_overheads", "overheads_record"]


async def _startup_once(pool: BrowserPool, url: str) -> tuple[float, float, float]:
    """Seconds to open a context, a page in it, and the start URL (what every extra worker pays)."""
    t0 = time.perf_counter()
    async with pool.context() as ctx:
        t1 = time.perf_counter()
        page = await ctx.new_page()
        t2 = time.perf_counter()
        await goto_start(page, url)
        t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


async def _timed_calls(page: Any, url: str, calls: int) -> list[float]:
    """Seconds of each of ``calls`` loads of ``url`` and a read of the page, one after another."""
    out: list[float] = []
    for _ in range(calls):
        t0 = time.perf_counter()
        await page.goto(url, wait_until="load")
        await page.evaluate("() => document.body ? document.body.innerText.length : 0")
        out.append(time.perf_counter() - t0)
    return out


async def _busy_s(pool: BrowserPool, url: str, *, concurrent: int, calls: int) -> tuple[float, float, float]:
    """``(busy_s, lone call s, concurrent call s)``; see the module docstring."""
    async with contextlib.AsyncExitStack() as stack:
        contexts = [await stack.enter_async_context(pool.context()) for _ in range(concurrent)]
        pages = [await ctx.new_page() for ctx in contexts]
        await asyncio.gather(*(_timed_calls(page, url, 1) for page in pages))  # warm every page once
        lone = statistics.median(await _timed_calls(pages[0], url, calls))
        together = await asyncio.gather(*(_timed_calls(page, url, calls) for page in pages))
        shared = statistics.median(t for times in together for t in times)
    return max(0.0, (shared - lone) / (concurrent - 1)), lone, shared


async def measure_overheads(
    pool: BrowserPool, url: str, *, repeats: int = 2, concurrent: int = 3, calls: int = 4
) -> Overheads:
    """Measure start-up and the per-call concurrency cost of extra contexts against ``url``.

    ``repeats`` rounds of ``concurrent`` simultaneous start-ups give the
    start-up medians; ``calls`` page loads per context give ``busy_s``. The
    result has ``contention`` 0 (``busy_s`` replaces it) and ``measured`` set.
    """
    if concurrent < 2:
        raise ValueError("measuring concurrency needs at least 2 contexts")
    phases: list[tuple[float, float, float]] = []
    for _ in range(repeats):
        phases.extend(await asyncio.gather(*(_startup_once(pool, url) for _ in range(concurrent))))
    ctx, page, goto = (statistics.median(col) for col in zip(*phases, strict=True))
    busy, _lone, _shared = await _busy_s(pool, url, concurrent=concurrent, calls=calls)
    return Overheads(
        new_context_s=ctx, new_page_s=page, goto_s=goto, contention=0.0, busy_s=busy, measured=True
    )


def overheads_record(overheads: Overheads) -> dict[str, Any]:
    """The JSON kept with a cache (``machine.json``): the overheads and where they were measured."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    record: dict[str, Any] = {
        "new_context_s": round(overheads.new_context_s, 4),
        "new_page_s": round(overheads.new_page_s, 4),
        "goto_s": round(overheads.goto_s, 4),
        "contention": overheads.contention,
        "busy_s": round(overheads.busy_s, 4),
        "measured": overheads.measured,
        "cpus": os.cpu_count(),
        "load_average": round(load, 2) if load is not None else None,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return record
