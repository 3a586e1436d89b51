"""``infer_model``: a model from a short spec string (for the CLI and notebooks)."""

from __future__ import annotations

import re
from typing import Any

from ..exceptions import ConfigError
from .base import Model

__all__ = ["infer_model", "MODEL_SPEC_FORMS"]

MODEL_SPEC_FORMS = (
    "openai:MODEL (OPENAI_API_KEY; OPENAI_BASE_URL is honoured)",
    "openai:MODEL@http://HOST:PORT/v1 (any OpenAI-compatible server)",
    "gemini:MODEL (GEMINI_API_KEY or GOOGLE_API_KEY)",
    "gemini:MODEL@http://HOST:PORT (a server speaking the Gemini REST API)",
)

_SPEC = re.compile(r"^(?P<provider>[a-z][a-z0-9_-]*):(?P<model>.*?)(?:@(?P<url>https?://\S+))?$")


def _forms() -> str:
    return "; ".join(MODEL_SPEC_FORMS)


def infer_model(spec: str, **options: Any) -> Model:
    """Build the model ``spec`` names: ``"openai:gpt-4.1"``, ``"gemini:gemini-2.5-flash"``,
    ``"openai:MODEL@http://127.0.0.1:8000/v1"``. ``options`` go to the
    adapter (``timeout=``, ``max_retries=``, ``api_key=``, ``rng=``, ...).
    Unknown forms raise ConfigError listing the accepted ones.
    """
    text = spec.strip()
    match = _SPEC.match(text)
    if match is None:
        raise ConfigError(f"cannot read model spec {spec!r}; accepted forms: {_forms()}")
    provider, model, url = match["provider"], match["model"].strip(), match["url"]
    if not model:
        raise ConfigError(f"model spec {spec!r} names no model; accepted forms: {_forms()}")
    if url is not None:
        options["base_url"] = url
    if provider == "openai":
        from .openai import OpenAIModel

        return OpenAIModel(model, **options)
    if provider in ("gemini", "google"):
        from .gemini import GeminiModel

        return GeminiModel(model, **options)
    raise ConfigError(
        f"unknown model provider {provider!r} in {spec!r}; accepted forms: {_forms()}"
    )
