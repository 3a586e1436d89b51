"""The high-level entry points: run a plan against an app, with the site started for you."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentjit.bench.apps import get_app
from agentjit.cache import ToolCache
from agentjit.llm.base import Model
from agentjit.runtime import BrowserPool, RunResult, Runtime

__all__ = ["run", "read_plan"]


def read_plan(source: str | Path) -> str:
    """Plan text from a path (``.py``) or the text itself."""
    if isinstance(source, Path) or (isinstance(source, str) and source.endswith(".py") and "\n" not in source):
        return Path(source).read_text(encoding="utf-8")
    return str(source)


async def run(
    source: str | Path,
    *,
    app: str = "food",
    site_url: str | None = None,
    cache: ToolCache | None = None,
    strategy: Any = "serial",
    model: Model | None = None,
    latency_scale: float = 0.0,
    trace_dir: str | Path | None = None,
    pool: BrowserPool | None = None,
    task: str | None = None,
) -> RunResult:
    """Run a plan against ``app``.

    Without ``site_url`` the app's bundled site is started in-process on a free
    port (``latency_scale`` sets its injected latency) and stopped afterwards.
    """
    text = read_plan(source)
    bundled = get_app(app)
    tools = cache or bundled.load_cache()
    site = None
    if site_url is None:
        site = bundled.site(latency_scale=latency_scale)
        site.start()
        site_url = site.url
    try:
        runtime = Runtime(tools, site_url, pool=pool, trace_dir=trace_dir, model=model)
        return await runtime.run(text, strategy=strategy, task=task)
    finally:
        if site is not None:
            site.stop()
