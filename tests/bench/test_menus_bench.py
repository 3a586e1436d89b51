"""The large tool catalog and ``agentjit bench menus``' measures (no model, no browser)."""

from __future__ import annotations

import json

import pytest

from agentjit.bench.menus_bench import menu_metrics, run_menus_bench
from agentjit.bench.tool_catalog import (
    _Source,
    bench_sources,
    distractor_tools,
    large_catalog,
    plan_tools,
)
from agentjit.cli import main


@pytest.fixture(scope="module")
def food_only() -> list[_Source]:
    return [s for s in bench_sources() if s.name == "food"]


def test_distractors_are_deterministic_in_the_seed() -> None:
    a = [(site, t.name, t.description) for site, t, _ in distractor_tools(3, seed=7)]
    assert a == [(site, t.name, t.description) for site, t, _ in distractor_tools(3, seed=7)]
    assert a != [(site, t.name, t.description) for site, t, _ in distractor_tools(3, seed=8)]


def test_the_full_catalog_has_300_tools_and_every_tasks_chain_in_it() -> None:
    cat = large_catalog(seed=0)
    assert len(cat.cache.tools) >= 300
    assert len(cat.tasks) >= 60 and {t.app for t in cat.tasks} >= {"food", "roundup", "trac", "django_admin", "fava"}
    for task in cat.tasks:
        assert set(task.chain) <= set(cat.cache.tools), task.id
        assert task.start["site"] == task.app
    # one name two sources share is prefixed in both, everywhere (a task's chain too)
    assert {"roundup_login", "django_admin_login"} <= set(cat.cache.tools) and "login" not in cat.cache.tools


def test_plan_tools_in_the_order_of_their_first_call() -> None:
    src = "x = await b()\nfor i in x.items:\n    await a(n=i)\n    await b()\nresult = len(x.items)\n"
    assert plan_tools(src, {"a": 1, "b": 1, "c": 1}) == ["b", "a"]


def test_menu_metrics() -> None:
    m = menu_metrics(["c", "a", "x", "b"], ["a", "b", "c"], [("a", "b"), ("a", "c")], k=4)
    assert m["recall"] == 1.0 and m["chain"] is True and m["order_violations"] == 1 and m["missing"] == []
    m = menu_metrics(["x", "a"], ["a", "b"], [("a", "b")], k=2)
    assert m["recall"] == 0.5 and m["chain"] is False and m["missing"] == ["b"]
    assert 0 < m["ndcg"] < 1


def test_the_bench_on_a_small_catalog(food_only: list[_Source]) -> None:
    cat = large_catalog(seed=0, distractor_sites=2, sources=food_only)
    report = run_menus_bench(ks=(8, 16), catalog=cat)
    assert report["catalog"]["tasks"] == len(cat.tasks) > 0
    sp, rel = report["summary"]["state_path"]["16"], report["summary"]["relevance"]["16"]
    assert 0 <= rel["chain"] <= 1 and 0 <= sp["chain"] <= 1
    assert sp["prompt_tokens"] < report["prompt_tokens_all"]
    row = report["tasks"][0]
    assert set(row["state_path"]) == {"8", "16"} and len(row["state_path"]["8"]["tools"]) <= 8
    assert report["per_app"]["food"]["tasks"] == len(cat.tasks)
    loao = report["held_out"]
    assert loao["k"] == 16 and set(loao["apps"]) == {"food"} and 0 <= loao["chain"] <= 1


def test_held_out_chooses_knobs_on_the_other_apps_only() -> None:
    from agentjit.bench.menus_bench import CONFIG_GRID, held_out
    from agentjit.bench.tool_catalog import CatalogTask
    from agentjit.planner.menu import MenuConfig, ToolIndex
    from agentjit.protocol import ToolManifest

    def tool(name: str, pre: dict[str, str], post: dict[str, str] | None = None) -> ToolManifest:
        return ToolManifest(name=name, description=name.replace("_", " "), type="observe", execute="return {};",
                            input_schema={"type": "object", "properties": {}}, pre=pre, post=post or {})  # fmt: skip

    tools = [tool("goto_a", {"page": "*"}, {"page": "a"}), tool("read_a", {"page": "a"}),
             tool("goto_b", {"page": "*"}, {"page": "b"}), tool("read_b", {"page": "b"})]  # fmt: skip
    index = ToolIndex(tools, {"page": "home"})
    tasks = [CatalogTask("one", "t1", "read a", ("goto_a", "read_a"), start={"page": "home"}),
             CatalogTask("two_built", "t2", "read b", ("goto_b", "read_b"), start={"page": "home"}),
             CatalogTask("two", "t3", "read b", ("goto_b", "read_b"), start={"page": "home"})]  # fmt: skip
    out = held_out(index, tasks, k=2, grid=[MenuConfig(), CONFIG_GRID[1]])
    assert set(out["apps"]) == {"one", "two"}  # a built cache of a site is held out with the site
    assert out["apps"]["two"]["tasks"] == 2 and out["chain"] == 1.0


def test_cli_rejects_a_bad_k(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "menus", "-k", "0", "--json"]) == 2
    assert json.loads(capsys.readouterr().out or "{}") is not None
