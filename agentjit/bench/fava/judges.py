"""Judges of the Fava tasks (``tasks.toml``): they read the ledger the way beancount does.

Each judge is called as ``judge(task, result, site_url)``. It asks the running
Fava which file it serves (``/<ledger>/api/options``), loads that file with
``beancount.loader.load_file`` and computes the right answer from the entries,
so a judge works on any Fava on this machine, not only :class:`FavaSite`.
Write judges compare the ledger with the generated seed ledger (the harness
resets the site before each task): exactly one new transaction with the right
postings, nothing removed, no load errors.

Amounts are compared by absolute value (Fava shows income and liabilities as
negative numbers, written with a U+2212 minus sign), within half a cent.
"""

from __future__ import annotations

import datetime
import json
import urllib.request
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from agentjit.tasks.task import JudgeResult, answer_text, numbers_in

from .site import SEED, generate_ledger

__all__ = [
    "ledger_file",
    "load_ledger",
    "transactions",
    "balance",
    "checking_balance",
    "slate_balance",
    "restaurant_2025",
    "income_2024",
    "coffee_count",
    "trip_la_count",
    "last_verizon",
    "groceries_query",
    "rent_count_query",
    "expenses_2025",
    "add_lunch",
    "add_transfer",
]

TOLERANCE = 0.005


# -- the ledger --------------------------------------------------------------

def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:  # noqa: S310 - a local Fava
        return json.loads(resp.read().decode())


def ledger_file(site_url: str) -> str:
    """The path of the ledger that the Fava at ``site_url`` serves (its first ledger)."""
    with urllib.request.urlopen(site_url.rstrip("/") + "/", timeout=10) as resp:  # noqa: S310
        landing = resp.url  # Fava redirects / to /<slug>/income_statement/
    slug = landing[len(site_url.rstrip("/")):].strip("/").split("/")[0]
    options = _get_json(f"{site_url.rstrip('/')}/{slug}/api/options")
    path: str = options["data"]["beancount_options"]["filename"]
    return path


def load_ledger(site_url: str) -> tuple[list[Any], list[Any]]:
    """``(entries, errors)`` of the served ledger, read with ``beancount.loader.load_file``."""
    from beancount import loader

    entries, errors, _ = loader.load_file(ledger_file(site_url))
    return list(entries), list(errors)


def transactions(entries: Iterable[Any]) -> list[Any]:
    from beancount.core import data

    return [e for e in entries if isinstance(e, data.Transaction)]


def balance(
    entries: Iterable[Any],
    account: str,
    *,
    subaccounts: bool = False,
    year: int | None = None,
    currency: str = "USD",
) -> Decimal:
    """The sum of ``account``'s postings in ``currency`` (of its subaccounts too), in ``year``."""
    total = Decimal(0)
    for txn in transactions(entries):
        if year is not None and txn.date.year != year:
            continue
        for p in txn.postings:
            hit = p.account == account or (subaccounts and p.account.startswith(account + ":"))
            if hit and p.units is not None and p.units.currency == currency:
                total += p.units.number
    return total


def _answer_numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float | Decimal):
        return [float(value)]
    return numbers_in(answer_text(value).replace("\u2212", "-"))


def _mentions(value: Any, *expected: Decimal | float | int, what: str) -> JudgeResult:
    found = _answer_numbers(value)
    missing = [float(x) for x in expected if not any(abs(abs(f) - abs(float(x))) <= TOLERANCE for f in found)]
    if missing:
        return JudgeResult(False, f"{what}: answer {answer_text(value)[:120]!r} lacks {missing}")
    return JudgeResult(True, f"{what}: answer mentions {[float(x) for x in expected]}")


def _read_task(compute: Callable[[list[Any]], list[Decimal | float | int]], what: str) -> Callable[..., JudgeResult]:
    def judge(task: Any, result: Any, site_url: str) -> JudgeResult:
        entries, errors = load_ledger(site_url)
        if errors:
            return JudgeResult(False, f"the ledger has {len(errors)} load error(s)")
        if _changed(entries):
            return JudgeResult(False, "a read task changed the ledger")
        return _mentions(result.value, *compute(entries), what=what)

    judge.__doc__ = f"The answer is {what}, computed from the ledger; the ledger is unchanged."
    return judge


# -- read tasks --------------------------------------------------------------

checking_balance = _read_task(lambda es: [balance(es, "Assets:US:BofA:Checking")], "the balance of Assets:US:BofA:Checking")
slate_balance = _read_task(lambda es: [balance(es, "Liabilities:US:Chase:Slate")], "the balance of Liabilities:US:Chase:Slate")
restaurant_2025 = _read_task(lambda es: [balance(es, "Expenses:Food:Restaurant", year=2025)], "Expenses:Food:Restaurant in 2025")
income_2024 = _read_task(lambda es: [balance(es, "Income", subaccounts=True, year=2024)], "total USD income in 2024")
expenses_2025 = _read_task(lambda es: [balance(es, "Expenses", subaccounts=True, year=2025)], "total USD expenses in 2025")
groceries_query = _read_task(lambda es: [balance(es, "Expenses:Food:Groceries", year=2025)], "Expenses:Food:Groceries in 2025")


def _count(entries: list[Any], test: Callable[[Any], bool]) -> list[Decimal | float | int]:
    return [sum(1 for t in transactions(entries) if test(t))]


coffee_count = _read_task(
    lambda es: _count(es, lambda t: any(p.account == "Expenses:Food:Coffee" for p in t.postings)),
    "the number of Expenses:Food:Coffee transactions",
)
trip_la_count = _read_task(
    lambda es: _count(es, lambda t: "trip-los-angeles-2025" in (t.tags or ())),
    "the number of #trip-los-angeles-2025 transactions",
)
rent_count_query = _read_task(
    lambda es: [sum(1 for t in transactions(es) for p in t.postings if p.account == "Expenses:Home:Rent")],
    "the number of Expenses:Home:Rent postings",
)


def last_verizon(task: Any, result: Any, site_url: str) -> JudgeResult:
    """The date and the amount of the latest Verizon Wireless transaction."""
    entries, _ = load_ledger(site_url)
    latest = max((t for t in transactions(entries) if t.payee == "Verizon Wireless"), key=lambda t: t.date)
    amount = next(p.units.number for p in latest.postings if p.account.startswith("Expenses:"))
    text = answer_text(result.value)
    if latest.date.isoformat() not in text:
        return JudgeResult(False, f"answer {text[:120]!r} lacks the date {latest.date}")
    return _mentions(result.value, amount, what=f"the Verizon Wireless payment of {latest.date}")


# -- write tasks -------------------------------------------------------------

def _key(txn: Any) -> tuple[Any, ...]:
    postings = tuple(sorted((p.account, str(p.units.number) if p.units else "", p.units.currency if p.units else "") for p in txn.postings))
    return (txn.date, txn.flag, txn.payee or "", txn.narration or "", postings)


_BASELINE: dict[int, list[tuple[Any, ...]]] = {}


def _baseline() -> list[tuple[Any, ...]]:
    """The transactions of the generated seed ledger (what the harness resets to)."""
    if SEED not in _BASELINE:
        from beancount import loader

        entries, _, _ = loader.load_string(generate_ledger(SEED))
        _BASELINE[SEED] = sorted(_key(t) for t in transactions(entries))
    return _BASELINE[SEED]


def _changed(entries: list[Any]) -> bool:
    return sorted(_key(t) for t in transactions(entries)) != _baseline()


def _diff(entries: list[Any]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """``(added, removed)`` transactions against the seed ledger."""
    now = sorted(_key(t) for t in transactions(entries))
    base = list(_baseline())
    added = []
    for k in now:
        if k in base:
            base.remove(k)
        else:
            added.append(k)
    return added, base


def _write_task(
    date: datetime.date, payee: str, narration: str, postings: dict[str, str], what: str
) -> Callable[..., JudgeResult]:
    want = sorted((acct, Decimal(num), "USD") for acct, num in postings.items())

    def judge(task: Any, result: Any, site_url: str) -> JudgeResult:
        entries, errors = load_ledger(site_url)
        if errors:
            return JudgeResult(False, f"the ledger has {len(errors)} load error(s) after the write")
        added, removed = _diff(entries)
        if removed:
            return JudgeResult(False, f"{len(removed)} transaction(s) of the ledger disappeared")
        if len(added) != 1:
            return JudgeResult(False, f"expected exactly one new transaction, found {len(added)}")
        (d, _flag, got_payee, got_narration, got_postings), = added
        problems = []
        if d != date:
            problems.append(f"date {d} (wanted {date})")
        if got_payee.strip().lower() != payee.lower():
            problems.append(f"payee {got_payee!r} (wanted {payee!r})")
        if got_narration.strip().lower() != narration.lower():
            problems.append(f"narration {got_narration!r} (wanted {narration!r})")
        if sorted((a, Decimal(n or 0), c) for a, n, c in got_postings) != want:
            problems.append(f"postings {list(got_postings)} (wanted {list(want)})")
        if problems:
            return JudgeResult(False, f"{what}: the new transaction has " + "; ".join(problems))
        return JudgeResult(True, f"{what}: one new transaction with the right postings")

    judge.__doc__ = f"Exactly one new transaction: {what}."
    return judge


add_lunch = _write_task(
    datetime.date(2025, 12, 30), "Corner Deli", "Team lunch",
    {"Liabilities:US:Chase:Slate": "-24.50", "Expenses:Food:Restaurant": "24.50"},
    "a 24.50 USD lunch at Corner Deli",
)  # fmt: skip
add_transfer = _write_task(
    datetime.date(2025, 12, 31), "Transfer", "Move to brokerage",
    {"Assets:US:BofA:Checking": "-500.00", "Assets:US:ETrade:Cash": "500.00"},
    "a 500 USD transfer from checking to the brokerage account",
)  # fmt: skip
