"""The stepwise agent, driven by the oracle policy, passes every Roundup read task's judge.

The oracle replays the task's recorded demonstration (``traces/roundup/tasks/<id>.jsonl``,
recorded with ``toolcache record`` from the script beside it) and says the script's
``answer`` with ``done``; the judge reads the tracker's own database. The run is the
bench's own (:func:`agentjit.bench.e2e._agent_run`), with free model calls.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentjit.bench.apps import get_app
from agentjit.bench.e2e import _agent_run, run_e2e
from agentjit.bench.oracle import has_demo
from agentjit.exceptions import ConfigError
from agentjit.llm.latency import get_profile
from agentjit.runtime import BrowserPool

pytest.importorskip("roundup")

APP = get_app("roundup")
READS = [t for t in APP.tasks() if t.kind == "read"]


def test_every_read_task_has_a_demonstration() -> None:
    assert len(READS) >= 5 and all(has_demo(t) for t in READS)


async def test_e2e_says_why_a_task_without_demonstration_cannot_run() -> None:
    with pytest.raises(ConfigError, match="no recorded demonstration for task 'create-issue'"):
        await run_e2e("roundup", task_ids=["create-issue"])


@pytest.mark.browser
@pytest.mark.parametrize("task", READS, ids=[t.id for t in READS])
async def test_oracle_agent_passes_the_read_judges(task: Any, roundup_site_session: Any, browser_pool: BrowserPool) -> None:
    run = await _agent_run(task, 0, pool=browser_pool, site=roundup_site_session, cache=APP.load_cache(),
                           profile=get_profile("none"), budget_tokens=6000, real=None)  # fmt: skip
    assert run.ok, run.reason
    assert run.model_calls == run.steps and run.steps >= 2  # one call per action, the last one done
