"""The memory-per-context bench reads the browser's own processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentjit.bench.contexts import browser_pss_mib, measure_contexts
from agentjit.cli import main

pytestmark = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux smaps_rollup")


async def test_pss_counts_the_running_browser(browser_pool) -> None:
    async with browser_pool.page():
        assert browser_pss_mib() > 10  # Chromium's processes are children of this one


async def test_each_context_adds_memory() -> None:
    report = await measure_contexts("food", n=2)
    assert report["supported"] and len(report["pss_mib"]) == 3
    assert report["pss_mib"][2] > report["pss_mib"][0] and report["per_context_median_mib"] > 0


def test_cli_bench_contexts_json(capsys) -> None:
    assert main(["bench", "contexts", "-n", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["contexts"] == 1 and report["browser_alone_mib"] > 0
