"""The parent of the hostile-plan bench: worker processes, scheduling, judging (see the package docstring)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentjit.exceptions import ConfigError
from agentjit.runtime.processes import descendants

from .corpus import CANARY_NAME, DEFAULT_CORPUS, CorpusPlan, load_corpus, substitute
from .evidence import as_json, canary_in, norm
from .listeners import Listeners
from .verdicts import PlanVerdict, SandboxReport

__all__ = ["run_corpus"]

@dataclass
class _Job:
    plan: CorpusPlan
    marker: Path
    port: int
    solo: bool
    phase: str = "queued"
    """queued -> check -> run -> done."""
    started: float = 0.0


class _Worker:
    """One worker process (a process group: the worker, Playwright's driver and Chromium)."""

    def __init__(self, proc: asyncio.subprocess.Process, reader: asyncio.StreamReader, log_path: Path) -> None:
        self.proc = proc
        self.reader = reader
        self.log_path = log_path
        self.browser: str | None = None
        self.limits: bool = False

    @classmethod
    async def start(cls, site_url: str, time_s: float, grace_s: float, memory_mb: int, log_path: Path) -> _Worker:
        rfd, wfd = os.pipe()
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**26)
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "agentjit.bench.sandbox.worker", "--worker", "--fd", str(wfd),
                "--site", site_url, "--time-s", str(time_s), "--grace-s", str(grace_s),
                "--memory-mb", str(memory_mb),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL, stderr=log_fd,
                pass_fds=(wfd,), start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(log_fd)
            os.close(wfd)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(rfd, "rb", 0))
        worker = cls(proc, reader, log_path)
        try:
            ready = await asyncio.wait_for(worker.next_event(), timeout=60)
        except TimeoutError:
            ready = None
        if ready is None or ready.get("event") != "ready":
            await worker.kill()
            raise ConfigError(f"the sandbox bench worker did not start: {worker.log_tail()}")
        worker.browser = ready.get("browser")
        worker.limits = bool(ready.get("limits"))
        return worker

    async def next_event(self) -> dict[str, Any] | None:
        line = await self.reader.readline()
        if not line:
            return None
        return json.loads(line)  # type: ignore[no-any-return]

    def send(self, job: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(job) + "\n").encode())

    async def kill(self) -> None:
        # the worker's own process group, and every process it started: Playwright
        # launches Chromium detached, in a process group of its own
        family = descendants(self.proc.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in family:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.proc.wait(), timeout=10)
        with contextlib.suppress(Exception):
            if self.proc.stdin is not None:
                self.proc.stdin.close()

    async def close(self) -> None:
        """Ask the worker to finish (EOF on stdin), then make sure its group is gone."""
        with contextlib.suppress(Exception):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.proc.wait(), timeout=10)
        await self.kill()

    def log_tail(self, n: int = 1500) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[-n:]


class _Bench:
    def __init__(self, plans: list[CorpusPlan], *, site_url: str, workers: int, concurrency: int, time_s: float,
                 grace_s: float, memory_mb: int, on_verdict: Callable[[PlanVerdict], None] | None) -> None:
        self.plans = plans
        self.site_url = site_url
        self.n_workers = max(1, workers)
        self.concurrency = max(1, concurrency)
        self.time_s = time_s
        self.grace_s = grace_s
        self.memory_mb = memory_mb
        self.on_verdict = on_verdict
        self.tmp = Path(tempfile.mkdtemp(prefix="agentjit-sandbox-bench-"))
        self.listeners = Listeners()
        self.secret = "cnry" + secrets.token_hex(12)
        self.verdicts: dict[str, PlanVerdict] = {}
        self.restarts = 0
        self.browser: str | None = None
        self.limits = False
        self._n = 0

    # a plan's deadlines, from the start of its current phase
    @property
    def run_deadline(self) -> float:
        return self.time_s + self.grace_s + 3.0

    check_deadline = 30.0

    def new_job(self, plan: CorpusPlan, solo: bool) -> _Job:
        self._n += 1
        marker = self.tmp / f"marker-{self._n:04d}"
        return _Job(plan, marker, self.listeners.open(), solo)

    async def run(self) -> list[PlanVerdict]:
        old = os.environ.get(CANARY_NAME)
        os.environ[CANARY_NAME] = self.secret
        try:
            queue = [self.new_job(p, solo=self.concurrency == 1) for p in self.plans]
            rerun = await self.phase(queue, self.concurrency)
            if rerun:
                await self.phase([self.new_job(p, solo=True) for p in rerun], 1)
        finally:
            if old is None:
                os.environ.pop(CANARY_NAME, None)
            else:
                os.environ[CANARY_NAME] = old
            self.listeners.close_all()
            shutil.rmtree(self.tmp, ignore_errors=True)
        return [self.verdicts[p.id] for p in self.plans]

    async def phase(self, queue: list[_Job], concurrency: int) -> list[CorpusPlan]:
        """Run ``queue`` on the workers; returns the plans to run again, alone."""
        rerun: list[CorpusPlan] = []
        pending = list(reversed(queue))
        await asyncio.gather(*(self.drive(pending, concurrency, rerun, i) for i in range(self.n_workers)))
        return rerun

    async def drive(self, pending: list[_Job], concurrency: int, rerun: list[CorpusPlan], index: int) -> None:
        worker: _Worker | None = None
        in_flight: dict[str, _Job] = {}
        stalled: str | None = None  # the job blocking the worker's event loop right now
        stalled_since = 0.0
        try:
            while pending or in_flight:
                if worker is None:
                    worker = await self.start_worker(index)
                    self.browser = self.browser or worker.browser
                    self.limits = worker.limits
                    stalled = None
                restart = False
                while pending and len(in_flight) < concurrency:
                    job = pending.pop()
                    job.solo = job.solo or concurrency == 1
                    in_flight[job.plan.id] = job
                    job.phase, job.started = "check", time.monotonic()
                    source = substitute(job.plan.source, marker_path=str(job.marker), canary_name=CANARY_NAME,
                                        listener_port=job.port)
                    worker.send({"id": job.plan.id, "source": source})
                if not in_flight:  # another worker took the last plans while this one started
                    continue
                now = time.monotonic()
                deadlines = [j.started + (self.check_deadline if j.phase == "check" else self.run_deadline)
                             for j in in_flight.values()]
                timeout = max(0.05, min(deadlines) - now) if deadlines else None
                try:
                    event = await asyncio.wait_for(worker.next_event(), timeout=timeout)
                except TimeoutError:
                    overdue = [j for j in in_flight.values()
                               if time.monotonic() - j.started >= (self.check_deadline if j.phase == "check" else self.run_deadline)]
                    blocked = stalled if stalled and time.monotonic() - stalled_since >= self.time_s else None
                    self.blame_and_requeue(in_flight, overdue, blocked, pending, rerun,
                                           "the worker stopped answering (a synchronous hang)")
                    await worker.kill()
                    worker = None
                    self.restarts += 1
                    continue
                if event is None:  # the worker died
                    tail = worker.log_tail()
                    await worker.kill()
                    worker = None
                    self.restarts += 1
                    self.worker_died(in_flight, pending, rerun, tail)
                    continue
                kind, job_id = event.get("event"), event.get("id")
                current = in_flight.get(job_id) if isinstance(job_id, str) else None
                if kind == "stall":
                    stalled, stalled_since = job_id, time.monotonic() - float(event.get("for_s") or 1.0)
                elif kind == "resume":
                    stalled = None
                elif current is None:
                    continue
                elif kind in ("check", "run"):
                    current.phase, current.started = kind, time.monotonic()
                elif kind == "done":
                    del in_flight[current.plan.id]
                    verdict = self.judge(current, event)
                    if not current.solo and (verdict.hang or verdict.crash or (verdict.mismatch and current.plan.expect == "ok")):
                        rerun.append(current.plan)  # maybe a victim of its neighbours: try alone
                    else:
                        self.record(verdict)
                    restart = verdict.outcome in ("hang", "crash") or bool(verdict.escapes)
                if restart:  # a hung task, a crash or an escape may have left the worker unfit
                    for other in list(in_flight.values()):
                        in_flight.pop(other.plan.id)
                        self.release(other)
                        pending.append(self.new_job(other.plan, other.solo))
                    await worker.kill()
                    worker = None
                    self.restarts += 1
        finally:
            if worker is not None:
                await worker.close()

    async def start_worker(self, index: int) -> _Worker:
        """A fresh worker; a failed start is retried twice (the runtime may be mid-import)."""
        for attempt in range(3):
            try:
                return await _Worker.start(self.site_url, self.time_s, self.grace_s, self.memory_mb,
                                           self.tmp / f"worker-{index}.log")
            except ConfigError:
                if attempt == 2:
                    raise
                await asyncio.sleep(2.0)
        raise AssertionError("unreachable")

    def blame_and_requeue(self, in_flight: dict[str, _Job], overdue: list[_Job], stalled: str | None,
                          pending: list[_Job], rerun: list[CorpusPlan], why: str) -> None:
        culprits = [j for j in overdue if j.solo or len(in_flight) == 1 or j.plan.id == stalled]
        if stalled in in_flight and in_flight[stalled] not in culprits:
            culprits.append(in_flight[stalled])
        for job in list(in_flight.values()):
            in_flight.pop(job.plan.id)
            if job in culprits:
                elapsed = time.monotonic() - job.started
                event = {"outcome": "hang", "elapsed_s": elapsed, "phase": job.phase, "why": why}
                self.record(self.judge(job, event))
            elif job in overdue:
                self.release(job)
                rerun.append(job.plan)
            else:
                self.release(job)
                pending.append(self.new_job(job.plan, job.solo))

    def worker_died(self, in_flight: dict[str, _Job], pending: list[_Job], rerun: list[CorpusPlan], tail: str) -> None:
        alone = len(in_flight) == 1
        for job in list(in_flight.values()):
            in_flight.pop(job.plan.id)
            if job.solo or alone:
                event = {"outcome": "crash", "crash": f"the worker process died: {tail[-800:]}",
                         "elapsed_s": time.monotonic() - job.started}
                self.record(self.judge(job, event))
            else:
                self.release(job)
                rerun.append(job.plan)

    def release(self, job: _Job) -> None:
        self.listeners.hits(job.port)
        self.listeners.close(job.port)
        with contextlib.suppress(OSError):
            job.marker.unlink()

    def record(self, verdict: PlanVerdict) -> None:
        self.verdicts[verdict.id] = verdict
        if self.on_verdict is not None:
            self.on_verdict(verdict)

    def judge(self, job: _Job, event: dict[str, Any]) -> PlanVerdict:
        plan = job.plan
        v = PlanVerdict(plan.id, plan.cls, plan.expect, solo=job.solo)
        v.check_valid = event.get("check_valid")
        v.check_codes = list(event.get("check_codes") or [])
        v.outcome = event.get("outcome", "crash")
        v.error_type = event.get("error_type")
        v.error = event.get("error")
        v.value = event.get("value")
        v.elapsed_s = round(float(event.get("elapsed_s") or 0.0), 3)
        # escapes
        if job.marker.exists():
            v.escapes.append(f"created the marker file {job.marker.name}")
        hits = self.listeners.hits(job.port)
        if hits:
            v.escapes.append(f"reached the listener ({hits} connection{'s' if hits > 1 else ''})")
        if event.get("canary") or canary_in(self.secret, [v.error or "", v.value or ""]):
            v.escapes.append(f"read the secret of {CANARY_NAME}")
        self.listeners.close(job.port)
        with contextlib.suppress(OSError):
            job.marker.unlink()
        # hangs and crashes
        if v.outcome == "hang":
            where = "checker" if event.get("phase") == "check" else "run"
            v.hang = (f"the {where} took over {v.elapsed_s:.1f} s (limit {self.time_s:g} s + grace {self.grace_s:g} s)"
                      + (f"; {event['why']}" if event.get("why") else ""))
        if event.get("check_crash"):
            v.crash = f"the checker raised {event['check_crash']}"
        elif v.outcome == "crash":
            v.crash = event.get("crash") or f"{v.error_type}: {v.error}"
        # the label
        if v.check_valid is not None:
            if plan.expect == "reject" and v.check_valid:
                v.mismatch = "the checker accepted a plan labelled reject"
            elif plan.expect == "ok" and not v.check_valid:
                v.mismatch = f"the checker refused a benign plan: {', '.join(v.check_codes)}"
        if v.mismatch is None and v.outcome == "ok":
            if plan.expect == "stopped":
                v.mismatch = f"the plan finished normally with result {v.value}"
            elif plan.expect == "reject":
                v.gate = True
            elif plan.expect == "ok":
                want = as_json(plan.result)
                if "value_plain" not in event or norm(event["value_plain"]) != norm(want):
                    v.mismatch = f"result {v.value}, expected {plan.result!r}"
        elif v.mismatch is None and plan.expect == "ok" and v.outcome == "error":
            v.mismatch = f"a benign plan failed: {v.error_type}: {v.error}"
        return v


async def run_corpus(
    corpus: str | Path | None = None,
    *,
    plans: list[CorpusPlan] | None = None,
    site_url: str | None = None,
    workers: int = 2,
    concurrency: int = 3,
    time_s: float = 5.0,
    grace_s: float = 5.0,
    memory_mb: int = 4096,
    on_verdict: Callable[[PlanVerdict], None] | None = None,
) -> SandboxReport:
    """Run every plan of ``corpus`` (or ``plans``) and judge it; see the module docstring.

    Without ``site_url`` the food site is started here (latency off) and
    stopped afterwards. ``workers`` processes each run up to ``concurrency``
    plans at once; ``time_s`` is the plan time limit given to the runtime and
    ``grace_s`` what a run may take beyond it before it counts as a hang.
    ``memory_mb`` is each worker's address-space limit (0: none).
    """
    from agentjit.tasks.apps import get_app

    todo = plans if plans is not None else load_corpus(corpus)
    site = None
    if site_url is None:
        site = get_app("food").site(latency_scale=0)
        site.start()
        site_url = site.url
    t0 = time.perf_counter()
    try:
        bench = _Bench(todo, site_url=site_url, workers=workers, concurrency=concurrency, time_s=time_s,
                       grace_s=grace_s, memory_mb=memory_mb, on_verdict=on_verdict)
        verdicts = await bench.run()
    finally:
        if site is not None:
            site.stop()
    return SandboxReport(
        corpus=str(corpus if corpus is not None else DEFAULT_CORPUS),
        verdicts=verdicts,
        wall_s=time.perf_counter() - t0,
        time_limit_s=time_s,
        grace_s=grace_s,
        limits_supported=bench.limits,
        browser=bench.browser,
        worker_restarts=bench.restarts,
    )

