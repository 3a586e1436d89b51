"""Any site: every command and the API take --site URL and --cache DIR, with no bundled app.

The cache here is a copy of the food cache with ``list_stores`` renamed to
``list_shops``: a command that silently used the bundled cache instead would
not know the new name (and would know the old one).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentjit.api import run
from agentjit.bench.food import CACHE_DIR, FoodSite
from agentjit.bench.food.data import find_store
from agentjit.cache import ToolCache
from agentjit.cli import main
from agentjit.exceptions import ConfigError
from agentjit.runtime import BrowserPool
from agentjit.testing import FakeOpenAIServer, FakeReply

PLAN = 'await goto_home()\nshops = await list_shops(section="Best near you", limit=3)\nresult = [s.name for s in shops.items]'
OLD_PLAN = PLAN.replace("list_shops", "list_stores").replace("shops", "stores")


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def renamed(tmp_path: Path) -> Path:
    """A copy of the food cache whose ``list_stores`` is called ``list_shops``."""
    cache = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache)
    tool = json.loads((cache / "tools" / "list_stores.json").read_text())
    tool["name"] = "list_shops"
    (cache / "tools" / "list_shops.json").write_text(json.dumps(tool))
    (cache / "tools" / "list_stores.json").unlink()
    latency = json.loads((cache / "latency.json").read_text())
    latency["list_shops"] = latency.pop("list_stores")
    (cache / "latency.json").write_text(json.dumps(latency))
    return cache


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.py"
    path.write_text(PLAN)
    return path


def _best_three() -> list[str]:
    from agentjit.bench.food.data import BY_SLUG, SECTIONS

    return [BY_SLUG[slug].name for slug in SECTIONS["Best near you"][:3]]


def test_tools_reads_the_cache_directory(capsys, renamed):
    code, out, _ = run_cli(capsys, "tools", "--cache", renamed, "--json")
    names = {t["name"] for t in json.loads(out)}
    assert code == 0 and "list_shops" in names and "list_stores" not in names
    code, out, _ = run_cli(capsys, "tools", "--cache", renamed)
    assert code == 0 and "list_shops" in out and str(renamed) in out


def test_check_and_schedule_read_the_cache_directory(capsys, renamed, plan_file, tmp_path):
    code, out, _ = run_cli(capsys, "check", plan_file, "--cache", renamed, "--json")
    assert code == 0 and json.loads(out)["valid"]
    old = tmp_path / "old.py"
    old.write_text(OLD_PLAN)
    code, out, _ = run_cli(capsys, "check", old, "--cache", renamed, "--json")
    assert code == 1 and [d["code"] for d in json.loads(out)["diagnostics"]] == ["unknown-tool"]
    # the bundled cache knows only the old name
    code, out, _ = run_cli(capsys, "check", plan_file, "--json")
    assert code == 1
    code, out, _ = run_cli(capsys, "schedule", plan_file, "--cache", renamed, "--json", "--trials", 50)
    data = json.loads(out)
    # the renamed tool is priced by the directory's latency.json (renamed with it)
    assert code == 0 and "list_shops" not in data["missing_latency"] and data["strategy"] == "serial"


def test_compile_uses_the_cache_directory(capsys, renamed, monkeypatch):
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```")] * 4) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, out, _ = run_cli(
            capsys, "compile", "first three shops in Best near you", "--cache", renamed,
            "--model", f"openai:fake@{server.base_url}", "-n", 1, "-k", 1, "--json",
        )  # fmt: skip
        assert code == 0 and json.loads(out)["plan"].strip() == PLAN and len(server.requests) == 1
        # the plan went into the directory's own plan cache
        assert ToolCache.load(renamed).plans


def test_run_plan_on_a_given_site_with_a_given_cache(capsys, renamed, plan_file, food_site: FoodSite):
    code, out, err = run_cli(
        capsys, "run", plan_file, "--site", food_site.url, "--cache", renamed, "--strategy", "serial", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["value"] == _best_three()
    assert [c["tool"] for c in data["calls"]] == ["goto_home", "list_shops"]
    # with a cache and no app, nothing is started: a site is required
    code, _, err = run_cli(capsys, "run", plan_file, "--cache", renamed)
    assert code == 2 and "site" in err


def test_run_with_an_app_and_a_cache_directory_starts_the_apps_site(capsys, renamed, plan_file):
    code, out, err = run_cli(
        capsys, "run", plan_file, "--app", "food", "--cache", renamed, "--strategy", "serial", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["value"] == _best_three()


def _write_task_file(tmp_path: Path) -> Path:
    (tmp_path / "judges.py").write_text(
        "import json, urllib.request\n"
        "def croissant_in_cart(task, result, site_url):\n"
        "    with urllib.request.urlopen(site_url + '/__state') as resp:\n"
        "        cart = json.load(resp)['cart']\n"
        "    names = [line['item_name'] for line in cart]\n"
        "    return names == ['Matcha Croissant'], f'cart holds {names}'\n"
    )
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "cart.py").write_text(
        'await goto_store(name="Stonemill Matcha")\nawait add_to_cart(item_name="Matcha Croissant")\nresult = "added"\n'
    )
    tasks = tmp_path / "tasks.jsonl"
    rows = [
        {"id": "best-three", "task": "The first three shops in Best near you", "plan": PLAN, "answer": _best_three()},
        {"id": "croissant", "task": "Put a matcha croissant in my cart", "plan": "plans/cart.py",
         "judge": "judges:croissant_in_cart", "kind": "write"},
    ]  # fmt: skip
    tasks.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return tasks


def test_demo_runs_a_task_file_on_a_given_site(capsys, renamed, tmp_path, food_site: FoodSite):
    tasks = _write_task_file(tmp_path)
    code, out, err = run_cli(
        capsys, "demo", "--tasks", tasks, "--site", food_site.url, "--cache", renamed, "--strategy", "serial", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert [(t["id"], t["ok"]) for t in data["tasks"]] == [("best-three", True), ("croissant", True)]
    assert data["summary"]["site"] == food_site.url and data["summary"]["passed"] == 2
    assert "cart holds ['Matcha Croissant']" in data["tasks"][1]["reason"]
    # run again without a reset: the cart now holds two croissants, and the judge says so
    code, out, _ = run_cli(
        capsys, "demo", "--tasks", tasks, "--only", "croissant", "--site", food_site.url, "--cache", renamed, "--json"
    )
    data = json.loads(out)
    assert code == 1 and not data["tasks"][0]["ok"] and data["summary"]["total"] == 1
    # the table
    food_site.reset()
    code, out, _ = run_cli(capsys, "demo", "--tasks", tasks, "--site", food_site.url, "--cache", renamed)
    assert code == 0 and "2/2 ok" in out and "best-three" in out


def test_demo_with_no_matching_task_is_an_error(capsys, tmp_path, renamed):
    code, out, err = run_cli(capsys, "demo", "--tasks", "no-such-task")
    assert code != 0 and "0/0" not in out and "no-such-task" in err
    tasks = _write_task_file(tmp_path)
    code, out, err = run_cli(capsys, "demo", "--tasks", tasks, "--only", "nope", "--cache", renamed, "--site", "http://127.0.0.1:9")
    assert code != 0 and "0/0" not in out and "nope" in err


def test_demo_without_a_model_needs_every_task_to_have_a_plan(capsys, tmp_path, renamed):
    tasks = _jsonl_file(tmp_path, {"id": "planned", "task": "t", "plan": "result = 1"}, {"id": "bare", "task": "u"})
    code, out, err = run_cli(capsys, "demo", "--tasks", tasks, "--cache", renamed, "--site", "http://127.0.0.1:9")
    assert code == 2 and "bare" in err and "--model" in err and "planned" not in err


def _jsonl_file(tmp_path: Path, *rows: dict) -> Path:
    path = tmp_path / "more.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_tasks_lists_a_task_file(capsys, tmp_path):
    tasks = _write_task_file(tmp_path)
    code, out, _ = run_cli(capsys, "tasks", "--tasks", tasks, "--json")
    rows = json.loads(out)
    assert code == 0 and [r["id"] for r in rows] == ["best-three", "croissant"]
    assert rows[0]["reference_plan"] == "inline" and rows[1]["reference_plan"].endswith("cart.py")
    assert rows[1]["kind"] == "write"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "task": "x"}\n{"id": "b"}\n')
    code, _, err = run_cli(capsys, "tasks", "--tasks", bad)
    assert code == 2 and "bad.jsonl: line 2: field 'task'" in err.replace("\n", "")


def test_profile_and_bench_run_a_task_file_on_a_given_site(capsys, renamed, tmp_path, food_site: FoodSite):
    tasks = _write_task_file(tmp_path)
    code, out, err = run_cli(
        capsys, "profile", "--tasks", tasks, "--only", "best-three", "--site", food_site.url, "--cache", renamed,
        "--repeats", 1, "--write", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["written"] == str(renamed / "latency.json") and data["failures"] == []
    assert {"goto_home", "list_shops"} <= {row["tool"] for row in data["fits"]}
    code, out, err = run_cli(
        capsys, "bench", "scheduler", "--tasks", tasks, "--only", "best-three", "--site", food_site.url,
        "--cache", renamed, "-R", 1, "-P", 0, "--json",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert [t["id"] for t in report["tasks"]] == ["best-three"] and report["summary"]["failures"] == []
    code, out, err = run_cli(
        capsys, "bench", "overhead", "--site", food_site.url, "--cache", renamed, "--tool", "list_shops", "-n", 3, "--json"
    )
    assert code == 0, err
    assert json.loads(out)["tool"] == "list_shops"


async def test_api_runs_on_a_site_url_with_a_cache_and_no_app(renamed, food_site: FoodSite, browser_pool: BrowserPool):
    result = await run(PLAN, site_url=food_site.url, cache=ToolCache.load(renamed), pool=browser_pool)
    assert result.value == _best_three() and [c.tool for c in result.calls] == ["goto_home", "list_shops"]
    # a directory works as well as a loaded cache
    result = await run(PLAN, site_url=food_site.url, cache=renamed, pool=browser_pool)
    assert result.value == _best_three()
    with pytest.raises(ConfigError, match="site_url"):
        await run(PLAN, cache=renamed, pool=browser_pool)


async def test_a_run_starts_where_the_cache_says(renamed, food_site: FoodSite, browser_pool: BrowserPool):
    store = find_store("Stonemill Matcha")
    assert store is not None
    info = json.loads((renamed / "cache.json").read_text())
    info.update(start_path=f"/store/{store.slug}", initial_state={"page": "store", "store": store.slug})
    (renamed / "cache.json").write_text(json.dumps(info))
    result = await run("details = await get_store_details()\nresult = details.name", site_url=food_site.url, cache=renamed, pool=browser_pool)
    assert result.value == "Stonemill Matcha"


def test_demo_of_an_app_on_a_running_site_resets_and_snapshots_it_over_http(capsys, food_site: FoodSite):
    # the cart task twice: the second run passes only if the site was reset in between,
    # and the judge sees the cart only through GET /__state
    code, out, err = run_cli(
        capsys, "demo", "--app", "food", "--site", food_site.url, "--tasks", "food-custom-11,food-custom-11",
        "--strategy", "serial", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert [t["ok"] for t in data["tasks"]] == [True, True] and data["summary"]["site"] == food_site.url


def test_sync_facade_passes_site_url_and_cache(monkeypatch, renamed):
    import agentjit.api
    from agentjit.sync import run_plan_sync

    seen = {}

    async def fake_run(source, **kwargs):
        seen.update(kwargs, source=source)
        return "ran"

    monkeypatch.setattr(agentjit.api, "run", fake_run)
    assert run_plan_sync(PLAN, site_url="http://127.0.0.1:1", cache=renamed) == "ran"
    assert seen == {"source": PLAN, "app": None, "site_url": "http://127.0.0.1:1", "cache": renamed}


def test_demo_compiles_a_task_file_with_a_model_against_the_cache_directory(capsys, renamed, tmp_path, food_site, monkeypatch):
    tasks = _jsonl_file(tmp_path, {"id": "best", "task": "The first three shops in Best near you", "answer": _best_three()})
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```")] * 4) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, out, err = run_cli(
            capsys, "demo", "--tasks", tasks, "--site", food_site.url, "--cache", renamed,
            "--model", f"openai:fake@{server.base_url}", "-n", 1, "-k", 1, "--strategy", "serial", "--json",
        )  # fmt: skip
    assert code == 0, err
    (task,) = json.loads(out)["tasks"]
    assert task["ok"] and task["plan_origin"] == "model" and len(server.requests) == 1
    assert ToolCache.load(renamed).plans  # compiled into the directory's own plan cache
