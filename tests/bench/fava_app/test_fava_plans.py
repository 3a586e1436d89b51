"""Fava reference plans over the built cache (no hand-written tool) pass their judges.

``agentjit/bench/fava/cache`` is what ``toolcache build traces/fava --app fava`` wrote;
all 12 tasks have plans over its tools.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from agentjit.bench.fava import FavaSite
from agentjit.cache import ToolCache
from agentjit.planner.checker import check
from agentjit.planner.messages import PreconditionNotMet
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import run_tasks

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


@pytest.mark.browser
async def test_a_filter_whose_data_comes_late_reads_the_filtered_report(
    fava_site: FavaSite, browser_pool: BrowserPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fava fetches a filtered report's data first and moves the URL only when it is in. With the data
    2.5 s late (a loaded machine, a ledger reloading), the filter tool waits for it: the plans read the
    filtered totals, not the unfiltered page still on screen (CI once answered 185001.15 for 91952.2)."""
    app = fava_site._app

    def late(environ: dict[str, Any], start_response: Any) -> Any:
        if "/api/" in environ.get("PATH_INFO", "") and environ.get("REQUEST_METHOD") == "GET":
            time.sleep(2.5)
        return app(environ, start_response)

    monkeypatch.setattr(fava_site, "_app", late)
    timed = [t for t in PLANNED if "filter_by_time(" in t.plan_source()]
    assert len(timed) >= 3
    report = await run_tasks(timed, cache=cache(), site=fava_site, pool=browser_pool)
    assert {r.id: r.reason for r in report.tasks if not r.ok} == {}
