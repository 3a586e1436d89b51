"""Trac tasks: judges that read Trac's database, and reference plans over the built cache.

The cache in ``agentjit/bench/trac/cache`` is what ``toolcache build traces/trac``
wrote; the plans call only its tools. A task the built tools cannot do has no
plan: :data:`NO_PLAN` says which builder gap stops it (``traces/trac/README.md``
has the whole list). Every judge is checked both ways: it rejects the untouched
seed (or a wrong answer) and accepts the state its task's demonstration produced
(the demonstration's recorded write requests sent again, byte for byte, to the
reset site) or the answer its demonstrator read off the page.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import urllib.parse
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentjit.bench.trac import CACHE_DIR
from agentjit.bench.trac import judges as J
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.protocol.trace import read_trace
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import run_tasks

APP = get_app("trac")
TASKS = APP.tasks()
PLANNED = [t for t in TASKS if t.has_plan]
WRITES = [t for t in TASKS if t.kind == "write"]
READS = [t for t in TASKS if t.kind == "read"]
DEMOS = Path(__file__).parents[3] / "traces" / "trac" / "tasks"

NO_PLAN: dict[str, str] = {}


def _result(value: Any) -> Any:
    return SimpleNamespace(value=value)


def test_the_cache_was_built_not_written() -> None:
    cache = ToolCache.load(CACHE_DIR)
    assert cache.info.builder["verified"] is True
    assert cache.info.builder["traces"] and all(t.startswith("traces/trac/") for t in cache.info.builder["traces"])
    assert {"goto_report", "goto_collapsed", "list_tickets", "get_ticket", "create_ticket", "search", "goto_ticket",
            "edit_ticket", "edit_wiki", "delete_wiki", "goto_wiki_name_edit", "get_edit_wiki_values", "goto_wiki_by_name"} <= set(cache.tools)


@pytest.mark.parametrize("t", PLANNED, ids=[t.id for t in PLANNED])
def test_reference_plans_pass_the_static_checker(t: Any) -> None:
    result = check(t.plan_source(), ToolCache.load(CACHE_DIR))
    assert result.valid, [str(d) for d in result.diagnostics]


@pytest.mark.browser
async def test_reference_plans_pass_their_judges(trac_site: Any, browser_pool: BrowserPool) -> None:
    report = await run_tasks(PLANNED, cache=ToolCache.load(CACHE_DIR), site=trac_site, pool=browser_pool)
    assert {r.id: r.reason for r in report.tasks if not r.ok} == {}
    assert {r.id: r.writes for r in report.tasks} == {t.id: int(t.kind == "write") for t in PLANNED}  # nothing sent twice


def test_task_file() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) >= 10 and len(set(ids)) == len(ids)
    assert len(WRITES) >= 5 and len(READS) >= 5
    assert all(t.site_judge is not None for t in TASKS)
    assert {t.id for t in TASKS if not t.has_plan} == set(NO_PLAN)  # every task without a plan says why


@pytest.mark.parametrize("t", WRITES, ids=[t.id for t in WRITES])
def test_write_judges_reject_the_seed(trac_site: Any, t: Any) -> None:
    verdict = t.site_judge(t, _result("done"), trac_site.url)
    assert not verdict.ok and "no change" in verdict.reason


@pytest.mark.parametrize("t", READS, ids=[t.id for t in READS])
def test_read_judges_take_the_demonstrated_answer_only(trac_site: Any, t: Any) -> None:
    answer = json.loads((DEMOS / f"{t.id}.json").read_text(encoding="utf-8"))["answer"]
    assert t.site_judge(t, _result(answer), trac_site.url).ok
    assert not t.site_judge(t, _result("I could not find it"), trac_site.url).ok


def _writes(t: Any) -> list[tuple[str, str, str]]:
    """The state-changing requests ``t``'s demonstration sent: ``(method, path, body)``."""
    out = []
    for step in read_trace(DEMOS / f"{t.id}.jsonl").steps:
        for r in step.requests:
            if r.get("post_data") is not None:
                out.append((r["method"], urllib.parse.urlsplit(r["url"]).path, r["post_data"]))
    return out


def _send_again(site: Any, method: str, path: str, body: str) -> None:
    """The recorded request, to the reset site, with the form token its page had as the cookie Trac checks."""
    token = urllib.parse.parse_qs(body).get("__FORM_TOKEN", [""])[0]
    request = urllib.request.Request(site.url.rstrip("/") + path, data=body.encode(), method=method, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"trac_form_token={token}"})
    with urllib.request.urlopen(request, timeout=30) as r:  # noqa: S310 - the local site
        r.read()


@pytest.mark.parametrize("t", WRITES, ids=[t.id for t in WRITES])
def test_write_judges_accept_what_their_demonstration_sent(trac_site: Any, t: Any) -> None:
    sent = _writes(t)
    assert len(sent) == 1, sent  # one form post: the write itself (no preview, no query post)
    _send_again(trac_site, *sent[0])
    verdict = t.site_judge(t, _result("done"), trac_site.url)
    assert verdict.ok, verdict.reason


def test_a_ticket_filed_twice_is_rejected(trac_site: Any) -> None:
    """Trac itself refuses a stale edit (its mid-air collision check); a second new ticket it files."""
    t = next(t for t in WRITES if t.id == "new-ticket")
    sent = _writes(t)[0]
    _send_again(trac_site, *sent)
    _send_again(trac_site, *sent)
    verdict = t.site_judge(t, _result("done"), trac_site.url)
    assert not verdict.ok and "twice" in verdict.reason


def _sql(site: Any, statement: str) -> None:
    with sqlite3.connect(site.db_path) as con:
        con.execute(statement)
    con.close()


def test_judges_reject_wrong_reads_and_extra_changes(trac_site: Any) -> None:
    url = trac_site.url
    assert not J.ticket_owner(None, _result("owner bob, priority critical"), url).ok
    assert not J.blocker_tickets(None, _result("Login page rejects valid passwords"), url).ok  # one of two
    assert not J.backend_count(None, _result("5"), url).ok
    _sql(trac_site, "UPDATE ticket SET priority = 'critical', milestone = '1.0' WHERE id = 9")
    assert J.reprioritize(None, _result("done"), url).ok
    _sql(trac_site, "UPDATE ticket SET owner = 'bob' WHERE id = 9")  # a field nobody asked to change
    verdict = J.reprioritize(None, _result("done"), url)
    assert not verdict.ok and "('ticket', '9', 'owner', 'bob')" in verdict.reason
    # the right answer, but the database changed: a read must change nothing
    assert not J.ticket_owner(None, _result("owner alice, priority critical"), url).ok
    trac_site.reset()
    _sql(trac_site, "UPDATE wiki SET text = '= On-call rota =\n * April: carol\n' WHERE name = 'OnCall'")
    verdict = J.edit_wiki(None, _result("done"), url)
    assert not verdict.ok and "lost" in verdict.reason  # April added, the other months gone


def _variant(t: Any, text: str) -> Any:
    return dataclasses.replace(t, task=text)


def test_judges_read_their_values_from_the_task_so_variants_are_judged(trac_site: Any) -> None:
    assert all(getattr(t.site_judge, "reads_task", False) for t in WRITES)
    owner = next(t for t in READS if t.id == "ticket-owner")
    _, spec = J.DATA.ticket("Session expires too early")
    _, orig = J.DATA.ticket("Export to CSV drops the last row")
    assert (spec.owner, spec.priority) != (orig.owner, orig.priority)
    variant = _variant(owner, "Who owns the Trac ticket 'Session expires too early', and what is its priority?")
    assert owner.site_judge(variant, _result(f"{spec.owner}, {spec.priority}"), trac_site.url).ok
    assert not owner.site_judge(variant, _result(f"{orig.owner}, {orig.priority}"), trac_site.url).ok
    # the comment task's demonstration, judged against its own task and a variant on another ticket
    comment = next(t for t in WRITES if t.id == "comment-ticket")
    _send_again(trac_site, *_writes(comment)[0])
    assert comment.site_judge(comment, _result("done"), trac_site.url).ok
    other = _variant(comment, "Add the comment 'Reproduced on 1.0 with a 3-line file.' to the ticket 'Session expires too early'.")
    assert not comment.site_judge(other, _result("done"), trac_site.url).ok
    missing = _variant(comment, "Add the comment 'x' to the ticket 'No such ticket'.")
    assert "seed data does not have" in comment.site_judge(missing, _result("done"), trac_site.url).reason
