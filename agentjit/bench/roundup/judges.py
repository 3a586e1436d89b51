"""Judges of the Roundup tasks (``tasks.toml``): they read the tracker's own database.

Each judge is called as ``judge(task, result, site_url)``. It reads the
tracker's state from ``GET /__state`` (:func:`~agentjit.bench.roundup.server.read_state`:
issues, their status, priority, assignee and messages, through Roundup's own
``roundup.instance`` API) and compares it with the generated seed data (the
harness resets the tracker before each task). Read tasks must leave the
tracker as it was and name the right values; write tasks must make exactly
the one change asked for: one new issue, or one field or message on one
issue, and nothing else (a duplicate message or issue fails).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

from agentjit.tasks.task import (
    JudgeResult,
    answer_text,
    from_task,
    norm_text,
    numbers_in,
    reads_task,
)

from .data import Dataset, generate

__all__ = [
    "tracker_state",
    "changes",
    "issue_status_priority",
    "issue_assignee",
    "search_login",
    "unassigned_count",
    "deferred_sorted",
    "in_progress_count",
    "last_message",
    "create_issue",
    "set_status",
    "set_priority",
    "set_assignee",
    "add_message",
]

SEED = 0

SiteJudgeFn = Callable[[Any, Any, str], JudgeResult]


def tracker_state(site_url: str) -> dict[str, Any]:
    """The tracker's issues and users, as its database holds them now."""
    with urllib.request.urlopen(site_url.rstrip("/") + "/__state", timeout=10) as resp:  # noqa: S310 - a local tracker
        data: dict[str, Any] = json.loads(resp.read().decode())
    return data


def changes(state: dict[str, Any], data: Dataset | None = None) -> list[tuple[str, ...]]:
    """Every difference from the seed data: ``("new issue", title)``, ``(title, field, value)``,
    ``(title, "message", text)``; the nosy list (Roundup adds to it by itself) is ignored."""
    data = data or generate(SEED)
    out: list[tuple[str, ...]] = []
    issues = state["issues"]
    for spec, got in zip(data.issues, issues, strict=False):
        for field in ("title", "status", "priority", "assignedto"):
            if got[field] != getattr(spec, field):
                out.append((spec.title, field, str(got[field])))
        texts = [m["content"] for m in got["messages"]]
        for text in texts[len(spec.messages):]:
            out.append((spec.title, "message", text))
        if len(texts) < len(spec.messages):
            out.append((spec.title, "messages removed", str(len(spec.messages) - len(texts))))
    for extra in issues[len(data.issues):]:
        out.append(("new issue", extra["title"]))
    if len(issues) < len(data.issues):
        out.append(("issues removed", str(len(data.issues) - len(issues))))
    return out


def _read(site_url: str, result: Any, wanted: list[str], *, ordered: bool = False) -> JudgeResult:
    diff = changes(tracker_state(site_url))
    if diff:
        return JudgeResult(False, f"a read task changed the tracker: {diff[:3]}")
    text = norm_text(answer_text(result.value))
    missing = [w for w in wanted if norm_text(w) not in text]
    if missing:
        return JudgeResult(False, f"answer lacks {missing}")
    if ordered:
        pos = [text.index(norm_text(w)) for w in wanted]
        if pos != sorted(pos):
            return JudgeResult(False, "answer names the right issues in the wrong order")
    return JudgeResult(True, f"answer names {len(wanted)} expected value(s), tracker unchanged")


def _count(site_url: str, result: Any, expected: int) -> JudgeResult:
    diff = changes(tracker_state(site_url))
    if diff:
        return JudgeResult(False, f"a read task changed the tracker: {diff[:3]}")
    value = result.value
    found = [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else numbers_in(answer_text(value))
    if float(expected) not in found:
        return JudgeResult(False, f"answer {value!r} is not {expected}")
    return JudgeResult(True, f"answer is {expected}")


def _one_change(site_url: str, want: tuple[str, ...]) -> JudgeResult:
    diff = changes(tracker_state(site_url))
    if diff == [want]:
        return JudgeResult(True, f"exactly one change: {want}")
    if want in diff:
        return JudgeResult(False, f"the change was made, with others or twice: {diff[:4]}")
    return JudgeResult(False, f"wanted {want}, the tracker shows {diff[:4] or 'no change'}")


_from_task = from_task


_QUOTED = r"'(.+?)'"


# -- read tasks ----------------------------------------------------------------

@reads_task
def issue_status_priority(task: Any, result: Any, site_url: str) -> JudgeResult:
    (title,) = _from_task(task, _QUOTED, ("Calendar shows the wrong week",))
    spec = generate(SEED).issue(title)
    return _read(site_url, result, [spec.status, spec.priority])


@reads_task
def issue_assignee(task: Any, result: Any, site_url: str) -> JudgeResult:
    (title,) = _from_task(task, _QUOTED, ("Duplicate entries after import",))
    spec = generate(SEED).issue(title)
    return _read(site_url, result, [spec.assignedto or "nobody"])


@reads_task
def search_login(task: Any, result: Any, site_url: str) -> JudgeResult:
    (word,) = _from_task(task, _QUOTED, ("login",))
    data = generate(SEED)
    word = word.lower()
    hits = [i.title for i in data.issues if word in i.title.lower() or any(word in t.lower() for _, t in i.messages)]
    return _read(site_url, result, hits)


def unassigned_count(task: Any, result: Any, site_url: str) -> JudgeResult:
    data = generate(SEED)
    return _count(site_url, result, sum(1 for i in data.issues if i.assignedto is None and i.status != "resolved"))


@reads_task
def deferred_sorted(task: Any, result: Any, site_url: str) -> JudgeResult:
    status, key = _from_task(task, r"titles of the (.+?) issues, sorted by (\w+)", ("deferred", "title"))
    data = generate(SEED)
    # the search page's own choices besides the statuses: any status, any but resolved, none set
    keep = {"don't care": lambda st: True, "not resolved": lambda st: st != "resolved",
            "not selected": lambda st: st is None}.get(status, lambda st: st == status)  # fmt: skip
    chosen = [(n, i) for n, i in enumerate(data.issues) if keep(i.status)]
    if key == "title":
        return _read(site_url, result, sorted(i.title for _, i in chosen), ordered=True)
    if key == "id":
        return _read(site_url, result, [i.title for _, i in chosen], ordered=True)
    return _read(site_url, result, [i.title for _, i in chosen])  # an order the seed data does not say


@reads_task
def last_message(task: Any, result: Any, site_url: str) -> JudgeResult:
    (title,) = _from_task(task, _QUOTED, ("Export to CSV drops the last row",))
    author, text = generate(SEED).issue(title).messages[-1]
    return _read(site_url, result, [author, text])


def in_progress_count(task: Any, result: Any, site_url: str) -> JudgeResult:
    data = generate(SEED)
    return _count(site_url, result, sum(1 for i in data.issues if i.status == "in-progress"))


# -- write tasks ---------------------------------------------------------------

NEW_TITLE = "Export button missing on mobile"
NEW_NOTE = "The export button is hidden on small screens."
MESSAGE = "Fixed in the next release."


@reads_task
def create_issue(task: Any, result: Any, site_url: str) -> JudgeResult:
    user, title, priority, note = _from_task(
        task, r"Log in as (\w+) .*file a new issue '(.+?)' with priority (\S+) and the description '(.+)'",
        ("alice", NEW_TITLE, "bug", NEW_NOTE))  # fmt: skip
    verdict = _one_change(site_url, ("new issue", title))
    if not verdict.ok:
        return verdict
    new = tracker_state(site_url)["issues"][-1]
    if new["priority"] != priority or new["creator"] != user or [m["content"] for m in new["messages"]] != [note]:
        return JudgeResult(False, f"the new issue is {new['priority']}, by {new['creator']}, messages {new['messages']}")
    return verdict


def _set(site_url: str, title: str, field: str, value: str) -> JudgeResult:
    """One field of one issue set to ``value``: one change, or none when it had that value already."""
    if getattr(generate(SEED).issue(title), field) == value:
        diff = changes(tracker_state(site_url))
        return JudgeResult(not diff, f"{field} was {value} already: " + (f"changed {diff[:4]}" if diff else "no change"))
    return _one_change(site_url, (title, field, value))


@reads_task
def set_status(task: Any, result: Any, site_url: str) -> JudgeResult:
    title, status = _from_task(task, r"status of '(.+?)' to ([\w-]+)", ("Allow renaming of projects", "testing"))
    return _set(site_url, title, "status", status)


@reads_task
def set_priority(task: Any, result: Any, site_url: str) -> JudgeResult:
    title, priority = _from_task(task, r"priority of '(.+?)' to ([\w-]+)", ("Graph legend is cut off", "critical"))
    return _set(site_url, title, "priority", priority)


@reads_task
def set_assignee(task: Any, result: Any, site_url: str) -> JudgeResult:
    title, user = _from_task(task, r"assign '(.+?)' to (\w+)", ("Improve the error messages", "carol"))
    return _set(site_url, title, "assignedto", user)


@reads_task
def add_message(task: Any, result: Any, site_url: str) -> JudgeResult:
    text, title = _from_task(task, r"add the message '(.+?)' to the issue '(.+?)'", (MESSAGE, "Spell checker flags URLs"))
    return _one_change(site_url, (title, "message", text))
