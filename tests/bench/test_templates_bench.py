"""``agentjit bench templates`` on the food app: literal variants hit their template, near misses do not."""

from __future__ import annotations

import json

import pytest

from agentjit.cli import main
from agentjit.runtime import BrowserPool


def test_variants_hit_and_near_misses_do_not(capsys) -> None:
    assert main(["bench", "templates", "--apps", "food", "--variants", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    s = data["summary"]
    assert s["tasks_with_template"] >= 10 and s["variants"] >= 15
    assert s["variant_hit_rate"] >= 0.8 and s["model_calls_on_hits"] == 0
    assert s["near_misses"] >= 30 and s["near_miss_hits"] == 0 and data["apps"]["food"]["near_miss_hits"] == 0
    near = [p for p in data["probes"] if p["kind"] == "near_miss"]
    hows = " ".join(p["how"] for p in near)
    for kind in ("meaning:", "target:", "clause added", "not a number", "outside the enum", "two values", "two names"):
        assert kind in hows, kind
    assert all(p["model_calls"] >= 1 and p["origin"] == "model" for p in near)
    assert main(["bench", "templates", "--apps", "nowhere"]) == 2


def test_roundup_judges_read_their_values_from_the_task() -> None:
    from types import SimpleNamespace

    from agentjit.bench.roundup import judges as J

    task = SimpleNamespace(task="Log in as alice (password demo-pass-1) and set the status of 'Spell checker flags URLs' to need-eg.")
    assert J._from_task(task, r"status of '(.+?)' to ([\w-]+)", ("x", "y")) == ("Spell checker flags URLs", "need-eg")
    assert J._from_task(SimpleNamespace(task="something else"), r"status of '(.+?)'", ("x",)) == ("x",)
    assert getattr(J.set_status, "reads_task", False) and not getattr(J.unassigned_count, "reads_task", False)


@pytest.mark.browser
async def test_e2e_variants_mode_compiles_the_variant_from_the_template(browser_pool: BrowserPool) -> None:
    pytest.importorskip("roundup")
    from agentjit.bench.e2e import run_e2e

    report = await run_e2e("roundup", task_ids=["issue-status"], profile="none", latency_scale=0, pool=browser_pool,
                           variants=True)  # fmt: skip
    [task] = report.tasks
    assert task.variant is not None and "Calendar shows the wrong week" not in task.variant
    [run] = [r for r in task.runs if r.side == "agentjit-template"]
    assert run.plan_origin == "template" and run.model_calls == 0 and run.ok, run.reason
    v = report.summary["variants"]
    assert v["tasks"] == 1 and v["template_hits"] == 1 and v["passed"]["agentjit-template"] == 1
    assert v["speedup_template_hit"] is not None and v["model_calls_per_task"]["agentjit-template"] == 0
