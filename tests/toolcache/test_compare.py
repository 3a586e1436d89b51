"""The comparison's judgement (state change for writes, items for lists) and its setup routes."""

from __future__ import annotations

from typing import Any

from agentjit.bench.food import CACHE_DIR
from agentjit.cache import ToolCache
from toolcache.compare import _args_for, _delta, _route, _same

LINE = ("winstop", "10 pc Classic Wings", "{}", "", 2, 25.98)
EMPTY: dict[str, Any] = {"cart": [], "orders": []}


def _out(**kw: Any) -> dict[str, Any]:
    base = {"ok": True, "reason": "", "page": "store", "names": None, "scalars": set(), "changed": False,
            "delta": _delta(EMPTY, EMPTY)}
    return {**base, **kw}


def test_delta_reports_lines_added_removed_and_orders() -> None:
    after = {"cart": [LINE], "orders": []}
    assert _delta(EMPTY, after) == {"cart_removed": [], "cart_added": [LINE], "orders_added": []}
    order = ("winstop", "pickup", "", 30.1, [LINE])
    placed = _delta(after, {"cart": [], "orders": [order]})
    assert placed == {"cart_removed": [LINE], "cart_added": [], "orders_added": [order]}


def test_writes_are_judged_by_state_change_not_outputs() -> None:
    added = _delta(EMPTY, {"cart": [LINE], "orders": []})
    hand = _out(changed=True, delta=added, scalars={"10pcclassicwings", "25.98"})
    built = _out(changed=True, delta=added, scalars={"200"})  # no output value in common
    assert _same(hand, built, write=True, listing=False) == (None, "state change")
    other = _delta(EMPTY, {"cart": [(*LINE[:4], 1, 12.99)], "orders": []})
    why, _ = _same(hand, _out(changed=True, delta=other), write=True, listing=False)
    assert why is not None and why.startswith("different state change")
    why, _ = _same(_out(), _out(), write=True, listing=False)
    assert why == "the hand-written write changed nothing"
    why, _ = _same(hand, _out(ok=False, reason="post_check: no toast"), write=True, listing=False)
    assert why is not None and "built ok=False" in why


def test_reads_need_same_items_or_a_shared_value() -> None:
    h = _out(names=["Winstop", "Taco Bell"])
    assert _same(h, _out(names=["Taco Bell", "Winstop"]), write=False, listing=True) == (None, "items")
    assert _same(h, _out(names=["Winstop"]), write=False, listing=True)[0] is not None
    assert _same(h, _out(scalars={"winstop"}), write=False, listing=True)[0] == "the built tool lists nothing"
    # an observe tool with a list of lines matches a fields reader sharing a value
    assert _same(_out(names=["Pad Thai"], scalars={"ord1"}), _out(scalars={"ord1", "pickup"}),
                 write=False, listing=False) == (None, "values")
    assert _same(_out(scalars={"a"}), _out(scalars={"b"}), write=False, listing=False)[0] == "no shared values"
    assert _same(_out(page="cart"), _out(page="store"), write=False, listing=False)[0] == "pages differ: cart vs store"


def test_route_reaches_the_order_page_through_a_write() -> None:
    tools = ToolCache.load(CACHE_DIR).tools  # the hand-written tools have the same page graph
    witnesses: dict[str, dict[str, Any]] = {n: {} for n in tools}
    witnesses["goto_store"] = {"name": "Winstop"}
    assert _route(tools, witnesses, "store", {"order"}) == ["goto_cart", "goto_checkout", "place_order"]
    assert _route(tools, witnesses, "home", {"store"}) == ["goto_store"]
    # reads are preferred: the cart is reached without writing
    assert _route(tools, witnesses, "home", {"cart"}) == ["goto_cart"]
    # a tool with a required input and no verified argument is not a step
    del witnesses["goto_store"]
    assert _route(tools, witnesses, "home", {"store"}) is None


def test_built_tool_gets_only_the_arguments_the_hand_tool_also_gets() -> None:
    tools = ToolCache.load(CACHE_DIR).tools
    hand = tools["add_to_cart"]
    built = hand.model_copy(update={"name": "built_add", "input_schema": {
        "type": "object", "required": ["item_name"],
        "properties": {"item_name": {"type": "string"}, "item_quantity": {"type": "integer"},
                       "item_instructions": {"type": "string"}}}})
    witness = {"item_name": "10 pc Classic Wings", "item_quantity": 2, "item_instructions": "extra napkins"}
    hargs, bargs = _args_for(hand, built, witness)
    assert hargs == {"item_name": "10 pc Classic Wings", "quantity": 2}
    assert bargs == {"item_name": "10 pc Classic Wings", "item_quantity": 2}
