"""Generated tracker content: users, issues, messages; the same for the same seed.

Everything a task's judge or expected answer needs is computed from
:func:`generate`, never from a running tracker, so tasks follow the data if it
changes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["UserSpec", "IssueSpec", "Dataset", "generate", "STATUSES", "PRIORITIES", "PASSWORD"]

STATUSES = ("unread", "deferred", "chatting", "need-eg", "in-progress", "testing", "done-cbb", "resolved")
"""The classic template's statuses, in their order."""
PRIORITIES = ("critical", "urgent", "bug", "feature", "wish")
PASSWORD = "demo-pass-1"
"""Every generated user's password (a test tracker on 127.0.0.1)."""

_USERS = (
    ("alice", "Alice Archer"),
    ("bob", "Bob Baker"),
    ("carol", "Carol Chen"),
    ("dave", "Dave Diaz"),
    ("erin", "Erin Evans"),
)
_SUBJECTS = (
    "Login page times out", "Export to CSV drops the last row", "Search ignores accents",
    "Crash when saving an empty draft", "Dark mode colours unreadable", "Password reset mail never arrives",
    "Sort by date is reversed", "Attachments over 10 MB fail", "Typo on the welcome screen",
    "Add keyboard shortcuts for navigation", "Calendar shows the wrong week", "Slow loading of the dashboard",
    "Broken link in the footer", "Support for SVG avatars", "Notifications sent twice",
    "Mobile menu does not close", "Timezone missing in reports", "Duplicate entries after import",
    "Printing cuts off the right margin", "Allow renaming of projects", "Session lost after upgrade",
    "Spell checker flags URLs", "Tooltips overlap the toolbar", "API returns 500 on bad dates",
    "Add a French translation", "Archive old issues automatically", "Graph legend is cut off",
    "Upload progress bar stuck at 99%", "Filters reset on page reload", "Improve the error messages",
)
_MESSAGES = (
    "I can reproduce this on the current release.",
    "Could you attach a screenshot?",
    "This happens only with the default settings.",
    "A fix is ready for review.",
    "Confirmed on two machines.",
    "Still happening after the last update.",
)


@dataclass(frozen=True)
class UserSpec:
    username: str
    realname: str

    @property
    def address(self) -> str:
        return f"{self.username}@example.test"


@dataclass(frozen=True)
class IssueSpec:
    title: str
    status: str
    priority: str
    assignedto: str | None
    creator: str
    messages: tuple[tuple[str, str], ...] = field(default=())
    """``(author, text)`` in order; the first is the issue's description."""


@dataclass(frozen=True)
class Dataset:
    users: tuple[UserSpec, ...]
    issues: tuple[IssueSpec, ...]

    def issue(self, title: str) -> IssueSpec:
        for it in self.issues:
            if it.title == title:
                return it
        raise LookupError(f"no issue {title!r}")

    def issue_id(self, title: str) -> str:
        """The id the tracker gives ``title`` (issues are created in order, from 1)."""
        return str(self.issues.index(self.issue(title)) + 1)


def generate(seed: int = 0) -> Dataset:
    """Five users and thirty issues with statuses, priorities, assignees and messages."""
    rng = random.Random(seed)
    users = tuple(UserSpec(u, r) for u, r in _USERS)
    names = [u.username for u in users]
    issues = []
    for title in _SUBJECTS:
        creator = rng.choice(names)
        assignee = rng.choice([*names, None])
        n_msgs = rng.randint(1, 3)
        msgs = [(creator, f"{title}. {rng.choice(_MESSAGES)}")]
        msgs += [(rng.choice(names), rng.choice(_MESSAGES)) for _ in range(n_msgs - 1)]
        issues.append(IssueSpec(
            title=title, status=rng.choice(STATUSES), priority=rng.choice(PRIORITIES),
            assignedto=assignee, creator=creator, messages=tuple(msgs),
        ))
    return Dataset(users=users, issues=tuple(issues))
