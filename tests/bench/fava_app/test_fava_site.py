"""The Fava site without a browser: generated ledger, serving, state, reset."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from agentjit.bench.fava import DATE_BEGIN, DATE_END, LEDGER_SLUG, FavaSite, generate_ledger


def get(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=10) as resp:  # noqa: S310 - loopback
        return resp.url, resp.read().decode()


def narrations(site: FavaSite) -> list[str]:
    get(f"{site.ledger_url}/api/changed")  # Fava's API reloads a changed file only here
    _, body = get(f"{site.ledger_url}/api/narrations")
    data: list[str] = json.loads(body)["data"]
    return data


PROBE = '\n2025-12-30 * "Probe" "agentjit probe"\n  Assets:US:BofA:Checking  -1.00 USD\n  Expenses:Food:Restaurant\n'


def test_ledger_is_the_same_every_time() -> None:
    first = generate_ledger()  # usually cached by the session's site
    generate_ledger.cache_clear()
    assert generate_ledger() == first


def test_root_redirects_to_the_income_statement(fava_site: FavaSite) -> None:
    url, body = get(fava_site.url + "/")
    assert url == f"{fava_site.url}/{LEDGER_SLUG}/income_statement/"
    assert "Example Beancount file</title>" in body


def test_state_reads_the_ledger(fava_site: FavaSite) -> None:
    state = fava_site.state()
    assert state["errors"] == []
    txns: list[dict[str, Any]] = state["transactions"]
    assert len(txns) > 500
    dates = sorted(t["date"] for t in txns)
    assert DATE_BEGIN.isoformat() <= dates[0] and dates[-1] <= DATE_END.isoformat()
    assert all(len(t["postings"]) >= 2 for t in txns)
    _, body = get(fava_site.url + "/__state")
    assert json.loads(body) == state


def test_reset_restores_the_file_and_fava_reloads(fava_site: FavaSite) -> None:
    before = fava_site.state()
    path = fava_site.ledger_path
    path.write_text(path.read_text(encoding="utf-8") + PROBE, encoding="utf-8")
    assert "agentjit probe" in narrations(fava_site)
    assert len(fava_site.state()["transactions"]) == len(before["transactions"]) + 1
    req = urllib.request.Request(fava_site.url + "/__reset", data=b"{}", method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - loopback
        assert resp.status == 200
    assert fava_site.state() == before
    assert "agentjit probe" not in narrations(fava_site)
