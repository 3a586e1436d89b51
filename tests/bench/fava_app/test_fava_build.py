"""What toolcache makes of the Fava traces (see traces/fava/README.md)."""

from __future__ import annotations

from pathlib import Path

from agentjit.protocol.trace import read_trace
from toolcache.build import _initial_state
from toolcache.extract import SiteSchema
from toolcache.label import LabeledStep

TRACES = Path(__file__).parents[3] / "traces" / "fava"


def test_a_run_starts_where_the_root_redirects() -> None:
    # Fava's / redirects to the income statement; there is no page called home.
    trace = read_trace(TRACES / "income_2024.jsonl")
    goto = trace.steps[0]
    assert goto.action == "goto" and goto.url_after is not None and goto.url_after.endswith("/income_statement/")
    steps = [LabeledStep(trace=str(trace.path), step=goto, page_before=None, page_after="ledger_income_statement")]
    rest = [LabeledStep(trace=str(trace.path), step=s, page_before="ledger_income_statement", page_after="ledger_income_statement")
            for s in trace.steps[1:]]  # fmt: skip
    assert _initial_state({"t": steps + rest}, SiteSchema()) == {"page": "ledger_income_statement"}
    assert _initial_state({"t": rest}, SiteSchema()) == {}
