"""Fixtures of the planner tests: a small synthetic food-site tool cache."""

from __future__ import annotations

import pytest

from agentjit.cache import ToolCache

from .helpers import make_cache


@pytest.fixture
def cache() -> ToolCache:
    return make_cache()
