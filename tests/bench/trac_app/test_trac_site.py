"""The Trac bench site: seed data in its own database, reset, the bench endpoints, concurrent requests."""

from __future__ import annotations

import json
import sqlite3
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

from agentjit.bench.trac import DATA
from agentjit.bench.trac.judges import changes
from agentjit.bench.trac.site import shipped_pages


def test_state_holds_the_seed(trac_site: Any) -> None:
    state = trac_site.state()
    assert [t["summary"] for t in state["tickets"]] == [t.summary for t in DATA.tickets]
    first, spec = state["tickets"][0], DATA.tickets[0]
    assert (first["owner"], first["priority"], first["milestone"], first["status"]) == (spec.owner, spec.priority, spec.milestone, spec.status)
    pages = {p["name"]: p for p in state["wiki"]}
    assert {p.name for p in DATA.wiki} | set(shipped_pages()) == set(pages)
    assert pages["ReleasePlan"]["text"] == DATA.page("ReleasePlan").text
    assert pages["TracGuide"]["text"] is None  # Trac's own help pages: not spelled out
    assert changes(state) == []


def _sql(site: Any, statement: str) -> None:
    with sqlite3.connect(site.db_path) as con:
        con.execute(statement)
    con.close()


def test_reset_restores_the_database_and_trac_sees_it(trac_site: Any) -> None:
    _sql(trac_site, "UPDATE ticket SET summary = 'changed' WHERE id = 1")
    _sql(trac_site, "DELETE FROM wiki WHERE name = 'OnCall'")
    assert changes(trac_site.state()) == [("deleted wiki", "OnCall"), ("ticket", "1", "summary", "changed")]
    with urllib.request.urlopen(trac_site.url + "ticket/1") as r:
        assert b"changed" in r.read()
    request = urllib.request.Request(trac_site.url + "__reset", data=b"", method="POST")
    with urllib.request.urlopen(request) as r:
        assert json.load(r) == {"ok": True}
    assert changes(trac_site.state()) == []
    with urllib.request.urlopen(trac_site.url + "ticket/1") as r:  # Trac's environment reopened: no stale page
        assert DATA.tickets[0].summary.encode() in r.read()


def test_the_pages_tasks_need_are_there_for_anonymous(trac_site: Any) -> None:
    for path, needle in [("", b"Welcome to Trac"), ("report/1", b"Export to CSV drops the last row"),
                         ("newticket", b'name="field_summary"'), ("wiki/OnCall?action=edit", b'name="text"'),
                         ("wiki/OnCall?action=rename", b'name="new_name"'), ("wiki/OnCall?action=delete", b"Delete page"),
                         ("ticket/3", b'id="action_resolve"'), ("chrome/common/css/trac.css", b"body")]:
        with urllib.request.urlopen(trac_site.url + path) as r:
            assert r.status == 200 and needle in r.read(), path
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(trac_site.url + "ticket/99")  # noqa: S310


def test_requests_run_side_by_side_and_a_reset_waits_for_them(trac_site: Any) -> None:
    """Four pages at once all answer; a reset meanwhile neither fails them nor is lost."""
    _sql(trac_site, "UPDATE ticket SET owner = 'zed' WHERE id = 2")
    statuses: list[int] = []

    def fetch() -> None:
        with urllib.request.urlopen(trac_site.url + "ticket/2") as r:
            r.read()
            statuses.append(r.status)

    threads = [threading.Thread(target=fetch) for _ in range(4)]
    for t in threads:
        t.start()
    trac_site.reset()
    for t in threads:
        t.join()
    assert statuses == [200] * 4
    assert changes(trac_site.state()) == []
