"""Judges of the Django admin tasks (``tasks.toml``): they read the app's own database.

Each judge is called as ``judge(task, result, site_url)``. It reads the
library's rows from ``GET /__state`` (:func:`~agentjit.bench.django_admin.site.read_state`:
the sqlite tables of authors, books and loans) and compares them with the seed
data :data:`~agentjit.bench.django_admin.data.DATA` (the harness resets the site
before each task). A read task must leave the database as it was and name the
right values; a write task must make exactly the changes asked for and nothing
else (a second copy of a new book, or a loan changed that was not asked for,
fails).
"""

from __future__ import annotations

import json
import re
import urllib.request
from decimal import Decimal
from typing import Any

from agentjit.tasks.task import (
    JudgeResult,
    answer_text,
    judge_count,
    judge_exact,
    judge_read,
    norm_text,
)

from .data import DATA, Dataset

__all__ = [
    "library_state", "changes",
    "book_price", "poetry_in_stock", "author_books", "oldest_book", "overdue_loans",
    "set_price", "out_of_stock", "add_book", "add_author", "delete_book", "return_loans", "loan_overdue",
    "author_country",
]

Change = tuple[str, ...]


def library_state(site_url: str) -> dict[str, Any]:
    """The library's authors, books and loans, as the database holds them now."""
    with urllib.request.urlopen(site_url.rstrip("/") + "/__state", timeout=10) as resp:  # noqa: S310 - a local site
        data: dict[str, Any] = json.loads(resp.read().decode())
    return data


def _price(value: Any) -> str:
    return f"{Decimal(str(value)):.2f}"


def changes(state: dict[str, Any], data: Dataset = DATA) -> list[Change]:
    """Every difference from the seed, sorted, one entry per row (a book added twice is there twice):
    ``("book", title, field, value)``, ``("new book", title)``, ``("deleted book", title)``, the
    same for authors, and ``("loan", n, field, value)`` for the n-th seeded loan (the database's id)."""
    out: list[Change] = []
    books = {b["id"]: b for b in state["books"]}
    for i, spec in enumerate(data.books, 1):
        got = books.pop(i, None)
        if got is None:
            out.append(("deleted book", spec.title))
            continue
        want = {"title": spec.title, "author": spec.author, "year": spec.year, "genre": spec.genre,
                "in_stock": spec.in_stock, "price": _price(spec.price)}
        for field, value in want.items():
            have = _price(got[field]) if field == "price" else got[field]
            if have != value:
                out.append(("book", spec.title, field, str(have)))
    out += [("new book", b["title"]) for b in books.values()]
    authors = {a["id"]: a for a in state["authors"]}
    for i, a_spec in enumerate(data.authors, 1):
        got = authors.pop(i, None)
        if got is None:
            out.append(("deleted author", a_spec.name))
            continue
        out += [("author", a_spec.name, f, str(got[f])) for f in ("name", "country") if got[f] != getattr(a_spec, f)]
    out += [("new author", a["name"]) for a in authors.values()]
    loans = {loan["id"]: loan for loan in state["loans"]}
    for i, l_spec in enumerate(data.loans, 1):
        got = loans.pop(i, None)
        if got is None:
            out.append(("deleted loan", str(i)))
            continue
        want_l = {"book": l_spec.book, "borrower": l_spec.borrower, "loaned_on": l_spec.loaned_on.isoformat(),
                  "due_on": l_spec.due_on.isoformat(), "status": l_spec.status}
        out += [("loan", str(i), f, str(got[f])) for f, v in want_l.items() if got[f] != v]
    out += [("new loan", str(loan["id"])) for loan in loans.values()]
    return sorted(out)


def _read(site_url: str, result: Any, wanted: list[str], *, unwanted: list[str] | None = None) -> JudgeResult:
    return judge_read(changes(library_state(site_url)), result.value, wanted, unwanted=unwanted or [])


def _exactly(site_url: str, want: list[Change]) -> JudgeResult:
    """The database differs from the seed by ``want`` and nothing else (a change made twice is two)."""
    return judge_exact(changes(library_state(site_url)), want)


# -- read tasks ----------------------------------------------------------------

def book_price(task: Any, result: Any, site_url: str) -> JudgeResult:
    """'The Salt Road': its price, and that it is not in stock."""
    spec = DATA.book("The Salt Road")
    verdict = _read(site_url, result, [_price(spec.price)])
    if not verdict.ok:
        return verdict
    text = norm_text(answer_text(result.value))
    says_out = re.search(r"\b(not in stock|out of stock|false|no)\b", text) is not None
    if says_out == spec.in_stock:
        return JudgeResult(False, f"answer {result.value!r} gets the stock wrong (in stock: {spec.in_stock})")
    return verdict


def poetry_in_stock(task: Any, result: Any, site_url: str) -> JudgeResult:
    expected = sum(1 for b in DATA.books if b.genre == "poetry" and b.in_stock)
    return judge_count(changes(library_state(site_url)), result.value, expected)


def author_books(task: Any, result: Any, site_url: str) -> JudgeResult:
    mine = [b.title for b in DATA.books if b.author == "Hana Sato"]
    others = [b.title for b in DATA.books if b.author != "Hana Sato"]
    return _read(site_url, result, mine, unwanted=others)


def oldest_book(task: Any, result: Any, site_url: str) -> JudgeResult:
    oldest = min(DATA.books, key=lambda b: b.year)
    return _read(site_url, result, [oldest.title, str(oldest.year)])


def overdue_loans(task: Any, result: Any, site_url: str) -> JudgeResult:
    overdue = sorted({loan.book for loan in DATA.loans if loan.status == "overdue"})
    not_overdue = sorted({loan.book for loan in DATA.loans} - set(overdue))
    return _read(site_url, result, overdue, unwanted=not_overdue)


# -- write tasks ---------------------------------------------------------------

NEW_BOOK: dict[str, Any] = {"title": "The Winter Orchard", "author": "Ingrid Olsen", "year": 2023, "genre": "fiction", "in_stock": True, "price": "17.50"}
NEW_AUTHOR: dict[str, str] = {"name": "Lena Novak", "country": "Croatia"}
RETURNED_BY = "Tom Becker"


def set_price(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _exactly(site_url, [("book", "Moths of the Steppe", "price", "19.99")])


def out_of_stock(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _exactly(site_url, [("book", "Cells and Stars", "in_stock", "False")])


def add_book(task: Any, result: Any, site_url: str) -> JudgeResult:
    verdict = _exactly(site_url, [("new book", NEW_BOOK["title"])])
    if not verdict.ok:
        return verdict
    new = library_state(site_url)["books"][-1]
    got = {k: (_price(new[k]) if k == "price" else new[k]) for k in NEW_BOOK}
    if got != NEW_BOOK:
        return JudgeResult(False, f"the new book is {got}, not {NEW_BOOK}")
    return verdict


def add_author(task: Any, result: Any, site_url: str) -> JudgeResult:
    verdict = _exactly(site_url, [("new author", NEW_AUTHOR["name"])])
    if not verdict.ok:
        return verdict
    new = library_state(site_url)["authors"][-1]
    if new["country"] != NEW_AUTHOR["country"]:
        return JudgeResult(False, f"the new author's country is {new['country']!r}, not {NEW_AUTHOR['country']!r}")
    return verdict


def delete_book(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _exactly(site_url, [("deleted book", "Counting with Bears")])


def return_loans(task: Any, result: Any, site_url: str) -> JudgeResult:
    outstanding = [i for i, loan in enumerate(DATA.loans, 1) if loan.borrower == RETURNED_BY and loan.status != "returned"]
    return _exactly(site_url, [("loan", str(i), "status", "returned") for i in outstanding])


def loan_overdue(task: Any, result: Any, site_url: str) -> JudgeResult:
    n = next(i for i, loan in enumerate(DATA.loans, 1) if loan.borrower == "Maya Patel" and loan.book == "A Winter in Uppsala")
    return _exactly(site_url, [("loan", str(n), "status", "overdue")])


def author_country(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _exactly(site_url, [("author", "Jonas Becker", "country", "Austria")])
