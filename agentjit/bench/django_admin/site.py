"""Django's admin over the sample library app, served in-process on 127.0.0.1.

Django is configured once per process (:func:`configure`: settings in code, a
sqlite database file); :class:`DjangoAdminSite` migrates a fresh database in a
temporary directory, seeds it with :data:`~.data.DATA` and a superuser, keeps
a pristine copy and serves Django's WSGI application (static files included,
so the admin's own JavaScript runs) in a threaded ``wsgiref`` server. A thin
WSGI layer in front adds the bench endpoints the recorder and the builder
know: ``POST /__reset`` (the pristine database copied back with sqlite's
backup API) and ``GET /__state`` (authors, books, loans as JSON, read from the
database file with :mod:`sqlite3`). Django is imported lazily: the package
imports without it, and starting a site without it raises an ImportError
naming the ``dev`` extra.

Django's settings are process-wide, so one site runs at a time per process;
starting a second while one runs is an error.
"""

from __future__ import annotations

import logging
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..wsgi_site import HOST, WsgiApp, WsgiSite
from .data import DATA, PASSWORD, USERNAME

__all__ = ["DjangoAdminSite", "read_state", "configure"]

log = logging.getLogger(__name__)

_running: DjangoAdminSite | None = None
_running_lock = threading.Lock()


def _django() -> Any:
    try:
        import django
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the Django admin bench app needs django: pip install 'agentjit[dev]'") from exc
    return django


def configure(db_path: Path) -> None:
    """Point Django at ``db_path``: settings and ``django.setup()`` on the first call, the
    database name alone afterwards (connections are opened per request and closed after it)."""
    django = _django()
    from django.conf import settings

    if not settings.configured:
        settings.configure(
            DEBUG=False,
            SECRET_KEY="agentjit-bench-django-admin-not-a-secret",  # noqa: S106 - a test site on 127.0.0.1
            ALLOWED_HOSTS=[HOST, "localhost"],
            INSTALLED_APPS=[
                "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
                "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles",
                "agentjit.bench.django_admin.library.apps.LibraryConfig",
            ],
            MIDDLEWARE=[
                "django.middleware.security.SecurityMiddleware",
                "django.contrib.sessions.middleware.SessionMiddleware",
                "django.middleware.common.CommonMiddleware",
                "django.middleware.csrf.CsrfViewMiddleware",
                "django.contrib.auth.middleware.AuthenticationMiddleware",
                "django.contrib.messages.middleware.MessageMiddleware",
                "django.middleware.clickjacking.XFrameOptionsMiddleware",
            ],
            ROOT_URLCONF="agentjit.bench.django_admin.urls",
            TEMPLATES=[{
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {"context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                    "django.contrib.messages.context_processors.messages",
                ]},
            }],
            # a throwaway database: no fsync per commit (migrating a fresh one took seconds on a busy disk)
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(db_path),
                                   "OPTIONS": {"init_command": "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY"}}},
            # cheap logins on a test site (the default PBKDF2 takes most of a second per login)
            PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
            STATIC_URL="/static/",
            USE_TZ=True,
            TIME_ZONE="UTC",
            LANGUAGE_CODE="en-us",
            DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        )
        django.setup()
        return
    from django.db import connections

    connections.close_all()
    connections["default"].settings_dict["NAME"] = str(db_path)


def seed_database() -> None:
    """Create the tables and the seed rows in the configured (empty) database."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from .library.models import Author, Book, Loan

    call_command("migrate", verbosity=0, interactive=False)
    get_user_model().objects.create_superuser(USERNAME, "admin@example.test", PASSWORD)
    authors = {a.name: Author.objects.create(name=a.name, country=a.country) for a in DATA.authors}
    books = {b.title: Book.objects.create(title=b.title, author=authors[b.author], year=b.year, genre=b.genre,
                                          in_stock=b.in_stock, price=b.price) for b in DATA.books}
    for loan in DATA.loans:
        Loan.objects.create(book=books[loan.book], borrower=loan.borrower, loaned_on=loan.loaned_on,
                            due_on=loan.due_on, status=loan.status)
    from django.db import connections

    connections.close_all()


def _in_thread(fn: Callable[[], None]) -> None:
    """Run ``fn`` in a thread of its own and wait; its exception is raised here."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:  # handed to the caller
            errors.append(exc)

    worker = threading.Thread(target=run, name="django-admin-seed")
    worker.start()
    worker.join()
    if errors:
        raise errors[0]


def _copy_database(src: Path, dst: Path) -> None:
    """Copy one sqlite database onto another with sqlite's backup API (safe while the site runs)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    a.close()
    b.close()


def read_state(db_path: str | Path) -> dict[str, Any]:
    """Authors, books (with the author's name) and loans (with the book's title), from the database file."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        authors = [dict(r) for r in con.execute("SELECT id, name, country FROM library_author ORDER BY id")]
        books = [dict(r) for r in con.execute(
            "SELECT b.id, b.title, a.name AS author, b.year, b.genre, b.in_stock, b.price"
            " FROM library_book b JOIN library_author a ON a.id = b.author_id ORDER BY b.id")]
        for b in books:
            b["in_stock"] = bool(b["in_stock"])
            b["price"] = f"{float(b['price']):.2f}"  # sqlite keeps Django's decimals as REAL
        loans = [dict(r) for r in con.execute(
            "SELECT l.id, b.title AS book, l.borrower, l.loaned_on, l.due_on, l.status"
            " FROM library_loan l JOIN library_book b ON b.id = l.book_id ORDER BY l.id")]
        return {"authors": authors, "books": books, "loans": loans}
    finally:
        con.close()


class DjangoAdminSite(WsgiSite):
    """The library's Django admin with its seed data, served in-process.

    >>> with DjangoAdminSite() as site:   # port 0: pick a free port
    ...     site.url                      # 'http://127.0.0.1:PORT/' (the admin is at /admin/)
    """

    name = "django-admin"

    def __init__(self, *, port: int = 0, seed: int = 0, latency_scale: float = 0.0) -> None:
        super().__init__(port=port, seed=seed, latency_scale=latency_scale)  # the seed data is fixed
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.db_path: Path | None = None

    def start(self) -> DjangoAdminSite:
        global _running
        if self._server is not None:
            return self
        with _running_lock:
            if _running is not None:
                raise RuntimeError(f"a Django admin site already runs in this process ({_running.url}); "
                                   "Django's settings are process-wide: stop it first")
            _running = self
        return super().start()

    def _setup(self) -> WsgiApp:
        self._tmp = tempfile.TemporaryDirectory(prefix="django-admin-")
        self.db_path = Path(self._tmp.name) / "db.sqlite3"
        configure(self.db_path)
        _in_thread(seed_database)  # the ORM refuses to run where an event loop runs (an async caller)
        _copy_database(self.db_path, self._seed_path)
        from django.contrib.staticfiles.handlers import StaticFilesHandler
        from django.core.wsgi import get_wsgi_application

        log.info("django admin database %s", self.db_path)
        # closing each response (the base does) fires Django's request_finished: the thread's connection closes
        app: WsgiApp = StaticFilesHandler(get_wsgi_application())
        return app

    @property
    def _seed_path(self) -> Path:
        assert self.db_path is not None
        return self.db_path.with_name("seed.sqlite3")

    def _teardown(self) -> None:
        global _running
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        with _running_lock:
            if _running is self:
                _running = None

    def state(self) -> dict[str, Any]:
        """Authors, books and loans as the database holds them (what ``GET /__state`` returns)."""
        if self.db_path is None:
            raise RuntimeError("DjangoAdminSite is not started")
        with self.exclusive():
            return read_state(self.db_path)

    def reset(self, draws: str = "") -> None:
        """Back to the seed: the pristine copy taken at start is copied onto the database.

        Sessions live in the database too, so a reset logs everybody out. ``draws``
        is ignored: this site injects no latency.
        """
        if self.db_path is None:
            raise RuntimeError("DjangoAdminSite is not started")
        with self.exclusive():
            _copy_database(self._seed_path, self.db_path)


def serve_forever(port: int = 8000) -> None:  # pragma: no cover - manual use
    with DjangoAdminSite(port=port) as site:
        print(f"Django admin on {site.url}admin/ (user {USERNAME}, password {PASSWORD})")
        threading.Event().wait()
