"""Judges of the Fava tasks (``tasks.toml``): they read the ledger the way beancount does.

Each judge is called as ``judge(task, result, site_url)``. It asks the running
Fava which file it serves (``/<ledger>/api/options``), loads that file with
``beancount.loader.load_file`` and computes the right answer from the entries,
so a judge works on any Fava on this machine, not only :class:`FavaSite`.
Write judges compare the ledger with the generated seed ledger (the harness
resets the site before each task): exactly one new transaction with the right
postings, nothing removed, no load errors.

Every judge is marked ``reads_task``: it reads the account, year, tag, payee, date and amount from
the task's own text (:func:`~agentjit.tasks.task.from_task`), so it also judges a literal variant
(another year, payee or date) that ``agentjit bench templates --run`` compiles from a template; a
variant that names an account, year, tag or payee the ledger lacks is judged wrong with that reason.

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

from agentjit.tasks.task import (
    JudgeResult,
    answer_text,
    from_task,
    numbers_in,
    reads_task,
    unknown_value,
)

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


def _accounts(entries: Iterable[Any]) -> set[str]:
    from beancount.core import data

    return {e.account for e in entries if isinstance(e, data.Open)}


Compute = Callable[..., "list[Decimal | float | int] | JudgeResult"]


def _read_task(pattern: str, default: tuple[str, ...], compute: Compute, what: str) -> Callable[..., JudgeResult]:
    """A read task's judge: the values ``pattern`` finds in the task's text (``default``: the bundled task's),
    then ``compute(entries, *values)`` the numbers the answer must mention, or a verdict (a value the ledger
    lacks)."""

    @reads_task
    def judge(task: Any, result: Any, site_url: str) -> JudgeResult:
        values = from_task(task, pattern, default)
        entries, errors = load_ledger(site_url)
        if errors:
            return JudgeResult(False, f"the ledger has {len(errors)} load error(s)")
        if _changed(entries):
            return JudgeResult(False, "a read task changed the ledger")
        expected = compute(entries, *values)
        if isinstance(expected, JudgeResult):
            return expected
        return _mentions(result.value, *expected, what=what.format(*values))

    judge.__doc__ = f"The answer is {what}, computed from the ledger; the ledger is unchanged."
    return judge


def _account_total(*, subaccounts: bool = False) -> Compute:
    """The sum of an account's postings (with its subaccounts), in a year if the task names one."""

    def compute(entries: list[Any], account: str, year: str = "") -> list[Decimal | float | int] | JudgeResult:
        opened = _accounts(entries)
        if account not in opened and not (subaccounts and any(a.startswith(account + ":") for a in opened)):
            return unknown_value(f"the account {account}")
        if year and not any(t.date.year == int(year) for t in transactions(entries)):
            return unknown_value(f"the year {year}")
        return [balance(entries, account, subaccounts=subaccounts, year=int(year) if year else None)]

    return compute


def _counted(test: Callable[[Any, str], int]) -> Compute:
    """How many of the ledger's transactions (or postings: ``test`` returns a count per transaction) fit
    the task's value; a value no transaction has is one the ledger lacks."""

    def compute(entries: list[Any], value: str) -> list[Decimal | float | int] | JudgeResult:
        n = sum(test(t, value) for t in transactions(entries))
        return [n] if n else unknown_value(repr(value))

    return compute


# -- read tasks --------------------------------------------------------------

_ACCOUNT = r"([A-Z][\w-]*(?::[A-Z0-9][\w-]*)+)"

checking_balance = _read_task(rf"balance of the account {_ACCOUNT}", ("Assets:US:BofA:Checking",), _account_total(),
                              "the balance of {0}")  # fmt: skip
slate_balance = _read_task(rf"\({_ACCOUNT}\)", ("Liabilities:US:Chase:Slate",), _account_total(), "the balance of {0}")
restaurant_2025 = _read_task(rf"for (\d{{4}}), how much was spent on {_ACCOUNT}", ("2025", "Expenses:Food:Restaurant"),
                             lambda es, year, account: _account_total()(es, account, year), "{1} in {0}")  # fmt: skip
income_2024 = _read_task(r"total (\w+) in USD in (\d{4})", ("Income", "2024"), _account_total(subaccounts=True),
                         "total USD {0} in {1}")  # fmt: skip
expenses_2025 = _read_task(r"total (\w+) in USD in (\d{4})", ("Expenses", "2025"), _account_total(subaccounts=True),
                           "total USD {0} in {1}")  # fmt: skip
groceries_query = _read_task(rf"total of {_ACCOUNT} postings in (\d{{4}})", ("Expenses:Food:Groceries", "2025"),
                             _account_total(), "{0} in {1}")  # fmt: skip
coffee_count = _read_task(
    rf"filtered to the account {_ACCOUNT}, how many", ("Expenses:Food:Coffee",),
    _counted(lambda t, account: any(p.account == account for p in t.postings)),
    "the number of {0} transactions",
)
trip_la_count = _read_task(
    r"tagged #([\w-]+)", ("trip-los-angeles-2025",),
    _counted(lambda t, tag: tag in (t.tags or ())),
    "the number of #{0} transactions",
)
rent_count_query = _read_task(
    rf"count the postings to {_ACCOUNT}", ("Expenses:Home:Rent",),
    _counted(lambda t, account: sum(1 for p in t.postings if p.account == account)),
    "the number of {0} postings",
)


@reads_task
def last_verizon(task: Any, result: Any, site_url: str) -> JudgeResult:
    """The date and the amount of the payee's latest transaction."""
    (payee,) = from_task(task, r"most recent payment to (.+?), and how much", ("Verizon Wireless",))
    entries, _ = load_ledger(site_url)
    paid = [t for t in transactions(entries) if t.payee == payee]
    if not paid:
        return unknown_value(f"the payee {payee!r}")
    latest = max(paid, key=lambda t: t.date)
    amount = next(p.units.number for p in latest.postings if p.account.startswith("Expenses:"))
    text = answer_text(result.value)
    if latest.date.isoformat() not in text:
        return JudgeResult(False, f"answer {text[:120]!r} lacks the date {latest.date}")
    return _mentions(result.value, amount, what=f"the {payee} payment of {latest.date}")


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


Wanted = tuple[datetime.date, str, str, dict[str, str]]
"""A new transaction: date, payee, narration and ``{account: amount}``."""


def _write_task(pattern: str, default: tuple[str, ...], wanted: Callable[..., Wanted], what: str) -> Callable[..., JudgeResult]:
    """A write task's judge: exactly one new transaction, the one ``wanted(*values)`` says, the values read
    from the task's text by ``pattern`` (``default``: the bundled task's)."""

    @reads_task
    def judge(task: Any, result: Any, site_url: str) -> JudgeResult:
        values = from_task(task, pattern, default)
        date, payee, narration, postings = wanted(*values)
        entries, errors = load_ledger(site_url)
        unknown = [a for a in postings if a not in _accounts(entries)]
        if unknown:
            return unknown_value(f"the account(s) {', '.join(unknown)}")
        if errors:
            return JudgeResult(False, f"the ledger has {len(errors)} load error(s) after the write")
        added, removed = _diff(entries)
        if removed:
            return JudgeResult(False, f"{len(removed)} transaction(s) of the ledger disappeared")
        if len(added) != 1:
            return JudgeResult(False, f"expected exactly one new transaction, found {len(added)}")
        (d, _flag, got_payee, got_narration, got_postings), = added
        want = sorted((acct, Decimal(num), "USD") for acct, num in postings.items())
        problems = []
        if d != date:
            problems.append(f"date {d} (wanted {date})")
        if got_payee.strip().lower() != payee.lower():
            problems.append(f"payee {got_payee!r} (wanted {payee!r})")
        if got_narration.strip().lower() != narration.lower():
            problems.append(f"narration {got_narration!r} (wanted {narration!r})")
        if sorted((a, Decimal(n or 0), c) for a, n, c in got_postings) != want:
            problems.append(f"postings {list(got_postings)} (wanted {list(want)})")
        label = what.format(*values)
        if problems:
            return JudgeResult(False, f"{label}: the new transaction has " + "; ".join(problems))
        return JudgeResult(True, f"{label}: one new transaction with the right postings")

    judge.__doc__ = f"Exactly one new transaction: {what}."
    return judge


def _day(text: str) -> datetime.date:
    return datetime.date.fromisoformat(text)


add_lunch = _write_task(
    rf"dated (\d{{4}}-\d\d-\d\d): payee (.+?), narration (.+?), (\d+(?:\.\d+)?) USD to {_ACCOUNT} paid from {_ACCOUNT}",
    ("2025-12-30", "Corner Deli", "Team lunch", "24.50", "Expenses:Food:Restaurant", "Liabilities:US:Chase:Slate"),
    lambda day, payee, narration, amount, to, paid_from: (
        _day(day), payee, narration, {paid_from: f"-{Decimal(amount):.2f}", to: f"{Decimal(amount):.2f}"}),
    "a {3} USD payment to {1} on {0}",
)  # fmt: skip
add_transfer = _write_task(
    rf"transfer of (\d+(?:\.\d+)?) USD from {_ACCOUNT} to {_ACCOUNT} on (\d{{4}}-\d\d-\d\d), payee (.+?), "
    r"narration (.+?)\.?$",
    ("500", "Assets:US:BofA:Checking", "Assets:US:ETrade:Cash", "2025-12-31", "Transfer", "Move to brokerage"),
    lambda amount, src, dst, day, payee, narration: (
        _day(day), payee, narration, {src: f"-{Decimal(amount):.2f}", dst: f"{Decimal(amount):.2f}"}),
    "a {0} USD transfer from {1} to {2} on {3}",
)  # fmt: skip
