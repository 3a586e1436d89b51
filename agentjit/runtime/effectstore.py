"""Where an effect log keeps its claims: a JSONL file, SQLite or PostgreSQL, chosen by a URL.

:class:`~agentjit.runtime.effects.EffectLog` decides *what* a write may do
(send, replay, refuse); a store only keeps one row per write and makes the
claim atomic for every process that opens the same store:

* :class:`JsonlStore` (a plain path, the log of old): an append-only JSONL
  file; a claim takes an exclusive ``flock`` on the file, reads the lines
  other processes appended since, and appends ``claimed`` when the key is free.
  Several processes on one machine (one local file system) share it safely.
* :class:`SqliteStore` (``sqlite:///path``): the embedded default for several
  processes on one machine. A claim is an ``INSERT ... ON CONFLICT DO NOTHING``
  under the key's unique hash, in WAL mode with a busy timeout.
* :class:`PostgresStore` (``postgresql://...``): many machines, the same
  statement; needs ``psycopg`` (``pip install 'agentjit[postgres]'``).

A row is ``claimed`` (a process is sending it), ``committed`` or
``uncertain``; a released claim is deleted. Every row names its ``owner``
(``host:pid:token`` of the claiming :class:`EffectLog`), so a claim left by a
process that died on this host is known to be dead (it becomes uncertain)
while one held on another machine is waited for. Rows live under a
``namespace`` (one task of one batch run: ``RUN/TASK``), so the writes of
different tasks never share keys. Session cookies are never stored: they stay
in memory in the process that sent the write.

Calls are synchronous and short (one statement each); the log calls them from
its event loop, as it fsyncs the JSONL file. A bad URL is a ConfigError; a
store that cannot be opened or written (a database down, a full disk) an
InfrastructureError: a write whose end cannot be recorded stays claimed, so it
becomes uncertain and is never sent again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import sqlite3
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from agentjit.exceptions import ConfigError, InfrastructureError, TraceError

__all__ = [
    "EffectStore", "StoredRow", "JsonlStore", "SqliteStore", "PostgresStore", "open_store", "owner_alive",
    "HOST",
]  # fmt: skip

log = logging.getLogger(__name__)

RowStatus = Literal["claimed", "committed", "uncertain"]

HOST = socket.gethostname()

TABLE = "agentjit_effects"


@dataclass
class StoredRow:
    """One write as a store keeps it (the key's four fields flat, the outcome as JSON data)."""

    namespace: str
    tool: str
    args: str
    occurrence: int
    scope: str
    status: RowStatus
    owner: str
    worker: int = 0
    execution: int = 0
    time: float = 0.0
    outcome: dict[str, Any] | None = None

    @property
    def ident(self) -> tuple[str, str, str, int, str]:
        return (self.namespace, self.tool, self.args, self.occurrence, self.scope)

    @property
    def key_hash(self) -> str:
        """The unique key of the row in a database (arguments may be longer than an index allows)."""
        return key_hash(*self.ident)


def key_hash(namespace: str, tool: str, args: str, occurrence: int, scope: str) -> str:
    text = json.dumps([namespace, tool, args, occurrence, scope], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def owner_alive(owner: str) -> bool | None:
    """Whether the process that wrote ``owner`` (``host:pid:token``) still runs: ``False`` when it
    surely does not (this host and the pid is gone, or no owner at all), ``None`` when it cannot be
    told (another machine). The caller judges owners of its own process."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if not owner or not pid_text.isdigit():
        return False  # a line from before owners were written: its process is long gone
    if host != HOST:
        return None
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EffectStore(ABC):
    """Rows of writes, shared by every process that opens the same URL."""

    url: str = ""

    @abstractmethod
    def rows(self, namespace: str) -> list[StoredRow]:
        """Every row of ``namespace`` in the order it was claimed."""

    @abstractmethod
    def try_claim(self, row: StoredRow) -> StoredRow | None:
        """Insert ``row`` (status ``claimed``) unless its key has a row: ``None`` when the caller
        now holds the claim, else the row that is there."""

    @abstractmethod
    def end(self, row: StoredRow) -> bool:
        """Record how ``row``'s claim ended (``committed`` or ``uncertain``), if its owner still
        holds it; ``False`` when it did not (the claim was taken from it)."""

    @abstractmethod
    def release(self, row: StoredRow) -> None:
        """Delete ``row``'s claim (the write was never sent) if its owner still holds it."""

    @abstractmethod
    def forget(self, row: StoredRow) -> None:
        """Delete ``row``'s key whatever its status (an operator checked the site)."""

    def close(self) -> None:  # noqa: B027 - most stores have nothing to close
        """Close the connection (the store cannot be used after)."""


# -- JSONL -----------------------------------------------------------------------------------------


class JsonlStore(EffectStore):
    """An append-only JSONL file, each line fsynced; a claim holds an exclusive ``flock``.

    The lines are events (``claimed``, ``committed``, ``uncertain``, ``released``,
    ``forgotten``); the rows are what they add up to. Only a local file system
    gives ``flock`` its meaning: on a network share use SQLite or PostgreSQL.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.url = str(self.path)
        self._rows: dict[tuple[str, str, str, int, str], StoredRow] = {}
        self._offset = 0
        self._lineno = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def _locked(self, write: bool) -> Any:
        import fcntl

        with self._lock:
            if not self.path.exists() and not write:
                yield None
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a+", encoding="utf-8") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
                try:
                    self._catch_up(fh)
                    yield fh
                finally:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def _catch_up(self, fh: Any) -> None:
        """Read the lines appended since the last look (by any process)."""
        fh.seek(self._offset)
        while True:
            line = fh.readline()
            if not line or not line.endswith("\n"):
                break  # the end (a torn last line is read once it is whole)
            self._offset += len(line.encode("utf-8"))
            self._lineno += 1
            if line.strip():
                self._apply(line)

    def _apply(self, line: str) -> None:
        try:
            entry = json.loads(line)
            ident = (entry.get("namespace", ""), entry["tool"], entry["args"], int(entry["occurrence"]),
                     entry.get("scope", ""))  # fmt: skip
            event = entry["event"]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TraceError(f"bad effect log entry: {exc}", path=str(self.path), line=self._lineno) from None
        if event == "claimed":
            self._rows[ident] = StoredRow(*ident, status="claimed", owner=entry.get("owner", ""),
                                          worker=entry.get("worker", 0), time=entry.get("time", 0.0))  # fmt: skip
        elif event in ("released", "forgotten"):
            self._rows.pop(ident, None)
        elif event in ("committed", "uncertain"):
            outcome = entry.get("outcome")
            if not isinstance(outcome, dict):
                raise TraceError("bad outcome in effect log: not an object", path=str(self.path), line=self._lineno)
            old = self._rows.pop(ident, None)  # re-inserted: the order is the order writes ended
            self._rows[ident] = StoredRow(
                *ident, status=event, owner=entry.get("owner", old.owner if old else ""), worker=entry.get("worker", 0),
                execution=entry.get("execution", 0), time=entry.get("time", 0.0), outcome=outcome,
            )  # fmt: skip
        else:
            raise TraceError(f"unknown effect log event {event!r}", path=str(self.path), line=self._lineno)

    def _append(self, fh: Any, event: str, row: StoredRow, **extra: Any) -> None:
        entry: dict[str, Any] = {"event": event, "tool": row.tool, "args": row.args, "occurrence": row.occurrence,
                                 "scope": row.scope}  # fmt: skip
        if row.namespace:
            entry["namespace"] = row.namespace
        entry.update(extra)
        line = json.dumps(entry, ensure_ascii=False, default=str) + "\n"
        fh.seek(0, os.SEEK_END)
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())
        self._catch_up(fh)

    def rows(self, namespace: str) -> list[StoredRow]:
        with self._locked(write=False):
            return [r for r in self._rows.values() if r.namespace == namespace]

    def try_claim(self, row: StoredRow) -> StoredRow | None:
        with self._locked(write=True) as fh:
            there = self._rows.get(row.ident)
            if there is not None:
                return there
            self._append(fh, "claimed", row, owner=row.owner, worker=row.worker, time=row.time)
            return None

    def end(self, row: StoredRow) -> bool:
        with self._locked(write=True) as fh:
            there = self._rows.get(row.ident)
            if there is None or there.status != "claimed" or there.owner != row.owner:
                return False
            self._append(fh, row.status, row, owner=row.owner, worker=row.worker, execution=row.execution,
                         time=row.time, outcome=row.outcome)  # fmt: skip
            return True

    def release(self, row: StoredRow) -> None:
        with self._locked(write=True) as fh:
            there = self._rows.get(row.ident)
            if there is not None and there.status == "claimed" and there.owner == row.owner:
                self._append(fh, "released", row, time=row.time)

    def forget(self, row: StoredRow) -> None:
        with self._locked(write=True) as fh:
            if row.ident in self._rows:
                self._append(fh, "forgotten", row)


# -- SQL ---------------------------------------------------------------------------------------------

_COLUMNS = ("key_hash", "namespace", "tool", "args", "occurrence", "scope", "status", "owner", "worker",
            "execution", "time", "outcome")  # fmt: skip


class _SqlStore(EffectStore):
    """The statements SQLite and PostgreSQL share (``?`` placeholders; PostgreSQL's become ``%s``)."""

    placeholder = "?"

    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    @abstractmethod
    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[int, list[tuple[Any, ...]]]:
        """Run one statement in its own transaction: (rows changed, rows fetched)."""

    def _row(self, values: tuple[Any, ...]) -> StoredRow:
        d = dict(zip(_COLUMNS[1:], values, strict=True))
        outcome = d.pop("outcome")
        return StoredRow(**d, outcome=json.loads(outcome) if outcome else None)

    def rows(self, namespace: str) -> list[StoredRow]:
        _, got = self._execute(self._sql(f"SELECT {', '.join(_COLUMNS[1:])} FROM {TABLE} WHERE namespace = ? "
                                         "ORDER BY seq"), (namespace,))  # fmt: skip
        return [self._row(v) for v in got]

    def _get(self, row: StoredRow) -> StoredRow | None:
        _, got = self._execute(self._sql(f"SELECT {', '.join(_COLUMNS[1:])} FROM {TABLE} WHERE key_hash = ?"),
                               (row.key_hash,))  # fmt: skip
        return self._row(got[0]) if got else None

    def try_claim(self, row: StoredRow) -> StoredRow | None:
        sql = self._sql(f"INSERT INTO {TABLE} ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
                        "ON CONFLICT (key_hash) DO NOTHING")  # fmt: skip
        params = (row.key_hash, row.namespace, row.tool, row.args, row.occurrence, row.scope, "claimed", row.owner,
                  row.worker, row.execution, row.time, None)  # fmt: skip
        while True:
            changed, _ = self._execute(sql, params)
            if changed == 1:
                return None
            there = self._get(row)
            if there is not None:
                return there
            # released between the insert and the read: try again

    def end(self, row: StoredRow) -> bool:
        changed, _ = self._execute(
            self._sql(f"UPDATE {TABLE} SET status = ?, worker = ?, execution = ?, time = ?, outcome = ? "
                      "WHERE key_hash = ? AND owner = ? AND status = 'claimed'"),
            (row.status, row.worker, row.execution, row.time, json.dumps(row.outcome, default=str), row.key_hash,
             row.owner),
        )  # fmt: skip
        return changed == 1

    def release(self, row: StoredRow) -> None:
        self._execute(self._sql(f"DELETE FROM {TABLE} WHERE key_hash = ? AND owner = ? AND status = 'claimed'"),
                      (row.key_hash, row.owner))  # fmt: skip

    def forget(self, row: StoredRow) -> None:
        self._execute(self._sql(f"DELETE FROM {TABLE} WHERE key_hash = ?"), (row.key_hash,))


class SqliteStore(_SqlStore):
    """One SQLite file in WAL mode; each statement commits on its own (autocommit)."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=busy_timeout_s, isolation_level=None,
                                         check_same_thread=False)  # fmt: skip
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (seq INTEGER PRIMARY KEY AUTOINCREMENT, key_hash TEXT NOT NULL "
                "UNIQUE, namespace TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL, occurrence INTEGER NOT NULL, "
                "scope TEXT NOT NULL, status TEXT NOT NULL, owner TEXT NOT NULL, worker INTEGER NOT NULL, "
                "execution INTEGER NOT NULL, time REAL NOT NULL, outcome TEXT)"
            )
        except sqlite3.Error as exc:
            raise InfrastructureError(f"cannot open the effect log {self.url}: {exc}") from exc

    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[int, list[tuple[Any, ...]]]:
        with self._lock:
            try:
                cur = self._conn.execute(sql, params)
                return cur.rowcount, cur.fetchall()
            except sqlite3.Error as exc:
                raise InfrastructureError(f"effect log {self.url}: {exc}") from exc

    def close(self) -> None:
        self._conn.close()


class PostgresStore(_SqlStore):
    """A PostgreSQL table, reached with psycopg 3 in autocommit mode."""

    placeholder = "%s"

    def __init__(self, dsn: str) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise ConfigError(f"the 'psycopg' package is not installed: pip install 'agentjit[postgres]' ({exc})") from exc
        self._psycopg = psycopg
        self.url = _redacted(dsn)
        self._lock = threading.Lock()
        try:
            self._conn = psycopg.connect(dsn, autocommit=True)
            with self._conn.cursor() as cur:  # the lock: two processes creating the table at once
                cur.execute("SELECT pg_advisory_lock(4242023)")
                try:
                    cur.execute(
                        f"CREATE TABLE IF NOT EXISTS {TABLE} (seq BIGSERIAL PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, "
                        "namespace TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL, occurrence INTEGER NOT NULL, "
                        "scope TEXT NOT NULL, status TEXT NOT NULL, owner TEXT NOT NULL, worker INTEGER NOT NULL, "
                        "execution INTEGER NOT NULL, time DOUBLE PRECISION NOT NULL, outcome TEXT)"
                    )
                    cur.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_namespace ON {TABLE} (namespace, seq)")
                finally:
                    cur.execute("SELECT pg_advisory_unlock(4242023)")
        except psycopg.Error as exc:
            raise InfrastructureError(f"cannot open the effect log {self.url}: {exc}") from exc

    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[int, list[tuple[Any, ...]]]:
        with self._lock:
            try:
                with self._conn.cursor() as cur:
                    cur.execute(sql, params)  # type: ignore[arg-type]  # psycopg wants a LiteralString
                    return cur.rowcount, (cur.fetchall() if cur.description else [])
            except self._psycopg.Error as exc:
                raise InfrastructureError(f"effect log {self.url}: {exc}") from exc

    def close(self) -> None:
        self._conn.close()


def _redacted(dsn: str) -> str:
    """``dsn`` without its password (for messages)."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()


def open_store(url: str | Path) -> EffectStore:
    """The store a URL names: ``sqlite:///path``, ``postgresql://...`` (or ``postgres://``);
    anything else is the path of a JSONL file."""
    text = str(url)
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme == "sqlite":
        path = unquote(urlsplit(text).path)
        if not path or path == "/":
            raise ConfigError(f"effect log URL {text!r}: no file (sqlite:///relative/path or sqlite:////abs/path)")
        return SqliteStore(path[1:] if path.startswith("/") else path)
    if scheme in ("postgresql", "postgres"):
        return PostgresStore(text)
    if scheme:
        raise ConfigError(f"effect log URL {text!r}: unknown scheme {scheme!r} (sqlite:///PATH, postgresql://..., "
                          "or a path to a JSONL file)")  # fmt: skip
    return JsonlStore(text)
