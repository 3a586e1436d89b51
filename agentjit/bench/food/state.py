"""The food site's mutable state: the cart, placed orders and a log of every write.

All money is integer cents inside and dollars (2 decimals) in :meth:`FoodState.snapshot`,
which is what ``GET /__state`` returns and what judges compare before and after a run.
The server serializes access with :attr:`FoodState.lock`.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any

from .data import BY_SLUG, MenuItem, Restaurant, dollars

__all__ = ["CartError", "CartLine", "FoodState", "SERVICE_FEE_RATE", "fees_for"]

SERVICE_FEE_RATE = 0.10
"""Service fee as a fraction of the subtotal (rounded to the cent)."""


class CartError(ValueError):
    """A cart or checkout request the site refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class CartLine:
    line_id: int
    store: Restaurant
    item: MenuItem
    options: dict[str, str | list[str]]
    quantity: int
    instructions: str
    unit_price: int  # cents

    def to_json(self) -> dict[str, Any]:
        return {
            "line_id": self.line_id,
            "item_id": self.item.id,
            "item_name": self.item.name,
            "store": self.store.slug,
            "store_name": self.store.name,
            "options": copy.deepcopy(self.options),
            "instructions": self.instructions,
            "quantity": self.quantity,
            "unit_price": dollars(self.unit_price),
            "line_total": dollars(self.unit_price * self.quantity),
        }


def fees_for(store: Restaurant, subtotal: int, mode: str) -> tuple[int, int]:
    """(delivery fee, service fee) in cents for an order of ``subtotal`` cents."""
    delivery_fee = store.delivery_fee if mode == "delivery" else 0
    return delivery_fee, round(subtotal * SERVICE_FEE_RATE)


def _resolve_options(item: MenuItem, raw: Any) -> tuple[dict[str, str | list[str]], int]:
    """Validate the chosen options; returns them by canonical name and the price delta in cents."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise CartError("options must be an object of group -> choice")
    chosen: dict[str, str | list[str]] = {}
    delta = 0
    seen = set()
    for key, value in raw.items():
        group = item.group(str(key))
        if group is None:
            raise CartError(f"{item.name} has no option {key!r}")
        seen.add(group.name)
        labels = value if isinstance(value, list) else [value]
        if group.kind == "multi" and not labels:
            continue  # an empty multi group chose nothing
        if group.kind == "single" and len(labels) != 1:
            raise CartError(f"option {group.name!r} takes exactly one choice")
        names = []
        for label in labels:
            choice = group.choice(str(label))
            if choice is None:
                valid = ", ".join(c.label for c in group.choices)
                raise CartError(f"{label!r} is not a choice of {group.name!r} (choices: {valid})")
            names.append(choice.label)
            delta += choice.price_delta
        chosen[group.name] = names[0] if group.kind == "single" else names
    for group in item.options:
        if group.name not in seen and group.kind == "single" and group.required:
            chosen[group.name] = group.choices[0].label
            delta += group.choices[0].price_delta
    ordered = {g.name: chosen[g.name] for g in item.options if g.name in chosen}
    return ordered, delta


@dataclass
class FoodState:
    cart: list[CartLine] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _next_line: int = 1
    _next_order: int = 1001

    def reset(self) -> None:
        with self.lock:
            self.cart.clear()
            self.orders.clear()
            self.log.clear()
            self._next_line = 1
            self._next_order = 1001

    def record(self, method: str, path: str, body: Any, status: int) -> None:
        with self.lock:
            self.log.append({"seq": len(self.log) + 1, "method": method, "path": path, "body": body, "status": status})

    # -- cart ---------------------------------------------------------------

    @property
    def cart_count(self) -> int:
        return sum(line.quantity for line in self.cart)

    def cart_store(self) -> Restaurant | None:
        return self.cart[0].store if self.cart else None

    def add(self, payload: Any) -> CartLine:
        if not isinstance(payload, dict):
            raise CartError("body must be a JSON object")
        store = BY_SLUG.get(str(payload.get("store", "")))
        if store is None:
            raise CartError(f"unknown store {payload.get('store')!r}", 404)
        item = store.item(str(payload.get("item_id", "")))
        if item is None:
            raise CartError(f"{store.name} has no item {payload.get('item_id')!r}", 404)
        quantity = payload.get("quantity", 1)
        if not isinstance(quantity, int) or isinstance(quantity, bool) or not 1 <= quantity <= 50:
            raise CartError("quantity must be an integer from 1 to 50")
        instructions = str(payload.get("instructions") or "")[:500]
        options, delta = _resolve_options(item, payload.get("options"))
        with self.lock:
            current = self.cart_store()
            if current is not None and current.slug != store.slug:
                raise CartError(
                    f"Your cart has items from {current.name}. Remove them before adding items from {store.name}.", 409
                )
            line = CartLine(self._next_line, store, item, options, quantity, instructions, item.price + delta)
            self._next_line += 1
            self.cart.append(line)
            return line

    def remove(self, line_id: Any) -> CartLine:
        with self.lock:
            for line in self.cart:
                if line.line_id == line_id:
                    self.cart.remove(line)
                    return line
        raise CartError(f"no cart line {line_id!r}", 404)

    def totals(self, mode: str | None = None) -> dict[str, Any]:
        """Cart summary in dollars; ``mode`` defaults to delivery when the store delivers."""
        with self.lock:
            store = self.cart_store()
            subtotal = sum(line.unit_price * line.quantity for line in self.cart)
            if store is None:
                return {"mode": None, "subtotal": 0.0, "delivery_fee": 0.0, "service_fee": 0.0, "fees": 0.0, "total": 0.0}
            mode = mode or ("delivery" if store.delivery else "pickup")
            delivery_fee, service_fee = fees_for(store, subtotal, mode)
            return {
                "mode": mode,
                "subtotal": dollars(subtotal),
                "delivery_fee": dollars(delivery_fee),
                "service_fee": dollars(service_fee),
                "fees": dollars(delivery_fee + service_fee),
                "total": dollars(subtotal + delivery_fee + service_fee),
            }

    def cart_json(self) -> dict[str, Any]:
        with self.lock:
            store = self.cart_store()
            return {
                "lines": [line.to_json() for line in self.cart],
                "count": self.cart_count,
                "store": store.slug if store else None,
                **self.totals(),
            }

    # -- orders -------------------------------------------------------------

    def place(self, mode: str, address: str) -> dict[str, Any]:
        with self.lock:
            store = self.cart_store()
            if store is None:
                raise CartError("Your cart is empty.")
            if mode not in ("delivery", "pickup"):
                raise CartError(f"mode must be delivery or pickup, not {mode!r}")
            if mode == "delivery" and not store.delivery:
                raise CartError(f"{store.name} does not deliver; choose pickup.")
            if mode == "pickup" and not store.pickup:
                raise CartError(f"{store.name} does not offer pickup.")
            if mode == "delivery" and not address.strip():
                raise CartError("A delivery address is required.")
            t = self.totals(mode)
            order = {
                "id": f"ORD-{self._next_order}",
                "store": store.slug,
                "store_name": store.name,
                "lines": [line.to_json() for line in self.cart],
                "mode": mode,
                "address": address.strip() if mode == "delivery" else "",
                "subtotal": t["subtotal"],
                "delivery_fee": t["delivery_fee"],
                "service_fee": t["service_fee"],
                "fees": t["fees"],
                "total": t["total"],
            }
            self._next_order += 1
            self.orders.append(order)
            self.cart.clear()
            return copy.deepcopy(order)

    def order(self, order_id: str) -> dict[str, Any] | None:
        with self.lock:
            for order in self.orders:
                if order["id"] == order_id:
                    return copy.deepcopy(order)
        return None

    def snapshot(self) -> dict[str, Any]:
        """The whole mutable state as plain JSON data (what ``GET /__state`` returns)."""
        with self.lock:
            return {
                "cart": [line.to_json() for line in self.cart],
                "orders": copy.deepcopy(self.orders),
                "log": copy.deepcopy(self.log),
            }
