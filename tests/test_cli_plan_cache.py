"""The plan cache on the command line: keyed by model, and a hit says that no model was called."""

from __future__ import annotations

import json

from agentjit.cli import main
from agentjit.testing import FakeOpenAIServer, FakeReply

PLAN = 'await goto_home()\nstores = await list_stores(section="Best near you", limit=3)\nresult = [s.name for s in stores.items]'
TASK = "first three stores in Best near you"


def test_compile_cache_hits_only_for_the_same_model(capsys, tmp_path, monkeypatch) -> None:
    plans = str(tmp_path / "plans.json")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```", usage=(100, 10))] * 4) as server:

        def compile_json(model: str, *extra: str) -> dict:
            code = main(["compile", TASK, "--model", f"openai:{model}@{server.base_url}", "-n", "1", "-k", "1",
                         "--plan-cache", plans, "--json", *extra])
            assert code == 0
            return json.loads(capsys.readouterr().out)

        first = compile_json("model-a")
        assert first["origin"] == "model" and first["model"] == f"openai:model-a@{server.base_url}" and len(server.requests) == 1
        other = compile_json("model-b")  # another model compiles afresh
        assert other["origin"] == "model" and other["model"] == f"openai:model-b@{server.base_url}" and len(server.requests) == 2
        hit = compile_json("model-b")
        assert hit["origin"] == "cache" and len(server.requests) == 2
        assert hit["tokens"] == {"input": 0, "output": 0} and hit["model_calls"] == 0 and hit["plan_cache"] == plans
        assert hit["stats"]["sampled"] == 0 and hit["candidates"] == []
        borrowed = compile_json("model-c", "--any-model")
        assert borrowed["origin"] == "cache" and borrowed["model"] in (f"openai:model-a@{server.base_url}", f"openai:model-b@{server.base_url}")
        assert len(server.requests) == 2
        # in words
        assert main(["compile", TASK, "--model", f"openai:model-a@{server.base_url}", "--plan-cache", plans]) == 0
        out = capsys.readouterr().out.replace("\n", " ")
        assert f"from the plan cache {plans}" in out and "no model was called" in out and len(server.requests) == 2


def test_every_compiling_command_takes_no_plan_cache() -> None:
    from agentjit.cli import build_parser

    for argv in (["compile", "t", "--model", "openai:m"], ["run", "--task", "t"], ["demo"]):
        assert build_parser().parse_args([*argv, "--no-plan-cache"]).no_plan_cache


def test_run_task_says_where_the_plan_came_from(capsys, tmp_path, monkeypatch) -> None:
    plans = str(tmp_path / "plans.json")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```", usage=(100, 10))] * 2) as server:
        argv = ["run", "--task", TASK, "--model", f"openai:m@{server.base_url}", "-n", "1", "-k", "1",
                "--plan-cache", plans, "--strategy", "serial", "--latency-scale", "0"]
        assert main(argv) == 0
        first = capsys.readouterr().out.replace("\n", " ")
        assert main(argv) == 0
        second = capsys.readouterr().out.replace("\n", " ")
        url = server.base_url
    assert f"plan: compiled by openai:m@{url}" in first and "1 model calls answered, tokens 100+10" in first
    assert f"plan: from the plan cache {plans} (compiled by openai:m@{url}); no model was called" in second
    assert len(server.requests) == 1
