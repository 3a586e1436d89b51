"""``agentjit bench templates`` on the food app: literal variants hit their template, near misses do not."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agentjit.cli import main
from agentjit.planner.templates import Template
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


def test_literal_variants_only_name_values_the_site_has() -> None:
    """Against the food site's seed data: every variant the generator keeps is one its judge can answer, while
    the unchecked candidates include some it cannot (another store that lacks the item); a template whose
    every all-slots candidate names such a value still gets variants that change its other slots."""
    from agentjit.bench.templates_bench import literal_variants, seed_check, value_pool
    from agentjit.planner import make_template
    from agentjit.tasks.apps import get_app

    app = get_app("food")
    cache = app.load_cache()
    tasks = [t for t in app.tasks() if t.has_plan and t.judges_read_task]
    templates = {t.id: make_template(t.task, t.plan_source(), cache) for t in tasks}
    pool = value_pool(t for t in templates.values() if t is not None)
    site = app.site(latency_scale=0.0)
    site.start()
    try:
        site.reset()
        seeded = site.state()
        lacking, kept, rescued = 0, 0, 0
        for task in tasks:
            template = templates[task.id]
            if template is None:
                continue
            check = seed_check(task, seeded, site.url)
            assert check is not None
            raw = literal_variants(template, pool, limit=3)
            bad = [text for text, _ in raw if check(text)]
            lacking += len(bad)
            out = literal_variants(template, pool, limit=3, seed_lacks=check)
            for text, how in out:
                variant = dataclasses.replace(task, task=text)
                assert variant.seed_lacks(seeded, site.url) == "", (task.id, text)
                assert text != task.task and how
            kept += len(out)
            if raw and len(bad) == len(raw) and out:
                rescued += 1
                assert all(len(how.split(", ")) < len(template.slots) for _, how in out)
        assert lacking >= 3 and kept >= 15 and rescued >= 1
    finally:
        site.stop()


def test_literal_variants_fall_back_to_fewer_slots() -> None:
    """A check that refuses every other value of one slot leaves variants that keep that slot as written."""
    from agentjit.bench.templates_bench import _original_texts, literal_variants, value_pool
    from agentjit.planner import make_template
    from agentjit.tasks.apps import get_app

    app = get_app("food")
    cache = app.load_cache()
    templates = [make_template(t.task, t.plan_source(), cache) for t in app.tasks() if t.has_plan]
    pool = value_pool(t for t in templates if t is not None)
    tried = 0
    for template in templates:
        if template is None or len(template.slots) < 2:
            continue
        kept = template.slots[-1].name
        written = _original_texts(template)[kept]

        def slot_text(text: str, template: Template = template, kept: str = kept) -> str:
            m = template.pattern().match(text.rstrip(" .?!"))
            assert m is not None, text
            return m.group(kept)

        out = literal_variants(template, pool, limit=3,
                               seed_lacks=lambda text, w=written: "" if slot_text(text) == w else "refused")  # fmt: skip
        tried += 1
        assert out, template.task
        for text, how in out:
            assert slot_text(text) == written and f"{kept}=" not in how, (text, how)
    assert tried >= 3
