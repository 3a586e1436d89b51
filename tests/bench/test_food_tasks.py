"""Food tasks: every reference plan passes its judge in Chromium; judges reject wrong answers and duplicates."""

from __future__ import annotations

import copy
import dataclasses
import json
import urllib.request
from types import SimpleNamespace
from typing import Any

import pytest

from agentjit.bench.food import PLANS_DIR, FoodSite
from agentjit.bench.food.data import BY_SLUG, SECTIONS
from agentjit.bench.food.tasks import TASKS, task
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.runtime import run_plan
from agentjit.tasks.task import Task, new_orders

PAPER_IDS = {
    "food-custom-1", "food-custom-2", "food-custom-3", "food-v2-10", "food-v1-1",
    "food-custom-6", "food-custom-7", "food-v1-3", "food-custom-9",
}


def test_task_list() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) == len(set(ids)) and len(ids) >= 12
    assert PAPER_IDS <= set(ids)
    assert {p.stem for p in PLANS_DIR.glob("*.py")} == set(ids)
    for t in TASKS:
        assert t.app == "food" and t.kind in ("read", "write") and t.cardinality >= 1
        assert t.reference_plan.is_file() and t.to_json()["reference_plan"] == str(t.reference_plan)
    assert task("food-custom-3").kind == "write" and "taco" in task("food-custom-3").task
    assert task("food-v2-10").kind == "write" and "$30" in task("food-v2-10").task
    with pytest.raises(KeyError):
        task("food-nope")


def test_expected_answers_follow_the_data() -> None:
    assert task("food-custom-1").expected == [11.75, 16.25]
    assert task("food-v1-1").expected == [BY_SLUG[s].name for s in SECTIONS["Best near you"][:3]]
    assert task("food-custom-6").expected == sum(BY_SLUG[s].review_count < 20 for s in SECTIONS["Best near you"][:5])
    assert task("food-v1-3").expected == sum(BY_SLUG[s].delivery for s in SECTIONS["Light & fresh"])
    assert task("food-custom-7").expected["item"] == "Deluxe Cat Tree Tower"
    assert task("food-custom-9").expected == {"store": "Popeyes", "price": 2.99, "item": "Cajun Fries"}


@pytest.mark.parametrize("t", TASKS, ids=[t.id for t in TASKS])
def test_reference_plans_pass_the_static_checker(t: Task, food_cache: ToolCache) -> None:
    result = check(t.plan_source(), food_cache)
    assert result.valid, [str(d) for d in result.diagnostics]


# one run per task, shared by the judge tests below
_RUNS: dict[str, tuple[Any, dict[str, Any], dict[str, Any]]] = {}


@pytest.mark.browser
@pytest.mark.parametrize("t", TASKS, ids=[t.id for t in TASKS])
async def test_reference_plan_passes_its_judge(t: Task, page: Any, food_site: FoodSite, food_cache: ToolCache) -> None:
    before = food_site.state()
    run = await run_plan(t.plan_source(), food_cache, page=page, base_url=food_site.url, timeout_ms=3000)
    after = food_site.state()
    assert all(c.ok for c in run.tool_calls), [(c.tool, c.reason) for c in run.tool_calls if not c.ok]
    verdict = t.judge(run.value, before, after)
    assert verdict.ok, f"{t.id}: {verdict.reason}; answer: {run.value!r}"
    _RUNS[t.id] = (run.value, before, after)
    if t.kind == "write":
        assert len(run.writes) >= 1
    else:
        assert not run.writes


def _run_of(t: Task) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    if t.id not in _RUNS:
        pytest.skip("the reference run of this task did not pass")
    return _RUNS[t.id]


@pytest.mark.browser
@pytest.mark.parametrize("t", TASKS, ids=[t.id for t in TASKS])
def test_judge_rejects_a_wrong_answer(t: Task) -> None:
    answer, before, after = _run_of(t)
    if t.kind == "read":
        for wrong in ["I could not find it.", 0, {"answer": None}]:
            assert not t.judge(wrong, before, before).ok, wrong
        # the right answer, but the run also changed the site: rejected
        dirty = copy.deepcopy(before)
        dirty["log"].append({"seq": 1, "method": "POST", "path": "/api/cart", "body": {}, "status": 200})
        assert not t.judge(answer, before, dirty).ok
    else:
        # nothing happened on the site: whatever the answer says, rejected
        assert not t.judge(answer, before, before).ok


@pytest.mark.browser
@pytest.mark.parametrize("t", [t for t in TASKS if t.kind == "write"], ids=[t.id for t in TASKS if t.kind == "write"])
def test_write_judge_rejects_a_duplicated_order(t: Task) -> None:
    answer, before, after = _run_of(t)
    dup = copy.deepcopy(after)
    orders = new_orders(before, after)
    if orders:
        extra = copy.deepcopy(orders[0])
        extra["id"] = "ORD-9999"
        dup["orders"].append(extra)
        dup["log"].append({"seq": len(dup["log"]) + 1, "method": "POST", "path": "/checkout/place",
                           "body": {"mode": extra["mode"]}, "status": 303})
    else:  # a cart task: an order placed at all is wrong, twice the more so
        order = {"id": "ORD-9999", "store": "x", "lines": after["cart"], "mode": "pickup", "total": 1.0}
        dup["orders"].extend([order, {**order, "id": "ORD-9998"}])
        dup["cart"] = []
    verdict = t.judge(answer, before, dup)
    assert not verdict.ok


def _send(site: FoodSite, path: str, data: bytes, content_type: str) -> None:
    req = urllib.request.Request(site.url + path, data=data, headers={"Content-Type": content_type}, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - loopback
        assert resp.status < 400


def test_judges_read_their_values_from_the_task_so_variants_are_judged(food_site: FoodSite) -> None:
    assert all(t.judges_read_task for t in TASKS)
    order = task("food-custom-12")
    variant = dataclasses.replace(order, task="Order three Mochi Sets from Stonemill Matcha for pickup.")
    before = food_site.state()
    mochi = BY_SLUG["stonemill-matcha"].item("Mochi Set")
    assert mochi is not None
    _send(food_site, "/api/cart", json.dumps({"store": "stonemill-matcha", "item_id": mochi.id, "quantity": 3}).encode(),
          "application/json")  # fmt: skip
    _send(food_site, "/checkout/place", b"mode=pickup", "application/x-www-form-urlencoded")
    after = food_site.state()
    done = SimpleNamespace(value="done")
    assert variant.evaluate(done, before, after, food_site.url).ok
    verdict = order.evaluate(done, before, after, food_site.url)  # the task's own two Mochi Sets: wrong
    assert not verdict.ok and "expected 2" in verdict.reason
    # a read variant: another store's most expensive item, not Petco's
    priciest = task("food-custom-7")
    winstop = dataclasses.replace(priciest, task=priciest.task.replace("Petco", "Winstop"))
    top = max(BY_SLUG["winstop"].menu, key=lambda it: it.price)
    assert winstop.evaluate(SimpleNamespace(value=top.name), after, after, food_site.url).ok
    assert not winstop.evaluate(SimpleNamespace(value=priciest.expected["item"]), after, after, food_site.url).ok
    missing = dataclasses.replace(order, task="Order three Mochi Sets from Petco for pickup.")
    verdict = missing.evaluate(done, before, after, food_site.url)
    assert not verdict.ok and verdict.lacks and "seed data does not have" in verdict.reason
    assert "Petco" in missing.seed_lacks(before, food_site.url) and variant.seed_lacks(before, food_site.url) == ""
