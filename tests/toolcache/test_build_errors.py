"""Bad traces in a build: each named with its file and line, in the summary and in ``--json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolcache.cli import main

FOOD_TRACES = Path(__file__).resolve().parents[2] / "traces" / "food"


def _bad_dir(tmp_path: Path) -> Path:
    d = tmp_path / "traces"
    d.mkdir()
    shutil.copy(FOOD_TRACES / "browse_category.jsonl", d / "good.jsonl")
    lines = (FOOD_TRACES / "search_store.jsonl").read_text().splitlines()
    (d / "truncated.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:40] + "\n")
    (d / "version.jsonl").write_text(json.dumps({**json.loads(lines[0]), "version": 99}) + "\n")
    (d / "format.jsonl").write_text(json.dumps({**json.loads(lines[0]), "format": "har"}) + "\n")
    steps = [ln for ln in lines if json.loads(ln)["kind"] != "snapshot"]
    (d / "nosnap.jsonl").write_text("\n".join(steps) + "\n")
    (d / "empty.jsonl").write_text("")
    return d


def test_cli_json_reports_bad_traces_and_builds_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _bad_dir(tmp_path)
    assert main(["build", str(d), "-o", str(tmp_path / "cache"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    bad = {Path(b["path"]).name: b for b in data["bad_traces"]}
    assert set(bad) == {"truncated.jsonl", "version.jsonl", "format.jsonl", "nosnap.jsonl", "empty.jsonl"}
    for name, b in bad.items():
        assert b["error"].startswith(str(d / name)), b  # the message names the file ...
    assert bad["truncated.jsonl"]["line"] == 4 and f"{d / 'truncated.jsonl'}:4:" in bad["truncated.jsonl"]["error"]
    assert bad["version.jsonl"]["line"] == 1 and "version" in bad["version.jsonl"]["error"]
    assert bad["format.jsonl"]["line"] == 1 and "format" in bad["format.jsonl"]["error"]
    assert bad["nosnap.jsonl"]["line"] == 2 and "snapshot" in bad["nosnap.jsonl"]["error"]
    # ... and the build went on with the good one
    assert data["traces"] == 1 and data["tools"]["synthesized"] >= 5
    assert (tmp_path / "cache" / "cache.json").exists()


def test_cli_table_lists_bad_traces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _bad_dir(tmp_path)
    assert main(["build", str(d), "-o", str(tmp_path / "cache")]) == 0
    out = capsys.readouterr().out
    assert "traces read / bad" in out and "1 / 5" in out
    assert "truncated.jsonl:4" in out.replace("\n", "")


def test_cli_build_with_only_bad_traces_still_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "t"
    d.mkdir()
    (d / "a.jsonl").write_text("{not json\n")
    code = main(["build", str(d), "-o", str(tmp_path / "cache"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["traces"] == 0  # nothing to build from: a failing exit, the JSON still out
    assert data["bad_traces"][0]["line"] == 1 and "a.jsonl:1" in data["bad_traces"][0]["error"]


def _cache_files(root: Path) -> dict[str, str]:
    return {str(f.relative_to(root)): f.read_text() for f in sorted(root.rglob("*")) if f.is_file()}


@pytest.mark.parametrize("source", ["missing", "bad"])
def test_build_that_read_nothing_leaves_the_existing_cache(tmp_path: Path, source: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cache"
    assert main(["build", str(FOOD_TRACES / "browse_category.jsonl"), "-o", str(out), "--json"]) == 0
    (out / "plans.json").write_text('{"k": {"plan": "result = 1"}}\n')
    before = _cache_files(out)
    assert any(name.startswith("tools/") for name in before)
    capsys.readouterr()
    d = tmp_path / "t"
    if source == "bad":
        d.mkdir()
        (d / "a.jsonl").write_text("{not json\n")
    else:
        d = tmp_path / "no-such-dir"  # a typo in the trace path
    code = main(["build", str(d), "-o", str(out)])
    assert code != 0
    assert "nothing written" in capsys.readouterr().err
    assert _cache_files(out) == before
    assert not (tmp_path / "cache.prev").exists()


def test_build_replaces_a_cache_and_keeps_the_previous_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cache"
    assert main(["build", str(FOOD_TRACES / "browse_category.jsonl"), "-o", str(out), "--json"]) == 0
    (out / "plans.json").write_text('{"k": {"plan": "result = 1"}}\n')
    (out / "tools" / "hand_written.json").write_text((next((out / "tools").glob("*.json"))).read_text())
    before = _cache_files(out)
    capsys.readouterr()
    assert main(["build", str(FOOD_TRACES / "search_store.jsonl"), "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["previous"] == str(tmp_path / "cache.prev") and data["output"] == str(out)
    assert _cache_files(tmp_path / "cache.prev") == before  # recoverable, byte for byte
    assert not (out / "tools" / "hand_written.json").exists() and json.loads((out / "plans.json").read_text()) == {}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".cache.new-")] == []  # no temporary left
