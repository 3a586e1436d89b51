"""What the checker passes, runs: the bench's reference plans, mutated into the mistakes models make.

Every mutant (:mod:`.mutations`: wrong type, wrong arity, wrong keyword, unknown attribute, a loop
over a record instead of its list) is checked; those the checker passes run in Chromium against the
food site (the food plans) and must not fail on what the checker is there to catch: a guard refusal,
a type, arity or keyword error, an unknown field or a precondition. A run may still fail on the site
(a mutated store name is not on the page): that is not the checker's to know.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

import agentjit
from agentjit.bench.food import FoodSite
from agentjit.cache import ToolCache
from agentjit.exceptions import PlanError, PreconditionFailed, ToolCallFailed, ToolInputError
from agentjit.plan.signatures import PLAN_FUNCTIONS
from agentjit.planner import check
from agentjit.runtime import BrowserPool, run_plan

from .mutations import KINDS, mutants

BENCH = Path(agentjit.__file__).parent / "bench"
APPS = ("food", "roundup", "fava", "django_admin")

#: words of a run-time error the checker should have prevented
CHECKER_WORDS = ("TypeError", "AttributeError", "KeyError", "IndexError", "not allowed", "positional argument",
                 "has no parameter", "has no field", "is missing", "cannot leave the plan", "twice")


def _mutants_checked(app: str) -> tuple[Counter[str], list[tuple[str, str, str]]]:
    """How many mutants of each kind ``app``'s plans give, and ``(plan, mutant, source)`` of those the checker passes."""
    cache = ToolCache.load(BENCH / app / "cache")
    callables = set(cache.tools) | set(PLAN_FUNCTIONS)
    made: Counter[str] = Counter()
    passed: list[tuple[str, str, str]] = []
    for path in sorted((BENCH / app / "plans").glob("*.py")):
        for name, source in mutants(path.read_text(), callables):
            made[name.split("@")[0]] += 1
            if check(source, cache).valid:
                passed.append((path.stem, name, source))
    return made, passed


@pytest.mark.parametrize("app", APPS)
def test_the_checker_refuses_every_mutant_of_a_kind_it_can_decide(app: str) -> None:
    made, passed = _mutants_checked(app)
    assert sum(made.values()) >= 40, made
    assert {"wrong-type", "wrong-keyword", "wrong-arity"} <= set(made), made
    kinds = Counter(name.split("@")[0] for _, name, _ in passed)
    # a mutant that drops an optional argument is a fine plan; every other kind is a mistake the checker sees
    assert set(kinds) <= {"wrong-arity"}, [(plan, name) for plan, name, _ in passed if not name.startswith("wrong-arity")]


def _checker_should_have_caught(exc: BaseException) -> bool:
    if isinstance(exc, ToolInputError | PreconditionFailed):
        return True
    if isinstance(exc, ToolCallFailed):
        return False  # the site said no (an item that is not there): not a static fact
    return isinstance(exc, PlanError) and any(w in str(exc) for w in CHECKER_WORDS)


@pytest.mark.browser
async def test_every_food_mutant_the_checker_passes_runs(
    browser_pool: BrowserPool, food_site: FoodSite, food_cache: ToolCache
) -> None:
    made, passed = _mutants_checked("food")
    assert set(made) == set(KINDS), made
    assert passed, "no mutant passed the checker: the run half of this test ran nothing"
    failures: list[str] = []
    slots = asyncio.Semaphore(4)  # a context each; the errors looked for do not depend on the site's data

    async def run(plan: str, name: str, source: str) -> None:
        async with slots, browser_pool.page() as page:
            try:
                await run_plan(source, food_cache, page=page, base_url=food_site.url, timeout_ms=5000)
            except Exception as exc:  # what a run raises to its caller
                if _checker_should_have_caught(exc):
                    failures.append(f"{plan} {name}: {type(exc).__name__}: {exc}\n{source}")

    async with asyncio.TaskGroup() as tg:
        for plan, name, source in passed:
            tg.create_task(run(plan, name, source))
    assert not failures, "\n\n".join(failures)
