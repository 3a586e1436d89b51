"""Judges of the Django admin tasks (``tasks.toml``): they read the app's own database.

Each judge is called as ``judge(task, result, site_url)``. It reads the
library's rows from ``GET /__state`` (:func:`~agentjit.bench.django_admin.site.read_state`:
the sqlite tables of authors, books and loans) and compares them with the seed
data :data:`~agentjit.bench.django_admin.data.DATA` (the harness resets the site
before each task). A read task must leave the database as it was and name the
right values; a write task must make exactly the changes asked for and nothing
else (a second copy of a new book, or a loan changed that was not asked for,
fails).

The judges marked ``reads_task`` read the book, author, borrower and values from the task's own
text, so they also judge a literal variant (another book, price or borrower) that ``agentjit bench
templates --run`` compiles from a template; a variant that names a book, author or loan the seed
lacks is judged wrong with that reason.
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
    from_task,
    judge_count,
    judge_exact,
    judge_read,
    norm_text,
    reads_task,
    unknown_value,
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


def _book(title: str) -> Any:
    try:
        return DATA.book(title)
    except KeyError:
        return None


def _author(name: str) -> Any:
    return next((a for a in DATA.authors if a.name == name), None)


def _set(spec_value: Any, change: Change) -> list[Change]:
    """One field set to a value: the change, or none when the seed has that value already."""
    return [] if str(spec_value) == change[-1] else [change]


# -- read tasks ----------------------------------------------------------------

@reads_task
def book_price(task: Any, result: Any, site_url: str) -> JudgeResult:
    """The named book's price, and whether it is in stock."""
    (title,) = from_task(task, r"the book '(.+?)' cost", ("The Salt Road",))
    spec = _book(title)
    if spec is None:
        return unknown_value(f"the book {title!r}")
    verdict = _read(site_url, result, [_price(spec.price)])
    if not verdict.ok:
        return verdict
    text = norm_text(answer_text(result.value))
    says_out = re.search(r"\b(not in stock|out of stock|false|no)\b", text) is not None
    if says_out == spec.in_stock:
        return JudgeResult(False, f"answer {result.value!r} gets the stock wrong (in stock: {spec.in_stock})")
    return verdict


@reads_task
def poetry_in_stock(task: Any, result: Any, site_url: str) -> JudgeResult:
    (genre,) = from_task(task, r"How many (\w+) books are in stock", ("poetry",))
    if not any(b.genre == genre for b in DATA.books):
        return unknown_value(f"the genre {genre!r}")
    expected = sum(1 for b in DATA.books if b.genre == genre and b.in_stock)
    return judge_count(changes(library_state(site_url)), result.value, expected)


@reads_task
def author_books(task: Any, result: Any, site_url: str) -> JudgeResult:
    (author,) = from_task(task, r"Which books by (.+?) does the library have", ("Hana Sato",))
    if _author(author) is None:
        return unknown_value(f"the author {author!r}")
    mine = [b.title for b in DATA.books if b.author == author]
    others = [b.title for b in DATA.books if b.author != author]
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


@reads_task
def set_price(task: Any, result: Any, site_url: str) -> JudgeResult:
    title, price = from_task(task, r"change the price of '(.+?)' to (\d+(?:\.\d+)?)", ("Moths of the Steppe", "19.99"))
    spec = _book(title)
    if spec is None:
        return unknown_value(f"the book {title!r}")
    return _exactly(site_url, _set(_price(spec.price), ("book", title, "price", _price(price))))


@reads_task
def out_of_stock(task: Any, result: Any, site_url: str) -> JudgeResult:
    (title,) = from_task(task, r"mark the book '(.+?)' as out of stock", ("Cells and Stars",))
    spec = _book(title)
    if spec is None:
        return unknown_value(f"the book {title!r}")
    return _exactly(site_url, _set(spec.in_stock, ("book", title, "in_stock", "False")))


@reads_task
def add_book(task: Any, result: Any, site_url: str) -> JudgeResult:
    title, author, genre, year, price = from_task(
        task, r"add the book '(.+?)' by (.+?): (\w+), (\d{4}), price (\d+(?:\.\d+)?)",
        tuple(str(NEW_BOOK[k]) for k in ("title", "author", "genre", "year", "price")))  # fmt: skip
    if _author(author) is None:
        return unknown_value(f"the author {author!r}")
    want = {"title": title, "author": author, "year": int(year), "genre": genre, "in_stock": True, "price": _price(price)}
    verdict = _exactly(site_url, [("new book", title)])
    if not verdict.ok:
        return verdict
    new = library_state(site_url)["books"][-1]
    got = {k: (_price(new[k]) if k == "price" else new[k]) for k in want}
    if got != want:
        return JudgeResult(False, f"the new book is {got}, not {want}")
    return verdict


@reads_task
def add_author(task: Any, result: Any, site_url: str) -> JudgeResult:
    name, country = from_task(task, r"add the author (.+?), from (.+?)\.?$", (NEW_AUTHOR["name"], NEW_AUTHOR["country"]))
    verdict = _exactly(site_url, [("new author", name)])
    if not verdict.ok:
        return verdict
    new = library_state(site_url)["authors"][-1]
    if new["country"] != country:
        return JudgeResult(False, f"the new author's country is {new['country']!r}, not {country!r}")
    return verdict


@reads_task
def delete_book(task: Any, result: Any, site_url: str) -> JudgeResult:
    (title,) = from_task(task, r"delete the book '(.+?)'", ("Counting with Bears",))
    if _book(title) is None:
        return unknown_value(f"the book {title!r}")
    # a loan's book is a foreign key with on_delete=CASCADE: the admin deletes the book's loans with it
    loans = [("deleted loan", str(i)) for i, loan in enumerate(DATA.loans, 1) if loan.book == title]
    return _exactly(site_url, [("deleted book", title), *loans])


@reads_task
def return_loans(task: Any, result: Any, site_url: str) -> JudgeResult:
    (borrower,) = from_task(task, r"mark all of (.+?)'s outstanding loans", (RETURNED_BY,))
    if not any(loan.borrower == borrower for loan in DATA.loans):
        return unknown_value(f"the borrower {borrower!r}")
    outstanding = [i for i, loan in enumerate(DATA.loans, 1) if loan.borrower == borrower and loan.status != "returned"]
    return _exactly(site_url, [("loan", str(i), "status", "returned") for i in outstanding])


@reads_task
def loan_overdue(task: Any, result: Any, site_url: str) -> JudgeResult:
    borrower, book, status = from_task(task, r"set (.+?)'s loan of '(.+?)' to (\w+)",
                                       ("Maya Patel", "A Winter in Uppsala", "overdue"))  # fmt: skip
    n = next((i for i, loan in enumerate(DATA.loans, 1) if loan.borrower == borrower and loan.book == book), None)
    if n is None:
        return unknown_value(f"a loan of {book!r} to {borrower!r}")
    return _exactly(site_url, _set(DATA.loans[n - 1].status, ("loan", str(n), "status", status)))


@reads_task
def author_country(task: Any, result: Any, site_url: str) -> JudgeResult:
    name, country = from_task(task, r"change the country of the author (.+?) to (.+?)\.?$", ("Jonas Becker", "Austria"))
    spec = _author(name)
    if spec is None:
        return unknown_value(f"the author {name!r}")
    return _exactly(site_url, _set(spec.country, ("author", name, "country", country)))
