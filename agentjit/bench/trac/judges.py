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

The judges marked ``reads_task`` take the ticket, page and values from the task's own text and compute
what is right from the seed data, so they also judge a literal variant (another ticket, owner, priority,
page) that ``agentjit bench templates --run`` compiles from a template.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Sequence
from typing import Any

from agentjit.tasks.task import (
    JudgeResult,
    from_task,
    judge_count,
    judge_exact,
    judge_read,
    norm_text,
    reads_task,
    unknown_value,
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


def _exactly(site_url: str, want: Sequence[Change], *, state: dict[str, Any] | None = None) -> JudgeResult:
    """The database differs from the seed by ``want`` and nothing else (a change made twice is two)."""
    return judge_exact(changes(state if state is not None else trac_state(site_url)), want)


def _open(data: Dataset = DATA) -> list[tuple[int, Any]]:
    return [(i, t) for i, t in enumerate(data.tickets, 1) if t.status != "closed"]


# -- read tasks ----------------------------------------------------------------

_QUOTED = r"'(.+?)'"


@reads_task
def ticket_owner(task: Any, result: Any, site_url: str) -> JudgeResult:
    """The named ticket's owner and priority."""
    (summary,) = from_task(task, _QUOTED, ("Export to CSV drops the last row",))
    try:
        _, spec = DATA.ticket(summary)
    except KeyError:
        return unknown_value(f"the ticket {summary!r}")
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


def _ticket(summary: str) -> tuple[str, Any] | None:
    try:
        n, spec = DATA.ticket(summary)
    except KeyError:
        return None
    return str(n), spec


@reads_task
def new_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    kind, summary, component, milestone, priority = from_task(
        task, r"File a new (\w+) '(.+?)' in the component (\S+), milestone ([^,\s]+), priority (\w+)",
        (NEW_TICKET["type"], NEW_TICKET["summary"], NEW_TICKET["component"], NEW_TICKET["milestone"],
         NEW_TICKET["priority"]))  # fmt: skip
    want = {"summary": summary, "type": kind, "component": component, "milestone": milestone, "priority": priority,
            "status": "new"}  # fmt: skip
    state = trac_state(site_url)
    verdict = _exactly(site_url, [("new ticket", summary)], state=state)
    if not verdict.ok:
        return verdict
    new = state["tickets"][-1]
    got = {k: new[k] for k in want}
    if got != want:
        return JudgeResult(False, f"the new ticket is {got}, not {want}")
    return verdict


@reads_task
def reassign_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    """Reassigning sets the owner; Trac's workflow moves the ticket to ``assigned`` (no change when it is)."""
    summary, owner = from_task(task, r"Reassign the ticket '(.+?)' to (\w+)", ("Dark mode for the dashboard", "carol"))
    found = _ticket(summary)
    if found is None:
        return unknown_value(f"the ticket {summary!r}")
    n, spec = found
    want = [("ticket", n, "owner", owner)] if spec.owner != owner else []
    want += [("ticket", n, "status", "assigned")] if spec.status != "assigned" else []
    return _exactly(site_url, want)


@reads_task
def comment_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    text, summary = from_task(task, r"Add the comment '(.+?)' to the ticket '(.+?)'",
                              (COMMENT, "Export to CSV drops the last row"))  # fmt: skip
    found = _ticket(summary)
    if found is None:
        return unknown_value(f"the ticket {summary!r}")
    return _exactly(site_url, [("comment", found[0], norm_text(text))])


@reads_task
def close_ticket(task: Any, result: Any, site_url: str) -> JudgeResult:
    summary, resolution = from_task(task, r"Close the ticket '(.+?)' as (\w+)", ("Session expires too early", "fixed"))
    found = _ticket(summary)
    if found is None:
        return unknown_value(f"the ticket {summary!r}")
    n, spec = found
    want = [("ticket", n, f, v) for f, v in (("status", "closed"), ("resolution", resolution)) if getattr(spec, f) != v]
    return _exactly(site_url, want)


@reads_task
def reprioritize(task: Any, result: Any, site_url: str) -> JudgeResult:
    summary, milestone, priority = from_task(
        task, r"Move the ticket '(.+?)' to milestone (\S+) and raise its priority to (\w+)",
        ("Add an index on the events table", "1.0", "critical"))  # fmt: skip
    found = _ticket(summary)
    if found is None:
        return unknown_value(f"the ticket {summary!r}")
    n, spec = found
    want = [("ticket", n, f, v) for f, v in (("milestone", milestone), ("priority", priority)) if getattr(spec, f) != v]
    return _exactly(site_url, want)


def _page(name: str) -> Any:
    try:
        return DATA.page(name)
    except KeyError:
        return None


@reads_task
def edit_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    """The page gains the line asked for and keeps its other lines."""
    name, line = from_task(task, r"On the wiki page (\w+), add '(.+?)' to", ("OnCall", APRIL))
    spec = _page(name)
    if spec is None:
        return unknown_value(f"the wiki page {name}")
    state = trac_state(site_url)
    diff = changes(state)
    edited = [c for c in diff if c[:2] == ("wiki", name)]
    if len(diff) != 1 or not edited:
        return JudgeResult(False, f"wanted one edit of {name}, the database shows {diff[:4] or 'no change'}")
    text = edited[0][2]
    old = [x.strip() for x in spec.text.splitlines() if x.strip()]
    lines = [x.strip() for x in text.splitlines()]
    missing = [x for x in old if x not in lines]
    if missing:
        return JudgeResult(False, f"the edit lost the line(s) {missing}")
    if not any(line in x for x in lines):
        return JudgeResult(False, f"{name} has no line {line!r}: {text!r}")
    return JudgeResult(True, f"{name} has the new line and kept the others")


@reads_task
def new_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    """A new page with the text; a page of that name already there must hold the text instead (one edit)."""
    name, text = from_task(task, r"Create a wiki page named (\w+) with the text '(.+?)'", NEW_PAGE)
    state = trac_state(site_url)
    diff = changes(state)
    page = next((p for p in state["wiki"] if p["name"] == name), None)
    kind = "wiki" if _page(name) is not None else "new wiki"
    if len(diff) != 1 or diff[0][:2] != (kind, name) or page is None:
        return JudgeResult(False, f"wanted one {kind} {name}, the database shows {diff[:4] or 'no change'}")
    if norm_text(page["text"]) != norm_text(text):
        return JudgeResult(False, f"{name} says {page['text']!r}, not {text!r}")
    return JudgeResult(True, f"exactly one change: {kind} {name} with the text asked for")


@reads_task
def delete_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    (name,) = from_task(task, r"Delete the wiki page (\w+)", ("MeetingNotes",))
    if _page(name) is None:
        return unknown_value(f"the wiki page {name}")
    return _exactly(site_url, [("deleted wiki", name)])


@reads_task
def rename_wiki(task: Any, result: Any, site_url: str) -> JudgeResult:
    """The old page is gone (no redirect page left) and the new name holds its text."""
    old, new = from_task(task, r"Rename the wiki page (\w+) to (\w+)", RENAMED)
    spec = _page(old)
    if spec is None:
        return unknown_value(f"the wiki page {old}")
    state = trac_state(site_url)
    verdict = _exactly(site_url, [("deleted wiki", old), ("new wiki", new)], state=state)
    if not verdict.ok:
        return verdict
    page = next(p for p in state["wiki"] if p["name"] == new)
    if page["text"] != spec.text:
        return JudgeResult(False, f"{new} does not hold {old}'s text: {page['text']!r}")
    return verdict
