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
from typing import Any

from agentjit.tasks.task import JudgeResult, answer_text, norm_text, numbers_in

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


# -- read tasks ----------------------------------------------------------------

def issue_status_priority(task: Any, result: Any, site_url: str) -> JudgeResult:
    spec = generate(SEED).issue("Calendar shows the wrong week")
    return _read(site_url, result, [spec.status, spec.priority])


def issue_assignee(task: Any, result: Any, site_url: str) -> JudgeResult:
    spec = generate(SEED).issue("Duplicate entries after import")
    return _read(site_url, result, [spec.assignedto or "nobody"])


def search_login(task: Any, result: Any, site_url: str) -> JudgeResult:
    data = generate(SEED)
    hits = [i.title for i in data.issues if "login" in i.title.lower() or any("login" in t.lower() for _, t in i.messages)]
    return _read(site_url, result, hits)


def unassigned_count(task: Any, result: Any, site_url: str) -> JudgeResult:
    data = generate(SEED)
    return _count(site_url, result, sum(1 for i in data.issues if i.assignedto is None and i.status != "resolved"))


def deferred_sorted(task: Any, result: Any, site_url: str) -> JudgeResult:
    data = generate(SEED)
    return _read(site_url, result, sorted(i.title for i in data.issues if i.status == "deferred"), ordered=True)


def last_message(task: Any, result: Any, site_url: str) -> JudgeResult:
    author, text = generate(SEED).issue("Export to CSV drops the last row").messages[-1]
    return _read(site_url, result, [author, text])


def in_progress_count(task: Any, result: Any, site_url: str) -> JudgeResult:
    data = generate(SEED)
    return _count(site_url, result, sum(1 for i in data.issues if i.status == "in-progress"))


# -- write tasks ---------------------------------------------------------------

NEW_TITLE = "Export button missing on mobile"
NEW_NOTE = "The export button is hidden on small screens."
MESSAGE = "Fixed in the next release."


def create_issue(task: Any, result: Any, site_url: str) -> JudgeResult:
    verdict = _one_change(site_url, ("new issue", NEW_TITLE))
    if not verdict.ok:
        return verdict
    new = tracker_state(site_url)["issues"][-1]
    if new["priority"] != "bug" or new["creator"] != "alice" or [m["content"] for m in new["messages"]] != [NEW_NOTE]:
        return JudgeResult(False, f"the new issue is {new['priority']}, by {new['creator']}, messages {new['messages']}")
    return verdict


def set_status(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _one_change(site_url, ("Allow renaming of projects", "status", "testing"))


def set_priority(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _one_change(site_url, ("Graph legend is cut off", "priority", "critical"))


def set_assignee(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _one_change(site_url, ("Improve the error messages", "assignedto", "carol"))


def add_message(task: Any, result: Any, site_url: str) -> JudgeResult:
    return _one_change(site_url, ("Spell checker flags URLs", "message", MESSAGE))
