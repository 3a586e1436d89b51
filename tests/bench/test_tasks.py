"""The app-independent judge helpers, on hand-made states."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from agentjit.tasks.task import (
    all_of,
    answer_text,
    cart_holds,
    contains_numbers,
    contains_texts,
    new_log,
    new_orders,
    norm_text,
    numbers_in,
    orders_placed,
    unchanged,
)

EMPTY: dict[str, Any] = {"cart": [], "orders": [], "log": []}


def line(name: str, qty: int = 1, options: dict[str, Any] | None = None, total: float = 5.0) -> dict[str, Any]:
    return {"item_name": name, "store": "s", "options": options or {}, "quantity": qty, "line_total": total}


def ordered(*orders: dict[str, Any], extra_log: tuple[str, ...] = ()) -> dict[str, Any]:
    log: list[dict[str, Any]] = []
    for path in ["/api/cart"] * len(orders) + ["/checkout/place"] * len(orders) + list(extra_log):
        log.append({"seq": len(log) + 1, "method": "POST", "path": path, "body": {}, "status": 303 if "place" in path else 200})
    return {"cart": [], "orders": list(orders), "log": log}


def order(oid: str, *lines: dict[str, Any], total: float = 10.0, mode: str = "delivery") -> dict[str, Any]:
    return {"id": oid, "store": "s", "lines": list(lines), "total": total, "mode": mode}


@pytest.mark.parametrize(("text", "numbers"), [
    ("$11.75 and $16.25", [11.75, 16.25]),
    ("3 of 5 under 20", [3, 5, 20]),
    ("total $1,234.50.", [1234.5]),
    ("order ORD-1001", [1001]),
    ("none", []),
])
def test_numbers_in(text: str, numbers: list[float]) -> None:
    assert numbers_in(text) == numbers


def test_answer_text_and_norm() -> None:
    class Out(BaseModel):
        name: str

    assert answer_text("x") == "x"
    assert "Ike's" in answer_text({"a": [Out(name="Ike's")]})
    assert norm_text("Ike\u2019s  LOVE") == "ike's love"


def test_contains_numbers() -> None:
    judge = contains_numbers(11.75, 16.25)
    assert judge("They cost $11.75 and $16.25.", EMPTY, EMPTY).ok
    assert not judge("They cost $11.75 and $16.00.", EMPTY, EMPTY).ok
    assert contains_numbers(3)(3, EMPTY, EMPTY).ok
    assert not contains_numbers(3)(4, EMPTY, EMPTY).ok
    assert not contains_numbers(1)(True, EMPTY, EMPTY).ok


def test_contains_texts_and_all_of() -> None:
    judge = contains_texts(["Ike's Love & Sandwiches", "Popeyes"])
    assert judge("ike\u2019s love & sandwiches, POPEYES", EMPTY, EMPTY).ok
    r = judge(["Popeyes"], EMPTY, EMPTY)
    assert not r.ok and "Ike's" in r.reason
    both = all_of(contains_texts(["a"]), contains_numbers(2))
    assert both("a 2", EMPTY, EMPTY).ok and not both("a 3", EMPTY, EMPTY).ok


def test_unchanged() -> None:
    assert unchanged()("x", EMPTY, EMPTY).ok
    assert not unchanged()("x", EMPTY, ordered(order("O1", line("Taco")))).ok
    cart_only = {"cart": [line("Taco")], "orders": [], "log": [{"seq": 1, "method": "POST", "path": "/api/cart", "body": {}}]}
    assert not unchanged()("x", EMPTY, cart_only).ok
    assert new_log(EMPTY, cart_only) == cart_only["log"] and new_log(cart_only, cart_only) == []


def test_orders_placed() -> None:
    judge = orders_placed(count=1, line=lambda ln: "Taco" in ln["item_name"], line_desc="a taco", max_total=30)
    good = ordered(order("O1", line("Al Pastor Taco")))
    assert judge(None, EMPTY, good).ok
    assert new_orders(EMPTY, good)[0]["id"] == "O1"
    assert not judge(None, EMPTY, EMPTY).ok  # nothing ordered
    twice = ordered(order("O1", line("Al Pastor Taco")), order("O2", line("Al Pastor Taco")))
    assert "exactly 1" in judge(None, EMPTY, twice).reason
    assert not judge(None, EMPTY, ordered(order("O1", line("Burrito")))).ok
    assert not judge(None, EMPTY, ordered(order("O1", line("Taco"), total=30.0))).ok  # not *under* 30
    stray = ordered(order("O1", line("Taco")), extra_log=("/api/profile",))
    assert "unexpected" in judge(None, EMPTY, stray).reason
    left_in_cart = {**good, "cart": [line("Churro")]}
    assert not judge(None, EMPTY, left_in_cart).ok
    pickup = orders_placed(line=lambda ln: ln["item_name"] == "Mochi Set", only_matching=True, mode="pickup", quantity=2)
    assert pickup(None, EMPTY, ordered(order("O1", line("Mochi Set", 2), mode="pickup"))).ok
    assert not pickup(None, EMPTY, ordered(order("O1", line("Mochi Set", 2), mode="delivery"))).ok
    assert not pickup(None, EMPTY, ordered(order("O1", line("Mochi Set", 1), mode="pickup"))).ok
    assert not pickup(None, EMPTY, ordered(order("O1", line("Mochi Set", 2), line("Tea"), mode="pickup"))).ok


def test_cart_holds() -> None:
    judge = cart_holds([{"item_name": "Iced Matcha Latte", "options": {"Size": "Large"}}, {"item_name": "Matcha Croissant"}])
    right = {"cart": [line("Matcha Croissant"), line("Iced Matcha Latte", options={"Size": "Large", "Milk": "Oat"})],
             "orders": [], "log": []}
    assert judge(None, EMPTY, right).ok
    small = {**right, "cart": [line("Matcha Croissant"), line("Iced Matcha Latte", options={"Size": "Regular"})]}
    assert not judge(None, EMPTY, small).ok
    assert not judge(None, EMPTY, {**right, "cart": right["cart"][:1]}).ok
    assert not judge(None, EMPTY, {**right, "orders": [order("O1")]}).ok
