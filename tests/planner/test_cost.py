"""The cost model: C_tool, C_eval, gamma per loop level, trip counts, fitted latencies."""

from __future__ import annotations

import ast

import pytest

from agentjit.planner import CostModel, check, trip_count

from .helpers import check_src, make_cache

# the paper's appendix F plans B and C, over our synthetic tools
PLAN_B = """\
stores = await list_stores()
rated = [s for s in stores.items if s.rating is not None]
first_five = rated[:5]
count = 0
for store in first_five:
    if store.review_count is not None and store.review_count < 20:
        count += 1
result = await ai_eval("The number of restaurants with under 20 reviews is {count}.", count=count)
"""

PLAN_C = """\
await goto_home()
stores = await list_stores()
first_five = stores.items[:5]
count = 0
for store in first_five:
    if store.review_count is not None and store.review_count < 20:
        count += 1
result = f"Out of the first five restaurants, {count} have under 20 reviews."
"""


def test_paper_appendix_f_costs() -> None:
    assert check_src(PLAN_B).cost == pytest.approx(10.1)
    assert check_src(PLAN_C).cost == pytest.approx(0.2)


def test_gamma_for_unknown_trip_counts_and_nesting() -> None:
    r = check_src(
        """
        stores = await list_stores()
        for s in stores.items:
            await goto_store(name=s.name)
            menu = await list_menu_items()
            for m in menu.items:
                verdict = await ai_eval("Is {m} vegan? yes or no", m=m.name)
            await goto_home()
        result = 1
        """
    )
    assert r.valid
    depths = [(c.tool, c.loop_depth, c.trip_counts) for c in r.calls]
    assert depths == [
        ("list_stores", 0, []),
        ("goto_store", 1, [None]),
        ("list_menu_items", 1, [None]),
        ("ai_eval", 2, [None, None]),
        ("goto_home", 1, [None]),
    ]
    assert r.cost == pytest.approx(0.1 + 3 * 0.1 * 10 + 10 * 100)


@pytest.mark.parametrize(
    ("expr", "n"),
    [("x[:5]", 5), ("x[2:7]", 5), ("range(4)", 4), ("range(1, 6)", 5), ("[1, 2, 3]", 3), ("x", None), ("x[:n]", None),
     ("x[::2]", None), ("enumerate(x[:3])", 3)],
)  # fmt: skip
def test_trip_count(expr: str, n: int | None) -> None:
    node = ast.parse(expr, mode="eval").body
    assert trip_count(node) == n


def test_fitted_latency_replaces_c_tool() -> None:
    cache = make_cache()
    cache.latency = {"list_stores": {"mean": 0.8, "sd": 0.1}, "goto_home": {"dist": "lognorm"}}
    r = check(PLAN_C, cache)
    assert r.cost == pytest.approx(0.8 + 0.1)
    assert check(PLAN_C, cache, cost_model=CostModel(use_latency=False)).cost == pytest.approx(0.2)


def test_custom_weights() -> None:
    r = check(PLAN_B, make_cache(), cost_model=CostModel(c_tool=1.0, c_eval=2.0, gamma=3.0))
    assert r.cost == pytest.approx(3.0)
