"""``agentjit bench faults``: exactly-once WRITEs under injected faults, judged from the site's own state.

Every run of the matrix is one (strategy, fault, task, target):

* strategy: ``serial`` (one worker), ``parallel`` (two workers over the plan's
  main loop) or ``hedge`` (two replicas), each under an
  :class:`~agentjit.runtime.EffectLog` kept in a JSONL file. A run that fails
  is re-executed (up to ``attempts`` executions), each time with the log read
  back from its file, as a new process would after a crash; committed writes
  are replayed, not sent. It stops early once the log holds a write whose
  attempt may have reached the site (*uncertain*: ToolPro's fail-closed rule
  never sends it again, so no re-execution can finish the task).
* fault (:mod:`agentjit.bench.faults`): HTTP 500, a timeout (the request held
  past the tool's timeout), a dropped connection, the browser context that
  sent the request closed (``kill``: a parallel worker or the leading hedged
  replica dies mid-write), Chromium's process killed (``crash``), the site
  restarted on its port with its state kept (``restart``); each ``before``
  the site applies the request or ``after``.
* target: the request the fault hits: the task's first WRITE, its last WRITE,
  or a page read after a write (so a re-execution must replay a committed
  write, never send it again).

The verdict of a run comes from the site's own state (the food site's
``/__state`` write log, Roundup's database, Fava's ledger), never from what the
client believes:

* ``duplicated``: effects the site applied more often than the task asks;
* ``lost``: writes the run reports done (every write of a run that succeeded;
  the log's committed writes of one that failed) that the site lacks;
* ``unaccounted``: effects the site has that the effect log never sent (neither
  committed nor uncertain): a write the log believes unsent reached the site;
* ``uncertain``: writes the log holds as uncertain; a run ending with one must
  fail (``uncertain_silent`` counts runs that claimed success instead).

Pass: 0 duplicated, 0 lost, 0 unaccounted, 0 silent uncertain writes.
``effect_log=False`` runs the same matrix with a fresh, empty log per
execution (the baseline without exactly-once), where re-executions duplicate.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache
from agentjit.exceptions import AgentJITError, ConfigError, SiteUnreachable, ToolCallFailed
from agentjit.runtime import (
    BrowserPool,
    EffectLog,
    HedgeStrategy,
    ParallelStrategy,
    PlanRun,
    Runtime,
    Strategy,
)

from .faults import CLIENT_HEADER, FaultEvent, FaultInjector, FaultRule, chromium_pids, kill_pids

__all__ = [
    "FaultSpec",
    "Target",
    "FaultTask",
    "RunRecord",
    "FaultReport",
    "FAULTS",
    "STRATEGIES",
    "run_fault_matrix",
    "matrix",
    "food_profile",
    "roundup_profile",
    "fava_profile",
    "PROFILES",
]

log = logging.getLogger(__name__)

STRATEGIES: tuple[str, ...] = ("serial", "parallel", "hedge")
DEFAULT_RUNS = 108
"""Faulted runs of `agentjit bench faults` by default: every (strategy, fault) pair three times."""
Identity = tuple[str, ...]
"""What a write does to the site, comparable between the site's state and the effect log's keys."""


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    when: str

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.when}"


FAULTS: tuple[FaultSpec, ...] = tuple(
    FaultSpec(kind, when) for kind in ("500", "timeout", "drop", "kill", "crash", "restart") for when in ("before", "after")
)


@dataclass(frozen=True)
class Target:
    """The request a fault hits: ``method`` on a path matching ``path``, the ``nth`` such request."""

    name: str
    path: str
    method: str = "POST"
    nth: int = 1


@dataclass(frozen=True)
class FaultTask:
    """A plan that writes, the site effects it means (``writes``), and where faults may hit it."""

    id: str
    source: str
    writes: dict[Identity, int]
    targets: tuple[Target, ...]


@dataclass
class Profile:
    """How the bench drives one app: its tasks per strategy, its site, and how to read effects."""

    app: str
    tasks: dict[str, list[FaultTask]]
    start_site: Callable[[], Any]
    """Start the site with a :class:`FaultInjector` on ``site.faults``; returns the started site."""
    site_effects: Callable[[Any, dict[str, Any], dict[str, Any]], Counter[Identity]]
    """(site, state before, state after) -> the effects the site applied during the run."""
    key_identity: Callable[[str, dict[str, Any]], Identity | None]
    """(tool, args) of an effect-log key -> its identity (None: not judged, e.g. a login)."""
    cache: Callable[[], ToolCache]
    kinds: tuple[str, ...] = ("500", "timeout", "drop", "kill", "crash", "restart")


# -- the food site -----------------------------------------------------------------------------


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower().replace("&", "and"))


_FOOD_ORDER = """\
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Mochi Set", quantity=2)
await goto_cart()
await goto_checkout()
order = await place_order(mode="pickup")
result = order.order_id
"""

_FOOD_CART = """\
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Iced Matcha Latte", customizations="Size:Large,Milk:Oat")
await add_to_cart(item_name="Matcha Croissant")
await goto_cart()
cart = await view_cart()
result = len(cart.lines)
"""

_FOOD_ORDER_READS = """\
await goto_store(name="Stonemill Matcha")
await add_to_cart(item_name="Mochi Set", quantity=2)
await goto_home()
stores = await list_stores(section="Best near you", limit=3)
counts = []
for store in stores.items:
    await goto_store(name=store.name)
    details = await get_store_details()
    counts.append(details.review_count)
await goto_cart()
await goto_checkout()
order = await place_order(mode="pickup")
result = f"{order.order_id}: {sum(counts)} reviews"
"""

_ADD = ("add_to_cart",)
_FIRST_ADD = Target("first-write", "/api/cart")
_PLACE = Target("last-write", "/checkout/place")
_CART_PAGE = Target("read-after-write", "/cart", "GET")


def _food_tasks() -> dict[str, list[FaultTask]]:
    order = FaultTask("order-pickup", _FOOD_ORDER, {(*_ADD, "mochiset"): 1, ("place_order",): 1},
                      (_FIRST_ADD, _CART_PAGE, _PLACE))
    cart = FaultTask("cart-two", _FOOD_CART, {(*_ADD, "icedmatchalatte"): 1, (*_ADD, "matchacroissant"): 1},
                     (_FIRST_ADD, _CART_PAGE, Target("last-write", "/api/cart", nth=2)))
    reads = FaultTask("order-with-reads", _FOOD_ORDER_READS, {(*_ADD, "mochiset"): 1, ("place_order",): 1},
                      (_FIRST_ADD, Target("read-in-loop", "/store/.+", "GET", nth=3), _PLACE))
    return {"serial": [order, cart], "parallel": [reads], "hedge": [order, cart]}


def _food_site_effects(site: Any, before: dict[str, Any], after: dict[str, Any]) -> Counter[Identity]:
    """The writes the food site applied: its own write log (each entry after the handler ran)."""
    from .food.data import BY_SLUG

    done: Counter[Identity] = Counter()
    for entry in after.get("log", [])[len(before.get("log", [])):]:
        if entry.get("method") != "POST" or int(entry.get("status", 500)) >= 400:
            continue
        body = entry.get("body") if isinstance(entry.get("body"), dict) else {}
        if entry.get("path") == "/api/cart":
            store = BY_SLUG.get(str(body.get("store", "")))
            item = store.item(str(body.get("item_id", ""))) if store is not None else None
            done[(*_ADD, _norm(item.name if item is not None else body.get("item_id")))] += 1
        elif entry.get("path") == "/checkout/place":
            done[("place_order",)] += 1
        else:
            done[("POST", str(entry.get("path")))] += 1
    return done


def _food_identity(tool: str, args: dict[str, Any]) -> Identity | None:
    if tool == "add_to_cart":
        return (*_ADD, _norm(args.get("item_name")))
    if tool == "place_order":
        return ("place_order",)
    return (tool, json.dumps(args, sort_keys=True))


def _start_food() -> Any:
    from .food import FoodSite

    return FoodSite(latency_scale=0).start()


def _food_cache() -> ToolCache:
    from .food import CACHE_DIR

    return ToolCache.load(CACHE_DIR)


def food_profile() -> Profile:
    return Profile("food", _food_tasks(), _start_food, _food_site_effects, _food_identity, _food_cache)


# -- Roundup and Fava: real apps, faults from WSGI middleware in front of them ------------------

_ROUNDUP_LOGIN = 'await login(login_name="alice", login_password="demo-pass-1")\n'
_ROUNDUP_CREATE = _ROUNDUP_LOGIN + """\
await goto_issue_item()
await create_issue(title="Export button missing on mobile", priority="bug", note="The export button is hidden.")
result = "filed"
"""
_ROUNDUP_NOTE = _ROUNDUP_LOGIN + """\
await goto_issue(title="Spell checker flags URLs")
await edit_issue(note="Fixed in the next release.")
result = "done"
"""
_LOGIN = Target("login-write", "/", "POST")


def _roundup_tasks() -> dict[str, list[FaultTask]]:
    create = FaultTask("create-issue", _ROUNDUP_CREATE, {("create_issue", _norm("Export button missing on mobile")): 1},
                       (_LOGIN, Target("last-write", r"/issue\d*"), Target("read-after-write", r"/issue\d+", "GET")))
    note = FaultTask("add-message", _ROUNDUP_NOTE, {("edit_issue", _norm("Fixed in the next release.")): 1},
                     (_LOGIN, Target("last-write", r"/issue\d+"), Target("read-after-write", r"/issue\d+", "GET", nth=2)))
    # no loop: the parallel strategy runs these serially (and says so); hedged replicas race to the login
    return {"serial": [create, note], "parallel": [note, create], "hedge": [create, note]}


def _roundup_effects(site: Any, before: dict[str, Any], after: dict[str, Any]) -> Counter[Identity]:
    """New issues (by title) and new messages (by text) in the tracker's own database."""
    done: Counter[Identity] = Counter()
    old_issues = {i["id"] for i in before["issues"]}
    old_msgs = {m["id"] for i in before["issues"] for m in i["messages"]}
    for issue in after["issues"]:
        if issue["id"] not in old_issues:
            done[("create_issue", _norm(issue["title"]))] += 1
            continue
        for msg in issue["messages"]:
            if msg["id"] not in old_msgs:
                done[("edit_issue", _norm(msg["content"]))] += 1
    return done


def _roundup_identity(tool: str, args: dict[str, Any]) -> Identity | None:
    if tool == "create_issue":
        return ("create_issue", _norm(args.get("title")))
    if tool == "edit_issue" and args.get("note"):
        return ("edit_issue", _norm(args.get("note")))
    return None  # a login, or an edit that only sets fields (applying it twice leaves the same state)


def _start_wsgi(factory: Callable[[], Any]) -> Any:
    from .faults import install_wsgi_faults

    site = factory().start()
    install_wsgi_faults(site)
    return site


def roundup_profile() -> Profile:
    from agentjit.tasks.apps import get_app

    from .roundup import RoundupSite

    return Profile("roundup", _roundup_tasks(), lambda: _start_wsgi(RoundupSite), _roundup_effects,
                   _roundup_identity, get_app("roundup").load_cache, kinds=("500", "timeout", "kill", "crash"))


_FAVA_LUNCH = """\
await open_add_journal_entry()
result = await add_journal_entry(date="2025-12-30", payee="Corner Deli", narration="Team lunch", lines=[
    {"account": "Expenses:Food:Restaurant", "amount": "24.50 USD"},
    {"account": "Liabilities:US:Chase:Slate", "amount": "-24.50 USD"},
])
"""


def _fava_tasks() -> dict[str, list[FaultTask]]:
    lunch = FaultTask("add-lunch", _FAVA_LUNCH, {("add_journal_entry", "cornerdeli", "teamlunch"): 1},
                      (Target("write", r".*/api/add_entries", "PUT"),))
    return {"serial": [lunch], "parallel": [lunch], "hedge": [lunch]}


def _fava_effects(site: Any, before: dict[str, Any], after: dict[str, Any]) -> Counter[Identity]:
    """Transactions the ledger file gained, by payee and narration (read with beancount's loader)."""
    def key(t: dict[str, Any]) -> Identity:
        return ("add_journal_entry", _norm(t["payee"]), _norm(t["narration"]))

    done = Counter(key(t) for t in after["transactions"])
    done.subtract(Counter(key(t) for t in before["transactions"]))
    return Counter({k: v for k, v in done.items() if v > 0})


def _fava_identity(tool: str, args: dict[str, Any]) -> Identity | None:
    if tool == "add_journal_entry":
        return ("add_journal_entry", _norm(args.get("payee")), _norm(args.get("narration")))
    return None


def fava_profile() -> Profile:
    from agentjit.tasks.apps import get_app

    from .fava import FavaSite

    return Profile("fava", _fava_tasks(), lambda: _start_wsgi(FavaSite), _fava_effects, _fava_identity,
                   get_app("fava").load_cache, kinds=("500", "timeout", "kill", "crash"))


PROFILES: dict[str, Callable[[], Profile]] = {"food": food_profile, "roundup": roundup_profile, "fava": fava_profile}


# -- the matrix --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    strategy: str
    fault: FaultSpec
    task: FaultTask
    target: Target


def matrix(profile: Profile, runs: int, *, strategies: Sequence[str] = STRATEGIES,
           faults: Sequence[FaultSpec] = FAULTS) -> list[Cell]:
    """``runs`` cells of the matrix, in an order that covers it early.

    Pass ``p`` walks the faults with the strategy rotating (fault ``i`` gets
    strategy ``(i + p) mod S``), so the first ``len(faults)`` runs hit every
    fault once and the first ``len(faults) * S`` every (strategy, fault) pair;
    each strategy's (task, target) variants rotate from pass to pass.
    """
    faults = [f for f in faults if f.kind in profile.kinds]
    if not faults or not strategies:
        raise ConfigError("the fault matrix is empty: no strategy or no fault kind this app supports")
    variants: dict[str, list[tuple[FaultTask, Target]]] = {
        s: [(t, target) for t in profile.tasks[s] for target in t.targets] for s in strategies
    }
    cells: list[Cell] = []
    p = 0
    while len(cells) < runs:
        for i, fault in enumerate(faults):
            s = strategies[(i + p) % len(strategies)]
            options = variants[s]
            task, target = options[(i + p // len(strategies)) % len(options)]
            cells.append(Cell(s, fault, task, target))
            if len(cells) >= runs:
                break
        p += 1
    return cells


@dataclass
class RunRecord:
    """One faulted run and its verdict, from the site's state and the effect log's file."""

    strategy: str
    fault: str
    task: str
    target: str
    executions: int
    status: str
    """``ok``, ``uncertain`` (failed, with writes the log holds uncertain), ``failed`` (a clear
    agentjit error), ``unclear`` (failed with an error that is not agentjit's)."""
    faults_injected: int
    duplicated: int
    lost: int
    unaccounted: int
    uncertain: int
    uncertain_silent: int
    site: dict[str, int]
    committed: dict[str, int]
    errors: list[str]
    wall_s: float

    @property
    def clean(self) -> bool:
        return not (self.duplicated or self.lost or self.unaccounted or self.uncertain_silent)


@dataclass
class FaultReport:
    app: str
    effect_log: bool
    runs: list[RunRecord]
    wall_s: float
    browser: str = ""

    def cells(self) -> list[dict[str, Any]]:
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for r in self.runs:
            c = out.setdefault((r.strategy, r.fault), {"strategy": r.strategy, "fault": r.fault, **_zero()})
            _add(c, r)
        return list(out.values())

    def totals(self) -> dict[str, Any]:
        t = _zero()
        for r in self.runs:
            _add(t, r)
        return t

    @property
    def passed(self) -> bool:
        t = self.totals()
        return not (t["duplicated"] or t["lost"] or t["unaccounted"] or t["uncertain_silent"])

    def to_json(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "effect_log": self.effect_log,
            "browser": self.browser,
            "wall_s": round(self.wall_s, 1),
            "passed": self.passed,
            "totals": self.totals(),
            "cells": self.cells(),
            "runs": [asdict(r) for r in self.runs],
        }


def _zero() -> dict[str, int]:
    keys = ("runs", "faulted_runs", "faults_injected", "duplicated", "lost", "unaccounted", "uncertain",
            "uncertain_reported", "uncertain_silent", "ok", "failed_clean", "unclear", "executions")
    return dict.fromkeys(keys, 0)


def _add(c: dict[str, int], r: RunRecord) -> None:
    c["runs"] += 1
    c["faulted_runs"] += r.faults_injected > 0
    c["faults_injected"] += r.faults_injected
    c["duplicated"] += r.duplicated
    c["lost"] += r.lost
    c["unaccounted"] += r.unaccounted
    c["uncertain"] += r.uncertain
    c["uncertain_reported"] += r.status == "uncertain"
    c["uncertain_silent"] += r.uncertain_silent
    c["ok"] += r.status == "ok"
    c["failed_clean"] += r.status in ("uncertain", "failed")
    c["unclear"] += r.status == "unclear"
    c["executions"] += r.executions


# -- running ---------------------------------------------------------------------------------


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for e in exc.exceptions:
            yield from _leaves(e)
    else:
        yield exc


def refused_by_log(exc: BaseException) -> bool:
    """Did the effect log refuse an uncertain write (re-executing again cannot help)?"""
    for e in _leaves(exc):
        outcome = getattr(e, "outcome", None)
        if isinstance(e, ToolCallFailed) and outcome is not None and outcome.phase == "effect_log":
            return True
    return False


def _holds_uncertain(path: Path) -> bool:
    return any(rec.status == "uncertain" for rec in EffectLog(path).records)


def _is_clear(exc: BaseException) -> bool:
    return all(isinstance(e, AgentJITError) for e in _leaves(exc))


def _describe(exc: BaseException) -> str:
    parts = [f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}" for e in _leaves(exc)]
    return "; ".join(parts)[:500]


class _Browser:
    """The bench's own Chromium: restarted after a crash; its pids known so ``crash`` can kill it."""

    def __init__(self) -> None:
        self.pool: BrowserPool | None = None
        self.pids: set[int] = set()
        self.restarts = 0

    async def ensure(self) -> BrowserPool:
        if self.pool is not None and self.pool.browser.is_connected():
            return self.pool
        if self.pool is not None:
            self.restarts += 1
            try:
                await self.pool.close()
            except Exception:  # the browser is gone; closing the driver may complain
                log.debug("closing the crashed pool failed", exc_info=True)
        before = chromium_pids()
        self.pool = await BrowserPool.from_spec().start()
        self.pids = set() if self.pool.remote else chromium_pids() - before
        return self.pool

    def crash(self) -> list[int]:
        return kill_pids(self.pids)

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None


class _TaggedRuntime(Runtime):
    """A runtime whose every context sends :data:`CLIENT_HEADER`, so a ``kill`` fault can close
    the very context that sent the faulted request."""

    def __init__(self, *args: Any, client_prefix: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.contexts: dict[str, Any] = {}
        self.client_prefix = client_prefix
        """Put before every client name (a worker process's ``PID:``, so the harness knows whom to kill)."""
        self._n = 0

    @asynccontextmanager
    async def worker(self, **kwargs: Any) -> AsyncIterator[PlanRun]:
        async with super().worker(**kwargs) as run:
            self._n += 1
            client = f"{self.client_prefix}w{kwargs.get('worker', 0)}-{self._n}"
            context = run.page.context
            await context.set_extra_http_headers({CLIENT_HEADER: client})
            self.contexts[client] = context
            try:
                yield run
            finally:
                self.contexts.pop(client, None)


def _strategy(name: str, effects: EffectLog) -> Strategy:
    from agentjit.scheduler.usage import plan_usage

    if name == "serial":  # one worker: the runtime's serial run, under the effect log
        return ParallelStrategy(1, analyse=plan_usage, effects=effects)
    if name == "parallel":
        return ParallelStrategy(2, analyse=plan_usage, effects=effects)
    if name == "hedge":
        return HedgeStrategy(2, effects=effects)
    raise ConfigError(f"unknown strategy {name!r} (known: {', '.join(STRATEGIES)})")


async def run_fault_matrix(
    app: str | Profile = "food",
    *,
    runs: int = DEFAULT_RUNS,
    strategies: Sequence[str] = STRATEGIES,
    faults: Sequence[FaultSpec] = FAULTS,
    attempts: int = 3,
    effect_log: bool = True,
    tool_timeout_ms: int = 2000,
    on_run: Callable[[int, int, RunRecord], None] | None = None,
) -> FaultReport:
    """Run ``runs`` cells of the fault matrix on ``app`` and judge each from the site's state.

    ``attempts`` bounds the executions of one run; ``tool_timeout_ms`` is the
    tools' timeout (a ``timeout`` fault holds its request past it).
    """
    if isinstance(app, str) and app not in PROFILES:
        raise ConfigError(f"no fault profile for app {app!r} (known: {', '.join(PROFILES)})")
    profile = PROFILES[app]() if isinstance(app, str) else app
    cells = matrix(profile, runs, strategies=strategies, faults=faults)
    cache = profile.cache()
    from agentjit.planner import admit

    for tasks in profile.tasks.values():
        for task in tasks:
            admit(task.source, cache, origin=f"fault task {task.id}")
    browser = _Browser()
    site = profile.start_site()
    injector: FaultInjector = site.faults
    loop = asyncio.get_running_loop()
    runtime: _TaggedRuntime | None = None

    def on_fault(rule: FaultRule, event: FaultEvent) -> None:  # in the site's request thread
        if rule.kind == "crash":
            killed = browser.crash()
            log.info("crash fault: killed Chromium %s", killed)
        elif rule.kind == "kill" and runtime is not None:
            context = runtime.contexts.get(event.client or "")
            if context is None:
                log.warning("kill fault: no open context sent %s %s (client %s)", event.method, event.path, event.client)
                return
            asyncio.run_coroutine_threadsafe(_close(context), loop).result(timeout=10)

    injector.on_fault = on_fault
    records: list[RunRecord] = []
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="agentjit-faults-") as tmp:
            for i, cell in enumerate(cells):
                pool = await browser.ensure()
                runtime = _TaggedRuntime(cache, site.url, pool=pool, tool_timeout_ms=tool_timeout_ms)
                record = await _one_run(profile, site, injector, browser, runtime, cell, Path(tmp) / f"run-{i}.jsonl",
                                        attempts=attempts, effect_log=effect_log, hang_s=3 * tool_timeout_ms / 1000 + 8)
                records.append(record)
                if on_run is not None:
                    on_run(i + 1, len(cells), record)
            version = browser.pool.version if browser.pool is not None else ""
    finally:
        injector.on_fault = None
        injector.clear()
        await browser.close()
        site.stop()
    return FaultReport(profile.app, effect_log, records, time.perf_counter() - t0, version)


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        body: bytes = response.read()
        return body


async def _wait_up(url: str, timeout_s: float = 30.0) -> None:
    """Wait until the site answers ``GET /__faults`` (its fault hook), or raise SiteUnreachable."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            await asyncio.to_thread(_get, url.rstrip("/") + "/__faults")
            return
        except OSError as exc:
            if time.monotonic() > deadline:
                raise SiteUnreachable(f"the site at {url} did not come back within {timeout_s:g} s: {exc}") from exc
            await asyncio.sleep(0.1)


async def _close(context: Any) -> None:
    try:
        await context.close()
    except Exception:  # already closing
        log.debug("closing a killed context failed", exc_info=True)


async def arm_site(site: Any, injector: FaultInjector, cell: Cell, hang_s: float) -> Any:
    """Make ``site`` ready for ``cell``'s run: up again, reset, its fault armed; the state before it."""
    await _wait_up(site.url)  # a `restart` fault of the run before may still be bringing the site back
    site.reset()
    hold = hang_s if cell.fault.kind == "timeout" else 3.0
    injector.set([FaultRule(cell.target.path, cell.fault.kind, cell.fault.when,  # type: ignore[arg-type]
                            cell.target.method, cell.target.nth, hang_s=hold)])
    return site.state()


async def _one_run(
    profile: Profile, site: Any, injector: FaultInjector, browser: _Browser, runtime: _TaggedRuntime, cell: Cell,
    log_path: Path, *, attempts: int, effect_log: bool, hang_s: float,
) -> RunRecord:
    t0 = time.perf_counter()
    before = await arm_site(site, injector, cell, hang_s)
    errors: list[str] = []
    status = "failed"
    executions = 0
    effects = EffectLog()
    for _ in range(attempts):
        executions += 1
        effects = EffectLog(log_path) if effect_log else EffectLog()
        runtime.pool = await browser.ensure()
        try:
            await runtime.run(cell.task.source, strategy=_strategy(cell.strategy, effects), task=cell.task.id)
        except Exception as exc:  # ExceptionGroup included: every hedged replica failed
            errors.append(_describe(exc))
            status = "failed" if _is_clear(exc) else "unclear"
            if refused_by_log(exc) or (effect_log and _holds_uncertain(log_path)):
                break  # the run cannot finish without sending an uncertain write again: stop, report it
            continue
        status = "ok"
        break
    injected = len(injector.snapshot()["injected"])
    injector.clear()  # let held requests go before the next run
    await asyncio.sleep(0.05)
    after = site.state()
    final = EffectLog(log_path) if effect_log else effects
    return judge_run(profile, cell, site, before, after, [(r.key.tool, r.key.args, r.status) for r in final.records],
                     status=status, executions=executions, injected=injected, effect_log=effect_log, errors=errors,
                     wall_s=time.perf_counter() - t0)  # fmt: skip


def judge_run(
    profile: Profile, cell: Cell, site: Any, before: dict[str, Any], after: dict[str, Any],
    writes: Iterable[tuple[str, str, str]], *, status: str, executions: int, injected: int, effect_log: bool,
    errors: list[str], wall_s: float,
) -> RunRecord:
    """The verdict of one run from the site's state ``before`` and ``after`` it and the effect log's
    ``writes`` (tool, canonical arguments, status; a claim still open counts as uncertain: its
    process is gone)."""
    applied = profile.site_effects(site, before, after)
    committed: Counter[Identity] = Counter()
    uncertain: Counter[Identity] = Counter()
    for tool, args, rec_status in writes:
        ident = profile.key_identity(tool, json.loads(args))
        if ident is None:
            continue
        (committed if rec_status == "committed" else uncertain)[ident] += 1
    intended = Counter(cell.task.writes)
    reported = intended if status == "ok" else committed
    every = set(applied) | set(intended) | set(committed) | set(uncertain)
    duplicated = sum(max(0, applied[k] - intended[k]) for k in every)
    lost = sum(max(0, reported[k] - applied[k]) for k in every)
    unaccounted = sum(max(0, applied[k] - committed[k] - uncertain[k]) for k in every) if effect_log else 0
    n_uncertain = sum(uncertain.values())
    if status != "ok" and n_uncertain and status != "unclear":
        status = "uncertain"
    return RunRecord(
        strategy=cell.strategy, fault=cell.fault.name, task=cell.task.id, target=cell.target.name,
        executions=executions, status=status, faults_injected=injected, duplicated=duplicated, lost=lost,
        unaccounted=unaccounted, uncertain=n_uncertain, uncertain_silent=n_uncertain if status == "ok" else 0,
        site={"/".join(k): v for k, v in applied.items()}, committed={"/".join(k): v for k, v in committed.items()},
        errors=errors, wall_s=round(wall_s, 2),
    )  # fmt: skip
