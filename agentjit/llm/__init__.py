"""Language models behind one small interface (:class:`Model`), with fakes beside them.

Real providers: :class:`OpenAIModel` (and any OpenAI-compatible server via a
base URL) and :class:`GeminiModel`, sharing one retry policy and one guard.
Fakes that answer through the same ``request()``: :class:`FunctionModel`,
:class:`TestModel`, and :class:`CassetteModel` for record/replay. Loopback
servers for the real SDKs live in :mod:`agentjit.llm.fake_server`.

``ALLOW_MODEL_REQUESTS``: set it to False (tests do) and any request to a real,
non-loopback provider raises ModelRequestsDisallowed before touching the network.
"""

from .base import Message, Model, ModelResponse, Usage
from .cassette import CassetteMode, CassetteModel, messages_key
from .function import FunctionModel, ModelFunction
from .gemini import GeminiModel
from .guard import (
    check_model_request_allowed,
    is_loopback_url,
    model_requests_allowed,
    override_allow_model_requests,
)
from .infer import MODEL_SPEC_FORMS, infer_model
from .latency import DEFAULT_PROFILE, PROFILES, LatencyProfile, SimulatedLatency, get_profile
from .openai import OpenAIModel
from .provider import ProviderModel
from .retry import RetryPolicy, Verdict
from .testing import TestModel

ALLOW_MODEL_REQUESTS: bool = True
"""False: real provider requests (non-loopback base URLs) raise ModelRequestsDisallowed."""

__all__ = [
    "ALLOW_MODEL_REQUESTS",
    "Message",
    "Model",
    "ModelResponse",
    "Usage",
    "FunctionModel",
    "ModelFunction",
    "TestModel",
    "CassetteModel",
    "CassetteMode",
    "messages_key",
    "ProviderModel",
    "OpenAIModel",
    "GeminiModel",
    "RetryPolicy",
    "Verdict",
    "infer_model",
    "SimulatedLatency",
    "LatencyProfile",
    "PROFILES",
    "DEFAULT_PROFILE",
    "get_profile",
    "MODEL_SPEC_FORMS",
    "check_model_request_allowed",
    "is_loopback_url",
    "model_requests_allowed",
    "override_allow_model_requests",
]
