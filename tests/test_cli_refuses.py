"""Plans that cannot run are refused by every command that reads them: no price, no "valid"."""

from __future__ import annotations

import json

import pytest

from agentjit.cli import main


def test_schedule_refuses_a_plan_with_an_unknown_tool(capsys, tmp_path) -> None:
    plan = tmp_path / "plan.py"
    plan.write_text("x = await no_such_tool()\nresult = x\n")
    code = main(["schedule", str(plan), "--app", "food", "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 1 and error["type"] == "PlanRejected" and "no_such_tool" in error["message"]
    assert error["line"] == 1 and error["file"] == str(plan)


@pytest.mark.parametrize("text", ["", "\n\n", "# nothing to do\n"])
def test_an_empty_plan_is_not_valid(capsys, tmp_path, text) -> None:
    plan = tmp_path / "plan.py"
    plan.write_text(text)
    code = main(["check", str(plan), "--app", "food", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and not report["valid"] and [d["code"] for d in report["diagnostics"]] == ["no-result"]


def test_bad_latency_scale_is_one_line(capsys) -> None:
    assert main(["demo", "--latency-scale", "-1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "-1" in err and "Traceback" not in err


def test_ctrl_c_during_toolcache_build_is_one_line(capsys, tmp_path, monkeypatch) -> None:
    import toolcache.build
    from toolcache.cli import main as toolcache_main

    async def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(toolcache.build, "build_cache", interrupted)
    assert toolcache_main(["build", str(tmp_path), "-o", str(tmp_path / "out")]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["toolcache: error: interrupted"]
