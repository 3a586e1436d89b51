"""One stepwise-agent run of a bench task as the benches time and judge it: the end-to-end bench and the
browser-use bench both compare against it (neither imports the other for it)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from agentjit.agent import StepwiseAgent
from agentjit.agent.stepwise import AgentResult
from agentjit.llm.base import Model
from agentjit.runtime import BrowserPool
from agentjit.runtime.runner import goto_start
from agentjit.tasks.apps import Site
from agentjit.tasks.task import Task

__all__ = ["agent_once", "judge_answer", "mean_or_zero"]


def judge_answer(task: Task, answer: Any, before: Any, after: Any, site_url: str) -> tuple[bool, str]:
    """``task``'s judge on an agent's ``answer`` and the site's state before and after."""

    class _Result:  # what a judge reads: the answer as ``value``
        value = answer

    verdict = task.evaluate(_Result(), before, after, site_url)
    return verdict.ok, verdict.reason


async def agent_once(task: Task, run: int, model: Model, *, pool: BrowserPool, site: Site, start_url: str,
                     budget_tokens: int = 6000) -> tuple[AgentResult, float, bool, str]:  # fmt: skip
    """One stepwise-agent run of ``task`` as the bench times it: ``(result, setup_s, ok, reason)``.

    The site is reset to the draws agentjit's run of this task meets too; the clock starts at a
    fresh context with the start page still to open (as agentjit's run is timed), ``setup_s``
    is that part. An agent error propagates.
    """
    site.reset(draws=f"{task.id}/run-{run}")
    before = site.state()
    t0 = time.perf_counter()
    async with pool.context() as ctx:
        page = await ctx.new_page()
        await goto_start(page, start_url)
        setup_s = time.perf_counter() - t0
        agent = StepwiseAgent(model, base_url=site.url, budget_tokens=budget_tokens, snapshots=False)
        result = await agent.run(page, task.task)
    ok, reason = judge_answer(task, result.answer, before, site.state(), site.url)
    return result, setup_s, ok, reason


def mean_or_zero(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0
