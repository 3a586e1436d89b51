"""Every hand-written food tool against the live site in Chromium, through the runtime's call_tool."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentjit.bench.food import CACHE_DIR, FoodSite
from agentjit.bench.food.data import BY_SLUG, CATEGORIES, SECTIONS, dollars, stores_in_category
from agentjit.cache import ToolCache
from agentjit.protocol import Effect, apply, satisfies, to_output_object
from agentjit.runtime import call_tool

pytestmark = pytest.mark.browser


class Session:
    """Calls tools on one page and tracks the abstract state like the interpreter does."""

    def __init__(self, page: Any, cache: ToolCache):
        self.page = page
        self.cache = cache
        self.state: dict[str, Any] = dict(cache.info.initial_state)

    async def __call__(self, name: str, /, **args: Any) -> Any:
        tool = self.cache.tool(name)
        assert satisfies(self.state, tool.pre, args), f"{name}: pre {tool.pre} not met by {self.state}"
        outcome = await call_tool(self.page, tool, args, timeout_ms=3000)
        assert outcome.ok, f"{name}({args}) failed in {outcome.phase}: {outcome.reason}"
        out = outcome.output
        to_output_object(tool, out)  # validates against output_schema
        self.state = apply(self.state, tool.post, {**args, **(out or {})})
        # the abstract state must describe the real page
        body = await self.page.evaluate("() => ({page: document.body.dataset.page, store: document.body.dataset.store || null})")
        assert self.state.get("page") == body["page"], (name, self.state, body)
        if body["page"] == "store":
            assert self.state.get("store") == body["store"], (name, self.state, body)
        return out


@pytest.fixture
async def s(page: Any, food_site: FoodSite, food_cache: ToolCache) -> Session:
    await page.goto(food_site.url + "/")
    return Session(page, food_cache)


def test_cache_layout_and_manifests(food_cache: ToolCache) -> None:
    info = json.loads((CACHE_DIR / "cache.json").read_text())
    assert info["format"] == "agentjit-cache" and info["format_version"] == 1 and info["app"] == "food"
    assert info["url_pattern"] == "http://127.0.0.1:*/*" and info["start_path"] == "/"
    assert info["initial_state"] == {"page": "home"}
    tools = food_cache.tools
    assert len(tools) >= 12
    writes = {n for n, t in tools.items() if t.effect is Effect.WRITE}
    assert writes == {"add_to_cart", "remove_from_cart", "place_order"}
    navigating = {n for n, t in tools.items() if t.navigates}
    assert navigating == {"goto_home", "goto_category", "goto_store", "goto_cart", "goto_checkout", "place_order", "search"}
    for name, tool in tools.items():
        assert tool.description and tool.elements, name
        assert "page" in tool.pre, f"{name} must say which page it needs"
        if tool.navigates:
            assert tool.post.get("page") not in (None, "", "*"), name
        for param, producers in tool.pre_tools.items():
            assert param in tool.parameters and all(p in tools for p in producers), name
    assert tools["goto_store"].post == {"page": "store", "store": "$slug"}
    assert "slug" in tools["goto_store"].output_schema["properties"]
    assert tools["add_to_cart"].pre == {"page": "store"} and tools["list_menu_items"].pre == {"page": "store"}


async def test_home_tools(s: Session) -> None:
    sections = await s("list_sections")
    assert [x["name"] for x in sections["items"]] == [*SECTIONS, "All stores"]
    assert sections["items"][0]["store_count"] == len(SECTIONS["Best near you"])
    cats = await s("list_categories")
    assert [c["name"] for c in cats["items"]] == list(CATEGORIES)
    first = await s("list_stores", limit=3)
    assert [x["slug"] for x in first["items"]] == list(SECTIONS["Best near you"][:3])
    light = await s("list_stores", section="light and fresh")
    assert [x["slug"] for x in light["items"]] == list(SECTIONS["Light & fresh"])
    assert [x["delivery"] for x in light["items"]] == [BY_SLUG[x].delivery for x in SECTIONS["Light & fresh"]]
    best = await s("list_stores", section="Best near you", limit=5)
    assert [x["review_count"] for x in best["items"]] == [BY_SLUG[x].review_count for x in SECTIONS["Best near you"][:5]]
    everything = await s("list_stores")
    assert len(everything["items"]) == len(BY_SLUG)
    pets = await s("list_stores", category="pets")
    assert [x["slug"] for x in pets["items"]] == ["petco"]


async def test_list_stores_unknown_section_fails_in_execute(s: Session) -> None:
    outcome = await call_tool(s.page, s.cache.tool("list_stores"), {"section": "Nope"}, timeout_ms=300)
    assert not outcome.ok and outcome.phase == "execute" and "Best near you" in (outcome.reason or "")


async def test_category_and_search(s: Session) -> None:
    out = await s("goto_category", category="mexican")
    assert out == {"category": "Mexican"}
    stores = await s("list_stores")
    assert [x["slug"] for x in stores["items"]] == [r.slug for r in stores_in_category("Mexican")]
    await s("search", query="fries")
    found = await s("list_stores")
    assert found["items"][0]["slug"] == "man-vs-fries"
    await s("goto_home")
    assert s.state == {"page": "home"}


async def test_store_tools(s: Session) -> None:
    out = await s("goto_store", name="stonemill")
    assert out == {"name": "Stonemill Matcha", "slug": "stonemill-matcha"}
    assert s.state == {"page": "store", "store": "stonemill-matcha"}
    store = BY_SLUG["stonemill-matcha"]
    details = await s("get_store_details")
    assert details["review_count"] == store.review_count and details["delivery_fee"] == dollars(store.delivery_fee)
    menu = await s("list_menu_items")
    assert [(m["name"], m["price"]) for m in menu["items"]] == [(it.name, dollars(it.price)) for it in store.menu]
    item = await s("get_item_details", item_name="iced matcha latte")
    assert item["price"] == 6.5
    assert [(g["name"], g["kind"], [c["label"] for c in g["choices"]]) for g in item["options"]] == [
        ("Size", "single", ["Regular", "Large"]), ("Milk", "single", ["Whole", "Oat", "Almond"])
    ]
    reviews = await s("list_reviews", limit=2)
    assert [r["text"] for r in reviews["items"]] == [r.text for r in store.reviews[:2]]
    # from a store page the card is not on screen: goto_store looks the store up
    out = await s("goto_store", name="IKE'S")
    assert out["slug"] == "ikes"


async def test_add_to_cart_with_customizations(s: Session, food_site: FoodSite) -> None:
    await s("goto_store", name="Taqueria El Sol")
    out = await s("add_to_cart", item_name="Carne Asada Taco",
                  customizations="Salsa:Habanero,Add-ons:Guacamole+Extra cheese,Special Instructions:no onions",
                  quantity=3)
    assert out["success"] and out["cart_count"] == 3 and out["unit_price"] == 3.75 + 1.25 + 0.75
    (line,) = food_site.state()["cart"]
    assert line["options"] == {"Salsa": "Habanero", "Add-ons": ["Guacamole", "Extra cheese"]}
    assert line["instructions"] == "no onions" and line["quantity"] == 3 and line["line_total"] == 17.25
    badge = await s.page.text_content("[data-testid=cart-count]")
    assert badge == "3"


async def test_add_to_cart_refusals(s: Session, food_site: FoodSite) -> None:
    await s("goto_store", name="Stonemill Matcha")
    tool = s.cache.tool("add_to_cart")
    bad = await call_tool(s.page, tool, {"item_name": "Iced Matcha Latte", "customizations": "Size:Huge"}, timeout_ms=300)
    assert not bad.ok and bad.phase == "execute" and "Regular, Large" in (bad.reason or "")
    missing = await call_tool(s.page, tool, {"item_name": "Pizza"}, timeout_ms=300)
    assert not missing.ok and missing.phase == "execute" and "no menu item" in (missing.reason or "")
    assert food_site.state()["log"] == []  # nothing was sent
    await s("add_to_cart", item_name="Mochi Set")
    await s("goto_store", name="Popeyes")
    other = await call_tool(s.page, tool, {"item_name": "Cajun Fries"}, timeout_ms=300)
    assert not other.ok and other.phase == "post_check" and "Stonemill Matcha" in (other.reason or "")
    assert [ln["item_name"] for ln in food_site.state()["cart"]] == ["Mochi Set"]


async def test_cart_checkout_order(s: Session, food_site: FoodSite) -> None:
    await s("goto_store", name="Ike's")
    await s("add_to_cart", item_name="Matt Cain Sub", customizations="Bread:Sourdough")
    await s("add_to_cart", item_name="Side of Fries", quantity=2)
    await s("goto_cart")
    cart = await s("view_cart")
    assert [(ln["item_name"], ln["quantity"]) for ln in cart["lines"]] == [("Matt Cain Sub", 1), ("Side of Fries", 2)]
    assert cart["lines"][0]["options"] == {"Bread": "Sourdough"}
    assert cart["subtotal"] == round(13.49 + 2 * 3.49, 2) and cart["count"] == 3
    removed = await s("remove_from_cart", item_name="fries")
    assert removed == {"success": True, "removed": "Side of Fries", "cart_count": 1}
    cart = await s("view_cart")
    assert cart["subtotal"] == 13.49 and cart["total"] == food_site.state_obj.totals()["total"]
    await s("goto_checkout")
    order = await s("place_order", mode="delivery", address="9 Elm St")
    (placed,) = food_site.state()["orders"]
    assert order["order_id"] == placed["id"] and order["total"] == placed["total"] and placed["address"] == "9 Elm St"
    assert s.state == {"page": "order"}
    seen = await s("get_order")
    assert seen["lines"] == [{"item_name": "Matt Cain Sub", "quantity": 1, "line_total": 13.49}]
    assert seen["total"] == placed["total"] and seen["mode"] == "delivery"


async def test_goto_checkout_with_empty_cart_fails_pre_check(s: Session) -> None:
    await s("goto_cart")
    outcome = await call_tool(s.page, s.cache.tool("goto_checkout"), {}, timeout_ms=300)
    assert not outcome.ok and outcome.phase == "pre_check" and "empty" in (outcome.reason or "")


# every tool whose pre is one specific kind of page, called on another page
WRONG_PAGE = [
    ("list_sections", {}, "/cart"),
    ("list_categories", {}, "/store/petco"),
    ("list_stores", {}, "/store/petco"),
    ("goto_category", {"category": "Pizza"}, "/cart"),
    ("get_store_details", {}, "/"),
    ("list_menu_items", {}, "/"),
    ("get_item_details", {"item_name": "Mochi Set"}, "/search?q=mochi"),
    ("add_to_cart", {"item_name": "Mochi Set"}, "/"),
    ("list_reviews", {}, "/category/pizza"),
    ("view_cart", {}, "/"),
    ("remove_from_cart", {"item_name": "x"}, "/store/petco"),
    ("goto_checkout", {}, "/"),
    ("place_order", {}, "/cart"),
    ("get_order", {}, "/checkout"),
]


def test_wrong_page_table_covers_every_page_specific_tool(food_cache: ToolCache) -> None:
    specific = {n for n, t in food_cache.tools.items() if t.pre.get("page") != "*"}
    assert specific == {name for name, _, _ in WRONG_PAGE}


async def test_pre_check_fails_on_the_wrong_page(page: Any, food_site: FoodSite, food_cache: ToolCache) -> None:
    """Every page-specific tool, called on another page, fails in pre_check (one page, many gotos)."""
    wrong = []
    for name, args, path in WRONG_PAGE:
        await page.goto(food_site.url + path)
        outcome = await call_tool(page, food_cache.tool(name), args, timeout_ms=150)
        if outcome.ok or outcome.phase != "pre_check" or not outcome.reason:
            wrong.append((name, path, outcome.phase, outcome.reason))
    assert wrong == []
    assert food_site.state()["log"] == []
