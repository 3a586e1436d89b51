"""The stepwise agent, driven by the oracle policy, passes every Roundup and Fava task's judge, writes included.

The oracle replays the task's recorded demonstration (``traces/<app>/tasks/<id>.jsonl``,
recorded with ``toolcache record`` from the script beside it; a redacted password is
typed from that script) and says the script's ``answer`` with ``done``; the judge
reads the site's own state (Roundup's database, Fava's ledger with beancount), so a
write task passes only when its write reached the site exactly once. The run is the
bench's own (:func:`agentjit.bench.e2e._agent_run`), with free model calls.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentjit.bench import oracle
from agentjit.bench.agent_runs import judge_answer
from agentjit.bench.e2e import _agent_run, run_e2e
from agentjit.bench.oracle import has_demo
from agentjit.exceptions import ConfigError
from agentjit.llm.latency import get_profile
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app

APPS = ("roundup", "fava")
TASKS = [(app, t) for app in APPS for t in get_app(app).tasks()]


@pytest.mark.parametrize("app", APPS)
def test_every_task_has_a_demonstration(app: str) -> None:
    tasks = get_app(app).tasks()
    assert {t.kind for t in tasks} == {"read", "write"}
    assert [t.id for t in tasks if not has_demo(t)] == []


async def test_e2e_says_why_a_task_without_demonstration_cannot_run(monkeypatch: Any, tmp_path: Any) -> None:
    pytest.importorskip("roundup")
    monkeypatch.setattr(oracle, "DEMOS_ROOT", tmp_path)
    with pytest.raises(ConfigError, match="no recorded demonstration for task 'create-issue'"):
        await run_e2e("roundup", task_ids=["create-issue"])


@pytest.mark.browser
@pytest.mark.parametrize(("app", "task"), TASKS, ids=[f"{app}-{t.id}" for app, t in TASKS])
async def test_oracle_agent_passes_the_judges(app: str, task: Any, request: Any, browser_pool: BrowserPool) -> None:
    site = request.getfixturevalue(f"{app}_site_session")  # skipped when the app is not installed
    run = await _agent_run(task, 0, pool=browser_pool, site=site, cache=get_app(app).load_cache(),
                           profile=get_profile("none"), budget_tokens=6000, real=None)  # fmt: skip
    assert run.ok, run.reason
    assert run.model_calls == run.steps and run.steps >= 2  # one call per action, the last one done


@pytest.mark.browser
async def test_a_rerun_in_a_fresh_context_replays_the_writes_in_their_session(
    roundup_site: Any, browser_pool: BrowserPool
) -> None:
    """A write task run twice under one effect log: the second run, in a new context, sends nothing and
    still passes, because the replayed login brings back its session (it failed signed out before)."""
    from agentjit.agent import StepwiseAgent
    from agentjit.runtime.effects import EffectLog
    from agentjit.runtime.runner import goto_start

    task = next(t for t in get_app("roundup").tasks() if t.id == "set-status")
    start = roundup_site.url.rstrip("/") + get_app("roundup").load_cache().info.start_path
    effects = EffectLog()
    before = roundup_site.state()
    for attempt in range(2):
        async with browser_pool.context() as ctx:
            page = await ctx.new_page()
            await goto_start(page, start)
            agent = StepwiseAgent(oracle.oracle_model(task), base_url=roundup_site.url, effects=effects, snapshots=False)
            result = await agent.run(page, task.task)
        ok, reason = judge_answer(task, result.answer, before, roundup_site.state(), roundup_site.url)
        assert ok, f"attempt {attempt + 1}: {reason}"
        assert [s.replayed for s in result.steps if s.effect == "WRITE"] == [bool(attempt)] * 2  # login, then the edit
    assert effects.sent == 2 and effects.replays == 2
