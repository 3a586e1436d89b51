"""Judges of the food tasks that read their values from the task's text.

Each ``*_judge(text)`` reads the store, home-page section, number, item, kind of item, total or
delivery mode from a task's text and returns the :data:`~agentjit.tasks.task.Judge` of that text,
with the right answer computed from the catalogue (:mod:`.data`); :class:`~agentjit.tasks.task.TaskJudge`
wraps it, so a literal variant of a task (another store, section or number, as ``agentjit bench
templates --run`` compiles from a template) is judged on its own values. A text that names a store,
section or item the catalogue lacks is judged wrong with that reason (:func:`unknown_value`), and so
is a text that does not read as the task's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from agentjit.planner.templates import NUMBER_WORDS
from agentjit.tasks.task import (
    Judge,
    JudgeResult,
    State,
    all_of,
    answer_text,
    cart_holds,
    contains_numbers,
    contains_texts,
    norm_text,
    orders_placed,
    unchanged,
    unknown_value,
)

from .data import (
    BY_SLUG,
    RESTAURANTS,
    SECTIONS,
    MenuItem,
    Restaurant,
    dollars,
    find_store,
    search_stores,
    stores_in_category,
)

__all__ = [
    "store_named", "priced_item", "items_of_kind", "number",
    "pair_prices", "first_reviews", "buy_kind", "buy_sandwich", "first_restaurants", "few_reviews",
    "most_expensive", "delivering", "cheapest_fries", "best_search_hit", "cart_items", "order_items",
    "best_in_category",
]

_Q = "[\u201c\"'](.+?)[\u201d\"']"  # a quoted value, straight or curly quotes


def _verdict(result: JudgeResult) -> Judge:
    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        return result

    return judge


def _reads(text: str, pattern: str) -> tuple[str, ...] | JudgeResult:
    m = re.search(pattern, text.replace("\u2019", "'"), re.IGNORECASE)
    if m is None:
        return JudgeResult(False, f"the task {text[:80]!r} does not read as this task (pattern {pattern!r})")
    return m.groups()


def store_named(name: str) -> Restaurant | None:
    """The store ``name`` names, as the site finds it (:func:`~.data.find_store`: ``Ike's`` is Ike's Love &
    Sandwiches)."""
    return find_store(name)


def number(text: str) -> int | None:
    """``three`` or ``3`` as 3."""
    low = text.strip().lower()
    return NUMBER_WORDS.get(low, int(low) if low.isdigit() else None)


def priced_item(store: Restaurant, words: str) -> tuple[MenuItem, int] | None:
    """The item ``words`` names on ``store``'s menu and its price in cents, leading option words priced in
    (``regular iced matcha latte``: the Iced Matcha Latte at its Regular size)."""
    parts = words.split()
    for cut in range(len(parts)):
        item = store.item(" ".join(parts[cut:]))
        if item is None:
            continue
        price = item.price
        for word in parts[:cut]:
            choice = next((c for g in item.options for c in g.choices if norm_text(c.label) == norm_text(word)), None)
            if choice is None:
                break
            price += choice.price_delta
        else:
            return item, price
    return None


def items_of_kind(kind: str) -> frozenset[str]:
    """The names of the items that are a ``kind`` (``taco``, ``sub``): tagged so, or named so."""
    word = re.compile(rf"\b{re.escape(kind.lower())}s?\b")
    return frozenset(it.name for r in RESTAURANTS for it in r.menu if kind.lower() in it.tags or word.search(it.name.lower()))


def _section(name: str) -> list[Restaurant] | None:
    slugs = next((s for n, s in SECTIONS.items() if norm_text(n) == norm_text(name)), None)
    return None if slugs is None else [BY_SLUG[s] for s in slugs]


def _best(stores: Sequence[Restaurant]) -> list[str]:
    top = max(r.rating for r in stores)
    return [r.name for r in stores if r.rating == top]


def _names_one_of(names: Sequence[str], label: str) -> Judge:
    """The answer names one of ``names`` (a tie: any of them)."""

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        text = norm_text(answer_text(answer))
        if not any(norm_text(n) in text for n in names):
            return JudgeResult(False, f"answer lacks the {label} ({' or '.join(names)})")
        return JudgeResult(True, f"answer names the {label}")

    return judge


# -- read tasks --------------------------------------------------------------

def pair_prices(text: str) -> Judge:
    """``How much is a X and a Y from STORE? What about a Z and a W?``: the two sums."""
    got = _reads(text, r"How much is an? (.+?) and an? (.+?) from (.+?)\? What about an? (.+?) and an? (.+?)\W*$")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    first, second, name, third, fourth = got
    store = store_named(name)
    if store is None:
        return _verdict(unknown_value(f"the store {name!r}"))
    prices = []
    for words in (first, second, third, fourth):
        found = priced_item(store, words)
        if found is None:
            return _verdict(unknown_value(f"{words!r} at {store.name}"))
        prices.append(found[1])
    sums = (round(dollars(prices[0]) + dollars(prices[1]), 2), round(dollars(prices[2]) + dollars(prices[3]), 2))
    return all_of(contains_numbers(*sums), unchanged())


def first_reviews(text: str) -> Judge:
    """The first N reviews of every store of a home-page section."""
    got = _reads(text, rf"under the {_Q} category, visit the store page and get the first (\w+) reviews")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    name, n_text = got
    stores, n = _section(name), number(n_text)
    if stores is None or n is None:
        return _verdict(unknown_value(f"the section {name!r}" if stores is None else f"the count {n_text!r}"))
    return all_of(contains_texts([rv.text for r in stores for rv in r.reviews[:n]], label="review"), unchanged())


def first_restaurants(text: str) -> Judge:
    """The first N restaurants of the home page (its first section)."""
    got = _reads(text, r"first (\w+) restaurants listed on the homepage")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    n = number(got[0])
    if n is None:
        return _verdict(unknown_value(f"the count {got[0]!r}"))
    first = next(iter(SECTIONS.values()))[:n]
    return all_of(contains_texts([BY_SLUG[s].name for s in first], label="restaurant"), unchanged())


def few_reviews(text: str) -> Judge:
    """How many of the first N stores of a section have under M reviews."""
    got = _reads(text, rf"first (\w+) restaurants in {_Q} and report how many of them have under (\d+) reviews")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    n_text, name, under = got
    stores, n = _section(name), number(n_text)
    if stores is None or n is None:
        return _verdict(unknown_value(f"the section {name!r}" if stores is None else f"the count {n_text!r}"))
    return all_of(contains_numbers(sum(1 for r in stores[:n] if r.review_count < int(under))), unchanged())


def most_expensive(text: str) -> Judge:
    got = _reads(text, r"most expensive item from (.+?)\W*$")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    store = store_named(got[0])
    if store is None:
        return _verdict(unknown_value(f"the store {got[0]!r}"))
    top = max(it.price for it in store.menu)
    return all_of(_names_one_of([it.name for it in store.menu if it.price == top], "item"), unchanged())


def delivering(text: str) -> Judge:
    """How many stores of a section deliver."""
    got = _reads(text, rf"restaurants in the {_Q} category offer delivery")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    stores = _section(got[0])
    if stores is None:
        return _verdict(unknown_value(f"the section {got[0]!r}"))
    return all_of(contains_numbers(sum(1 for r in stores if r.delivery)), unchanged())


def cheapest_fries(text: str) -> Judge:
    """Which of the named stores has the cheapest fries item, and its price."""
    got = _reads(text, r"which of (.+?) has the cheapest fries item")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    names = [n.strip() for n in re.split(r",\s*(?:and\s+)?|\s+and\s+", got[0]) if n.strip()]
    stores = []
    for name in names:
        store = store_named(name)
        if store is None:
            return _verdict(unknown_value(f"the store {name!r}"))
        stores.append(store)
    fries = [(it.price, r.name) for r in stores for it in r.menu if "fries" in it.name.lower()]
    if not fries:
        return _verdict(unknown_value(f"a fries item at {', '.join(names)}"))
    low = min(p for p, _ in fries)
    return all_of(_names_one_of(sorted({n for p, n in fries if p == low}), "store"), contains_numbers(dollars(low)),
                  unchanged())  # fmt: skip


def _best_of(text: str, pattern: str, stores_for: Callable[[str], list[Any]], what: str) -> Judge:
    """The best-rated of the stores ``stores_for`` gives for the value ``pattern`` reads from the task
    (``what`` names that value when the seed has no store for it: ``{!r}`` is the value)."""
    got = _reads(text, pattern)
    if isinstance(got, JudgeResult):
        return _verdict(got)
    stores = stores_for(got[0])
    if not stores:
        return _verdict(unknown_value(what.format(got[0])))
    return all_of(_names_one_of(_best(stores), "store"), unchanged())


def best_search_hit(text: str) -> Judge:
    """The best-rated store among a search's results."""
    return _best_of(text, rf"Search for {_Q} and tell me which store in the results has the highest rating",
                    search_stores, "a search for {!r} that finds a store")


def best_in_category(text: str) -> Judge:
    """The best-rated store of a category."""
    return _best_of(text, r"Which (.+?) restaurant has the highest rating", stores_in_category, "the category {!r}")


# -- write tasks -------------------------------------------------------------

def buy_kind(text: str) -> Judge:
    """One order with an item of the kind asked for."""
    got = _reads(text, r"Buy an? (.+?) from any store and make sure you place the order")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    kind = got[0]
    names = items_of_kind(kind)
    if not names:
        return _verdict(unknown_value(f"an item that is a {kind!r}"))
    return orders_placed(count=1, line=lambda ln: ln["item_name"] in names, line_desc=f"a {kind}")


def buy_sandwich(text: str) -> Judge:
    """One order with an item of the kind asked for, its total under the limit."""
    got = _reads(text, r"any type of (.+?)-sandwich, keep the total under \$(\d+(?:\.\d+)?)")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    kind, limit = got
    names = items_of_kind(kind)
    if not names:
        return _verdict(unknown_value(f"an item that is a {kind!r}"))
    return orders_placed(count=1, line=lambda ln: ln["item_name"] in names, line_desc=f"a {kind}",
                         max_total=float(limit))  # fmt: skip


def cart_items(text: str) -> Judge:
    """The cart holds the two items asked for (the first with its size and milk), no order placed."""
    got = _reads(text, r"Add an? (\w+) (.+?) with (\w+) milk and an? (.+?) from (.+?) to my cart")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    size, drink, milk, other, name = got
    store = store_named(name)
    if store is None:
        return _verdict(unknown_value(f"the store {name!r}"))
    lines = []
    for words, options in ((drink, {"Size": size, "Milk": milk}), (other, {})):
        item = store.item(words)
        if item is None:
            return _verdict(unknown_value(f"{words!r} at {store.name}"))
        lines.append({"item_name": item.name, "quantity": 1, "options": options})
    return cart_holds(lines)


def order_items(text: str) -> Judge:
    """One order of N of an item from the store, for pickup or delivery, and nothing else in it."""
    got = _reads(text, r"Order (\w+) (.+?) from (.+?) for (pickup|delivery)")
    if isinstance(got, JudgeResult):
        return _verdict(got)
    n_text, words, name, mode = got
    store, n = store_named(name), number(n_text)
    if store is None or n is None:
        return _verdict(unknown_value(f"the store {name!r}" if store is None else f"the count {n_text!r}"))
    item = store.item(words) or (store.item(words[:-1]) if words.endswith("s") else None)
    if item is None:
        return _verdict(unknown_value(f"{words!r} at {store.name}"))
    return orders_placed(count=1, line=lambda ln: ln["item_name"] == item.name and ln.get("store") == store.slug,
                         line_desc=f"{item.name} from {store.name}", only_matching=True, mode=mode.lower(),
                         quantity=n)  # fmt: skip
