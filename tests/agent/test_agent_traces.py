"""The stepwise agent as a trace source: its runs are traces the builder reads (start page, targets, snapshots)."""

from __future__ import annotations

from pathlib import Path

from agentjit.bench.agent_traces import record_with_agent
from agentjit.protocol.trace import read_trace

DEMO = Path(__file__).resolve().parents[2] / "traces" / "food" / "view_item_close.jsonl"


async def test_agent_runs_become_traces(browser_pool, food_site, tmp_path):
    [path] = await record_with_agent([DEMO], food_site, tmp_path, pool=browser_pool)
    trace = read_trace(path)
    assert trace.session.source == "agent" and trace.session.script == "view_item_close"
    first, *steps = trace.steps
    assert first.action == "goto" and first.url_after.endswith("/store/winstop") and first.snapshot
    recorded = [s for s in read_trace(DEMO).steps if s.action == "click"]
    assert [s.action for s in steps] == ["click"] * len(recorded)
    for mine, theirs in zip(steps, recorded, strict=True):
        assert mine.target is not None and mine.target.selector == theirs.target.selector
        assert mine.snapshot and trace.snapshot_html(mine)
        assert (mine.target.model_extra or {}).get("ancestors")
