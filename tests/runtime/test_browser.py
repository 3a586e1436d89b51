"""The browser pool: executable override, and connecting to a CDP endpoint instead of launching."""

import asyncio
from pathlib import Path

import pytest

from agentjit.exceptions import BrowserError
from agentjit.runtime import BrowserPool, chromium_executable
from agentjit.runtime.browser import HOST_RULES


def test_override_must_exist(monkeypatch):
    monkeypatch.setenv("AGENTJIT_CHROMIUM", "/nope/chromium")
    with pytest.raises(BrowserError, match="/nope/chromium"):
        chromium_executable()
    monkeypatch.delenv("AGENTJIT_CHROMIUM")
    assert chromium_executable("/usr/bin/chromium") == "/usr/bin/chromium"


async def test_bad_endpoint_is_a_browser_error():
    with pytest.raises(BrowserError, match="cannot start or reach Chromium"):
        await BrowserPool(cdp="http://127.0.0.1:9").start()


async def test_connect_over_cdp(tmp_path: Path, food_site):
    exe = chromium_executable()
    proc = await asyncio.create_subprocess_exec(
        exe, "--headless=new", "--no-sandbox", "--remote-debugging-port=0", f"--user-data-dir={tmp_path}",
        "--no-first-run", "--disable-background-networking", HOST_RULES, "about:blank",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        port_file = tmp_path / "DevToolsActivePort"
        for _ in range(200):
            if port_file.exists() and port_file.read_text().strip():
                break
            await asyncio.sleep(0.05)
        port = int(port_file.read_text().splitlines()[0])
        async with BrowserPool(cdp=f"http://127.0.0.1:{port}") as pool, pool.page() as page:
            await page.goto(food_site.url + "/")
            assert await page.evaluate("document.body.dataset.page") == "home"
            assert pool.version.startswith("Chromium")
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), timeout=10)
