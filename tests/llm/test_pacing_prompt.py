"""The first timeout leaves a slow server the time to read the prompt: a long prompt is not re-sent behind
its own generation."""

from __future__ import annotations

from agentjit.llm import Message, OpenAIModel
from agentjit.llm.pacing import COLD_PROMPT_TOKENS_PER_S, Pacing
from agentjit.testing import FakeOpenAIServer, FakeReply


def test_the_first_timeout_grows_with_the_prompt() -> None:
    pacing = Pacing(base_timeout_s=60.0)
    assert pacing.timeout_s(prompt_tokens=3700) == 60.0 + 3700 / COLD_PROMPT_TOKENS_PER_S
    assert pacing.timeout_s(prompt_tokens=3700) > 107  # the cold 3.7k-token prompt the issue measured
    pacing.observe(latency_s=20.0, output_tokens=400)  # measured: the speed decides from now on
    assert pacing.timeout_s(prompt_tokens=3700) == pacing.timeout_s()


async def test_a_long_prompt_on_a_slow_server_is_sent_once() -> None:
    # 2 s configured; the server takes 4 s for a prompt of about 100 tokens (+4 s at the cold speed)
    prompt = "word " * 80 * 4
    with FakeOpenAIServer([FakeReply(text="answer", delay_s=4.0), FakeReply(text="again")]) as srv:
        model = OpenAIModel("m", base_url=srv.base_url, api_key="k", timeout=2.0, max_retries=1)
        try:
            resp = await model.request([Message(role="user", content=prompt)])
        finally:
            await model.aclose()
    assert resp.text == "answer" and len(srv.requests) == 1
