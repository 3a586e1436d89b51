"""The food site's reference plans check valid; mutants of one fail with the right code and line."""

from __future__ import annotations

from pathlib import Path

import pytest

import agentjit
from agentjit.cache import ToolCache
from agentjit.planner import check

FOOD = Path(agentjit.__file__).parent / "bench" / "food"
PLANS = sorted((FOOD / "plans").glob("*.py"))

# Plans the checker rejects for a real reason; strict, so a fix of the plan shows up here.
KNOWN_UNSAFE: dict[str, str] = {}

pytestmark = pytest.mark.skipif(not (FOOD / "cache" / "cache.json").exists() or not PLANS, reason="no food cache")


@pytest.fixture(scope="module")
def food_cache() -> ToolCache:
    return ToolCache.load(FOOD / "cache")


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=KNOWN_UNSAFE[p.name])) if p.name in KNOWN_UNSAFE else p
        for p in PLANS
    ],
    ids=[p.stem for p in PLANS],
)
def test_reference_plan_is_valid(path: Path, food_cache: ToolCache) -> None:
    result = check(path.read_text(), food_cache)
    assert result.valid, [str(d) for d in result.diagnostics]
    assert result.cost is not None and result.cost > 0


BASE = """\
await goto_store(name="Stonemill Matcha")
menu = await list_menu_items()
prices = {}
for item in menu.items:
    prices[item.name.lower()] = item.price
result = prices
"""


@pytest.mark.parametrize(
    ("old", "new", "code", "line"),
    [
        ('await goto_store(name="Stonemill Matcha")\n', "await goto_home()\n", "precondition", 2),
        ("await list_menu_items()", "await list_menu()", "unknown-tool", 2),
        ('name="Stonemill Matcha"', "name=7", "argument-type", 1),
        ('goto_store(name="Stonemill Matcha")', "goto_store()", "missing-argument", 1),
        ("item.price", "item.cost", "unknown-field", 5),
        ("prices = {}\n", "import os\nprices = {}\n", "forbidden", 3),
        ("result = prices", "result = prices.__class__", "forbidden", 6),
        ("result = prices", 'result = exec("prices")', "forbidden", 6),
    ],
    ids=["nav-removed", "unknown-tool", "arg-type", "missing-arg", "unknown-field", "import", "dunder", "exec"],
)
def test_mutant_fails_with_code_and_line(old: str, new: str, code: str, line: int, food_cache: ToolCache) -> None:
    assert check(BASE, food_cache).valid
    mutant = BASE.replace(old, new, 1)
    assert mutant != BASE
    result = check(mutant, food_cache)
    assert [(d.code, d.line) for d in result.diagnostics] == [(code, line)], [str(d) for d in result.diagnostics]
