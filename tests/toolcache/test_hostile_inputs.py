"""Hostile builder inputs: JSON nested 100,000 deep, binary files, URLs that lead off the site.

The recorder and the verifier open only URLs on the site they were given; a
recorded ``http://127.0.0.1:8000//other-host/x`` is a path on that site, never a
host. The off-site check is concrete: a second HTTP server on 127.0.0.1 counts
every request, and must see none.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentjit.exceptions import TraceError
from agentjit.protocol import jsonio
from agentjit.protocol.trace import iter_trace
from toolcache.browser_use import read_history
from toolcache.build import build_cache
from toolcache.cli import main
from toolcache.record import record_script, record_scripts, reset_site
from toolcache.script import Script, ScriptError, load_script
from toolcache.urls import OffSiteURL, site_url

FOOD_TRACES = Path(__file__).resolve().parents[2] / "traces" / "food"


def _deep(n: int) -> str:
    return '{"history": ' + "[" * n + "]" * n + "}"


def test_json_nested_100000_deep_is_a_clear_error_not_a_recursion_error(tmp_path: Path) -> None:
    with pytest.raises(jsonio.JSONTooDeep, match="nested too deeply"):
        jsonio.loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(jsonio.JSONTooDeep, match="more than 100 levels"):
        jsonio.loads("[" * 150 + "]" * 150)  # parses, but deeper than any real file
    assert jsonio.loads("[" * 50 + "]" * 50) is not None
    assert not jsonio.depth_exceeds({"a": [{"b": 1}] * 10_000}, 3)


@pytest.mark.parametrize("depth", [100_000, 500])
def test_import_browser_use_of_a_deeply_nested_history(tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int) -> None:
    src = tmp_path / "deep.json"
    src.write_text(_deep(depth))
    with pytest.raises(TraceError, match="invalid JSON: nested") as info:
        read_history(src)
    assert info.value.path == str(src)
    code = main(["import-browser-use", str(src), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"toolcache: error: TraceError: {src}:1: invalid JSON: nested")


def test_binary_history_script_and_trace_are_named_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blob = tmp_path / "blob.json"
    blob.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TraceError, match="not UTF-8"):
        read_history(blob)
    with pytest.raises(ScriptError, match="not UTF-8"):
        load_script(blob)
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b'\xff\xfe\n')
    with pytest.raises(TraceError, match="not UTF-8"):
        list(iter_trace(trace))
    deep_trace = tmp_path / "deep.jsonl"
    deep_trace.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(TraceError, match="nested too deeply"):
        list(iter_trace(deep_trace))
    code = main(["record", str(blob), "-o", str(tmp_path / "o"), "--site", "http://127.0.0.1:9"])
    assert code == 2 and "not UTF-8" in capsys.readouterr().err


def test_toolcache_usage_errors_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "x.json", "-o", str(tmp_path), "--latency-scale", "-1"]) == 2
    assert "UsageError" in capsys.readouterr().err
    assert main(["build", str(tmp_path / "none"), "-o", str(tmp_path / "c"), "--json", "--bogus"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["type"] == "UsageError"


# -- URLs stay on the site -----------------------------------------------------------------


@pytest.mark.parametrize(
    "recorded, path",
    [
        ("http://127.0.0.1:8000//other-host/x", "//other-host/x"),
        ("http://127.0.0.1:8000/\\other-host/x", "/\\other-host/x"),
        ("//other-host/x", "/x"),
        ("http://other-host/menu?a=1", "/menu?a=1"),
        ("javascript:alert(1)", "/alert(1)"),
        ("store/x", "/store/x"),
        (None, "/"),
    ],
)
def test_a_recorded_url_is_replayed_as_a_path_of_the_site(recorded: str | None, path: str) -> None:
    assert site_url("http://127.0.0.1:45678", recorded) == "http://127.0.0.1:45678" + path


@pytest.mark.parametrize(
    "goto", ["//other-host/x", "http://other-host/", "https://127.0.0.1:45678/", "http://127.0.0.1:1/", "http://u@127.0.0.1:45678/"]
)
def test_a_script_goto_off_the_site_is_refused(goto: str) -> None:
    with pytest.raises(OffSiteURL, match="leads off the site"):
        site_url("http://127.0.0.1:45678/", goto, keep_host=True)
    assert site_url("http://127.0.0.1:45678/", "/menu", keep_host=True) == "http://127.0.0.1:45678/menu"
    assert site_url("http://127.0.0.1:45678/", "HTTP://127.0.0.1:45678/a", keep_host=True).endswith(":45678/a")


class _Counter(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html><body>other host</body></html>")

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def other_host() -> Iterator[tuple[str, list[str]]]:
    """A second site on 127.0.0.1 (``host:port``) and the paths it was asked for."""
    hits: list[str] = []
    handler = type("Counter", (_Counter,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


async def test_the_recorder_refuses_an_off_site_goto_before_opening_anything(pool, food_site, other_host, tmp_path) -> None:
    host, hits = other_host
    script = Script.model_validate({"name": "t", "steps": [{"action": "goto", "url": f"//{host}/x"}]})
    with pytest.raises(OffSiteURL):
        await record_script(pool, script, food_site.url, tmp_path / "t.jsonl")
    with pytest.raises(OffSiteURL):
        await record_scripts([script], food_site.url, tmp_path, pool=pool)
    assert hits == [] and not (tmp_path / "t.jsonl").exists()


@pytest.mark.slow
async def test_the_verifier_never_navigates_off_site(pool, food_site, other_host, tmp_path) -> None:
    host, hits = other_host
    # a recorded goto whose path, joined naively, is another host: http://127.0.0.1:PORT/x
    evil = f"http://127.0.0.1:8000//{host}/x"
    lines = (FOOD_TRACES / "browse_section.jsonl").read_text().splitlines()
    out = []
    for line in lines:
        rec = json.loads(line)
        if rec.get("kind") == "step" and rec.get("action") == "goto":
            rec["value"] = evil
            rec["url_after"] = evil
        elif rec.get("kind") == "step" and rec.get("url_after"):
            rec["url_after"] = evil  # a failed replay goes back to url_after
        out.append(json.dumps(rec))
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "t.jsonl").write_text("\n".join(out) + "\n")

    async def reset() -> None:
        await asyncio.to_thread(reset_site, food_site.url)

    await build_cache([traces], tmp_path / "built", base_url=food_site.url, app="food", pool=pool, reset=reset)
    assert hits == []
