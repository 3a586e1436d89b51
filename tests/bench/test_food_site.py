"""The food site without a browser: catalogue invariants, pages, API, /__state, /__reset, latency."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from agentjit.bench.food import FoodSite
from agentjit.bench.food.data import (
    BY_SLUG,
    CATEGORIES,
    RESTAURANTS,
    SECTIONS,
    category_slug,
    find_store,
    search_stores,
)
from agentjit.bench.food.latency import PROFILES, LatencyModel, Profile


def fetch(url: str, data: Any = None, *, form: bool = False) -> tuple[int, str]:
    body = None
    headers = {}
    if data is not None:
        if form:
            body = "&".join(f"{k}={v}" for k, v in data.items()).encode()
        else:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=body, headers=headers, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


# -- catalogue ------------------------------------------------------------------

def test_catalogue_has_the_paper_stores_and_enough_variety() -> None:
    assert len(RESTAURANTS) >= 30
    assert len(BY_SLUG) == len(RESTAURANTS), "slugs must be unique"
    for name in ["Stonemill Matcha", "Winstop", "Man vs. Fries", "McDonald's", "Popeyes", "Ike's", "Petco"]:
        assert find_store(name) is not None, name
    matcha = find_store("Stonemill Matcha")
    assert matcha is not None
    for item in ["Matcha Croissant", "Iced Matcha Latte", "Ceremonial Matcha Latte", "Mochi Set"]:
        assert matcha.item(item) is not None, item
    latte = matcha.item("Iced Matcha Latte")
    assert latte is not None
    size = latte.group("Size")
    assert size is not None and [c.label for c in size.choices] == ["Regular", "Large"]
    assert any(r.review_count < 20 for r in RESTAURANTS) and any(r.review_count > 1000 for r in RESTAURANTS)
    assert all(len(r.reviews) >= 3 for r in RESTAURANTS)
    ids = [it.id for r in RESTAURANTS for it in r.menu]
    assert len(ids) == len(set(ids))
    assert {r.category for r in RESTAURANTS} <= set(CATEGORIES)
    assert any("taco" in it.tags for r in RESTAURANTS for it in r.menu)
    assert any("sub" in it.tags for r in RESTAURANTS for it in r.menu)


def test_fries_are_named_fries_and_priced_apart() -> None:
    for r in RESTAURANTS:
        for it in r.menu:
            assert ("fries" in it.tags) == ("Fries" in it.name), (r.name, it.name)
    cheapest = []
    for name in ["Winstop", "Man vs. Fries", "McDonald's", "Popeyes", "Ike's"]:
        store = find_store(name)
        assert store is not None
        prices = [it.price for it in store.menu if "Fries" in it.name]
        assert prices, name
        cheapest.append(min(prices))
    assert len(set(cheapest)) == 5


def test_petco_has_one_clearly_most_expensive_item() -> None:
    petco = find_store("Petco")
    assert petco is not None and petco.category == "Pets"
    prices = sorted((it.price for it in petco.menu), reverse=True)
    assert prices[0] > 1.5 * prices[1]


def test_sections() -> None:
    assert list(SECTIONS)[0] == "Best near you"
    light = SECTIONS["Light & fresh"]
    assert len(light) == 10
    delivers = [BY_SLUG[s].delivery for s in light]
    assert 0 < sum(delivers) < len(light)
    assert len(SECTIONS["Costume party ready"]) == 3
    for name, slugs in SECTIONS.items():
        for slug in slugs:
            assert name in BY_SLUG[slug].sections


def test_search_and_fuzzy_lookup() -> None:
    assert find_store("ikes") is BY_SLUG["ikes"]
    assert find_store("man vs fries") is BY_SLUG["man-vs-fries"]
    assert find_store("MCDONALDS") is BY_SLUG["mcdonalds"]
    assert find_store("no such place") is None
    hits = search_stores("matcha")
    assert hits[0].slug == "stonemill-matcha"
    assert BY_SLUG["juice-junction"] in hits  # by an item name
    assert search_stores("   ") == []


# -- pages and API ---------------------------------------------------------------

PAGES = [
    ("/", "home"),
    ("/store/stonemill-matcha", "store"),
    ("/category/fast-food", "category"),
    ("/search?q=taco", "search"),
    ("/cart", "cart"),
    ("/checkout", "checkout"),
]


@pytest.mark.parametrize(("path", "page"), PAGES)
def test_every_page_renders_with_its_data_page(food_site: FoodSite, path: str, page: str) -> None:
    status, html = fetch(food_site.url + path)
    assert status == 200
    assert f'<body data-page="{page}"' in html
    assert 'data-testid="cart-count"' in html and 'data-testid="search-input"' in html


def test_home_lists_sections_chips_and_all_stores(food_site: FoodSite) -> None:
    _, html = fetch(food_site.url + "/")
    sections = re.findall(r'data-testid="home-section" data-section="([^"]+)"', html)
    assert sections == [s.replace("&", "&amp;") for s in SECTIONS] + ["All stores"]
    first_cards = re.findall(r'data-testid="store-card" data-store-slug="([^"]+)"', html)[:3]
    assert first_cards == list(SECTIONS["Best near you"][:3])
    chips = re.findall(r'data-testid="category-chip" data-category="[^"]+" href="([^"]+)"', html)
    assert chips == [f"/category/{category_slug(c)}" for c in CATEGORIES]
    for path in chips:
        assert fetch(food_site.url + path)[0] == 200


def test_store_page_has_menu_items_and_lazy_reviews(food_site: FoodSite) -> None:
    _, html = fetch(food_site.url + "/store/petco")
    assert 'data-store="petco"' in html and "Full Menu" in html
    assert len(re.findall(r'data-testid="menu-item" data-item-id="petco-\d+"', html)) == len(BY_SLUG["petco"].menu)
    status, body = fetch(food_site.url + "/api/stores/petco/reviews")
    assert status == 200
    assert [r["author"] for r in json.loads(body)["reviews"]] == [r.author for r in BY_SLUG["petco"].reviews]


def test_unknown_pages_are_404(food_site: FoodSite) -> None:
    assert fetch(food_site.url + "/store/nowhere")[0] == 404
    assert fetch(food_site.url + "/category/nothing")[0] == 404
    assert fetch(food_site.url + "/orders/ORD-1")[0] == 404
    assert fetch(food_site.url + "/nope")[0] == 404
    assert fetch(food_site.url + "/", {"x": 1})[0] == 405


def test_cart_order_state_and_reset(food_site: FoodSite) -> None:
    url = food_site.url
    status, body = fetch(url + "/api/cart", {"store": "stonemill-matcha", "item_id": "stonemill-matcha-2",
                                             "options": {"size": "large", "Milk": "Oat"}, "quantity": 2})
    assert status == 200, body
    line = json.loads(body)["line"]
    assert line["options"] == {"Size": "Large", "Milk": "Oat"}
    assert line["unit_price"] == 6.50 + 1.00 + 0.75 and line["line_total"] == 16.50
    # another store's item is refused while the cart holds this one
    status, body = fetch(url + "/api/cart", {"store": "ikes", "item_id": "ikes-1"})
    assert status == 409 and "Stonemill Matcha" in json.loads(body)["error"]
    # bad options are refused with a message naming the choices
    status, body = fetch(url + "/api/cart", {"store": "stonemill-matcha", "item_id": "stonemill-matcha-2",
                                             "options": {"Size": "Huge"}})
    assert status == 400 and "Regular, Large" in json.loads(body)["error"]
    cart = json.loads(fetch(url + "/api/cart")[1])
    assert cart["subtotal"] == 16.5 and cart["fees"] == round(1.99 + 1.65, 2) and cart["total"] == round(16.5 + 3.64, 2)

    status, html = fetch(url + "/checkout/place", {"mode": "pickup", "address": ""}, form=True)
    assert status == 200 and 'data-page="order"' in html  # followed the 303
    state = json.loads(fetch(url + "/__state")[1])
    assert state == food_site.state()
    assert state["cart"] == []
    (order,) = state["orders"]
    assert order["id"] == "ORD-1001" and order["mode"] == "pickup" and order["total"] == round(16.5 + 1.65, 2)
    assert [(e["path"], e["status"]) for e in state["log"]] == [
        ("/api/cart", 200), ("/api/cart", 409), ("/api/cart", 400), ("/checkout/place", 303)
    ]
    assert [e["seq"] for e in state["log"]] == [1, 2, 3, 4]
    assert "ORD-1001" in fetch(url + "/orders/ORD-1001")[1]

    # an empty cart cannot be ordered
    assert fetch(url + "/checkout/place", {"mode": "pickup"}, form=True)[0] == 400
    assert fetch(url + "/__reset", {})[0] == 200
    assert food_site.state() == {"cart": [], "orders": [], "log": []}


def test_delivery_refused_for_pickup_only_store(food_site: FoodSite) -> None:
    assert not BY_SLUG["party-palace"].delivery
    fetch(food_site.url + "/api/cart", {"store": "party-palace", "item_id": "party-palace-1"})
    status, html = fetch(food_site.url + "/checkout/place", {"mode": "delivery", "address": "x"}, form=True)
    assert status == 400 and "does not deliver" in html
    assert food_site.state()["orders"] == []


def test_binds_loopback_only_and_reports_its_port() -> None:
    with FoodSite(latency_scale=0) as site:
        assert site.url.startswith("http://127.0.0.1:")
        assert site._server is not None and site._server.server_address[0] == "127.0.0.1"
        assert site.port == int(site.url.rsplit(":", 1)[1]) > 0
    with pytest.raises(RuntimeError):
        _ = site.url


# -- latency ---------------------------------------------------------------------

def test_profiles_fast_tight_and_heavy_tailed() -> None:
    import random

    rng = random.Random(7)
    home = sorted(PROFILES["home"].draw(rng) for _ in range(2000))
    store = sorted(PROFILES["store"].draw(rng) for _ in range(2000))
    search = sorted(PROFILES["search"].draw(rng) for _ in range(2000))
    assert home[-1] < 0.15 and 0.03 < home[1000] < 0.05  # fast and tight
    assert store[1900] / store[100] < 1.5  # slow but tight: the p95/p5 spread is small
    assert search[1900] > 4.0 and search[100] < 0.3  # heavy-tailed: seconds for the slow draws
    assert 0.3 < sum(1 for x in search if x > 1.0) / len(search) < 0.7


def test_latency_model_is_seeded_and_scaled() -> None:
    a = [LatencyModel(seed=3).delay("store") for _ in range(1)] + [LatencyModel(seed=3).delay("store")]
    assert a[0] == a[1]
    assert LatencyModel(seed=3, scale=0).delay("store") == 0.0
    assert LatencyModel(seed=3, scale=2).delay("store") == pytest.approx(2 * a[0])
    assert LatencyModel().delay("no-such-kind") == 0.0
    with pytest.raises(ValueError):
        LatencyModel(scale=-1)


def test_latency_draws_are_common_random_numbers() -> None:
    """A delay depends on (seed, label, kind, request, occurrence), never on the other requests made."""
    model = LatencyModel(seed=5)
    model.restart("task-a")
    first = model.delay("search", "GET /search?q=x")
    again = model.delay("search", "GET /search?q=x")  # a hedged replica's identical request
    model.restart("task-a")
    model.delay("store", "GET /store/petco")  # other traffic in between changes nothing
    model.delay("search", "GET /search?q=other")
    assert model.delay("search", "GET /search?q=x") == first
    assert model.delay("search", "GET /search?q=x") == again
    assert again != first  # the second identical request is a fresh draw, as from a real server
    model.restart("task-b")
    assert model.delay("search", "GET /search?q=x") != first
    assert LatencyModel(seed=6).delay("search", "GET /search?q=x") != LatencyModel(seed=5).delay(
        "search", "GET /search?q=x"
    )


def test_reset_names_the_draws_over_http() -> None:
    from agentjit.tasks.apps import RemoteSite

    with FoodSite(latency_scale=0, seed=2) as site:
        RemoteSite(site.url, reset_path="/__reset").reset(draws="demo/custom-3 run 1")
        assert site._latency.label == "demo/custom-3 run 1"
        site.reset()
        assert site._latency.label == ""


def _timed(url: str) -> float:
    t0 = time.perf_counter()
    assert fetch(url)[0] == 200
    return time.perf_counter() - t0


def test_latency_scale_off_and_on() -> None:
    with FoodSite(latency_scale=0, seed=1) as site:
        off = min(_timed(site.url + "/") for _ in range(3))
        status, body = fetch(site.url + "/__latency?scale=10", {})
        assert status == 200 and json.loads(body)["scale"] == 10.0 and site.latency_scale == 10.0
        on = min(_timed(site.url + "/") for _ in range(3))
        assert on > 0.2 and off < 0.15 and on > off  # home: median 40 ms x 10
        assert fetch(site.url + "/__latency?scale=-1", {})[0] == 400
        assert fetch(site.url + "/__latency?scale=oops", {})[0] == 400
        site.latency_scale = 0
        assert _timed(site.url + "/") < 0.15


def test_slow_response_does_not_block_others() -> None:
    with FoodSite(latency_scale=1.0) as site:
        site._latency.profiles.update(store=Profile(2.0, 0.01), home=Profile(0.001, 0.01))
        slow = threading.Thread(target=fetch, args=(site.url + "/store/petco",))
        t0 = time.perf_counter()
        slow.start()
        time.sleep(0.05)
        fast = _timed(site.url + "/")
        slow.join()
        assert fast < 1.0
        assert time.perf_counter() - t0 >= 1.9
