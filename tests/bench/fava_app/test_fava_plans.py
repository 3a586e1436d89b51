"""Fava reference plans over the built cache (no hand-written tool) pass their judges.

``agentjit/bench/fava/cache`` is what ``toolcache build traces/fava --site URL`` wrote;
so far its tools answer only the two balance tasks (traces/fava/README.md says why).
"""

from __future__ import annotations

from typing import Any

import pytest

from agentjit.bench.apps import get_app
from agentjit.bench.fava import FavaSite
from agentjit.bench.harness import run_tasks
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.runtime import BrowserPool

APP = get_app("fava")
PLANNED = [t for t in APP.tasks() if t.has_plan]


def cache() -> ToolCache:
    return ToolCache.load(APP.cache_dir)


def test_the_cache_was_built_not_written() -> None:
    info = cache().info
    assert info.builder["verified"] is True
    assert info.builder["traces"] and all(t.startswith("traces/fava/") for t in info.builder["traces"])
    assert info.initial_state["page"].endswith("income_statement")  # where Fava's / lands


def test_which_tasks_have_plans() -> None:
    assert [t.id for t in PLANNED] == ["checking-balance", "slate-balance"]


@pytest.mark.parametrize("t", PLANNED, ids=[t.id for t in PLANNED])
def test_reference_plans_pass_the_static_checker(t: Any) -> None:
    result = check(t.plan_source(), cache())
    assert result.valid, [str(d) for d in result.diagnostics]


@pytest.mark.browser
async def test_reference_plans_pass_their_judges(fava_site: FavaSite, browser_pool: BrowserPool) -> None:
    report = await run_tasks(PLANNED, cache=cache(), site=fava_site, pool=browser_pool)
    failed = {r.id: r.reason for r in report.tasks if not r.ok}
    assert not failed
    assert all(r.writes == 0 for r in report.tasks)
