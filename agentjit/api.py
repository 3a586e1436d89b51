"""The high-level entry points: run a plan on a site (a URL and a tool cache), or on a named
app profile whose site is started for you."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentjit.bench.apps import get_app
from agentjit.cache import ToolCache
from agentjit.exceptions import ConfigError
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
    app: str | None = None,
    site_url: str | None = None,
    cache: ToolCache | str | Path | None = None,
    strategy: Any = "serial",
    model: Model | None = None,
    latency_scale: float = 0.0,
    trace_dir: str | Path | None = None,
    pool: BrowserPool | None = None,
    task: str | None = None,
) -> RunResult:
    """Run a plan on ``site_url`` with ``cache``'s tools (a ToolCache or its directory), or on
    a named app profile.

    With ``site_url`` nothing is started: the run goes to that URL. Without it
    the profile's site is started in-process on a free port (``latency_scale``
    sets its injected latency) and stopped afterwards. ``app`` supplies
    whatever is not given (its cache, its site); with neither ``app`` nor
    ``cache`` the bundled ``food`` profile is used. The run starts at the
    cache's ``info.start_path`` in its ``info.initial_state``.
    """
    text = read_plan(source)
    if app is None and cache is None:
        app = "food"
    profile = get_app(app) if app is not None else None
    if isinstance(cache, str | Path):
        tools = ToolCache.load(cache)
    elif cache is not None:
        tools = cache
    else:
        assert profile is not None
        tools = profile.load_cache()
    site = None
    if site_url is None:
        if profile is None:
            raise ConfigError("give site_url (the site to run on) with cache, or an app whose site can be started")
        site = profile.site(latency_scale=latency_scale)
        site.start()
        site_url = site.url
    try:
        runtime = Runtime(tools, site_url, pool=pool, trace_dir=trace_dir, model=model)
        return await runtime.run(text, strategy=strategy, task=task)
    finally:
        if site is not None:
            site.stop()
