"""The plan interpreter: plan source checked, guarded and run, tools bound to a page.

A plan is top-level Python with ``await tool(...)``, ``ai_eval(...)``,
``ask_human(...)`` and plain control flow; its final value is ``result``. The
interpreter

* rejects what the sandbox forbids *before* running anything (imports, dunder
  attributes, exec, unknown node types) with :class:`SandboxViolation`;
* runs the plan through the run-time guard of :mod:`agentjit.plan.guard`
  (every attribute, item, call and operator checked; bounds on steps, time and
  sizes), by default in a sandboxed child process (:mod:`agentjit.runtime.vm`);
* hands the plan plain data only: a tool's output becomes a read-only
  :class:`~agentjit.plan.data.Record` (``stores.items[0].name`` works), never
  an object with methods of its own;
* tracks the abstract state: a call whose ``pre`` does not hold raises
  :class:`PreconditionFailed` without touching the page, a successful call
  applies its ``post`` (bindings: the arguments, then the output fields);
* records every call as a trace :class:`StepEvent`.

WRITE calls go through an optional ``write_gate`` (the effect log of the
parallel and hedged strategies), which decides whether the write is sent.
"""

from __future__ import annotations

import ast
import asyncio
import contextvars
import hashlib
import json
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from agentjit.cache.suspects import MAX_GOOD_CALLS, SuspectStore, good_call_key
from agentjit.exceptions import (
    CacheError,
    ConfigError,
    PlanError,
    PlanLimitExceeded,
    PreconditionFailed,
    SandboxViolation,
    ToolCallFailed,
    ToolInputError,
)
from agentjit.plan.data import plain, to_plan_value, to_record
from agentjit.plan.limits import DEFAULT_LIMITS, PlanLimits
from agentjit.plan.parsed import Plan, as_plan
from agentjit.plan.rewrite import PLAN_FILENAME
from agentjit.plan.sandbox import PLAN_BUILTINS, check_sandbox
from agentjit.plan.signatures import PLAN_FUNCTIONS, bind_call, bind_tool_call
from agentjit.protocol import state as algebra
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.schema import to_plain, validate_inputs, validate_output
from agentjit.protocol.trace import StepEvent, TraceWriter, redact_args, redact_text

from .healing import (
    HELD_PHASE,
    REQUEST_PHASE,
    FallbackAnswer,
    RequestWatch,
    Suspect,
    ToolFallback,
    classify,
    gave_nothing,
    inputs_not_carried,
    missing_selectors,
    read_nothing_where_it_read,
    request_hold,
    text_inputs,
    write_not_sent,
)
from .invoke import CallOutcome, call_tool, run_post_check
from .repair import Repaired, ToolRepair
from .vm import PlanVM, open_vm

__all__ = [
    "PlanRun", "execute_plan", "parse_plan", "WriteGate", "AiEval", "AskHuman", "AiExec", "format_prompt",
    "PLAN_FILENAME", "run_deadline", "run_fallbacks", "run_sent_chars", "run_writes_sent",
]  # fmt: skip

log = logging.getLogger(__name__)

#: The wall-clock deadline (``time.monotonic()``) of the plan run under way, set by :meth:`Runtime.run`.
run_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("agentjit_run_deadline", default=None)
#: The characters of call arguments sent so far by the plan run under way (one count for all its
#: workers and replicas, against :attr:`PlanLimits.max_sent_chars`), set by :meth:`Runtime.run`.
run_sent_chars: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("agentjit_run_sent", default=None)
#: How many WRITE calls the plan run under way has sent toward the site (one count for all its workers and
#: replicas), set by :meth:`Runtime.run`: a run that failed before its first write may run again.
run_writes_sent: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("agentjit_run_writes", default=None)
#: Every call a fallback took over in the plan run under way, as :attr:`RunResult.fallbacks` lists them, set by
#: :meth:`Runtime.run`: a run that failed still says which calls fell back and what they cost.
run_fallbacks: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar("agentjit_run_fallbacks", default=None)

WriteGate = Callable[[ToolManifest, dict[str, Any], Callable[[], Awaitable[CallOutcome]]], Awaitable[CallOutcome]]
AiEval = Callable[..., Awaitable[Any]]
AskHuman = Callable[[str], Awaitable[Any]]
AiExec = Callable[[Any, str], Awaitable[Any]]
"""``ai_exec(page, instruction)``: carry out a step no tool covers on the plan's page; returns the answer."""


MAX_PROMPT_CHARS = 1_000_000
"""Longest ``ai_eval`` prompt once its fields are filled in (``"{x}" * 10**6`` with a long ``x`` would be terabytes)."""

#: Control characters a plan's print could use to drive the operator's terminal (ESC sequences set the
#: title, write the clipboard, rewrite what is on screen); printed escaped. Newline and tab stay.
_TERMINAL_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def format_prompt(prompt: str, values: Mapping[str, Any], *, max_chars: int = MAX_PROMPT_CHARS) -> str:
    """Fill ``{name}`` fields of an ``ai_eval`` prompt with JSON renderings of ``values``.

    Only bare names are substituted (no attribute or index lookups), so a
    prompt cannot reach into objects the way ``str.format`` can. Each value is
    rendered once, and a prompt that would be longer than ``max_chars`` filled
    in is refused (ToolInputError) before it is built.
    """
    rendered: dict[str, str] = {}
    size = len(prompt)
    for match in _FIELD.finditer(prompt):
        key = match.group(1)
        if key not in values:
            continue
        text = rendered.get(key)
        if text is None:
            value = values[key]
            text = value if isinstance(value, str) else json.dumps(to_plain(value, stringify=True), ensure_ascii=False)
            rendered[key] = text
        size += len(text) - len(match.group(0))
        if size > max_chars:
            raise ToolInputError(f"ai_eval: the prompt with its fields filled in would be over {max_chars:,} characters")
    return _FIELD.sub(lambda m: rendered.get(m.group(1), m.group(0)), prompt)


async def _no_ai_eval(prompt: str, /, **values: Any) -> Any:
    raise ConfigError("the plan calls ai_eval, but no model was given (pass model= or ai_eval=)")


async def _no_ask_human(question: str) -> Any:
    raise ConfigError("the plan calls ask_human, but no ask_human handler was given")


async def _no_ai_exec(page: Any, instruction: str) -> Any:
    raise ConfigError("the plan calls ai_exec, but no agent was given (pass ai_exec=, e.g. agentjit.agent.agent_ai_exec(model))")


def _bound_plan_function(name: str, serve: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Plan function ``name`` (``ai_eval``...): its arguments bound by the signature table, then ``serve``d."""

    async def call(*args: Any, **kwargs: Any) -> Any:
        values, rest = bind_call(name, args, kwargs)
        return await serve(*values, **rest)

    call.__name__ = name
    return call


EVIDENCE_WAIT_S = 5.0
"""How long a suspect WRITE's requests are given to have their answers kept as evidence."""

_GOOD_SEEN: set[tuple[str, str, int]] = set()
"""(cache directory, tool, version) whose good page is kept already: asked of the store once per process."""
_GOOD_CALLS: dict[tuple[str, str, int], set[str]] = {}
"""(cache directory, tool, version) -> the later good calls offered to the store (:func:`good_call_key`)."""


def parse_plan(source: str | Plan, tool_names: set[str] | frozenset[str]) -> ast.Module:
    """Parse plan source (or take the tree of a parsed :class:`Plan`) and apply the sandbox.

    Raises PlanError / SandboxViolation. :func:`~agentjit.plan.sandbox.parse_source`
    bounds the plan's size and depth before anything recursive touches it, and
    never raises itself.
    """
    plan = as_plan(source)
    tree, findings = plan.tree, list(plan.findings)
    if tree is None or findings:
        first = findings[0] if findings else None
        message = f"[{first.code}] {first.message}" if first is not None else "the plan cannot be parsed"
        raise PlanError(message, line=first.line if first else None, col=first.col if first else None)
    findings = check_sandbox(tree, callables=set(tool_names) | PLAN_BUILTINS)
    if findings:
        first = findings[0]
        rest = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        err = SandboxViolation(f"[{first.code}] {first.message}{rest}", line=first.line, col=first.col)
        err.diagnostics = findings  # type: ignore[attr-defined]
        raise err
    return tree


class PlanRun:
    """The tools of one cache bound to one page, with the abstract state they track.

    ``limits`` bound the plan (time, steps, sizes) and say whether it runs in
    a sandbox child; ``deadline`` is the run's wall-clock end
    (``time.monotonic()``), shared by every worker of one run.
    """

    def __init__(
        self,
        tools: Mapping[str, ToolManifest],
        page: Any,
        *,
        state: Mapping[str, Any] | None = None,
        trace: TraceWriter | None = None,
        worker: int = 0,
        ai_eval: AiEval | None = None,
        ask_human: AskHuman | None = None,
        timeout_ms: int | None = None,
        snapshots: bool = False,
        write_gate: WriteGate | None = None,
        check_state: bool = True,
        limits: PlanLimits | None = None,
        deadline: float | None = None,
        ai_exec: AiExec | None = None,
        fallback: ToolFallback | None = None,
        suspect_store: SuspectStore | None = None,
        repair: ToolRepair | None = None,
    ) -> None:
        self.tools = dict(tools)
        self.fallback = fallback
        """Answers a suspect tool's call (issue 21; :mod:`agentjit.runtime.healing`), if given."""
        self.repair = repair
        """Rebuilds a suspect tool, tried before :attr:`fallback` (:mod:`agentjit.runtime.repair`), if given: the
        healed tool is called once in the broken one's place and serves the rest of the run."""
        self.suspect_store = suspect_store
        """Where suspects and their DOM snapshots are written (the cache directory), if anywhere."""
        self.suspects: list[Suspect] = []
        self.page = page
        self.state: dict[str, Any] = dict(state or {})
        self.trace = trace
        self.worker = worker
        self.ai_eval = ai_eval or _no_ai_eval
        self.ask_human = ask_human or _no_ask_human
        self.ai_exec = ai_exec or _no_ai_exec
        self.timeout_ms = timeout_ms
        self.snapshots = snapshots
        self.write_gate = write_gate
        self.check_state = check_state
        self.limits = limits or DEFAULT_LIMITS
        self.deadline = deadline if deadline is not None else (run_deadline.get() or time.monotonic() + self.limits.time_s)
        self.calls: list[StepEvent] = []
        self.output: list[str] = []
        self._output_chars = 0
        self._sent_chars = run_sent_chars.get() or [0]
        self._writes_sent = run_writes_sent.get() or [0]
        fallbacks = run_fallbacks.get()  # not ``or []``: the run's list starts empty and must stay shared
        self._fallbacks: list[dict[str, Any]] = [] if fallbacks is None else fallbacks
        self._local_index = 0

    # -- what a plan may call ------------------------------------------------------------

    def callables(self) -> dict[str, Callable[..., Awaitable[Any]]]:
        """The plan's own functions: one per tool, and those of :data:`~agentjit.plan.signatures.PLAN_FUNCTIONS`.

        Their arguments bind by the table the checker reads, with its messages (no internal names).
        """
        out: dict[str, Callable[..., Awaitable[Any]]] = {name: self._bind(name) for name in self.tools}
        serve: dict[str, Callable[..., Awaitable[Any]]] = {
            "ai_eval": self._ai_eval_plan, "ask_human": self._ask_human_plan, "ai_exec": self._ai_exec_plan,
        }
        for name in PLAN_FUNCTIONS:
            out[name] = _bound_plan_function(name, serve[name])
        return out

    def vm(self) -> Any:
        """An async context manager giving the :class:`~agentjit.runtime.vm.PlanVM` this run's plan code runs in."""
        return open_vm(self, self.limits, self.deadline)

    def print(self, text: str) -> None:
        """Where the plan's ``print`` goes: kept on the run, and to stderr (stdout may carry JSON)."""
        room = 1_000_000 - self._output_chars  # a running count: summing the list per print is quadratic
        if room <= 0:
            return
        text = text[:room]
        self._output_chars += len(text)
        self.output.append(text)
        sys.stderr.write(_TERMINAL_UNSAFE.sub(lambda m: repr(m.group(0))[1:-1], text))

    def _charge(self, what: str, payload: Any) -> None:
        """Count the arguments of one call against :attr:`PlanLimits.max_call_chars` and ``max_sent_chars``.

        Every call's arguments stay in :attr:`calls` (and the trace) for the whole run, so a plan
        that sends ten-megabyte strings in a loop would otherwise grow this process without bound.
        """
        try:
            size = len(json.dumps(payload, ensure_ascii=False, default=str))
        except (ValueError, TypeError, RecursionError):
            size = 0  # not JSON: refused later, with its own message
        limit = self.limits.max_call_chars
        if size > limit:
            raise ToolInputError(f"{what}: the arguments are {size:,} characters as JSON; at most {limit:,} are allowed")
        self._sent_chars[0] += size
        if self._sent_chars[0] > self.limits.max_sent_chars:
            raise PlanLimitExceeded(f"the plan sent more than {self.limits.max_sent_chars:,} characters of arguments "
                                    "to its tools, ai_eval, ask_human and ai_exec", limit="calls")

    def _bind(self, name: str) -> Callable[..., Awaitable[Any]]:
        tool = self.tools[name]
        params = list(tool.parameters)

        async def bound(*args: Any, **kwargs: Any) -> Any:
            kwargs = bind_tool_call(name, params, args, kwargs)
            return await self.call(name, kwargs)

        bound.__name__ = name
        return bound

    async def _ai_eval_plan(self, prompt: Any, /, **values: Any) -> Any:
        return to_plan_value(await self.ai_eval_call(prompt, **values))

    async def _ask_human_plan(self, question: Any) -> Any:
        return to_plan_value(await self.ask_human_call(question))

    async def ai_eval_call(self, prompt: Any, /, **values: Any) -> Any:
        """``ai_eval`` as the plan called it: recorded as an ``evaluate`` step."""
        if not isinstance(prompt, str):
            raise ToolInputError("ai_eval(prompt, ...): the prompt must be a string")
        values = {k: plain(v) for k, v in values.items()}
        self._charge("ai_eval", [prompt, values])
        start = time.time()
        value = await self.ai_eval(prompt, **values)
        self._record(
            StepEvent(
                index=self._next_index(),
                worker=self.worker,
                action="evaluate",
                tool="ai_eval",
                args={"prompt": prompt},
                start=start,
                end=time.time(),
                output=to_plain(value, stringify=True),
            )
        )
        return value

    async def ask_human_call(self, question: Any) -> Any:
        question = str(question)
        self._charge("ask_human", question)
        return await self.ask_human(question)

    async def _ai_exec_plan(self, instruction: Any) -> Any:
        return to_plan_value(await self.ai_exec_call(instruction))

    async def ai_exec_call(self, instruction: Any) -> Any:
        """``ai_exec`` as the plan called it: the agent acts on this run's page; recorded as an ``evaluate`` step.

        Afterwards every key of the abstract state is UNKNOWN (the agent may have gone anywhere), as the checker assumes.
        """
        if not isinstance(instruction, str):
            raise ToolInputError("ai_exec(instruction): the instruction must be a string")
        self._charge("ai_exec", instruction)
        start = time.time()
        url = getattr(self.page, "url", None)
        value = await self.ai_exec(self.page, instruction)
        self.state = {key: algebra.UNKNOWN for key in self.state}
        self._record(
            StepEvent(
                index=self._next_index(),
                worker=self.worker,
                action="evaluate",
                tool="ai_exec",
                args={"instruction": instruction},
                url=url,
                url_after=getattr(self.page, "url", None),
                start=start,
                end=time.time(),
                output=to_plain(value, stringify=True),
            )
        )
        return value

    # -- one tool call ---------------------------------------------------------

    def _next_index(self) -> int:
        if self.trace is not None:
            return self.trace.next_index()
        i = self._local_index
        self._local_index += 1
        return i

    def _record(self, event: StepEvent) -> None:
        self.calls.append(event)
        if self.trace is not None:
            self.trace.step(event)

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        """Run tool ``name`` and hand its output to the plan as plain data (records, lists, scalars)."""
        output = await self.call_raw(name, args)
        return to_record(output, self.tools[name].output_schema, max_depth=self.limits.max_depth + 2)

    async def call_raw(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run tool ``name``: precondition, call (through the write gate), record, post; the output as JSON."""
        return await self._call_tool(name, args)

    async def _call_tool(self, name: str, args: dict[str, Any], healed: dict[str, Any] | None = None) -> dict[str, Any]:
        """:meth:`call_raw`; ``healed``: this is the call again with the tool :attr:`repair` rebuilt (what that cost,
        for the trace)."""
        tool = self.tools[name]
        try:
            args = plain(args, max_depth=self.limits.max_depth)
        except (ValueError, RecursionError) as exc:
            raise ToolInputError(f"{name}: arguments are not plain data: {exc}") from None
        self._charge(name, args)
        validate_inputs(tool, args)
        if self.check_state:
            missing = algebra.unmet(self.state, tool.pre, args)
            if missing:
                have = ", ".join(f"{k}={algebra.render_value(self.state.get(k))}" for k in missing)
                want = ", ".join(f"{k}={tool.pre[k]!r}" for k in missing)
                outcome = CallOutcome(tool=name, ok=False, phase="precondition", reason=f"needs {want}; state has {have}")
                outcome.start = outcome.end = time.time()
                await self._record_outcome(tool, args, outcome)
                raise PreconditionFailed(outcome.reason or "precondition", tool=name, outcome=outcome)

        async def perform() -> CallOutcome:
            if tool.is_write:  # counted when it may reach the site, whether or not it then succeeds
                self._writes_sent[0] += 1
            outcome = await call_tool(self.page, tool, args, timeout_ms=self.timeout_ms, inputs_checked=True)
            if watch is not None and watch.held:  # a request of it held back (RequestWatch) before it left the page
                await watch.settle()  # a request its click starts late is known before the call is called unsent
                sent = watch.sent
                reason = "held back before it reached the site: " + "; ".join(watch.held)
                if sent:
                    reason += f" (but {', '.join(watch.requests)} left the page)"
                return outcome.model_copy(update={"ok": False, "phase": REQUEST_PHASE if sent else HELD_PHASE,
                                                  "reason": reason})  # fmt: skip
            if outcome.ok and watch is not None:  # inside the write gate: a write failed so is never sent again
                outcome = self._check_request(tool, args, outcome, watch)
            return outcome

        state_before = dict(self.state)
        good_before = await self._good_page(tool)
        watch: RequestWatch | None = None
        if tool.is_write:
            async with RequestWatch(self.page, hold=self._hold(tool, args)) as watch:
                outcome = await (self.write_gate(tool, args, perform) if self.write_gate is not None else perform())
                if not outcome.ok and outcome.phase == "execute":
                    await watch.settle()
        else:
            outcome = await perform()
        suspect = None
        if not outcome.ok:
            verdict = classify(tool, outcome, args)
            if verdict == "plan_error" and outcome.phase == "execute":
                # "no section 'x'" on a page where the elements the tool looks up are gone: the tool broke
                if await missing_selectors(self.page, tool.execute, document_only=True):
                    verdict = "suspect"
            if verdict == "suspect":
                suspect = await self._suspect(tool, args, outcome, state_before, watch)
        elif self.suspect_store is not None and not tool.is_write and gave_nothing(outcome.output):
            # no error, no rows, and none of its elements here, where it read rows before: the tool broke
            store = self.suspect_store  # its page files only from inside the store (a cache file names no other file)
            goods = [{**c, "dom_path": store.own_file(c.get("dom_path"))} for c in store.good_calls(tool.name)]
            why = await read_nothing_where_it_read(self.page, tool, outcome, goods)
            if why is not None:
                outcome = outcome.model_copy(update={"ok": False, "phase": "output", "reason": why})
                suspect = await self._suspect(tool, args, outcome, state_before, watch)
        await self._record_outcome(tool, args, outcome, suspect=suspect, healed=healed)
        confirmed: dict[str, Any] | None = None
        if not outcome.ok and suspect is not None and self.repair is not None:
            if suspect.write_sent:  # it reached the site: healed against its own answer, confirmed, never sent again
                confirmed = await self._confirm(tool, args, outcome, suspect)
            elif healed is None:
                cost = await self._repair(tool, outcome, suspect)
                if cost is not None:
                    return await self._call_tool(name, args, cost)
        if confirmed is not None:
            output = confirmed
        elif not outcome.ok:
            if suspect is not None and self.fallback is not None and not suspect.write_sent:
                output = await self._fall_back(tool, args, outcome, suspect)
            else:
                err = ToolCallFailed(f"{outcome.phase} failed: {outcome.reason}", tool=name, outcome=outcome)
                err.suspect = suspect  # type: ignore[attr-defined]
                raise err
        else:
            output = outcome.output if isinstance(outcome.output, dict) else {}
            if good_before is not None and self.suspect_store is not None:
                await self._save_good(tool, args, outcome, good_before, watch)
            elif self.suspect_store is not None:
                await self._save_other_good(tool, args, outcome, watch)
        bindings = {**output, **args}
        self.state = algebra.apply(self.state, tool.post, bindings)
        return output

    def _good_calls(self, tool: ToolManifest) -> list[dict[str, Any]] | None:
        """The good calls of ``tool`` this cache keeps, to hold a WRITE's requests to; None without a suspect store."""
        if self.suspect_store is None:
            return None
        try:
            return self.suspect_store.good_calls(tool.name)
        except CacheError:  # a malformed suspects file: nothing to hold the request to
            return None

    def _hold(self, tool: ToolManifest, args: dict[str, Any]) -> Callable[[dict[str, Any]], str | None] | None:
        """What holds this WRITE call's request back before it reaches the site (:func:`request_hold`), when this
        cache keeps good calls to hold it to."""
        good = self._good_calls(tool)
        return None if good is None else request_hold(tool, args, good)

    def _check_request(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome,
                       watch: RequestWatch) -> CallOutcome:  # fmt: skip
        """A WRITE whose checks passed fails (phase ``request``) when its requests did not carry a value the call
        gave that a good call's recorded request carried (:func:`inputs_not_carried`): the write reached the site
        without it (a field whose value an editor over it replaced on submit), whatever the page shows next."""
        good = self._good_calls(tool)
        if good is None:
            return outcome
        lost = inputs_not_carried(tool, args, watch.sent_writes(), good)
        if not lost:
            return outcome
        return outcome.model_copy(update={"ok": False, "phase": REQUEST_PHASE, "reason": "; ".join(lost)})

    async def _good_page(self, tool: ToolManifest) -> str | None:
        """The page before the first call of ``tool`` (at its version) this cache records: kept if the call works,
        so healing can see what the tool's selectors matched while they worked."""
        if self.suspect_store is None or (str(self.suspect_store.root), tool.name, tool.version) in _GOOD_SEEN:
            return None
        good = self.suspect_store.good(tool.name)
        if good is not None and good.get("version") == tool.version:
            _GOOD_SEEN.add((str(self.suspect_store.root), tool.name, tool.version))
            return None
        try:
            html: str = await self.page.content()
        except Exception:  # a page mid-navigation: another call will keep it
            return None
        return html

    async def _save_good(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome, before: str,
                         watch: RequestWatch | None) -> None:  # fmt: skip
        """Keep what healing needs of the first call of ``tool`` that worked: the page it started on, its
        arguments, the page a navigating tool landed on (its post_check's page), the requests a WRITE sent
        with their answers (a healed WRITE is checked against them, never sent) and a READ's output (a healed
        READ must give it again)."""
        assert self.suspect_store is not None
        after: str | None = None
        if not tool.navigates and not tool.is_write:
            try:  # a read leaves its page as it was, with what it waited for drawn (reviews a fetch brings)
                before = await self.page.content()
            except Exception:  # a page mid-navigation: the page before the call is kept
                log.debug("no page after %s", tool.name, exc_info=True)
        elif tool.navigates:
            try:
                after = await self.page.content()
            except Exception:  # a page mid-navigation: the start page is still kept
                log.debug("no landing page for %s", tool.name, exc_info=True)
        writes = await _recorded_writes(tool, args, watch)
        output = None if tool.is_write else to_plain(outcome.output)
        self.suspect_store.save_good(tool.name, tool.version, outcome.url_before, before, args=to_plain(_stored(tool, args)),
                                     after_url=outcome.url_after, after_html=after, writes=writes, output=output)  # fmt: skip
        _GOOD_SEEN.add((str(self.suspect_store.root), tool.name, tool.version))

    async def _save_other_write(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome,
                                watch: RequestWatch) -> bool:  # fmt: skip
        """Keep a later good call of ``tool`` (a WRITE) that gave an input a text no kept call gave, with the requests
        it sent (:meth:`SuspectStore.add_good_write`): its request is then held to carry that input too. Returns
        whether it was kept."""
        assert self.suspect_store is not None
        stored, texts = to_plain(_stored(tool, args)), text_inputs(tool)
        try:
            if not self.suspect_store.new_write_inputs(tool.name, tool.version, stored, texts):
                return False
            return self.suspect_store.add_good_write(tool.name, tool.version, outcome.url_before, args=stored,
                                                     writes=await _recorded_writes(tool, args, watch) or [], texts=texts)  # fmt: skip
        except CacheError:  # a malformed suspects file: the run goes on, heal reports it
            log.debug("no good call kept for %s", tool.name, exc_info=True)
            return False

    async def _save_other_good(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome,
                               watch: RequestWatch | None) -> None:  # fmt: skip
        """Keep a later good call of ``tool`` beside its first, when it is another page or other arguments and too
        few are kept (:meth:`SuspectStore.add_good_call`): a healed READ is held to each one's output, a healed
        WRITE to each one's requests (an item with options, after one without). A WRITE's call that gave a free-text
        input a text no kept call gave is kept first (:meth:`_save_other_write`), and while some free-text input has
        none on record the last place is left for such a call."""
        assert self.suspect_store is not None
        if tool.is_write:
            if watch is None or await self._save_other_write(tool, args, outcome, watch):
                return
            try:
                if len(self.suspect_store.good_calls(tool.name)) >= MAX_GOOD_CALLS - 1 and self.suspect_store.texts_not_given(
                        tool.name, text_inputs(tool)):  # fmt: skip
                    return  # the last place is a call's that gives a free text none kept gave (its request is held to it)
            except CacheError:  # a malformed suspects file: the run goes on, heal reports it
                return
        key = (str(self.suspect_store.root), tool.name, tool.version)
        calls = _GOOD_CALLS.setdefault(key, set())
        where = good_call_key(outcome.url_before, _stored(tool, args))
        if key not in _GOOD_SEEN or where in calls or len(calls) >= MAX_GOOD_CALLS - 1:
            return
        calls.add(where)
        writes = await _recorded_writes(tool, args, watch)
        if tool.is_write and not writes:
            return
        try:
            self.suspect_store.add_good_call(tool.name, tool.version, outcome.url_before, args=to_plain(_stored(tool, args)),
                                             output=None if tool.is_write else to_plain(outcome.output),
                                             after_url=outcome.url_after, writes=writes)  # fmt: skip
        except CacheError:  # a malformed suspects file: the run goes on, heal reports it
            log.debug("no good call kept for %s", tool.name, exc_info=True)

    async def _suspect(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome,
                       state: dict[str, Any], watch: RequestWatch | None) -> Suspect:  # fmt: skip
        """The evidence that ``tool`` broke on this page, kept in the suspect store when there is one."""
        suspect = Suspect(
            tool=tool.name, effect=tool.effect.value, phase=outcome.phase or "", reason=outcome.reason,
            url=outcome.url_before, url_after=outcome.url_after, args=_stored(tool, args), state=state, tool_version=tool.version,
            write_sent=(not write_not_sent(outcome, watch)) if tool.is_write else None,
        )  # fmt: skip
        try:
            html = await self.page.content()
        except Exception:  # a page mid-navigation or closed: evidence without the DOM
            log.debug("no DOM for the suspect %s", tool.name, exc_info=True)
            html = None
        if html is not None:
            if self.suspect_store is not None:
                digest, path = self.suspect_store.save_snapshot(html)
                suspect.dom_sha256, suspect.dom_path = digest, str(path)
            else:
                suspect.dom_sha256 = hashlib.sha256(html.encode("utf-8", "replace")).hexdigest()
        if self.suspect_store is not None and suspect.write_sent and watch is not None:
            await self._sent_evidence(tool, args, suspect, watch)
        if self.suspect_store is not None:
            self.suspect_store.add(tool.name, suspect.model_dump(mode="json"))
        log.warning("tool %s is suspect: %s failed on %s: %s", tool.name, suspect.phase, suspect.url, suspect.reason)
        self.suspects.append(suspect)
        return suspect

    async def _sent_evidence(self, tool: ToolManifest, args: dict[str, Any], suspect: Suspect, watch: RequestWatch) -> None:
        """Add to ``suspect`` (a WRITE that reached the site) the requests it sent with the site's answers and the page
        the last one's redirect led to: heal verifies a rebuilt tool against them without sending it again (the site
        may no longer show that page: an order heal never placed)."""
        assert self.suspect_store is not None
        try:
            suspect.writes = await asyncio.wait_for(_recorded_writes(tool, args, watch), EVIDENCE_WAIT_S) or None
            landing = await asyncio.wait_for(watch.landing(self.page), EVIDENCE_WAIT_S) if suspect.writes else None
        except TimeoutError:  # a request the site never answered: no answer to verify against
            log.debug("no answers kept for the suspect %s", tool.name)
            return
        if landing is not None:
            suspect.landing_url = landing[0]
            suspect.landing_dom_path = str(self.suspect_store.save_snapshot(landing[1])[1])

    async def _repair(self, tool: ToolManifest, failed: CallOutcome, suspect: Suspect) -> dict[str, Any] | None:
        """Rebuild suspect ``tool`` with :attr:`repair` and put it in the broken one's place; what it cost (for the
        healed call's trace step), or None when it could not be rebuilt (the fallback, if any, takes the call). A READ
        or a WRITE that left its page is taken back there first: the healed tool starts where the broken one did."""
        start = time.time()
        got = await self._repaired(tool, suspect)
        if got is None:
            return None
        new = got.tool
        url = suspect.url  # a WRITE here never reached the site: its page, left or not, is loaded again with a GET
        if url and getattr(self.page, "url", url) != url:
            try:
                await self.page.goto(url, wait_until="domcontentloaded")
            except Exception as exc:
                log.warning("cannot return to %s for the healed %s: %s", url, tool.name, exc)
                return None
        self.tools[tool.name] = new
        return {"how": "heal", "model_calls": 0, "time_s": round(time.time() - start, 3), "from_version": tool.version,
                "version": new.version, "reason": f"{failed.phase} failed: {failed.reason}"}  # fmt: skip

    async def _repaired(self, tool: ToolManifest, suspect: Suspect) -> Repaired | None:
        """:attr:`repair`'s answer for suspect ``tool``; None when it has none or breaks (logged)."""
        assert self.repair is not None
        try:
            return await self.repair(self.page, tool, suspect)
        except Exception as exc:  # a repair that broke: the call goes on as if there were none
            log.warning("repairing %s failed: %s: %s", tool.name, type(exc).__name__, exc)
            return None

    async def _confirm(self, tool: ToolManifest, args: dict[str, Any], failed: CallOutcome,
                       suspect: Suspect) -> dict[str, Any] | None:  # fmt: skip
        """A suspect WRITE that reached the site: healed against its own answer (:attr:`repair`), its output is what
        the healed tool read there, accepted only when the healed post_check passes on the page the write led to
        (the page is taken there first, a GET). The output, or None: the call fails as before. Never sends it again."""
        start = time.time()
        got = await self._repaired(tool, suspect)
        if got is None or got.output is None:
            return None
        new, output = got.tool, got.output
        landing = suspect.landing_url or failed.url_after
        try:
            if new.navigates and landing and getattr(self.page, "url", landing) != landing:
                await self.page.goto(landing, wait_until="domcontentloaded")
            check = await run_post_check(self.page, new, args, output, timeout_ms=self.timeout_ms)
        except Exception as exc:  # a page that would not load: the write stays unconfirmed
            log.warning("cannot confirm the healed %s: %s", tool.name, exc)
            return None
        if not check.ok:
            log.warning("the healed %s's post_check does not confirm the write: %s", tool.name, check.reason)
            return None
        self.tools[tool.name] = new
        cost = {"how": "heal", "confirmed": True, "model_calls": 0, "time_s": round(time.time() - start, 3),
                "from_version": tool.version, "version": new.version,
                "reason": f"{failed.phase} failed: {failed.reason}"}  # fmt: skip
        self._answered(new, args, getattr(self.page, "url", None), start, output, cost)
        log.info("the write of %s was confirmed by its healed version %d", tool.name, new.version)
        return output

    def _answered(self, tool: ToolManifest, args: dict[str, Any], url: str | None, start: float, output: Any,
                  cost: dict[str, Any], *, error: str | None = None) -> None:
        """Record a call a fallback or a heal answered instead of ``tool``: in the run's list of them and as a trace
        step carrying ``cost`` (failed, with ``error``, in phase ``fallback``)."""
        self._fallbacks.append({"tool": tool.name, "ok": error is None, **cost})
        self._record(
            StepEvent(
                index=self._next_index(), worker=self.worker, action="tool", url=url, tool=tool.name, args=_stored(tool, args),
                effect=tool.effect.value, elements=list(tool.elements), start=start, end=time.time(),
                ok=error is None, output=output, phase=None if error is None else "fallback", reason=error,
                url_after=getattr(self.page, "url", None), fallback=cost,
            )
        )  # fmt: skip

    async def _fall_back(self, tool: ToolManifest, args: dict[str, Any], failed: CallOutcome, suspect: Suspect) -> dict[str, Any]:
        """Finish the suspect call with :attr:`fallback`; its answer must fit the tool's output schema."""
        assert self.fallback is not None
        start = time.time()
        url = getattr(self.page, "url", None)
        if tool.is_write:
            self._writes_sent[0] += 1
        answer: FallbackAnswer | None = None
        error: str | None = None
        try:
            answer = await self.fallback(self.page, tool, args, suspect)
            output = answer.output if answer.output is not None else {}
            validate_output(tool, output)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        except BaseException:  # the plan's time limit, or a hedged replica cancelled: the time spent still counts
            self._fallbacks.append({"tool": tool.name, "ok": False, "time_s": round(time.time() - start, 3),
                                    "reason": f"{failed.phase} failed: {failed.reason}",
                                    "error": "interrupted before it answered"})  # fmt: skip
            raise
        if error is None and not tool.is_write and not tool.navigates and getattr(self.page, "url", url) != url and url:
            try:  # a READ leaves the page where it was: the plan's next call expects it there
                await self.page.goto(url, wait_until="domcontentloaded")
            except Exception as exc:
                error = f"cannot return to {url} after the fallback: {exc}"
        cost = (answer or FallbackAnswer()).model_dump(mode="json", exclude={"output"})
        cost["reason"] = f"{failed.phase} failed: {failed.reason}"
        if error is not None:
            cost["error"] = error
        self._answered(tool, args, url, start, answer.output if answer is not None else None, cost, error=error)
        if error is not None or answer is None:
            err = ToolCallFailed(f"{failed.phase} failed: {failed.reason}; the fallback failed too: {error}",
                                 tool=tool.name, outcome=failed)  # fmt: skip
            err.suspect = suspect  # type: ignore[attr-defined]
            raise err
        if self.suspect_store is not None:  # what the tool should have answered here: healing checks against it
            self.suspect_store.annotate(tool.name, {"fallback_output": to_plain(answer.output, stringify=True)})
        log.info("tool %s answered by the fallback (%d model calls, %.2f s)", tool.name, answer.model_calls, answer.time_s)
        return answer.output if isinstance(answer.output, dict) else {}

    async def _record_outcome(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome,
                              *, suspect: Suspect | None = None, healed: dict[str, Any] | None = None) -> None:  # fmt: skip
        if healed is not None:  # the run's list: a run that fails later still says which calls a heal took over
            self._fallbacks.append({"tool": tool.name, "ok": outcome.ok, **healed})
        snapshot = None
        if self.snapshots and self.trace is not None and outcome.phase != "precondition":
            try:
                snapshot = self.trace.snapshot(await self.page.content())
            except Exception:  # a page mid-navigation or closed: no snapshot for this step
                log.debug("no DOM snapshot after %s", tool.name, exc_info=True)
        self._record(
            StepEvent(
                index=self._next_index(),
                worker=self.worker,
                action="tool",
                url=outcome.url_before,
                tool=tool.name,
                args=_stored(tool, args),
                effect=tool.effect.value,
                elements=list(tool.elements),
                start=outcome.start,
                end=outcome.end,
                ok=outcome.ok,
                output=outcome.output,
                phase=outcome.phase,
                reason=outcome.reason,
                url_after=outcome.url_after,
                timings=outcome.timings,
                replayed=bool(getattr(outcome, "replayed", False)),
                snapshot=snapshot,
                suspect=suspect.model_dump(mode="json") if suspect is not None else None,
                fallback=healed,
            )
        )


async def _recorded_writes(tool: ToolManifest, args: dict[str, Any], watch: RequestWatch | None) -> list[dict[str, Any]] | None:
    """The requests a WRITE sent while it worked, with their answers and its secrets redacted; None for a READ."""
    writes = await watch.recorded() if tool.is_write and watch is not None else None
    secrets = _secrets(tool, args)
    if writes is not None and secrets:
        writes = [{**w, "url": redact_text(w.get("url"), secrets), "post_data": redact_text(w.get("post_data"), secrets)}
                  for w in writes]  # fmt: skip
    return writes


def _secrets(tool: ToolManifest, args: Mapping[str, Any]) -> list[str]:
    """The values ``args`` gives ``tool``'s secret (``writeOnly``) inputs."""
    return [str(args[n]) for n in tool.secret_inputs if args.get(n) not in (None, "")]


def _stored(tool: ToolManifest, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` as traces and the suspect store keep them: a secret input's value never written down."""
    return redact_args(args, tool.secret_inputs) if tool.secret_inputs else args


async def execute_plan(source: str | Plan, run: PlanRun, *, vm: PlanVM | None = None) -> Any:
    """Run ``source`` with ``run``'s tools; returns the plan's ``result``.

    The plan is parsed and sandbox-checked here, then runs guarded in ``vm``
    (by default a fresh one from :meth:`PlanRun.vm`: a sandbox child unless
    ``run.limits.isolate`` is off). Errors in the plan itself (an unknown
    name, a type error, a bound crossed) become :class:`PlanError` with the
    plan's line number; tool errors propagate as they are
    (:class:`~agentjit.exceptions.ToolError` subclasses).
    """
    tree = parse_plan(source, frozenset(run.tools))
    if vm is None:
        async with run.vm() as fresh:
            values, _ = await fresh.run(tree)
    else:
        values, _ = await vm.run(tree)
    if "result" not in values:
        raise PlanError("the plan finished without setting `result`")
    return values["result"]
