"""What a task asks the site to change, and the finding for a plan that changes nothing.

A small real model, asked "Log in as alice and set the status of 'X' to testing", wrote plans
that log in (or only read the issue) and return: every call valid, the checker content, the
tracker unchanged, and the run reported as done. The checker sees the plan but not the task;
this module reads the task. A task asks for a change when one of its clauses is an order whose
first word is a verb that changes a site (``set``, ``add``, ``assign``, ``delete``, ``order``,
``place``, ...); questions, "log in", "tell me", "search" and "sort by" are not. A plan for such a
task that can call no WRITE tool (a sign-in does not count: it changes the session, not the site;
``ai_exec`` does, as it may act) gets :class:`NoWrite`, and the planner repairs it like any other
finding, naming the tools that write.

Deliberately conservative: a clause counts only when it starts with the verb (after words
such as "please" or "then"), so a verb inside a noun phrase or a question is never read as an
order. A task it misses is compiled as before; a task it wrongly takes for a change costs a
repair, not a wrong answer, and only when the cache has tools that write.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from agentjit.plan.diagnostics import Diagnostic
from agentjit.protocol.manifest import Effect, ToolManifest

from .cost import CallSite

__all__ = ["NoWrite", "asked_changes", "is_sign_in", "missing_write"]

_CHANGE_VERBS = frozenset("""
    add append archive approve assign attach book buy cancel change close comment create decline
    decrease delete deposit disable downvote edit empty enable enroll enter file flag follow hide
    increase invite like lock lower mark modify move order pay pin place post publish purchase put
    raise rate reassign record register reject remove rename renew reopen reply request reserve
    resolve restore retitle return schedule send set share star submit subscribe tag transfer
    unassign unfollow unlock unpin unpublish unsubscribe unstar update upload upvote vote withdraw
    write
""".split())
"""First words of an order that changes what a site stores (a clause's own verb, imperative)."""

_NOT_CHANGES = re.compile(
    r"^(add(s|ed)? up|return (the|a|an|me|it|them|its|their|all)\b|order(ed)? (them |it |the \w+ |results )?by\b"
    r"|mark(ed)? down (the|a)\b|set(s)? of\b|post(s)? (about|by|from|in)\b|record(s)? of\b|file(s)? (named|called)\b)",
    re.I,
)
"""Clauses whose first word is such a verb but which read: "add up", "return the list", "order by"."""

_FILLERS = frozenset({"please", "then", "also", "now", "and", "first", "finally", "next", "just", "kindly", "so"})
_QUESTION_WORDS = re.compile(
    r"^(what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|would|should|will|has|have)\b",
    re.I)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\u2018[^\u2019]*\u2019|\u201c[^\u201d]*\u201d|\([^)]*\)")
_SENTENCES = re.compile(r"(?<=[.?!])\s+|[;:]\s+|\n+")
_CLAUSES = re.compile(r",\s*|\s+(?:and|then|but|before|after)\s+", re.I)


def asked_changes(task: str) -> list[str]:
    """The change verbs of ``task``'s orders, in order (``[]`` for a task that only asks to read).

    >>> asked_changes("Log in as alice (password p) and set the status of 'X' to testing.")
    ['set']
    >>> asked_changes("What are the status and the priority of the issue 'Set up CI'?")
    []
    """
    text = _QUOTED.sub(" Q ", task)  # names and values quoted in the task say nothing of what it asks
    verbs: list[str] = []
    for sentence in _SENTENCES.split(text):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?") or _QUESTION_WORDS.match(sentence):
            continue
        for clause in _CLAUSES.split(sentence):
            words = clause.strip().split()
            while words and words[0].lower().strip(".!") in _FILLERS:
                words.pop(0)
            if not words:
                continue
            first = words[0].lower().strip(".!")
            if first in _CHANGE_VERBS and not _NOT_CHANGES.match(" ".join(words)):
                verbs.append(first)
            elif first == "check" and len(words) > 1 and words[1].lower().strip(".!") == "out":
                verbs.append("check out")
    return verbs


class NoWrite(Diagnostic):
    """A plan for a task that asks for a change, with no call that can make one."""

    code = "no-write"


_SIGN_IN = re.compile(r"\b(log(ging)?[ _-]?in|sign(ing)?[ _-]?in|log[ _-]?on|authenticat\w*)\b|^(login|signin|logon)\b", re.I)


def is_sign_in(tool: ToolManifest) -> bool:
    """A WRITE tool that signs in: named or described as a log-in and taking a secret (a ``writeOnly``
    input, as the builder marks a password). It changes the session, not what the site stores."""
    props = (tool.input_schema or {}).get("properties") or {}
    secret = any(isinstance(p, dict) and p.get("writeOnly") for p in props.values())
    return secret and bool(_SIGN_IN.search(tool.name.replace("_", " ")) or _SIGN_IN.search(tool.name)
                           or _SIGN_IN.search(tool.description or ""))


def missing_write(task: str, calls: Iterable[CallSite], tools: Mapping[str, ToolManifest]) -> NoWrite | None:
    """:class:`NoWrite` when ``task`` asks for a change, some tool of ``tools`` writes, and no call
    of ``calls`` is to a WRITE tool other than a sign-in (:func:`is_sign_in`) or to ``ai_exec``;
    else None."""
    verbs = asked_changes(task)
    writers = sorted(name for name, tool in tools.items() if tool.effect is Effect.WRITE and not is_sign_in(tool))
    if not verbs or not writers:
        return None
    if any(c.tool == "ai_exec" or (c.effect is Effect.WRITE and c.tool in writers) for c in calls):
        return None
    shown = ", ".join(f"{name}()" for name in writers[:8]) + (f" and {len(writers) - 8} more" if len(writers) > 8 else "")
    asked = " and ".join(dict.fromkeys(verbs))
    return NoWrite(1, 1, f"the task asks to {asked} (a change on the site), but this plan calls no tool that "
                         f"writes, so it would change nothing: call the tool that makes the change (tools that "
                         f"write: {shown})")
