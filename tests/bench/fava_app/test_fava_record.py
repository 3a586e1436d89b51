"""The Fava demonstrations replay in Chromium: the SPA's filters change the URL, the form writes once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.fava import FavaSite, judges
from agentjit.protocol.trace import read_trace
from agentjit.runtime import BrowserPool
from toolcache.record import record_script
from toolcache.script import load_script

SCRIPTS = Path(__file__).parents[3] / "traces" / "fava" / "scripts"

pytestmark = pytest.mark.browser


@dataclass
class Result:
    value: Any = None


def test_every_script_parses_and_the_traces_are_there() -> None:
    names = sorted(p.stem for p in SCRIPTS.glob("*.json"))
    assert len(names) >= 10
    for name in names:
        load_script(SCRIPTS / f"{name}.json")
        trace = read_trace(SCRIPTS.parent / f"{name}.jsonl")
        assert trace.steps and all(s.ok for s in trace.steps), name


async def test_time_filter_is_recorded_as_a_url_change(browser_pool: BrowserPool, fava_site: FavaSite, tmp_path: Path) -> None:
    script = load_script(SCRIPTS / "income_2024.json")
    trace = read_trace(await record_script(browser_pool, script, fava_site.url, tmp_path / "t.jsonl", site="fava"))
    assert [s.ok for s in trace.steps] == [True] * len(script.steps)
    press = trace.steps[-1]
    assert press.url_after is not None and press.url_after.endswith("/income_statement/?time=2024")
    assert press.target is not None and press.target.role == "combobox"
    assert not any(s.requests for s in trace.steps)  # a filter is a read


async def test_the_add_entry_form_writes_one_transaction(browser_pool: BrowserPool, fava_site: FavaSite, tmp_path: Path) -> None:
    script = load_script(SCRIPTS / "add_lunch.json")
    trace = read_trace(await record_script(browser_pool, script, fava_site.url, tmp_path / "t.jsonl", site="fava"))
    assert all(s.ok for s in trace.steps)
    writes = [r for s in trace.steps for r in s.requests]
    assert [(w["method"], w["url"].rsplit("/", 1)[-1], w["status"]) for w in writes] == [("PUT", "add_entries", 200)]
    fills = [s for s in trace.steps if s.action == "fill"]
    assert fills and all(s.target is not None and s.target.in_dialog for s in fills)  # Fava's form is a <dialog>
    verdict = judges.add_lunch(None, Result(), fava_site.url)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(
    ("name", "test"),
    [
        ("coffee_journal", lambda t: any(p.account == "Expenses:Food:Coffee" for p in t.postings)),
        ("trip_journal", lambda t: "trip-los-angeles-2025" in (t.tags or ())),
        ("payee_journal", lambda t: t.payee == "Verizon Wireless"),
    ],
)
def test_recorded_snapshots_show_the_filtered_journal(name: str, test: Any) -> None:
    # The recorder waits for the network to go idle after the SPA's client-side routing, so the
    # DOM it stores is the filtered journal, not the page before the filter applied.
    from beancount import loader

    from agentjit.bench.fava import generate_ledger

    entries, _, _ = loader.load_string(generate_ledger())
    expected = sum(1 for t in judges.transactions(entries) if test(t))
    trace = read_trace(SCRIPTS.parent / f"{name}.jsonl")
    html = trace.snapshot_html(trace.steps[-1])
    assert html.count('<li class="transaction') == expected > 0
