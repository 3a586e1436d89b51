"""The session: one walk from a task to the browser, each part made once (issue 11).

The walk test runs ``agentjit run --task`` in-process with a fake model
server and counts, at every place they are bound, the loads of the tool
cache, the plan usage analyses and the argument validations. A second load,
a second analysis (the parallel strategy analysing the plan the scheduler
already read) or a second validation of a call (the interpreter's and
``call_tool``'s) makes it fail.
"""

from __future__ import annotations

import ast
import functools
import json
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import agentjit.protocol.schema
import agentjit.scheduler.usage
from agentjit.bench.food import CACHE_DIR
from agentjit.cache import ToolCache
from agentjit.cli import main
from agentjit.planner import CompiledPlan
from agentjit.runtime import HedgeStrategy, ParallelStrategy
from agentjit.session import Session, open_cache, runtime_strategy
from agentjit.tasks.apps import get_app
from agentjit.testing import FakeOpenAIServer, FakeReply, TestModel

APP = get_app("food")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count calls of ``ToolCache.load``, ``plan_usage`` and ``validate_inputs`` wherever they are bound."""
    counts: Counter[str] = Counter()

    def counting(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    for name, fn in (
        ("plan_usage", agentjit.scheduler.usage.plan_usage),
        ("validate_inputs", agentjit.protocol.schema.validate_inputs),
    ):
        wrapped = counting(name, fn)
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("agentjit") and vars(module).get(name) is fn:
                monkeypatch.setattr(module, name, wrapped)
    monkeypatch.setattr(ToolCache, "load", classmethod(counting("ToolCache.load", ToolCache.load.__func__)))
    return counts


def test_run_task_loads_the_cache_once_analyses_the_plan_once_validates_each_call_once(
    counted: Counter[str], capsys: pytest.CaptureFixture[str], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = APP.task("food-custom-9")  # five stores in a loop: the scheduler picks parallel on the bundled fits
    plan = task.plan_source()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # the bundled fits, not this user's
    with FakeOpenAIServer([FakeReply(text=f"```python\n{plan}\n```", usage=(100, 10))]) as server:
        code = main([
            "run", "--task", task.task, "--model", f"openai:m@{server.base_url}", "-n", "1", "-k", "1",
            "--plan-cache", str(tmp_path / "plans.json"), "--latency-scale", "0", "--json",
        ])  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        assert len(server.requests) == 1
    data = json.loads(out)
    assert data["plan_origin"] == "model" and data["strategy"] == "parallel" and data["workers"] >= 2
    assert task.judge(data["value"], {}, {}).ok
    assert counted["ToolCache.load"] == 1  # the cache, loaded once for compile, gate, schedule and run
    assert counted["plan_usage"] == 1  # the scheduler's analysis is the one the parallel cut uses
    assert data["tool_calls"] >= 10
    assert counted["validate_inputs"] == data["tool_calls"]  # once per tool call, on every worker


def test_run_task_parses_the_plan_once(tmp_path: Any, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's checker, the gate, the usage analysis and the run share one parsed Plan (issue 20)."""
    task = APP.task("food-custom-9")
    plan = task.plan_source()
    parses: Counter[str] = Counter()
    real = ast.parse

    def counting_parse(source: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(source, str) and source.strip() == plan.strip():
            parses["plan"] += 1
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting_parse)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    with FakeOpenAIServer([FakeReply(text=f"```python\n{plan}\n```", usage=(100, 10))]) as server:
        code = main([
            "run", "--task", task.task, "--model", f"openai:m@{server.base_url}", "-n", "1", "-k", "1",
            "--plan-cache", str(tmp_path / "plans.json"), "--latency-scale", "0", "--json",
        ])  # fmt: skip
        out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["strategy"] == "parallel"  # compile, gate, usage, the parallel cut and the run
    assert parses["plan"] == 1  # was 4: the planner's check, the gate's, the usage analysis, the runtime


def test_a_plan_from_the_plan_cache_is_checked_again_on_the_same_tree(tmp_path: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import agentjit.planner.checker

    cache = open_cache(CACHE_DIR, read_only=True, plans_file=tmp_path / "plans.json")
    session = Session(cache, model=TestModel(["result = 1"]))  # never asked: the plan is cached
    task = APP.task("food-custom-1")
    session.planner.store(CompiledPlan(task=task.task, source=task.plan_source()))
    checked: list[Any] = []
    real = agentjit.planner.checker.check_tree

    def check_tree(tree: Any, *args: Any, **kwargs: Any) -> Any:
        checked.append(tree)
        return real(tree, *args, **kwargs)

    monkeypatch.setattr(agentjit.planner.checker, "check_tree", check_tree)
    cached = session.planner.cached(task.task)
    assert cached is not None and len(checked) == 1  # checked against the current tools: a security property
    prepared = session.prepare(cached.plan, strategy="serial")
    assert prepared.plan is cached.plan and prepared.plan.tree is checked[0]


def test_prepare_hands_the_schedules_usage_to_the_parallel_strategy(counted: Counter[str]) -> None:
    session = Session(CACHE_DIR)
    assert counted["ToolCache.load"] == 0  # loaded on first use
    prepared = session.prepare(APP.task("food-custom-9").plan_source(), strategy="auto")
    assert prepared.schedule is not None and prepared.schedule.strategy == "parallel"
    assert isinstance(prepared.strategy, ParallelStrategy)
    assert prepared.strategy.usage is prepared.usage is prepared.schedule.usage
    assert prepared.strategy.workers == prepared.schedule.workers
    session.prepare(APP.task("food-custom-9").plan_source(), strategy="parallel")  # the same text: not read again
    assert counted["plan_usage"] == 1 and counted["ToolCache.load"] == 1
    serial = session.prepare(APP.task("food-custom-1").plan_source(), strategy="serial")
    assert serial.strategy == "serial" and serial.usage is None and counted["plan_usage"] == 1  # serial reads none


def test_runtime_strategy_is_the_session_layers(food_cache: ToolCache) -> None:
    session = Session(food_cache)
    three = session.schedule(APP.task("food-custom-3").plan_source())
    hedge = runtime_strategy(three)
    assert three.strategy == "hedge" and isinstance(hedge, HedgeStrategy) and hedge.replicas == three.workers
    from agentjit.bench.scheduler_bench import runtime_strategy as bench_name

    assert bench_name is runtime_strategy  # the bench re-exports it; nothing resolves schedules there


def test_an_unknown_strategy_is_a_config_error(food_cache: ToolCache) -> None:
    from agentjit.exceptions import ConfigError

    with pytest.raises(ConfigError, match="unknown strategy 'fastest'"):
        Session(food_cache).prepare("result = 1", strategy="fastest")


def test_open_cache_read_only_keeps_plans_and_fits_outside_the_directory(tmp_path: Any) -> None:
    plans = tmp_path / "plans.json"
    plans.write_text('{"k": {"task": "t"}}')
    latency = tmp_path / "latency.json"
    latency.write_text("[1]")
    warnings: list[str] = []
    cache = open_cache(CACHE_DIR, read_only=True, plans_file=plans, latency_file=latency, warn=warnings.append)
    assert cache.path is None and cache.plans_path == plans and cache.plans == {"k": {"task": "t"}}
    assert cache.latency  # the bundled fits stay: the user's file is not an object
    assert warnings == [f"ignoring latency fits {latency}: not a JSON object"]


async def test_a_session_keeps_one_browser_for_many_runs(food_site: Any, counted: Counter[str]) -> None:
    async with Session(CACHE_DIR, site_url=food_site.url) as session:
        pool = session.pool
        assert pool is not None
        fries = await session.run(APP.task("food-custom-9").plan_source())  # strategy auto
        one = await session.run("await goto_home()\nresult = 1", strategy="hedge")
        assert session.pool is pool and session.runtime().pool is pool
    assert session.pool is None  # closed with the session
    assert fries.strategy == "parallel" and fries.strategy_reason and fries.strategy_reason.startswith("parallel x")
    assert one.strategy == "hedge" and one.value == 1
    assert counted["ToolCache.load"] == 1 and counted["plan_usage"] == 1  # hedge by name reads no usage
