"""Browsers agentjit does not launch: the ``--browser`` spec, the origin rule in a
connected browser, and plans run through a real ``playwright launch-server``."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agentjit.cli import main
from agentjit.exceptions import ConfigError
from agentjit.runtime import BrowserPool, chromium_executable, parse_browser_spec
from agentjit.runtime.browser import browser_default

PLAYWRIGHT = Path(sys.executable).parent / "playwright"
FOOD_PLAN = Path(__file__).parents[2] / "agentjit/bench/food/plans/food-custom-6.py"


# -- the spec ---------------------------------------------------------------


def test_spec_forms():
    assert parse_browser_spec("ws://127.0.0.1:4000/abc") == {"connect": "ws://127.0.0.1:4000/abc"}
    assert parse_browser_spec("cdp=http://127.0.0.1:9222") == {"cdp": "http://127.0.0.1:9222"}
    for bad in ("http://127.0.0.1:9222", "cdp=127.0.0.1:9222", "ws://", "chromium"):
        with pytest.raises(ConfigError, match="expected ws://HOST:PORT"):
            parse_browser_spec(bad)


def test_from_spec_reads_flag_then_env(monkeypatch):
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    assert not BrowserPool.from_spec().remote
    monkeypatch.setenv("AGENTJIT_BROWSER", "cdp=http://127.0.0.1:9")
    assert BrowserPool.from_spec().cdp_endpoint == "http://127.0.0.1:9"
    token = browser_default.set("ws://127.0.0.1:1/x")
    try:
        assert BrowserPool.from_spec().connect_endpoint == "ws://127.0.0.1:1/x"
        assert BrowserPool.from_spec("cdp=http://127.0.0.1:2").cdp_endpoint == "http://127.0.0.1:2"
    finally:
        browser_default.reset(token)


def test_bad_browser_flag_and_env_are_config_errors(monkeypatch, capsys):
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    assert main(["run", str(FOOD_PLAN), "--app", "food", "--browser", "chromium"]) == 2
    assert "expected ws://HOST:PORT" in capsys.readouterr().err
    monkeypatch.setenv("AGENTJIT_BROWSER", "nonsense")
    assert main(["run", str(FOOD_PLAN), "--app", "food"]) == 2
    assert "'nonsense' not understood" in capsys.readouterr().err


# -- a real browser server ----------------------------------------------------


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return found
    for child in map(int, children):
        found += [child, *_descendants(child)]
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@contextlib.contextmanager
def _launch_server(tmp: Path) -> Iterator[str]:
    """``playwright launch-server`` serving the system Chromium on a free port: its ws endpoint.

    Stops the Python wrapper and its node child (and Chromium) by pid, and checks none is left."""
    exe = chromium_executable()
    if not PLAYWRIGHT.exists() or exe is None:
        pytest.skip(f"needs {PLAYWRIGHT} (playwright's CLI) and a system Chromium for `playwright launch-server`")
    cfg = tmp / "cfg.json"
    cfg.write_text(json.dumps({"executablePath": exe, "args": ["--no-sandbox"], "port": 0, "host": "127.0.0.1"}))
    proc = subprocess.Popen([str(PLAYWRIGHT), "launch-server", "--browser", "chromium", "--config", str(cfg)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    pids: list[int] = [proc.pid]
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("ws://"):
            pytest.skip(f"`playwright launch-server` did not print a ws endpoint (got {line!r})")
        pids += _descendants(proc.pid)
        yield line
    finally:
        pids += [p for p in _descendants(proc.pid) if p not in pids]
        for pid in reversed(pids):  # the node child first (it closes Chromium), then the wrapper
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
        for _ in range(100):
            if not any(_alive(p) for p in pids):
                break
            time.sleep(0.05)
        left = [p for p in pids if _alive(p)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"launch-server left processes running: {left}"


@pytest.fixture(scope="module")
def browser_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _launch_server(tmp_path_factory.mktemp("server")) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def browser_server_b(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _launch_server(tmp_path_factory.mktemp("server_b")) as endpoint:
        yield endpoint


class _Counting(ThreadingHTTPServer):
    hits = 0


class _Handler(BaseHTTPRequestHandler):
    server: _Counting

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        self.server.hits += 1
        body = b"<html><body>hello</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[tuple[_Counting, _Counting, _Counting]]:
    """Three counting servers: the site (127.0.0.1), another port (127.0.0.1), another address (127.0.0.2)."""
    made = [_Counting(("127.0.0.1", 0), _Handler), _Counting(("127.0.0.1", 0), _Handler), _Counting(("127.0.0.2", 0), _Handler)]
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in made]
    for t in threads:
        t.start()
    try:
        yield made[0], made[1], made[2]
    finally:
        for s in made:
            s.shutdown()
            s.server_close()


def _url(server: _Counting) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


async def _fetch(page, url: str) -> str:
    return await page.evaluate("u => fetch(u).then(r => 'ok ' + r.status, e => 'failed')", url)


async def test_connected_pool_blocks_other_origins(browser_server, servers):
    site, other_port, other_host = servers
    # the default rule: loopback names on any port, and nothing else
    async with BrowserPool.from_spec(browser_server) as pool, pool.page() as page:
        await page.goto(_url(site) + "/")
        assert await _fetch(page, _url(other_port) + "/x") == "ok 200"
        assert await _fetch(page, _url(other_host) + "/x") == "failed"
        assert other_host.hits == 0
        assert pool.blocked == [_url(other_host) + "/x"]
    # an explicit list: only the site's origin
    async with BrowserPool(connect=browser_server, allowed_origins=[_url(site)]) as pool, pool.page() as page:
        await page.goto(_url(site) + "/")
        before = other_port.hits
        assert await _fetch(page, _url(other_port) + "/y") == "failed"
        assert other_port.hits == before
        assert await _fetch(page, _url(site) + "/again") == "ok 200"
        # the site a runtime drives is allowed even off loopback
        pool.allow_site(_url(other_host))
        assert await _fetch(page, _url(other_host) + "/z") == "ok 200"
        assert other_host.hits == 1


async def test_launched_pool_does_not_route(servers):
    site, _, other_host = servers
    async with BrowserPool() as pool, pool.page() as page:
        await page.goto(_url(site) + "/")
        await _fetch(page, _url(other_host) + "/x")  # the host-resolver rule is the launched browser's guard
        assert pool.blocked == []


def test_cli_run_through_browser_server(browser_server, monkeypatch, capsys):
    monkeypatch.setenv("AGENTJIT_CHROMIUM", "/nope/chromium")  # launching a local browser would fail
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    assert main(["run", str(FOOD_PLAN), "--app", "food", "--strategy", "serial", "--json",
                 "--browser", browser_server]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "under 20 reviews" in data["value"]
    monkeypatch.setenv("AGENTJIT_BROWSER", browser_server)
    assert main(["run", str(FOOD_PLAN), "--app", "food", "--strategy", "serial", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == data["value"]


async def test_api_run_through_browser_server(browser_server, monkeypatch):
    from agentjit.api import run

    monkeypatch.setenv("AGENTJIT_CHROMIUM", "/nope/chromium")
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    result = await run(FOOD_PLAN, app="food", browser=browser_server, strategy="parallel")
    assert "under 20 reviews" in result.value


def test_batch_spreads_tasks_over_two_servers(browser_server, browser_server_b, monkeypatch, capsys):
    monkeypatch.setenv("AGENTJIT_CHROMIUM", "/nope/chromium")
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    only = "food-custom-6,food-custom-9,food-custom-10,food-custom-13"
    assert main(["batch", "--app", "food", "--only", only, "--latency-scale", "0", "--strategy", "serial", "--json",
                 "--browser", browser_server, "--browser", browser_server_b]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["passed"], summary["total"], summary["browsers"]) == (4, 4, 2)
    assert sorted(summary["per_browser"]) == sorted([browser_server, browser_server_b])
    assert sum(summary["per_browser"].values()) == 4


def test_demo_profile_and_bench_through_browser_server(browser_server, monkeypatch, capsys, tmp_path):
    """The commands that open a browser inside the bench harness use --browser too (none launches one)."""
    monkeypatch.setenv("AGENTJIT_CHROMIUM", "/nope/chromium")  # launching a local browser would fail
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    common = ["--app", "food", "--latency-scale", "0", "--json", "--browser", browser_server]
    assert main(["demo", "--tasks", "food-v1-1", "--strategy", "serial", *common]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["passed"] == 1
    assert main(["profile", "--tasks", "food-v1-3", "--repeats", "1", "--cache", str(_cache_copy(tmp_path)), *common]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == 1
    # the overhead bench runs its site without injected latency: it takes no --latency-scale
    assert main(["bench", "overhead", "-n", "3", "--app", "food", "--json", "--browser", browser_server]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3


def _cache_copy(tmp_path: Path) -> Path:
    import shutil

    from agentjit.tasks.apps import get_app

    copy = tmp_path / "cache"
    shutil.copytree(get_app("food").cache_dir, copy)
    return copy


def test_batch_checks_every_browser(monkeypatch, capsys):
    monkeypatch.delenv("AGENTJIT_BROWSER", raising=False)
    assert main(["batch", "--app", "food", "--browser", "ws://127.0.0.1:1/x", "--browser", "nonsense"]) == 2
    assert "'nonsense' not understood" in capsys.readouterr().err
