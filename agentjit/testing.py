"""Fakes for tests and notebooks, all answering through the real code paths.

``FunctionModel`` / ``TestModel`` answer through ``Model.request()`` like the
real adapters; ``CassetteModel`` records and replays exchanges; the fake
servers speak the OpenAI and Gemini HTTP APIs on 127.0.0.1 so the real SDKs
can be driven end to end.
"""

from agentjit.llm import CassetteModel, FunctionModel, TestModel, override_allow_model_requests
from agentjit.llm.fake_server import FakeGeminiServer, FakeOpenAIServer, FakeReply

__all__ = [
    "FunctionModel",
    "TestModel",
    "CassetteModel",
    "FakeOpenAIServer",
    "FakeGeminiServer",
    "FakeReply",
    "override_allow_model_requests",
]
