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
    assert main(["run", str(plan), "--app", "food"]) == 2
    assert "SandboxViolation" in capsys.readouterr().err


@pytest.mark.parametrize("scale", [0.0])
def test_demo_json_subset(capsys, scale):
    code, out = run_cli(capsys, "demo", "--json", "--latency-scale", str(scale), "--tasks", "food-v1-1,food-v2-10")
    data = json.loads(out)
    assert code == 0
    assert sorted(t["id"] for t in data["tasks"]) == ["food-v1-1", "food-v2-10"]
    assert all(t["ok"] and t["plan_origin"] == "reference" and t["strategy"] == "serial" for t in data["tasks"])
    assert data["summary"]["passed"] == 2 and data["summary"]["browser"].startswith("Chromium")
    assert {"id", "ok", "latency_s", "tool_calls", "writes", "strategy"} <= set(data["tasks"][0])
