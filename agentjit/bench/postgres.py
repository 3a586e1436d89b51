"""A throw-away PostgreSQL server for the effect-log tests and benches: Debian's binaries, a temp dir, 127.0.0.1.

:func:`start_postgres` runs ``initdb`` and ``pg_ctl start`` on a free port
(as the ``postgres`` user through ``runuser`` when it runs as root, since
the server refuses to run as root) and returns its URL, or raises
:class:`PostgresUnavailable` saying why it cannot start here (the tests skip
with that reason). :func:`bench_stores` starts one for a bench's ``--store postgresql:local``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentjit.exceptions import InfrastructureError


class PostgresUnavailable(InfrastructureError):
    """PostgreSQL cannot start on this machine; the message says why (a bench exits 3, a test skips)."""


@dataclass(frozen=True)
class Postgres:
    """A fixture's server: its URL, or None and why it cannot start here."""

    url: str | None
    why: str = ""


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    path = shutil.which(name)
    if path is None:
        raise PostgresUnavailable(f"no {name} (install Debian's postgresql package: make postgresql)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def start_postgres() -> Iterator[str]:
    """A running server's URL (``postgresql://postgres@127.0.0.1:PORT/postgres``); stopped on exit."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PostgresUnavailable("psycopg is not installed (pip install 'agentjit[postgres]')") from exc
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    prefix: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            raise PostgresUnavailable("running as root without runuser: the server cannot start as root")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError as exc:
            raise PostgresUnavailable("running as root and there is no postgres user") from exc
        prefix = [runuser, "-u", "postgres", "--"]
    tmp = Path(tempfile.mkdtemp(prefix="agentjit-pg-"))
    data, sock = tmp / "data", tmp / "sock"
    sock.mkdir()
    if prefix:
        shutil.chown(tmp, "postgres")
        shutil.chown(sock, "postgres")
    port = _free_port()
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    started = False
    try:
        run = subprocess.run([*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"],
                             capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
        if run.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {run.stderr.strip()[-500:]}")
        opts = f"-p {port} -h 127.0.0.1 -k {sock} -c fsync=off -c max_connections=50"
        run = subprocess.run([*prefix, pg_ctl, "-D", str(data), "-o", opts, "-l", str(tmp / "log"), "-w", "-t", "60",
                              "start"], capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
        if run.returncode != 0:
            log = (tmp / "log").read_text(errors="replace")[-500:] if (tmp / "log").exists() else ""
            raise PostgresUnavailable(f"pg_ctl start failed: {run.stderr.strip()[-300:]} {log}")
        started = True
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True,
                           env=env, timeout=120)  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)


LOCAL = "postgresql:local"
"""A bench's ``--store`` for a throw-away server of this machine's PostgreSQL, started for the bench."""


@contextmanager
def bench_stores(urls: Sequence[str]) -> Iterator[list[str]]:
    """``urls`` with each :data:`LOCAL` replaced by the URL of one server started here (stopped on exit).

    Raises :class:`PostgresUnavailable` (why it cannot start) when one is asked for and cannot start."""
    if LOCAL not in urls:
        yield list(urls)
        return
    with start_postgres() as url:
        yield [url if u == LOCAL else u for u in urls]
