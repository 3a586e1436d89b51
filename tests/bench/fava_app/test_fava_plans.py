"""Fava reference plans over the built cache (no hand-written tool) pass their judges.

``agentjit/bench/fava/cache`` is what ``toolcache build traces/fava --app fava`` wrote;
all 12 tasks have plans over its tools.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentjit.bench.apps import get_app
from agentjit.bench.fava import FavaSite
from agentjit.bench.harness import run_tasks
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.planner.messages import PreconditionNotMet
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
    assert [t.id for t in PLANNED] == [t.id for t in APP.tasks()] and len(PLANNED) == 12


def test_the_checker_wants_the_dialog_open_before_saving() -> None:
    """The abstract state tracks dialogs: the entry form acts inside the add-entry dialog its opener opens."""
    tools = cache()
    opener = tools.tool("open_add_journal_entry")
    save = tools.tool("add_journal_entry")
    assert save.pre["dialog"] == opener.post["dialog"] and save.post["dialog"] == ""
    call = 'result = await add_journal_entry(date="2025-12-30", payee="P", narration="N", lines=[{"account": "Expenses:X", "amount": "1 USD"}])'
    refused = check(call, tools)
    assert not refused.valid
    assert any(isinstance(d, PreconditionNotMet) for d in refused.diagnostics), [str(d) for d in refused.diagnostics]
    assert check("await open_add_journal_entry()\n" + call, tools).valid
    # and the dialog cannot be opened twice
    assert not check("await open_add_journal_entry()\nresult = await open_add_journal_entry()", tools).valid


@pytest.mark.parametrize("t", PLANNED, ids=[t.id for t in PLANNED])
def test_reference_plans_pass_the_static_checker(t: Any) -> None:
    result = check(t.plan_source(), cache())
    assert result.valid, [str(d) for d in result.diagnostics]


@pytest.mark.browser
async def test_reference_plans_pass_their_judges(fava_site: FavaSite, browser_pool: BrowserPool) -> None:
    report = await run_tasks(PLANNED, cache=cache(), site=fava_site, pool=browser_pool)
    failed = {r.id: r.reason for r in report.tasks if not r.ok}
    assert not failed
    # reads change nothing; each write task saves exactly one entry (no duplicated write)
    assert {r.id: r.writes for r in report.tasks} == {t.id: int(t.kind == "write") for t in PLANNED}
