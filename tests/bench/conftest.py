"""Fixtures of the bench tests: one Chromium per session, a fresh context per test, the food site."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from playwright.async_api import async_playwright

from agentjit.bench.food import CACHE_DIR, FoodSite
from agentjit.cache import ToolCache

HOST_RULES = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Any]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=os.environ.get("AGENTJIT_CHROMIUM", "/usr/bin/chromium"), args=[HOST_RULES]
        )
        try:
            yield browser
        finally:
            await browser.close()


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


@pytest.fixture
async def page(browser: Any) -> AsyncIterator[Any]:
    context = await browser.new_context()
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.fixture(scope="session")
def food_cache() -> ToolCache:
    return ToolCache.load(CACHE_DIR)
