"""Fixtures for the scheduler tests: a small food-ordering tool set."""

from __future__ import annotations

import numpy as np
import pytest

from agentjit.cache import CacheInfo, ToolCache
from agentjit.protocol import ToolManifest


def make_tool(
    name: str,
    effect: str = "READ",
    *,
    post: dict | None = None,
    navigates: bool = False,
    tool_type: str = "observe",
) -> ToolManifest:
    return ToolManifest.model_validate(
        {
            "name": name,
            "description": f"{name} on the food site",
            "type": tool_type,
            "execute": "return null;",
            "effect": effect,
            "post": post or {},
            "navigates": navigates,
            "elements": [f"{name}_button"],
        }
    )


@pytest.fixture
def tools() -> dict[str, ToolManifest]:
    made = [
        make_tool("go_home", post={"page": "home"}, navigates=True, tool_type="gotoItem"),
        make_tool(
            "open_restaurant", post={"page": "restaurant"}, navigates=True, tool_type="gotoItem"
        ),
        make_tool("list_items", tool_type="listItems"),
        make_tool("list_restaurants", tool_type="listItems"),
        make_tool("get_price", tool_type="getFields"),
        make_tool("get_reviews", tool_type="getFields"),
        make_tool("add_to_cart", "WRITE", tool_type="setFields"),
        make_tool(
            "place_order",
            "WRITE",
            post={"page": "confirmation"},
            navigates=True,
            tool_type="setFields",
        ),
    ]
    return {t.name: t for t in made}


@pytest.fixture
def cache(tools: dict[str, ToolManifest]) -> ToolCache:
    return ToolCache(CacheInfo(app="food"), tools.values())


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240611)
