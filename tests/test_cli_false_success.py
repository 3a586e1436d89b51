"""No false successes: what cannot be done is an error with a non-zero exit, never "ok"."""

from __future__ import annotations

import json
import shutil

from agentjit.bench.food import CACHE_DIR
from agentjit.cli import main


def test_a_manifest_without_input_schema_is_an_error_naming_the_file(capsys, tmp_path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(CACHE_DIR, cache)
    tool = cache / "tools" / "list_stores.json"
    data = json.loads(tool.read_text())
    del data["input_schema"]
    tool.write_text(json.dumps(data))
    code = main(["tools", "--cache", str(cache)])
    err = capsys.readouterr().err.replace("\n", "")
    assert code == 2 and str(tool) in err and "input_schema" in err


def test_demo_with_an_unknown_task_id_fails(capsys) -> None:
    code = main(["demo", "--tasks", "no-such-task", "--latency-scale", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "no-such-task" in err and "0/0" not in err
