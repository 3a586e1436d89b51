"""The run-time guard on its own: the static sandbox is skipped, so these show the second line holds.

Refusals and bounds run both in-process and in the sandbox child (the default).
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import time

import pytest

from agentjit.exceptions import PlanError, PlanLimitExceeded, SandboxViolation
from agentjit.plan.data import Record, decode, encode, plain
from agentjit.plan.limits import PlanLimits
from agentjit.protocol.manifest import ToolManifest, ToolType
from agentjit.runtime.interpreter import PlanRun

LIMITS = PlanLimits(isolate=False, time_s=5, max_steps=200_000)
ISOLATED = PlanLimits(isolate=True, time_s=5, max_steps=200_000)
SCHEMA = {"properties": {"items": {"items": {"properties": {"name": {}, "rating": {}, "eta": {}}}}}}
TOOL = ToolManifest(name="list_stores", description="stores", type=ToolType.LIST_ITEMS, execute="return 1;",
                    output_schema=SCHEMA)


class _Run(PlanRun):
    """A PlanRun whose one tool answers at once, without a browser."""

    async def call_raw(self, name: str, args: dict) -> dict:  # type: ignore[type-arg]
        return {"items": [{"name": "Ike's", "rating": 4.5}], "page": "home"}


async def run(source: str, limits: PlanLimits = LIMITS) -> object:
    """Run ``source`` without the static sandbox (the tree goes straight to the VM)."""
    plan_run = _Run({"list_stores": TOOL}, page=None, limits=limits)
    async with plan_run.vm() as vm:
        values, _ = await vm.run(ast.parse(source))
    return values.get("result")


both = pytest.mark.parametrize("limits", [LIMITS, ISOLATED], ids=["in-process", "isolated"])


# -- what plans may do ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("s = await list_stores()\nresult = s.items[0].name", "Ike's"),
        ("s = await list_stores()\nresult = s.items[0].eta", None),  # declared, missing: None
        ("s = await list_stores()\nresult = s['items'][0].get('rating')", 4.5),
        ("s = await list_stores()\nresult = sorted(s.keys())", ["items", "page"]),
        ("s = await list_stores()\nresult = [dict(i) for i in s.items]", [{"name": "Ike's", "rating": 4.5, "eta": None}]),
        ("result = f\"{'x'!r:>5}|{3.14159:.2f}|{'a'.upper()}\"", "  'x'|3.14|A"),
        ("d = {}\nd['k'] = [1]\nd['k'] += [2]\nd.setdefault('j', 0)\nresult = d", {"k": [1, 2], "j": 0}),
        ("a, b = [1], {}\nb['x'], a[0] = 5, 6\nresult = [a, b]", [[6], {"x": 5}]),
        ("t = 0\nfor i, x in enumerate(zip([1, 2], [3, 4])):\n    t += i * sum(x)\nresult = t", 6),
        ("xs = [3, 1, 2]\nxs.sort(reverse=True)\nresult = ' '.join(str(x) for x in xs)", "3 2 1"),
        ("try:\n    [][1]\nexcept IndexError as e:\n    result = e.args[0]", "list index out of range"),
        ("result = 2 ** 100 % 7", 2),
        ("big = list(range(999999))\nkeep = []\nkeep.append(big)\nkeep.append(big)\nresult = len(keep)", 2),
        ("result = [max(['bb', 'a'], key=len), sorted([-3, 2], key=abs)]", ["bb", [2, -3]]),
    ],
)
async def test_plain_plans_run(source: str, expected: object) -> None:
    assert await run(source) == expected


# -- what the guard refuses, with the line ------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "s = await list_stores()\nresult = s.model_copy",
        "s = await list_stores()\nresult = s.get.__self__",
        "x = [1]\nresult = x.pop.__self__",
        "result = 'a'.format",
        "result = ''.__class__",
        "s = await list_stores()\nresult = s['__class__']",
        "result = {}.get('__class__')",
        "x = {}\nx['__dict__'] = 1",
        "s = await list_stores()\ns.f = print",
        "result = '%s' % 1",
        "result = (x for x in [1]).gi_frame",
        "try:\n    1 / 0\nexcept Exception as e:\n    result = e.with_traceback",
        "result = (lambda: 1)()",
        "result = print.__self__",
        "result = isinstance.__call__",
        "result = str.lower('A')",
        "result = range(3).__iter__",
    ],
)
@both
async def test_the_guard_refuses(source: str, limits: PlanLimits) -> None:
    with pytest.raises((SandboxViolation, PlanError)) as info:
        await run(source, limits)
    assert info.value.line is not None and info.value.line >= 1


async def test_refusals_are_not_catchable() -> None:
    with pytest.raises(SandboxViolation):
        await run("try:\n    result = ''.join.__self__\nexcept Exception:\n    result = 'caught'")


async def test_records_are_read_only() -> None:
    with pytest.raises(PlanError, match="read-only"):
        await run("s = await list_stores()\ns['page'] = 'x'")


# -- bounds ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "limit", "line"),
    [
        ("x = 1\nwhile True:\n    pass", "steps", 2),
        ("result = 10 ** 10 ** 8", "int", 1),
        ("result = 1 << 10 ** 7", "int", 1),
        ("result = 'x' * 10 ** 10", "str", 1),
        ("result = [0] * 10 ** 10", "items", 1),
        ("s = 'ab'\nfor i in range(40):\n    s = s + s", "str", 3),
        ("result = 'a'.ljust(10 ** 10)", "str", 1),
        ("result = ('a' * 1000).replace('', 'x' * 100000)", "str", 1),
        ("result = f'{1:>999999999}'", "str", 1),
        ("result = sum(range(10 ** 18))", "items", 1),
        ("result = list(zip(range(10 ** 9), range(10 ** 9)))", "steps", 1),
        ("result = [*range(10 ** 9)]", "items", 1),
        ("try:\n    while True:\n        pass\nexcept:\n    result = 'swallowed'", "steps", 2),
        ("a = []\nfor i in range(150):\n    a = [a]\nresult = a", "depth", None),
        ("result = sorted([5 * 10 ** 8], key='x'.ljust)", "str", 1),  # key= runs in C: guarded all the same
        ("xs = [10 ** 9]\nxs.sort(key='y'.zfill)", "str", 2),
    ],
)
@both
async def test_bounds_stop_the_plan(source: str, limit: str, line: int | None, limits: PlanLimits) -> None:
    with pytest.raises(PlanLimitExceeded) as info:
        await run(source, limits)
    assert info.value.limit == limit
    if line is not None:
        assert info.value.line == line


async def test_time_limit_stops_a_busy_loop() -> None:
    with pytest.raises(PlanLimitExceeded) as info:
        await run("while True:\n    pass", PlanLimits(isolate=False, time_s=0.3, max_steps=10**12))
    assert info.value.limit == "time" and info.value.line == 1 and "time limit" in str(info.value)


class _Stuck(_Run):
    """A PlanRun whose tool never answers within the plan's time."""

    async def call_raw(self, name: str, args: dict) -> dict:  # type: ignore[type-arg]
        await asyncio.sleep(60)
        return {}


async def test_a_run_past_its_time_in_a_tool_call_names_the_calls_line() -> None:
    """The sandbox child waits on the call; the runtime stops it at the limit and names the call's line (in
    process, the runner's own limit stops the run: tests/security/test_isolation.py)."""
    # the limit is long enough for the child to start and reach line 2 at any load (the call waits 60 s)
    plan_run = _Stuck({"list_stores": TOOL}, page=None, limits=dataclasses.replace(ISOLATED, time_s=5))
    t0 = time.monotonic()
    with pytest.raises(PlanLimitExceeded) as info:
        async with plan_run.vm() as vm:
            await vm.run(ast.parse("n = 1\ns = await list_stores()\nresult = s"))
    assert info.value.limit == "time" and info.value.line == 2, info.value
    assert time.monotonic() - t0 < 50  # stopped at the limit, long before the call would have ended


async def test_raise_stop_iteration_is_a_plan_error() -> None:
    with pytest.raises(PlanError, match="StopIteration"):
        await run("raise StopIteration")


async def test_huge_int_to_str_is_a_plan_error() -> None:
    with pytest.raises(PlanError):
        await run("result = str(10 ** 5000)")


# -- the wire form -------------------------------------------------------------------------------


def test_encode_decode_round_trip_keeps_types() -> None:
    value = {1: (2, "x"), "r": Record({"a": [1.5, None, True]}), "s": {3}, "f": frozenset({4})}
    back = decode(encode(value))
    assert back == value and isinstance(back["r"], Record) and isinstance(back[1], tuple)
    assert plain(back["r"]) == {"a": [1.5, None, True]}


@pytest.mark.parametrize("bad", [object(), (x for x in []), ValueError("x"), print])
def test_only_plain_data_crosses(bad: object) -> None:
    with pytest.raises(ValueError, match="not plain data"):
        encode([bad])


def test_decode_refuses_what_encode_never_makes() -> None:
    for data in ({"$x": []}, {"a": 1, "b": 2}, {"$d": [[1]]}):
        with pytest.raises(ValueError):
            decode(data)
    deep: object = 1
    for _ in range(500):
        deep = [deep]
    with pytest.raises(ValueError, match="deeper"):
        decode(deep)


def test_record_hides_methods_behind_fields() -> None:
    r = Record({"get": 1, "__class__": 2})
    assert r.get("__class__") == 2 and r["get"] == 1 and r == {"get": 1, "__class__": 2}
    with pytest.raises(TypeError):
        r.x = 1  # type: ignore[attr-defined]
