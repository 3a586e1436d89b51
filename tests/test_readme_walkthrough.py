"""The README's "your own site" walkthrough, run as written against a real app (Roundup).

Record the demonstrations, build the cache from them, list its tools and run
every task on it: the commands are read from README.md, so the README stays
true. Only the /tmp output paths are moved into the test's own directory.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _walkthrough() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("**A real app, end to end: Roundup.**")
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block is not None, "the Roundup walkthrough has no bash block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.startswith(".venv/bin/")]


def test_the_walkthrough_names_record_build_tools_and_demo() -> None:
    steps = [shlex.split(c)[:2] for c in _walkthrough()]
    assert [s[1] for s in steps] == ["record", "build", "tools", "demo"]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_readme_walkthrough_runs_on_roundup(tmp_path: Path) -> None:
    pytest.importorskip("roundup")
    for command in _walkthrough():
        command = re.sub(r"/tmp/rt\b/?", f"{tmp_path}/rt/", command).replace("/tmp/roundup-cache", f"{tmp_path}/cache")
        argv = shlex.split(command)
        argv[0] = str(BIN / Path(argv[0]).name)
        if "*" in command:  # the shell's glob
            argv = [a for arg in argv for a in (sorted(str(p) for p in ROOT.glob(arg)) if "*" in arg else [arg])]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        if argv[1] == "tools":
            assert "edit_issue" in done.stdout and "list_issues" in done.stdout
    assert (tmp_path / "cache" / "cache.json").exists()
