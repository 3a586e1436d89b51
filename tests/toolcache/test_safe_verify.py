"""A build with the default settings never changes the site it verifies on (``--verify-writes recorded``).

(The food site's whole build is checked in ``test_pipeline.py``, which builds it anyway.)

Each app's data is read before and after a build from its bundled demonstrations and must be
identical: the food site's ``/__state``, Roundup's issues, messages and users (through its own
API), Fava's ledger file, datasette's sqlite file. The reset the build is handed only records
that it was called: a site without a reset hook must survive the build as well. The WRITE tools
still pass, answered from the demonstrations' recorded responses.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool
from toolcache.build import BuildReport, build_cache
from toolcache.cli import WRITE_MODES as CLI_WRITE_MODES
from toolcache.cli import main
from toolcache.recorded import param_diff, request_params
from toolcache.verify import NOT_ASKED, OLD_TRACE, WRITE_MODES

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "traces"


class Resets:
    """A reset hook that only counts: the build must not need one."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1


async def _build(traces: list[Path], url: str, pool: BrowserPool, out: Path, **kw: Any) -> tuple[ToolCache, BuildReport, Resets]:
    resets = Resets()
    cache, report = await build_cache(traces, out, base_url=url, pool=pool, reset=resets, **kw)
    return cache, report, resets


def _canonical(state: Any) -> str:
    return json.dumps(state, sort_keys=True, default=str)


@pytest.mark.browser
async def test_roundup_build_leaves_the_data_unchanged(roundup_site: Any, browser_pool: BrowserPool, tmp_path: Path) -> None:
    from agentjit.bench.roundup import PASSWORD

    before = _canonical(roundup_site.state())  # issues, messages, users, read with Roundup's API
    traces = [TRACES / "roundup" / f"{n}.jsonl" for n in ("create_issue", "set_status", "add_message")]
    cache, report, resets = await _build(traces, roundup_site.url, browser_pool, tmp_path / "c",
                                         secrets={"login_password": PASSWORD}, sign_in=True)
    assert _canonical(roundup_site.state()) == before
    assert resets.calls == 0
    # signing in (with the password the user gave) changes a session, not the tracker's data
    assert report.writes == {"login": "sign-in, live", "create_issue": "recorded", "edit_issue": "recorded"}, report.rejected
    assert report.rejected == {}


@pytest.mark.browser
async def test_fava_build_leaves_the_ledger_unchanged(fava_site: Any, browser_pool: BrowserPool, tmp_path: Path) -> None:
    before = fava_site.ledger_path.read_bytes()
    traces = [TRACES / "fava" / f"{n}.jsonl" for n in ("add_lunch", "add_transfer")]
    cache, report, resets = await _build(traces, fava_site.url, browser_pool, tmp_path / "c")
    assert fava_site.ledger_path.read_bytes() == before
    assert resets.calls == 0
    assert report.writes == {"add_journal_entry": "recorded"}, report.rejected
    assert "add_journal_entry" in cache.tools


def _datasette() -> str | None:
    """The datasette executable: ``AGENTJIT_DATASETTE``, else this venv's (the ``dev`` extra installs it),
    else on PATH, else the README's own venv."""
    here = str(Path(sys.executable).parent / "datasette")
    for candidate in (os.environ.get("AGENTJIT_DATASETTE"), here, shutil.which("datasette"), "/tmp/ds-venv/bin/datasette"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@pytest.fixture
def datasette_site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """datasette serving examples/datasette's library database on a free port: ``(url, db file)``."""
    exe = _datasette()
    if exe is None:
        pytest.skip("datasette is not installed (examples/datasette/README.md: its own venv, or AGENTJIT_DATASETTE)")
    db = tmp_path / "library.db"
    subprocess.run([sys.executable, str(ROOT / "examples" / "datasette" / "make_db.py"), str(db)], check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([exe, "serve", str(db), "-h", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - the loopback server above
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield url, db
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.browser
async def test_datasette_build_leaves_the_database_unchanged(datasette_site: tuple[str, Path], browser_pool: BrowserPool,
                                                             tmp_path: Path) -> None:
    url, db = datasette_site
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    traces = [ROOT / "examples" / "datasette" / "traces" / f"{n}.jsonl" for n in ("filter_genre", "sql_query")]
    cache, report, resets = await _build(traces, url, browser_pool, tmp_path / "c")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert resets.calls == 0 and report.rejected == {}
    assert {"apply", "run_sql"} <= set(report.verified)


def _tampered(tmp_path: Path, name: str, edit: Any) -> Path:
    """A copy of the food demonstration ``name`` whose recorded state-changing requests ``edit`` changed."""
    src = TRACES / "food" / f"{name}.jsonl"
    lines = []
    for line in src.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        for w in event.get("requests") or []:
            edit(event, w)
        lines.append(json.dumps(event))
    out = tmp_path / "traces" / f"{name}.jsonl"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.mark.browser
async def test_a_tool_that_sends_another_request_fails_and_nothing_reaches_the_site(
        pool: BrowserPool, food_site: Any, tmp_path: Path) -> None:
    # the demonstration (as edited) posted to /api/basket; the tool posts to /api/cart
    def elsewhere(_event: dict[str, Any], w: dict[str, Any]) -> None:
        w["url"] = w["url"].replace("/api/cart", "/api/basket")

    trace = _tampered(tmp_path, "add_item", elsewhere)
    before = _canonical(food_site.state())
    cache, report, _ = await _build([trace], food_site.url, pool, tmp_path / "c")
    reason = report.rejected.get("add_to_cart", "")
    assert "sent POST api_cart, which its demonstration sent POST api_basket" in reason, report.rejected
    assert _canonical(food_site.state()) == before


def test_request_parameters_that_carried_arguments_must_match() -> None:
    recorded = request_params('{"store": "winstop", "quantity": 2, "instructions": "no ice", "token": "a1"}')
    same = request_params('{"store": "winstop", "quantity": 2, "instructions": "no ice", "token": "b2"}')
    args = {"item_name": "10 pc", "quantity": 2, "instructions": "no ice"}
    assert param_diff(recorded, same, args) is None  # a token that is no argument may differ
    other = request_params('{"store": "winstop", "quantity": 3, "instructions": "no ice", "token": "a1"}')
    assert param_diff(recorded, other, args) == "quantity='3', the demonstration sent quantity='2'"
    missing = request_params('{"store": "winstop", "quantity": 2, "instructions": "no ice"}')
    assert param_diff(recorded, missing, args) == "no 'token' parameter (the demonstration sent token='a1')"
    form = request_params("title=Footer&priority=3&%40csrf=xyz")
    assert form == {"title": ["Footer"], "priority": ["3"], "@csrf": ["xyz"]}
    multipart = request_params('--B\r\nContent-Disposition: form-data; name="title"\r\n\r\nFooter\r\n'
                               '--B\r\nContent-Disposition: form-data; name="@file"; filename=""\r\n\r\n\r\n--B--\r\n')
    assert multipart == {"title": ["Footer"], "@file": [""]}


@pytest.mark.browser
async def test_a_trace_without_responses_keeps_its_write_tools_unverified(pool: BrowserPool, food_site: Any,
                                                                         tmp_path: Path) -> None:
    def version_1(event: dict[str, Any], w: dict[str, Any]) -> None:
        w.pop("response", None)
        w.pop("post_data", None)

    trace = _tampered(tmp_path, "place_order", version_1)
    before = _canonical(food_site.state())
    cache, report, _ = await _build([trace], food_site.url, pool, tmp_path / "c")
    assert report.unverified == {"add_to_cart": OLD_TRACE, "place_order": OLD_TRACE}
    assert report.writes["place_order"] == OLD_TRACE and "place_order" not in report.verified
    assert {"add_to_cart", "place_order"} <= set(cache.tools)  # kept, flagged
    assert _canonical(food_site.state()) == before
    assert "goto_checkout" in report.verified  # the replay went on from the write's recorded outcome


@pytest.mark.browser
async def test_verify_writes_none_calls_no_write_tool(pool: BrowserPool, food_site: Any, tmp_path: Path) -> None:
    before = _canonical(food_site.state())
    cache, report, resets = await _build([TRACES / "food" / "place_order.jsonl"], food_site.url, pool, tmp_path / "c",
                                         writes="none")
    assert report.unverified == {"add_to_cart": NOT_ASKED, "place_order": NOT_ASKED}
    assert {"add_to_cart", "place_order"} <= set(cache.tools) and resets.calls == 0
    assert _canonical(food_site.state()) == before


def test_cli_live_mode_runs_the_reset_command(food_site: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "resets.log"
    trace = TRACES / "food" / "add_item.jsonl"
    out = str(tmp_path / "c")
    argv = ["build", str(trace), "-o", out, "--site", food_site.url, "--json", "--verify-writes", "live"]
    assert main(argv) == 2  # live writes need a way back
    assert "--reset-command" in json.loads(capsys.readouterr().out)["error"]["message"]  # --json: errors as JSON
    assert main([*argv, "--reset-command", f"echo reset >> {log}"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert log.read_text().splitlines() == ["reset"]  # once per trace
    assert data["verify_writes"] == "live" and data["writes"] == {"add_to_cart": "live"}
    assert len(food_site.state()["cart"]) == 1, "live mode sent the demonstrated write, once"
    assert main([*argv, "--reset-command", "exit 7"]) == 2
    assert "the reset command 'exit 7' failed with exit status 7" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert main(["build", str(trace), "-o", out, "--site", food_site.url, "--reset-command", "true"]) == 2


def test_cli_default_build_reports_how_writes_were_verified(food_site: Any, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = _canonical(food_site.state())
    code = main(["build", str(TRACES / "food" / "place_order.jsonl"), "-o", str(tmp_path / "c"), "--site", food_site.url,
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verify_writes"] == "recorded"
    assert data["writes"] == {"add_to_cart": "recorded", "place_order": "recorded"}
    assert _canonical(food_site.state()) == before
    assert CLI_WRITE_MODES == WRITE_MODES
