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

With a ``path``, every claim is written ahead (``claimed``) and its end
(``committed`` / ``uncertain`` / ``released``) after, each line fsynced. A
process that dies between the two leaves a ``claimed`` line; on reload that
key counts as ``uncertain``, never as free to send.

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
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentjit.exceptions import SiteUnreachable, ToolInputError, TraceError
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.urls import site_url

from .invoke import CallOutcome, run_post_check

if TYPE_CHECKING:
    from .interpreter import PlanRun

__all__ = ["EffectKey", "EffectRecord", "EffectLog", "EffectGate", "Claim", "NOT_SENT_PHASES", "canonical_args"]

log = logging.getLogger(__name__)

Status = Literal["committed", "uncertain"]

NOT_SENT_PHASES: frozenset[str] = frozenset({"precondition", "pre_check"})
"""Failure phases before ``execute`` ran: the write cannot have reached the site."""


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
        verify_replays: bool = True,
        verify_timeout_ms: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.verify_replays = verify_replays
        self.verify_timeout_ms = verify_timeout_ms
        """How long a replay's post_check may poll (default: the run's or the tool's timeout)."""
        self.clock = clock
        self.history: list[EffectRecord] = []
        self.working: list[EffectRecord] = []
        self.execution = 0
        self.sent = 0
        """Writes this log let through to the site (in this process)."""
        self.replays = 0
        """Writes answered from the log instead of being sent."""
        self.sessions: dict[EffectKey, list[dict[str, Any]]] = {}
        """The sender's cookies right after each committed write (in memory only, never in the
        file: they hold session tokens). A replay in another context restores them, so the
        session a write left (a login, a server-side cart) goes on in a re-execution."""
        self._records: dict[EffectKey, EffectRecord] = {}
        self._inflight: dict[EffectKey, asyncio.Future[EffectRecord | None]] = {}
        if self.path is not None and self.path.exists():
            self._load(self.path)

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
        self._append({"event": "forgotten", **key.to_json()})

    # -- claiming --------------------------------------------------------------------

    async def claim(self, key: EffectKey, *, worker: int = 0) -> Claim | EffectRecord:
        """A :class:`Claim` if the caller must send the write, else the record to replay.

        Concurrent callers with the same key: the first gets the claim, the
        others wait (cancellation-safe) until it ends. If the claimant releases
        it, one of the waiters becomes the new claimant.
        """
        while True:
            rec = self._records.get(key)
            if rec is not None:
                return rec
            pending = self._inflight.get(key)
            if pending is None:
                future: asyncio.Future[EffectRecord | None] = asyncio.get_running_loop().create_future()
                self._inflight[key] = future
                self._append({"event": "claimed", **key.to_json(), "worker": worker, "time": self.clock()})
                return Claim(self, key, future, worker)
            await asyncio.shield(pending)

    def _finish(self, claim: Claim, status: Status, outcome: CallOutcome) -> EffectRecord:
        if not claim.open:
            raise RuntimeError(f"claim for {claim.key} already ended")
        rec = EffectRecord(claim.key, status, outcome.model_copy(), claim.worker, self.execution, self.clock())
        self._records[claim.key] = rec
        self.working.append(rec)
        self._append(
            {
                "event": status,
                **claim.key.to_json(),
                "worker": rec.worker,
                "execution": rec.execution,
                "time": rec.time,
                "outcome": outcome.model_dump(mode="json"),
            }
        )
        self._inflight.pop(claim.key, None)
        claim._future.set_result(rec)
        return rec

    def _release(self, claim: Claim) -> None:
        if not claim.open:
            raise RuntimeError(f"claim for {claim.key} already ended")
        self._append({"event": "released", **claim.key.to_json(), "time": self.clock()})
        self._inflight.pop(claim.key, None)
        claim._future.set_result(None)

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

    def _append(self, entry: dict[str, Any]) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(entry, ensure_ascii=False, default=str) + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def _load(self, path: Path) -> None:
        """Read H back; a ``claimed`` line with no end becomes ``uncertain`` (crash mid-write)."""
        pending: dict[EffectKey, dict[str, Any]] = {}
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    key = EffectKey(entry["tool"], entry["args"], int(entry["occurrence"]), entry.get("scope", ""))
                    event = entry["event"]
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                    raise TraceError(f"bad effect log entry: {exc}", path=str(path), line=lineno) from None
                if event == "claimed":
                    pending[key] = entry
                elif event == "released":
                    pending.pop(key, None)
                elif event in ("committed", "uncertain"):
                    pending.pop(key, None)
                    try:
                        outcome = CallOutcome.model_validate(entry["outcome"])
                    except Exception as exc:
                        raise TraceError(f"bad outcome in effect log: {exc}", path=str(path), line=lineno) from None
                    self._put(EffectRecord(key, event, outcome, entry.get("worker", 0), entry.get("execution", 0),
                                           entry.get("time", 0.0)))
                elif event == "forgotten":
                    pending.pop(key, None)
                    rec = self._records.pop(key, None)
                    if rec is not None:
                        self.history.remove(rec)
                else:
                    raise TraceError(f"unknown effect log event {event!r}", path=str(path), line=lineno)
        for key, entry in pending.items():
            outcome = CallOutcome(
                tool=key.tool, ok=False, phase="interrupted",
                reason="the process stopped while this write was being sent",
            )  # fmt: skip
            self._put(EffectRecord(key, "uncertain", outcome, entry.get("worker", 0), 0, entry.get("time", 0.0)))
        if self.history:
            self.execution = max(r.execution for r in self.history)
        log.debug("effect log %s: %d records read back", path, len(self.history))

    def _put(self, rec: EffectRecord) -> None:
        old = self._records.get(rec.key)
        if old is not None:
            self.history.remove(old)
        self._records[rec.key] = rec
        self.history.append(rec)


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
        key = self.key(tool.name, args)
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
