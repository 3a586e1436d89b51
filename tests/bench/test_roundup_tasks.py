"""Roundup tasks: reference plans over the built cache (no hand-written tool) pass their judges.

The cache in ``agentjit/bench/roundup/cache`` is what ``toolcache build traces/roundup``
wrote; the plans call only its tools. Judges read the tracker's own database and
reject a read that changed anything and a write that made more (or other) than
the one change asked for.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agentjit.bench.roundup import CACHE_DIR
from agentjit.bench.roundup import judges as J
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import run_tasks

pytest.importorskip("roundup")

APP = get_app("roundup")
TASKS = APP.tasks()


def test_task_file() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) >= 10 and len(set(ids)) == len(ids)
    assert sum(t.kind == "write" for t in TASKS) >= 5 and sum(t.kind == "read" for t in TASKS) >= 5
    assert all(t.site_judge is not None and t.reference_plan is not None for t in TASKS)


def test_the_cache_was_built_not_written() -> None:
    cache = ToolCache.load(CACHE_DIR)
    assert cache.info.builder["verified"] is True
    assert all(trace.startswith("traces/roundup/") for trace in cache.info.builder["traces"])
    names = set(cache.tools)
    assert {"list_issues", "goto_issue", "get_issue", "list_messages", "login", "edit_issue", "create_issue", "search_issues", "filter_issues"} <= names


@pytest.mark.parametrize("t", TASKS, ids=[t.id for t in TASKS])
def test_reference_plans_pass_the_static_checker(t: Any) -> None:
    result = check(t.plan_source(), ToolCache.load(CACHE_DIR))
    assert result.valid, [str(d) for d in result.diagnostics]


@pytest.mark.browser
async def test_reference_plans_pass_their_judges(roundup_site: Any, browser_pool: BrowserPool) -> None:
    report = await run_tasks(TASKS, cache=ToolCache.load(CACHE_DIR), site=roundup_site, pool=browser_pool)
    failed = {r.id: r.reason for r in report.tasks if not r.ok}
    assert report.summary["passed"] >= 0.8 * len(TASKS), failed
    writes = {r.id: r.writes for r in report.tasks if r.ok and r.kind == "write"}
    assert all(n == 2 for n in writes.values()), writes  # log in + the one change: nothing sent twice


def _result(value: Any) -> Any:
    return SimpleNamespace(value=value)


def test_judges_reject_wrong_answers_and_duplicates(roundup_site: Any) -> None:
    url = roundup_site.url
    assert J.issue_status_priority(None, _result("in-progress, urgent"), url).ok
    assert not J.issue_status_priority(None, _result("resolved, urgent"), url).ok
    assert not J.unassigned_count(None, _result(99), url).ok
    assert not J.set_status(None, _result("done"), url).ok  # nothing changed
    import roundup.instance

    db = roundup.instance.open(str(roundup_site.home)).open("admin")
    try:
        ids = [i for i in db.issue.list() if db.issue.get(i, "title") == "Spell checker flags URLs"]
        for _ in range(2):  # the same message twice
            msgs = db.issue.get(ids[0], "messages")
            db.issue.set(ids[0], messages=[*msgs, db.msg.create(content=J.MESSAGE, author="3")])
        db.commit()
    finally:
        db.close()
    verdict = J.add_message(None, _result("done"), url)
    assert not verdict.ok and "twice" in verdict.reason
    assert not J.issue_status_priority(None, _result("in-progress, urgent"), url).ok  # a read must change nothing


def test_no_secret_is_stored() -> None:
    from pathlib import Path

    from agentjit.bench.roundup import PASSWORD

    stored = [*CACHE_DIR.rglob("*.json"), *(Path(__file__).parents[2] / "traces" / "roundup").glob("*.jsonl")]
    assert stored and not [p for p in stored if PASSWORD in p.read_text(encoding="utf-8")]
    login = ToolCache.load(CACHE_DIR).tools["login"]
    assert "login_password" in login.input_schema["required"]
    assert login.input_schema["properties"]["login_password"]["writeOnly"] is True


@pytest.mark.browser
async def test_checks_reject_the_wrong_item_and_a_change_not_shown(roundup_site: Any, page: Any) -> None:
    from agentjit.bench.roundup import PASSWORD
    from agentjit.runtime.invoke import run_post_check

    cache = ToolCache.load(CACHE_DIR)
    await page.goto(roundup_site.url)
    await page.fill("input[name=__login_name]", "alice")
    await page.fill("input[name=__login_password]", PASSWORD)
    async with page.expect_navigation():
        await page.click("input[type=submit][value=Login]")
    await page.goto(roundup_site.url + "issue2")
    title = "Calendar shows the wrong week"  # issue 11, not 2
    wrong = await run_post_check(page, cache.tools["goto_issue"], {"title": title}, {"title": title})
    assert not wrong.ok and "does not name" in (wrong.reason or "")
    right = await run_post_check(page, cache.tools["goto_issue"], {"title": "Export to CSV"}, {"title": "Export to CSV drops the last row"})
    assert right.ok, right.reason
    unchanged = await run_post_check(page, cache.tools["edit_issue"], {"status": "testing"})
    assert not unchanged.ok and "status shows chatting" in (unchanged.reason or "")
    assert (await run_post_check(page, cache.tools["edit_issue"], {"status": "chatting"})).ok


def test_readme_lists_every_built_tool() -> None:
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "traces" / "roundup" / "README.md").read_text(encoding="utf-8")
    assert [n for n in ToolCache.load(CACHE_DIR).tools if f"| `{n}` |" not in readme] == []


@pytest.mark.browser
async def test_builder_verifies_roundup_tools_from_its_traces(roundup_site: Any, browser_pool: BrowserPool, tmp_path: Any) -> None:
    from pathlib import Path

    from agentjit.bench.roundup import PASSWORD
    from toolcache.build import build_cache

    traces = Path(__file__).parents[2] / "traces" / "roundup"

    async def reset() -> None:
        roundup_site.reset()

    cache, report = await build_cache(
        [traces / "view_issue.jsonl", traces / "set_status.jsonl"], tmp_path / "cache", base_url=roundup_site.url,
        pool=browser_pool, reset=reset, secrets={"login_password": PASSWORD}, sign_in=True,
    )  # fmt: skip  (a fresh Roundup: the traces' saved sessions are not its own, so it signs in live)
    assert {"list_issues", "goto_issue", "get_issue", "login", "edit_issue"} <= set(report.verified), report.rejected
    assert report.rejected == {}
    assert cache.tools["edit_issue"].input_schema["properties"]["status"]["enum"][:2] == ["unread", "deferred"]


def test_toolcache_starts_a_registered_app() -> None:
    import argparse
    import urllib.request

    from agentjit.exceptions import ConfigError
    from toolcache.cli import _site

    with _site(argparse.Namespace(site=None, app="roundup"), latency_scale=0) as (url, app):
        assert app == "roundup" and url is not None
        with urllib.request.urlopen(url + "issue1") as resp:
            assert b"Login page times out" in resp.read()
    with pytest.raises(ConfigError), _site(argparse.Namespace(site=None, app="nope"), latency_scale=0):
        pass


def test_the_sidebar_login_works_from_any_page_and_stays_there() -> None:
    cache = ToolCache.load(CACHE_DIR)
    assert cache.tools["login"].post == {} and "issue{id}" in cache.tools["login"].pre["page"]
    plan = (
        'await goto_issue(title="Graph legend is cut off")\n'
        'await login(login_name="alice", login_password="x")\n'
        'await edit_issue(priority="critical")\nresult = "done"\n'
    )
    assert check(plan, cache).valid
    assert not check('await edit_issue(priority="critical")\nresult = 1\n', cache).valid  # not on an issue page
