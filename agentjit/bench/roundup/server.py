"""The Roundup issue tracker (classic template, sqlite) served on 127.0.0.1 with generated data.

``roundup-server`` refuses to run as root, so the tracker runs under Roundup's
own WSGI handler (:class:`roundup.cgi.wsgi_handler.RequestDispatcher`) in a
threaded ``wsgiref`` server. A thin WSGI layer in front adds the bench
endpoints the recorder and the builder know: ``POST /__reset`` (back to the
seed data) and ``GET /__state`` (issues and users as JSON, read through
Roundup's own database API). Roundup is imported lazily: the package imports
without it, and starting a site without it raises an ImportError naming the
``dev`` extra.
"""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..wsgi_site import HOST, WsgiApp, WsgiSite
from .data import PASSWORD, Dataset, generate

__all__ = ["RoundupSite", "read_state", "TEMPLATES"]

TEMPLATES = ("classic", "jinja2")
"""The templates Roundup ships with classic's schema (``schema.py`` byte for byte): the same tracker, the same data,
other markup. ``devel`` and ``responsive`` add classes (``bug``, ``task``, ``milestone``), ``minimal`` drops
``issue``: the tasks do not apply to them."""

log = logging.getLogger(__name__)

ADMIN_PASSWORD = "admin-pass-1"


def _roundup() -> Any:
    try:
        import roundup.instance
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the Roundup bench app needs roundup: pip install 'agentjit[dev]'") from exc
    return roundup.instance


def _set_option(config: Path, section: str, key: str, value: str) -> None:
    """Set ``key = value`` in ``[section]`` of Roundup's ``config.ini`` (commented defaults replaced)."""
    lines = config.read_text(encoding="utf-8").splitlines()
    cur = None
    for i, line in enumerate(lines):
        head = re.match(r"^\[(\w+)\]", line)
        if head:
            cur = head.group(1)
        elif cur == section and re.match(rf"^#?\s*{re.escape(key)}\s*=", line):
            lines[i] = f"{key} = {value}"
            break
    else:
        raise ValueError(f"no option {section}.{key} in {config}")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _admin(home: Path, *args: str) -> None:
    cmd = [sys.executable, "-m", "roundup.scripts.roundup_admin", "-i", str(home), *args]
    subprocess.run(cmd, check=True, capture_output=True, text=True)


def populate(home: Path, data: Dataset) -> None:
    """Create ``data``'s users, messages and issues in the tracker at ``home``."""
    tracker = _roundup().open(str(home))
    db = tracker.open("admin")
    try:
        ids = {}
        for u in data.users:
            ids[u.username] = db.user.create(username=u.username, realname=u.realname, address=u.address,
                                             password=_password(PASSWORD, db.config), roles="User")
        db.commit()
    finally:
        db.close()
    status = {}
    priority = {}
    db = tracker.open("admin")
    try:
        status = {db.status.get(i, "name"): i for i in db.status.list()}
        priority = {db.priority.get(i, "name"): i for i in db.priority.list()}
    finally:
        db.close()
    from roundup.date import Date

    for n, issue in enumerate(data.issues):
        db = tracker.open(issue.creator)
        try:
            msgs = [db.msg.create(content=text, author=ids[author], date=Date(f"2026-01-{1 + n % 28:02d}.{9 + k:02d}:00:00"))
                    for k, (author, text) in enumerate(issue.messages)]
            nosy = sorted({ids[a] for a, _ in issue.messages} | ({ids[issue.assignedto]} if issue.assignedto else set()), key=int)
            db.issue.create(title=issue.title, status=status[issue.status], priority=priority[issue.priority],
                            assignedto=ids[issue.assignedto] if issue.assignedto else None, messages=msgs, nosy=nosy)
            db.commit()
        finally:
            db.close()


def _password(plain: str, config: Any) -> Any:
    from roundup.password import Password

    return Password(plain, config=config)


def read_state(home: str | Path) -> dict[str, Any]:
    """Issues (with status, priority, assignee, messages) and users, read through Roundup's own API."""
    db = _roundup().open(str(home)).open("admin")
    try:
        users = {i: db.user.get(i, "username") for i in db.user.list()}
        status = {i: db.status.get(i, "name") for i in db.status.list()}
        priority = {i: db.priority.get(i, "name") for i in db.priority.list()}
        issues = []
        for i in sorted(db.issue.list(), key=int):
            node = db.issue.getnode(i)
            issues.append({
                "id": i,
                "title": node.title,
                "status": status.get(node.status) if node.status else None,
                "priority": priority.get(node.priority) if node.priority else None,
                "assignedto": users.get(node.assignedto) if node.assignedto else None,
                "creator": users.get(node.creator),
                "nosy": sorted(users[u] for u in node.nosy),
                "keyword": [db.keyword.get(k, "name") for k in node.keyword],
                "messages": [{"id": m, "author": users.get(db.msg.get(m, "author")), "content": db.msg.get(m, "content")}
                             for m in sorted(node.messages, key=int)],
            })
        return {
            "issues": issues,
            "users": [{"id": i, "username": u, "realname": db.user.get(i, "realname"), "address": db.user.get(i, "address")}
                      for i, u in sorted(users.items(), key=lambda kv: int(kv[0]))],
        }
    finally:
        db.close()


class RoundupSite(WsgiSite):
    """A classic Roundup tracker with generated data, served in-process.

    >>> with RoundupSite() as site:   # port 0: pick a free port
    ...     site.url                  # 'http://127.0.0.1:PORT/'
    """

    name = "roundup"

    def __init__(self, *, port: int = 0, seed: int = 0, latency_scale: float = 0.0, home: str | Path | None = None,
                 template: str = "classic"):  # fmt: skip
        super().__init__(port=port, seed=seed, latency_scale=latency_scale)
        if template not in TEMPLATES:
            raise ValueError(f"Roundup template must be one of {', '.join(TEMPLATES)} (the ones with classic's schema), "
                             f"not {template!r}")  # fmt: skip
        self.template = template
        """The tracker template installed: ``classic``, or ``jinja2``, the same tracker redesigned (issue 21)."""
        self.data = generate(seed)
        self._home_arg = Path(home) if home is not None else None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.home: Path | None = None

    def _setup(self) -> WsgiApp:
        _roundup()
        from roundup.cgi.wsgi_handler import RequestDispatcher

        if self._home_arg is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="roundup-")
            self.home = Path(self._tmp.name) / "tracker"
        else:
            self.home = self._home_arg
            shutil.rmtree(self.home, ignore_errors=True)
        home = self.home
        _admin(home, "install", self.template, "sqlite")
        config = home / "config.ini"
        _set_option(config, "tracker", "web", f"http://{HOST}:{self.port}/")
        _set_option(config, "mail", "domain", "example.test")
        _set_option(config, "mail", "host", "localhost")
        _set_option(config, "mail", "debug", str(home / "mail.log"))
        _set_option(config, "main", "password_pbkdf2_default_rounds", "1000")  # cheap logins on a test tracker
        _admin(home, "initialise", ADMIN_PASSWORD)
        populate(home, self.data)
        shutil.copytree(home / "db", home / "db.seed")
        log.info("roundup tracker home %s", home)
        app: WsgiApp = RequestDispatcher(str(home))
        return app

    def _teardown(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def state(self) -> dict[str, Any]:
        """Issues and users as the tracker's database holds them (what ``GET /__state`` returns)."""
        if self.home is None:
            raise RuntimeError("RoundupSite is not started")
        with self.exclusive():
            return read_state(self.home)

    def reset(self, draws: str = "") -> None:
        """Back to the seed data: the database directory is replaced by the copy taken at start.

        ``draws`` is ignored: this site injects no latency.
        """
        if self.home is None:
            raise RuntimeError("RoundupSite is not started")
        with self.exclusive():
            shutil.rmtree(self.home / "db")
            shutil.copytree(self.home / "db.seed", self.home / "db")


@contextlib.contextmanager
def running(seed: int = 0) -> Iterator[RoundupSite]:
    """A started site, stopped on exit."""
    with RoundupSite(seed=seed) as site:
        yield site


def serve_forever(port: int = 8080, seed: int = 0) -> None:  # pragma: no cover - manual use
    with RoundupSite(port=port, seed=seed) as site:
        print(f"Roundup tracker on {site.url} (users {', '.join(u.username for u in site.data.users)}; password {PASSWORD})")
        threading.Event().wait()
