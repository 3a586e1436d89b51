"""The one gate (``admit``) and the plan cache checked again before a stored plan is used."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agentjit.cache import ToolCache
from agentjit.exceptions import PlanError, PlanRejected
from agentjit.llm import TestModel
from agentjit.planner import Planner, admit, check, plan_key

from .helpers import make_cache

GOOD = 'await goto_home()\nstores = await list_stores()\nresult = [s.name for s in stores.items]'


def test_admit_returns_the_check_of_a_valid_plan(cache: ToolCache) -> None:
    result = admit(GOOD, cache)
    assert result.valid and result.cost == check(GOOD, cache).cost


def test_admit_refuses_what_check_refuses_naming_the_first_code_and_line(cache: ToolCache) -> None:
    src = "x = 1\ny = open('/etc/passwd')\nresult = __import__('os')"
    with pytest.raises(PlanRejected) as info:
        admit(src, cache, origin="plan.py")
    exc = info.value
    assert isinstance(exc, PlanError)
    assert exc.line == 2 and exc.source == "plan.py"
    assert [d.code for d in exc.diagnostics] == check(src, cache).codes()
    assert str(exc).startswith("line 2: rejected by the checker: [forbidden] 'open' is not allowed")
    assert "more finding" in str(exc) and "plan.py" in str(exc)


def test_admit_refuses_an_empty_plan(cache: ToolCache) -> None:
    with pytest.raises(PlanRejected, match=r"\[no-result\]"):
        admit("", cache)


def _poison(cache: ToolCache, task: str, source: str) -> None:
    cache.plans[plan_key(task, cache)] = {"task": task, "source": source, "cost": 1.0, "origin": "model"}


async def test_a_poisoned_plan_cache_entry_is_refused_naming_the_file_and_recompiled(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = make_cache()
    cache.save(tmp_path / "cache")  # a cache directory: plans.json beside the tools
    cache = ToolCache.load(tmp_path / "cache")
    task = "list the stores"
    _poison(cache, task, "result = open('/etc/passwd').read()")
    cache.save_part("plans")
    model = TestModel([f"```python\n{GOOD}\n```"])
    planner = Planner(model, cache, n=1, k=1)
    with caplog.at_level(logging.WARNING, logger="agentjit.planner.planner"):
        plan = await planner.compile(task)
    assert plan.origin == "model" and plan.source.strip() == GOOD and len(model.calls) == 1
    plans_file = str(tmp_path / "cache" / "plans.json")
    assert plans_file in caplog.text and "[forbidden]" in caplog.text
    [rejected] = planner.rejected
    assert plans_file in str(rejected) and rejected.line == 1
    # the entry on disk is the recompiled plan now
    stored = json.loads((tmp_path / "cache" / "plans.json").read_text())
    assert [e["source"].strip() for e in stored.values()] == [GOOD]


async def test_a_plan_cache_entry_invalid_for_the_current_tools_is_refused(tmp_path: Path) -> None:
    # stored under today's fingerprint but calling a tool the cache does not have
    cache = make_cache()
    cache.plans_path = tmp_path / "food-plans.json"
    _poison(cache, "t", "x = await delete_everything()\nresult = x")
    planner = Planner(TestModel([GOOD]), cache, n=1, k=1)
    assert planner.cached("t") is None
    assert "food-plans.json" in str(planner.rejected[0]) and "unknown-tool" in str(planner.rejected[0])
    assert plan_key("t", cache) not in cache.plans  # dropped


async def test_a_valid_plan_cache_entry_is_used_without_the_model(cache: ToolCache) -> None:
    _poison(cache, "t", GOOD)
    model = TestModel([GOOD])
    plan = await Planner(model, cache, n=1, k=1).compile("t")
    assert plan.origin == "cache" and model.calls == []
