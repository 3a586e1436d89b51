"""A small synthetic food-delivery tool cache and assertion helpers for the planner tests."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from agentjit.cache import ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.planner import CheckResult, check
from agentjit.protocol import ToolManifest

_STORE_ITEM = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "slug": {"type": "string"},
        "rating": {"type": ["number", "null"]},
        "review_count": {"type": ["integer", "null"]},
    },
    "required": ["name", "slug"],
}


def _tool(name: str, **kw: Any) -> ToolManifest:
    kw.setdefault("description", name.replace("_", " "))
    kw.setdefault("type", "observe")
    kw.setdefault("execute", "return {};")
    return ToolManifest(name=name, **kw)


def food_tools() -> list[ToolManifest]:
    def obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
        return {"type": "object", "properties": props, "required": required or []}

    return [
        _tool("goto_home", type="gotoItem", pre={"page": "*"}, post={"page": "home"}, navigates=True),
        _tool(
            "list_stores",
            type="listItems",
            pre={"page": "home"},
            output_schema=obj({"items": {"type": "array", "items": _STORE_ITEM}, "count": {"type": "integer"}}, ["items"]),
        ),
        _tool(
            "goto_store",
            type="gotoItem",
            input_schema=obj({"name": {"type": "string", "minLength": 1}}, ["name"]),
            output_schema=obj({"slug": {"type": "string"}, "name": {"type": "string"}}, ["slug", "name"]),
            pre={"page": "home|category|search"},
            post={"page": "store", "store": "$slug"},
            pre_tools={"name": ["list_stores"]},
            navigates=True,
        ),
        _tool(
            "get_store_details",
            type="getFields",
            pre={"page": "store"},
            output_schema=obj(
                {
                    "name": {"type": "string"},
                    "rating": {"type": ["number", "null"]},
                    "review_count": {"type": "integer"},
                    "address": {"type": "string"},
                },
                ["name"],
            ),
        ),
        _tool(
            "list_menu_items",
            type="listItems",
            pre={"page": "store"},
            output_schema=obj(
                {"items": {"type": "array", "items": obj({"name": {"type": "string"}, "price": {"type": "number"}})}}
            ),
        ),
        _tool(
            "add_to_cart",
            type="setFields",
            effect="WRITE",
            input_schema=obj(
                {"item": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}}, ["item"]
            ),
            pre={"page": "store"},
            post={"cart": "*"},
        ),
        _tool("goto_checkout", type="gotoItem", pre={"cart": "*"}, post={"page": "checkout"}, navigates=True),
        _tool(
            "place_order",
            type="setFields",
            effect="WRITE",
            pre={"page": "checkout"},
            post={"page": "confirmation", "cart": ""},
            output_schema=obj({"order_id": {"type": "string"}}, ["order_id"]),
        ),
        _tool(
            "search",
            type="setFilter",
            input_schema=obj({"query": {"type": "string"}}, ["query"]),
            pre={"page": "*"},
            post={"page": "search"},
        ),
        _tool(
            "goto_category",
            type="gotoItem",
            input_schema=obj({"category": {"type": "string"}}, ["category"]),
            pre={"page": "home"},
            post={"page": "category"},
        ),
    ]


def make_cache(path: Any = None) -> ToolCache:
    info = CacheInfo(app="food-test", initial_state={"page": "home"})
    return ToolCache(info, food_tools(), path=path)


def check_src(src: str, cache: ToolCache | None = None) -> CheckResult:
    return check(textwrap.dedent(src), cache or make_cache())


def assert_codes(src: str, *codes: str, lines: Sequence[int] | None = None, cache: ToolCache | None = None) -> CheckResult:
    """Check ``src`` and assert the diagnostics' codes (and lines) are exactly these, in order."""
    result = check_src(src, cache)
    got = [d.code for d in result.diagnostics]
    assert got == list(codes), "\n".join(str(d) for d in result.diagnostics) or "no diagnostics"
    if lines is not None:
        assert [d.line for d in result.diagnostics] == list(lines), [str(d) for d in result.diagnostics]
    assert result.valid is (not codes)
    return result
