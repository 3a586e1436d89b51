"""The thin synchronous facade: one line per async entry point, never a second implementation."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from agentjit.exceptions import ConfigError

__all__ = ["run_sync", "run_plan_sync", "run_demo_sync"]

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion; inside a running event loop (Jupyter) say to ``await`` instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise ConfigError("an event loop is already running (Jupyter?): use `await` on the async API instead")


def run_plan_sync(source: str | Path, app: str | None = None, **kwargs: Any) -> Any:
    """Run a plan (source text or a .py path) on ``site_url`` with ``cache``, or on an app
    profile (default food); see :func:`agentjit.run`."""
    from agentjit.api import run

    return run_sync(run(source, app=app, **kwargs))


def run_demo_sync(app: str | None = "food", **kwargs: Any) -> Any:
    """Run and judge tasks (an app's, or ``tasks`` on ``site_url`` with ``cache``); see
    :func:`agentjit.tasks.runner.run_demo`."""
    from agentjit.tasks.runner import run_demo

    return run_sync(run_demo(app, **kwargs))
