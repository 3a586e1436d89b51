"""``agentjit bench faults --processes``: the fault matrix across processes, on Ray workers sharing one
effect store per run (SQLite or PostgreSQL), judged from the site's own state.

The cells are :func:`~agentjit.bench.faults_bench.matrix`'s (strategy, fault, task, target), on one
site started here (latency off). Each run's executions go to the Ray workers in turn (a re-execution
runs on another worker, a fresh process when the last one died), every one under an
:class:`~agentjit.runtime.EffectLog` over the run's store in a namespace of the run's own; the stores
take turns from cell to cell. Every worker (:class:`FaultWorker`) is a process with its own Chromium,
whose contexts name the process in the ``X-Fault-Client`` header, so the site's fault hook knows
whom it hits:

* ``kill``: SIGKILL the worker process that sent the request, with its Chromium (a machine gone
  mid-write): ``before`` the site applies it is a crash after the claim, before the send; ``after``
  is a crash after the send, before the outcome is recorded. The claim stays in the store under a
  dead owner, so the next worker finds it uncertain and never sends it again.
* ``crash``: SIGKILL the worker's Chromium (the worker lives on and starts a new one);
* ``500``, ``timeout``, ``drop`` (the network), ``restart`` (the site): as in the in-process matrix.

The verdict is :func:`~agentjit.bench.faults_bench.judge_run`'s, from the site's write log and the
store's rows: 0 duplicated, 0 lost, 0 unaccounted, 0 silent uncertain writes. Ray is the ``ray``
extra; nothing here imports it until the matrix runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentjit.exceptions import ConfigError
from agentjit.runtime import EffectLog
from agentjit.runtime.effectstore import EffectStore, open_store
from agentjit.runtime.processes import descendants

from .faults import FaultEvent, FaultRule, chromium_pids, kill_pids
from .faults_bench import (
    DEFAULT_RUNS,
    FAULTS,
    PROFILES,
    STRATEGIES,
    Cell,
    FaultReport,
    FaultSpec,
    RunRecord,
    _Browser,
    _describe,
    _is_clear,
    _strategy,
    _TaggedRuntime,
    arm_site,
    judge_run,
    matrix,
    refused_by_log,
)

__all__ = ["FaultWorker", "ProcessFaultReport", "run_process_fault_matrix", "client_pid"]

log = logging.getLogger(__name__)


def client_pid(client: str | None) -> int | None:
    """The worker pid a ``X-Fault-Client`` value names (``PID:w0-3``), if it names one."""
    head = (client or "").partition(":")[0]
    return int(head) if head.isdigit() else None


class FaultWorker:
    """One worker process: its own Chromium (started again after a crash), the app's tool cache,
    and a connection to each store it is handed (kept until :meth:`close`)."""

    def __init__(self, app: str, site_url: str, tool_timeout_ms: int = 2000) -> None:
        self.app = app
        self.site_url = site_url
        self.tool_timeout_ms = tool_timeout_ms
        self.cache = PROFILES[app]().cache()
        self.browser = _Browser()
        self.stores: dict[str, EffectStore] = {}

    async def pid(self) -> int:
        return os.getpid()

    async def run(self, store_url: str, namespace: str, source: str, strategy: str, task: str) -> dict[str, Any]:
        """One execution of ``source`` under the log ``namespace`` of ``store_url``: ``ok``, or the
        error, whether it is agentjit's own (``clear``) and whether the log refused a write."""
        store = self.stores.get(store_url)
        if store is None:
            store = self.stores[store_url] = open_store(store_url)
        pool = await self.browser.ensure()
        runtime = _TaggedRuntime(self.cache, self.site_url, pool=pool, tool_timeout_ms=self.tool_timeout_ms,
                                 client_prefix=f"{os.getpid()}:")  # fmt: skip
        effects = EffectLog(store=store, namespace=namespace)
        try:
            await runtime.run(source, strategy=_strategy(strategy, effects), task=task)
        except Exception as exc:  # noqa: BLE001 - ExceptionGroup included: the verdict is the driver's
            return {"ok": False, "error": _describe(exc), "clear": _is_clear(exc), "refused": refused_by_log(exc)}
        return {"ok": True}

    async def close(self) -> None:
        await self.browser.close()
        for store in self.stores.values():
            store.close()


@dataclass
class ProcessFaultReport(FaultReport):
    """A :class:`FaultReport` whose runs went to worker processes, with each run's store."""

    stores: tuple[str, ...] = ()
    store_of_run: tuple[str, ...] = ()
    workers: int = 2
    workers_started: int = 0
    workers_killed: int = 0

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        per_store: dict[str, dict[str, int]] = {}
        for url, run in zip(self.store_of_run, self.runs, strict=True):
            t = per_store.setdefault(url, {"runs": 0, "faulted_runs": 0, "duplicated": 0, "lost": 0,
                                           "unaccounted": 0, "uncertain_silent": 0})  # fmt: skip
            t["runs"] += 1
            t["faulted_runs"] += run.faults_injected > 0
            for k in ("duplicated", "lost", "unaccounted", "uncertain_silent"):
                t[k] += getattr(run, k)
        for row, url in zip(data["runs"], self.store_of_run, strict=True):
            row["store"] = url
        data.update(engine="ray", across_processes=True, workers=self.workers, workers_started=self.workers_started,
                    workers_killed=self.workers_killed, stores=list(self.stores), per_store=per_store)  # fmt: skip
        return data


class _Pool:
    """The Ray actors of the matrix, by slot; a slot whose actor died gets a new one when next used."""

    def __init__(self, ray: Any, app: str, site_url: str, size: int, tool_timeout_ms: int) -> None:
        self.ray = ray
        self.actor = ray.remote(FaultWorker)
        self.args = (app, site_url, tool_timeout_ms)
        self.size = size
        self.slots: dict[int, tuple[Any, int]] = {}
        self.started = 0
        self.killed: set[int] = set()

    async def _call(self, ref: Any) -> Any:
        return await asyncio.wrap_future(ref.future())

    async def get(self, slot: int) -> tuple[Any, int]:
        slot %= self.size
        if slot not in self.slots:
            handle = self.actor.options(num_cpus=0, max_restarts=0).remote(*self.args)
            pid = await self._call(handle.pid.remote())
            self.started += 1
            self.slots[slot] = (handle, pid)
        return self.slots[slot]

    def lost(self, slot: int) -> None:
        self.slots.pop(slot % self.size, None)

    def kill_tree(self, pid: int) -> list[int]:
        """SIGKILL worker ``pid`` and everything below it (its Playwright driver and Chromium)."""
        if pid not in {p for _, p in self.slots.values()}:
            log.warning("kill fault: %d is not a worker of this matrix", pid)
            return []
        self.killed.add(pid)
        return kill_pids([pid, *descendants(pid)])

    async def close(self) -> None:
        handles = [h for h, _ in self.slots.values()]
        try:
            await asyncio.wait_for(asyncio.gather(*(self._call(h.close.remote()) for h in handles)), 60)
        except Exception as exc:  # noqa: BLE001 - killed below either way
            log.warning("closing the fault workers: %s", exc)
        for h in handles:
            self.ray.kill(h)
        self.slots.clear()


async def run_process_fault_matrix(
    app: str = "food",
    *,
    stores: Sequence[str] = (),
    runs: int = DEFAULT_RUNS,
    strategies: Sequence[str] = STRATEGIES,
    faults: Sequence[FaultSpec] = FAULTS,
    workers: int = 2,
    attempts: int = 3,
    tool_timeout_ms: int = 2000,
    address: str | None = None,
    on_run: Callable[[int, int, RunRecord], None] | None = None,
) -> ProcessFaultReport:
    """Run ``runs`` cells of the fault matrix on Ray workers (see the module's docstring).

    ``stores``: the effect stores the runs take turns on (``sqlite:///PATH``, ``postgresql://...``;
    default one SQLite file in a temporary directory); each run's rows are removed after its verdict.
    ``address``: a running Ray cluster on this machine (the kill faults signal the workers by pid);
    default a local one, started and stopped here.
    """
    from agentjit.tasks.distributed import import_ray, init_ray

    ray = import_ray()
    if app not in PROFILES:
        raise ConfigError(f"no fault profile for app {app!r} (known: {', '.join(PROFILES)})")
    if workers < 1 or attempts < 1:
        raise ConfigError(f"workers and attempts must be at least 1, got {workers} and {attempts}")
    profile = PROFILES[app]()
    cells = matrix(profile, runs, strategies=strategies, faults=faults)
    from agentjit.planner import admit

    cache = profile.cache()
    for tasks in profile.tasks.values():
        for task in tasks:
            admit(task.source, cache, origin=f"fault task {task.id}")
    n_faults = len([f for f in faults if f.kind in profile.kinds])
    tag = f"faults-{uuid.uuid4().hex[:12]}"
    started_ray = False
    records: list[RunRecord] = []
    used: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentjit-faults-") as tmp:
        urls = list(stores) or [f"sqlite:///{Path(tmp) / 'effects.db'}"]
        readers = {url: open_store(url) for url in urls}
        site = profile.start_site()
        injector = site.faults
        pool: _Pool | None = None
        try:
            if not ray.is_initialized():
                init_ray(ray, address, num_cpus=max(2, workers))
                started_ray = True
            pool = _Pool(ray, profile.app, site.url, workers, tool_timeout_ms)
            active = pool

            def on_fault(rule: FaultRule, event: FaultEvent) -> None:  # in the site's request thread
                pid = client_pid(event.client)
                if pid is None:
                    log.warning("%s fault: request from no worker (client %s)", rule.kind, event.client)
                elif rule.kind == "kill":
                    log.info("kill fault: killed worker %d: %s", pid, active.kill_tree(pid))
                elif rule.kind == "crash":
                    log.info("crash fault: killed worker %d's Chromium %s", pid, kill_pids(chromium_pids(pid)))

            injector.on_fault = on_fault
            for i, cell in enumerate(cells):
                url = urls[(i % n_faults + i // n_faults) % len(urls)]
                record = await _one_run(profile, site, pool, readers[url], url, cell, f"{tag}/run-{i}",
                                        first_slot=i, attempts=attempts, hang_s=3 * tool_timeout_ms / 1000 + 8)  # fmt: skip
                records.append(record)
                used.append(url)
                if on_run is not None:
                    on_run(i + 1, len(cells), record)
        finally:
            injector.on_fault = None
            injector.clear()
            if pool is not None:
                await pool.close()
            if started_ray:
                ray.shutdown()
            site.stop()
            for reader in readers.values():
                reader.close()
    return ProcessFaultReport(
        profile.app, True, records, time.perf_counter() - t0, "", stores=tuple(u.split("@")[-1] for u in urls),
        store_of_run=tuple(u.split("@")[-1] for u in used), workers=workers,
        workers_started=pool.started if pool else 0, workers_killed=len(pool.killed) if pool else 0,
    )  # fmt: skip


def _open_rows(store: EffectStore, namespace: str) -> list[tuple[str, str, str]]:
    return [(r.tool, r.args, r.status) for r in store.rows(namespace)]


async def _one_run(
    profile: Any, site: Any, pool: _Pool, store: EffectStore, url: str, cell: Cell, namespace: str, *,
    first_slot: int, attempts: int, hang_s: float,
) -> RunRecord:
    ray = pool.ray
    t0 = time.perf_counter()
    injector = site.faults
    before = await arm_site(site, injector, cell, hang_s)
    errors: list[str] = []
    status = "failed"
    executions = 0
    for attempt in range(attempts):
        executions += 1
        slot = first_slot + attempt  # a re-execution goes to the next worker
        handle, pid = await pool.get(slot)
        try:
            got = await pool._call(handle.run.remote(url, namespace, cell.task.source, cell.strategy, cell.task.id))
        except ray.exceptions.RayActorError as exc:  # the worker died (a kill fault): its claims stay behind
            pool.lost(slot)
            errors.append(f"worker {pid} died: {type(exc).__name__}")
            status = "failed"
        else:
            if got["ok"]:
                status = "ok"
                break
            errors.append(got["error"])
            status = "failed" if got["clear"] else "unclear"
            if got["refused"]:
                break
        if any(s != "committed" for _, _, s in _open_rows(store, namespace)):
            break  # an uncertain write (or a dead worker's claim): no re-execution may finish the task
    injected = len(injector.snapshot()["injected"])
    injector.clear()  # let held requests go before the next run
    await asyncio.sleep(0.05)
    after = site.state()
    rows = store.rows(namespace)
    record = judge_run(profile, cell, site, before, after, [(r.tool, r.args, r.status) for r in rows], status=status,
                       executions=executions, injected=injected, effect_log=True, errors=errors,
                       wall_s=time.perf_counter() - t0)  # fmt: skip
    for row in rows:  # the bench's own rows: a store given by URL is left as it was
        store.forget(row)
    return record
