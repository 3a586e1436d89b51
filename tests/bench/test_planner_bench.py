"""``agentjit bench planner``: the loopback fake server replays a model's answers; the plans run in Chromium.

The answers (``data/planner_answers.json``, its ``note`` says where they come from): a first plan the checker refuses, then its
repair. The bench reports per task what the compile did and whether the site's judge found it right.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentjit.bench.planner_bench import planner_rows, planner_summary
from agentjit.cli import main
from agentjit.testing import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.browser

ANSWERS = json.loads((Path(__file__).parent / "data" / "planner_answers.json").read_text())


def test_bench_planner_reports_candidates_repairs_calls_and_the_judge(capsys, monkeypatch) -> None:
    task = ANSWERS["task"]
    replies = [FakeReply(text=a["text"], usage=tuple(a["usage"])) for a in ANSWERS["answers"]]
    with FakeOpenAIServer(replies) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code = main(["bench", "planner", "--json", "--latency-scale", "0", "--only", task, "--samples", "1", "-k", "1",
                     "--model", f"openai:{ANSWERS['model']}@{server.base_url}"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    [row] = data["tasks"]
    assert code == 0 and row["right"], row
    assert row["candidates"] == 2 and row["valid"] == 1 and row["static_repairs"] == 1 and row["run_repairs"] == 0
    assert row["model_calls"] == 2 == len(server.requests)
    assert row["input_tokens"] == sum(a["usage"][0] for a in ANSWERS["answers"])
    assert row["findings"] == {ANSWERS["first_finding"]: 1}
    assert row["pass_at_1"] == 1.0 and row["compile_s"] > 0
    s = data["summary"]
    assert (s["tasks"], s["right"], s["valid_rate"], s["model_calls"]) == (1, 1, 0.5, 2)
    # the sources: the plan that ran, and each candidate's with what the checker found in it
    first, repaired = (_fenced(a["text"]) for a in ANSWERS["answers"])
    assert row["plan"] == repaired and row["run_failures"] == []
    assert [(p["source"], p["valid"], p["attempt"]) for p in row["plans"]] == [(first, False, 0), (repaired, True, 1)]
    findings = row["plans"][0]["diagnostics"]  # item.name and item.rating of a field name
    assert {(f["code"], f["line"]) for f in findings} == {(ANSWERS["first_finding"], 3)}, findings
    assert any("'name'" in f["message"] for f in findings) and any("'rating'" in f["message"] for f in findings)
    assert row["plans"][1]["diagnostics"] == [] and row["plans"][1]["run_error"] is None


def _fenced(text: str) -> str:
    """The code inside an answer's python fence, as the planner extracts it."""
    return text.split("```python\n", 1)[1].rsplit("```", 1)[0]


def test_bench_planner_keeps_the_source_and_error_of_a_plan_that_failed_when_it_ran(capsys, monkeypatch) -> None:
    """A plan the checker passes that fails when it runs (an index past the list's end, before any WRITE): the
    row keeps its source and run-time error beside the repaired plan that ran last."""
    from agentjit.tasks.apps import get_app

    reference = get_app("food").task("food-v1-1").reference_plan.read_text()
    broken = reference + "result = names[7]\n"
    replies = [FakeReply(text=f"```python\n{src}```", usage=(900, 40)) for src in (broken, reference)]
    with FakeOpenAIServer(replies) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code = main(["bench", "planner", "--json", "--latency-scale", "0", "--only", "food-v1-1", "--samples", "1",
                     "-k", "1", "--model", f"openai:fake@{server.base_url}"])  # fmt: skip
    [row] = json.loads(capsys.readouterr().out)["tasks"]
    assert code == 0 and row["right"] and row["run_repairs"] == 1, row
    assert row["plan"] == reference
    [failure] = row["run_failures"]
    assert failure["source"] == broken and "IndexError" in failure["error"] and "names[7]" in failure["error"]
    ran, repaired = row["plans"]
    assert (ran["source"], ran["valid"], ran["run_round"], ran["run_error"]) == (broken, True, 0, failure["error"])
    assert (repaired["source"], repaired["run_round"], repaired["run_error"]) == (reference, 1, None)


class _Res:
    def __init__(self, id: str, ok: bool, origin: str = "model", run_rounds: list | None = None) -> None:
        self.id, self.ok, self.plan_origin, self.reason, self.run_rounds = id, ok, origin, "", run_rounds or []


def _cand(worker: int, attempt: int, valid: bool, run_round: int = 0) -> dict:
    return {"worker": worker, "attempt": attempt, "valid": valid, "run_round": run_round,
            "codes": [] if valid else ["unknown-field"]}  # fmt: skip


def test_rows_count_chains_repairs_and_run_time_repairs() -> None:
    reports = {
        "a": {"model_calls": 4, "input_tokens": 10, "output_tokens": 5, "time_s": 3.0, "plan": "first",
              "candidates": [_cand(0, 0, False), _cand(1, 0, False), _cand(0, 1, True), _cand(1, 1, False)],
              "run_repairs": [{"model_calls": 1, "input_tokens": 1, "output_tokens": 1, "time_s": 1.0, "plan": "again",
                               "candidates": [_cand(0, 0, True, run_round=1)]}]},
        "b": None,  # did not compile: no report
    }  # fmt: skip
    rows = planner_rows([_Res("a", True, run_rounds=[{"round": 0}]), _Res("b", False, "none")], reports, k=2)
    a, b = rows
    assert (a["candidates"], a["valid"], a["static_repairs"], a["run_repairs"], a["model_calls"]) == (5, 2, 2, 1, 5)
    assert a["chains"] == 2 and a["pass_at_1"] == 0.5 and a["pass_at_k"] == 1.0 and a["compile_s"] == 4.0
    assert b["candidates"] == 0 and b["pass_at_1"] == 0.0 and b["valid_rate"] is None
    assert (a["plan"], b["plan"], len(a["plans"]), b["plans"]) == ("again", None, 5, [])  # the plan that ran last
    s = planner_summary(rows, k=2)
    assert (s["right"], s["compiled"], s["valid_rate"], s["findings"]) == (1, 1, 0.4, {"unknown-field": 3})
