"""Playwright's words for an operation whose document was replaced under it.

A click or a goto often starts a navigation the page replaces at once (a
script's ``location.replace``, a meta refresh, a 302 chain, a submit handler
that navigates twice). Playwright then fails the operation with "navigation is
interrupted by another navigation", ``net::ERR_ABORTED``, "Execution context
was destroyed" or "the page is navigating". :func:`is_navigation_race` tells
those from real failures, for :func:`~agentjit.runtime.call_tool` and for
toolcache's recorder and verifier (``toolcache.navigation``), which wait for
the last navigation instead.
"""

from __future__ import annotations

__all__ = ["is_navigation_race", "RACE_MARKERS"]

RACE_MARKERS = (
    "interrupted by another navigation",
    "execution context was destroyed",
    "frame was detached",
    "page is navigating",
    "net::err_aborted",
    "cannot find context with specified id",
    "most likely because of a navigation",
)
"""Lower-case fragments of the messages Playwright gives when the document went away mid-operation."""


def is_navigation_race(exc: BaseException) -> bool:
    """Whether ``exc`` says the page was navigating (a redirect under way), not that something failed."""
    text = str(exc).lower()
    return any(marker in text for marker in RACE_MARKERS)
