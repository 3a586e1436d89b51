"""Usage from plan source: prefix / loop / suffix, trip counts, parallel-safety of loop bodies."""

from __future__ import annotations

import pytest

from agentjit.exceptions import PlanError
from agentjit.protocol import Effect, StepEvent
from agentjit.scheduler import (
    DEFAULT_TRIPS,
    LoopUse,
    PlanUsage,
    observed_lengths_from_steps,
    plan_usage,
)


def _loop(usage: PlanUsage) -> LoopUse:
    assert usage.loop is not None, "the plan has no main loop"
    return usage.loop


ORDER_PLAN = """
await go_home()
await open_restaurant(name="Stonemill Matcha")
items = await list_items()
prices = {}
for item in items[:4]:
    price = await get_price(item=item["name"])
    prices[item["name"]] = price
cheapest = min(prices, key=prices.get)
await add_to_cart(item=cheapest)
await place_order()
result = prices
"""


def test_prefix_loop_suffix(cache):
    usage = plan_usage(ORDER_PLAN, cache)
    assert [c.tool for c in usage.prefix] == ["go_home", "open_restaurant", "list_items"]
    assert _loop(usage).kind == "for" and _loop(usage).line == 6
    assert [c.tool for c in _loop(usage).body] == ["get_price"]
    assert _loop(usage).body[0].line == 7 and _loop(usage).body[0].elements == ("get_price_button",)
    assert (_loop(usage).trips, _loop(usage).trip_source) == (4, "slice")
    assert [c.tool for c in usage.suffix] == ["add_to_cart", "place_order"]
    assert usage.writes and usage.first_write_index == 4
    assert _loop(usage).parallel_ok, _loop(usage).reason
    assert _loop(usage).accumulators == {"prices": "dict store"}
    # only the READ calls that set the page are replayed by a new worker
    assert [c.tool for c in _loop(usage).entry_replay] == ["go_home", "open_restaurant"]
    assert usage.total_calls() == 3 + 4 + 2
    before, rest = usage.split_at_first_write()
    assert sum(c.count for c in before) == 7 and [c.tool for c in rest] == [
        "add_to_cart",
        "place_order",
    ]
    assert usage.to_dict()["loop"]["trips"] == 4


def test_all_read_plan_has_no_write(cache):
    usage = plan_usage("await go_home()\nresult = await list_restaurants()", cache)
    assert usage.loop is None and not usage.writes and usage.first_write_index is None
    before, rest = usage.split_at_first_write()
    assert [c.tool for c in before] == ["go_home", "list_restaurants"] and rest == []


def test_write_inside_the_loop_splits_the_first_iteration(cache):
    src = "xs = await list_items()\nfor x in xs[:3]:\n    await get_price(item=x)\n    await add_to_cart(item=x)\n"
    usage = plan_usage(src, cache)
    before, rest = usage.split_at_first_write()
    assert [(c.tool, c.count) for c in before] == [("list_items", 1), ("get_price", 1)]
    assert [(c.tool, c.count) for c in rest] == [
        ("add_to_cart", 1),
        ("get_price", 2),
        ("add_to_cart", 2),
    ]
    assert not _loop(usage).parallel_ok and "WRITE" in _loop(usage).reason


@pytest.mark.parametrize(
    ("iterable", "trips", "source"),
    [
        ("xs[:5]", 5, "slice"),
        ("xs[1:4]", 3, "slice"),
        ("sorted(xs, key=len)[:2]", 2, "slice"),
        ("range(3)", 3, "range"),
        ("range(2, 8, 2)", 3, "range"),
        ('["a", "b"]', 2, "literal"),
        ('["a", "b", "c"][:5]', 3, "slice"),
        ("enumerate(top)", 6, "slice"),
        ("xs", 7, "observed"),
        ("xs['items']", 7, "observed"),
        ("(await list_restaurants())", DEFAULT_TRIPS, "default"),
    ],
)
def test_trip_counts(cache, iterable, trips, source):
    src = f"xs = await list_items()\ntop = xs[:6]\nfor x in {iterable}:\n    await get_price(item=x)\n"
    usage = plan_usage(src, cache, observed_lengths={"list_items": 6.8})
    assert (_loop(usage).trips, _loop(usage).trip_source) == (trips, source)


def test_observed_lengths_from_steps():
    steps = [
        StepEvent(index=0, action="tool", tool="list_items", start=0, end=1, output=[1, 2, 3]),
        StepEvent(
            index=1,
            action="tool",
            tool="list_items",
            start=0,
            end=1,
            output={"items": [1, 2, 3, 4, 5]},
        ),
        StepEvent(index=2, action="tool", tool="list_items", start=0, end=1, output=[1], ok=False),
        StepEvent(index=3, action="tool", tool="get_price", start=0, end=1, output={"price": 3}),
    ]
    assert observed_lengths_from_steps(steps) == {"list_items": 4.0}


def test_nested_loop_multiplies_counts(cache):
    src = (
        "rs = await list_restaurants()\n"
        "for r in rs[:3]:\n"
        "    await open_restaurant(name=r)\n"
        "    for i in range(2):\n"
        "        await get_reviews(item=i)\n"
        "await go_home()\n"
    )
    usage = plan_usage(src, cache)
    assert _loop(usage).trips == 3
    assert [(c.tool, c.count) for c in _loop(usage).body] == [
        ("open_restaurant", 1),
        ("get_reviews", 2),
    ]
    assert [c.tool for c in usage.suffix] == ["go_home"]
    assert usage.total_calls() == 1 + 3 * 3 + 1


def test_comprehension_loop(cache):
    src = (
        "await open_restaurant(name='x')\n"
        "result = [await get_price(item=i) for i in (await list_items())[:3]]\n"
        "await add_to_cart(item='a')\n"
    )
    usage = plan_usage(src, cache)
    assert [c.tool for c in usage.prefix] == ["open_restaurant", "list_items"]
    assert _loop(usage).kind == "comprehension" and _loop(usage).trips == 3
    assert [c.tool for c in _loop(usage).body] == ["get_price"]
    assert [c.tool for c in usage.suffix] == ["add_to_cart"]
    assert _loop(usage).parallel_ok and _loop(usage).entry_replay[0].tool == "open_restaurant"


def test_ai_eval_is_priced_as_a_call(cache):
    usage = plan_usage(
        "xs = await list_items()\nresult = [await ai_eval('rate', x) for x in xs[:2]]", cache
    )
    assert _loop(usage).body[0].tool == "ai_eval" and _loop(usage).body[0].effect is Effect.READ


BODY_HEAD = "results = []\nby_name = {}\ntotal = 0\nlast = None\nxs = await list_items()\nfor x in xs[:4]:\n"


@pytest.mark.parametrize(
    "body",
    [
        "    results.append(await get_price(item=x))",
        "    p = await get_price(item=x)\n    by_name[x] = p",
        "    total += await get_price(item=x)",
        "    p = await get_price(item=x)\n    if p > 3:\n        results.append(p)\n    else:\n        continue",
        "    await get_price(item=x)",
    ],
)
def test_parallel_ok_bodies(cache, body):
    usage = plan_usage(BODY_HEAD + body + "\nresult = (results, by_name, total)\n", cache)
    assert _loop(usage).parallel_ok, _loop(usage).reason


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("    p = await get_price(item=x)\n    if p < 2:\n        break", "break on line"),
        ("    await add_to_cart(item=x)", "WRITE tool 'add_to_cart'"),
        ("    last = await get_price(item=x)", "outer variable 'last'"),
        ("    total = total + await get_price(item=x)", "outer variable 'total'"),
        ("    total *= await get_price(item=x)", "'Mult=' on outer variable 'total'"),
        (
            "    if x not in results:\n        results.append(await get_price(item=x))",
            "reads accumulator 'results'",
        ),
        ("    results.insert(0, await get_price(item=x))", "results.insert"),
        (
            "    p = await get_price(item=x)\nresult = p",
            "'p' is set in the loop body and read after",
        ),
        ("    result = await get_price(item=x)", "'result' is set in the loop body"),
    ],
)
def test_not_parallel_bodies(cache, body, why):
    usage = plan_usage(BODY_HEAD + body + "\n", cache)
    assert not _loop(usage).parallel_ok
    assert why in _loop(usage).reason


def test_while_loop_is_not_parallel(cache):
    usage = plan_usage("n = 0\nwhile n < 3:\n    await get_price(item=n)\n    n += 1\n", cache)
    assert _loop(usage).kind == "while" and not _loop(usage).parallel_ok
    assert _loop(usage).trip_source == "default"


def test_syntax_error_names_the_line(cache):
    with pytest.raises(PlanError, match="line 2"):
        plan_usage("await go_home()\nfor x in :\n", cache)


def test_reused_names_in_later_loops_do_not_leak(cache):
    src = (
        "names = [r for r in await list_restaurants()]\n"
        "out = []\n"
        "for r in names[:3]:\n"
        "    p = await get_reviews(item=r)\n"
        "    out.append(p)\n"
        "for r in out:\n"
        "    p = r\n"
        "    await get_price(item=p)\n"
        "result = [p for p in out]\n"
    )
    loop = _loop(plan_usage(src, cache))
    assert loop.line == 3 and loop.parallel_ok, loop.reason


def test_augmented_read_after_the_loop_leaks(cache):
    src = "xs = await list_items()\nfor x in xs[:3]:\n    n = await get_price(item=x)\nn += 1\nresult = n\n"
    loop = _loop(plan_usage(src, cache))
    assert not loop.parallel_ok and "'n' is set in the loop body" in loop.reason


def test_a_list_built_up_in_the_plan_has_no_literal_length(cache):
    src = (
        "out = []\n"
        "for r in (await list_restaurants())[:3]:\n"
        "    if r:\n"
        "        out.append(await get_reviews(item=r))\n"
        "for r in out:\n"
        "    await get_price(item=r)\n"
    )
    usage = plan_usage(src, cache)
    assert [(c.tool, c.count) for c in usage.suffix] == [("get_price", DEFAULT_TRIPS)]


def test_a_list_appended_once_per_iteration_is_as_long_as_the_loop(cache):
    src = (
        "out = []\n"
        "for r in (await list_restaurants())[:3]:\n"
        "    out.append(await get_reviews(item=r))\n"
        "for r in out:\n"
        "    await get_price(item=r)\n"
    )
    usage = plan_usage(src, cache)
    assert [(c.tool, c.count) for c in usage.suffix] == [("get_price", 3)]


def test_accumulators_are_reported(cache):
    src = BODY_HEAD + (
        "    p = await get_price(item=x)\n"
        "    results.append(p)\n"
        "    by_name[x] = p\n"
        "    total += p\n"
        "result = (results, by_name, total)\n"
    )
    loop = _loop(plan_usage(src, cache))
    assert loop.parallel_ok
    assert loop.accumulators == {"results": "append", "by_name": "dict store", "total": "counter"}
