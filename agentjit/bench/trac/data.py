"""Trac's seed data: components, milestones, tickets and wiki pages, the same on every start.

Judges and expected answers are computed from :data:`DATA`, never read off a
running site, so tasks follow the data if it changes. Ticket ids are the
position in :attr:`Dataset.tickets` plus one (the environment is fresh).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

__all__ = ["TicketSpec", "WikiSpec", "Dataset", "DATA", "USERS", "SEED_TIME"]

USERS = ("alice", "bob", "carol", "dave")
"""Known users (owners and reporters); everybody browses as anonymous, who holds the admin permissions."""

SEED_TIME = datetime.datetime(2026, 1, 5, 9, 0, tzinfo=datetime.UTC)
"""When the first ticket was filed; the n-th ticket a day later than the one before."""


@dataclass(frozen=True)
class TicketSpec:
    summary: str
    type: str
    component: str
    milestone: str
    priority: str
    owner: str
    reporter: str
    status: str = "new"
    resolution: str = ""
    keywords: str = ""
    description: str = ""


@dataclass(frozen=True)
class WikiSpec:
    name: str
    text: str
    author: str = "alice"
    comment: str = ""


@dataclass(frozen=True)
class Dataset:
    components: tuple[tuple[str, str], ...]
    """(name, default owner)"""
    milestones: tuple[tuple[str, datetime.date], ...]
    """(name, due date)"""
    versions: tuple[str, ...]
    tickets: tuple[TicketSpec, ...]
    wiki: tuple[WikiSpec, ...]

    def ticket(self, summary: str) -> tuple[int, TicketSpec]:
        """The id and spec of the ticket with this summary."""
        for i, t in enumerate(self.tickets, 1):
            if t.summary == summary:
                return i, t
        raise KeyError(summary)

    def page(self, name: str) -> WikiSpec:
        for p in self.wiki:
            if p.name == name:
                return p
        raise KeyError(name)


_T = TicketSpec
DATA = Dataset(
    components=(("backend", "alice"), ("frontend", "bob"), ("docs", "carol"), ("database", "dave")),
    milestones=(("1.0", datetime.date(2026, 2, 1)), ("1.1", datetime.date(2026, 4, 1)), ("2.0", datetime.date(2026, 9, 1))),
    versions=("0.9", "1.0"),
    tickets=(
        _T("Login page rejects valid passwords", "defect", "backend", "1.0", "blocker", "alice", "carol",
           status="accepted", keywords="auth", description="Users with a valid password see 'invalid credentials'."),
        _T("Search results are not paginated", "enhancement", "frontend", "1.1", "major", "bob", "dave",
           description="A query with many hits renders every result on one page."),
        _T("Export to CSV drops the last row", "defect", "backend", "1.0", "critical", "alice", "bob",
           description="The CSV export of a report misses its final line."),
        _T("Dark mode for the dashboard", "enhancement", "frontend", "2.0", "minor", "bob", "alice"),
        _T("Document the REST API", "task", "docs", "1.1", "major", "carol", "alice",
           description="Every endpoint needs a page with its parameters and an example."),
        _T("Database migrations fail on an empty schema", "defect", "database", "1.0", "critical", "dave", "carol",
           keywords="migrations", description="Running the migrations against a new database stops at step 3."),
        _T("Typo in the installation guide", "defect", "docs", "1.0", "trivial", "carol", "bob",
           status="closed", resolution="fixed"),
        _T("Slow dashboard with many widgets", "defect", "frontend", "1.1", "major", "bob", "dave",
           keywords="performance", description="The dashboard takes 8 seconds to draw with 30 widgets."),
        _T("Add an index on the events table", "task", "database", "1.1", "minor", "dave", "alice",
           keywords="performance"),
        _T("Session expires too early", "defect", "backend", "1.1", "major", "alice", "dave",
           status="assigned", description="Sessions end after 5 minutes instead of 30."),
        _T("Translate the user guide into German", "task", "docs", "2.0", "minor", "carol", "bob"),
        _T("Crash when uploading an empty file", "defect", "backend", "1.0", "blocker", "alice", "bob",
           keywords="upload", description="Uploading a zero-byte attachment gives an internal error."),
    ),
    wiki=(
        WikiSpec("ReleasePlan", "= Release plan =\n\n"
                 "|| '''Milestone''' || '''Date''' || '''Focus''' ||\n"
                 "|| 1.0 || 2026-02-01 || stability and the login fixes ||\n"
                 "|| 1.1 || 2026-04-01 || search, sessions and the API docs ||\n"
                 "|| 2.0 || 2026-09-01 || dark mode and translations ||\n\n"
                 "Release manager: carol\n", comment="first plan"),
        WikiSpec("CodingStyle", "= Coding style =\n\n"
                 " * Four spaces, no tabs.\n"
                 " * Lines of at most 100 characters.\n"
                 " * Every public function has a docstring.\n", author="bob"),
        WikiSpec("MeetingNotes", "= Meeting notes =\n\n"
                 "== 2026-01-12 ==\n"
                 " * Agreed to ship 1.0 on 2026-02-01.\n"
                 " * dave looks into the migration failure.\n", author="carol"),
        WikiSpec("OnCall", "= On-call rota =\n\n"
                 " * January: alice\n"
                 " * February: bob\n"
                 " * March: dave\n", author="dave"),
    ),
)
