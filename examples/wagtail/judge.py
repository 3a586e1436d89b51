"""Judge the Wagtail write plans from the site's database: python3 judge.py DB TASK...

Each task is judged by the rows Wagtail keeps (``wagtailcore_page``: title, draft_title, live;
``wagtailcore_revision``: a draft's content); prints ``TASK pass|fail what was found`` per task
and exits 1 when one fails.
"""

from __future__ import annotations

import json
import sqlite3
import sys


def _page(conn: sqlite3.Connection, slug: str) -> tuple[str, str, int, int | None] | None:
    return conn.execute("SELECT title, draft_title, live, latest_revision_id FROM wagtailcore_page WHERE slug = ?", (slug,)).fetchone()


def _latest(conn: sqlite3.Connection, slug: str) -> dict[str, object]:
    page = _page(conn, slug)
    if page is None or page[3] is None:
        return {}
    row = conn.execute("SELECT content FROM wagtailcore_revision WHERE id = ?", (page[3],)).fetchone()
    return json.loads(row[0]) if row else {}


def judge(conn: sqlite3.Connection, task: str) -> tuple[bool, str]:
    if task == "edit_title":
        page = _page(conn, "owls-guide")
        return page is not None and page[1] == "Owls Guide, revised", f"owls-guide: {page}"
    if task == "edit_body":
        body = str(_latest(conn, "bees-guide").get("body", ""))
        return "Bees dance to say where the flowers are." in body, f"bees-guide's latest body: {body[:120]!r}"
    if task == "publish_page":
        page = _page(conn, "kites-history")
        return page is not None and page[2] == 1, f"kites-history: {page}"
    if task == "delete_page":
        page = _page(conn, "ferns-notes")
        return page is None, f"ferns-notes: {page}"
    if task == "create_page":
        page = _page(conn, "moons-guide")
        body = str(_latest(conn, "moons-guide").get("body", ""))
        return page is not None and "The moon keeps one face to us." in body, f"moons-guide: {page}, body {body[:80]!r}"
    raise SystemExit(f"unknown task {task!r}")


def main(argv: list[str]) -> int:
    conn = sqlite3.connect(f"file:{argv[0]}?mode=ro", uri=True)
    failed = 0
    for task in argv[1:]:
        ok, found = judge(conn, task)
        failed += not ok
        print(f"{task} {'pass' if ok else 'fail'} {found}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
