"""Judges of the Trac tasks (``tasks.toml``): they read Trac's own database.

Each judge is called as ``judge(task, result, site_url)``. It reads the
tickets and wiki pages from ``GET /__state``
(:func:`~agentjit.bench.trac.site.read_state`: Trac's sqlite tables ``ticket``,
``ticket_change`` and ``wiki``) and compares them with the seed data
:data:`~agentjit.bench.trac.data.DATA` (the harness resets the site before each
task). A read task must leave the database as it was and name the right
values; a write task must make exactly the changes asked for and nothing else
(a second copy of a new ticket, a comment posted twice, or a field changed that
was not asked for, fails).
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from agentjit.tasks.task import (
    JudgeResult,
    judge_count,
    judge_exact,
    judge_read,
    norm_text,
)

from .data import DATA, Dataset
from .site import SHIPPED_AUTHOR, shipped_pages

__all__ = [
    "trac_state", "changes",
    "ticket_owner", "milestone_tickets", "blocker_tickets", "backend_count", "release_manager",
    "new_ticket", "reassign_ticket", "comment_ticket", "close_ticket", "reprioritize",
    "edit_wiki", "new_wiki", "delete_wiki", "rename_wiki",
]

Change = tuple[str, ...]
FIELDS = ("summary", "type", "component", "milestone", "priority", "owner", "reporter", "status",
          "resolution", "keywords", "description")


def trac_state(site_url: str) -> dict[str, Any]:
    """The tickets and wiki pages, as Trac's database holds them now."""
    with urllib.request.urlopen(site_url.rstrip("/") + "/__state", timeout=10) as resp:  # noqa: S310 - a local site
        data: dict[str, Any] = json.loads(resp.read().decode())
    return data


def changes(state: dict[str, Any], data: Dataset = DATA) -> list[Change]:
    """Every difference from the seed, sorted: ``("ticket", id, field, value)``, ``("comment", id, text)``
    (one per comment), ``("new ticket", summary)``, ``("deleted ticket", id)``; ``("wiki", name,
    text)`` for a seeded page whose text changed, ``("edited wiki", name)`` for one of Trac's
    help pages saved again, ``("new wiki", name)``, ``("deleted wiki", name)``."""
    out: list[Change] = []
    tickets = {t["id"]: t for t in state["tickets"]}
    for i, spec in enumerate(data.tickets, 1):
        got = tickets.pop(i, None)
        if got is None:
            out.append(("deleted ticket", str(i)))
            continue
        out += [("ticket", str(i), f, str(got[f])) for f in FIELDS if got[f] != getattr(spec, f)]
        out += [("comment", str(i), norm_text(c["text"])) for c in got["comments"]]
    for t in tickets.values():
        out.append(("new ticket", t["summary"]))
    pages = {p["name"]: p for p in state["wiki"]}
    for wspec in data.wiki:
        page = pages.pop(wspec.name, None)
        if page is None:
            out.append(("deleted wiki", wspec.name))
        elif page["text"] != wspec.text:
            out.append(("wiki", wspec.name, page["text"]))
    for name in shipped_pages():
        page = pages.pop(name, None)
        if page is None:
            out.append(("deleted wiki", name))
        elif page["author"] != SHIPPED_AUTHOR or page["version"] != 1:
            out.append(("edited wiki", name))
    out += [("new wiki", name) for name in pages]
    return sorted(out)


def _read(site_url: str, result: Any, wanted: list[str], *, unwanted: list[str] | None = None) -> JudgeResult:
    return judge_read(changes(trac_state(site_url)), result.value, wanted, unwanted=unwanted or [])


def _exactly(site_url: str, want: list[Change], *, state: dict[str, Any] | None = None) -> JudgeResult:
    """The database differs from the seed by ``want`` and nothing else (a change made twice is two)."""
    return judge_exact(changes(state if state is not None else trac_state(site_url)), want)


def _open(data: Dataset = DATA) -> list[tuple[int, Any]]:
    return [(i, t) for i, t in enumerate(data.tickets, 1) if t.status != "closed"]


# -- read tasks ----------------------------------------------------------------

def ticket_owner(task: Any, result: Any, site_url: str) -> JudgeResult:
    """'Export to CSV drops the last row': its owner and priority."""
    _, spec = DATA.ticket("Export to CSV drops the last row")
    others = sorted({t.owner for t in DATA.tickets} - {spec.owner})
    return _read(site_url, result, [spec.owner, spec.priority], unwanted=others)


def milestone_tickets(task: Any, result: Any, site_url: str) -> JudgeResult:
    mine = [t.summary for _, t in _open() if t.milestone == "1.1"]
    others = [t.summary for t in DATA.tickets if t.summary not in mine]
    return _read(site_url, result, mine, unwanted=others)


def blocker_tickets(task: Any, result: Any, site_url: str) -> JudgeResult:
    mine = [t.summary for _, t in _open() if t.priority == "blocker"]
    others = [t.summary for t in DATA.tickets if t.summary not in mine]
    return _read(site_url, result, mine, unwanted=others)


def backend_count(task: Any, result: Any, site_url: str) -> JudgeResult:
    expected = sum(1 for _, t in _open() if t.component == "backend")
    return judge_count(changes(trac_state(site_url)), result.value, expected)


def release_manager(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _read(site_url, result, ["carol"], unwanted=["alice", "bob", "dave"])


# -- write tasks ---------------------------------------------------------------

NEW_TICKET: dict[str, str] = {"summary": "Password reset email never arrives", "type": "defect", "component": "backend",
                              "milestone": "1.1", "priority": "major", "status": "new"}
COMMENT = "Reproduced on 1.0 with a 3-line file."
APRIL = "April: carol"
NEW_PAGE = ("Retrospective", "What went well in 1.0")
RENAMED = ("CodingStyle", "StyleGuide")


def _id(summary: str) -> str:
    return str(DATA.ticket(summary)[0])


def new_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    state = trac_state(site_url)
    verdict = _exactly(site_url, [("new ticket", NEW_TICKET["summary"])], state=state)
    if not verdict.ok:
        return verdict
    new = state["tickets"][-1]
    got = {k: new[k] for k in NEW_TICKET}
    if got != NEW_TICKET:
        return JudgeResult(False, f"the new ticket is {got}, not {NEW_TICKET}")
    return verdict


def reassign_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    """Reassigning sets the owner (Trac's workflow also moves a new ticket to ``assigned``)."""
    n = _id("Dark mode for the dashboard")
    return _exactly(site_url, [("ticket", n, "owner", "carol"), ("ticket", n, "status", "assigned")])


def comment_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _exactly(site_url, [("comment", _id("Export to CSV drops the last row"), norm_text(COMMENT))])


def close_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    n = _id("Session expires too early")
    return _exactly(site_url, [("ticket", n, "status", "closed"), ("ticket", n, "resolution", "fixed")])


def reprioritize(task: Any, result: Any, site_url: str) -> JudgeResult:
    n = _id("Add an index on the events table")
    return _exactly(site_url, [("ticket", n, "milestone", "1.0"), ("ticket", n, "priority", "critical")])


def edit_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    """OnCall gains the line 'April: carol' and keeps its other lines."""
    state = trac_state(site_url)
    diff = changes(state)
    edited = [c for c in diff if c[:2] == ("wiki", "OnCall")]
    if len(diff) != 1 or not edited:
        return JudgeResult(False, f"wanted one edit of OnCall, the database shows {diff[:4] or 'no change'}")
    text = edited[0][2]
    old = [line.strip() for line in DATA.page("OnCall").text.splitlines() if line.strip()]
    lines = [line.strip() for line in text.splitlines()]
    missing = [line for line in old if line not in lines]
    if missing:
        return JudgeResult(False, f"the edit lost the line(s) {missing}")
    if not any(APRIL in line for line in lines):
        return JudgeResult(False, f"OnCall has no line {APRIL!r}: {text!r}")
    return JudgeResult(True, "OnCall has April's line and kept the others")


def new_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    state = trac_state(site_url)
    name, text = NEW_PAGE
    verdict = _exactly(site_url, [("new wiki", name)], state=state)
    if not verdict.ok:
        return verdict
    page = next(p for p in state["wiki"] if p["name"] == name)
    if norm_text(page["text"]) != norm_text(text):
        return JudgeResult(False, f"{name} says {page['text']!r}, not {text!r}")
    return verdict


def delete_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _exactly(site_url, [("deleted wiki", "MeetingNotes")])


def rename_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    """CodingStyle is gone (no redirect page left) and StyleGuide holds its text."""
    state = trac_state(site_url)
    old, new = RENAMED
    verdict = _exactly(site_url, [("deleted wiki", old), ("new wiki", new)], state=state)
    if not verdict.ok:
        return verdict
    page = next(p for p in state["wiki"] if p["name"] == new)
    if page["text"] != DATA.page(old).text:
        return JudgeResult(False, f"{new} does not hold {old}'s text: {page['text']!r}")
    return verdict
