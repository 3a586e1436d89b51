"""A default build (``--verify-writes recorded``) on Trac never changes Trac's data.

Two write demonstrations (a new ticket, a comment) are built and verified against the
running site; every table of Trac's database is the same afterwards, row for row, except
Trac's own record of anonymous browsing sessions (``session``, ``session_attribute``: Trac
remembers a visitor's last query there, which any page view may update).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agentjit.runtime import BrowserPool
from toolcache.build import build_cache

TRACES = Path(__file__).parents[3] / "traces" / "trac"
BROWSING = {"session", "session_attribute"}


def _dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(con.execute(f'SELECT * FROM "{t}"'), key=repr) for t in tables if t not in BROWSING}  # noqa: S608 - names from sqlite_master
    finally:
        con.close()


@pytest.mark.browser
async def test_a_default_build_leaves_the_data_unchanged(trac_site: Any, browser_pool: BrowserPool, tmp_path: Path) -> None:
    before = _dump(trac_site.db_path)
    traces = [TRACES / "create_ticket.jsonl", TRACES / "comment_ticket.jsonl"]
    cache, report = await build_cache(traces, tmp_path / "cache", base_url=trac_site.url, pool=browser_pool)
    assert _dump(trac_site.db_path) == before
    assert report.writes.get("create_ticket") == "recorded", report.writes  # verified from the recorded answer
    assert "create_ticket" in cache.tools
