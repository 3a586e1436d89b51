"""Fava, the Beancount web UI, served in-process over a generated ledger.

The ledger is written by beancount's own example generator (``bean-example``)
with a fixed seed and fixed dates, so every run serves the same data; Fava's
Flask app runs under werkzeug's threaded WSGI server on 127.0.0.1. Fava and
beancount are imported lazily: the package imports without them, and
:class:`FavaSite` raises an :class:`ImportError` naming the ``dev`` extra.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import logging
import os
import random
import shutil
import tempfile
import threading
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["FavaSite", "generate_ledger", "ledger_state", "LEDGER_SLUG", "SEED", "DATE_BEGIN", "DATE_END"]

HOST = "127.0.0.1"
SEED = 7
DATE_BEGIN = datetime.date(2024, 1, 1)
DATE_END = datetime.date(2025, 12, 31)
DATE_BIRTH = datetime.date(1990, 5, 1)
LEDGER_SLUG = "example-beancount-file"
"""Fava's URL slug of the generated ledger (from its ``title`` option)."""


def _require() -> None:
    try:
        import beancount  # noqa: F401
        import fava  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("the Fava bench app needs fava and beancount: pip install 'agentjit[dev]' (or pip install fava)") from exc


@lru_cache(maxsize=4)
def generate_ledger(seed: int = SEED) -> str:
    """The text of ``bean-example``'s ledger for ``seed`` over 2024-2025 (same text every run).

    The generator draws from the global :mod:`random` state; it is saved and restored.
    """
    _require()
    from beancount.scripts.example import write_example_file

    saved = random.getstate()
    try:
        random.seed(seed)
        out = io.StringIO()
        write_example_file(DATE_BIRTH, DATE_BEGIN, DATE_END, True, file=out)
    finally:
        random.setstate(saved)
    return out.getvalue()


def _plain_number(number: Decimal | None) -> str | None:
    return None if number is None else str(number)


def _transaction(entry: Any) -> dict[str, Any]:
    return {
        "date": entry.date.isoformat(),
        "flag": entry.flag,
        "payee": entry.payee,
        "narration": entry.narration,
        "tags": sorted(entry.tags or ()),
        "links": sorted(entry.links or ()),
        "lineno": entry.meta.get("lineno"),
        "postings": [
            {
                "account": p.account,
                "number": _plain_number(p.units.number) if p.units is not None else None,
                "currency": p.units.currency if p.units is not None else None,
            }
            for p in entry.postings
        ],
    }


def ledger_state(path: str | Path) -> dict[str, Any]:
    """The ledger as judges see it, read with ``beancount.loader.load_file``.

    ``transactions``: every transaction as a plain dict (``date``, ``flag``, ``payee``,
    ``narration``, ``tags``, ``links``, ``lineno``, ``postings``: ``account``,
    ``number`` (a decimal string), ``currency``); ``errors``: the loader's error
    messages; ``entries``: the number of directives; ``sha256``: of the file's bytes.
    """
    _require()
    from beancount import loader
    from beancount.core import data

    raw = Path(path).read_bytes()
    entries, errors, _options = loader.load_file(str(path))
    return {
        "path": str(path),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "entries": len(entries),
        "errors": [str(getattr(e, "message", e)) for e in errors],
        "transactions": [_transaction(e) for e in entries if isinstance(e, data.Transaction)],
    }


class FavaSite:
    """Fava over the generated example ledger, served in-process.

    Besides Fava's own pages, the server answers ``POST /__reset`` (:meth:`reset`)
    and ``GET /__state`` (:meth:`state` as JSON), so the recorder and the builder's
    verifier can reset it between runs like the food site.

    >>> with FavaSite() as site:     # port 0: pick a free port
    ...     site.url                 # 'http://127.0.0.1:PORT' (redirects to the income statement)

    ``seed`` offsets the generator's seed (0, the default, is the ledger the tasks
    were written for: :data:`SEED`); ``latency_scale`` is accepted for the
    bench-site interface and ignored (Fava has no injected latency).
    """

    def __init__(self, *, port: int = 0, seed: int = 0, latency_scale: float = 0.0):
        _require()
        self.port = port
        self.seed = seed
        self.latency_scale = latency_scale
        self._text = generate_ledger(SEED + seed)
        self._dir: Path | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._app: Any = None

    # -- lifecycle --------------------------------------------------------

    @property
    def ledger_path(self) -> Path:
        if self._dir is None:
            raise RuntimeError("FavaSite is not started")
        return self._dir / "example.beancount"

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FavaSite is not started")
        return f"http://{HOST}:{self._server.server_port}"

    @property
    def ledger_url(self) -> str:
        """The ledger's root in Fava (``URL/<slug>``); pages live below it."""
        return f"{self.url}/{LEDGER_SLUG}"

    def start(self) -> FavaSite:
        if self._server is not None:
            return self
        from fava.application import create_app
        from werkzeug.serving import WSGIRequestHandler, make_server

        class QuietHandler(WSGIRequestHandler):
            """Request lines go to this module's logger at debug level, not to stderr."""

            def log(self, type: str, message: str, *args: Any) -> None:
                log.debug("%s %s", self.address_string(), message % args)

        self._dir = Path(tempfile.mkdtemp(prefix="agentjit-fava-"))
        self.ledger_path.write_text(self._text, encoding="utf-8")
        # The poll watcher checks mtimes on each request: no watcher threads to stop,
        # and reset() can make Fava reload at once.
        self._app = create_app([self.ledger_path], load=True, poll_watcher=True)
        self._server = make_server(HOST, self.port, self._wsgi, threaded=True, request_handler=QuietHandler)
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, name=f"fava-site-{self.port}", daemon=True)
        self._thread.start()
        log.info("fava on %s (ledger %s)", self.url, self.ledger_path)
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self._app = None

    def __enter__(self) -> FavaSite:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    # -- state ------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The ledger file as beancount's loader reads it (see :func:`ledger_state`)."""
        return ledger_state(self.ledger_path)

    def reset(self, draws: str = "") -> None:
        """Restore the generated ledger and make Fava reload it before the next request.

        ``draws`` is ignored: this site injects no latency.
        """
        path = self.ledger_path
        if path.read_text(encoding="utf-8") == self._text:
            return
        path.write_text(self._text, encoding="utf-8")
        ledger = self._ledger()
        if ledger is None:
            return
        # Fava reloads when the file's mtime passes the last one it saw; a restore within
        # the same clock tick would go unseen, so move the mtime past it.
        seen = ledger.watcher.last_checked
        mtime = max(path.stat().st_mtime_ns, seen + 1_000_000)
        os.utime(path, ns=(mtime, mtime))
        ledger.changed()

    def _wsgi(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Fava, plus the bench endpoints the recorder and builder use: ``POST /__reset``
        and ``GET /__state`` (as the food site has them)."""
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET")
        if path == "/__reset" and method == "POST":
            self.reset()
            body = b'{"ok": true}'
        elif path == "/__state" and method == "GET":
            body = json.dumps(self.state()).encode()
        else:
            return self._app(environ, start_response)
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    def _ledger(self) -> Any:
        if self._app is None:
            return None
        ledgers = self._app.config["LEDGERS"].ledgers
        return ledgers[0] if ledgers else None
