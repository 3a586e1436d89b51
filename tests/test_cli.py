"""The agentjit command line, in-process, with --json output."""

import json

import pytest

from agentjit.cli import main
from agentjit.testing import FakeOpenAIServer, FakeReply


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, out


def test_tools_json(capsys):
    code, out = run_cli(capsys, "tools", "--app", "food", "--json")
    tools = json.loads(out)
    assert code == 0 and len(tools) >= 12
    assert {"name", "pre", "post", "effect", "execute", "input_schema", "output_schema"} <= set(tools[0])
    assert {t["effect"] for t in tools} == {"READ", "WRITE"}


def test_tasks_json(capsys):
    code, out = run_cli(capsys, "tasks", "--app", "food", "--json")
    tasks = json.loads(out)
    assert code == 0 and len(tasks) >= 12
    assert all(set(t) == {"id", "task", "kind", "reference_plan"} for t in tasks)
    assert {t["kind"] for t in tasks} == {"read", "write"}


def test_check_reference_plan_and_a_bad_one(capsys, tmp_path):
    code, out = run_cli(capsys, "tasks", "--app", "food", "--json")
    first = json.loads(out)[0]["reference_plan"]
    code, out = run_cli(capsys, "check", first, "--app", "food", "--json")
    report = json.loads(out)
    assert code == 0 and report["valid"] and report["cost"] > 0 and report["diagnostics"] == []
    bad = tmp_path / "bad.py"
    bad.write_text("x = await list_menu_items()\nresult = x.items")
    code, out = run_cli(capsys, "check", str(bad), "--app", "food", "--json")
    report = json.loads(out)
    assert code == 1 and not report["valid"]
    assert [(d["code"], d["line"]) for d in report["diagnostics"]] == [("precondition", 1)]


PLAN = 'await goto_home()\nstores = await list_stores(section="Best near you", limit=3)\nresult = [s.name for s in stores.items]'


def test_compile_through_openai_base_url(capsys, tmp_path, monkeypatch):
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```", usage=(1234, 56))] * 4) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, out = run_cli(
            capsys, "compile", "first three stores in Best near you", "--model", "openai:fake-model",
            "-n", "1", "-k", "1", "--plan-cache", str(tmp_path / "plans.json"), "--json",
        )
        data = json.loads(out)
        assert code == 0 and data["plan"].strip() == PLAN and data["origin"] == "model"
        assert data["tokens"] == {"input": 1234, "output": 56}
        assert len(server.requests) == 1
        # the second time comes from the plan cache, with no request
        code, out = run_cli(
            capsys, "compile", "First three stores in  Best near you.", "--model", "openai:fake-model",
            "--plan-cache", str(tmp_path / "plans.json"), "--json",
        )
        assert json.loads(out)["origin"] == "cache" and len(server.requests) == 1


def test_run_plan_file_json(capsys, tmp_path):
    plan = tmp_path / "plan.py"
    plan.write_text(PLAN)
    code, out = run_cli(capsys, "run", str(plan), "--app", "food", "--json", "--trace-dir", str(tmp_path / "traces"))
    data = json.loads(out)
    assert code == 0 and len(data["value"]) == 3 and data["tool_calls"] == 2 and data["strategy"] == "serial"
    assert (tmp_path / "traces").exists() and data["trace"].endswith(".jsonl")


def test_run_reports_errors_clearly(capsys, tmp_path):
    plan = tmp_path / "plan.py"
    plan.write_text("import os\nresult = 1")
    assert main(["run", str(plan), "--app", "food"]) == 1  # refused by the checker's gate (exit codes: README)
    assert "PlanRejected: line 1: rejected by the checker: [forbidden]" in capsys.readouterr().err


@pytest.mark.parametrize("scale", [0.0])
def test_demo_json_subset(capsys, scale):
    code, out = run_cli(
        capsys, "demo", "--json", "--latency-scale", str(scale), "--tasks", "food-v1-1,food-v2-10", "--strategy", "serial"
    )
    data = json.loads(out)
    assert code == 0
    assert sorted(t["id"] for t in data["tasks"]) == ["food-v1-1", "food-v2-10"]
    assert all(t["ok"] and t["plan_origin"] == "reference" and t["strategy"] == "serial" for t in data["tasks"])
    assert data["summary"]["passed"] == 2 and data["summary"]["browser"].startswith("Chromium")
    assert {"id", "ok", "latency_s", "tool_calls", "writes", "strategy"} <= set(data["tasks"][0])


def _reference_plan(task_id):
    from agentjit.tasks.apps import get_app

    return str(get_app("food").task(task_id).reference_plan)


def test_schedule_json_on_reference_plans(capsys):
    code, out = run_cli(capsys, "schedule", _reference_plan("food-custom-9"), "--app", "food", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"strategy", "workers", "estimates", "win_rates", "decision_time_s", "reason", "candidates"} <= set(data)
    assert set(data["estimates"]) == {"serial", "parallel", "hedge"}
    assert all({"mean", "p50", "p95", "workers"} <= set(e) for e in data["estimates"].values())
    assert data["missing_latency"] == []  # the bundled latency.json prices every tool it calls
    # five slow store visits in a map-shaped loop: fan out
    assert data["strategy"] == "parallel" and data["workers"] >= 2
    assert data["estimates"]["parallel"]["mean"] < data["estimates"]["serial"]["mean"]
    assert 0 < data["decision_time_s"] < 1
    assert abs(sum(data["win_rates"].values()) - 1) < 1e-9

    # one tight store page: once an extra context costs what it does on this machine, serial
    code, out = run_cli(capsys, "schedule", _reference_plan("food-custom-1"), "--app", "food", "--startup-s", "1", "--json")
    small = json.loads(out)
    assert code == 0 and small["strategy"] == "serial" and small["workers"] == 1
    assert "parallel" not in small["estimates"] and "no loop" in small["reason"]

    code, out = run_cli(capsys, "schedule", _reference_plan("food-v1-1"), "--app", "food", "--objective", "p95")
    assert code == 0 and "choice: " in out and "objective p95" in out


def test_run_strategy_auto_uses_the_schedule(capsys):
    code, out = run_cli(capsys, "run", _reference_plan("food-custom-9"), "--app", "food", "--strategy", "auto", "--json")
    data = json.loads(out)
    assert code == 0 and data["strategy"] == "parallel" and data["workers"] >= 2
    assert "Popeyes" in data["value"] or "$" in data["value"]


def test_demo_strategy_auto_schedules_each_task(capsys):
    code, out = run_cli(
        capsys, "demo", "--json", "--latency-scale", "0", "--strategy", "auto", "--tasks", "food-custom-3,food-custom-9"
    )
    data = json.loads(out)
    by_id = {t["id"]: t for t in data["tasks"]}
    assert code == 0 and all(t["ok"] for t in data["tasks"])
    # a search before the first WRITE: hedged (and still exactly one order, or the judge fails)
    assert by_id["food-custom-3"]["strategy"] == "hedge" and by_id["food-custom-3"]["workers"] >= 2
    assert by_id["food-custom-9"]["strategy"] == "parallel" and by_id["food-custom-9"]["workers"] >= 2


def test_profile_writes_to_a_cache_copy(capsys, tmp_path):
    import shutil

    from agentjit.bench.food import CACHE_DIR

    copy = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, copy)
    (copy / "latency.json").unlink(missing_ok=True)
    bundled = (CACHE_DIR / "latency.json").read_bytes()
    code, out = run_cli(
        capsys, "profile", "--app", "food", "--cache", str(copy), "--tasks", "food-v1-3", "--repeats", "1",
        "--latency-scale", "0", "--write", "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["runs"] == 1 and data["failures"] == []
    assert data["written"] == str(copy / "latency.json")
    written = json.loads((copy / "latency.json").read_text())
    assert written["list_stores"]["n"] == 1 and written["list_stores"]["family"] == "empirical"
    assert (CACHE_DIR / "latency.json").read_bytes() == bundled
    # the machine's browser-context overheads are measured and kept with the cache; the scheduler reads them
    machine = json.loads((copy / "machine.json").read_text())
    assert machine == data["overheads"] and machine["measured"] and machine["busy_s"] >= 0 and machine["cpus"] >= 1
    assert machine["new_context_s"] > 0 and machine["contention"] == 0
    from agentjit.cache import ToolCache
    from agentjit.scheduler import load_overheads

    assert load_overheads(ToolCache.load(copy)).busy_s == machine["busy_s"]
    assert not (CACHE_DIR / "machine.json").exists()
    # without --write nothing is written
    (copy / "latency.json").unlink()
    code, out = run_cli(
        capsys, "profile", "--app", "food", "--cache", str(copy), "--tasks", "food-v1-3", "--repeats", "1",
        "--latency-scale", "0", "--json",
    )
    assert code == 0 and json.loads(out)["written"] is None and not (copy / "latency.json").exists()


def test_batch_compiles_with_a_model_before_running(capsys, tmp_path, monkeypatch):
    from agentjit.tasks.apps import get_app

    plans = {t: get_app("food").task(t).reference_plan.read_text() for t in ("food-v1-1", "food-v1-3")}
    replies = [FakeReply(text=f"```python\n{plans[t]}```", usage=(900, 40)) for t in ("food-v1-1", "food-v1-3")]
    with FakeOpenAIServer(replies) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, out = run_cli(
            capsys, "batch", "--json", "--latency-scale", "0", "--only", "food-v1-1,food-v1-3", "--strategy", "serial",
            "--model", f"openai:fake@{server.base_url}", "-n", "1", "-k", "1", "--plan-cache", str(tmp_path / "p.json"),
        )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and len(server.requests) == 2, data
    assert [(t["ok"], t["plan_origin"]) for t in data["tasks"]] == [(True, "model")] * 2
    assert data["summary"]["compile_s"] > 0


def test_demo_compiles_with_a_model_then_uses_the_plan_cache(capsys, tmp_path, monkeypatch):
    from agentjit.tasks.apps import get_app

    task = get_app("food").task("food-v1-1")
    plan = task.reference_plan.read_text()
    plans = str(tmp_path / "plans.json")
    with FakeOpenAIServer([FakeReply(text=f"```python\n{plan}```", usage=(900, 40))] * 8) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        model = f"openai:fake@{server.base_url}"
        args = ("demo", "--json", "--latency-scale", "0", "--tasks", "food-v1-1", "--model", model, "-n", "1", "-k", "1", "--plan-cache", plans)
        code, out = run_cli(capsys, *args)
        first = json.loads(out)["tasks"][0]
        assert code == 0 and first["ok"] and first["plan_origin"] == "model" and len(server.requests) == 1
        # what the compile did: one call, its tokens, its one candidate (valid, no findings)
        report = first["compile"]
        assert report["model_calls"] == 1 and report["input_tokens"] == 900 and report["output_tokens"] == 40
        assert [(c["valid"], c["codes"]) for c in report["candidates"]] == [(True, [])] and first["run_rounds"] == []
        code, out = run_cli(capsys, *args)
        second = json.loads(out)["tasks"][0]
        assert second["ok"] and second["plan_origin"] == "cache" and len(server.requests) == 1
