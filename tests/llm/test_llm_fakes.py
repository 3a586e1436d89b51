"""TestModel, the fake servers on their own, infer_model, and the package surface."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

import agentjit.llm as llm
from agentjit.exceptions import ConfigError, ModelRequestError
from agentjit.llm import (
    GeminiModel,
    Message,
    ModelResponse,
    OpenAIModel,
    TestModel,
    Usage,
    infer_model,
)
from agentjit.llm.fake_server import FakeGeminiServer, FakeOpenAIServer, FakeReply

ASK = [Message(role="user", content="plan please")]


async def test_test_model_answers_in_order_and_records_calls() -> None:
    fixed = ModelResponse(text="whole", usage=Usage(input_tokens=5, output_tokens=6))
    model = TestModel(["one", fixed])
    first = await model.request(ASK)
    second = await model.request([Message(role="user", content="again")])
    assert first.text == "one" and first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    assert second == fixed
    assert [c[0].content for c in model.calls] == ["plan please", "again"]
    assert model.remaining == 0
    with pytest.raises(ConfigError, match="all 2 canned answers are used"):
        await model.request(ASK)


async def test_test_model_cycles_on_request() -> None:
    model = TestModel(["a", "b"], cycle=True)
    texts = [(await model.request(ASK)).text for _ in range(5)]
    assert texts == ["a", "b", "a", "b", "a"]
    assert model.remaining is None
    with pytest.raises(ConfigError):
        TestModel([])
    assert (await TestModel("single").request(ASK)).text == "single"


def _post(url: str, payload: object) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


def test_fake_openai_server_routes_and_exhaustion() -> None:
    with FakeOpenAIServer(["only"], usage=(1, 2)) as srv:
        assert srv.base_url.startswith("http://127.0.0.1:") and srv.base_url.endswith("/v1")
        status, body = _post(srv.base_url + "/chat/completions", {"model": "x", "messages": []})
        assert status == 200
        assert body["choices"][0]["message"]["content"] == "only"  # type: ignore[index]
        assert body["usage"] == {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
        status, body = _post(srv.base_url + "/chat/completions", {"model": "x"})
        assert status == 400 and "no scripted reply left" in body["error"]["message"]  # type: ignore[index]
        status, body = _post(srv.base_url + "/completions", {})
        assert status == 404 and "no route" in body["error"]["message"]  # type: ignore[index]
    assert len(srv.requests) == 3
    with pytest.raises(RuntimeError, match="not running"):
        _ = srv.base_url


def test_fake_gemini_server_error_shape() -> None:
    with FakeGeminiServer([FakeReply(status=429, text="quota")]) as srv:
        status, body = _post(srv.base_url + "/v1beta/models/g:generateContent", {})
    assert status == 429
    assert body == {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}


async def test_exhausted_script_surfaces_as_a_request_error() -> None:
    with FakeOpenAIServer(["one"]) as srv:
        async with OpenAIModel("m", base_url=srv.base_url) as model:
            await model.request(ASK)
            with pytest.raises(ModelRequestError, match="no scripted reply left"):
                await model.request(ASK)


def test_infer_model_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    model = infer_model("openai:gpt-4.1")
    assert isinstance(model, OpenAIModel) and model.model == "gpt-4.1"
    assert model.base_url == "https://api.openai.com/v1"
    local = infer_model("openai:Qwen/Qwen2.5-7B@http://127.0.0.1:8000/v1", max_retries=1)
    assert isinstance(local, OpenAIModel)
    assert (local.model, local.base_url) == ("Qwen/Qwen2.5-7B", "http://127.0.0.1:8000/v1")
    assert local.retry.max_retries == 1
    tagged = infer_model("openai:llama3.1:8b@http://localhost:11434/v1")  # ollama-style tag
    assert isinstance(tagged, OpenAIModel) and tagged.model == "llama3.1:8b"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    from_env = infer_model("openai:m")
    assert isinstance(from_env, OpenAIModel) and from_env.base_url == "http://127.0.0.1:9/v1"
    gem = infer_model(" gemini:gemini-2.5-flash ")
    assert isinstance(gem, GeminiModel) and gem.name == "gemini:gemini-2.5-flash"
    gem_local = infer_model("gemini:g@http://127.0.0.1:7000")
    assert isinstance(gem_local, GeminiModel) and gem_local.base_url == "http://127.0.0.1:7000"


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("test", "cannot read model spec"),
        ("gpt-4.1", "cannot read model spec"),
        ("anthropic:claude", "unknown model provider 'anthropic'"),
        ("openai:", "names no model"),
        ("openai:@http://127.0.0.1:1/v1", "names no model"),
    ],
)
def test_infer_model_rejects_bad_specs(spec: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        infer_model(spec)
    assert "openai:MODEL@http://HOST:PORT/v1" in str(info.value)  # lists the accepted forms


def test_public_surface() -> None:
    for name in llm.__all__:
        assert hasattr(llm, name), name
    assert {"Message", "Model", "ModelResponse", "Usage", "FunctionModel"} <= set(llm.__all__)
    assert {"OpenAIModel", "GeminiModel", "TestModel", "CassetteModel", "infer_model"} <= set(
        llm.__all__
    )
    assert "ALLOW_MODEL_REQUESTS" in llm.__all__
