"""Fixtures of the builder tests; the browser and the food site are the session's shared ones."""

from __future__ import annotations

import pytest

from agentjit.runtime import BrowserPool


@pytest.fixture
def pool(browser_pool: BrowserPool) -> BrowserPool:
    return browser_pool
