"""The switch that keeps tests off real model providers.

``agentjit.llm.ALLOW_MODEL_REQUESTS`` (default True) is read at every request
of a provider adapter (OpenAI, Gemini). When it is False the adapter raises
:class:`~agentjit.exceptions.ModelRequestsDisallowed` before it builds a
client or opens a socket, unless the base URL points at this machine
(``127.0.0.1``, ``localhost``, ``[::1]``): that is how tests reach the fake
servers of :mod:`agentjit.llm.fake_server` while real providers stay blocked.
Fakes (``FunctionModel``, ``TestModel``) never check it.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from ..exceptions import ModelRequestsDisallowed

__all__ = [
    "is_loopback_url",
    "model_requests_allowed",
    "check_model_request_allowed",
    "override_allow_model_requests",
]

log = logging.getLogger(__name__)


def is_loopback_url(url: str | None) -> bool:
    """True when ``url``'s host is this machine (127.0.0.0/8, ::1, localhost)."""
    if not url:
        return False
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host.rstrip(".").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def model_requests_allowed() -> bool:
    """The current value of ``agentjit.llm.ALLOW_MODEL_REQUESTS``."""
    from agentjit import llm  # the flag lives on the package so tests can set it there

    return bool(llm.ALLOW_MODEL_REQUESTS)


def check_model_request_allowed(model_name: str, base_url: str | None) -> None:
    """Raise ModelRequestsDisallowed if the guard is on and ``base_url`` is not loopback."""
    if model_requests_allowed() or is_loopback_url(base_url):
        return
    where = base_url or "the provider's default endpoint"
    raise ModelRequestsDisallowed(
        f"{model_name}: real model requests are disabled "
        f"(agentjit.llm.ALLOW_MODEL_REQUESTS is False); refusing to call {where}. "
        "Use a FunctionModel/TestModel, or a base URL on 127.0.0.1."
    )


@contextmanager
def override_allow_model_requests(allow: bool) -> Iterator[None]:
    """Set ``agentjit.llm.ALLOW_MODEL_REQUESTS`` for the ``with`` block, then restore it."""
    from agentjit import llm

    previous = llm.ALLOW_MODEL_REQUESTS
    llm.ALLOW_MODEL_REQUESTS = allow
    try:
        yield
    finally:
        llm.ALLOW_MODEL_REQUESTS = previous
