"""The stepwise agent: observe the page, ask the model for one action, act, repeat.

This is the loop the paper's Browser-Use baseline runs, in agentjit's own
runtime: every step is one model call. Each answer is one JSON action::

    {"action": "click", "index": 3}
    {"action": "type", "index": 5, "text": "matcha", "submit": true}
    {"action": "select", "index": 7, "option": "Pickup"}
    {"action": "scroll", "direction": "down"}
    {"action": "goto", "url": "/cart"}          (same site only)
    {"action": "back"}
    {"action": "done", "answer": "..."}

An answer that does not parse or does not fit the page (an index that is not
on it, a URL on another site) is sent back to the model once with the error;
a second bad answer raises :class:`~agentjit.exceptions.ModelResponseError`.
After each action the agent waits for the page to settle: loaded, no
request in flight for a short quiet period (as Playwright reports them and,
for the page's own fetch and XHR calls, as the page counts them), then the
DOM unchanged for that period too (at most a second).

Writes: clicking a button that submits a non-GET form or runs a script, or
typing Enter into a field of a non-GET form, is a WRITE and goes through the
run's :class:`~agentjit.runtime.effects.EffectLog` (keyed by the step number
and the element), so a retried step never sends it twice. A page's own script
can write where the page does not say so (a dialog's form with no method whose
Save button sends a fetch PUT): while any other click, type or select runs, a
route on the page holds each state-changing request (any method but GET, HEAD,
OPTIONS) to the site and claims it in the same log first (keyed by the step,
the element, the method and the URL); a request the log already holds is
aborted instead of sent, and the step counts as a WRITE. Every action is
written to the trace as a :class:`~agentjit.protocol.trace.StepEvent` with the
element's descriptor as its target, in the form the recorder writes, so
``toolcache`` can build tools from the agent's runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError

from agentjit.exceptions import ConfigError, ModelResponseError
from agentjit.llm.base import Message, Model, Usage
from agentjit.protocol.trace import StepEvent, Target, TraceWriter
from agentjit.protocol.urls import OffSiteURL, site_url
from agentjit.runtime.browser import READ_METHODS
from agentjit.runtime.effects import Claim, EffectKey, EffectLog, EffectRecord, canonical_args
from agentjit.runtime.invoke import CallOutcome
from agentjit.runtime.network import PENDING_JS, TRACK_JS

from .observe import INDEX_ATTR, Element, Observation, observe

__all__ = ["AgentAction", "AgentStep", "AgentResult", "StepwiseAgent", "SYSTEM_PROMPT", "parse_action", "agent_ai_exec"]

log = logging.getLogger(__name__)

QUIET_S = 0.05
"""How long the network must stay idle before a step counts as finished."""
SETTLE_TIMEOUT_S = 15.0
DOM_QUIET_MAX_S = 1.0
"""The longest the agent waits for the DOM to stop changing once the network is quiet."""
ACTION_TIMEOUT_MS = 5_000

SYSTEM_PROMPT = """You operate a web browser to carry out a user's task on one web site.
Each turn you get the task, the actions you took so far, and the current page:
its URL, title, numbered interactive elements and visible text.
Reply with exactly one JSON object (no prose, no code fence) choosing the next action:
  {"action": "click", "index": N}
  {"action": "type", "index": N, "text": "...", "submit": false}   (submit true presses Enter)
  {"action": "select", "index": N, "option": "visible option text"}
  {"action": "scroll", "direction": "down"}                        (or "up")
  {"action": "goto", "url": "/path"}                               (this site only)
  {"action": "back"}
  {"action": "done", "answer": "..."}                             (the task is finished; answer any question it asked)
N is the number in brackets before an element. Use "done" as soon as the task is complete."""


class AgentAction(BaseModel):
    """One action the model chose."""

    action: Literal["click", "type", "select", "scroll", "goto", "back", "done"]
    index: int | None = None
    text: str | None = None
    submit: bool = False
    option: str | None = None
    direction: Literal["up", "down"] = "down"
    url: str | None = None
    answer: Any = None
    note: str | None = None
    """Why (optional; kept in the trace as the step's goal)."""


class AgentStep(BaseModel):
    """One step of a run: the model's action and what acting on it did."""

    step: int
    action: dict[str, Any]
    ok: bool = True
    reason: str | None = None
    url: str | None = None
    url_after: str | None = None
    effect: Literal["READ", "WRITE"] = "READ"
    replayed: bool = False
    model_s: float = 0.0
    act_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    retried: bool = False
    """The model's first answer was malformed and it was asked again."""


class AgentResult(BaseModel):
    """What a stepwise run produced."""

    task: str
    answer: Any = None
    done: bool = False
    steps: list[AgentStep] = Field(default_factory=list)
    model_calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    model_s: float = 0.0
    """Wall time spent waiting for the model."""
    total_s: float = 0.0

    @property
    def writes(self) -> int:
        return sum(1 for s in self.steps if s.effect == "WRITE" and s.ok and not s.replayed)


def _extract_json(text: str) -> Any:
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text.split("\n", 1)[1] if "\n" in text else text
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the answer")
    return json.loads(text[start : end + 1])


def parse_action(text: str, page: Observation, *, base_url: str | None = None) -> AgentAction:
    """The model's answer as an action that fits ``page``; ValueError says what is wrong."""
    try:
        data = _extract_json(text)
    except (ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"not one JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("the answer must be a JSON object")
    try:
        action = AgentAction.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "<root>"
        raise ValueError(f"field '{field}': {err['msg']}") from None
    if action.action in ("click", "type", "select"):
        if action.index is None:
            raise ValueError(f"{action.action} needs an element index")
        el = page.element(action.index)
        if el is None:
            raise ValueError(f"there is no element [{action.index}] on this page (0..{len(page.elements) - 1})")
        if action.action == "type" and action.text is None:
            raise ValueError("type needs a text")
        if action.action == "select":
            if el.tag != "select":
                raise ValueError(f"element [{action.index}] is a {el.tag}, not a select")
            if action.option is None or (el.options and action.option not in el.options):
                raise ValueError(f"select needs an option of element [{action.index}]: {el.options}")
    elif action.action == "goto":
        if not action.url:
            raise ValueError("goto needs a url")
        if base_url is not None:
            try:
                site_url(base_url, action.url, keep_host=True)
            except OffSiteURL:
                here = urlsplit(base_url)
                raise ValueError(f"goto may not leave the site ({here.scheme}://{here.netloc})") from None
    return action


_COUNT_JS = f"() => {{ {TRACK_JS}; }}"
"""Counts the page's fetch and XHR calls in flight in the page itself (see
:data:`agentjit.runtime.network.TRACK_JS`): Playwright's request event for a click handler's fetch
can reach Python after the network already looked quiet (under load it did, and the agent then read
the old page)."""


_DOM_QUIET_JS = """([quietMs, maxMs]) => new Promise((resolve) => {
  let timer = null;
  const finish = (quiet) => { obs.disconnect(); clearTimeout(timer); clearTimeout(cap); resolve(quiet); };
  const obs = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(() => finish(true), quietMs); });
  obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  timer = setTimeout(() => finish(true), quietMs);
  const cap = setTimeout(() => finish(false), maxMs);
})"""
"""Resolves once the DOM has not changed for ``quietMs`` (at most ``maxMs``: a page that animates)."""


class _Network:
    """In-flight requests and the state-changing (non-GET) ones of one page."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.inflight: set[Any] = set()
        self.writes: list[dict[str, Any]] = []
        self.last_change = time.monotonic()
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_done)

    def detach(self) -> None:
        for event, fn in (("request", self._on_request), ("requestfinished", self._on_done), ("requestfailed", self._on_done)):
            with contextlib.suppress(Exception):
                self.page.remove_listener(event, fn)

    def _on_request(self, request: Any) -> None:
        self.inflight.add(request)
        self.last_change = time.monotonic()
        if request.method != "GET":
            self.writes.append({"method": request.method, "url": request.url, "resource": request.resource_type})

    def _on_done(self, request: Any) -> None:
        self.inflight.discard(request)
        self.last_change = time.monotonic()

    async def settle(self) -> None:
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        with contextlib.suppress(Exception):
            await self.page.wait_for_load_state("load", timeout=SETTLE_TIMEOUT_S * 1000)
        while time.monotonic() < deadline:
            if not self.inflight and time.monotonic() - self.last_change >= QUIET_S and not await self._page_pending():
                with contextlib.suppress(Exception):  # then the DOM: a component may mount a tick later
                    await self.page.evaluate(_DOM_QUIET_JS, [QUIET_S * 1000, DOM_QUIET_MAX_S * 1000])
                return
            await asyncio.sleep(0.01)
        log.warning("network did not settle within %.0f s", SETTLE_TIMEOUT_S)

    async def arm(self) -> None:
        """Count the page's own fetch and XHR calls from now on (see :data:`_COUNT_JS`)."""
        with contextlib.suppress(Exception):  # a page mid-navigation: the load state covers it
            await self.page.evaluate(_COUNT_JS)

    async def _page_pending(self) -> int:
        try:
            n: int = await self.page.evaluate(PENDING_JS)
        except Exception:  # the document is being replaced: the network side waits for the new one
            return 0
        return n

    def take_writes(self) -> list[dict[str, Any]]:
        out, self.writes = self.writes, []
        return out


class _WriteGuard:
    """Claims, before it leaves, each state-changing request an action the agent took for a READ sends.

    Installed as a page route for the length of one action (:meth:`watch`). A
    request to ``base``'s origin with a method other than GET, HEAD or OPTIONS
    is claimed in ``effects`` under ``(agent.request, the action's arguments,
    method, URL)``, its occurrence counting identical requests of the action;
    a claim goes on to the browser's other routes (the pool's send-once), a key
    the log already holds is aborted (its recorded outcome stands). Every
    claim is ended by :meth:`finish`: committed when the site answered below
    400, recorded as uncertain otherwise.
    """

    def __init__(self, page: Any, effects: EffectLog, *, base: str, worker: int, scope: str) -> None:
        self.page = page
        self.effects = effects
        self.origin = _origin(base)
        self.worker = worker
        self.scope = scope
        self.args: dict[str, Any] = {}
        self.claims: list[tuple[Claim, Any]] = []
        self.replayed: list[EffectRecord] = []
        self._seen: dict[str, int] = {}
        self._closed = False

    @contextlib.asynccontextmanager
    async def watch(self, args: dict[str, Any]) -> Any:
        self.args, self.claims, self.replayed, self._seen, self._closed = args, [], [], {}, False
        await self.page.route("**/*", self._route)
        try:
            yield self
        finally:
            with contextlib.suppress(Exception):  # the page may be closing
                await self.page.unroute("**/*", self._route)

    async def _route(self, route: Any) -> None:
        request = route.request
        if request.method in READ_METHODS or _origin(request.url) != self.origin:
            with contextlib.suppress(Exception):  # the page or context closed under the request
                await route.fallback()
            return
        parts = urlsplit(request.url)
        args = canonical_args({**self.args, "method": request.method, "url": parts.path + (f"?{parts.query}" if parts.query else "")})
        occurrence = self._seen.get(args, 0)
        self._seen[args] = occurrence + 1
        key = EffectKey(tool="agent.request", args=args, occurrence=occurrence, scope=self.scope)
        got = await self.effects.claim(key, worker=self.worker)
        if isinstance(got, EffectRecord) or self._closed:  # logged already, or the action is over
            if isinstance(got, EffectRecord):
                self.effects.replays += 1
                self.replayed.append(got)
                log.info("agent: %s %s is in the effect log already (%s); not sent", request.method, request.url, got.status)
            else:
                got.release()  # never sent
            with contextlib.suppress(Exception):
                await route.abort("blockedbyclient")
            return
        self.effects.sent += 1
        self.claims.append((got, request))
        try:
            await route.fallback()
        except Exception as exc:  # the page went away: the request may or may not have left
            log.debug("agent: passing on %s %s failed", request.method, request.url, exc_info=True)
            self._end(got, None, f"{type(exc).__name__}: {exc}")

    @property
    def wrote(self) -> bool:
        return bool(self.claims or self.replayed)

    async def finish(self, url_before: str) -> list[str]:
        """End every open claim of the action; the reasons of the requests that did not succeed.

        A request the action's page sends after this (a handler that was still waiting for its
        claim) is not sent."""
        self._closed = True
        problems = []
        for claim, request in self.claims:
            if not claim.open:
                continue
            response = None
            with contextlib.suppress(Exception):  # failed on the network: no response
                response = await asyncio.wait_for(request.response(), SETTLE_TIMEOUT_S)
            reason = None
            if response is None:
                reason = f"{request.method} {request.url} got no answer"
            elif response.status >= 400:
                reason = f"{request.method} {request.url} answered HTTP {response.status}"
            self._end(claim, url_before, reason)
            if reason:
                problems.append(reason)
        for rec in self.replayed:
            if rec.status != "committed":
                problems.append(f"{rec.key.tool} {rec.key.args} is {rec.status} in the effect log: not sent again")
        return problems

    def _end(self, claim: Claim, url_before: str | None, reason: str | None) -> None:
        out = CallOutcome(tool=claim.key.tool, ok=reason is None, url_before=url_before, url_after=self.page.url)
        out.start = out.end = time.time()
        if reason is None:
            claim.commit(out)
        else:
            out.phase, out.reason = "execute", reason
            claim.abandon(out)


class StepwiseAgent:
    """Runs a task one model call per step on a Playwright page.

    ``base_url`` bounds ``goto`` to one site (default: the page's origin at the
    start). ``effects`` is the run's effect log (a fresh one per run if not
    given); ``trace`` receives every step. ``budget_tokens`` bounds the page
    view sent each step. ``clock`` times the model and the run.
    """

    def __init__(
        self,
        model: Model,
        *,
        base_url: str | None = None,
        max_steps: int = 30,
        budget_tokens: int = 6000,
        effects: EffectLog | None = None,
        trace: TraceWriter | None = None,
        worker: int = 0,
        snapshots: bool = True,
        temperature: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if max_steps < 1:
            raise ConfigError("max_steps must be at least 1")
        self.model = model
        self.base_url = base_url
        self.max_steps = max_steps
        self.budget_tokens = budget_tokens
        self.effects = effects
        self.trace = trace
        self.worker = worker
        self.snapshots = snapshots
        self.temperature = temperature
        self.clock = clock
        self._local_index = 0

    # -- the loop ---------------------------------------------------------------------

    async def run(self, page: Any, task: str, *, scope: str = "") -> AgentResult:
        """Carry out ``task`` from wherever ``page`` is; returns the answer of ``done``.

        Raises :class:`ModelResponseError` when the model answers badly twice in
        a row or never says ``done`` within ``max_steps``. ``scope`` separates
        the effect-log keys of several runs sharing one log.
        """
        effects = self.effects if self.effects is not None else EffectLog()
        base = self.base_url or _origin(page.url)
        result = AgentResult(task=task)
        history: list[str] = []
        net = _Network(page)
        t0 = self.clock()
        try:
            for n in range(self.max_steps):
                view = await _observe_settled(page)
                step = AgentStep(step=n, action={}, url=view.url)
                action = await self._decide(task, view, history, base, step, result)
                step.action = action.model_dump(exclude_defaults=True)
                if action.action == "done":
                    result.answer, result.done = action.answer, True
                    result.steps.append(step)
                    break
                await self._act(page, net, view, action, step, effects, base, scope)
                result.steps.append(step)
                history.append(_summary(n, action, view, step))
            else:
                raise ModelResponseError(f"the agent did not finish {task!r} within {self.max_steps} steps")
        finally:
            net.detach()
            result.total_s = self.clock() - t0
        return result

    async def _decide(
        self, task: str, view: Observation, history: list[str], base: str, step: AgentStep, result: AgentResult
    ) -> AgentAction:
        messages = [
            Message(role="system", content=SYSTEM_PROMPT),
            Message(role="user", content=_user_prompt(task, history, view, self.budget_tokens)),
        ]
        for attempt in range(2):
            t = self.clock()
            resp = await self.model.request(messages, temperature=self.temperature)
            step.model_s += self.clock() - t
            step.usage = step.usage + resp.usage
            result.model_calls += 1
            result.usage = result.usage + resp.usage
            result.model_s += self.clock() - t
            try:
                return parse_action(resp.text, view, base_url=base)
            except ValueError as exc:
                if attempt == 1:
                    raise ModelResponseError(
                        f"step {step.step}: the model's action is invalid twice in a row: {exc} (answer: {resp.text[:200]!r})"
                    ) from None
                step.retried = True
                messages = [
                    *messages,
                    Message(role="assistant", content=resp.text),
                    Message(role="user", content=f"That action is invalid: {exc}. Reply with one valid JSON action."),
                ]
        raise AssertionError("unreachable")  # pragma: no cover

    # -- acting -------------------------------------------------------------------------

    async def _act(
        self, page: Any, net: _Network, view: Observation, action: AgentAction, step: AgentStep,
        effects: EffectLog, base: str, scope: str,
    ) -> None:  # fmt: skip
        el = view.element(action.index) if action.index is not None else None
        is_write = el is not None and (
            (action.action == "click" and el.write) or (action.action == "type" and action.submit and el.submits)
        )
        step.effect = "WRITE" if is_write else "READ"
        net.take_writes()
        await net.arm()
        start = time.time()
        t = self.clock()

        async def send() -> CallOutcome:
            out = CallOutcome(tool=f"agent.{action.action}", ok=True, url_before=view.url)
            out.start = time.time()
            try:
                await self._perform(page, action, base)
            except Exception as exc:  # the element went away, a timeout, a navigation error
                out.ok, out.phase, out.reason = False, "execute", str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            await net.settle()
            out.url_after = page.url
            out.end = time.time()
            return out

        args = {"step": step.step, "selector": el.selector, "name": el.name, "text": action.text} if el else {}
        if is_write and el is not None:
            key = EffectKey(tool=f"agent.{action.action}", args=canonical_args(args), scope=scope)
            outcome, record = await effects.write(key, send, worker=self.worker, page=page)
            step.replayed = record is not None
        elif el is not None and action.action in ("click", "type", "select"):
            guard = _WriteGuard(page, effects, base=base, worker=self.worker, scope=scope)
            try:
                async with guard.watch({**args, "action": action.action, "option": action.option}):
                    outcome = await send()
            finally:  # cancelled too: a claim never stays open
                problems = await guard.finish(view.url)
            if guard.wrote:
                step.effect = "WRITE"
                step.replayed = not guard.claims
            if problems and outcome.ok:
                outcome.ok, outcome.phase, outcome.reason = False, "execute", "; ".join(problems)
        else:
            outcome = await send()
        step.act_s = self.clock() - t
        step.ok, step.reason, step.url_after = outcome.ok, outcome.reason, page.url
        await self._record(page, net, view, action, el, step, start)

    async def _perform(self, page: Any, action: AgentAction, base: str) -> None:
        loc = page.locator(f'[{INDEX_ATTR}="{action.index}"]') if action.index is not None else None
        if action.action == "click" and loc is not None:
            await loc.click(timeout=ACTION_TIMEOUT_MS)
        elif action.action == "type" and loc is not None:
            await loc.fill(action.text or "", timeout=ACTION_TIMEOUT_MS)
            if action.submit:
                await loc.press("Enter", timeout=ACTION_TIMEOUT_MS)
        elif action.action == "select" and loc is not None:
            await loc.select_option(label=action.option, timeout=ACTION_TIMEOUT_MS)
        elif action.action == "scroll":
            await page.mouse.wheel(0, 600 if action.direction == "down" else -600)
        elif action.action == "goto":
            await page.goto(site_url(base, action.url or "/", keep_host=True), wait_until="domcontentloaded")
        elif action.action == "back":
            await page.go_back(wait_until="domcontentloaded")

    # -- the trace ----------------------------------------------------------------------

    def _next_index(self) -> int:
        if self.trace is not None:
            return self.trace.next_index()
        self._local_index += 1
        return self._local_index - 1

    async def _record(
        self, page: Any, net: _Network, view: Observation, action: AgentAction, el: Element | None,
        step: AgentStep, start: float,
    ) -> None:  # fmt: skip
        if self.trace is None:
            return
        end = time.time()
        target = None
        if el is not None:
            target = Target.model_validate(
                {"selector": el.selector, "role": el.role, "name": el.name, "text": el.text, "tag": el.tag,
                 "testid": el.testid, **el.info}
            )  # fmt: skip
        snapshot = None
        title = None
        with contextlib.suppress(Exception):  # a page mid-navigation: no snapshot for this step
            title = await page.title()
            if self.snapshots:
                snapshot = self.trace.snapshot(await page.content())
        table: dict[str, list[tuple[Any, Any]]] = {
            "click": [("click", None)],
            "type": [("fill", action.text)] + ([("press", "Enter")] if action.submit else []),
            "select": [("select", action.option)],
            "scroll": [("scroll", 600 if action.direction == "down" else -600)],
            "goto": [("goto", step.url_after)],
            "back": [("goto", step.url_after)],
        }
        kinds = table[action.action]
        requests = net.take_writes()
        for i, (kind, value) in enumerate(kinds):
            last = i == len(kinds) - 1
            self.trace.step(
                StepEvent(
                    index=self._next_index(),
                    worker=self.worker,
                    action=kind,
                    url=view.url,
                    title=title,
                    target=target,
                    value=value,
                    effect=step.effect if last else "READ",
                    start=start,
                    end=end,
                    ok=step.ok,
                    reason=step.reason,
                    url_after=step.url_after if last else view.url,
                    snapshot=snapshot if last else None,
                    requests=requests if last else [],
                    replayed=step.replayed,
                    goal=action.note or ("back" if action.action == "back" else None),
                )
            )


async def _observe_settled(page: Any) -> Observation:
    """Observe the page; a navigation still under way (the document replaced mid-read) is waited out once."""
    try:
        return await observe(page)
    except Exception as exc:  # "Execution context was destroyed": a late navigation
        log.debug("observing again after %s", exc)
        with contextlib.suppress(Exception):
            await page.wait_for_load_state("load", timeout=SETTLE_TIMEOUT_S * 1000)
        return await observe(page)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def _user_prompt(task: str, history: list[str], view: Observation, budget_tokens: int) -> str:
    done = "\n".join(history[-12:]) if history else "(none yet)"
    return f"Task: {task}\n\nActions so far:\n{done}\n\nCurrent page:\n{view.render(budget_tokens)}"


def _summary(n: int, action: AgentAction, view: Observation, step: AgentStep) -> str:
    what = action.model_dump(exclude_defaults=True, exclude={"note"})
    el = view.element(action.index) if action.index is not None else None
    on = f" on {el.role or el.tag} {el.name[:60]!r}" if el is not None else ""
    status = "ok" if step.ok else f"failed: {step.reason}"
    return f"{n + 1}. {json.dumps(what, ensure_ascii=False)}{on} -> {status}"


def agent_ai_exec(
    model: Model,
    *,
    effects: EffectLog | None = None,
    trace: TraceWriter | None = None,
    max_steps: int = 20,
    budget_tokens: int = 6000,
) -> Callable[[Any, str], Any]:
    """An ``ai_exec`` for :class:`~agentjit.runtime.Runtime`: the stepwise agent on the plan's own page.

    Each call runs :class:`StepwiseAgent` with ``instruction`` as its task and
    returns the answer of its ``done``. Its writes go through ``effects`` (one
    log for every ``ai_exec`` of a run; the calls are scoped apart).
    """
    log_ = effects if effects is not None else EffectLog()
    count = 0

    async def ai_exec(page: Any, instruction: str) -> Any:
        nonlocal count
        count += 1
        agent = StepwiseAgent(model, max_steps=max_steps, budget_tokens=budget_tokens, effects=log_, trace=trace)
        result = await agent.run(page, instruction, scope=f"ai_exec-{count}")
        return result.answer

    return ai_exec
