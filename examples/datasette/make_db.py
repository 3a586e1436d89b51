"""Write library.db: a small deterministic sqlite database for datasette.

    python examples/datasette/make_db.py [OUT.db]

Three tables with foreign keys (publishers <- books -> authors), 320 books so a
table page (100 rows by default) paginates, and full-text search on book titles.
Any Python 3 runs it; it needs nothing but the standard library.
"""

from __future__ import annotations

import random
import sqlite3
import sys
from pathlib import Path

COUNTRIES = ["France", "Germany", "Japan", "Kenya", "Mexico", "Norway", "Peru", "Spain"]
GENRES = ["Fantasy", "History", "Mystery", "Poetry", "Romance", "Science", "Travel"]
FIRST = ["Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas",
         "Keiko", "Luis", "Maren", "Nadia", "Omar", "Paula", "Quentin", "Rosa", "Sven", "Tomas"]
LAST = ["Alvarez", "Berg", "Costa", "Dubois", "Eriksen", "Fujita", "Gomez", "Haas", "Ito", "Jensen"]
WORDS = ["River", "Shadow", "Garden", "Winter", "Lantern", "Harbor", "Mountain", "Silence",
         "Orchard", "Compass", "Mirror", "Storm", "Salt", "Ember", "Meadow", "Glass", "Iron",
         "Feather", "Tide", "Crown"]
PUBLISHERS = ["Northwind Press", "Blue Heron Books", "Atlas House", "Quill & Ink",
              "Meridian", "Larkspur Editions"]


def build(path: Path) -> None:
    rng = random.Random(20261201)
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE publishers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL,
                              born INTEGER NOT NULL);
        CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                            author_id INTEGER NOT NULL REFERENCES authors(id),
                            publisher_id INTEGER NOT NULL REFERENCES publishers(id),
                            year INTEGER NOT NULL, genre TEXT NOT NULL, pages INTEGER NOT NULL,
                            price REAL NOT NULL);
    """)
    for i, name in enumerate(PUBLISHERS, 1):
        con.execute("INSERT INTO publishers VALUES (?, ?, ?)", (i, name, rng.choice(COUNTRIES)))
    names: set[str] = set()
    while len(names) < 40:
        names.add(f"{rng.choice(FIRST)} {rng.choice(LAST)}")
    for i, name in enumerate(sorted(names), 1):
        con.execute("INSERT INTO authors VALUES (?, ?, ?, ?)",
                    (i, name, rng.choice(COUNTRIES), rng.randint(1930, 1995)))
    titles: set[str] = set()
    while len(titles) < 320:
        a, b = rng.sample(WORDS, 2)
        titles.add(rng.choice([f"The {a} of {b}", f"{a} and {b}", f"A {a} in the {b}",
                               f"{a} {b}"]))
    # a set iterates in an order that changes with the hash seed: sort first, then shuffle by the seeded rng
    for i, title in enumerate(sorted(sorted(titles), key=lambda t: rng.random()), 1):
        con.execute("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (i, title, rng.randint(1, 40), rng.randint(1, len(PUBLISHERS)),
                     rng.randint(1960, 2024), rng.choice(GENRES), rng.randint(90, 900),
                     round(rng.uniform(5, 60), 2)))
    con.executescript("""
        CREATE VIRTUAL TABLE books_fts USING fts5(title, content="books", content_rowid="id");
        INSERT INTO books_fts (rowid, title) SELECT id, title FROM books;
    """)
    con.commit()
    con.close()


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "library.db")
    build(out)
    print(out)
