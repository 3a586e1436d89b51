"""The command registry: each command group registers its handlers with :func:`command`."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["Handler", "command", "COMMANDS"]


Handler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]
COMMANDS: dict[str, Handler] = {}
"""Handlers by command name (``agentjit NAME``)."""


def command(name: str) -> Callable[[Handler], Handler]:
    """Register the decorated coroutine as the handler of ``agentjit NAME``."""

    def register(fn: Handler) -> Handler:
        COMMANDS[name] = fn
        return fn

    return register
