"""Algorithm 1: sample plans in parallel, check and repair them, keep the cheapest valid one.

``n`` workers run under one :class:`asyncio.TaskGroup`. Each worker asks the
model for a plan, checks it, and, while it is invalid, asks for a repair with
the rendered diagnostics, at most ``max_repairs`` times (the paper's M_max
counts the first sample too: M_max = 1 + max_repairs). A worker stops at its
first valid candidate. As soon as ``k`` valid candidates exist the other
workers are cancelled (early accept). The valid candidate with the lowest cost
wins; ties go to the earlier one.

A plan cache keyed by the normalized task and the tool cache's fingerprint
returns a stored plan without any model call, once the checker has accepted it
again against the current tools: a stored plan is untrusted (the file may have
been edited), so an entry the checker rejects is dropped with a warning that
names the plan cache file, and the task is compiled afresh.

Beside each plan a model compiled, the plan cache keeps its *template*
(:mod:`.templates`): the task with the values it shares with the plan masked. A
task that matches a template with other values, each typed against the tool
inputs it flows into, gets that plan with the new values, again with no model
call, once the checker accepts it with those values (``origin == "template"``).

``pass_at_k`` and ``pass_at_t`` are the paper's planning-efficiency metrics
(section 5, RQ2).
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agentjit.cache import ToolCache
from agentjit.exceptions import ModelError, PlanRejected
from agentjit.llm import Message, Model, Usage
from agentjit.plan.diagnostics import Diagnostic, NoValidPlan
from agentjit.plan.parsed import Plan

from .checker import CheckResult, check
from .compiled import CandidateReport, CompiledPlan, PlanStats, compile_report
from .cost import CostModel
from .gate import rejection
from .intent import missing_write
from .menu import DEFAULT_MENU_K, DEFAULT_MENU_THRESHOLD, Menu, MenuEntry, ToolIndex
from .prompts import (
    extract_code,
    more_tools_message,
    plan_messages,
    repair_messages,
    run_repair_messages,
)
from .templates import TEMPLATE_PREFIX, Template, make_template, template_entry_key

__all__ = ["Planner", "model_name", "normalize_task", "plan_key", "pass_at_k", "pass_at_t"]

log = logging.getLogger(__name__)

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'`()[]{}"


def normalize_task(task: str) -> str:
    """Lowercase, whitespace collapsed, punctuation stripped at both ends."""
    return _SPACE.sub(" ", task.lower()).strip(_EDGE_PUNCT)


def plan_key(task: str, cache: ToolCache, model: str | None = None) -> str:
    """The plan cache key: the cache's fingerprint, the model's name and the normalized task.

    ``model`` None gives the key of entries stored before plans were keyed by
    model (found only with ``any_model``).
    """
    if model is None:
        return f"{cache.fingerprint()}:{normalize_task(task)}"
    return f"{cache.fingerprint()}:{model}:{normalize_task(task)}"


def _plans_file(cache: ToolCache) -> str:
    """The plan cache file of ``cache``, for messages."""
    where = getattr(cache, "plans_file", None) or (cache.path / "plans.json" if cache.path is not None else None)
    return str(where or "the plan cache")


def model_name(model: Model) -> str:
    """The name a model's plans are stored under (``openai:gpt-4.1``; ``openai:qwen@http://127.0.0.1:8080/v1``
    for a model served at a URL of its own: two servers may serve different models under one name)."""
    name = str(getattr(model, "name", "") or type(model).__name__)
    url = getattr(model, "custom_base_url", None)
    return f"{name}@{url.rstrip('/')}" if isinstance(url, str) and url else name


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased chance that at least one of ``k`` samples is valid, from ``c`` valid of ``n``.

    ``1 - C(n-c, k) / C(n, k)`` (paper, section 5 RQ2), computed as a product to
    stay exact for large ``n``.
    """
    if not (0 <= c <= n) or k < 1 or k > n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def pass_at_t(t: float, latencies: Sequence[float], success_rate: float, n_parallel: int = 1) -> float:
    """Chance of a valid plan within time ``t`` with ``n_parallel`` workers sampling at once.

    ``1 - (1 - F(t) * p) ** n_parallel`` (paper, section 5 RQ2), where ``F`` is the
    empirical CDF of the observed candidate ``latencies`` and ``p`` the
    fraction of valid candidates (``c / n``).
    """
    if not latencies:
        raise ValueError("pass_at_t needs at least one observed latency")
    if not 0.0 <= success_rate <= 1.0 or n_parallel < 1:
        raise ValueError("need 0 <= success_rate <= 1 and n_parallel >= 1")
    f = sum(1 for x in latencies if x <= t) / len(latencies)
    return 1.0 - (1.0 - f * success_rate) ** n_parallel


@dataclass
class _Valid:
    plan: Plan
    result: CheckResult
    order: int


@dataclass
class _Run:
    """Mutable bookkeeping of one compile."""

    start: float
    task: str = ""
    stats: PlanStats = field(default_factory=PlanStats)
    usage: Usage = field(default_factory=Usage)
    candidates: list[CandidateReport] = field(default_factory=list)
    valid: list[_Valid] = field(default_factory=list)
    last_diagnostics: list[list[Diagnostic]] = field(default_factory=list)
    model_errors: list[ModelError] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    slots: _Slots | None = None
    answers: int = 0
    run_round: int = 0
    """0 for a compile; n for the n-th repair after a plan failed when it ran."""
    out_of_budget: bool = False
    menu: Menu | None = None
    """The tool menu the prompt shows (None: every stub)."""


class _Slots:
    """At most ``limit`` model requests in flight; one while the model reports that it is
    overloaded (a request timed out: more at once would only slow each down further) or a server of
    one's own has not answered yet."""

    def __init__(self, limit: int, overloaded: Callable[[], bool]) -> None:
        self.limit = limit
        self.overloaded = overloaded
        self.in_flight = 0
        self._cond = asyncio.Condition()

    def _free(self) -> bool:
        return self.in_flight < (1 if self.overloaded() else self.limit)

    async def __aenter__(self) -> None:
        async with self._cond:
            await self._cond.wait_for(self._free)
            self.in_flight += 1

    async def __aexit__(self, *exc: object) -> None:
        async with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()


class Planner:
    """Compiles a task to a plan over ``cache``'s tools with ``model`` (Algorithm 1)."""

    def __init__(
        self,
        model: Model,
        cache: ToolCache,
        *,
        n: int = 4,
        k: int = 2,
        max_repairs: int = 2,
        cost_model: CostModel | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        now: str | None = None,
        any_model: bool = False,
        max_concurrency: int | None = None,
        progress: Callable[[str], None] | None = None,
        compile_budget_s: float | None = None,
        menu_threshold: int | None = DEFAULT_MENU_THRESHOLD,
        menu_k: int = DEFAULT_MENU_K,
        context_tokens: int | None = None,
    ) -> None:
        if n < 1 or k < 1 or max_repairs < 0:
            raise ValueError(f"need n >= 1, k >= 1, max_repairs >= 0 (got n={n}, k={k}, max_repairs={max_repairs})")
        self.model = model
        self.cache = cache
        self.n = n
        self.k = min(k, n)
        self.max_repairs = max_repairs
        self.cost_model = cost_model or CostModel()
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.clock = clock
        self.now = now
        self.any_model = any_model
        """Accept a plan cache entry another model compiled (same task and tools)."""
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"need max_concurrency >= 1 (got {max_concurrency})")
        self.max_concurrency = max_concurrency
        """Most model requests in flight at once (default ``n``; 1 for a server of one's own, a model with a
        ``custom_base_url``); one after a request timed out."""
        self.progress = progress
        """Called with one line per answer and candidate (the CLI prints them on stderr)."""
        if compile_budget_s is not None and compile_budget_s <= 0:
            raise ValueError(f"need compile_budget_s > 0 (got {compile_budget_s})")
        self.compile_budget_s = compile_budget_s
        """Most seconds one compile (and one repair after a failed run) may take; when they run out the
        cheapest valid candidate so far wins, and with none the compile fails (:class:`NoValidPlan`)."""
        self.rejected: list[PlanRejected] = []
        """Plan cache entries the checker refused (each names the cache file), oldest first."""
        self._templates: dict[tuple[str, str], Template | None] = {}
        """Templates derived from stored ``(task, source)`` pairs (derived once per planner)."""
        if menu_k < 1 or (menu_threshold is not None and menu_threshold < 0):
            raise ValueError(f"need menu_k >= 1 and menu_threshold >= 0 (got {menu_k}, {menu_threshold})")
        self.menu_threshold = menu_threshold
        """A cache with more tools than this gets a state-path menu of ``menu_k`` tools in the prompt
        (:mod:`agentjit.planner.menu`); None: never for the count alone."""
        self.menu_k = menu_k
        self.context_tokens = context_tokens
        """The model's context in tokens, if known: a prompt of every stub longer than half of it gets a menu."""
        self._index: tuple[str, ToolIndex] | None = None

    # -- plan cache -----------------------------------------------------------------

    def cached(self, task: str) -> CompiledPlan | None:
        """The stored plan for ``task`` under the current tools, if any and if the checker accepts it.

        A malformed entry or one the checker rejects is dropped from the plan
        cache (with a warning naming the file), so the task is compiled again.
        """
        key, raw = self._entry(task)
        if raw is None:
            return None
        where = str(self.cache.plans_file or "the plan cache")
        try:
            plan = CompiledPlan.model_validate(raw)
        except ValueError as exc:  # a stale or hand-edited entry: ignore it, recompile
            log.warning("%s: ignoring a malformed plan cache entry for %r: %s", where, task, exc)
            self.cache.plans.pop(key, None)
            return None
        result = check(plan.plan, self.cache, cost_model=self.cost_model)  # the current tools, every time
        if not result.valid:
            refused = rejection(result, origin=f"plan cache {where}, entry for {task!r}")
            log.warning("%s: ignoring a plan cache entry the checker rejects, compiling again: %s", where, refused)
            self.rejected.append(refused)
            self.cache.plans.pop(key, None)
            return None
        return plan

    def _entry(self, task: str) -> tuple[str, Any]:
        """``(key, raw entry)`` of the plan cache entry for ``task`` under the current tools and
        this planner's model, or ``("", None)``.

        An entry stored before plans were keyed by model counts as this model's
        when it names no model or this one. With ``any_model`` an entry of any
        model will do (this model's own first).
        """
        name = model_name(self.model)
        key = plan_key(task, self.cache, name)
        if key in self.cache.plans:
            return key, self.cache.plans[key]
        legacy = plan_key(task, self.cache)
        raw = self.cache.plans.get(legacy)
        if raw is not None and (self.any_model or not isinstance(raw, dict) or raw.get("model", "") in ("", name)):
            return legacy, raw
        if self.any_model:
            prefix, suffix = f"{self.cache.fingerprint()}:", f":{normalize_task(task)}"
            for key, raw in self.cache.plans.items():
                if key.startswith(prefix) and key.endswith(suffix):
                    return key, raw
        return "", None

    def store(self, plan: CompiledPlan) -> None:
        """Keep ``plan`` for its task, and, for a plan a model wrote, its template for tasks like it."""
        model = plan.model or model_name(self.model)
        self.cache.plans[plan_key(plan.task, self.cache, model)] = plan.model_dump(mode="json")
        template = make_template(plan.task, plan.plan, self.cache) if plan.origin == "model" else None
        if template is not None:
            self.cache.plans[template_entry_key(self.cache.fingerprint(), model, template.key)] = {
                "task": plan.task, "source": plan.source, "model": model, "masked": template.masked}
        if self.cache.path is not None:
            self.cache.save_part("plans")

    # -- plan templates -------------------------------------------------------------

    def templated(self, task: str) -> CompiledPlan | None:
        """``task``'s plan from a stored template it matches with typed values the checker accepts, if any.

        This model's templates first, then (with ``any_model``) any model's; among those that match, the
        most recently stored wins. A template whose plan the checker rejects with the new values is skipped.
        """
        prefix = f"{TEMPLATE_PREFIX}{self.cache.fingerprint()}:"
        name = model_name(self.model)
        entries = [(key, raw) for key, raw in reversed(self.cache.plans.items())
                   if key.startswith(prefix) and isinstance(raw, dict)]
        entries.sort(key=lambda e: e[1].get("model") != name)  # stable: this model's first
        for _key, raw in entries:
            if raw.get("model") != name and not self.any_model:
                continue
            stored_task, source = raw.get("task"), raw.get("source")
            if not isinstance(stored_task, str) or not isinstance(source, str):
                continue
            memo = (stored_task, source)
            if memo not in self._templates:
                self._templates[memo] = make_template(stored_task, source, self.cache)
            template = self._templates[memo]
            values = template.match(task) if template is not None else None
            if template is None or values is None:
                continue
            filled = template.instantiate(values)
            result = check(filled, self.cache, cost_model=self.cost_model)
            if not result.valid:
                log.info("template of %r matches %r but the checker rejects it with %s", stored_task, task, values)
                continue
            return CompiledPlan(
                task=task, source=filled, cost=result.cost, calls=result.calls, origin="template",
                model=str(raw.get("model") or ""), cache_fingerprint=self.cache.fingerprint(),
                plan_cache=_plans_file(self.cache), template_task=stored_task, slot_values=dict(values),
            )  # fmt: skip
        return None

    # -- tool menus (agentjit.planner.menu) ----------------------------------------------

    def prompt(self, task: str) -> tuple[list[Message], Menu | None]:
        """The plan prompt for ``task`` and the tool menu it shows: every stub, or a state-path menu when the
        cache has more than ``menu_threshold`` tools or every stub would fill over half of ``context_tokens``."""
        full = None
        if self.menu_threshold is None or len(self.cache.tools) <= self.menu_threshold:
            full = plan_messages(task, self.cache, now=self.now)
            if self.context_tokens is None or sum(len(m.content) for m in full) // 4 <= self.context_tokens // 2:
                return full, None
        menu = self.tool_index().menu(task, self.menu_k)
        log.info("menu of %d of %d tools for %r", len(menu), len(self.cache.tools), task)
        tools = [self.cache.tools[n] for n in menu.names]
        return plan_messages(task, self.cache, now=self.now, tools=tools), menu

    def tool_index(self) -> ToolIndex:
        """The menu index of the cache's current tools (built again when the tools change)."""
        fingerprint = self.cache.fingerprint()
        if self._index is None or self._index[0] != fingerprint:
            self._index = (fingerprint, ToolIndex.of(self.cache))
        return self._index[1]

    def _widen(self, shown: Menu | None, diags: Sequence[Diagnostic]) -> str:
        """The repair note with the stubs of tools a finding names that ``shown`` (this worker's menu,
        widened in place) left out; "" with no menu or nothing to add."""
        if shown is None:
            return ""
        added = self.tool_index().widen(shown, diags)
        if not added:
            return ""
        self._say(f"menu widened by {', '.join(added)}")
        shown.entries += [MenuEntry(n, "widened", 0.0, "named by a finding") for n in added]
        return more_tools_message([self.cache.tools[n] for n in added])

    # -- Algorithm 1 ----------------------------------------------------------------

    async def compile(self, task: str, *, use_cache: bool = True) -> CompiledPlan:
        """The cheapest valid plan for ``task``; raises :class:`NoValidPlan` when none is found."""
        start = self.clock()
        if use_cache:
            hit = self.cached(task)
            if hit is not None:
                log.info("plan cache hit for %r (compiled by %s)", task, hit.model)
                # this compile called no model: fresh (zero) stats and usage; hit.model names who compiled it
                return hit.model_copy(update={
                    "origin": "cache", "time_s": self.clock() - start, "stats": PlanStats(), "usage": Usage(),
                    "candidates": [], "plan_cache": _plans_file(self.cache),
                })
            filled = self.templated(task)
            if filled is not None:
                log.info("plan template hit for %r (template of %r, values %s)", task, filled.template_task,
                         filled.slot_values)
                filled.time_s = self.clock() - start
                self.store(filled)  # the same task again is an exact hit
                return filled
        base, menu = self.prompt(task)
        return await self._search(task, base, start=start, use_cache=use_cache, menu=menu)

    async def repair_after_run(self, task: str, source: str, error: str, *, run_round: int = 1,
                               use_cache: bool = True) -> CompiledPlan:  # fmt: skip
        """A new plan for ``task`` after ``source``, a plan the checker passed, failed when it ran, before its first
        WRITE, with ``error`` (the run-time diagnostic, no internal names).

        One worker: the model sees its plan and the error, and the answer goes through the checker with the
        usual static repairs (``max_repairs``). Raises :class:`NoValidPlan` when none passes. The plan cache
        entry of ``task`` is replaced by the new plan (``use_cache``).
        """
        if use_cache:
            self.forget(task)
        prompt, menu = self.prompt(task)
        base = run_repair_messages(prompt, source, error)
        return await self._search(task, base, start=self.clock(), use_cache=use_cache, workers=1, run_round=run_round,
                                  menu=menu)  # fmt: skip

    def forget(self, task: str) -> None:
        """Drop ``task``'s plan cache entry (a plan that failed when it ran), and the template made of that plan."""
        key, raw = self._entry(task)
        if raw is None or self.cache.plans.pop(key, None) is None:
            return
        source = raw.get("source") if isinstance(raw, dict) else None
        prefix = f"{TEMPLATE_PREFIX}{self.cache.fingerprint()}:"
        for other in [k for k, v in self.cache.plans.items()
                      if k.startswith(prefix) and isinstance(v, dict) and v.get("source") == source]:
            del self.cache.plans[other]
        if self.cache.path is not None:
            self.cache.save_part("plans")

    async def _search(self, task: str, base: list[Message], *, start: float, use_cache: bool, workers: int | None = None,
                      run_round: int = 0, menu: Menu | None = None) -> CompiledPlan:  # fmt: skip
        """Algorithm 1 from the conversation ``base``: ``workers`` (default ``n``) sample, check and repair."""
        self.model.preflight()  # no API key: one ConfigError here, not one per worker
        run = _Run(start=start, task=task, run_round=run_round, menu=menu)
        pacing = getattr(self.model, "pacing", None)
        n = workers or self.n
        # A server of one's own (a URL that is not the provider's; llama.cpp) may answer one request at a time,
        # and a request's timeout runs while it waits in that server's queue: requests sent side by side timed out
        # there and were re-sent while it still generated the ones given up on. So it gets one request at a time
        # unless max_concurrency says otherwise, and even then one until its first answer has measured it.
        own = pacing is not None and getattr(self.model, "custom_base_url", None) is not None
        limit = self.max_concurrency or (1 if own else n)
        run.slots = _Slots(min(limit, n), lambda: pacing is not None and (
            pacing.boost > 1.0 or (own and pacing.answers == 0)))
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(self._worker(i, base, run)) for i in range(n)]
            waiter = tg.create_task(run.done.wait())
            budget_left = self._budget_left(start)
            await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED, timeout=budget_left())
            while not run.done.is_set() and not all(w.done() for w in tasks):
                left = budget_left()
                if left is not None and left <= 0:
                    run.out_of_budget = True
                    self._say(f"compile budget of {self.compile_budget_s:g} s ran out with {len(run.valid)} valid plan(s)")
                    break
                await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED, timeout=left)
            for w in tasks:
                if not w.done():
                    w.cancel()
                    run.stats.cancelled += 1
            waiter.cancel()
        elapsed = self.clock() - start
        run.stats.valid = len(run.valid)
        run.stats.answered = run.answers
        if not run.valid:
            if run.model_errors and not run.candidates:
                raise run.model_errors[0]
            budget = f" within the compile budget of {self.compile_budget_s:g} s" if run.out_of_budget else ""
            if run.answers == 0 and run.out_of_budget:  # not one answer: the budget said nothing about the plans
                why = ("the model did not answer once in that time (a slow server reading a long prompt it has not "
                       "cached: give a larger --compile-budget)")
            else:
                why = (f"{run.answers} model answer(s) ({run.stats.sampled} samples and {run.stats.repaired} repairs "
                       f"asked for), rejected by code: {run.stats.rejected_by_code}")
            raise NoValidPlan(
                f"no valid plan for {task!r}{budget}: {why}",
                diagnostics=run.last_diagnostics,
                report=compile_report(run.stats, run.usage, run.candidates, elapsed),
            )
        best = min(run.valid, key=lambda v: (v.result.cost if v.result.cost is not None else math.inf, v.order))
        plan = CompiledPlan(
            task=task,
            source=best.plan.source,
            cost=best.result.cost,
            calls=best.result.calls,
            origin="model",
            model=model_name(self.model),
            stats=run.stats,
            time_s=elapsed,
            usage=run.usage,
            candidates=run.candidates,
            cache_fingerprint=self.cache.fingerprint(),
        ).parsed_as(best.plan)
        if use_cache:
            self.store(plan)
        return plan

    def _budget_left(self, start: float) -> Callable[[], float | None]:
        """Seconds left of the compile budget from ``start`` (None: no budget), on this planner's clock."""
        budget = self.compile_budget_s
        if budget is None:
            return lambda: None
        return lambda: max(budget - (self.clock() - start), 0.0)

    async def _ask(self, messages: list[Message], run: _Run) -> str:
        assert run.slots is not None
        async with run.slots:
            resp = await self.model.request(messages, temperature=self.temperature, max_tokens=self.max_tokens)
        run.usage = run.usage + resp.usage
        run.answers += 1
        self._say(f"answer {run.answers} after {resp.latency_s:.1f} s ({resp.usage.output_tokens} tokens)")
        return extract_code(resp.text)

    def _say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    async def _worker(self, worker: int, base: list[Message], run: _Run) -> None:
        messages = list(base)
        diags: list[Diagnostic] = []
        shown = replace(run.menu, entries=list(run.menu.entries)) if run.menu is not None else None
        for attempt in range(self.max_repairs + 1):
            if run.done.is_set():
                return
            try:
                if attempt == 0:
                    run.stats.sampled += 1
                    source = await self._ask(messages, run)
                else:
                    run.stats.repaired += 1
                    messages = repair_messages(messages, source, diags, more=self._widen(shown, diags))
                    source = await self._ask(messages, run)
            except ModelError as exc:
                # the same error from every worker would be n lines: the first one is a warning, -v shows the rest
                (log.info if run.model_errors else log.warning)("worker %d: model error: %s", worker, exc)
                run.model_errors.append(exc)
                return
            parsed = Plan.parse(source)
            result = check(parsed, self.cache, cost_model=self.cost_model)
            # the checker does not read the task; a plan for a task that asks for a change must make one
            unwritten = missing_write(run.task, result.calls, self.cache.tools) if result.valid else None
            findings: list[Diagnostic] = [unwritten] if unwritten is not None else result.diagnostics
            valid = result.valid and unwritten is None
            run.candidates.append(
                CandidateReport(
                    source=source,
                    valid=valid,
                    cost=result.cost,
                    diagnostics=[d.to_dict() for d in findings],
                    worker=worker,
                    attempt=attempt,
                    run_round=run.run_round,
                    time_s=self.clock() - run.start,
                )
            )
            cost = f"{result.cost:.3f}" if result.cost is not None else "unknown"
            self._say(f"worker {worker}: " + (f"valid plan, cost {cost}" if valid else
                      "rejected (" + ", ".join(sorted({d.code for d in findings})) + ")"))
            if valid:
                run.valid.append(_Valid(parsed, result, len(run.candidates)))
                if len(run.valid) >= self.k:
                    run.done.set()
                return
            diags = findings
            for code in sorted({d.code for d in diags}):
                run.stats.rejected_by_code[code] = run.stats.rejected_by_code.get(code, 0) + 1
        run.last_diagnostics.append(diags)
