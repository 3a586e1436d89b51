"""The README's "your own site" walkthrough, run as written against a real app (Django's admin).

Serve the site, record the demonstrations, build the cache from them, list its
tools and run a write plan over them: the commands are read from README.md, so
the README stays true. Only the /tmp output paths and the port are moved into
the test's own. The site's data is read before and after each step: recording
the demonstrations writes (they are the user's own actions), the build does
not, and the plan changes exactly the price it was asked to.
The Roundup block's commands are checked for shape only (its build and tasks
have their own tests).
"""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _walkthrough(title: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(title)
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block is not None, f"{title} has no bash block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.startswith(".venv/bin/")]


DJANGO = "**A write, end to end: Django's admin.**"
ROUNDUP = "**Another real app: Roundup.**"


def test_the_walkthroughs_name_record_build_tools_and_run() -> None:
    assert [shlex.split(c)[1] for c in _walkthrough(ROUNDUP)] == ["record", "build", "tools", "demo"]
    assert [shlex.split(c)[1] for c in _walkthrough(DJANGO)] == ["site", "record", "build", "tools", "run"]
    for command in _walkthrough(ROUNDUP):  # the files it names exist
        for arg in shlex.split(command):
            if arg.startswith("traces/"):
                assert list(ROOT.glob(arg)), arg


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - the loopback site this test started
                return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise
            time.sleep(0.2)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_readme_walkthrough_runs_a_write_on_django_admin(tmp_path: Path) -> None:
    pytest.importorskip("django")
    from agentjit.bench.django_admin.judges import library_state

    commands = _walkthrough(DJANGO)
    port = _free_port()
    site_argv = shlex.split(commands[0].rstrip("&").replace("8790", str(port)))
    site_argv[0] = str(BIN / Path(site_argv[0]).name)
    site = subprocess.Popen(site_argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url, site)
        seed = library_state(url)
        states = {}
        for command in commands[1:]:
            command = command.replace("8790", str(port))
            command = re.sub(r"/tmp/dj\b/?", f"{tmp_path}/dj/", command).replace("/tmp/dj-cache", f"{tmp_path}/cache")
            argv = shlex.split(command)
            argv[0] = str(BIN / Path(argv[0]).name)
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            if argv[1] == "tools":
                assert "change_book" in done.stdout and "search_books" in done.stdout
            states[argv[1]] = library_state(url)
    finally:
        site.terminate()
        site.wait(timeout=30)
    assert states["record"] != seed  # the demonstrated save is the user's own write
    assert states["build"] == states["record"]  # the build verified it without sending it again
    changed = [(b["title"], b["price"]) for b, was in zip(states["run"]["books"], states["build"]["books"], strict=True) if b != was]
    assert changed == [("Moths of the Steppe", "19.99")]
    assert {k: v for k, v in states["run"].items() if k != "books"} == {k: v for k, v in states["build"].items() if k != "books"}
