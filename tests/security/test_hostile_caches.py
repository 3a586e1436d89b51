"""A cache is untrusted input: its schemas, URLs and files cannot make agentjit fetch, read, hang or crash.

The unit tests pin each class at its one place (the closed-world schema check, the bounded file
reader, the start-path rule, strict JSON out); the corpus runs every class through the real
commands (``tools``, ``check``, ``run``) as separate processes, with a loopback listener and a
canary file as the bait.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agentjit.bench.sandbox.caches import CASES, CacheCase, run_cache_corpus
from agentjit.cache import ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.exceptions import CacheError, ManifestError
from agentjit.protocol import jsonio
from agentjit.protocol.manifest import parse_manifest
from agentjit.protocol.schema import argument_error, validate_inputs
from agentjit.protocol.urls import OffSiteURL, site_url

TOOL = {"name": "t", "description": "d", "type": "getFields", "execute": "return {};"}


def _with_query(schema: dict) -> dict:
    return {**TOOL, "input_schema": {"type": "object", "properties": {"q": schema}}}


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"$ref": "http://127.0.0.1:9/s.json"}, "refers outside the schema"),
        ({"$ref": "file:///etc/hostname"}, "refers outside the schema"),
        ({"$ref": "file:///dev/zero"}, "refers outside the schema"),
        ({"$ref": "#/$defs/missing"}, "does not exist"),
        ({"allOf": [{"$ref": "other.json#/x"}]}, "refers outside the schema"),
        ({"type": "string", "pattern": "^(?=a)a$"}, "linear-time engine"),
        ({"type": "object", "patternProperties": {r"(a)\1": {}}}, "linear-time engine"),
        ({"$id": "http://127.0.0.1:9/", "type": "string"}, "$id is not allowed"),
        ({"$schema": "http://127.0.0.1:9/meta"}, "unknown $schema"),
    ],
)
def test_a_schema_that_reaches_outside_itself_is_a_malformed_manifest(schema: dict, says: str) -> None:
    with pytest.raises(ManifestError, match="input_schema") as info:
        parse_manifest(_with_query(schema), source="tools/t.json")
    assert says in str(info.value) and "tools/t.json" in str(info.value)


def test_a_local_reference_works_and_a_backtracking_pattern_answers_at_once() -> None:
    tool = parse_manifest({**TOOL, "input_schema": {
        "type": "object", "$defs": {"s": {"type": "string", "pattern": "^(a+)+$"}},
        "properties": {"q": {"$ref": "#/$defs/s"}}}})
    t0 = time.perf_counter()
    assert argument_error(tool, "q", "a" * 40) is None
    assert "does not match" in (argument_error(tool, "q", "a" * 4000 + "!") or "")
    with pytest.raises(Exception, match="does not match"):
        validate_inputs(tool, {"q": "a" * 4000 + "!"})
    assert time.perf_counter() - t0 < 1  # Python's re takes years on the 4000-character argument


def test_cache_files_are_read_only_when_regular_bounded_and_inside_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (root / "tools").mkdir(parents=True)
    (tmp_path / "secret.json").write_text('{"secret": 1}')
    link = root / "tools" / "x.json"
    link.symlink_to(tmp_path / "secret.json")
    with pytest.raises(jsonio.UnsafeFile, match="outside"):
        jsonio.read_text(link, within=root)
    link.unlink()
    os.mkfifo(link)  # opening it for reading would block until a writer came
    with pytest.raises(jsonio.UnsafeFile, match="not a regular file"):
        jsonio.read_text(link, within=root)
    link.unlink()
    link.symlink_to("/dev/zero")
    with pytest.raises(jsonio.UnsafeFile):
        jsonio.read_text(link)
    link.unlink()
    with open(link, "wb") as fh:
        fh.truncate(jsonio.MAX_FILE_BYTES + 1)
    with pytest.raises(jsonio.UnsafeFile, match="larger than"):
        jsonio.read_text(link)


def test_a_cache_whose_tool_file_is_a_fifo_is_refused_naming_it(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (root / "tools").mkdir(parents=True)
    (root / "cache.json").write_text(json.dumps({"app": "x"}))
    os.mkfifo(root / "tools" / "t.json")
    with pytest.raises(ManifestError, match=r"t\.json.*not a regular file"):
        ToolCache.load(root)
    os.unlink(root / "tools" / "t.json")
    (root / "plans.json").symlink_to("/dev/zero")
    with pytest.raises(CacheError, match=r"plans\.json"):
        ToolCache.load(root)


@pytest.mark.parametrize("path", ["@127.0.0.1:9/x", "http://127.0.0.1:9/", "//127.0.0.1:9/", "/\\127.0.0.1:9/",
                                  "x", "/a\nb"])
def test_a_start_path_that_is_not_a_path_on_the_site_is_refused(path: str) -> None:
    with pytest.raises(ValueError, match="start_path|path on the site|backslash"):
        CacheInfo(app="x", start_path=path)


@pytest.mark.parametrize("url", ["http://u@127.0.0.1:8000/", "http://127.0.0.1:9/", "//evil/x",
                                 "https://127.0.0.1:8000/"])
def test_one_function_keeps_every_url_on_the_site(url: str) -> None:
    with pytest.raises(OffSiteURL):
        site_url("http://127.0.0.1:8000", url, keep_host=True)
    assert site_url("http://127.0.0.1:8000", "/store/1?x=2", keep_host=True) == "http://127.0.0.1:8000/store/1?x=2"


def test_json_out_is_strict() -> None:
    text = jsonio.dumps({"x": [float("nan"), float("inf"), -float("inf"), 1.5]})
    assert json.loads(text, parse_constant=lambda w: pytest.fail(f"bare {w}")) == {"x": [None, None, None, 1.5]}


def cases_sample(cases: list[CacheCase]) -> list[CacheCase]:
    """Every second case of each (class, expected exit codes) group, in corpus order: every class of
    poison, and every command's verdict, still runs through the real commands."""
    groups: dict[tuple[str, tuple[tuple[str, int], ...]], list[CacheCase]] = {}
    for case in cases:
        groups.setdefault((case.cls, tuple(sorted(case.expect.items()))), []).append(case)
    return [c for group in groups.values() for i, c in enumerate(group) if i % 2 == 0]


def test_the_cache_sample_keeps_every_class_and_verdict() -> None:
    sample = cases_sample(CASES)
    assert {(c.cls, tuple(sorted(c.expect.items()))) for c in sample} == {
        (c.cls, tuple(sorted(c.expect.items()))) for c in CASES}
    assert {cmd for c in sample for cmd in c.expect} == {"tools", "check", "run"}
    assert len(CASES) / 2 <= len(sample) < len(CASES)


@pytest.mark.browser
async def test_the_hostile_cache_corpus_gets_nothing_through() -> None:
    """Every class, through the real commands: 0 escapes (no connection to the listener, the canary
    never printed), 0 hangs, 0 crashes (exit 4, tracebacks, non-JSON output), the exit code expected.

    The suite runs a sample (:func:`cases_sample`, 39 of the 72 commands: each class's poisons stand
    for one another, and the unit tests above pin each at its one place); ``AGENTJIT_WHOLE_CORPUS=1``
    runs every case here, as ``agentjit bench sandbox`` does."""
    assert sum(len(c.expect) for c in CASES) >= 40
    cases = CASES if os.environ.get("AGENTJIT_WHOLE_CORPUS") == "1" else cases_sample(CASES)
    report = await run_cache_corpus(cases)
    assert report.totals["commands"] == sum(len(c.expect) for c in cases)
    assert report.ok, json.dumps(report.to_dict()["failures"], indent=2)
