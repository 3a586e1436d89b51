"""Model errors a user can act on: one line each, naming what to fix; slow servers get time."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from agentjit.cli import main
from agentjit.llm import Message, OpenAIModel
from agentjit.llm.pacing import Pacing
from agentjit.testing import FakeOpenAIServer, FakeReply

PLAN = 'await goto_home()\nstores = await list_stores(section="Best near you", limit=3)\nresult = [s.name for s in stores.items]'
HTML = "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>"


def _compile(capsys, tmp_path, model: str, *extra: str) -> tuple[int, str, str]:
    code = main(["compile", "first three stores", "--model", model, "--plan-cache", str(tmp_path / "p.json"), *extra])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_missing_api_key_is_one_line_before_any_worker(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, _, err = _compile(capsys, tmp_path, "openai:gpt-4.1")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "OPENAI_API_KEY" in err and "worker" not in err


async def test_planner_checks_the_model_before_starting_workers(tmp_path) -> None:
    from agentjit.exceptions import ConfigError
    from agentjit.llm import FunctionModel
    from agentjit.planner import Planner
    from tests.planner.helpers import make_cache

    class NoKey(FunctionModel):
        def preflight(self) -> None:
            raise ConfigError("no API key")

    model = NoKey(lambda messages: "x")
    with pytest.raises(ConfigError):
        await Planner(model, make_cache(tmp_path), n=4).compile("a task")
    assert model.calls == []


def test_a_dead_base_url_is_named(capsys, tmp_path, monkeypatch) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    code, _, err = _compile(capsys, tmp_path, "openai:local", "-n", "3")
    assert code == 3 and url in err.splitlines()[-1]
    assert len(err.strip().splitlines()) <= 2, err  # not one line per worker


def test_an_html_answer_says_the_server_does_not_speak_the_openai_api(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    for status in (200, 404):
        with FakeOpenAIServer([FakeReply(status=status, body=HTML, headers={"Content-Type": "text/html"})] * 4) as srv:
            url = srv.base_url
            code, _, err = _compile(capsys, tmp_path, f"openai:m@{url}", "-n", "1")
        last = err.strip().splitlines()[-1]
        assert code != 0 and "did not speak the OpenAI API" in last and url in last and "Welcome to nginx!" in last


def test_compile_reports_progress_on_stderr(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}\n```", usage=(50, 20))]) as srv:
        code, out, err = _compile(capsys, tmp_path, f"openai:m@{srv.base_url}", "-n", "1", "--workers", "1", "--json")
    assert code == 0 and json.loads(out)["origin"] == "model"
    assert "compile: answer 1 after" in err and "(20 tokens)" in err and "compile: worker 0: valid plan" in err


async def test_a_timed_out_generation_is_retried_with_a_longer_wait() -> None:
    # the first answer takes 5 s against a 2 s timeout; the retry may wait 4 s, and the server takes 3 s
    # (longer than the first timeout: only a longer wait gets it; 1 s of margin for a loaded machine)
    replies = [FakeReply(text="late", delay_s=5.0), FakeReply(text="second", delay_s=3.0)]
    with FakeOpenAIServer(replies) as srv:
        model = OpenAIModel("m", base_url=srv.base_url, api_key="k", timeout=2.0, max_retries=1)
        try:
            resp = await model.request([Message(role="user", content="hi")])
        finally:
            await model.aclose()
    assert resp.text == "second" and len(srv.requests) == 2 and model.pacing.boost == 2.0


def test_pacing_sizes_the_timeout_from_measured_speed() -> None:
    pacing = Pacing(base_timeout_s=60.0, max_timeout_s=900.0)
    assert pacing.timeout_s(1000) == 60.0  # nothing measured yet
    pacing.observe(latency_s=20.0, output_tokens=100)  # 5 tokens/s: a slow local server
    assert pacing.tokens_per_s == 5.0
    assert pacing.timeout_s(1000) == 400.0  # twice the 200 s that 1000 tokens take
    assert pacing.timeout_s() == 2.0 * 512 / 5.0  # no max_tokens: at least 512 tokens expected
    assert pacing.timed_out(400.0) and pacing.timeout_s(1000) == 800.0
    assert pacing.timed_out(800.0) and pacing.timeout_s(1000) == 900.0  # the ceiling
    assert not pacing.timed_out(900.0)  # a timeout at the ceiling is final
    fast = Pacing(base_timeout_s=60.0)
    fast.observe(latency_s=2.0, output_tokens=400)
    assert fast.timeout_s(1000) == 60.0  # never below the configured timeout


async def test_planner_bounds_requests_in_flight(tmp_path) -> None:
    from agentjit.llm import FunctionModel
    from agentjit.planner import Planner
    from tests.planner.helpers import make_cache

    in_flight, most = 0, 0

    class Slow(FunctionModel):
        async def request(self, messages, **kw):  # type: ignore[no-untyped-def]
            nonlocal in_flight, most
            in_flight += 1
            most = max(most, in_flight)
            await asyncio.sleep(0.05)
            in_flight -= 1
            return await super().request(messages, **kw)

    lines: list[str] = []
    model = Slow(lambda messages: "```python\nresult = 1\n```")
    await Planner(model, make_cache(tmp_path), n=4, k=4, max_concurrency=2, progress=lines.append).compile("t", use_cache=False)
    assert most == 2 and len(model.calls) == 4
    assert sum(line.startswith("answer ") for line in lines) == 4
    most = 0
    await Planner(model, make_cache(tmp_path), n=4, k=4).compile("t", use_cache=False)
    assert most == 4  # default: n at once
