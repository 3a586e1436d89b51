"""The parallel and hedge strategies in real Chromium against the local shop (tests/runtime/conftest.py)."""

from __future__ import annotations

import os
import random

import pytest

from agentjit.cache import ToolCache
from agentjit.exceptions import PlanError, ToolCallFailed
from agentjit.plan.limits import PlanLimits
from agentjit.plan.machine import ALL, PlanMachine
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime import (
    STRATEGIES,
    BrowserPool,
    EffectLog,
    HedgeStrategy,
    ParallelStrategy,
    Runtime,
)
from agentjit.runtime.cut import ITEMS as CUT_ITEMS
from agentjit.runtime.cut import ONE, OUT, cut_at_loop
from agentjit.runtime.interpreter import parse_plan
from agentjit.scheduler.usage import plan_usage
from agentjit.testing import StepClock

from .conftest import ITEMS, ShopSite

HEDGE_REPS = int(os.environ.get("AGENTJIT_HEDGE_REPS", "6"))
"""Hedged order plans in a row in the exactly-once test: six in the suite (twenty took 34 s);
``AGENTJIT_HEDGE_REPS=20`` (or more) hunts races longer."""

ORDER_PLAN = """
await goto_item("c3")
await order_item("c3", 1)
result = (await get_confirmation()).order
"""

ORDER_AFTER_BROWSING = """
await goto_list()
items = (await list_items()).items
await goto_item(items[2].id)
await order_item(items[2].id, 1)
result = (await get_confirmation()).item
"""

READ_ONLY = """
await goto_list()
result = [it.name for it in (await list_items()).items]
"""

REDUCE_PLAN = """
await goto_list()
items = (await list_items()).items
names = []
prices = {}
total = 0
count = 0
seen = set()
for i, it in enumerate(items):
    await goto_item(it.id)
    d = await get_item()
    names.append(d.name)
    prices[d.id] = d.price
    total += d.price
    count += 1
    seen.add(d.cat)
result = {"names": names, "prices": prices, "order": list(prices), "total": total, "count": count,
          "cats": sorted(seen)}
"""

COMPREHENSION_PLAN = """
await goto_list()
items = (await list_items()).items
result = sorted([(await fetch_item(it.id)).price for it in items if it.id != "b2"], reverse=True)
"""

BREAK_PLAN = """
await goto_list()
items = (await list_items()).items
names = []
for it in items:
    await goto_item(it.id)
    names.append((await get_item()).name)
    if it.id == "c3":
        break
result = names
"""

CHEAPEST_THEN_ORDER = """
await goto_list()
items = (await list_items()).items
prices = {}
for it in items:
    await goto_item(it.id)
    prices[it.id] = (await get_item()).price
cheapest = items[0].id
for k in prices:
    if prices[k] < prices[cheapest]:
        cheapest = k
await goto_item(cheapest)
await order_item(cheapest, 1)
result = (await get_confirmation()).item
"""


def test_strategies_are_registered() -> None:
    assert STRATEGIES["parallel"] is ParallelStrategy
    assert STRATEGIES["hedge"] is HedgeStrategy


# -- hedge -----------------------------------------------------------------------------------


async def test_hedge_fast_replica_wins_the_slow_one_is_cancelled(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    shop.session_delays = [0.6, 0.0]  # whichever context arrives first is slow on every request
    clock = StepClock()
    hedge = HedgeStrategy(2, clock=clock)
    result = await shop_runtime.run(ORDER_AFTER_BROWSING, strategy=hedge)

    assert result.strategy == "hedge" and result.workers == 2
    assert result.value == ITEMS[2]["id"]
    assert len(shop.orders) == 1
    assert shop.session_delays[shop.orders[0]["session"]] == 0.0  # the fast session placed it
    assert browser_pool.open_contexts == 0

    winner = hedge.winner
    assert winner is not None
    loser = 1 - winner
    ev = {(e.replica, e.kind): e for e in hedge.events}
    assert ev[(winner, "lead")].detail == "first WRITE order_item"
    # lead, then the cancel of the loser, which then closes its context; the winner finishes after
    assert ev[(winner, "lead")].time < ev[(loser, "cancel")].time < ev[(loser, "cancelled")].time
    assert ev[(loser, "cancelled")].time < ev[(loser, "closed")].time
    assert (loser, "done") not in ev and (winner, "done") in ev
    times = [e.time for e in hedge.events]
    assert times == sorted(times) and len(set(times)) == len(times)  # the injected clock stamped them
    # the loser never reached the write; the winner's calls are the result's
    assert {c.worker for c in result.calls} == {winner}
    assert [c.tool for c in result.calls if c.effect == "WRITE"] == ["order_item"]


async def test_hedge_write_reaches_the_site_exactly_once(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    for rep in range(HEDGE_REPS):
        result = await shop_runtime.run(ORDER_PLAN, strategy=HedgeStrategy(2))
        assert len(shop.orders) == rep + 1, f"repetition {rep}: {len(shop.orders)} orders"
        assert result.value == rep
        assert browser_pool.open_contexts == 0


async def test_hedge_read_only_plan_races_to_the_end(shop: ShopSite, shop_runtime: Runtime) -> None:
    shop.session_delays = [0.0, 0.5, 0.5]
    clock = StepClock()
    hedge = HedgeStrategy(3, clock=clock, stagger_s=2.5)
    result = await shop_runtime.run(READ_ONLY, strategy=hedge)
    assert result.value == [it["name"] for it in ITEMS]
    assert clock.sleeps == [2.5, 5.0]  # replica i starts after i * stagger_s on the clock
    assert hedge.winner is not None
    leads = [e for e in hedge.events if e.kind == "lead"]
    assert len(leads) == 1 and leads[0].detail == "finished" and leads[0].replica == hedge.winner


async def test_hedge_all_replicas_failing_raise_an_exception_group(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    shop_runtime.tool_timeout_ms = 2500  # how long goto_item's post_check looks for the missing item
    hedge = HedgeStrategy(2)
    with pytest.raises(ExceptionGroup) as info:
        await shop_runtime.run('await goto_item("zz")\nresult = 1', strategy=hedge)
    errors = info.value.exceptions
    assert len(errors) == 2 and all(isinstance(e, ToolCallFailed) and e.tool == "goto_item" for e in errors)
    assert {e.replica for e in hedge.events if e.kind == "failed"} == {0, 1}
    assert browser_pool.open_contexts == 0


async def test_hedge_bad_plan_fails_once_not_per_replica(shop_runtime: Runtime) -> None:
    with pytest.raises(PlanError):
        await shop_runtime.run("import os\nresult = 1", strategy=HedgeStrategy(3))


async def test_hedged_replicas_share_the_effect_log_with_a_reexecution(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    effects = EffectLog()
    first = await shop_runtime.run(ORDER_PLAN, strategy=HedgeStrategy(2, effects=effects))
    again = await shop_runtime.run(ORDER_PLAN, strategy=HedgeStrategy(2, effects=effects))
    assert len(shop.orders) == 1
    assert first.value == again.value == 0
    assert [c.replayed for c in again.calls if c.tool == "order_item"] == [True]
    assert effects.sent == 1 and browser_pool.open_contexts == 0


# -- parallel ----------------------------------------------------------------------------------


def _overlaps(spans: list) -> bool:
    return any(
        a.worker != b.worker and a.start < b.end and b.start < a.end for a in spans for b in spans if a is not b
    )


async def test_parallel_map_and_reductions_equal_serial_and_workers_overlap(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    shop.path_delays = {"/item/": 0.15}
    serial = await shop_runtime.run(REDUCE_PLAN, strategy="serial")
    serial_requests = len(shop.requests)
    shop.path_meetings = {"/item/": 2}  # the first item page waits for a second one: overlap at any load
    par = ParallelStrategy(3, analyse=plan_usage)
    result = await shop_runtime.run(REDUCE_PLAN, strategy=par)

    assert result.strategy == "parallel"
    assert result.value == serial.value
    value = result.value
    assert value["names"] == [it["name"] for it in ITEMS]  # appends in the serial order
    assert value["order"] == [it["id"] for it in ITEMS]  # dict insertion order is the serial one
    assert value["total"] == sum(it["price"] for it in ITEMS) and value["count"] == len(ITEMS)
    assert "reduction-shaped" in (result.strategy_reason or "")

    assert sorted(s.iteration for s in par.spans) == list(range(len(ITEMS)))
    busy = {s.worker for s in par.spans}
    assert 0 in busy and len(busy) >= 2 and result.workers == len(busy)
    assert _overlaps(par.spans)  # iterations really ran at the same time on different workers
    # the server saw item pages in flight at once (one page loads one at a time: they came from different contexts)
    items = [r for r in shop.requests[serial_requests:] if r.path.startswith("/item/")]
    assert any(a is not b and a.start < b.end and b.start < a.end for a in items for b in items)
    # ... of one user: the workers took worker 0's session cookie when the loop was reached
    assert len({r.session for r in items}) == 1
    # the other workers replayed the entry navigation (goto_list), in the trace, before their iterations
    for w in busy - {0}:
        tools = [c.tool for c in result.calls if c.worker == w]
        assert tools[0] == "goto_list" and "list_items" not in tools
    assert browser_pool.open_contexts == 0


SIGNED_IN_PLAN = """
await sign_in(user="ann")
await goto_list()
items = (await list_items()).items
seen = []
for it in items:
    await goto_item(id=it.id)
    me = await whoami()
    seen.append(me.user)
result = seen
"""


def _signed_in_runtime(shop: ShopSite, shop_cache: ToolCache, pool: BrowserPool) -> Runtime:
    """The shop's tools plus ``sign_in(user)`` (a WRITE that sets a session cookie) and ``whoami()``."""
    sign_in = ToolManifest(
        name="sign_in", description="Sign in as `user`.", type=ToolType.SET_FIELDS, effect=Effect.WRITE,
        input_schema={"type": "object", "properties": {"user": {"type": "string"}}, "required": ["user"]},
        execute="document.cookie = 'user=' + user + '; path=/'; return null;",
    )  # fmt: skip
    whoami = ToolManifest(
        name="whoami", description="Who the site sees as signed in.", type=ToolType.GET_FIELDS,
        output_schema={"type": "object", "properties": {"user": {"type": "string"}}},
        execute="const m = document.cookie.match(/(?:^|; )user=([^;]*)/); return {user: m ? m[1] : ''};",
    )  # fmt: skip
    return Runtime(ToolCache(shop_cache.info, [*shop_cache.tools.values(), sign_in, whoami]), shop.url, pool=pool)


async def test_a_reexecution_replays_a_sign_in_with_the_session_it_left(
    shop: ShopSite, shop_cache: ToolCache, browser_pool: BrowserPool
) -> None:
    """The sign-in is not sent again in the new contexts, but the session it made is theirs."""
    runtime = _signed_in_runtime(shop, shop_cache, browser_pool)
    effects = EffectLog()
    plan = 'await sign_in(user="ann")\nme = await whoami()\nresult = me.user\n'
    first = await runtime.run(plan, strategy=HedgeStrategy(2, effects=effects))
    again = await runtime.run(plan, strategy=HedgeStrategy(2, effects=effects))
    assert first.value == again.value == "ann"
    assert [c.replayed for c in again.calls if c.tool == "sign_in"] == [True] and effects.sent == 1


async def test_parallel_workers_share_the_session_the_prefix_signed_in(
    shop: ShopSite, shop_cache: ToolCache, browser_pool: BrowserPool
) -> None:
    """A sign-in (a WRITE, never sent twice) in the prefix: every worker's iterations run signed in."""
    runtime = _signed_in_runtime(shop, shop_cache, browser_pool)
    shop.path_delays = {"/item/": 0.15}
    par = ParallelStrategy(3, analyse=plan_usage)
    result = await runtime.run(SIGNED_IN_PLAN, strategy=par)
    assert result.strategy == "parallel" and len({s.worker for s in par.spans}) >= 2
    assert result.value == ["ann"] * len(ITEMS)
    assert [c.tool for c in result.calls].count("sign_in") == 1


async def test_parallel_comprehension_equals_serial(shop: ShopSite, shop_runtime: Runtime) -> None:
    serial = await shop_runtime.run(COMPREHENSION_PLAN, strategy="serial")
    result = await shop_runtime.run(COMPREHENSION_PLAN, strategy=ParallelStrategy(2, analyse=plan_usage))
    assert result.strategy == "parallel"
    assert result.value == serial.value == sorted((it["price"] for it in ITEMS if it["id"] != "b2"), reverse=True)


async def test_parallel_falls_back_to_serial_for_a_loop_with_break(shop: ShopSite, shop_runtime: Runtime) -> None:
    par = ParallelStrategy(3, analyse=plan_usage)
    result = await shop_runtime.run(BREAK_PLAN, strategy=par)
    assert result.value == ["Apple", "Bread", "Cheese"]
    assert result.strategy == "serial" and result.workers == 1
    assert "break" in (result.strategy_reason or "")
    assert par.spans == []


async def test_parallel_then_write_in_the_suffix_orders_once(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    source = CHEAPEST_THEN_ORDER
    assert plan_usage(source, shop_runtime.cache).loop.parallel_ok  # type: ignore[union-attr]
    result = await shop_runtime.run(source, strategy=ParallelStrategy(2, analyse=plan_usage))
    cheapest = min(ITEMS, key=lambda it: it["price"])["id"]
    assert result.strategy == "parallel" and result.value == cheapest
    assert [o["item"] for o in shop.orders] == [cheapest]
    writes = [c for c in result.calls if c.effect == "WRITE"]
    assert len(writes) == 1 and writes[0].worker == 0
    assert browser_pool.open_contexts == 0


async def test_parallel_iteration_failure_raises_the_error_and_closes_contexts(
    shop: ShopSite, shop_runtime: Runtime, browser_pool: BrowserPool
) -> None:
    shop_runtime.tool_timeout_ms = 2500
    source = """
names = []
for x in ["a1", "zz", "b2", "c3"]:
    await goto_item(x)
    names.append((await get_item()).name)
result = names
"""
    with pytest.raises(ToolCallFailed) as info:
        await shop_runtime.run(source, strategy=ParallelStrategy(2, analyse=plan_usage))
    assert info.value.tool == "goto_item"  # the "zz" page has no item (post_check fails)
    assert browser_pool.open_contexts == 0


# -- the food site's tasks ---------------------------------------------------------------------
# The issue asks for 20 runs of every write task per strategy:
#   AGENTJIT_FOOD_REPS=20 .venv/bin/pytest tests/runtime/test_strategies.py -k food -p no:cacheprovider
# (the suite's default is 1 run each, to stay fast).

FOOD_REPS = int(os.environ.get("AGENTJIT_FOOD_REPS", "1"))
FOOD_TIMEOUT = 120 + 30 * FOOD_REPS  # seconds per test: each run is a few seconds on a loaded 2-core box


def _food_tasks(kind: str | None = None) -> list:
    from agentjit.tasks.apps import get_app

    return [t for t in get_app("food").tasks() if kind is None or t.kind == kind]


WRITE_TASKS = [t.id for t in _food_tasks("write")]


@pytest.mark.timeout(FOOD_TIMEOUT)
@pytest.mark.parametrize("strategy", ["hedge", "parallel"])
@pytest.mark.parametrize("task_id", WRITE_TASKS)
async def test_food_write_task_leaves_the_judged_state(
    task_id: str, strategy: str, food_site, food_cache, browser_pool: BrowserPool
) -> None:
    from agentjit.tasks.runner import reference_source, run_task

    runtime = Runtime(food_cache, food_site.url, pool=browser_pool)
    task = next(t for t in _food_tasks("write") if t.id == task_id)
    source = reference_source(task)
    for rep in range(FOOD_REPS):
        strat = HedgeStrategy(2) if strategy == "hedge" else ParallelStrategy(2, analyse=plan_usage)
        res = await run_task(task, source, runtime=runtime, site=food_site, strategy=strat)
        assert res.ok, f"{task.id} ({strategy}, run {rep}): {res.reason}"  # the judge: no duplicate order
        assert res.writes >= 1
        assert browser_pool.open_contexts == 0


@pytest.mark.timeout(FOOD_TIMEOUT)
async def test_food_parallel_value_equals_serial(food_site, food_cache, browser_pool: BrowserPool) -> None:
    from agentjit.tasks.runner import reference_source

    runtime = Runtime(food_cache, food_site.url, pool=browser_pool)
    parallelizable = []
    for task in _food_tasks():
        source = reference_source(task)
        loop = plan_usage(source, food_cache).loop
        if loop is None or not loop.parallel_ok:
            continue
        parallelizable.append(task.id)
        food_site.reset()
        serial = await runtime.run(source, strategy="serial")
        for _ in range(FOOD_REPS):
            food_site.reset()
            par = ParallelStrategy(2, analyse=plan_usage)
            result = await runtime.run(source, strategy=par)
            assert result.strategy == "parallel", task.id
            assert result.value == serial.value, task.id
            assert sorted(s.iteration for s in par.spans) == list(range(len(par.spans)))
    assert parallelizable  # the food tasks include at least one parallelizable loop
    assert browser_pool.open_contexts == 0


# -- the cut and the merge, without a browser --------------------------------------------------


async def _fake_tool(x: object) -> object:
    return x


ECHO_TOOLS = {"get": ToolManifest(name="get", description="echo", type=ToolType.GET_FIELDS, execute="return 1;")}


class _MachineVM:
    """The in-process plan machine with the VM interface the strategies use."""

    def __init__(self) -> None:
        self.machine = PlanMachine({"get": _fake_tool}, PlanLimits(isolate=False))

    async def run(self, tree, **kwargs):  # type: ignore[no-untyped-def]
        return await self.machine.run(tree, **kwargs)

    async def apply_ops(self, ops, *, ns="main", set_vars=None):  # type: ignore[no-untyped-def]
        self.machine.apply_ops(ops, ns=ns)
        if set_vars:
            self.machine.set_vars(set_vars, ns=ns)


async def _cut_and_run(source: str, order: list[int] | None = None) -> tuple[object, object]:
    """Serial value and the value of the cut plan run iteration by iteration in ``order``."""
    tools = ECHO_TOOLS
    serial, _ = await _MachineVM().run(parse_plan(source, frozenset(tools)))
    tree = parse_plan(source, frozenset(tools))
    cut, why = cut_at_loop(tree, plan_usage(source, tools))
    assert cut is not None, why
    vm0 = _MachineVM()
    values, _ = await vm0.run(cut.prefix, want=ALL)
    items = values[CUT_ITEMS]
    outputs: list = [None] * len(items)
    idx = list(range(len(items)))
    random.Random(7).shuffle(idx)
    for i in order or idx:  # any execution order: the merge restores the serial one
        one = {ONE: [items[i]]}
        if cut.kind == "for":
            _, outputs[i] = await vm0.run(cut.iteration, ns="iter", copy_from="main", set_vars=one,
                                          recorders=sorted(cut.accumulators), want=())
        else:
            out, _ = await vm0.run(cut.iteration, ns="iter", copy_from="main", set_vars=one, want=(OUT,))
            outputs[i] = out[OUT]
    await ParallelStrategy._merge(cut, vm0, outputs)
    final, _ = await vm0.run(cut.suffix)
    return serial["result"], final["result"]


@pytest.mark.parametrize(
    "body",
    [
        # float sums in a fixed order (not associative), list +=, nested counters, dict.update, set.add
        "total += await get(x * 0.1)\n    total += 1e-17",
        "acc += [await get(x)]",
        "counts[x % 3] += await get(x)",
        "d.update({x: await get(x)})\n    s.add(x % 4)\n    names.extend([x, x])",
        "y = await get(x)\n    s.update(v for v in [y, y + 100])\n    names.extend(v * 2 for v in [y])",
    ],
)
async def test_merge_replays_the_serial_mutations(body: str) -> None:
    source = (
        "total = 0.0\nacc = []\ncounts = {0: 0, 1: 0, 2: 0}\nd = {}\ns = set()\nnames = []\n"
        f"for x in range(12):\n    {body}\n"
        "result = [total, acc, counts, list(d.items()), sorted(s), names]\n"
    )
    serial, cut = await _cut_and_run(source)
    assert cut == serial


async def test_comprehension_cut_keeps_the_statement_around_it() -> None:
    source = 'xs = [3, 1, 2]\nresult = sorted({x: await get(x * 2) for x in xs if x != 2}.items())\n'
    serial, cut = await _cut_and_run(source)
    assert cut == serial == [(1, 2), (3, 6)]


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("i = 0\nwhile i < 3:\n    await get(i)\n    i += 1\nresult = i", "while loop"),
        ("n = []\nfor x in [1, 2]:\n    n.append(await get(x))\n    if len(n) > 1:\n        n.append(0)\nresult = n",
         "reads accumulator"),
        ("n = [await get(0)] + [await get(x) for x in [1, 2]]\nresult = n", "awaits outside its comprehension"),
        ("if True:\n    for x in [1]:\n        await get(x)\nresult = 1", "not a top-level"),
    ],
)
def test_loops_the_cut_leaves_serial(source: str, why: str) -> None:
    tools = ECHO_TOOLS
    cut, reason = cut_at_loop(parse_plan(source, frozenset(tools)), plan_usage(source, tools))
    assert cut is None and why in reason
