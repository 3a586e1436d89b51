"""Commands run as the README shows leave the repository's tracked files alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentjit.bench.food import CACHE_DIR
from agentjit.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_profile_write_on_the_bundled_cache_goes_to_a_user_file(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    bundled = (CACHE_DIR / "latency.json").read_bytes()
    code = main(["profile", "--app", "food", "--tasks", "food-v1-3", "--repeats", "1", "--latency-scale", "0", "--write", "--json"])
    data = json.loads(capsys.readouterr().out)
    user = tmp_path / "xdg" / "agentjit" / "food-latency.json"
    assert code == 0 and data["written"] == str(user)
    assert (CACHE_DIR / "latency.json").read_bytes() == bundled
    fits = json.loads(user.read_text())
    assert fits["list_stores"]["n"] == 1
    # the bundled cache reads the user's fits from then on
    from agentjit.cli import build_parser
    from agentjit.cli.common import _load_cache

    args = build_parser().parse_args(["schedule", "x.py", "--app", "food"])
    cache = _load_cache(args)
    assert cache.latency == fits
    # and the overheads measured on this machine, kept beside them
    machine = json.loads((tmp_path / "xdg" / "agentjit" / "food-machine.json").read_text())
    assert cache.machine == machine == data["overheads"] and machine["measured"]
    assert not (CACHE_DIR / "machine.json").exists()


def test_record_refuses_to_overwrite_traces_without_force(capsys, tmp_path) -> None:
    from toolcache.cli import main as toolcache_main

    script = ROOT / "traces" / "food" / "scripts" / "browse_category.json"
    out = tmp_path / "traces"
    out.mkdir()
    (out / "browse_category.jsonl").write_text("recorded\n")
    code = toolcache_main(["record", "--app", "food", str(script), "-o", str(out), "--latency-scale", "0"])
    assert code == 2 and "pass --force" in capsys.readouterr().err
    assert (out / "browse_category.jsonl").read_text() == "recorded\n"


@pytest.mark.parametrize("repeat", [1, 2])
def test_record_output_paths(tmp_path, repeat) -> None:
    from toolcache.record import output_paths
    from toolcache.script import load_script

    script = load_script(ROOT / "traces" / "food" / "scripts" / "browse_category.json")
    names = [p.name for p in output_paths([script], tmp_path, repeat)]
    assert names == (["browse_category.jsonl"] if repeat == 1 else ["browse_category-1.jsonl", "browse_category-2.jsonl"])
