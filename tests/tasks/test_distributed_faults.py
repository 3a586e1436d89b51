"""The fault matrix across processes (``agentjit bench faults --processes``), a sample: Ray worker
processes killed mid-write, sharing an SQLite and a PostgreSQL effect store, judged from the food
site's own write log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.faults_bench import FaultSpec
from agentjit.bench.faults_processes import client_pid, run_process_fault_matrix
from agentjit.bench.postgres import Postgres

pytestmark = pytest.mark.browser


def test_a_fault_names_the_worker_process_that_sent_the_request() -> None:
    assert client_pid("4242:w0-3") == 4242
    assert client_pid("w0-3") is None and client_pid(None) is None


async def test_worker_processes_killed_mid_write_send_each_write_once(
    ray_cluster: Any, postgres: Postgres, tmp_path: Path
) -> None:
    """Run 0: the worker is killed after the site applied its first write (crash after send, before
    record): the claim stays under a dead owner, so the write is uncertain and never sent again.
    Run 1: the worker is killed on the page read after a committed write (before the site answers):
    a fresh worker process replays the committed write from the store and finishes the task."""
    stores = [f"sqlite:///{tmp_path}/effects.db", *([postgres.url] if postgres.url else [])]
    report = await run_process_fault_matrix("food", stores=stores, runs=2, strategies=("serial",),
                                            faults=[FaultSpec("kill", "after"), FaultSpec("kill", "before")])  # fmt: skip
    data = report.to_json()
    t = data["totals"]
    assert t["faulted_runs"] == 2
    assert (t["duplicated"], t["lost"], t["unaccounted"], t["uncertain_silent"]) == (0, 0, 0, 0), data["runs"]
    first, second = report.runs  # (an execution may also fail before the fault: a tool timed out on a loaded machine)
    assert (first.fault, first.target, first.status) == ("kill-after", "first-write", "uncertain")
    assert first.site == {"add_to_cart/mochiset": 1} and "died" in first.errors[-1]
    assert (second.fault, second.target, second.status) == ("kill-before", "read-after-write", "ok")
    assert second.executions >= 2 and any("died" in e for e in second.errors)
    assert second.site == {"add_to_cart/mochiset": 1, "place_order": 1}
    assert data["workers_killed"] == 2 and data["workers_started"] >= 3
    assert [r["store"] for r in data["runs"]] == [s.split("@")[-1] for s in stores] + (
        [] if postgres.url else [stores[0]])
