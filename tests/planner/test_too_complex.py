"""Crash inputs for the static passes: huge, deep or long plans give ``too-complex``, never a crash.

Each shape goes through every pass that reads plan source: the parser, the
sandbox, the checker (CFG and cost model included) and the scheduler's usage
analysis. The passes run under an already deep Python stack, as they do under
pytest, asyncio and the CLI.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import pytest

from agentjit.cache import ToolCache
from agentjit.exceptions import PlanError
from agentjit.planner import check, check_sandbox, parse_source
from agentjit.planner.cost import MAX_TRIP_COUNT, trip_count
from agentjit.planner.sandbox import (
    MAX_AST_DEPTH,
    MAX_AST_NODES,
    MAX_PLAN_BYTES,
    MAX_PLAN_LINES,
    scan,
)
from agentjit.scheduler import plan_usage, schedule_plan
from agentjit.scheduler.usage import MAX_TRIPS

from .helpers import assert_codes


def _deep_stack(n: int, fn: Callable[[], Any]) -> Any:
    """``fn()`` called ``n`` Python frames down."""
    return fn() if n == 0 else _deep_stack(n - 1, fn)


CRASH_INPUTS: dict[str, str] = {
    "parentheses 5000 deep": "result = " + "(" * 5000 + "1" + ")" * 5000,
    "lists 5000 deep": "result = " + "[" * 5000 + "]" * 5000,
    "negations 5000 deep, parenthesized": "result = " + "-(" * 5000 + "1" + ")" * 5000,
    "negations 5000 deep": "result = " + "-" * 5000 + "1",
    "not 5000 deep": "result = " + "not " * 5000 + "1",
    "1+1+... 1000 terms": "result = " + "+".join(["1"] * 1000),
    "1+1+... 100000 terms": "result = " + "+".join(["1"] * 100_000),
    "attribute chain 1000 long": "x = await list_stores()\nresult = x" + ".items" * 1000,
    "subscript chain 1000 long": "x = [1]\nresult = x" + "[0]" * 1000,
    "lambdas 1000 deep": "result = " + "lambda: " * 1000 + "1",
    "ifs 99 deep": "\n".join(" " * i + "if 1:" for i in range(99)) + "\n" + " " * 99 + "pass\nresult = 1",
    "6000 lines": "\n".join(f"x{i} = {i}" for i in range(6000)) + "\nresult = 1",
    "200 KB": "result = '" + "a" * 200_000 + "'",
}


@pytest.mark.parametrize("src", CRASH_INPUTS.values(), ids=CRASH_INPUTS.keys())
def test_crash_inputs_are_too_complex_in_every_pass(src: str, cache: ToolCache) -> None:
    result = _deep_stack(300, lambda: check(src, cache))
    assert not result.valid and "too-complex" in result.codes(), result.diagnostics
    assert result.cost is None
    with pytest.raises(PlanError, match="too complex"):
        _deep_stack(300, lambda: plan_usage(src, cache))
    with pytest.raises(PlanError, match="too complex"):
        _deep_stack(300, lambda: schedule_plan(src, cache, n_trials=20))


@pytest.mark.parametrize("depth", [MAX_AST_DEPTH - 5])
def test_plans_just_under_the_depth_bound_pass_every_pass(depth: int, cache: ToolCache) -> None:
    # nested to a little under the bound, through the recursive walks of every pass
    shapes = [
        "result = " + "+".join(["1"] * depth),
        "result = " + "-" * (depth - 4) + "1",
        "result = " + "abs(" * (depth // 2 - 2) + "1" + ")" * (depth // 2 - 2),
        "x = [[1]]\nresult = x" + "[0]" * (depth - 5),
        "result = " + "[x for x in " * (depth // 4) + "[1]" + "]" * (depth // 4),
    ]
    for src in shapes:
        tree = ast.parse(src)
        assert not [d for d in check_sandbox(tree, callables=()) if d.code == "too-complex"], src[:40]
        result = _deep_stack(300, lambda src=src: check(src, cache))
        assert "too-complex" not in result.codes(), (src[:40], result.diagnostics)
        _deep_stack(300, lambda src=src: schedule_plan(src, cache, n_trials=20))


def test_bounds_are_checked_before_parsing() -> None:
    tree, found = parse_source("x = 1\n" * (MAX_PLAN_LINES + 1))
    assert tree is None and [d.code for d in found] == ["too-complex"] and "lines" in found[0].message
    tree, found = parse_source("#" * (MAX_PLAN_BYTES + 1))
    assert tree is None and "bytes" in found[0].message
    # multi-byte characters count as bytes, not characters
    tree, found = parse_source("# " + "\u00e9" * (MAX_PLAN_BYTES // 2 + 1))
    assert tree is None and found[0].code == "too-complex"


def test_parse_source_never_raises() -> None:
    for src, code in [
        ("result = 1\x00", "syntax"),
        ("result = '\ud800'", "syntax"),  # a lone surrogate cannot be encoded for the parser
        ("result = (", "syntax"),
        ("result = " + "-" * 100_000 + "1", "too-complex"),  # over the size bound
        ("result = " + "-" * 20_000 + "1", "too-complex"),  # the parser's own RecursionError
    ]:
        tree, found = parse_source(src)
        assert tree is None and [d.code for d in found] == [code], (src[:20], found)


def test_scan_returns_findings_for_any_tree_and_bounds_nodes() -> None:
    # the runtime's interpreter relies on check_sandbox returning findings, never raising
    deep = ast.parse("result = " + "+".join(["1"] * 900))
    found = _deep_stack(300, lambda: check_sandbox(deep, callables=()))
    assert [d.code for d in found] == ["too-complex"] and f"{MAX_AST_DEPTH} levels" in found[0].message
    wide = ast.parse("result = [" + ",".join(["1"] * (MAX_AST_NODES + 10)) + "]")
    found, _nodes = scan(wide, callables=())
    assert [d.code for d in found] == ["too-complex"] and "syntax nodes" in found[0].message


def test_huge_loops_have_a_finite_cost_and_a_bounded_schedule(cache: ToolCache) -> None:
    src = (
        "await goto_home()\n"
        "s = None\n"
        "for i in range(10**30):\n"  # not a literal: unknown trip count
        "    s = await list_stores()\n"
        "for i in range(1000000000000000000000000000000):\n"
        "    for j in range(0, 100000000000000000000, 1):\n"
        "        s = await list_stores()\n"
        "for i in range(0, 10, 0):\n"
        "    s = await list_stores()\n"
        "result = s\n"
    )
    result = check(src, cache)
    assert result.valid and result.cost is not None and result.cost > 0
    usage = plan_usage(src, cache)
    assert usage.loop is not None and usage.loop.trips <= MAX_TRIPS
    assert all(c.count <= MAX_TRIPS for c in usage.calls)
    schedule = schedule_plan(src, cache, n_trials=1000)  # would be a (1000 x 10^30) array
    assert schedule.strategy in ("serial", "parallel", "hedge")
    assert trip_count(ast.parse("range(10**40)", mode="eval").body) is None
    assert trip_count(ast.parse("range(100000000000000000000000000000000)", mode="eval").body) == MAX_TRIP_COUNT
    assert trip_count(ast.parse("range(10, 0, -3)", mode="eval").body) == len(range(10, 0, -3))
    assert trip_count(ast.parse("range(1, 2, 0)", mode="eval").body) is None


def test_an_empty_plan_or_one_without_result_is_invalid() -> None:
    r = assert_codes("", "no-result", lines=[1])
    assert "empty" in r.diagnostics[0].message
    assert_codes("# only a comment\n\n", "no-result", lines=[1])
    assert_codes("stores = await list_stores()\nx = 1", "no-result", lines=[2])
    # any way of assigning it counts
    assert_codes("for result in [1, 2]:\n    pass")
    assert_codes("*result, = [1, 2]")
    assert_codes("if (result := 3):\n    pass")


def test_raising_stop_iteration_is_forbidden() -> None:
    assert_codes("raise StopIteration\nresult = 1", "forbidden", lines=[1])
    assert_codes("raise StopIteration('done')\nresult = 1", "forbidden", lines=[1])
    # catching it stays allowed
    assert_codes("try:\n    result = 1\nexcept StopIteration:\n    result = 2")
