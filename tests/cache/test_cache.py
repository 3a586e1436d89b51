"""The cache directory: load, save, atomic writes, clear errors."""

import json
import os

import pytest

from agentjit.cache import CacheInfo, ToolCache, atomic_write_json
from agentjit.exceptions import CacheError, ManifestError
from agentjit.protocol import ToolManifest

TOOL = ToolManifest(name="goto_home", description="Go home.", type="gotoItem", execute="location.href='/'", navigates=True, post={"page": "home"})


def test_save_and_load_round_trip(tmp_path):
    cache = ToolCache(CacheInfo(app="food", initial_state={"page": "home"}), [TOOL], latency={"goto_home": {"mean": 0.1}})
    cache.plans["k"] = {"source": "result = 1"}
    root = cache.save(tmp_path / "c")
    assert sorted(p.name for p in root.iterdir()) == ["cache.json", "latency.json", "plans.json", "schemas.json", "tools"]
    loaded = ToolCache.load(root)
    assert loaded.app == "food" and loaded.info.initial_state == {"page": "home"}
    assert loaded.tool("goto_home") == TOOL
    assert loaded.latency == {"goto_home": {"mean": 0.1}} and loaded.plans == {"k": {"source": "result = 1"}}
    assert loaded.fingerprint() == cache.fingerprint()


def test_fingerprint_changes_with_tools(tmp_path):
    a = ToolCache(CacheInfo(app="x"), [TOOL])
    b = ToolCache(CacheInfo(app="x"), [TOOL.model_copy(update={"version": 2})])
    assert a.fingerprint() != b.fingerprint()


def test_missing_directory(tmp_path):
    with pytest.raises(CacheError, match="not a cache directory"):
        ToolCache.load(tmp_path / "nope")


def test_missing_cache_json(tmp_path):
    (tmp_path / "tools").mkdir()
    with pytest.raises(CacheError, match=r"cache.json: missing file"):
        ToolCache.load(tmp_path)


def test_malformed_files_are_named(tmp_path):
    root = ToolCache(CacheInfo(app="food"), [TOOL]).save(tmp_path / "c")
    (root / "latency.json").write_text("{oops")
    with pytest.raises(CacheError, match=r"latency.json: invalid JSON at line 1"):
        ToolCache.load(root)
    (root / "latency.json").write_text("[]")
    with pytest.raises(CacheError, match=r"latency.json: must hold a JSON object"):
        ToolCache.load(root)
    (root / "latency.json").write_text("{}")
    (root / "cache.json").write_text(json.dumps({"format": "agentjit-cache", "format_version": 7, "app": "food"}))
    with pytest.raises(CacheError, match="format_version 7"):
        ToolCache.load(root)
    (root / "cache.json").write_text(json.dumps({"format": "agentjit-cache", "format_version": 1}))
    with pytest.raises(CacheError, match="field 'app'"):
        ToolCache.load(root)


def test_bad_tool_file_is_named(tmp_path):
    root = ToolCache(CacheInfo(app="food"), [TOOL]).save(tmp_path / "c")
    (root / "tools" / "goto_home.json").write_text(json.dumps({**TOOL.model_dump(mode="json"), "effect": "MAYBE"}))
    with pytest.raises(ManifestError) as err:
        ToolCache.load(root)
    assert err.value.field == "effect" and "goto_home.json" in str(err.value)


def test_tool_name_must_match_file(tmp_path):
    root = ToolCache(CacheInfo(app="food"), [TOOL]).save(tmp_path / "c")
    os.rename(root / "tools" / "goto_home.json", root / "tools" / "other.json")
    with pytest.raises(ManifestError, match="does not match the file name"):
        ToolCache.load(root)


def test_atomic_write_leaves_old_file_on_failure(tmp_path):
    target = tmp_path / "x.json"
    atomic_write_json(target, {"a": 1})

    class Boom:
        pass

    with pytest.raises(TypeError):
        atomic_write_json(target, {"a": Boom()})
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temp file left behind


def test_unknown_tool_lists_known(tmp_path):
    cache = ToolCache(CacheInfo(app="food"), [TOOL])
    with pytest.raises(CacheError, match="have: goto_home"):
        cache.tool("nope")


def test_atomic_write_gives_the_usual_file_mode(tmp_path):
    target = tmp_path / "m.json"
    atomic_write_json(target, {})
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask
