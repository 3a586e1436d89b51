"""Exactly-once WRITEs: the effect log of one task run (ToolPro's effect-aware replay).

Every WRITE a plan makes goes through :meth:`EffectLog.gate`, the ``write_gate``
hook of :class:`~agentjit.runtime.interpreter.PlanRun`. An entry is keyed by
:class:`EffectKey` ``(tool, canonical JSON of the arguments, occurrence, scope)``,
where ``occurrence`` counts identical ``(tool, args)`` calls earlier in the same
worker's sequence: two identical writes in one run are two entries, while the
*same* write reached by two hedged replicas, or by a re-execution after a
failure, is one entry.

As in ToolPro (section 3.3, algorithm 1) the log holds

* ``history`` (H): writes completed by earlier executions of this task, read
  back from the JSONL file when one is given, and
* ``working`` (W): writes completed by the current execution;
  :meth:`EffectLog.begin_execution` archives W into H.

Differences from the paper, because our executions can run concurrently
(hedged replicas, parallel workers):

* matching is by key, not "earliest unused entry": the occurrence index plays
  the role of ToolPro's ``used`` flags, and also matches across replicas of the
  *same* execution (they share W);
* a write is *claimed* before it is sent. One claimant sends; every other
  caller with the same key waits for the claimant's outcome and gets it back
  marked ``replayed=True``. A write is therefore sent at most once.

What a failed write does to its claim (only committed writes enter H):

* ``ok``: committed. Recorded in W (and the file); later callers replay it.
* failed in ``precondition`` or ``pre_check``: ``execute`` never ran, so nothing
  reached the site. The claim is released and nothing is recorded; a waiting
  caller (or a later re-execution) may send it.
* failed later (``execute``, ``navigation``, ``post_check``, ``output``,
  ``timeout``), or the sender was cancelled or lost the page mid-call: the site
  may or may not have the effect. Sending again could duplicate it, so the key
  is recorded as ``uncertain`` and never sent again by this log: a later caller
  gets a failed outcome (phase ``effect_log``) saying so. This is ToolPro's
  fail-closed rule; :meth:`EffectLog.forget` lets an operator who checked the
  site clear the entry.

With a ``path`` (a JSONL file) or a ``store`` (a URL: ``sqlite:///PATH``,
``postgresql://...``; see :mod:`.effectstore`), every claim is written ahead
(``claimed``) and its end (``committed`` / ``uncertain`` / ``released``) after.
A process that dies between the two leaves a ``claimed`` row; once its owner
is known to be gone (same host, pid gone; or an earlier log of this same
process) that key counts as ``uncertain``, never as free to send.

Across processes: a claim is atomic in the store, so every process that opens
the same store and ``namespace`` sends each write at most once. A caller whose
key another process holds polls the store until that claim ends (then replays
or refuses it, or claims it when it was released); a claim still open after
``claim_wait_s`` (its owner on another machine, hung or dead) is refused
fail-closed, never sent. In one process, share one log per run: a second log
over the same store and namespace takes the first's open claims for those of
a crashed run.

Replays and post_check: a replayed WRITE did not run on the replaying worker's
page, but the plan continues from that page as if it had. When the log is
bound to the worker's :class:`PlanRun` and ``verify_replays`` is on, the replay
brings the page to where the original write left it (a GET of the recorded
``url_after`` when the page is elsewhere; GETs are READs on these sites) and
runs the tool's post_check there with the recorded output. If it fails, the
replayed outcome is a failure (phase ``post_check``, ``replayed=True``): the
effect cannot be confirmed from this worker. A write without a recorded
``url_after`` (or a gate without a page) is replayed unverified.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentjit.exceptions import SiteUnreachable, ToolInputError, TraceError
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.trace import redact_args
from agentjit.protocol.urls import site_url

from .effectstore import HOST, EffectStore, JsonlStore, StoredRow, open_store, owner_alive
from .invoke import CallOutcome, run_post_check

if TYPE_CHECKING:
    from .interpreter import PlanRun

__all__ = ["EffectKey", "EffectRecord", "EffectLog", "EffectGate", "Claim", "NOT_SENT_PHASES", "canonical_args"]

log = logging.getLogger(__name__)

Status = Literal["committed", "uncertain"]

NOT_SENT_PHASES: frozenset[str] = frozenset({"precondition", "pre_check", "held"})
"""Failure phases of a write that cannot have reached the site: before ``execute`` ran, or ``held`` (its request was
held back before it left the page, and nothing else it started did: :class:`agentjit.runtime.healing.RequestWatch`)."""


def canonical_args(args: dict[str, Any]) -> str:
    """The arguments as canonical JSON (sorted keys, no spaces): half of an entry's identity."""
    try:
        return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ToolInputError(f"WRITE arguments are not plain JSON, cannot key the effect log: {exc}") from None


@dataclass(frozen=True)
class EffectKey:
    """One dynamic WRITE: which tool, which arguments, the how-many-th identical call."""

    tool: str
    args: str
    """Canonical JSON of the arguments (:func:`canonical_args`)."""
    occurrence: int = 0
    scope: str = ""
    """Separates sequences that must not share occurrence counts (empty for a whole plan)."""

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": self.args, "occurrence": self.occurrence, "scope": self.scope}


@dataclass
class EffectRecord:
    """A claimed write that ended: its outcome and whether the site surely has it."""

    key: EffectKey
    status: Status
    outcome: CallOutcome
    worker: int = 0
    execution: int = 0
    time: float = 0.0


class Claim:
    """The right to send one write. End it with exactly one of commit, release or abandon."""

    def __init__(self, log: EffectLog, key: EffectKey, future: asyncio.Future[EffectRecord | None], worker: int):
        self.log = log
        self.key = key
        self.worker = worker
        self._future = future

    @property
    def open(self) -> bool:
        return not self._future.done()

    def commit(self, outcome: CallOutcome) -> EffectRecord:
        """The write succeeded: record it; waiting callers replay it."""
        return self.log._finish(self, "committed", outcome)

    def abandon(self, outcome: CallOutcome) -> EffectRecord:
        """The write may have reached the site: record it as uncertain; it is never sent again."""
        return self.log._finish(self, "uncertain", outcome)

    def release(self) -> None:
        """The write was never sent: forget the claim; a waiting caller may claim it."""
        self.log._release(self)


class EffectLog:
    """The effect log of one task run; share it between every worker and replica of the run.

    ``path`` (optional) is a JSONL file that survives the process, so a
    re-execution after a crash replays instead of re-sending. ``clock`` stamps
    records (wall time by default).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        store: EffectStore | str | Path | None = None,
        namespace: str = "",
        verify_replays: bool = True,
        verify_timeout_ms: int | None = None,
        claim_wait_s: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if store is not None and path is not None:
            raise ValueError("EffectLog: give path (a JSONL file) or store, not both")
        if isinstance(store, str | Path):
            store = open_store(store)
        elif store is None and path is not None:
            store = JsonlStore(path)
        self.store: EffectStore | None = store
        self.path = Path(path) if path is not None else None
        self.namespace = namespace
        """The run (and task) this log's keys belong to in a shared store."""
        self.verify_replays = verify_replays
        self.verify_timeout_ms = verify_timeout_ms
        """How long a replay's post_check may poll (default: the run's or the tool's timeout)."""
        self.claim_wait_s = claim_wait_s
        """How long to wait for a claim another process holds before refusing the write."""
        self.clock = clock
        self.owner = f"{HOST}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        """Who this log's claims belong to in the store (host, pid, a token of this log)."""
        self.history: list[EffectRecord] = []
        self.working: list[EffectRecord] = []
        self.execution = 0
        self.sent = 0
        """Writes this log let through to the site (in this process)."""
        self.replays = 0
        """Writes answered from the log instead of being sent."""
        self.sessions: dict[EffectKey, list[dict[str, Any]]] = {}
        """The sender's cookies right after each committed write (in memory only, never in the
        store: they hold session tokens). A replay in another context restores them, so the
        session a write left (a login, a server-side cart) goes on in a re-execution."""
        self._records: dict[EffectKey, EffectRecord] = {}
        self._inflight: dict[EffectKey, asyncio.Future[EffectRecord | None]] = {}
        if self.store is not None:
            self._load()

    @classmethod
    def open(cls, url: str | Path, *, namespace: str = "", **options: Any) -> EffectLog:
        """The log kept at ``url``: ``sqlite:///PATH``, ``postgresql://...``, else a JSONL file's path."""
        return cls(store=open_store(url), namespace=namespace, **options)

    # -- the logs ------------------------------------------------------------------

    def begin_execution(self) -> None:
        """Start a (re-)execution: archive W into H (ToolPro's ONREEXECUTION)."""
        if self._inflight:
            raise RuntimeError("begin_execution while writes are in flight")
        self.history.extend(self.working)
        self.working = []
        self.execution += 1

    def lookup(self, key: EffectKey) -> EffectRecord | None:
        return self._records.get(key)

    @property
    def records(self) -> list[EffectRecord]:
        """H then W: every write this task run has recorded, in order."""
        return [*self.history, *self.working]

    def forget(self, key: EffectKey) -> None:
        """Drop ``key``'s record (an operator checked the site); the next caller sends it."""
        rec = self._records.pop(key, None)
        if rec is None:
            return
        for entries in (self.history, self.working):
            if rec in entries:
                entries.remove(rec)
        if self.store is not None:
            self.store.forget(self._row(key, "claimed"))

    # -- claiming --------------------------------------------------------------------

    async def claim(self, key: EffectKey, *, worker: int = 0) -> Claim | EffectRecord:
        """A :class:`Claim` if the caller must send the write, else the record to replay.

        Concurrent callers with the same key: the first gets the claim, the
        others wait (cancellation-safe) until it ends. If the claimant releases
        it, one of the waiters becomes the new claimant. A claim another process
        holds in the store is polled until it ends (at most ``claim_wait_s``).
        """
        waited_since: float | None = None
        pause = 0.02
        while True:
            rec = self._records.get(key)
            if rec is not None:
                return rec
            pending = self._inflight.get(key)
            if pending is not None:
                await asyncio.shield(pending)
                continue
            future: asyncio.Future[EffectRecord | None] = asyncio.get_running_loop().create_future()
            self._inflight[key] = future
            if self.store is None:
                return Claim(self, key, future, worker)
            try:
                there = self.store.try_claim(self._row(key, "claimed", worker=worker, time=self.clock()))
            except BaseException:
                self._inflight.pop(key, None)
                future.set_result(None)
                raise
            if there is None:
                return Claim(self, key, future, worker)
            self._inflight.pop(key, None)
            future.set_result(None)  # callers waiting on this attempt look again
            if there.status != "claimed":
                return self._put(self._record_of(there))
            if self._claim_dead(there):
                self._bury(there)
                continue
            now = time.monotonic()
            waited_since = now if waited_since is None else waited_since
            if now - waited_since > self.claim_wait_s:
                return self._refused(key, there)
            log.debug("write %s #%d is being sent by %s: waiting", key.tool, key.occurrence, there.owner)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.5)

    def _finish(self, claim: Claim, status: Status, outcome: CallOutcome) -> EffectRecord:
        if not claim.open:
            raise RuntimeError(f"claim for {claim.key} already ended")
        rec = EffectRecord(claim.key, status, outcome.model_copy(), claim.worker, self.execution, self.clock())
        self._records[claim.key] = rec
        self.working.append(rec)
        try:
            if self.store is not None and not self.store.end(self._row_of(rec)):
                log.warning("the claim of write %s #%d was taken from this log before it ended (%s); "
                            "recorded here only", claim.key.tool, claim.key.occurrence, status)  # fmt: skip
        finally:
            self._inflight.pop(claim.key, None)
            claim._future.set_result(rec)
        return rec

    def _release(self, claim: Claim) -> None:
        if not claim.open:
            raise RuntimeError(f"claim for {claim.key} already ended")
        try:
            if self.store is not None:
                self.store.release(self._row(claim.key, "claimed", time=self.clock()))
        finally:
            self._inflight.pop(claim.key, None)
            claim._future.set_result(None)

    # -- rows of the store -------------------------------------------------------------

    def _row(self, key: EffectKey, status: Any, *, owner: str | None = None, **fields: Any) -> StoredRow:
        return StoredRow(self.namespace, key.tool, key.args, key.occurrence, key.scope, status,
                         owner if owner is not None else self.owner, **fields)  # fmt: skip

    def _row_of(self, rec: EffectRecord) -> StoredRow:
        return self._row(rec.key, rec.status, worker=rec.worker, execution=rec.execution, time=rec.time,
                         outcome=rec.outcome.model_dump(mode="json"))  # fmt: skip

    def _record_of(self, row: StoredRow) -> EffectRecord:
        key = EffectKey(row.tool, row.args, row.occurrence, row.scope)
        try:
            outcome = CallOutcome.model_validate(row.outcome)
        except Exception as exc:
            url = self.store.url if self.store is not None else ""
            raise TraceError(f"bad outcome in effect log {url} for {row.tool}: {exc}") from None
        return EffectRecord(key, row.status, outcome, row.worker, row.execution, row.time)  # type: ignore[arg-type]

    def _claim_dead(self, row: StoredRow) -> bool:
        """Whether ``row``'s claimant surely stopped: a process gone from this host, an earlier
        log of this process (see the module's docstring) or a line written before owners were."""
        if row.owner == self.owner:
            return row.ident[1:] not in {(k.tool, k.args, k.occurrence, k.scope) for k in self._inflight}
        host, _, rest = row.owner.partition(":")
        if host == HOST and rest.partition(":")[0] == str(os.getpid()):
            return True
        return owner_alive(row.owner) is False

    def _bury(self, row: StoredRow) -> None:
        """Record a dead claim as uncertain (it may have reached the site)."""
        outcome = CallOutcome(tool=row.tool, ok=False, phase="interrupted",
                              reason="the process stopped while this write was being sent")  # fmt: skip
        log.warning("write %s #%d was claimed by %s, which stopped before it ended: uncertain",
                    row.tool, row.occurrence, row.owner)  # fmt: skip
        assert self.store is not None
        dead = StoredRow(row.namespace, row.tool, row.args, row.occurrence, row.scope, "uncertain", row.owner,
                         worker=row.worker, execution=row.execution, time=row.time,
                         outcome=outcome.model_dump(mode="json"))  # fmt: skip
        self.store.end(dead)

    def _refused(self, key: EffectKey, row: StoredRow) -> EffectRecord:
        """The fail-closed answer for a claim held elsewhere past ``claim_wait_s`` (not stored)."""
        outcome = CallOutcome(tool=key.tool, ok=False, phase="interrupted",
                              reason=f"claimed by {row.owner} and still being sent after {self.claim_wait_s:g} s")  # fmt: skip
        return EffectRecord(key, "uncertain", outcome, row.worker, row.execution, self.clock())

    # -- one write ------------------------------------------------------------------------

    async def write(
        self,
        key: EffectKey,
        send: Callable[[], Awaitable[CallOutcome]],
        *,
        worker: int = 0,
        page: Any = None,
    ) -> tuple[CallOutcome, EffectRecord | None]:
        """Send the write under a claim, or return a copy of its recorded outcome.

        Returns ``(outcome, record)`` where ``record`` is set when the outcome
        was replayed (not sent by this call). With the ``page`` the write is
        made on, a sent write keeps that context's cookies (:attr:`sessions`)
        and a replay puts the recorded ones into the page's context.
        """
        got = await self.claim(key, worker=worker)
        if isinstance(got, EffectRecord):
            self.replays += 1
            session = self.sessions.get(key)
            if got.status == "committed" and session and page is not None:  # the session it left: a login, say
                await _restore_cookies(page, session)
            return replayed_outcome(got), got
        claim = got
        self.sent += 1
        try:
            outcome = await send()
            if outcome.ok and page is not None:  # before the commit: a caller waiting on the claim finds them
                cookies = await context_cookies(page)
                if cookies:
                    self.sessions[key] = cookies
        except BaseException as exc:  # cancelled, page gone, site down: the effect may have landed
            interrupted = CallOutcome(
                tool=key.tool, ok=False, phase="interrupted", reason=f"{type(exc).__name__}: {exc}"
            )
            interrupted.start = interrupted.end = self.clock()
            claim.abandon(interrupted)
            raise
        if outcome.ok:
            claim.commit(outcome)
        elif outcome.phase in NOT_SENT_PHASES:
            claim.release()
        else:
            claim.abandon(outcome)
        return outcome, None

    def gate(self, run: PlanRun | None = None, *, worker: int | None = None, scope: str = "") -> EffectGate:
        """A fresh ``write_gate`` for one worker's call sequence (occurrence counts start at 0)."""
        return EffectGate(self, run, worker=worker, scope=scope)

    # -- persistence ------------------------------------------------------------------------

    def _load(self) -> None:
        """Read H back from the store; an open claim whose owner stopped becomes ``uncertain``."""
        assert self.store is not None
        for row in self.store.rows(self.namespace):
            if row.status == "claimed":
                if self._claim_dead(row):
                    self._bury(row)
                    outcome = CallOutcome(tool=row.tool, ok=False, phase="interrupted",
                                          reason="the process stopped while this write was being sent")  # fmt: skip
                    self._put(EffectRecord(EffectKey(row.tool, row.args, row.occurrence, row.scope), "uncertain",
                                           outcome, row.worker, 0, row.time))  # fmt: skip
                continue  # a live claim elsewhere: claim() waits for it
            self._put(self._record_of(row))
        if self.history:
            self.execution = max(r.execution for r in self.history)
        log.debug("effect log %s: %d records read back", self.store.url, len(self.history))

    def _put(self, rec: EffectRecord) -> EffectRecord:
        old = self._records.get(rec.key)
        if old is not None:
            self.history.remove(old)
        self._records[rec.key] = rec
        self.history.append(rec)
        return rec

    def close(self) -> None:
        """Close the store's connection."""
        if self.store is not None:
            self.store.close()


def replayed_outcome(rec: EffectRecord) -> CallOutcome:
    """What a caller gets for a recorded write: its outcome (or a fail-closed refusal), replayed."""
    now = time.time()
    if rec.status == "committed":
        out = rec.outcome.model_copy(update={"replayed": True, "start": now, "end": now, "timings": {}})
        return out
    was = rec.outcome.phase or "unknown phase"
    return CallOutcome(
        tool=rec.key.tool,
        ok=False,
        phase="effect_log",
        reason=(
            f"an earlier attempt of this write failed at {was} ({rec.outcome.reason}) and may have reached "
            "the site; not sent again (EffectLog.forget clears it after checking the site)"
        ),
        replayed=True,
        start=now,
        end=now,
    )


class EffectGate:
    """The ``write_gate`` of one worker: counts occurrences, claims, sends or replays.

    Bind it to the worker's :class:`PlanRun` (``gate.bind(run)``) so replays
    can be checked on that run's page.
    """

    def __init__(self, log: EffectLog, run: PlanRun | None = None, *, worker: int | None = None, scope: str = ""):
        self.log = log
        self.run = run
        self.worker = worker
        self.scope = scope
        self.counts: Counter[tuple[str, str]] = Counter()

    def bind(self, run: PlanRun) -> EffectGate:
        self.run = run
        return self

    def key(self, tool: str, args: dict[str, Any]) -> EffectKey:
        """The key of the next call of ``tool(args)`` in this sequence (advances the count)."""
        canon = canonical_args(args)
        n = self.counts[(tool, canon)]
        self.counts[(tool, canon)] = n + 1
        return EffectKey(tool, canon, n, self.scope)

    async def __call__(
        self, tool: ToolManifest, args: dict[str, Any], perform: Callable[[], Awaitable[CallOutcome]]
    ) -> CallOutcome:
        key = self.key(tool.name, redact_args(args, tool.secret_inputs))  # a store keeps keys: never a secret
        worker = self.worker if self.worker is not None else (self.run.worker if self.run is not None else 0)
        run = self.run
        outcome, record = await self.log.write(key, perform, worker=worker, page=run.page if run is not None else None)
        if record is None:
            return outcome
        log.info("write %s(%s) #%d replayed from the effect log (worker %d)", key.tool, key.args, key.occurrence, worker)
        if outcome.ok and self.log.verify_replays and run is not None:
            outcome = await verify_replay(run, tool, args, outcome, timeout_ms=self.log.verify_timeout_ms)
        return outcome


async def context_cookies(page: Any) -> list[dict[str, Any]]:
    """The cookies of ``page``'s context ([] for a page without one, or a context that is closing)."""
    try:
        return list(await page.context.cookies())
    except Exception as exc:  # noqa: BLE001 - a fake page, or a context closing under us
        log.debug("cannot read the context's cookies: %s", exc)
        return []


async def _restore_cookies(page: Any, cookies: list[dict[str, Any]]) -> None:
    try:
        await page.context.add_cookies(cookies)
    except Exception as exc:  # noqa: BLE001 - the replay goes on; its post_check says whether the page agrees
        log.warning("cannot restore the session of a replayed write: %s", exc)


async def verify_replay(
    run: PlanRun, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome, *, timeout_ms: int | None = None
) -> CallOutcome:
    """Bring ``run``'s page to where the recorded write left it and run the tool's post_check there."""
    target = outcome.url_after
    if not target:
        return outcome.model_copy(update={"reason": "replayed without verification (no recorded page)"})
    page = run.page
    start = time.time()
    try:
        if page.url != target:
            # the log is a file: its page may not lead off the site the run is on
            target = site_url(page.url, target, keep_host=True)
            await page.goto(target, wait_until="domcontentloaded", timeout=run.timeout_ms or tool.timeout_ms)
        check = await run_post_check(page, tool, args, outcome.output, timeout_ms=timeout_ms or run.timeout_ms)
    except SiteUnreachable:
        raise
    except Exception as exc:  # Playwright navigation errors: the page cannot show the effect
        check = CallOutcome(tool=tool.name, ok=False, phase="post_check", reason=f"cannot open {target}: {exc}")
    end = time.time()
    if check.ok:
        return outcome.model_copy(update={"start": start, "end": end, "url_before": target, "url_after": target,
                                          "timings": check.timings})
    return outcome.model_copy(
        update={
            "ok": False,
            "phase": "post_check",
            "reason": f"replayed write not confirmed on this page: {check.reason}",
            "start": start,
            "end": end,
        }
    )
