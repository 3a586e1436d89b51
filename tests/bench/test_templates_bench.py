"""``agentjit bench templates`` on the food app: literal variants hit their template, near misses do not."""

from __future__ import annotations

import json

from agentjit.bench.templates_bench import measure_templates
from agentjit.cli import main


async def test_variants_hit_and_near_misses_do_not() -> None:
    bench = await measure_templates(["food"], variants=2)
    s = bench.summary()
    assert s["tasks_with_template"] >= 10 and s["variants"] >= 15
    assert s["variant_hit_rate"] >= 0.8 and s["model_calls_on_hits"] == 0
    assert s["near_misses"] >= 30 and s["near_miss_hits"] == 0
    hows = " ".join(p.how for p in bench.probes if p.kind == "near_miss")
    for kind in ("meaning:", "target:", "clause added", "not a number", "outside the enum", "two values", "two names"):
        assert kind in hows, kind
    assert all(p.model_calls >= 1 for p in bench.probes if p.kind == "near_miss")


def test_the_bench_command_reports_json(capsys) -> None:
    assert main(["bench", "templates", "--apps", "food", "--variants", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["near_miss_hits"] == 0 and data["apps"]["food"]["variants"] >= 10
    assert main(["bench", "templates", "--apps", "nowhere"]) == 2
