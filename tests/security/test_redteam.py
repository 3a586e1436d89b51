"""Attack classes found by red-teaming the sandbox, each checked in milliseconds.

Every test names a class of attack, not one plan: a limit dropped by a
``finally``, work Python does in C in one step (a non-integer in a huge range,
``sum`` of lists, ``round`` to huge digit counts), and what a plan can make the
*parent* process hold or do (failed calls' arguments, a filled-in prompt, many
small prints, an oversized message, a crashed child).
"""

from __future__ import annotations

import ast
import time

import pytest

from agentjit.exceptions import PlanError, PlanLimitExceeded, SandboxViolation, ToolInputError
from agentjit.plan.child import _rebuild
from agentjit.plan.guard import LimitHit
from agentjit.plan.limits import PlanLimits
from agentjit.plan.sandbox import check_sandbox
from agentjit.runtime.interpreter import PlanRun, format_prompt

from .test_guard import ISOLATED, LIMITS, TOOL, both, run


def _codes(source: str) -> list[str]:
    return [f"{d.code}:{d.line}" for d in check_sandbox(ast.parse(source), callables={"list_stores"})]


# -- a limit or refusal dropped by ``finally`` still stops the run ------------------------------------


@both
@pytest.mark.parametrize(
    ("source", "kind", "line"),
    [
        # continue in finally drops the step limit raised by the inner loop (a loop's step is on its line)
        ("while True:\n    try:\n        while True:\n            pass\n    finally:\n        continue",
         PlanLimitExceeded, 3),
        # an exception raised in finally replaces the limit, and the plan catches that one
        ("while True:\n    try:\n        try:\n            while True:\n                pass\n"
         "        finally:\n            x = 1 / 0\n    except ZeroDivisionError:\n        pass",
         PlanLimitExceeded, 4),
        # a refused attribute, dropped by break in finally, then the plan ends normally
        ("result = 'ran on'\nfor i in range(1):\n    try:\n        x = (1).real\n    finally:\n        break",
         SandboxViolation, 4),
        ("try:\n    try:\n        x = ''.maketrans\n    finally:\n        y = [][1]\nexcept IndexError:\n    result = 1",
         SandboxViolation, 3),
    ],
)
async def test_a_limit_dropped_by_finally_still_stops_the_plan(source, kind, line, limits) -> None:
    with pytest.raises(kind) as info:
        await run(source, limits)
    assert info.value.line == line, info.value


@both
@pytest.mark.parametrize(
    "source",
    [
        'match "x":\n    case str(__class__=c):\n        result = str(c)',  # getattr in C, no Attribute node
        "try:\n    [][1]\nexcept IndexError as e:\n    match e:\n        case Exception(__traceback__=tb):\n"
        "            result = str(tb)",
        'result = __aj_attr("x", "upper")',  # the guard's own hooks are dunder names
        "try:\n    [][1]\nexcept IndexError as __aj_tick:\n    pass\nresult = 1",  # a name that is a str field
        "f = lambda: 1\nresult = f()",
    ],
)
async def test_the_guard_refuses_syntax_it_cannot_guard_without_the_static_check(source, limits) -> None:
    with pytest.raises(SandboxViolation):
        await run(source, limits)


@both
async def test_print_writes_only_what_the_output_has_room_for(limits) -> None:
    assert await run("print(*(['a'] * 1000000), sep='x' * 10000000)\nresult = 1", limits) == 1


def test_break_or_continue_leaving_finally_and_chained_in_are_refused_statically() -> None:
    assert _codes("for i in range(2):\n    try:\n        pass\n    finally:\n        if i:\n            break\n") == [
        "forbidden:6"]
    assert _codes("while True:\n    try:\n        pass\n    finally:\n        continue\n") == ["forbidden:5"]
    # a loop of the finally block's own may break; a chained comparison without 'in' is fine
    assert _codes("try:\n    pass\nfinally:\n    for i in range(3):\n        break\nresult = 1 < 2 < 3\n") == []
    assert _codes("result = 1 in [1] == True\n") == ["forbidden:1"]
    assert _codes("result = 1 not in [1]\n") == []
    assert _codes("try:\n    pass\nexcept ValueError as __builtins__:\n    pass\n") == ["forbidden:3"]


# -- work done in C in one step -------------------------------------------------------------------


@both
async def test_non_integers_in_huge_ranges_answer_without_a_scan(limits) -> None:
    t0 = time.perf_counter()
    got = await run(
        "r = range(10 ** 15)\n"
        "result = [0.5 in r, 7.0 in r, (3 + 0j) in r, 'a' not in r, None in r, r.count(2.0), r.count(0.5),"
        " r.index(9.0), 5 in range(3), 2.0 in range(3), [x for x in [1, 2.5, 3] if x in range(2, 10)]]",
        limits,
    )
    assert got == [False, True, True, True, False, 1, 0, 9, False, True, [3]]
    with pytest.raises(PlanError, match="0.5 is not in range"):
        await run("result = range(10 ** 15).index(0.5)", limits)
    assert time.perf_counter() - t0 < 10


@both
async def test_sum_of_lists_is_linear_and_round_to_huge_digits_is_immediate(limits) -> None:
    if not limits.isolate:  # Python's own sum copies the growing list for every part: 10**10 copies here
        t0 = time.perf_counter()
        assert await run("result = len(sum([[0]] * 150000, []))", limits) == 150000
        assert time.perf_counter() - t0 < 5
    t0 = time.perf_counter()
    assert await run("result = [sum([(1,), (2,)], ()), sum([1.5, 2]), sum([[1]], start=[0])]", limits) == [
        (1, 2), 3.5, [0, 1]]
    assert await run("result = [round(5, -10 ** 8), round(12345, -2), round(2.5), round(2.675, 2), round(7, 3)]",
                     limits) == [0, 12300, 2, 2.67, 7]
    assert time.perf_counter() - t0 < 10
    with pytest.raises(PlanError, match='can only concatenate list \\(not "tuple"\\) to list'):
        await run("result = sum([(1,)], [])", limits)
    with pytest.raises(PlanLimitExceeded, match="items"):
        await run("result = sum([[0] * 600, [0] * 600], [])", limits.with_(max_items=1000))


@both
@pytest.mark.parametrize(
    "source",
    [
        "*a, = range(10 ** 9)",  # the starred name's list is built in C, with no step counted
        "first, *rest = 'x' * 5000000",
        "for *a, in [range(10 ** 9)]:\n    pass",
        "b = [len(a) for (x, *a), y in [(range(10 ** 9), 2)]]",
        "a = []\na += range(10 ** 9)",  # list += any iterable extends in C
    ],
)
async def test_unpacking_and_extending_from_huge_sized_values_is_refused(source, limits) -> None:
    with pytest.raises(PlanLimitExceeded, match="items"):
        await run(source, limits)
    assert await run("a, *b = [1, 2, 3]\nfor x, *y in [(1, 2), (3,)]:\n    b += y\nb += range(2)\n"
                     "result = [a, b, [z for *z, in [(5, 6)]]]", limits) == [1, [2, 3, 2, 0, 1], [[5, 6]]]


async def test_a_method_result_past_the_string_bound_is_refused() -> None:
    with pytest.raises(PlanLimitExceeded, match="string"):  # 'ﬃ'.upper() is 'FFI': three times longer
        await run("result = ('\ufb03' * 4000000).upper()", LIMITS)


# -- what a plan can make the parent hold or do ----------------------------------------------------


def test_a_filled_in_prompt_is_bounded_before_it_is_built() -> None:
    assert format_prompt("{a} and {b} {c} {a}", {"a": "x", "b": [1]}) == 'x and [1] {c} x'
    with pytest.raises(ToolInputError, match="over 1,000 characters"):
        format_prompt("{x}" * 10**6, {"x": "y" * 10**6}, max_chars=1000)


def test_many_small_prints_cost_the_parent_linear_time() -> None:
    plan_run = PlanRun({"list_stores": TOOL}, page=None, limits=LIMITS)
    t0 = time.perf_counter()
    for _ in range(100_000):  # summing the output list on each print made this quadratic
        plan_run.print("")
    plan_run.print("x" * 2_000_000)
    assert time.perf_counter() - t0 < 5
    assert sum(len(t) for t in plan_run.output) == 1_000_000


class _Refusing(PlanRun):
    """A PlanRun whose one tool counts its arguments, then fails."""

    async def call_raw(self, name: str, args: dict) -> dict:  # type: ignore[type-arg]
        self._charge(name, args)
        raise ToolInputError(f"{name}: no")


@both
async def test_call_arguments_are_bounded_per_call_and_per_run(limits) -> None:
    lim = limits.with_(max_call_chars=10_000, max_sent_chars=50_000)

    # a tool with a q parameter: a call naming a parameter the tool lacks is refused before it is charged
    searching = TOOL.model_copy(update={"input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}})

    async def go(source: str) -> object:
        plan_run = _Refusing({"list_stores": searching}, page=None, limits=lim)
        async with plan_run.vm() as vm:
            values, _ = await vm.run(ast.parse(source))
            if limits.isolate:  # each failed call's exception holds its arguments: only the latest few are kept
                assert len(vm._call_errors) <= 16
        return values.get("result")

    with pytest.raises(ToolInputError, match="at most 10,000"):
        await go("result = await list_stores(q='x' * 20000)")
    # many failing calls: caught by the plan until the run-wide bound, which the plan cannot catch
    with pytest.raises(PlanLimitExceeded, match="more than 50,000 characters") as info:
        await go("n = 0\nfor i in range(100):\n    try:\n        await list_stores(q='x' * 9000)\n"
                 "    except Exception:\n        n += 1\nresult = n")
    assert info.value.line == 4


async def test_a_result_too_large_to_hand_over_is_a_limit_not_a_dead_child() -> None:
    with pytest.raises(PlanLimitExceeded, match="at most .* can leave the plan"):
        await run("s = 'x' * 9000000\nresult = [s] * 8", ISOLATED)


async def test_a_crashed_child_is_reported_as_a_crash_with_its_signal() -> None:
    with pytest.raises(PlanError, match="crashed with SIGSEGV"):
        await run("x = ()\nfor i in range(50000):\n    x = ((((x,),),),)\nresult = len({x})", ISOLATED)


def test_errors_from_the_parent_are_rebuilt_with_their_attributes() -> None:
    exc = _rebuild({"type": "PlanError", "message": "m"})
    assert isinstance(exc, PlanError) and exc.line is None and exc.detail == "m"
    hit = _rebuild({"type": "PlanLimitExceeded", "message": "too much", "limit": "calls"})
    assert isinstance(hit, LimitHit) and hit.limit == "calls"
    other = _rebuild({"type": "MemoryError", "message": ""})
    assert type(other) is RuntimeError and str(other) == "MemoryError"


def test_new_limits_have_defaults_and_flags_pass_through() -> None:
    assert PlanLimits().max_call_chars == 1_000_000 and PlanLimits().max_sent_chars == 50_000_000


def test_schema_errors_do_not_quote_a_huge_argument_whole() -> None:
    from agentjit.protocol.schema import validate_inputs

    with pytest.raises(ToolInputError) as info:
        validate_inputs(TOOL.model_copy(update={"input_schema": {"type": "object", "properties": {
            "q": {"type": "string"}}}}), {"q": ["x" * 1_000_000]})
    assert len(str(info.value)) < 1000


def test_a_plans_print_cannot_drive_the_terminal(capsys) -> None:
    plan_run = PlanRun({"list_stores": TOOL}, page=None, limits=LIMITS)
    plan_run.print("title\x1b]0;owned\x07 done\n")
    assert capsys.readouterr().err == "title\\x1b]0;owned\\x07 done\n"
    assert plan_run.output == ["title\x1b]0;owned\x07 done\n"]  # the run's own record keeps the text


@both
async def test_ints_from_text_and_set_tests_against_huge_iterables_are_bounded(limits) -> None:
    for source in ["x = int('f' * 10000000, 16)", "x = int('0x' + 'f' * 100000, 0)", "x = int('1' * 70000, 2)"]:
        with pytest.raises(PlanLimitExceeded, match="bits"):  # then x // (x >> 100) is hours of C
            await run(source, limits)
    with pytest.raises(PlanLimitExceeded, match="items"):
        await run("result = {-1}.isdisjoint(range(10 ** 12))", limits)
    assert await run("result = [int('ff', 16), int('1' * 60000, 2).bit_length(), int('-12'), {1}.issubset(range(3))]",
                     limits) == [255, 60000, -12, True]


@both
async def test_format_widths_with_leading_zeros_are_their_value(limits) -> None:
    assert await run("result = f\"{7:{'0' * 20}5}\"", limits) == "00007"
    with pytest.raises(PlanLimitExceeded, match="999999999999 characters"):
        await run("result = f\"{7:{'0' * 5}999999999999}\"", limits)


@both
@pytest.mark.parametrize(
    "source",
    [
        "result = [0 for _ in range(10**12) if False]",
        "result = {x: 1 for x in range(10**12) if x < 0}",
        "result = sum(1 for _ in range(10**12) if False)",
        "result = [y for x in range(10**6) if False for y in range(10**6)]",
    ],
)
async def test_items_a_comprehension_filters_out_are_steps_too(source, limits) -> None:
    """A filter that drops every item must not hide the loop from the step budget (only the clock
    would stop it)."""
    t0 = time.monotonic()
    with pytest.raises(PlanLimitExceeded, match="steps"):
        await run(source, limits)
    assert time.monotonic() - t0 < 20
