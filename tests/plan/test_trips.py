"""One trip-count inference: the planner's cost model and the scheduler's usage read the same count."""

from __future__ import annotations

import ast

import pytest

from agentjit.plan.trips import MAX_TRIP_COUNT, slice_count, trip_count
from agentjit.planner import check
from agentjit.scheduler import plan_usage

from ..planner.helpers import make_cache

ITERABLES = [
    ("range(4)", 4),
    ("xs[:5]", 5),
    ("xs[0:10:2]", 5),  # a slice with a step: an upper bound whatever len(xs) is
    ("xs[1:10:3]", 3),
    ("xs[5::-2]", 3),
    ("range(10)[::3]", 4),  # the inner length is known: exact
    ("[1, 2, 3, 4, 5][::-1]", 5),
    ("list(range(7))[2:]", 5),
    ('"abc"', 3),
]


@pytest.mark.parametrize(("iterable", "n"), ITERABLES)
def test_planner_and_scheduler_agree_on_the_trip_count(iterable: str, n: int) -> None:
    cache = make_cache()
    src = f"xs = (await list_stores()).items\nfor x in {iterable}:\n    await goto_home()\nresult = 1\n"
    checked = check(src, cache)
    assert checked.valid, checked.diagnostics
    [site] = [c for c in checked.calls if c.tool == "goto_home"]
    usage = plan_usage(src, cache)
    assert usage.loop is not None
    assert site.trip_counts == [n]
    assert usage.loop.trips == n


@pytest.mark.parametrize(
    ("expr", "length"),
    [("xs[0:10:2]", 7), ("xs[0:10:2]", 100), ("xs[::3]", 10), ("xs[:-2]", 5), ("xs[10:2:-1]", 6), ("xs[-3:]", 2),
     ("xs[:2:-1]", 9), ("xs[1:1]", 4)],
)  # fmt: skip
def test_slice_count_is_exact_for_a_known_length_and_an_upper_bound_otherwise(expr: str, length: int) -> None:
    node = ast.parse(expr, mode="eval").body
    assert isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
    real = len(eval(expr, {"xs": list(range(length))}))  # noqa: S307 - a literal slice of a test list
    assert slice_count(node.slice, length) == real
    bound = slice_count(node.slice, None)
    assert bound is None or bound >= real


def test_unknown_or_invalid_counts() -> None:
    for expr in ("xs", "xs[n:]", "xs[2:]", "range(1, 2, 0)", "xs[::0]", "range(n)", "[*xs]"):
        assert trip_count(ast.parse(expr, mode="eval").body) is None, expr
    big = ast.parse("range(100000000000000000000000000000000)", mode="eval").body
    assert trip_count(big) == MAX_TRIP_COUNT
    assert trip_count(ast.parse("xs", mode="eval").body, {"xs": 3}) == 3
