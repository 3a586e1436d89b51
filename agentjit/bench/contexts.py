"""Benchmark: the memory an extra browser context costs (what parallel workers and hedged replicas pay).

Opens ``n`` contexts one by one on the same browser, each with one page at the
site's start page, and after each sums the proportional set size (PSS, from
``/proc/PID/smaps_rollup``, so pages Chromium's processes share are counted
once) of every process under this one whose command line names Chromium.
PSS is Linux-only; elsewhere the bench says so.
"""

from __future__ import annotations

import contextlib
import os
import statistics
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache
from agentjit.protocol import urls
from agentjit.runtime import BrowserPool
from agentjit.runtime.processes import descendants
from agentjit.runtime.runner import goto_start
from agentjit.tasks.runner import resolve_target

__all__ = ["measure_contexts", "browser_pss_mib", "SUPPORTED"]

SUPPORTED = Path("/proc/self/smaps_rollup").exists()
"""Whether this OS gives PSS per process (Linux 4.14 and later)."""


def browser_pss_mib(root: int | None = None) -> float:
    """Summed PSS, in MiB, of the Chromium processes under ``root`` (default: this process)."""
    total_kib = 0
    for pid in descendants(root or os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"chrom" not in cmd:
                continue
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kib += int(line.split()[1])
                    break
        except OSError:  # gone meanwhile
            continue
    return total_kib / 1024


async def measure_contexts(
    app_name: str | None = "food", *, site_url: str | None = None, cache: ToolCache | None = None, n: int = 6
) -> dict[str, Any]:
    """PSS of the browser with 0..n open contexts (one page each, at the start page), and the step per context."""
    if not SUPPORTED:
        return {"supported": False, "reason": "needs Linux /proc/PID/smaps_rollup"}
    target = resolve_target(app_name, site_url=site_url, cache=cache, need_tasks=False, latency_scale=0)
    site = target.site
    site.start()
    try:
        async with BrowserPool() as pool, contextlib.AsyncExitStack() as stack:
            readings = [browser_pss_mib()]
            for _ in range(n):
                page = await stack.enter_async_context(pool.page())
                await goto_start(page, urls.site_url(site.url, target.cache.info.start_path))
                readings.append(browser_pss_mib())
            browser = pool.version
    finally:
        site.stop()
    steps = [b - a for a, b in zip(readings, readings[1:], strict=False)]
    return {
        "supported": True,
        "contexts": n,
        "pss_mib": [round(r, 1) for r in readings],
        "per_context_median_mib": round(statistics.median(steps), 1) if steps else None,
        "browser_alone_mib": round(readings[0], 1),
        "browser": browser,
    }
