"""Command-line hygiene: --version, -v anywhere, help with defaults, fast start, 80-column tables."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from agentjit.cli import build_parser, main


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command under ``parser``, command groups' commands too (``bench e2e``)."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                out += [(child.prog, child), *_subparsers(child)]
    return out


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    from toolcache.cli import _parser as toolcache_parser

    out = []
    for top in (build_parser(), toolcache_parser()):
        out += [(top.prog, top), *_subparsers(top)]
    return out


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def test_each_benchmark_has_only_its_own_flags() -> None:
    benches = dict(_subparsers(build_parser()))
    names = {prog.split()[-1] for prog in benches if prog.startswith("agentjit bench ")}
    assert names == {"overhead", "scheduler", "sandbox", "isolation", "contexts", "e2e", "faults", "planner", "batch",
                     "templates", "heal", "menus"}
    common = {"-h", "--help", "-v", "--verbose", "--json", "--browser"}
    assert _flags(benches["agentjit bench batch"]) - common == {"--workers", "--repeat", "--latency-scale", "--ray",
                                                                "--store", "--tasks", "--only", "--app"}
    assert _flags(benches["agentjit bench faults"]) - common == {"--runs", "--app", "--processes", "--workers", "--store",
                                                                 "--ray"}
    assert _flags(benches["agentjit bench heal"]) - common == {"--seed", "--wrap", "--rounds", "--template", "--cache", "--app",
                                                                   "--no-probe", "--model", "--only", "--heal-in-run"}
    assert _flags(benches["agentjit bench sandbox"]) - common == {"--corpus"}
    assert _flags(benches["agentjit bench isolation"]) - common == {"-n", "--repeats", "-R"}
    assert "--llm-profile" in _flags(benches["agentjit bench e2e"])
    assert "--llm-profile" not in _flags(benches["agentjit bench scheduler"])
    assert "--tool" not in _flags(benches["agentjit bench faults"])
    assert "--runs" not in _flags(benches["agentjit bench overhead"])
    assert {"--compile-budget", "--samples", "-k"} <= _flags(benches["agentjit bench planner"])
    assert "--compile-budget" not in _flags(benches["agentjit bench e2e"])
    assert _flags(benches["agentjit bench templates"]) - common == {"--apps", "--variants", "--run", "--out"}
    assert _flags(benches["agentjit bench menus"]) - common == {"--seed", "-k", "--sections", "--no-held-out", "--out"}


def test_a_benchmark_given_another_ones_flag_is_a_usage_error(capsys) -> None:
    assert main(["bench", "faults", "--corpus", "x"]) == 2
    assert "unrecognized arguments: --corpus x" in capsys.readouterr().err
    assert main(["bench", "nosuch"]) == 2
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["agentjit.cli", "toolcache.cli"])
def test_version(capsys, module) -> None:
    import importlib

    entry = importlib.import_module(module).main
    try:
        code = entry(["--version"])
    except SystemExit as exc:  # argparse's own exit, where no error wrapper catches it
        code = exc.code
    assert code == 0
    from agentjit._version import __version__

    assert capsys.readouterr().out.strip().endswith(__version__)


def test_verbose_before_or_after_the_command() -> None:
    parser = build_parser()
    assert parser.parse_args(["-v", "tools"]).verbose
    assert parser.parse_args(["tools", "-v"]).verbose
    assert parser.parse_args(["check", "p.py", "--verbose"]).verbose
    assert not parser.parse_args(["tools"]).verbose
    from toolcache.cli import _parser

    assert _parser().parse_args(["build", "t", "-o", "c", "-v"]).verbose


def test_every_option_has_a_help_text_and_its_default() -> None:
    missing, no_default = [], []
    for name, parser in _parsers():
        formatter = parser._get_formatter()
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._VersionAction | argparse._SubParsersAction):
                continue
            if not action.help:
                missing.append(f"{name} {action.option_strings or action.dest}")
                continue
            default = action.default
            if action.option_strings and default not in (None, False, [], argparse.SUPPRESS):
                if "default" not in formatter._expand_help(action):
                    no_default.append(f"{name} {action.option_strings}")
    assert missing == [] and no_default == []


def test_help_imports_no_scientific_stack() -> None:
    # `agentjit --help` must start fast: the heavy layers load inside the commands that need them
    code = "import sys, agentjit.cli, toolcache.cli; print(sorted(m for m in ('scipy', 'numpy', 'playwright') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_tables_keep_ids_whole_at_80_columns(capsys, monkeypatch) -> None:
    from agentjit.tasks.apps import get_app

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["tasks", "--app", "food"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    for task in get_app("food").tasks():
        assert task.id in out
    assert main(["tools", "--app", "food"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    for name in get_app("food").load_cache().tools:
        assert name in out


def test_long_commands_report_progress_on_stderr_with_json(capsys) -> None:
    import json

    assert main(["profile", "--tasks", "food-v1-3", "--repeats", "1", "--latency-scale", "0", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["runs"] == 1 and "profiling (serial runs): 1/1" in cap.err
    assert main(["demo", "--tasks", "food-v1-3", "--latency-scale", "0", "--strategy", "serial", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["summary"]["passed"] == 1 and "ok food-v1-3" in cap.err


def test_with_json_stdout_holds_the_document_only(tmp_path) -> None:
    # Ray's raylet, a browser or a library may write to file descriptor 1 while a command runs;
    # with --json that goes to stderr, and stdout parses as the one JSON document
    script = tmp_path / "noisy.py"
    script.write_text(
        "import os, sys\n"
        "from agentjit.cli.output import emit_json, json_only_stdout\n"
        "with json_only_stdout(True):\n"
        "    os.write(1, b'(raylet) a worker died\\n')\n"
        "    os.system('echo child noise')\n"
        "    print('a library prints')\n"
        "    emit_json({'ok': True})\n"
        "print('after')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    document, rest = done.stdout.rsplit("}", 1)
    assert json.loads(document + "}") == {"ok": True} and rest.strip() == "after"
    assert "(raylet) a worker died" in done.stderr and "child noise" in done.stderr and "a library prints" in done.stderr
