"""The end-to-end bench: one task through the CLI (agent, agentjit, plan-cache hit), and its arithmetic."""

from __future__ import annotations

import json

import pytest

from agentjit.bench.e2e import E2EReport, E2ERun, E2ETask, _summarize, _summarize_task
from agentjit.cli import main


def test_bench_e2e_json_one_task(capsys, tmp_path):
    out_file = tmp_path / "e2e.json"
    code = main([
        "bench", "e2e", "--app", "food", "--only", "food-custom-7", "-R", "1", "--latency-scale", "0",
        "--llm-profile", "gpt-4.1", "--llm-scale", "0.01", "--out", str(out_file), "--json",
    ])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert json.loads(out_file.read_text()) == data
    assert data["profile"]["name"] == "gpt-4.1x0.01" and data["profile"]["source"]
    [task] = data["tasks"]
    by_side = {r["side"]: r for r in task["runs"]}
    assert set(by_side) == {"agent", "agentjit", "agentjit-cached"}
    assert all(r["ok"] for r in task["runs"]), [r["reason"] for r in task["runs"]]
    assert by_side["agent"]["model_calls"] == 2 and by_side["agent"]["steps"] == 2
    assert by_side["agentjit"]["model_calls"] == 1 and by_side["agentjit"]["input_tokens"] > 500
    assert by_side["agentjit-cached"]["model_calls"] == 0 and by_side["agentjit"]["strategy"]
    s = data["summary"]
    assert s["passed"] == {"agent": 1, "agentjit": 1, "agentjit-cached": 1}
    assert [row["per_call_s"] for row in data["sweep"]][0] == 0.0 and data["sweep"][-1]["per_call_s"] == 8.0


def _run(side: str, latency: float, model_s: float, calls: int) -> E2ERun:
    return E2ERun(side=side, run=0, ok=True, latency_s=latency, model_s=model_s, model_calls=calls)


def test_speedups_and_the_sweep():
    tasks = [
        E2ETask(id="a", kind="read", runs=[_run("agent", 10, 8, 4), _run("agentjit", 4, 2, 1), _run("agentjit-cached", 2, 0, 0)]),
        E2ETask(id="b", kind="read", runs=[_run("agent", 2, 1, 1), _run("agentjit", 2, 1, 1), _run("agentjit-cached", 1, 0, 0)]),
    ]
    for t in tasks:
        _summarize_task(t)
    report = E2EReport(app="x", profile={}, runs=1, tasks=tasks)
    _summarize(report, [0.0, 2.0])
    s = report.summary
    assert s["speedup_ratio_of_means"] == pytest.approx(12 / 6)
    assert s["speedup_geomean"] == pytest.approx((2.5 * 1.0) ** 0.5)
    assert s["model_share"]["agent"] == pytest.approx(9 / 12)
    zero, two = report.sweep
    # at 0 s a call: the non-model time only (2 + 1 against 2 + 1)
    assert zero["agent_mean_s"] == pytest.approx(1.5) and zero["agentjit_mean_s"] == pytest.approx(1.5)
    # at 2 s a call: agent 2+8 and 1+2, agentjit 2+2 and 1+2
    assert two["speedup_ratio_of_means"] == pytest.approx(13 / 7)
    # whatever a call costs, the ratio of means stays between 3/3 (no model time) and 5/2 (calls only)
    lim = s["speedup_limits"]
    assert lim["free_calls"] == pytest.approx(1.0) and lim["slow_calls"] == pytest.approx(2.5) and lim["max"] == pytest.approx(2.5)
    assert lim["free_calls_cached"] == pytest.approx(3 / 3) and lim["slow_calls_cached"] is None and lim["max_cached"] is None
    for per_call in (0.0, 0.5, 3.0, 50.0, 1e6):
        _summarize(report, [per_call])
        assert lim["free_calls"] - 1e-9 <= report.sweep[0]["speedup_ratio_of_means"] <= lim["max"] + 1e-9


async def test_a_given_model_drives_both_sides(browser_pool):
    """With ``model=`` (a real provider in use) the agent and the planner both ask it; no oracle, no reference."""
    from agentjit.agent import SYSTEM_PROMPT
    from agentjit.bench.e2e import run_e2e
    from agentjit.bench.food.tasks import TASKS
    from agentjit.llm import FunctionModel

    task = next(t for t in TASKS if t.id == "food-v1-1")
    asked = {"agent": 0, "planner": 0}

    def fn(messages):
        if messages[0].content == SYSTEM_PROMPT:
            asked["agent"] += 1
            return json.dumps({"action": "done", "answer": ", ".join(task.expected)})
        asked["planner"] += 1
        return "```python\n" + task.plan_source() + "\n```"

    report = await run_e2e(
        "food", task_ids=["food-v1-1"], model=FunctionModel(fn, name="stand-in"), profile="none",
        latency_scale=0, pool=browser_pool,
    )  # fmt: skip
    assert report.model == "stand-in" and report.profile["name"] == "none"
    assert asked == {"agent": 1, "planner": 1}
    assert report.summary["passed"] == {"agent": 1, "agentjit": 1, "agentjit-cached": 1}
