"""The step-coverage count of the built cache: every demonstrated step is either covered or listed."""

from __future__ import annotations

from pathlib import Path

from agentjit.bench.django_admin import CACHE_DIR
from toolcache.coverage import step_coverage

TRACES = Path(__file__).parents[3] / "traces" / "django_admin"


async def test_every_step_is_covered_or_listed() -> None:
    files = sorted(TRACES.glob("*.jsonl"))
    cov = await step_coverage(files, CACHE_DIR)
    assert cov.steps == cov.covered + len(cov.missed) and cov.steps > 90
    assert 0 < cov.fraction < 1
    missed = {(m["trace"], m["index"]) for m in cov.missed}
    assert ("search_books.jsonl", 6) not in missed  # "Search": the search tool clicks it
    assert ("view_book.jsonl", 3) not in missed  # "Log in": the login tool
    assert all(m["action"] != "goto" for m in cov.missed)


async def test_a_cache_without_a_tool_for_an_element_misses_its_steps(tmp_path: Path) -> None:
    """Drop the login tool from a copy of the cache: every demonstrated "Log in" click is then missed."""
    import shutil

    copy = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, copy)
    (copy / "tools" / "login.json").unlink()
    full = await step_coverage([TRACES / "view_book.jsonl"], CACHE_DIR)
    cut = await step_coverage([TRACES / "view_book.jsonl"], copy)
    assert cut.covered < full.covered
    assert [(m["index"], m["action"]) for m in cut.missed if m["index"] <= 3] == [(1, "fill"), (2, "fill"), (3, "click")]
