"""Secrets never stored: what the recorder redacts, and how the builder knows a redacted field.

A value typed into a password field, a field whose ``autocomplete`` asks for a
password or a card number (``cc-number``, ``cc-csc``), or any value that looks
like a payment card number (13-19 digits passing the Luhn check) is written to
the trace as :data:`REDACTED`. The builder turns such a field into a required
parameter; verification fills it from ``toolcache build --secret NAME=VALUE``.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REDACTED", "is_secret", "looks_like_card"]

from agentjit.protocol.trace import REDACTED

_SECRET_AUTOCOMPLETE = ("current-password", "new-password", "one-time-code", "cc-number", "cc-csc", "cc-exp")
_DIGITS = re.compile(r"^[\d ,-]{13,23}$")


def looks_like_card(value: str) -> bool:
    """13 to 19 digits (spaces and dashes allowed) that pass the Luhn check."""
    if not _DIGITS.match(value):
        return False
    digits = [int(c) for c in value if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def is_secret(attributes: dict[str, Any] | None, value: Any) -> bool:
    """Whether a value typed into an element with ``attributes`` must not be stored."""
    attrs = attributes or {}
    if str(attrs.get("type", "")).lower() == "password":
        return True
    if any(k in str(attrs.get("autocomplete", "")).lower() for k in _SECRET_AUTOCOMPLETE):
        return True
    return isinstance(value, str | int) and looks_like_card(str(value))
