"""The Fava tasks and their judges, without a browser: writes go through Fava's own JSON API."""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from dataclasses import dataclass
from typing import Any

import pytest

from agentjit.bench.fava import FavaSite, judges
from agentjit.tasks.apps import get_app
from agentjit.tasks.taskfile import load_tasks

TASKS_FILE = judges.__file__.replace("judges.py", "tasks.toml")


@dataclass
class Result:
    value: Any


def add_entry(site: FavaSite, date: str, payee: str, narration: str, postings: dict[str, str]) -> None:
    entry = {
        "t": "Transaction", "date": date, "flag": "*", "payee": payee, "narration": narration,
        "tags": [], "links": [], "meta": {},
        "postings": [{"account": a, "amount": f"{n} USD"} for a, n in postings.items()],
    }  # fmt: skip
    req = urllib.request.Request(
        f"{site.ledger_url}/api/add_entries", data=json.dumps({"entries": [entry]}).encode(),
        headers={"Content-Type": "application/json"}, method="PUT",
    )  # fmt: skip
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - loopback
        assert resp.status == 200


LUNCH = {"Liabilities:US:Chase:Slate": "-24.50", "Expenses:Food:Restaurant": "24.50"}


def test_task_file_loads_every_judge() -> None:
    tasks = load_tasks(TASKS_FILE, app="fava")
    assert [t.id for t in get_app("fava").tasks()] == [t.id for t in tasks]
    assert len(tasks) >= 10
    assert {t.kind for t in tasks} == {"read", "write"}
    assert all(t.site_judge is not None for t in tasks)


def test_judges_read_the_served_ledger(fava_site: FavaSite) -> None:
    assert judges.ledger_file(fava_site.url) == str(fava_site.ledger_path)
    entries, errors = judges.load_ledger(fava_site.url)
    assert errors == []
    assert judges.balance(entries, "Expenses:Food:Coffee") > 0


@pytest.mark.parametrize(
    ("judge", "account", "kwargs"),
    [
        (judges.checking_balance, "Assets:US:BofA:Checking", {}),
        (judges.slate_balance, "Liabilities:US:Chase:Slate", {}),
        (judges.restaurant_2025, "Expenses:Food:Restaurant", {"year": 2025}),
        (judges.income_2024, "Income", {"year": 2024, "subaccounts": True}),
    ],
)
def test_balance_judges_take_fava_numbers(fava_site: FavaSite, judge: Any, account: str, kwargs: dict[str, Any]) -> None:
    entries, _ = judges.load_ledger(fava_site.url)
    value = judges.balance(entries, account, **kwargs)
    shown = f"{value:.2f}".replace("-", "\u2212")  # as Fava prints it
    assert judge(None, Result(f"The balance is {shown} USD"), fava_site.url).ok
    assert judge(None, Result(float(value)), fava_site.url).ok
    assert not judge(None, Result(float(value) + 1), fava_site.url).ok
    assert not judge(None, Result("I do not know"), fava_site.url).ok


def test_count_and_date_judges(fava_site: FavaSite) -> None:
    assert judges.trip_la_count(None, Result(58), fava_site.url).ok
    assert not judges.trip_la_count(None, Result(57), fava_site.url).ok
    entries, _ = judges.load_ledger(fava_site.url)
    latest = max((t for t in judges.transactions(entries) if t.payee == "Verizon Wireless"), key=lambda t: t.date)
    amount = latest.postings[-1].units.number
    assert judges.last_verizon(None, Result(f"{latest.date.isoformat()}: {amount} USD"), fava_site.url).ok
    assert not judges.last_verizon(None, Result(f"2020-01-01: {amount} USD"), fava_site.url).ok


def test_read_judge_rejects_a_changed_ledger(fava_site: FavaSite) -> None:
    entries, _ = judges.load_ledger(fava_site.url)
    value = judges.balance(entries, "Assets:US:BofA:Checking")
    add_entry(fava_site, "2025-12-30", "Corner Deli", "Team lunch", LUNCH)
    verdict = judges.checking_balance(None, Result(float(value)), fava_site.url)
    assert not verdict.ok and "changed" in verdict.reason


def test_write_judge_wants_exactly_one_right_transaction(fava_site: FavaSite) -> None:
    assert not judges.add_lunch(None, Result(None), fava_site.url).ok  # nothing written yet
    add_entry(fava_site, "2025-12-30", "Corner Deli", "Team lunch", LUNCH)
    assert judges.add_lunch(None, Result(None), fava_site.url).ok
    assert not judges.add_transfer(None, Result(None), fava_site.url).ok
    add_entry(fava_site, "2025-12-30", "Corner Deli", "Team lunch", LUNCH)  # a duplicate
    verdict = judges.add_lunch(None, Result(None), fava_site.url)
    assert not verdict.ok and "exactly one" in verdict.reason


def test_write_judge_names_the_wrong_amount(fava_site: FavaSite) -> None:
    add_entry(fava_site, "2025-12-30", "Corner Deli", "Team lunch",
              {"Liabilities:US:Chase:Slate": "-25.40", "Expenses:Food:Restaurant": "25.40"})  # fmt: skip
    verdict = judges.add_lunch(None, Result(None), fava_site.url)
    assert not verdict.ok and "postings" in verdict.reason


def test_judges_read_their_values_from_the_task_so_variants_are_judged(fava_site: FavaSite) -> None:
    tasks = {t.id: t for t in get_app("fava").tasks()}
    assert all(t.judges_read_task for t in tasks.values())
    spent = tasks["restaurant-2025"]
    variant = dataclasses.replace(spent, task=spent.task.replace("2025", "2024"))
    entries, _ = judges.load_ledger(fava_site.url)
    in_2024 = judges.balance(entries, "Expenses:Food:Restaurant", year=2024)
    in_2025 = judges.balance(entries, "Expenses:Food:Restaurant", year=2025)
    assert in_2024 != in_2025
    assert spent.evaluate(Result(float(in_2024)), {}, {}, fava_site.url).ok is False
    assert variant.evaluate(Result(float(in_2024)), {}, {}, fava_site.url).ok
    assert not variant.evaluate(Result(float(in_2025)), {}, {}, fava_site.url).ok
    lunch = tasks["add-lunch"]
    other = dataclasses.replace(lunch, task=lunch.task.replace("2025-12-30", "2025-12-31")
                                .replace("Corner Deli", "Transfer").replace("Team lunch", "Move to brokerage"))  # fmt: skip
    add_entry(fava_site, "2025-12-31", "Transfer", "Move to brokerage", LUNCH)
    assert other.evaluate(Result(None), {}, {}, fava_site.url).ok
    verdict = lunch.evaluate(Result(None), {}, {}, fava_site.url)  # the task's own date and payee: wrong
    assert not verdict.ok and "date 2025-12-31" in verdict.reason
    nowhere = dataclasses.replace(lunch, task=lunch.task.replace("Expenses:Food:Restaurant", "Expenses:Food:Nowhere"))
    verdict = nowhere.evaluate(Result(None), {}, {}, fava_site.url)
    assert not verdict.ok and "seed data does not have" in verdict.reason
