"""Healing a WRITE whose names all match and whose request lost what it carried: the builder's current helpers.

A redesign can leave every name a WRITE uses in place and still break it: the field it fills is now
behind an editor (a markdown editor over the textarea hides it and writes its own, empty text into it
on submit), so the value the tool sets never reaches the request. No name change repairs that; what
fills a field, waits for an editor and clicks is the in-page helpers every tool body starts with
(``toolcache/js/prelude.js``, :data:`toolcache.codegen.PRELUDE`), as the builder that made the tool
wrote them. :func:`with_current_helpers` gives the tool the builder's current helpers around its own
code; heal verifies that tool as any healed WRITE, behind the guard that answers only the request its
good call sent (so the value must be carried again), and keeps it only then.

A body is its helpers, then its own code; the helpers end with the definition of ``__watchWrites``
(every prelude has ended so), which is how :func:`own_code` tells them apart.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from agentjit.protocol.manifest import ToolManifest, ToolType

from .codegen import PRELUDE
from .pages import ROUTES_SLOT
from .recorded import WriteGuard

__all__ = ["own_code", "with_current_helpers", "refilled", "fills", "likest_write_call", "lands_nowhere", "HELPERS_CHANGE"]

log = logging.getLogger(__name__)

HELPERS_CHANGE = "(the builder's helpers)"
"""How a heal report's ``changes`` names the helpers it replaced (old -> new: the tool's version, ``current``)."""

_LAST_HELPER = re.compile(r"^const __watchWrites = .*?^\};\n", re.MULTILINE | re.DOTALL)
_ROUTES = re.compile(r"^const __ROUTES = \[.*\];$", re.MULTILINE)


def own_code(body: str) -> str | None:
    """The code of ``body`` after the helpers it was built with, or None when they cannot be told apart."""
    m = _LAST_HELPER.search(body)
    return body[m.end():] if m is not None else None


def _current(body: str) -> str:
    """``body`` with the builder's current helpers (its learned routes kept); as it is when it has none (a check that
    is ``return true;``) or they cannot be told from its own code."""
    own = own_code(body)
    routes = _ROUTES.search(body)
    if own is None or routes is None:
        return body
    helpers = PRELUDE.strip().replace(ROUTES_SLOT, routes.group(0), 1)
    return helpers + "\n" + own


def with_current_helpers(tool: ToolManifest) -> ToolManifest | None:
    """``tool`` with the builder's current helpers in its pre_check, execute and post_check (each that has helpers),
    or None when nothing changes (every body has the current ones already, or none that can be told apart)."""
    bodies = {key: getattr(tool, key) for key in ("pre_check", "execute", "post_check")}
    new = {key: _current(body) for key, body in bodies.items()}
    if new == bodies:
        return None
    return tool.model_copy(update=new)


async def refilled(tool: ToolManifest, verify: Callable[[ToolManifest], Awaitable[str | None]]) -> ToolManifest | None:
    """``tool`` (a WRITE that fails behind the guard) with the builder's current helpers, when ``verify`` (heal's
    guarded run with the good call's arguments: the request must be the recorded one) passes it; else None."""
    if not tool.is_write:
        return None
    fresh = with_current_helpers(tool)
    if fresh is None:
        return None
    problem = await verify(fresh)
    if problem is not None:
        log.info("%s with the builder's current helpers still fails: %s", tool.name, problem)
        return None
    return fresh


def fills(tool: ToolManifest) -> bool:
    """Whether ``tool`` sets fields (a form's, a workflow's fills). A fill that did not take can pass every check
    heal runs: a rich-text editor the page does not draw (in a tab panel not shown) takes no typed text and says
    nothing, and a READ sends no request to hold it to. Such a tool, healed, gets the builder's current helpers
    (how it fills now) when it verifies with them, as a rebuild would give it."""
    return tool.type == ToolType.SET_FIELDS


def likest_write_call(calls: list[dict[str, Any]], args: dict[str, Any]) -> dict[str, Any] | None:
    """Of a WRITE's good calls on record (:meth:`~agentjit.cache.SuspectStore.good_calls`, the first first), the one
    to verify its heal with: the one that gave values to most of the inputs the failed call gave (``args``), the
    first of equals; a later one keeps the first's pages (its hidden fields, its sign-in form) beside its own page,
    arguments and requests. None when none sent a request."""
    given = {k for k, v in args.items() if v not in (None, "")}

    def overlap(call: dict[str, Any]) -> int:
        theirs = call.get("args")
        return len(given & {k for k, v in theirs.items() if v not in (None, "")}) if isinstance(theirs, dict) else 0

    sent = [c for c in calls if isinstance(c.get("writes"), list) and c["writes"]]
    if not sent:
        return None
    best = max(sent, key=overlap)  # max keeps the first of equals
    if best is calls[0]:
        return best
    return {**calls[0], **{k: best[k] for k in ("url", "args", "writes") if k in best}}


def lands_nowhere(guard: WriteGuard, answered: int, url: str) -> bool:
    """Whether a WRITE whose request the guard answered from the record (``answered`` requests) landed on an error
    page (HTTP 400 or more) at ``url``, or its script's fetch followed the recorded redirect to one
    (:attr:`WriteGuard.dead_ends`): the page the recorded answer leads to is one the unsent write would have made
    (a new issue's, an order's), which the site does not have. Its request, the recorded one, is then all there is
    to verify; what it reads there is judged when it next runs, or on the page a run's write led to (heal's
    ``landing``)."""
    last = guard.last_document
    return bool(answered) and (bool(guard.dead_ends) or (last is not None and last[1] >= 400 and last[0] == url))
