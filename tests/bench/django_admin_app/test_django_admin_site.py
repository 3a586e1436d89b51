"""The Django admin bench site: seed data in its own database, reset, the bench endpoints."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

import pytest

from agentjit.bench.django_admin import DATA, DjangoAdminSite


def test_state_holds_the_seed(django_admin_site: Any) -> None:
    state = django_admin_site.state()
    assert [b["title"] for b in state["books"]] == [b.title for b in DATA.books]
    assert [a["name"] for a in state["authors"]] == [a.name for a in DATA.authors]
    first = state["books"][0]
    spec = DATA.books[0]
    assert (first["author"], first["year"], first["genre"], first["in_stock"], first["price"]) == (
        spec.author, spec.year, spec.genre, spec.in_stock, f"{spec.price:.2f}")
    assert [(x["book"], x["borrower"], x["status"]) for x in state["loans"]] == [(x.book, x.borrower, x.status) for x in DATA.loans]


def test_reset_restores_the_database(django_admin_site: Any) -> None:
    with sqlite3.connect(django_admin_site.db_path) as con:
        con.execute("UPDATE library_book SET title = 'changed' WHERE id = 1")
        con.execute("DELETE FROM library_loan WHERE id = 2")
    con.close()
    state = django_admin_site.state()
    assert state["books"][0]["title"] == "changed" and len(state["loans"]) == 29
    request = urllib.request.Request(django_admin_site.url + "__reset", data=b"{}", method="POST")
    with urllib.request.urlopen(request) as r:
        assert json.load(r) == {"ok": True}
    state = django_admin_site.state()
    assert state["books"][0]["title"] == DATA.books[0].title and len(state["loans"]) == 30


def test_the_admin_asks_for_a_login_and_serves_its_static_files(django_admin_site: Any) -> None:
    with urllib.request.urlopen(django_admin_site.url) as r:  # / -> /admin/ -> the login page
        assert r.url.endswith("/admin/login/?next=/admin/")
        assert b'name="password"' in r.read()
    with urllib.request.urlopen(django_admin_site.url + "static/admin/js/actions.js") as r:
        assert r.status == 200 and b"action" in r.read()
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(django_admin_site.url + "nothing/")  # noqa: S310


def test_one_site_per_process(django_admin_site: Any) -> None:
    with pytest.raises(RuntimeError, match="already runs"):
        DjangoAdminSite().start()
    assert django_admin_site.state()["books"]  # the running one is untouched
