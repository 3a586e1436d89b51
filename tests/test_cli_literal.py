"""Every command prints plans, tasks, results, paths and site text literally: no Rich markup is parsed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.cli import main
from agentjit.testing import FakeOpenAIServer, FakeReply

PLAN = 'await goto_home()\nstores = await list_stores(section="Best near you", limit=3)\nresult = [s.name for s in stores.items]'
MARKUP = "[red]hello[/red] [s.name] [bold]"


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out.replace("\n", ""), cap.err.replace("\n", "")


def test_compile_prints_the_plan_literally(capsys, tmp_path, monkeypatch) -> None:
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```", usage=(10, 5))]) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code = main(["compile", "first three stores", "--model", f"openai:fake@{server.base_url}", "-n", "1", "-k", "1",
                     "--plan-cache", str(tmp_path / "plans.json")])
    out = capsys.readouterr().out
    assert code == 0 and "result = [s.name for s in stores.items]" in out.splitlines()


def test_check_quotes_the_source_line_and_places_the_caret(capsys, tmp_path) -> None:
    plan = tmp_path / "p[red]x[b].py"
    plan.write_text("r = [[1], [2], await list_menu_items()]\nresult = r\n")
    code = main(["check", str(plan), "--app", "food"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0].startswith(f"{plan}:1:")
    source = next(i for i, ln in enumerate(lines) if ln.strip().startswith("r = "))
    assert lines[source] == "    r = [[1], [2], await list_menu_items()]"
    caret = lines[source + 1].index("^")
    assert lines[source][caret:].startswith("await list_menu_items") or lines[source][caret:].startswith("list_menu_items")


def test_run_prints_the_result_literally(capsys, tmp_path) -> None:
    plan = tmp_path / "plan.py"
    plan.write_text(f"result = {MARKUP!r}\n")
    code, out, _ = _out(capsys, "run", str(plan), "--app", "food", "--strategy", "serial")
    assert code == 0 and f"result: {MARKUP!r}" in out


def test_tools_prints_site_text_literally(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # captured output: the wide table, whatever the runner set
    cache = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache)
    tool = cache / "tools" / "list_stores.json"
    data = json.loads(tool.read_text())
    data["description"] = MARKUP
    tool.write_text(json.dumps(data))
    code, out, _ = _out(capsys, "tools", "--cache", str(cache))
    assert code == 0 and MARKUP in out


def test_tasks_and_demo_print_task_text_and_reasons_literally(capsys, tmp_path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t[b]1[/b]", "task": MARKUP, "plan": f"result = {MARKUP!r}", "answer": "[i]no[/i]"}) + "\n")
    code, out, _ = _out(capsys, "tasks", "--tasks", str(tasks))
    assert code == 0 and MARKUP in out and "t[b]1[/b]" in out
    code, out, err = _out(capsys, "demo", "--tasks", str(tasks), "--app", "food", "--latency-scale", "0", "--strategy", "serial")
    assert code == 1 and "t[b]1[/b]" in out and "t[b]1[/b]" in err and "[i]no[/i]" in err


def test_schedule_prints_the_plan_path_literally(capsys, tmp_path) -> None:
    plan = tmp_path / "p[red]x[b].py"
    plan.write_text(PLAN)
    code, out, _ = _out(capsys, "schedule", str(plan), "--app", "food", "--trials", "50")
    assert code == 0 and str(plan) in out


def test_toolcache_build_prints_trace_names_literally(capsys, tmp_path) -> None:
    from toolcache.cli import main as toolcache_main

    d = tmp_path / "t"
    d.mkdir()
    shutil.copy(Path(__file__).parent.parent / "traces" / "food" / "browse_category.jsonl", d / "good.jsonl")
    (d / "a[red]b[i].jsonl").write_text("{not json\n")
    code = toolcache_main(["build", str(d), "-o", str(tmp_path / "cache")])
    out = capsys.readouterr().out.replace("\n", "")
    assert code == 0 and "a[red]b[i].jsonl:1" in out
