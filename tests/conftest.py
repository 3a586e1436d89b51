"""Session-wide fixtures: the model guard, one shared Chromium, the food site, Roundup and Fava.

The suite runs in two pytest-xdist workers (``make test``: ``-n 2 --dist loadfile``): every
session fixture here is started once per worker, on a free port and in its own temporary
directory, and each worker keeps its per-user files (plan caches, latency fits) in its own
``XDG_CACHE_HOME``, so neither worker sees the other's state nor the user's.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import agentjit.llm
from agentjit.bench.food import CACHE_DIR, FoodSite
from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool

# No test may reach a real model provider: loopback fake servers only.
agentjit.llm.ALLOW_MODEL_REQUESTS = False


@pytest.fixture(scope="session", autouse=True)
def own_user_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``$XDG_CACHE_HOME`` of this test process (one per xdist worker): commands without
    ``--plan-cache`` store compiled plans there, never in the user's ``~/.cache`` nor where the
    other worker's tests read theirs. A test's own ``monkeypatch.setenv`` still wins."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
async def browser_pool() -> AsyncIterator[BrowserPool]:
    """One Chromium for the whole test session; tests open their own contexts."""
    async with BrowserPool() as pool:
        yield pool


@pytest.fixture
async def page(browser_pool: BrowserPool) -> AsyncIterator[Any]:
    """A page in a fresh context of the shared browser, closed after the test."""
    async with browser_pool.page() as page:
        yield page


@pytest.fixture(scope="session")
def food_site_session() -> Iterator[FoodSite]:
    with FoodSite(latency_scale=0) as site:
        yield site


@pytest.fixture
def food_site(food_site_session: FoodSite) -> FoodSite:
    """The shared food site, reset to its seed state, latency off."""
    food_site_session.reset()
    food_site_session.latency_scale = 0
    return food_site_session


@pytest.fixture(scope="session")
def food_cache() -> ToolCache:
    return ToolCache.load(CACHE_DIR)


@pytest.fixture(scope="session")
def roundup_site_session() -> Iterator[Any]:
    """One Roundup tracker (classic, sqlite, generated data) for the session; skipped without roundup."""
    pytest.importorskip("roundup")
    from agentjit.bench.roundup import RoundupSite

    with RoundupSite() as site:
        yield site


@pytest.fixture
def roundup_site(roundup_site_session: Any) -> Any:
    """The shared Roundup tracker, reset to its seed data."""
    roundup_site_session.reset()
    return roundup_site_session


@pytest.fixture(scope="session")
def fava_site_session() -> Iterator[Any]:
    """One Fava site (generated ledger) for the session; skipped without fava."""
    pytest.importorskip("fava", reason="the Fava bench app needs fava (pip install 'agentjit[dev]')")
    from agentjit.bench.fava import FavaSite

    with FavaSite() as site:
        yield site


@pytest.fixture
def fava_site(fava_site_session: Any) -> Any:
    """The shared Fava site with its generated ledger restored."""
    fava_site_session.reset()
    return fava_site_session
