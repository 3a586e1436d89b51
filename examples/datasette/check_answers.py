"""Check the answers in tasks.toml against library.db with sqlite, not through datasette.

    python examples/datasette/check_answers.py [library.db]
"""

from __future__ import annotations

import sqlite3
import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

QUERIES: dict[str, Any] = {
    "poetry-count": lambda c: c.execute("select count(*) from books where genre = 'Poetry'").fetchone()[0],
    "lantern-search": lambda c: c.execute("select count(*) from books_fts where books_fts match 'lantern'").fetchone()[0],
    "book-7": lambda c: "{}, {}".format(*c.execute("select title, year from books where id = 7").fetchone()),
    "japan-authors": lambda c: [r[0] for r in c.execute("select name from authors where country = 'Japan' order by id")],
    "expensive-long": lambda c: "{}, {}".format(*c.execute(
        "select title, price from books where pages > 850 order by price desc limit 1").fetchone()),
    "sql-before-1970": lambda c: c.execute("select count(*) from books where year < 1970").fetchone()[0],
    "table-sizes": lambda c: {t: c.execute(f"select count(*) from {t}").fetchone()[0] for t in ("authors", "books", "publishers")},  # noqa: S608
    "book-250": lambda c: c.execute("select title from books where id = 250").fetchone()[0],
    "recent-books": lambda c: c.execute("select count(*) from books where year >= 2020").fetchone()[0],
    "longest-books": lambda c: [r[0] for r in c.execute("select title from books order by pages desc limit 3")],
    "author-of-42": lambda c: c.execute(
        "select a.name from books b join authors a on a.id = b.author_id where b.id = 42").fetchone()[0],
}


def main() -> int:
    db = sys.argv[1] if len(sys.argv) > 1 else "library.db"
    con = sqlite3.connect(db)
    tasks = tomllib.loads((HERE / "tasks.toml").read_text())["task"]
    bad = 0
    for t in tasks:
        got = QUERIES[t["id"]](con)
        ok = got == t["answer"]
        bad += not ok
        print(f"{'ok  ' if ok else 'DIFF'} {t['id']}: sqlite {got!r}, tasks.toml {t['answer']!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
