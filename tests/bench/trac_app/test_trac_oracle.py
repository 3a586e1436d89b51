"""The stepwise agent, driven by the oracle policy, passes the Trac tasks' judges.

The oracle replays each task's demonstration (``traces/trac/tasks/<id>.jsonl``);
the judges read Trac's database, so a write passes only when it reached the site
exactly once. This is the baseline the built tools are compared with: it needs no
built tool.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentjit.bench.e2e import _agent_run
from agentjit.bench.oracle import has_demo
from agentjit.llm.latency import get_profile
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app

APP = get_app("trac")
TASKS = {t.id: t for t in APP.tasks()}
RUN = ("release-manager", "close-ticket")
"""A wiki page opened from the page index, the workflow radio in the folded ticket editor (the suite's time is short)."""


def test_every_task_has_a_demonstration() -> None:
    assert {t.kind for t in TASKS.values()} == {"read", "write"}
    assert [t for t in TASKS.values() if not has_demo(t)] == []


@pytest.mark.browser
@pytest.mark.parametrize("task_id", RUN)
async def test_oracle_agent_passes_the_judges(task_id: str, trac_site: Any, browser_pool: BrowserPool) -> None:
    run = await _agent_run(TASKS[task_id], 0, pool=browser_pool, site=trac_site, cache=APP.load_cache(),
                           profile=get_profile("none"), budget_tokens=6000, real=None)  # fmt: skip
    assert run.ok, run.reason
    assert run.model_calls == run.steps and run.steps >= 2
