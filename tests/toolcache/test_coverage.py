"""The build reports which demonstrated steps its tools cover, and names the others."""

from __future__ import annotations

from pathlib import Path

from toolcache.build import build_cache

TRACES = Path(__file__).parents[2] / "traces" / "food"


async def test_the_build_counts_the_steps_its_tools_cover_and_lists_the_rest(tmp_path: Path) -> None:
    _, report = await build_cache([TRACES], tmp_path / "out")
    cov = report.coverage
    assert cov is not None and cov.steps > 20
    assert cov.covered + len(cov.missed) == cov.steps
    assert 0.8 < cov.fraction <= 1.0
    for miss in cov.missed:  # each uncovered step says where it is and why
        assert miss["trace"].endswith(".jsonl") and miss["action"] != "goto" and miss["why"]
    data = report.to_json()["coverage"]
    assert data["steps"] == cov.steps and data["covered"] == cov.covered


async def test_a_step_is_covered_only_by_a_tool_that_acts_on_its_element(tmp_path: Path) -> None:
    _, report = await build_cache([TRACES], tmp_path / "out")
    assert report.coverage is not None
    from toolcache.coverage import count_coverage

    assert count_coverage({}, []).fraction == 1.0
    # with no tools nothing is covered
    from toolcache.build import BuildReport, _extract, _label, load_traces

    loaded = load_traces([TRACES], BuildReport())
    site, per_step = _extract(loaded, None, ())
    labeled = await _label(loaded, site, per_step, None, BuildReport(), None)
    none = count_coverage(labeled, [])
    assert none.covered == 0 and none.steps == report.coverage.steps
