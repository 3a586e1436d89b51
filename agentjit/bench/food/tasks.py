"""Tasks of the food site: the paper's nine Dashdish tasks (Table 10) plus our own.

Ids keep the paper's (``dashdish`` -> ``food``; ``v1/`` and ``v2/`` become
``v1-`` / ``v2-``). Every expected answer is computed from :mod:`.data`, so
the judges follow the catalogue if it changes. Each task's reference plan is
``plans/<id>.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentjit.tasks.task import Judge, Task, TaskJudge

from . import judges as J
from .data import (
    BY_SLUG,
    SECTIONS,
    Restaurant,
    dollars,
    find_store,
    search_stores,
    stores_in_category,
)

__all__ = ["TASKS", "BUILT_TASKS", "task", "built_tasks", "PLANS_DIR", "BUILT_PLANS_DIR"]

PLANS_DIR = Path(__file__).parent / "plans"
BUILT_PLANS_DIR = Path(__file__).parent / "built_plans"


def _plan(task_id: str) -> Path:
    return PLANS_DIR / f"{task_id}.py"


def _store(name: str) -> Restaurant:
    store = find_store(name)
    if store is None:  # pragma: no cover - a catalogue edit broke a task
        raise LookupError(f"no store {name!r} in the food catalogue")
    return store


def _price(store: str, item: str) -> float:
    found = _store(store).item(item)
    if found is None:  # pragma: no cover
        raise LookupError(f"{store} has no {item!r}")
    return dollars(found.price)


def _unique_best(stores: list[Restaurant]) -> Restaurant:
    best = max(stores, key=lambda r: r.rating)
    if sum(1 for r in stores if r.rating == best.rating) != 1:  # pragma: no cover
        raise ValueError(f"tie for the best rating among {[r.name for r in stores]}")
    return best


# custom-1: two pairs of Stonemill Matcha prices (Regular is the default size: base price)
_MATCHA_1 = round(_price("Stonemill Matcha", "Matcha Croissant") + _price("Stonemill Matcha", "Iced Matcha Latte"), 2)
_MATCHA_2 = round(_price("Stonemill Matcha", "Ceremonial Matcha Latte") + _price("Stonemill Matcha", "Mochi Set"), 2)

# custom-2: the first three reviews of each "Costume party ready" store
_COSTUME = [BY_SLUG[s] for s in SECTIONS["Costume party ready"]]
_COSTUME_REVIEWS = [rv.text for r in _COSTUME for rv in r.reviews[:3]]

# v1-1 / custom-6: the first section of the home page
_BEST = [BY_SLUG[s] for s in SECTIONS["Best near you"]]
_FIRST_THREE = [r.name for r in _BEST[:3]]
_UNDER_20 = sum(1 for r in _BEST[:5] if r.review_count < 20)

# custom-7: Petco's most expensive item
_PETCO_TOP = max(_store("Petco").menu, key=lambda it: it.price)

# v1-3: "Light & fresh" stores that deliver
_LIGHT_DELIVERY = sum(1 for s in SECTIONS["Light & fresh"] if BY_SLUG[s].delivery)

# custom-9: the cheapest fries item among five stores
_FRIES_STORES = ["Winstop", "Man vs. Fries", "McDonald's", "Popeyes", "Ike's"]
_FRIES = sorted(
    (it.price, _store(name).name, it.name)
    for name in _FRIES_STORES
    for it in _store(name).menu
    if "fries" in it.name.lower()
)
if len(_FRIES) > 1 and _FRIES[0][0] == _FRIES[1][0]:  # pragma: no cover
    raise ValueError("the cheapest fries price is tied")
_CHEAPEST_FRIES = (_FRIES[0][1], dollars(_FRIES[0][0]), _FRIES[0][2])

# custom-10: the best-rated store among the search results for "matcha"
_MATCHA_SEARCH = search_stores("matcha")
_MATCHA_BEST = _unique_best(_MATCHA_SEARCH)

# custom-13: the best-rated Mexican store
_MEXICAN = stores_in_category("Mexican")
_MEXICAN_BEST = _unique_best(_MEXICAN)


def _task(task_id: str, app: str, text: str, kind: str, plan: Path, build: Callable[[str], Judge],
          **more: Any) -> Task:  # fmt: skip
    """A task whose judge reads the task's values (:mod:`.judges`): a literal variant is judged on its own."""
    return Task(task_id, app, text, kind, plan, TaskJudge(build, text), **more)


TASKS: list[Task] = [
    _task(
        "food-custom-1", "food",
        "How much is a matcha croissant and a regular iced matcha latte from Stonemill Matcha? "
        "What about a ceremonial matcha latte and a mochi set?",
        "read", _plan("food-custom-1"),
        J.pair_prices,
        cardinality=4, expected=[_MATCHA_1, _MATCHA_2],
    ),
    _task(
        "food-custom-2", "food",
        "For each vendor under the \u201cCostume party ready\u201d category, visit the store page and get the first three reviews.",
        "read", _plan("food-custom-2"),
        J.first_reviews,
        cardinality=9, expected={r.name: [rv.text for rv in r.reviews[:3]] for r in _COSTUME},
    ),
    _task(
        "food-custom-3", "food",
        "Buy a taco from any store and make sure you place the order.",
        "write", _plan("food-custom-3"),
        J.buy_kind,
        cardinality=1, expected="one new order containing a taco",
    ),
    _task(
        "food-v2-10", "food",
        "Place an order for any type of sub-sandwich, keep the total under $30.",
        "write", _plan("food-v2-10"),
        J.buy_sandwich,
        cardinality=1, expected="one new order containing a sub, total < $30",
    ),
    _task(
        "food-v1-1", "food",
        "What are the first three restaurants listed on the homepage?",
        "read", _plan("food-v1-1"),
        J.first_restaurants,
        cardinality=3, expected=_FIRST_THREE,
    ),
    _task(
        "food-custom-6", "food",
        "Visit the first five restaurants in \u201cBest near you\u201d and report how many of them have under 20 reviews.",
        "read", _plan("food-custom-6"),
        J.few_reviews,
        cardinality=5, expected=_UNDER_20,
    ),
    _task(
        "food-custom-7", "food",
        "What\u2019s the most expensive item from Petco?",
        "read", _plan("food-custom-7"),
        J.most_expensive,
        cardinality=1, expected={"item": _PETCO_TOP.name, "price": dollars(_PETCO_TOP.price)},
    ),
    _task(
        "food-v1-3", "food",
        "How many restaurants in the \u201cLight & fresh\u201d category offer delivery?",
        "read", _plan("food-v1-3"),
        J.delivering,
        cardinality=len(SECTIONS["Light & fresh"]), expected=_LIGHT_DELIVERY,
    ),
    _task(
        "food-custom-9", "food",
        "Tell me which of Winstop, Man vs. Fries, McDonald\u2019s, Popeyes, and Ike\u2019s has the cheapest fries item and its price.",
        "read", _plan("food-custom-9"),
        J.cheapest_fries,
        cardinality=5, expected={"store": _CHEAPEST_FRIES[0], "price": _CHEAPEST_FRIES[1], "item": _CHEAPEST_FRIES[2]},
    ),
    _task(
        "food-custom-10", "food",
        "Search for \u201cmatcha\u201d and tell me which store in the results has the highest rating.",
        "read", _plan("food-custom-10"),
        J.best_search_hit,
        cardinality=len(_MATCHA_SEARCH), expected=_MATCHA_BEST.name,
    ),
    _task(
        "food-custom-11", "food",
        "Add a large iced matcha latte with oat milk and a matcha croissant from Stonemill Matcha to my cart, "
        "but don\u2019t check out.",
        "write", _plan("food-custom-11"),
        J.cart_items,
        cardinality=2, expected="cart: Iced Matcha Latte (Large, Oat) x1 + Matcha Croissant x1, no order",
    ),
    _task(
        "food-custom-12", "food",
        "Order two Mochi Sets from Stonemill Matcha for pickup.",
        "write", _plan("food-custom-12"),
        J.order_items,
        cardinality=1, expected="one pickup order of 2 Mochi Sets",
    ),
    _task(
        "food-custom-13", "food",
        "Which Mexican restaurant has the highest rating?",
        "read", _plan("food-custom-13"),
        J.best_in_category,
        cardinality=len(_MEXICAN), expected=_MEXICAN_BEST.name,
    ),
]


def task(task_id: str) -> Task:
    for t in TASKS:
        if t.id == task_id:
            return t
    raise KeyError(f"no food task {task_id!r} (have: {', '.join(t.id for t in TASKS)})")


def built_tasks() -> list[Task]:
    """The tasks whose reference plan calls only the built cache's tools (``built_plans/<id>.py``
    over ``built_cache``); a task the built tools cannot do has no plan there and is left out."""
    return [dataclasses.replace(t, reference_plan=BUILT_PLANS_DIR / f"{t.id}.py")
            for t in TASKS if (BUILT_PLANS_DIR / f"{t.id}.py").is_file()]


BUILT_TASKS: list[Task] = built_tasks()
"""The ``food_built`` app's tasks: ``agentjit demo --app food_built``."""
