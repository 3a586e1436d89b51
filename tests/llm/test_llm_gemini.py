"""GeminiModel through the real google-genai SDK over real HTTP to a loopback fake server."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from google.genai import errors as genai_errors

from agentjit.exceptions import (
    ConfigError,
    ModelRequestError,
    ModelRequestsDisallowed,
    ModelResponseError,
)
from agentjit.llm import GeminiModel, Message, infer_model, override_allow_model_requests
from agentjit.llm.fake_server import FakeGeminiServer, FakeReply

ASK = [
    Message(role="system", content="You write plans."),
    Message(role="user", content="First."),
    Message(role="assistant", content="A draft."),
    Message(role="user", content="Fix it."),
]


async def test_text_usage_and_request_shape(fast: dict[str, Any]) -> None:
    with FakeGeminiServer(["gemini plan"], usage=(321, 12)) as srv:
        async with GeminiModel(
            "gemini-fake", base_url=srv.base_url, api_key="g-key", **fast
        ) as model:
            response = await model.request(ASK, temperature=0.3, max_tokens=50)
    assert response.text == "gemini plan"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (321, 12)
    assert response.model_name == "gemini:gemini-fake"
    [request] = srv.requests
    assert request.path.endswith("/models/gemini-fake:generateContent")
    assert request.headers["x-goog-api-key"] == "g-key"
    body = request.body
    assert body["systemInstruction"]["parts"] == [{"text": "You write plans."}]
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][2]["parts"] == [{"text": "Fix it."}]
    assert body["generationConfig"] == {"temperature": 0.3, "maxOutputTokens": 50}


async def test_infer_model_with_base_url_form(fast: dict[str, Any]) -> None:
    with FakeGeminiServer(["via spec"]) as srv:
        async with infer_model(f"gemini:gemini-2.5-flash@{srv.base_url}", **fast) as model:
            assert (await model.request(ASK)).text == "via spec"
    assert "gemini-2.5-flash:generateContent" in srv.requests[0].path


async def test_rate_limit_then_success_is_retried(fast: dict[str, Any], sleep: Any) -> None:
    with FakeGeminiServer([FakeReply(status=429), "second time"]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, **fast) as model:
            assert (await model.request(ASK)).text == "second time"
    assert len(srv.requests) == 2
    assert len(sleep.delays) == 1


async def test_server_errors_give_up_after_max_retries(fast: dict[str, Any], sleep: Any) -> None:
    with FakeGeminiServer(lambda request: FakeReply(status=503)) as srv:
        async with GeminiModel("g", base_url=srv.base_url, max_retries=3, **fast) as model:
            with pytest.raises(ModelRequestError, match="gave up after 4") as info:
                await model.request(ASK)
    assert len(srv.requests) == 4
    assert isinstance(info.value.__cause__, genai_errors.ServerError)
    assert len(sleep.delays) == 3


async def test_permission_error_is_not_retried(fast: dict[str, Any]) -> None:
    with FakeGeminiServer([FakeReply(status=403, text="key revoked")]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, **fast) as model:
            with pytest.raises(ModelRequestError, match="key revoked"):
                await model.request(ASK)
    assert len(srv.requests) == 1


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("{not json", "malformed answer"),
        ('{"candidates": []}', "no candidates"),
        ('{"candidates": [], "promptFeedback": {"blockReason": "SAFETY"}}', "blocked"),
        ('{"candidates": [{"content": {"role": "model", "parts": []}}]}', "empty answer"),
    ],
)
async def test_malformed_or_empty_answer_is_a_model_error(
    body: str, match: str, fast: dict[str, Any]
) -> None:
    with FakeGeminiServer([FakeReply(body=body)]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, **fast) as model:
            with pytest.raises(ModelResponseError, match=match):
                await model.request(ASK)
    assert len(srv.requests) == 1


async def test_timeout_is_retried(fast: dict[str, Any], sleep: Any) -> None:
    with FakeGeminiServer([FakeReply(text="late", delay_s=5.0), "in time"]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, timeout=1.5, **fast) as model:
            assert (await model.request(ASK)).text == "in time"
    assert len(srv.requests) == 2
    assert len(sleep.delays) == 1


async def test_a_timed_out_generation_is_retried_with_a_longer_wait(sleep: Any) -> None:
    # as for OpenAI (tests/test_cli_model_errors.py): the first answer takes 5 s against a 2 s
    # timeout, the retry may wait 4 s and the server takes 3 s, so only a longer wait gets it
    replies = [FakeReply(text="late", delay_s=5.0), FakeReply(text="second", delay_s=3.0)]
    with FakeGeminiServer(replies) as srv:
        async with GeminiModel("g", base_url=srv.base_url, api_key="k", timeout=2.0, max_retries=1,
                               sleep=sleep) as model:  # fmt: skip
            response = await model.request(ASK)
            assert model.pacing.boost == 2.0
    assert response.text == "second" and len(srv.requests) == 2


async def test_a_timeout_at_the_longest_wait_is_final(fast: dict[str, Any]) -> None:
    with FakeGeminiServer([FakeReply(text="late", delay_s=5.0), "never asked"]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, api_key="k", timeout=0.3, **fast) as model:
            model.pacing.max_timeout_s = 0.3
            with pytest.raises(ModelRequestError, match=r"no answer within 0 s, the longest a request waits"):
                await model.request(ASK)
    assert len(srv.requests) == 1  # not re-sent with the same budget


async def test_guard_blocks_the_public_endpoint(fast: dict[str, Any]) -> None:
    model = GeminiModel("gemini-2.5-flash", api_key="real", **fast)
    assert model.base_url == "https://generativelanguage.googleapis.com"
    with pytest.raises(ModelRequestsDisallowed):
        await model.request(ASK)
    assert model._client is None


async def test_sdk_base_url_env_is_seen_by_the_guard(
    monkeypatch: pytest.MonkeyPatch, fast: dict[str, Any]
) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "https://gemini.example.com")
    with pytest.raises(ModelRequestsDisallowed, match="gemini.example.com"):
        await GeminiModel("g", **fast).request(ASK)


async def test_key_from_env_and_missing_key(
    monkeypatch: pytest.MonkeyPatch, fast: dict[str, Any]
) -> None:
    with override_allow_model_requests(True), pytest.raises(ConfigError, match="GEMINI_API_KEY"):
        await GeminiModel("g", **fast).request(ASK)
    monkeypatch.setenv("GEMINI_API_KEY", "env-key")
    with FakeGeminiServer(["ok"]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, **fast) as model:
            await model.request(ASK)
    assert srv.requests[0].headers["x-goog-api-key"] == "env-key"


async def test_only_system_messages_is_a_config_error(fast: dict[str, Any]) -> None:
    with FakeGeminiServer(["unused"]) as srv:
        async with GeminiModel("g", base_url=srv.base_url, **fast) as model:
            with pytest.raises(ConfigError, match="user message"):
                await model.request([Message(role="system", content="only")])
    assert srv.requests == []


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.genai", None)
    with pytest.raises(ConfigError, match=r"agentjit\[gemini\]"):
        GeminiModel("gemini-2.5-flash")
