"""Isolation in depth: what code past the guard could still do, limits and Ctrl-C through the real CLI."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentjit.exceptions import PlanLimitExceeded
from agentjit.plan.limits import PlanLimits
from agentjit.runtime import Runtime
from agentjit.runtime.vm import probe_isolation

AGENTJIT = str(Path(sys.executable).with_name("agentjit"))


async def test_the_sandbox_child_closes_every_door(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's data")
    marker = tmp_path / "marker"
    monkeypatch.setenv("AGENTJIT_TEST_CANARY", "s3cret")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        report = await probe_isolation({
            "read": str(secret), "write": str(marker),
            "connect": ["127.0.0.1", listener.getsockname()[1]], "env": "AGENTJIT_TEST_CANARY",
        })
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked
    assert not marker.exists()
    probe = report["probe"]
    assert all(str(v).startswith("blocked") for v in probe.values()), report
    assert report["isolation"]["limits"] is True


async def test_a_plan_in_the_child_reaches_only_its_tools(browser_pool, food_site, food_cache) -> None:
    runtime = Runtime(food_cache, food_site.url, pool=browser_pool, limits=PlanLimits(time_s=30))
    source = ("await goto_home()\nstores = await list_stores(section='Best near you')\n"
              "print('found', len(stores.items))\nresult = [s.name for s in stores.items[:2]]")
    result = await runtime.run(source)
    assert len(result.value) == 2 and all(isinstance(n, str) for n in result.value)
    assert [c.tool for c in result.tool_calls] == ["goto_home", "list_stores"]
    assert browser_pool.open_contexts == 0


async def test_time_limit_covers_tool_calls_too(browser_pool, food_site, food_cache) -> None:
    runtime = Runtime(food_cache, food_site.url, pool=browser_pool,
                      limits=PlanLimits(time_s=1.5, max_steps=10**12))
    t0 = time.monotonic()
    with pytest.raises(PlanLimitExceeded) as info:
        await runtime.run("await goto_home()\nn = 0\nwhile True:\n    n += 1\nresult = n")
    # the plan's own guard stops the loop (line 3 or 4); on a loaded machine the deadline can pass
    # during the tool call (line 1: the call counts), or the child answers too late and the runtime
    # stops it (the line of a call it waited on, else none): a time limit all the same, never another line or another limit
    assert info.value.limit == "time" and info.value.line in (None, 1, 3, 4)
    assert time.monotonic() - t0 < 30  # stopped by the limit, not by the test's patience
    assert browser_pool.open_contexts == 0


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in out:
                out.add(child)
                stack.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_ctrl_c_stops_a_busy_plan_and_leaves_no_process(tmp_path: Path) -> None:
    plan = tmp_path / "busy.py"
    plan.write_text("await goto_home()\nn = 0\nwhile True:\n    n += 1\nresult = n\n")
    proc = subprocess.Popen(
        [AGENTJIT, "run", str(plan), "--app", "food", "--strategy", "serial", "--time-limit", "300",
         "--max-steps", "1000000000000", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        # a terminal's foreground job: SIGINT not ignored (a job started with `&` inherits SIG_IGN)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 90
        family: set[int] = set()
        while time.monotonic() < deadline:  # wait until the plan runs in its sandbox child
            family = _descendants(proc.pid)
            if any("agentjit.plan.child" in _cmdline(p) for p in family):
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended early: {proc.communicate()}")
            time.sleep(0.2)
        else:
            pytest.fail("the plan's sandbox child never started")
        time.sleep(1.0)
        family = _descendants(proc.pid)
        assert any("chromium" in _cmdline(p) for p in family)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        out, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()  # reaps it and closes the pipes (no ResourceWarning in a later test)
    assert proc.returncode == 130, (out, err)
    print(f"Ctrl-C to exit: {stopped:.2f} s")
    gone_by = time.monotonic() + 10
    while time.monotonic() < gone_by and any(_alive(p) for p in family):
        time.sleep(0.2)
    left = [(p, _cmdline(p)[:80]) for p in family if _alive(p)]
    assert not left, left
