"""No tracebacks for any input: one-line errors, documented exit codes, JSON errors; the one gate.

Every path that runs a plan (``agentjit run`` with a file or ``--task``, ``agentjit demo``,
``agentjit.api.run``, ``agentjit.sync``, the bench harness) checks it first, exactly as
``agentjit check`` does; a plan from a plan cache is checked again before it runs.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import agentjit.api
import agentjit.cli.base
import agentjit.session
from agentjit.bench.food import CACHE_DIR
from agentjit.cache import ToolCache
from agentjit.cli import EXIT_CODES, main
from agentjit.exceptions import PlanRejected
from agentjit.plan import DEFAULT_LIMITS, PlanLimits
from agentjit.planner import plan_key
from agentjit.planner.templates import TEMPLATE_PREFIX
from agentjit.sync import run_plan_sync
from agentjit.tasks.runner import jsonable, run_tasks
from agentjit.tasks.task import Task
from agentjit.testing import FakeOpenAIServer, FakeReply

PLAN = 'await goto_home()\nstores = await list_stores(section="Best near you", limit=3)\nresult = [s.name for s in stores.items]'
SITE_DOWN = "http://127.0.0.1:9"  # nothing listens there: a run that got that far would fail differently


def run_cli(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("WARNING:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def json_error(out: str) -> dict[str, Any]:
    data = json.loads(out)
    assert set(data) == {"error"}
    assert {"type", "message", "file", "line"} <= set(data["error"])
    return data["error"]


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return path


def test_exit_codes_are_documented_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in EXIT_CODES:
        assert f"| {code} |" in section, code


# -- bad input: exit 2 ---------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "check", "schedule"])
def test_a_missing_plan_file(capsys, tmp_path, command) -> None:
    missing = tmp_path / "nope.py"
    code, out, err = run_cli(capsys, command, missing)
    assert code == 2 and out == ""
    assert one_line(err) == f"agentjit: error: InputFileError: {missing}: no such plan file"
    code, out, err = run_cli(capsys, command, missing, "--json")
    error = json_error(out)
    assert code == 2 and err == ""
    assert error["type"] == "InputFileError" and error["file"] == str(missing) and error["line"] is None


@pytest.mark.parametrize(
    "content, why",
    [(b"\xff\xfe\x00\x01binary", "not UTF-8"), (b"result = 1\x00\x00", "NUL bytes"), (b"result = '\xe9'", "not UTF-8")],
)
def test_a_binary_or_non_utf8_plan_file(capsys, tmp_path, content, why) -> None:
    plan = write(tmp_path, "bin.py", content)
    for command in ("run", "check"):
        code, _, err = run_cli(capsys, command, plan)
        assert code == 2 and why in one_line(err)
        code, out, _ = run_cli(capsys, command, plan, "--json")
        assert code == 2 and json_error(out)["file"] == str(plan)


def test_a_directory_as_the_plan_file(capsys, tmp_path) -> None:
    (tmp_path / "d.py").mkdir()
    code, _, err = run_cli(capsys, "check", tmp_path / "d.py")
    assert code == 2 and "is a directory" in one_line(err)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "p.py", "--latency-scale", "-1"],
        ["run", "p.py", "--latency-scale", "nan"],
        ["demo", "--latency-scale", "-0.5"],
        ["run", "p.py", "--time-limit", "0"],
        ["run", "p.py", "--max-steps", "-3"],
        ["run", "p.py", "-n", "0"],
        ["schedule", "p.py", "--trials", "0"],
        ["site", "--port", "70000"],
        ["run", "p.py", "--no-such-flag"],
        ["no-such-command"],
    ],
)
def test_bad_flags_are_usage_errors(capsys, argv) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and one_line(err).startswith("agentjit: error: UsageError: ")
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 2 and json_error(out)["type"] == "UsageError"


def test_run_without_a_plan_or_task_is_a_usage_error(capsys) -> None:
    code, out, err = run_cli(capsys, "run", "--json")
    assert code == 2 and "give a plan file or --task" in json_error(out)["message"]


# -- plans the gate refuses: exit 1, before anything starts --------------------------------


def test_an_empty_plan_is_invalid_in_check_and_refused_by_run(capsys, tmp_path) -> None:
    plan = write(tmp_path, "empty.py", "\n# nothing here\n")
    code, out, _ = run_cli(capsys, "check", plan, "--json")
    assert code == 1 and [d["code"] for d in json.loads(out)["diagnostics"]] == ["no-result"]
    code, out, _ = run_cli(capsys, "run", plan, "--site", SITE_DOWN, "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "PlanRejected" and error["file"] == str(plan) and error["line"] == 1
    assert "[no-result]" in error["message"] and error["diagnostics"][0]["code"] == "no-result"


def test_run_refuses_exactly_what_check_refuses(capsys, tmp_path) -> None:
    marker = tmp_path / "marker"
    # a plan the checker rejects beyond the sandbox pass: a precondition and an unknown field
    plan = write(tmp_path, "p.py", f'stores = await list_menu_items()\nresult = stores.nope\nx = "{marker}"')
    code, out, _ = run_cli(capsys, "check", plan, "--json")
    codes = [d["code"] for d in json.loads(out)["diagnostics"]]
    assert code == 1 and codes
    code, out, _ = run_cli(capsys, "run", plan, "--site", SITE_DOWN, "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "PlanRejected"
    assert [d["code"] for d in error["diagnostics"]] == codes
    assert f"[{codes[0]}]" in error["message"] and error["line"] == error["diagnostics"][0]["line"]


def test_raise_stop_iteration_is_a_plan_error_not_a_runtime_error(capsys, tmp_path) -> None:
    plan = write(tmp_path, "stop.py", "raise StopIteration\nresult = 1")
    code, _, err = run_cli(capsys, "run", plan, "--site", SITE_DOWN)
    line = one_line(err)
    assert code == 1 and "PlanRejected: line 1:" in line and "StopIteration" in line


def test_the_sandbox_violation_of_the_old_test_is_refused_by_the_gate(capsys, tmp_path) -> None:
    plan = write(tmp_path, "plan.py", "import os\nresult = 1")
    code, _, err = run_cli(capsys, "run", plan, "--app", "food")
    assert code == 1 and "PlanRejected: line 1: rejected by the checker: [forbidden]" in one_line(err)


# -- output that is hard to print ----------------------------------------------------------


def test_lone_surrogates_in_the_value_are_printed_escaped(capsys, tmp_path) -> None:
    plan = write(tmp_path, "sur.py", 'result = ["\\ud800x", {"k\\udfff": 1}]')
    code, out, err = run_cli(capsys, "run", plan, "--strategy", "serial", "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == ["\ud800x", {"k\udfff": 1}]
    code, out, err = run_cli(capsys, "run", plan, "--strategy", "serial")
    assert code == 0 and "\\ud800x" in out and "Traceback" not in err


def test_a_huge_int_never_crashes_the_output(capsys, tmp_path) -> None:
    assert jsonable(10**5000) == "<int with about 5001 digits>"
    assert jsonable({"a": [1, -(10**6000)]}) == {"a": [1, "<int with about 6001 digits>"]}
    plan = write(tmp_path, "big.py", "result = 10**5000")
    for extra in ([], ["--json"]):
        code, out, err = run_cli(capsys, "run", plan, "--strategy", "serial", *extra)
        assert code in (0, 1) and "Traceback" not in err  # the runtime may refuse to hand it out
        if code == 0 and extra:
            assert json.loads(out)["value"] == "<int with about 5001 digits>"
        elif code == 1:
            assert one_line(err) if not extra else json_error(out)


# -- interrupts and internal errors --------------------------------------------------------


def test_keyboard_interrupt_is_exit_130_with_one_line(capsys, monkeypatch) -> None:
    async def interrupted(_args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setitem(agentjit.cli.base.COMMANDS, "tools", interrupted)
    code, out, err = run_cli(capsys, "tools")
    assert code == 130 and one_line(err) == "agentjit: error: interrupted"
    code, out, _ = run_cli(capsys, "tools", "--json")
    assert code == 130 and json_error(out)["type"] == "KeyboardInterrupt"


def test_an_internal_error_is_exit_4_with_one_line_and_a_traceback_with_v(capsys, monkeypatch) -> None:
    async def broken(_args: Any) -> int:
        raise RuntimeError("something\nbroke")

    monkeypatch.setitem(agentjit.cli.base.COMMANDS, "tools", broken)
    code, _, err = run_cli(capsys, "tools")
    line = one_line(err)
    assert code == 4 and "internal error" in line and "RuntimeError: something | broke" in line and "-v" in line
    code, _, err = run_cli(capsys, "-v", "tools")
    assert code == 4 and "Traceback" in err


def test_ctrl_c_stops_a_running_plan_with_exit_130(tmp_path) -> None:
    plan = write(tmp_path, "loop.py", "n = 0\nwhile True:\n    s = await list_stores()\n    n += 1\nresult = n")
    agentjit_bin = Path(sys.executable).parent / "agentjit"
    proc = subprocess.Popen(
        [str(agentjit_bin), "run", str(plan), "--strategy", "serial", "--latency-scale", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background job ignores SIGINT
    )  # fmt: skip
    try:
        time.sleep(6)  # Chromium up, the loop running
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert one_line(err) == "agentjit: error: interrupted"


def test_ctrl_c_ends_the_command_even_when_its_clean_up_hangs(tmp_path) -> None:
    """A clean-up that never finishes (a browser that died with the same signal) cannot keep the
    command alive: after the grace period what it started is killed and it exits 130."""
    script = tmp_path / "hang.py"
    script.write_text(
        "import asyncio, subprocess, sys\n"
        "from agentjit.cli.interrupt import exit_promptly_on_ctrl_c\n"
        "async def main():\n"
        "    with exit_promptly_on_ctrl_c(0.5, json_mode=True):\n"
        "        child = subprocess.Popen(['sleep', '300'])\n"
        "        print(child.pid, flush=True)\n"
        "        try:\n"
        "            await asyncio.sleep(300)\n"
        "        finally:\n"
        "            await asyncio.shield(asyncio.sleep(300))  # a clean-up that hangs\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert json.loads(out) == {"error": {"type": "KeyboardInterrupt", "message": "interrupted"}}
    assert "clean-up did not finish" in err and stopped < 20
    time.sleep(0.2)
    assert not Path(f"/proc/{child}").exists() or b"Z" in Path(f"/proc/{child}/stat").read_bytes().split(b")")[1][:3]


def test_the_ctrl_c_watchdog_leaves_no_handler_or_timer_behind() -> None:
    import asyncio
    import threading

    from agentjit.cli.interrupt import exit_promptly_on_ctrl_c

    async def body() -> object:
        inside = signal.getsignal(signal.SIGINT)
        with exit_promptly_on_ctrl_c(0.1):
            chained = signal.getsignal(signal.SIGINT) is not inside
        return inside, chained

    saved = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a terminal's: asyncio.run installs its own
        asyncio_handler, chained = asyncio.run(body())
        assert chained and asyncio_handler is not signal.default_int_handler
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job's: left ignored
        assert asyncio.run(body()) == (signal.SIG_IGN, False)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, saved)
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)]


# -- the plan cache is checked again -------------------------------------------------------


def _poison(plans_file: Path, cache: ToolCache, task: str, marker: Path) -> None:
    entry = {"task": task, "source": f'result = open("{marker}", "w").write("escaped")', "cost": 0.1, "origin": "model"}
    plans_file.write_text(json.dumps({plan_key(task, cache): entry}))


@pytest.mark.parametrize("where", ["cache-dir", "plan-cache-file"])
def test_a_poisoned_plan_cache_entry_is_refused_naming_the_file(capsys, caplog, tmp_path, monkeypatch, where) -> None:
    task = "first three stores in Best near you"
    marker = tmp_path / "marker"
    if where == "cache-dir":
        cache_dir = tmp_path / "cache"
        shutil.copytree(CACHE_DIR, cache_dir)
        plans_file = cache_dir / "plans.json"
        flags: list[Any] = ["--cache", cache_dir, "--app", "food"]
    else:
        plans_file = tmp_path / "food-plans.json"
        flags = ["--plan-cache", plans_file]
    _poison(plans_file, ToolCache.load(CACHE_DIR), task, marker)
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```")] * 4) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, out, err = run_cli(
            capsys, "run", "--task", task, "--model", f"openai:fake@{server.base_url}", "-n", "1", "-k", "1",
            "--strategy", "serial", "--json", *flags,
        )  # fmt: skip
        assert code == 0, err
        assert len(server.requests) == 1  # recompiled
    data = json.loads(out)
    assert data["plan_origin"] == "model" and len(data["value"]) == 3
    assert not marker.exists()
    warning = caplog.text  # the CLI's logging prints it on stderr
    assert str(plans_file) in warning and "[forbidden]" in warning and "'open' is not allowed" in warning
    stored = json.loads(plans_file.read_text())
    exact = [e["source"].strip() for key, e in stored.items() if not key.startswith(TEMPLATE_PREFIX)]
    assert exact == [PLAN]  # the entry was replaced (the plan's template is kept beside it)


def test_a_plan_cache_that_is_not_an_object_is_ignored(capsys, tmp_path) -> None:
    plans_file = write(tmp_path, "plans.json", "[1, 2, 3]")
    plan = write(tmp_path, "p.py", "result = 1")
    code, _, err = run_cli(capsys, "check", plan, "--plan-cache", plans_file)
    assert code == 0 and "not a JSON object" in err


# -- the API, the sync facade and the harness go through the same gate ---------------------


async def test_api_run_refuses_an_invalid_plan_before_anything_starts(food_cache: ToolCache) -> None:
    with pytest.raises(PlanRejected, match=r"\[forbidden\]") as info:
        await agentjit.api.run("result = open('/etc/passwd').read()", site_url=SITE_DOWN, cache=food_cache)
    assert info.value.line == 1
    with pytest.raises(PlanRejected, match=r"\[no-result\]"):
        await agentjit.api.run("", site_url=SITE_DOWN, cache=food_cache)


def test_sync_run_refuses_an_invalid_plan(tmp_path: Path) -> None:
    plan = write(tmp_path, "bad.py", "x = await list_menu_items()\nresult = x.items")
    with pytest.raises(PlanRejected, match="precondition") as info:
        run_plan_sync(plan, site_url=SITE_DOWN, cache=CACHE_DIR)
    assert info.value.source == str(plan) and str(plan) in str(info.value)


async def test_the_harness_refuses_an_invalid_plan_as_a_failed_task(browser_pool, food_cache: ToolCache) -> None:
    task = Task(id="t1", app="food", task="anything", kind="read", reference_plan=None, plan_text="result = 1")

    async def plan_for(_task: Task, _cache: ToolCache) -> tuple[str, str]:
        return "result = getattr(1, 'real')", "model"

    report = await run_tasks([task], cache=food_cache, site=SITE_DOWN, plan_for=plan_for, pool=browser_pool)
    [res] = report.tasks
    assert not res.ok and res.reason.startswith("PlanRejected: line 1: rejected by the checker: [forbidden]")
    assert "model plan of task t1" in res.reason


# -- --time-limit and --max-steps ----------------------------------------------------------


def test_limit_flags_build_plan_limits(monkeypatch, capsys, tmp_path) -> None:
    seen: dict[str, Any] = {}

    async def fake_execute(session: Any, prepared: Any, **kwargs: Any) -> Any:
        seen["limits"] = session.limits  # what the session hands the runtime
        raise PlanRejected("stop here")

    monkeypatch.setattr(agentjit.session.Session, "execute", fake_execute)
    plan = write(tmp_path, "p.py", "result = 1")
    run_cli(capsys, "run", plan, "--strategy", "serial", "--time-limit", "2.5", "--max-steps", "40", "--site", SITE_DOWN)
    assert seen["limits"] == DEFAULT_LIMITS.with_(time_s=2.5, max_steps=40)
    run_cli(capsys, "run", plan, "--strategy", "serial", "--site", SITE_DOWN)
    assert seen["limits"] is None  # the runtime's defaults
    code, help_text, _ = run_cli(capsys, "run", "--help")
    assert code == 0 and f"default: {DEFAULT_LIMITS.time_s:g} s" in help_text and f"{DEFAULT_LIMITS.max_steps:,}" in help_text


def test_demo_passes_its_limits_to_the_harness(monkeypatch, capsys) -> None:
    seen: dict[str, Any] = {}

    async def fake_demo(*_args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr("agentjit.tasks.runner.run_demo", fake_demo)
    code, _, _ = run_cli(capsys, "demo", "--tasks", "food-v1-1", "--max-steps", "7")
    assert code == 130 and seen["limits"] == DEFAULT_LIMITS.with_(max_steps=7)


async def test_api_run_hands_limits_to_the_runtime(monkeypatch, food_cache: ToolCache) -> None:
    seen: dict[str, Any] = {}

    class FakeRuntime:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen.update(kwargs)

        async def run(self, *args: Any, **kwargs: Any) -> str:
            return "ran"

    monkeypatch.setattr(agentjit.session, "Runtime", FakeRuntime)  # the session makes the runtime
    limits = PlanLimits(time_s=3.0, max_steps=10)
    assert await agentjit.api.run("result = 1", site_url=SITE_DOWN, cache=food_cache, limits=limits) == "ran"
    assert seen["limits"] is limits
    seen.clear()
    await agentjit.api.run("result = 1", site_url=SITE_DOWN, cache=food_cache)
    assert "limits" not in seen


def test_max_steps_stops_a_plan_with_a_plan_error(capsys, tmp_path) -> None:
    plan = write(tmp_path, "loop.py", "n = 0\nfor i in range(100000):\n    n += 1\nresult = n")
    code, out, err = run_cli(capsys, "run", plan, "--strategy", "serial", "--max-steps", "50", "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "PlanLimitExceeded" and error.get("limit") == "steps", err

