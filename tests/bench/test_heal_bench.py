"""``agentjit bench heal --model``: on the redesigned site a broken tool's call falls back to the stepwise agent, the
task passes anyway, heal repairs the tool, and the next run needs no fallback and no model call (issue 21). The
model is a loopback fake OpenAI server over real HTTP; the food app, the redesign proxy and Chromium are real."""

from __future__ import annotations

import json

import pytest

from agentjit.cli import main as agentjit_main
from agentjit.testing import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.browser


def light_and_fresh(food_site, tmp_path, capsys) -> dict:
    """The stores of a section on the site as it is (the bundled cache, no model): what the fallback's agent answers."""
    plan = tmp_path / "stores.py"
    plan.write_text('result = await list_stores(section="Light & fresh")')
    assert agentjit_main(["run", str(plan), "--site", food_site.url, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["value"]


def test_run_1_falls_back_and_passes_then_the_healed_run_needs_no_model(food_site, tmp_path, monkeypatch,
                                                                        capsys) -> None:  # fmt: skip
    answer = light_and_fresh(food_site, tmp_path, capsys)
    assert len(answer["items"]) >= 2
    done = json.dumps({"action": "done", "answer": answer})
    with FakeOpenAIServer([FakeReply(text=done)] * 4) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        argv = ["bench", "heal", "--app", "food", "--only", "food-v1-3", "--seed", "7", "--rounds", "3",
                "--model", "openai:fake", "--json"]  # fmt: skip
        assert agentjit_main(argv) == 0
        report = json.loads(capsys.readouterr().out)
    assert report["model"] and report["original"]["passed"] == 1
    first, *later = report["rounds"]
    # run 1: the redesign broke list_stores; its call fell back, one model call, and the task passed anyway
    assert first["passed"] == 1 and first["suspects"] == ["list_stores"], first
    assert [f["tool"] for f in first["fallbacks"]["food-v1-3"]] == ["list_stores"]
    assert first["fallback_calls"] == 1 and first["fallback_model_calls"] == 1
    assert first["healed"] == ["list_stores"] and first["site_unchanged_by_heal"] is True
    # run 2, on the healed cache: the task passes with no fallback, and the model was asked once in all
    assert len(later) == 1 and later[0]["passed"] == 1 and later[0]["fallback_calls"] == 0, later
    assert len(server.requests) == 1


def test_an_unknown_task_is_named(capsys) -> None:
    assert agentjit_main(["bench", "heal", "--app", "food", "--only", "food-v9-9", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["message"] == "no task food-v9-9 with a plan in app food"


def test_heal_in_run_passes_run_1_with_no_model(capsys) -> None:
    """``--heal-in-run``: run 1 heals the tool the redesign broke where it finds it and passes; no heal between the
    runs is needed, and run 2 needs nothing."""
    argv = ["bench", "heal", "--app", "food", "--only", "food-v1-3", "--seed", "7", "--rounds", "3", "--heal-in-run",
            "--json"]  # fmt: skip
    assert agentjit_main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] is None and report["original"]["passed"] == 1
    first, *later = report["rounds"]
    assert first["passed"] == 1 and first["healed_calls"] == 1 and first["fallback_calls"] == 0, first
    assert [(h["tool"], h["healed"]) for h in first["healed_in_run"]] == [("list_stores", True)]
    assert first["suspects"] == [] and "healed" not in first  # nothing left for a heal between the runs
    assert len(later) == 1 and later[0]["passed"] == 1 and later[0]["healed_calls"] == 0, later
    assert later[0]["healed_in_run"] == [] and report["tools_healed"] == ["list_stores"]
