"""Benchmark: what a protocol tool call costs over a bare ``page.evaluate`` of its body.

Both sides run the same ``execute`` body on the same page, interleaved, N
times; the report gives the medians and their ratio from one run. The tool
side includes input validation, pre_check and post_check polling, output
validation and the structured outcome.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from agentjit.cache import ToolCache
from agentjit.protocol import urls
from agentjit.runtime import BrowserPool, call_tool
from agentjit.runtime.runner import goto_start
from agentjit.tasks.runner import resolve_target

__all__ = ["measure_overhead"]


async def measure_overhead(
    app_name: str | None = "food",
    *,
    site_url: str | None = None,
    cache: ToolCache | None = None,
    tool_name: str = "list_stores",
    args: dict[str, Any] | None = None,
    n: int = 200,
    warmup: int = 10,
) -> dict[str, Any]:
    """Median seconds of ``call_tool`` against a bare evaluate of the same execute body.

    On the profile ``app_name``'s site and cache unless ``site_url`` / ``cache`` are given.
    """
    target = resolve_target(app_name, site_url=site_url, cache=cache, need_tasks=False, latency_scale=0)
    cache, site = target.cache, target.site
    tool = cache.tool(tool_name)
    if tool.navigates:
        raise ValueError(f"{tool_name} navigates; pick a tool that stays on its page")
    args = dict(args or {})
    names = [p for p in tool.parameters if p.isidentifier()]
    for p in names:
        args.setdefault(p, None)
    bare = f"async (inputs) => {{ const {{{', '.join(names)}}} = inputs; {tool.execute}\n}}"
    site.start()
    try:
        async with BrowserPool.from_spec() as pool, pool.page() as page:
            await goto_start(page, urls.site_url(site.url, cache.info.start_path))
            tool_times: list[float] = []
            bare_times: list[float] = []
            for i in range(warmup + n):
                t0 = time.perf_counter()
                outcome = await call_tool(page, tool, {k: v for k, v in args.items() if v is not None})
                t1 = time.perf_counter()
                await page.evaluate(bare, args)
                t2 = time.perf_counter()
                if not outcome.ok:
                    raise RuntimeError(f"{tool_name} failed in the benchmark: {outcome.phase}: {outcome.reason}")
                if i >= warmup:
                    tool_times.append(t1 - t0)
                    bare_times.append(t2 - t1)
            browser = pool.version
    finally:
        site.stop()
    tool_med = statistics.median(tool_times)
    bare_med = statistics.median(bare_times)
    return {
        "tool": tool_name,
        "n": n,
        "tool_call_median_ms": round(tool_med * 1000, 3),
        "bare_evaluate_median_ms": round(bare_med * 1000, 3),
        "overhead_ms": round((tool_med - bare_med) * 1000, 3),
        "ratio": round(tool_med / bare_med, 3),
        "browser": browser,
    }
