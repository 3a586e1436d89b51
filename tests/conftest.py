"""Session-wide fixtures: the model guard, one shared Chromium, one food site."""

from __future__ import annotations

import pytest

import agentjit.llm
from agentjit.runtime import BrowserPool

# No test may reach a real model provider: loopback fake servers only.
agentjit.llm.ALLOW_MODEL_REQUESTS = False


@pytest.fixture(scope="session")
async def browser_pool():
    """One Chromium for the whole test session; tests open their own contexts."""
    async with BrowserPool() as pool:
        yield pool


@pytest.fixture(scope="session")
def food_site():
    """The food bench site on a free port, latency injection off; reset per test by callers."""
    from agentjit.bench.food import FoodSite

    with FoodSite(latency_scale=0) as site:
        yield site


@pytest.fixture(scope="session")
def food_cache():
    from agentjit.bench.apps import get_app

    return get_app("food").load_cache()


@pytest.fixture
async def page(browser_pool):
    async with browser_pool.page() as page:
        yield page
