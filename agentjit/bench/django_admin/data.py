"""The library's seed data: authors, books and loans, the same on every start.

Judges and expected answers are computed from :data:`DATA`, never read off a
running site, so tasks follow the data if it changes.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

__all__ = ["AuthorSpec", "BookSpec", "LoanSpec", "Dataset", "DATA", "USERNAME", "PASSWORD"]

USERNAME = "admin"
PASSWORD = "library-pass-1"
"""The superuser's password (a test site on 127.0.0.1; the recorder redacts it from traces)."""

_AUTHORS = (
    ("Ada Lindqvist", "Sweden"), ("Bruno Ferreira", "Portugal"), ("Chiara Russo", "Italy"),
    ("Dmitri Volkov", "Russia"), ("Elena Marquez", "Spain"), ("Farah Haddad", "Lebanon"),
    ("George Whitfield", "England"), ("Hana Sato", "Japan"), ("Ingrid Olsen", "Norway"),
    ("Jonas Becker", "Germany"),
)
# (title, author index, year, genre, in stock, price)
_BOOKS = (
    ("A Winter in Uppsala", 0, 1998, "fiction", True, "14.50"),
    ("Northern Lights and Other Poems", 0, 2004, "poetry", True, "9.90"),
    ("The Salt Road", 1, 1987, "history", False, "22.00"),
    ("Harbour Songs", 1, 2011, "poetry", True, "11.25"),
    ("The Glassmaker's Daughter", 2, 2015, "fiction", True, "16.00"),
    ("Rome Before the Emperors", 2, 1979, "history", True, "27.40"),
    ("Cells and Stars", 3, 2002, "science", True, "31.00"),
    ("The Last Tsar's Library", 3, 1993, "history", False, "19.80"),
    ("Moths of the Steppe", 3, 2019, "science", True, "24.99"),
    ("Orange Blossom Street", 4, 2008, "fiction", True, "12.75"),
    ("Little Fox Finds a Home", 4, 2016, "children", True, "7.50"),
    ("The Cedar Letters", 5, 2001, "fiction", False, "15.60"),
    ("Beirut at Dawn", 5, 2012, "poetry", True, "10.40"),
    ("Spice Routes", 5, 1995, "history", True, "25.00"),
    ("The Clockwork Garden", 6, 1968, "fiction", True, "8.99"),
    ("A Short History of Tea", 6, 1974, "history", True, "13.20"),
    ("Rain on the Moor", 6, 1983, "poetry", False, "9.10"),
    ("Paper Cranes", 7, 2010, "children", True, "6.80"),
    ("Tides and the Moon", 7, 2018, "science", True, "29.50"),
    ("The Quiet Lantern", 7, 2005, "fiction", True, "14.00"),
    ("Fjord Tales for Children", 8, 1999, "children", False, "8.25"),
    ("Ice Cores", 8, 2021, "science", True, "34.90"),
    ("The Ferryman's Wife", 8, 1991, "fiction", True, "13.60"),
    ("Stone Bridges of Bavaria", 9, 1986, "history", True, "21.75"),
    ("Counting with Bears", 9, 2014, "children", True, "5.99"),
    ("The Physics of Snow", 9, 2007, "science", False, "26.30"),
    ("Letters from Lisbon", 1, 1990, "fiction", True, "12.10"),
    ("Volcano Diaries", 2, 2020, "science", True, "23.45"),
    ("Songs of the Baltic", 0, 1977, "poetry", True, "10.00"),
    ("The Map Thief", 4, 1996, "fiction", True, "15.95"),
    ("Dragons Under the Bed", 6, 2009, "children", True, "7.25"),
    ("Silk and Iron", 7, 1988, "history", True, "20.00"),
    ("An Atlas of Clouds", 3, 2013, "science", True, "28.00"),
    ("Evening Haiku", 7, 1972, "poetry", True, "8.40"),
    ("The Orchard Keeper", 9, 2003, "fiction", False, "14.80"),
    ("Migrations", 5, 2017, "science", True, "27.10"),
    ("The Lighthouse Cat", 8, 2006, "children", True, "6.50"),
    ("Kings of the North Sea", 8, 1981, "history", True, "24.20"),
    ("The Empty Stage", 2, 1994, "fiction", True, "11.90"),
    ("Bread and Salt", 4, 2022, "poetry", True, "9.75"),
)
_BORROWERS = ("Maya Patel", "Tom Becker", "Lucia Gomez", "Sam Okafor", "Nora Quinn", "Ravi Shah")
_STATUS_CYCLE = ("out", "returned", "overdue", "returned", "out")


@dataclass(frozen=True)
class AuthorSpec:
    name: str
    country: str


@dataclass(frozen=True)
class BookSpec:
    title: str
    author: str
    year: int
    genre: str
    in_stock: bool
    price: Decimal


@dataclass(frozen=True)
class LoanSpec:
    book: str
    borrower: str
    loaned_on: datetime.date
    due_on: datetime.date
    status: str


@dataclass(frozen=True)
class Dataset:
    authors: tuple[AuthorSpec, ...]
    books: tuple[BookSpec, ...]
    loans: tuple[LoanSpec, ...]

    def book(self, title: str) -> BookSpec:
        for b in self.books:
            if b.title == title:
                return b
        raise KeyError(title)


def _dataset() -> Dataset:
    authors = tuple(AuthorSpec(n, c) for n, c in _AUTHORS)
    books = tuple(BookSpec(t, authors[a].name, y, g, s, Decimal(p)) for t, a, y, g, s, p in _BOOKS)
    loans = []
    for i in range(30):
        book = books[(i * 7) % len(books)]
        loaned = datetime.date(2026, 9, 1) + datetime.timedelta(days=i * 2)
        loans.append(LoanSpec(book.title, _BORROWERS[i % len(_BORROWERS)], loaned, loaned + datetime.timedelta(days=21),
                              _STATUS_CYCLE[i % len(_STATUS_CYCLE)]))
    return Dataset(authors, books, tuple(loans))


DATA = _dataset()
"""The seed: 10 authors, 40 books, 30 loans."""
