"""Trac 1.6 with fixed seed data, served in-process on 127.0.0.1.

Every start creates a fresh Trac environment in a temporary directory (sqlite
database ``db/trac.db``), replaces Trac's sample components, milestones and
versions with :data:`~.data.DATA`'s, files its tickets and writes its wiki
pages (besides the help pages Trac ships), grants ``anonymous`` the ticket and
wiki admin permissions (nobody logs in), keeps a pristine copy of the database
and serves Trac's WSGI application (``trac.web.main.dispatch_request``) in a
threaded ``wsgiref`` server; ``tracd`` is not needed. The bench endpoints are
those of :class:`~agentjit.bench.wsgi_site.WsgiSite`: ``POST /__reset`` and
``GET /__state`` (:func:`read_state`, read from the database file with
:mod:`sqlite3`). Trac is imported lazily: the package imports without it, and
starting a site without it raises an ImportError naming the ``dev`` extra.

Trac's automatic preview (an XHR POST while one types) is switched off, so a
demonstration's only state-changing requests are its real writes.
"""

from __future__ import annotations

import contextlib
import datetime
import locale
import logging
import sqlite3
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..wsgi_site import HOST, StartResponse, WsgiApp, WsgiSite
from .data import DATA, SEED_TIME, Dataset

__all__ = ["TracSite", "read_state", "create_environment", "shipped_pages"]

log = logging.getLogger(__name__)

ANONYMOUS_PERMISSIONS = ("TICKET_ADMIN", "WIKI_ADMIN", "REPORT_ADMIN")
SHIPPED_AUTHOR = "trac"
"""The author of the help pages a new environment gets (TracGuide, WikiStart, ...)."""


def _foreign_multipart() -> bool:
    """Whether ``import multipart`` finds python-multipart's stand-in (another API) rather than the
    ``multipart`` package Trac means: Trac would take it and fail every form post (an
    AttributeError on ``multipart.parse_options_header``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import multipart
        except ImportError:
            return False
    return not hasattr(multipart, "parse_options_header")


@contextlib.contextmanager
def _trac_imports() -> Iterator[None]:
    """Where Trac's modules are first imported: its imports of deprecated modules (the stdlib's
    crypt without passlib, cgi) are quiet, and a foreign ``multipart`` (see
    :func:`_foreign_multipart`) is hidden, so Trac parses its forms with ``cgi``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        if not _foreign_multipart():
            yield
            return
        saved = sys.modules.pop("multipart")
        sys.modules["multipart"] = None  # type: ignore[assignment]  # an import of it fails
        try:
            yield
        finally:
            sys.modules["multipart"] = saved


def _trac() -> Any:
    if "trac.web.api" not in sys.modules:
        try:
            with _trac_imports():
                import trac.env
                import trac.util.compat
                import trac.web.api
                import trac.web.main
                import trac.wiki  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("the Trac bench app needs trac: pip install 'agentjit[dev]'") from exc
    return sys.modules["trac.env"]


def shipped_pages() -> list[str]:
    """The names of the wiki pages every new Trac environment holds (Trac's ``default-pages``)."""
    _trac()
    import trac.wiki

    pages = Path(trac.wiki.__file__).parent / "default-pages"
    return sorted(p.name for p in pages.iterdir() if p.is_file() and not p.name.startswith("."))


def create_environment(path: Path, data: Dataset = DATA, *, base_url: str = "") -> Any:
    """A new Trac environment at ``path`` holding ``data``, served at ``base_url``; returns it
    (call ``shutdown()`` when done)."""
    trac_env = _trac()
    env = trac_env.Environment(str(path), create=True, options=[
        ("project", "name", "Demo Project"),
        ("project", "descr", "A Trac project with seed data for agentjit's bench"),
        ("trac", "database", "sqlite:db/trac.db"),
        ("trac", "base_url", base_url),
        ("trac", "auto_preview_timeout", "0"),
        ("header_logo", "src", ""),  # no logo: the sample one is not installed (a 404 per page)
        ("logging", "log_type", "none"),
        ("logging", "log_level", "ERROR"),
    ])
    from trac.perm import PermissionSystem
    from trac.ticket.model import Component, Milestone, Ticket, Version
    from trac.wiki.model import WikiPage

    with env.db_transaction as db:
        db("DELETE FROM component")
        db("DELETE FROM milestone")
        db("DELETE FROM version")
    for name, owner in data.components:
        c = Component(env)
        c.name, c.owner = name, owner
        c.insert()
    for name, due in data.milestones:
        m = Milestone(env)
        m.name, m.due = name, datetime.datetime.combine(due, datetime.time(12), datetime.UTC)
        m.insert()
    for i, name in enumerate(data.versions):
        v = Version(env)
        v.name, v.time = name, SEED_TIME - datetime.timedelta(days=30 * (len(data.versions) - i))
        v.insert()
    for i, spec in enumerate(data.tickets):
        t = Ticket(env)
        for field in ("summary", "type", "component", "milestone", "priority", "owner", "reporter",
                      "status", "resolution", "keywords", "description"):
            t[field] = getattr(spec, field)
        t["version"] = ""
        t.insert(when=SEED_TIME + datetime.timedelta(days=i))
    for i, page in enumerate(data.wiki):
        w = WikiPage(env, page.name)
        w.text = page.text
        w.save(page.author, page.comment, SEED_TIME + datetime.timedelta(days=i, hours=3))
    perms = PermissionSystem(env)
    for action in ANONYMOUS_PERMISSIONS:
        perms.grant_permission("anonymous", action)
    return env


def _copy_database(src: Path, dst: Path) -> None:
    """Copy one sqlite database onto another with sqlite's backup API (safe while the site runs)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    a.close()
    b.close()


def read_state(db_path: str | Path) -> dict[str, Any]:
    """Tickets (with their comments) and the latest version of every wiki page, from the database file.

    A wiki page's ``text`` is left out (``None``) while the page is the help page Trac shipped
    (author ``trac``, version 1): dozens of long pages nobody here wrote.
    """
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        tickets = [dict(r) for r in con.execute(
            "SELECT id, summary, type, component, milestone, priority, owner, reporter, status,"
            " resolution, keywords, version, description FROM ticket ORDER BY id")]
        comments: dict[int, list[dict[str, Any]]] = {}
        for r in con.execute("SELECT ticket, author, newvalue FROM ticket_change"
                             " WHERE field = 'comment' AND newvalue != '' ORDER BY ticket, time"):
            comments.setdefault(r["ticket"], []).append({"author": r["author"], "text": r["newvalue"]})
        for t in tickets:
            for k, v in t.items():
                if v is None:
                    t[k] = ""
            t["comments"] = comments.get(t["id"], [])
        wiki = []
        for r in con.execute("SELECT w.name, w.version, w.author, w.comment, w.text FROM wiki w"
                             " WHERE w.version = (SELECT max(version) FROM wiki WHERE name = w.name) ORDER BY w.name"):
            page = dict(r)
            if page["author"] == SHIPPED_AUTHOR and page["version"] == 1:
                page["text"] = None
            wiki.append(page)
        return {"tickets": tickets, "wiki": wiki}
    finally:
        con.close()


class _NoCollect:
    """Stands in for :mod:`gc` in ``trac.web.main``: Trac runs a full ``gc.collect()`` after every
    request, which in a process that also drives a browser (a test, the recorder) took 0.4 s a
    request, a page with its style sheets and scripts several seconds."""

    @staticmethod
    def collect() -> int:
        return 0


class TracSite(WsgiSite):
    """A Trac project with its seed data, served in-process.

    >>> with TracSite() as site:   # port 0: pick a free port
    ...     site.url               # 'http://127.0.0.1:PORT/' (the wiki's start page)
    """

    name = "trac"
    concurrent = True  # Trac is thread-safe (tracd serves threaded): a page's style sheets and scripts load in parallel

    def __init__(self, *, port: int = 0, seed: int = 0, latency_scale: float = 0.0) -> None:
        super().__init__(port=port, seed=seed, latency_scale=latency_scale)  # the seed data is fixed
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.env_path: Path | None = None

    @property
    def db_path(self) -> Path:
        if self.env_path is None:
            raise RuntimeError("TracSite is not started")
        return self.env_path / "db" / "trac.db"

    def _setup(self) -> WsgiApp:
        _trac()
        import trac.web.main
        from trac.web.main import dispatch_request

        trac.web.main.gc = _NoCollect  # see _NoCollect

        self._tmp = tempfile.TemporaryDirectory(prefix="trac-")
        self.env_path = Path(self._tmp.name) / "env"
        create_environment(self.env_path, base_url=f"http://{HOST}:{self.port}").shutdown()
        _copy_database(self.db_path, self._seed_path)
        env_path = str(self.env_path)
        # Trac sets the process's locale from this on every request: keep the one the process has
        current_locale = locale.setlocale(locale.LC_ALL)

        def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
            environ["trac.env_path"] = env_path
            environ["trac.locale"] = current_locale
            result: Iterable[bytes] = dispatch_request(environ, start_response)
            return result

        log.info("trac environment %s", env_path)
        return app

    @property
    def _seed_path(self) -> Path:
        return self.db_path.with_name("seed.db")

    def _close_environment(self) -> None:
        """Shut the cached environment down (its database connections), so the next request opens it anew."""
        if self.env_path is None:
            return
        import trac.env

        with trac.env.env_cache_lock:
            env = trac.env.env_cache.pop(str(self.env_path), None)
        if env is not None:
            env.shutdown()

    def _teardown(self) -> None:
        self._close_environment()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        self.env_path = None

    def state(self) -> dict[str, Any]:
        """Tickets and wiki pages as the database holds them (what ``GET /__state`` returns)."""
        with self.exclusive():
            return read_state(self.db_path)

    def reset(self, draws: str = "") -> None:
        """Back to the seed: the pristine copy taken at start is copied onto the database, and
        Trac's environment (its caches of ticket fields, milestones, wiki names) is reopened.

        ``draws`` is ignored: this site injects no latency.
        """
        with self.exclusive():
            self._close_environment()
            _copy_database(self._seed_path, self.db_path)


def serve_forever(port: int = 8000) -> None:  # pragma: no cover - manual use
    with TracSite(port=port) as site:
        print(f"Trac on {site.url} (anonymous has TICKET_ADMIN and WIKI_ADMIN)")
        threading.Event().wait()
