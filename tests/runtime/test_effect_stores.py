"""The effect log's semantics on every store (JSONL, SQLite, PostgreSQL), in one process and
across OS processes racing for the same writes."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sqlite3
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentjit.bench.postgres import PostgresUnavailable, start_postgres
from agentjit.exceptions import ConfigError, InfrastructureError
from agentjit.runtime import CallOutcome, EffectKey, EffectLog
from agentjit.runtime.effects import Claim, canonical_args
from agentjit.runtime.effectstore import JsonlStore, PostgresStore, SqliteStore, open_store

from .conftest import FakeSite

BACKENDS = ["jsonl", "sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    try:
        with start_postgres() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL cannot start here: {exc}")


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL of each kind; PostgreSQL's is shared by the session (tests use their own namespaces)."""
    if request.param == "jsonl":
        return str(tmp_path / "effects.jsonl")
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/effects.db"  # sqlite:/// + an absolute path = four slashes
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def ns() -> str:
    return f"run-{uuid.uuid4().hex[:8]}/task"


def key(args: dict[str, Any] | None = None, occurrence: int = 0, tool: str = "order") -> EffectKey:
    return EffectKey(tool, canonical_args(args or {"id": "a1"}), occurrence)


def test_open_store_picks_the_store_by_url(tmp_path: Path) -> None:
    assert isinstance(open_store(tmp_path / "e.jsonl"), JsonlStore)
    sqlite_store = open_store(f"sqlite:///{tmp_path}/e.db")
    assert isinstance(sqlite_store, SqliteStore) and sqlite_store.path == tmp_path / "e.db"
    sqlite_store.close()
    with pytest.raises(ConfigError, match="unknown scheme 'mysql'"):
        open_store("mysql://x/y")
    with pytest.raises(ConfigError, match="no file"):
        open_store("sqlite:///")


async def test_sqlite_is_in_wal_mode_and_a_claim_is_one_row(tmp_path: Path) -> None:
    effects = EffectLog.open(f"sqlite:///{tmp_path}/e.db", namespace="n")
    claim = await effects.claim(key())
    assert isinstance(claim, Claim)
    con = sqlite3.connect(tmp_path / "e.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT namespace, status FROM agentjit_effects").fetchall() == [("n", "claimed")]
    claim.commit(CallOutcome(tool="order", ok=True))
    assert con.execute("SELECT status FROM agentjit_effects").fetchall() == [("committed",)]
    con.close()
    effects.close()


async def test_concurrent_claimants_send_once(url: str, ns: str) -> None:
    effects = EffectLog(store=url, namespace=ns)
    site = FakeSite(delay=0.05)
    results = await asyncio.gather(*(effects.write(key(), site.send, worker=w) for w in range(5)))
    assert site.sent == 1
    assert sorted(o.replayed for o, _ in results) == [False, True, True, True, True]
    assert {o.output["order"] for o, _ in results} == {1}
    effects.close()


async def test_a_reopened_log_replays_committed_writes(url: str, ns: str) -> None:
    site = FakeSite()
    first = EffectLog(store=url, namespace=ns)
    gate = first.gate()
    await first.write(gate.key("order", {"id": "a1"}), site.send)
    await first.write(gate.key("order", {"id": "a1"}), site.send)  # occurrence 1: a second write
    first.close()
    second = EffectLog(store=url, namespace=ns)
    assert [r.status for r in second.history] == ["committed", "committed"]
    gate = second.gate()
    outs = [await second.write(gate.key("order", {"id": "a1"}), site.send) for _ in range(2)]
    assert site.sent == 2 and all(o.replayed for o, _ in outs)
    assert [o.output for o, _ in outs] == [{"order": 1}, {"order": 2}]
    second.close()


async def test_namespaces_keep_runs_apart(url: str, ns: str) -> None:
    site = FakeSite()
    a = EffectLog(store=url, namespace=ns + "-a")
    b = EffectLog(store=url, namespace=ns + "-b")
    await a.write(key(), site.send)
    out, rec = await b.write(key(), site.send)
    assert site.sent == 2 and rec is None and not out.replayed
    a.close()
    b.close()


async def test_a_crash_mid_write_is_uncertain_and_never_resent(url: str, ns: str) -> None:
    first = EffectLog(store=url, namespace=ns)
    claim = await first.claim(key())
    assert isinstance(claim, Claim)  # claimed, then this log is abandoned (a crashed run)
    second = EffectLog(store=url, namespace=ns)
    site = FakeSite()
    out, rec = await second.write(key(), site.send)
    assert site.sent == 0 and rec is not None and rec.status == "uncertain"
    assert not out.ok and out.phase == "effect_log" and "not sent again" in (out.reason or "")
    second.forget(key())  # an operator checked the site
    third = EffectLog(store=url, namespace=ns)
    out, _ = await third.write(key(), site.send)
    assert out.ok and site.sent == 1
    for log_ in (first, second, third):
        log_.close()


@pytest.mark.parametrize("phase", ["execute", "post_check"])
async def test_failure_after_execute_is_uncertain_in_the_store(url: str, ns: str, phase: str) -> None:
    effects = EffectLog(store=url, namespace=ns)
    await effects.write(key(), FakeSite(phase=phase).send)
    effects.close()
    again = EffectLog(store=url, namespace=ns)
    ok = FakeSite()
    out, _ = await again.write(key(), ok.send)
    assert ok.sent == 0 and not out.ok and out.phase == "effect_log"
    again.close()


async def test_a_released_claim_passes_on(url: str, ns: str) -> None:
    effects = EffectLog(store=url, namespace=ns)
    failing, ok = FakeSite(delay=0.02, phase="pre_check"), FakeSite()
    a = asyncio.create_task(effects.write(key(), failing.send))
    await asyncio.sleep(0)
    b = asyncio.create_task(effects.write(key(), ok.send))
    (out_a, _), (out_b, rec_b) = await asyncio.gather(a, b)
    assert not out_a.ok and out_b.ok and rec_b is None and (failing.sent, ok.sent) == (1, 1)
    effects.close()
    reread = EffectLog(store=url, namespace=ns)
    assert [r.status for r in reread.history] == ["committed"]
    reread.close()


async def test_a_cancelled_send_is_uncertain(url: str, ns: str) -> None:
    effects = EffectLog(store=url, namespace=ns)
    task = asyncio.create_task(effects.write(key(), FakeSite(delay=5).send))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    effects.close()
    reread = EffectLog(store=url, namespace=ns)
    rec = reread.lookup(key())
    assert rec is not None and rec.status == "uncertain" and rec.outcome.phase == "interrupted"
    reread.close()


class _Context:
    def __init__(self, cookies: list[dict[str, Any]]) -> None:
        self._cookies = cookies
        self.added: list[dict[str, Any]] = []

    async def cookies(self) -> list[dict[str, Any]]:
        return self._cookies

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        self.added.extend(cookies)


class _Page:
    """A page's context, all the log touches of a page (the real-page replays: test_effects.py)."""

    def __init__(self, cookies: list[dict[str, Any]]) -> None:
        self.context = _Context(cookies)


async def test_cookies_stay_in_memory_and_replays_restore_them(url: str, ns: str, tmp_path: Path) -> None:
    secret = {"name": "sid", "value": "SECRET-" + uuid.uuid4().hex, "domain": "127.0.0.1", "path": "/"}
    effects = EffectLog(store=url, namespace=ns)
    await effects.write(key(), FakeSite().send, page=_Page([secret]))
    effects.begin_execution()
    other = _Page([])
    out, rec = await effects.write(key(), FakeSite().send, page=other)
    assert rec is not None and out.replayed and other.context.added == [secret]
    store = effects.store
    assert store is not None
    dumped = json.dumps([r.__dict__ for r in store.rows(ns)], default=str)
    assert secret["value"] not in dumped  # never in the store
    if isinstance(store, JsonlStore):
        assert secret["value"] not in (await asyncio.to_thread(Path(url).read_text))
    effects.close()


# -- several OS processes -------------------------------------------------------------------

N_KEYS = 12


def _race(url: str, namespace: str, sends: str, out: str, start: Any) -> None:
    """One racing process: write N_KEYS writes (each send appends its key to ``sends``)."""

    async def main() -> list[tuple[int, bool, bool]]:
        effects = EffectLog(store=url, namespace=namespace)
        start.wait()
        seen = []
        for i in range(N_KEYS):
            async def send(i: int = i) -> CallOutcome:
                fd = os.open(sends, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                try:
                    os.write(fd, f"{i}\n".encode())
                finally:
                    os.close(fd)
                await asyncio.sleep(0.01)
                return CallOutcome(tool="order", ok=True, output={"by": os.getpid()})

            o, _ = await effects.write(key({"id": i}), send)
            seen.append((i, o.ok, o.replayed))
        effects.close()
        return seen

    Path(out).write_text(json.dumps(asyncio.run(main())))


def _claim_and_die(url: str, namespace: str) -> None:
    async def main() -> None:
        effects = EffectLog(store=url, namespace=namespace)
        claim = await effects.claim(key())
        assert isinstance(claim, Claim)
        os._exit(3)  # the process dies between the claim and the send's end

    asyncio.run(main())


def _claim_and_hold(url: str, namespace: str, claimed: Any, stop: Any) -> None:
    async def main() -> None:
        effects = EffectLog(store=url, namespace=namespace)
        claim = await effects.claim(key())
        assert isinstance(claim, Claim)
        claimed.set()
        await asyncio.to_thread(stop.wait, 60)
        claim.commit(CallOutcome(tool="order", ok=True, output={"held": True}))
        effects.close()

    asyncio.run(main())


def test_four_processes_racing_send_each_write_once(url: str, ns: str, tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    sends = tmp_path / "sends.txt"
    procs = [ctx.Process(target=_race, args=(url, ns, str(sends), str(tmp_path / f"out{i}.json"), start))
             for i in range(4)]  # fmt: skip
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    sent = Counter(int(line) for line in sends.read_text().split())
    assert sent == Counter(range(N_KEYS))  # every write sent, by exactly one process
    seen = [json.loads((tmp_path / f"out{i}.json").read_text()) for i in range(4)]
    assert all(ok for run in seen for _, ok, _ in run)  # the others replayed it
    assert sum(not replayed for run in seen for _, _, replayed in run) == N_KEYS


def test_a_claim_left_by_a_dead_process_is_uncertain(url: str, ns: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    p = ctx.Process(target=_claim_and_die, args=(url, ns))
    p.start()
    p.join(60)
    assert p.exitcode == 3
    site = FakeSite()
    effects = EffectLog(store=url, namespace=ns)
    out, rec = asyncio.run(effects.write(key(), site.send))
    assert site.sent == 0 and rec is not None and rec.status == "uncertain" and out.phase == "effect_log"
    effects.close()


def test_a_claim_held_by_a_live_process_is_waited_for_then_refused_or_replayed(url: str, ns: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    claimed, stop = ctx.Event(), ctx.Event()
    p = ctx.Process(target=_claim_and_hold, args=(url, ns, claimed, stop))
    p.start()
    try:
        assert claimed.wait(60)
        site = FakeSite()
        impatient = EffectLog(store=url, namespace=ns, claim_wait_s=0.3)
        out, _ = asyncio.run(impatient.write(key(), site.send))
        assert site.sent == 0 and not out.ok and out.phase == "effect_log"  # fail-closed, not sent
        impatient.close()

        async def wait_then_stop() -> tuple[CallOutcome, Any]:
            patient = EffectLog(store=url, namespace=ns)
            waiting = asyncio.create_task(patient.write(key(), site.send))
            await asyncio.sleep(0.3)
            assert not waiting.done()  # polls the store while the other process sends
            stop.set()
            got = await waiting
            patient.close()
            return got

        out, rec = asyncio.run(wait_then_stop())
        assert site.sent == 0 and out.ok and out.replayed and out.output == {"held": True}
    finally:
        stop.set()
        p.join(60)
    assert p.exitcode == 0


def test_postgres_store_redacts_the_password_in_messages() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(InfrastructureError) as err:
        PostgresStore("postgresql://me:hunter2@127.0.0.1:1/db?connect_timeout=2")
    assert "hunter2" not in str(err.value) and "***" in str(err.value)


def test_cli_names_a_bad_effects_url(capsys: pytest.CaptureFixture[str]) -> None:
    from agentjit.cli import main

    code = main(["batch", "--effects", "mysql://db/effects", "--only", "food-v1-3", "--latency-scale", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown scheme 'mysql'" in err and "Traceback" not in err


async def test_a_bench_starts_its_own_postgresql_for_postgresql_local(tmp_path: Path) -> None:
    """``--store postgresql:local`` (``bench batch``, ``bench faults --processes``): a throw-away
    server for the bench, its URL in the local one's place, stopped after; other URLs untouched."""
    import psycopg

    from agentjit.bench.batch_bench import claims_per_second
    from agentjit.bench.postgres import LOCAL, bench_stores

    sqlite_url = f"sqlite:///{tmp_path}/e.db"
    with bench_stores([sqlite_url]) as urls:
        assert urls == [sqlite_url]
    try:
        with bench_stores([LOCAL, sqlite_url, LOCAL]) as urls:
            assert urls[1] == sqlite_url and urls[0] == urls[2] and urls[0].startswith("postgresql://")
            assert (await claims_per_second(urls[0], n=5))["claims"] == 5
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL cannot start here: {exc}")
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(urls[0], connect_timeout=3).close()
