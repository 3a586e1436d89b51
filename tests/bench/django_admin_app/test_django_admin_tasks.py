"""Django admin tasks: judges that read the database, and reference plans over the built cache.

The cache in ``agentjit/bench/django_admin/cache`` is what ``toolcache build
traces/django_admin`` wrote; the plans call only its tools. Only 8 of the 13
tasks have a plan: the others need tools the builder does not make from these
demonstrations yet (:data:`NO_PLAN` says which and why; ``traces/django_admin/README.md``
has the whole list). Every judge is checked both ways: it rejects the untouched
seed (or a wrong answer) and accepts the state the task's own demonstration
produced in Chromium (or the answer its demonstrator read off the page).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentjit.bench.django_admin import CACHE_DIR, PASSWORD
from agentjit.bench.django_admin import judges as J
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import run_tasks

APP = get_app("django_admin")
TASKS = APP.tasks()
PLANNED = [t for t in TASKS if t.has_plan]
WRITES = [t for t in TASKS if t.kind == "write"]
READS = [t for t in TASKS if t.kind == "read"]
DEMOS = Path(__file__).parents[3] / "traces" / "django_admin" / "tasks"

NO_PLAN = {
}


def _result(value: Any) -> Any:
    return SimpleNamespace(value=value)


def test_task_file() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) == 13 and len(set(ids)) == len(ids)
    assert len(WRITES) >= 5 and len(READS) >= 5
    assert all(t.site_judge is not None for t in TASKS)
    assert {t.id for t in TASKS if not t.has_plan} == set(NO_PLAN)  # every task without a plan says why


def test_the_cache_was_built_not_written() -> None:
    cache = ToolCache.load(CACHE_DIR)
    assert cache.info.builder["verified"] is True
    assert cache.info.builder["traces"] and all(t.startswith("traces/django_admin/") for t in cache.info.builder["traces"])
    assert cache.info.initial_state == {"page": "admin_login"}  # where / lands: the admin's login
    assert {"login", "goto_admin_library_book", "search_books", "list_result_lists", "goto_admin_library_book_change",
            "change_book", "add_book", "add_author", "delete_book"} <= set(cache.tools)
    book = cache.tools["change_book"].input_schema["properties"]
    assert book["price"] == {"type": "number"} and book["in_stock"]["type"] == "boolean"  # step="0.01"; a checkbox
    assert cache.info.builder["witnesses"]["change_book"] == {"price": 25.0, "in_stock": False}  # the demonstrated save


def test_no_secret_is_stored() -> None:
    stored = [*CACHE_DIR.rglob("*.json"), *DEMOS.parent.glob("*.jsonl"), *DEMOS.glob("*.jsonl")]
    assert stored and not [p for p in stored if PASSWORD in p.read_text(encoding="utf-8")]
    login = ToolCache.load(CACHE_DIR).tools["login"]
    assert "password" in login.input_schema["required"]


@pytest.mark.parametrize("t", PLANNED, ids=[t.id for t in PLANNED])
def test_reference_plans_pass_the_static_checker(t: Any) -> None:
    result = check(t.plan_source(), ToolCache.load(CACHE_DIR))
    assert result.valid, [str(d) for d in result.diagnostics]


@pytest.mark.browser
async def test_reference_plans_pass_their_judges(django_admin_site: Any, browser_pool: BrowserPool) -> None:
    cache = ToolCache.load(CACHE_DIR)
    report = await run_tasks(PLANNED, cache=cache, site=django_admin_site, pool=browser_pool)
    assert {r.id: r.reason for r in report.tasks if not r.ok} == {}
    # log in (a POST) and each write the plan calls (a save; a bulk delete and its confirmation): nothing sent twice
    assert {r.id: r.writes for r in report.tasks} == {t.id: _write_calls(t.plan_source(), cache) for t in PLANNED}


def _write_calls(source: str, cache: ToolCache) -> int:
    """How many calls of WRITE tools a plan makes (each runs once: no loops in these plans)."""
    calls = [n.func.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return sum(1 for name in calls if name in cache.tools and cache.tools[name].is_write)


@pytest.mark.parametrize("t", WRITES, ids=[t.id for t in WRITES])
def test_write_judges_reject_the_seed(django_admin_site: Any, t: Any) -> None:
    verdict = t.site_judge(t, _result("done"), django_admin_site.url)
    assert not verdict.ok and "no change" in verdict.reason


@pytest.mark.parametrize("t", READS, ids=[t.id for t in READS])
def test_read_judges_take_the_demonstrated_answer_only(django_admin_site: Any, t: Any) -> None:
    answer = json.loads((DEMOS / f"{t.id}.json").read_text(encoding="utf-8"))["answer"]
    assert t.site_judge(t, _result(answer), django_admin_site.url).ok
    assert not t.site_judge(t, _result("I could not find it"), django_admin_site.url).ok


def test_judges_reject_wrong_reads_and_extra_changes(django_admin_site: Any) -> None:
    url = django_admin_site.url
    assert not J.book_price(None, _result("22.00, in stock"), url).ok  # the stock is wrong
    assert not J.author_books(None, _result("Evening Haiku, Paper Cranes, Silk and Iron, The Quiet Lantern, "
                                            "Tides and the Moon, Ice Cores"), url).ok  # one too many
    _sql(django_admin_site, "INSERT INTO library_book (title, author_id, year, genre, in_stock, price)"
                            " VALUES ('The Winter Orchard', 9, 2023, 'fiction', 1, 17.5)")
    assert J.add_book(None, _result("done"), url).ok  # one copy: the change asked for
    _sql(django_admin_site, "INSERT INTO library_book (title, author_id, year, genre, in_stock, price)"
                            " VALUES ('The Winter Orchard', 9, 2023, 'fiction', 1, 17.5)")
    verdict = J.add_book(None, _result("done"), url)  # the same book twice: a duplicated write
    assert not verdict.ok and "twice" in verdict.reason and "The Winter Orchard" in verdict.reason
    # the right answer, but the database changed: a read must change nothing
    assert not J.author_books(None, _result("Evening Haiku, Paper Cranes, Silk and Iron, The Quiet Lantern, Tides and the Moon"), url).ok
    django_admin_site.reset()
    _sql(django_admin_site, "UPDATE library_loan SET status = 'returned' WHERE id IN (8, 20, 26)")
    assert J.return_loans(None, _result("done"), url).ok
    _sql(django_admin_site, "UPDATE library_loan SET status = 'returned' WHERE id = 1")  # one loan too many
    verdict = J.return_loans(None, _result("done"), url)
    assert not verdict.ok and "('loan', '1', 'status', 'returned')" in verdict.reason


def _sql(site: Any, statement: str) -> None:
    with sqlite3.connect(site.db_path) as con:
        con.execute(statement)
    con.close()


@pytest.mark.browser
async def test_write_judges_accept_their_demonstration(django_admin_site: Any, browser_pool: BrowserPool, tmp_path: Path) -> None:
    """Each write task's demonstration, replayed in Chromium on the reset site, leaves a state its judge accepts.

    The writes that a reference plan already runs against its judge are left out, to keep the
    suite short, all but one."""
    from toolcache.record import record_script
    from toolcache.script import load_script

    # the writes no reference plan covers, and at least one more: a judge is also held against a
    # state the demonstrator's own clicks made, not only against what our plans do
    others = [t for t in WRITES if not t.has_plan] or [t for t in WRITES if t.id == "delete-book"]
    assert others
    verdicts = {}
    for t in others:
        django_admin_site.reset()
        await record_script(browser_pool, load_script(DEMOS / f"{t.id}.json"), django_admin_site.url, tmp_path / f"{t.id}.jsonl", reset=False)
        verdict = t.site_judge(t, _result("done"), django_admin_site.url)
        verdicts[t.id] = (verdict.ok, verdict.reason)
    assert {k: v for k, v in verdicts.items() if not v[0]} == {}


def test_judges_read_their_values_from_the_task_so_variants_are_judged(django_admin_site: Any) -> None:
    url = django_admin_site.url
    price = next(t for t in WRITES if t.id == "set-price")
    assert price.judges_read_task
    variant = dataclasses.replace(price, task=price.task.replace("Moths of the Steppe", "Cells and Stars").replace("19.99", "21.24"))
    assert not price.site_judge(variant, _result("done"), url).ok  # the seed: nothing changed yet
    _sql(django_admin_site, "UPDATE library_book SET price = 21.24 WHERE title = 'Cells and Stars'")
    assert price.site_judge(variant, _result("done"), url).ok
    assert not price.site_judge(price, _result("done"), url).ok  # the task's own book and price: not this change
    books = next(t for t in READS if t.id == "author-books")
    by_jonas = [b.title for b in J.DATA.books if b.author == "Jonas Becker"]
    other = dataclasses.replace(books, task=books.task.replace("Hana Sato", "Jonas Becker"))
    django_admin_site.reset()
    assert books.site_judge(other, _result(", ".join(by_jonas)), url).ok
    hana = ", ".join(b.title for b in J.DATA.books if b.author == "Hana Sato")
    assert not books.site_judge(other, _result(hana), url).ok
    missing = dataclasses.replace(books, task=books.task.replace("Hana Sato", "The Salt Road"))
    verdict = books.site_judge(missing, _result(hana), url)
    assert not verdict.ok and "seed data does not have" in verdict.reason
    # deleting a book deletes its loans (a cascading foreign key): that is the change asked for, nothing more
    delete = next(t for t in WRITES if t.id == "delete-book")
    on_loan = dataclasses.replace(delete, task=delete.task.replace("Counting with Bears", "Cells and Stars"))
    _sql(django_admin_site, "DELETE FROM library_loan WHERE book_id = 7")
    assert not delete.site_judge(on_loan, _result("done"), url).ok  # its loans gone, the book not
    _sql(django_admin_site, "DELETE FROM library_book WHERE id = 7")
    assert delete.site_judge(on_loan, _result("done"), url).ok
    assert not delete.site_judge(delete, _result("done"), url).ok
    django_admin_site.reset()
    seeded = django_admin_site.state()
    assert "The Salt Road" in missing.seed_lacks(seeded, url) and other.seed_lacks(seeded, url) == ""
