"""browser-use driven by the bench's oracle, beside agentjit's stepwise agent: per-step overhead.

The end-to-end bench (:mod:`agentjit.bench.e2e`) compares agentjit with its
own stepwise agent. This module puts `browser-use <https://github.com/browser-use/browser-use>`_
(an optional extra: ``pip install 'agentjit[browser-use]'``, best in a
virtualenv of its own) on the same footing: the same food tasks, the same
site served in-process, the same Chromium, the same judges, and the same
decisions, made by the oracle policy (:mod:`agentjit.bench.oracle`) that
replays each task's recorded demonstration.

:class:`OracleChatModel` is a browser-use chat model (the ``BaseChatModel``
protocol of ``browser_use.llm.base``: ``model``, ``provider``, ``name`` and
``ainvoke(messages, output_format)``). On each call it reads browser-use's
current element map (the indices its prompt shows), describes every element
the way agentjit's observer does (CSS selector, role, accessible name, test
id: one ``Runtime.evaluate`` that finds each element by the XPath browser-use
keeps for it), hands that view to the oracle, and answers the oracle's action
in browser-use's structured output (``click``/``input``/``send_keys``/
``select_dropdown``/``scroll``/``navigate``/``go_back``/``done`` with
browser-use's element index). It counts the prompt browser-use really sends
(text at about four characters a token, as agentjit's fake models count; each
screenshot at OpenAI's high-detail tile price, 85 + 170 per 512-px tile) and
sleeps the :class:`~agentjit.llm.latency.LatencyProfile`'s time for those
tokens, so both agents pay the same per-call cost model.

Both sides run each task from a fresh browser context with the start page
still to open; browser-use's own browser launch is left out of its time, as
the stepwise agent's pool launch is. browser-use runs at its defaults
(vision on, thinking, planning) except ``use_judge=False`` (its own LLM judge
would be one more call; the bench's judges decide) and no default extensions
(they are downloaded at launch, and there is no network here).

Run it with ``python -m agentjit.bench.browser_use_bench --app food --json``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import logging
import math
import os
import struct
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from pydantic import BaseModel, Field

from agentjit.agent.observe import ELEMENT_HELPERS_JS, Element
from agentjit.exceptions import AgentJITError, ConfigError
from agentjit.llm.base import Message
from agentjit.llm.function import _count_tokens
from agentjit.llm.latency import DEFAULT_PROFILE, LatencyProfile, get_profile
from agentjit.protocol import urls
from agentjit.protocol.trace import read_trace
from agentjit.runtime.browser import HOST_RULES, chromium_executable
from agentjit.tasks.apps import Site
from agentjit.tasks.task import Task

from .agent_runs import agent_once, judge_answer, mean_or_zero
from .oracle import OraclePolicy, answer_for, demo_path, has_demo, secrets_for, substitute_steps

__all__ = [
    "EXTRA_HINT",
    "OracleChatModel",
    "DEMO_ANSWER",
    "browser_use_run",
    "SideRun",
    "TaskRow",
    "BrowserUseReport",
    "image_tokens",
    "require_browser_use",
    "run_browser_use_bench",
    "main",
]

log = logging.getLogger(__name__)

EXTRA_HINT = (
    "browser-use is not installed: this bench needs the optional extra 'browser-use' "
    "(pip install 'agentjit[browser-use]', best in a virtualenv of its own, e.g. "
    "python -m venv .venv-browser-use && .venv-browser-use/bin/pip install -e '.[dev,browser-use]')"
)

_QUIET_ENV = {
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_CLOUD_SYNC": "false",
    "BROWSER_USE_VERSION_CHECK": "false",
    "BROWSER_USE_CLOUD_HINTS": "false",
    "BROWSER_USE_SETUP_LOGGING": "false",
}
"""browser-use's phone-home switches, all off (there is no network here, and none is wanted)."""


def require_browser_use() -> str:
    """browser-use's version; :class:`ConfigError` naming the extra when it is not importable."""
    for key, value in _QUIET_ENV.items():
        os.environ.setdefault(key, value)
    try:
        from importlib.metadata import version

        import browser_use  # noqa: F401
    except ImportError as exc:
        raise ConfigError(f"{EXTRA_HINT} ({exc})") from None
    try:
        return version("browser-use")
    except Exception:  # an unusual install: the module imports, the metadata is missing
        return "unknown"


# -- counting what browser-use sends ------------------------------------------------------


def _image_size(url: str) -> tuple[int, int] | None:
    """Width and height of a base64 ``data:`` PNG or JPEG screenshot (None when unknown)."""
    if not url.startswith("data:") or "," not in url:
        return None
    try:
        raw = base64.b64decode(url.split(",", 1)[1][: 64 * 1024 * 4 // 3 + 4] + "===", validate=False)
    except ValueError:
        return None
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) >= 24:
        w, h = struct.unpack(">II", raw[16:24])
        return int(w), int(h)
    if raw[:2] == b"\xff\xd8":  # JPEG: walk the segments to the frame header
        i = 2
        while i + 9 < len(raw):
            if raw[i] != 0xFF:
                return None
            marker, length = raw[i + 1], struct.unpack(">H", raw[i + 2 : i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                h, w = struct.unpack(">HH", raw[i + 5 : i + 9])
                return int(w), int(h)
            i += 2 + length
    return None


def image_tokens(width: int, height: int, detail: str = "high") -> int:
    """OpenAI's price of one image in prompt tokens (GPT-4o/4.1 tiles): 85, plus 170 a 512-px tile at high detail.

    The image is first fitted in 2048x2048, then its short side brought down to 768.
    """
    if detail == "low":
        return 85
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def count_prompt(messages: Sequence[Any]) -> tuple[int, int]:
    """(text tokens, image tokens) of browser-use's messages."""
    text = image = 0
    for m in messages:
        content = getattr(m, "content", None)
        if content is None:
            content = ""
        if isinstance(content, str):
            text += _count_tokens(content)
            continue
        for part in content:
            kind = getattr(part, "type", "")
            if kind == "text":
                text += _count_tokens(part.text)
            elif kind == "refusal":
                text += _count_tokens(part.refusal)
            elif kind == "image_url":
                size = _image_size(part.image_url.url) or (1920, 1080)
                image += image_tokens(*size, detail=part.image_url.detail)
        for call in getattr(m, "tool_calls", None) or []:
            text += _count_tokens(call.function.name + call.function.arguments)
    return text, image


# -- the oracle, as a browser-use chat model ------------------------------------------------

_DESCRIBE_JS = "(items) => {\n" + ELEMENT_HELPERS_JS + r"""
  const out = [];
  for (const [index, xpath] of items) {
    let n = null;
    try {
      n = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    } catch (e) { n = null; }
    if (!n || n.nodeType !== 1) { out.push(null); continue; }
    const me = sig(n);
    const t = me.tag;
    let value = null;
    if (t === 'input' && ['checkbox', 'radio'].includes((n.type || '').toLowerCase())) value = n.checked ? 'checked' : 'unchecked';
    else if (t === 'input' || t === 'textarea') value = n.value;
    else if (t === 'select') value = n.options[n.selectedIndex] ? n.options[n.selectedIndex].text : '';
    out.push({index, selector: selectorOf(n), role: me.role, name: labelOf(n),
              text: clean(n.innerText || n.textContent).slice(0, 200), tag: t, testid: me.testid, value,
              options: t === 'select' ? Array.from(n.options).map((o) => clean(o.text)) : null});
  }
  return JSON.stringify(out);
}"""
"""Describes browser-use's elements (found by their XPath) as agentjit's observer does, in one evaluate."""


DEMO_ANSWER: Any = object()
"""The default ``answer`` of :class:`OracleChatModel`: the demonstration's (:func:`~.oracle.answer_for`)."""


class OracleChatModel:
    """A browser-use chat model whose decisions come from the oracle replaying ``task``'s demonstration.

    For a literal variant of the task (``task`` with the variant's text, the demonstration found by its
    id), ``values`` maps the task's literals to the variant's (:func:`~.templates_bench.variant_values`):
    the demonstration is replayed with them substituted (:func:`~.oracle.substitute_steps`), and
    ``answer`` is what ``done`` carries instead of the demonstration's answer.

    ``session`` is the ``BrowserSession`` the agent drives (its element map
    gives the indices). Counters: ``calls``, ``input_tokens`` (text and
    images), ``image_tokens``, ``output_tokens``, ``model_s`` (wall time of
    every call), ``simulated_s`` (the profile's sleep), ``adapter_s``
    (describing elements and asking the oracle, part of ``model_s``),
    ``error`` (why the oracle gave up, if it did).
    """

    _verified_api_keys = True

    def __init__(self, task: Task, session: Any, profile: str | LatencyProfile = DEFAULT_PROFILE,
                 *, demos: Path | None = None, values: Mapping[str, str] | None = None,
                 answer: Any = DEMO_ANSWER) -> None:  # fmt: skip
        trace = read_trace(demo_path(task, demos), check_snapshots=False)
        steps = trace.steps if not values else substitute_steps(trace.steps, values)
        self.answer = answer_for(task, demos) if answer is DEMO_ANSWER else answer
        self.policy = OraclePolicy(steps, self.answer, secrets_for(task, trace.steps, demos))
        self.task = task
        self.session = session
        self.profile = get_profile(profile)
        self.model = f"oracle@{self.profile.name}"
        self.calls = 0
        self.input_tokens = 0
        self.image_tokens = 0
        self.output_tokens = 0
        self.model_s = 0.0
        self.simulated_s = 0.0
        self.adapter_s = 0.0
        self.error: str | None = None
        self.sent_actions = 0
        """browser-use actions answered (a ``type`` with ``submit`` is two: input, then Enter)."""
        self.actions: list[dict[str, Any]] = []
        """The oracle's actions, in agentjit's schema, one per call."""

    @property
    def provider(self) -> str:
        return "agentjit"

    @property
    def name(self) -> str:
        return self.model

    @property
    def model_name(self) -> str:
        return self.model

    async def _view(self) -> tuple[str, list[Element]]:
        """The page as the oracle reads it: agentjit's element lines, numbered with browser-use's indices."""
        selector_map = await self.session.get_selector_map()
        items = [[int(i), "/" + node.xpath.lstrip("/")] for i, node in selector_map.items() if getattr(node, "xpath", None)]
        described: list[Any] = []
        if items:
            cdp = await self.session.get_or_create_cdp_session(focus=False)
            res = await cdp.cdp_client.send.Runtime.evaluate(
                params={"expression": f"({_DESCRIBE_JS})({json.dumps(items)})", "returnByValue": True},
                session_id=cdp.session_id,
            )
            if "exceptionDetails" in res:
                raise RuntimeError(f"describing browser-use's elements failed: {res['exceptionDetails']}")
            described = json.loads(res["result"]["value"])
        elements: list[Element] = []
        for (index, _xpath), d in zip(items, described, strict=True):
            node = selector_map[index]
            if d is None:  # not reachable by XPath from the document (a shadow root, a frame): its own attributes
                attrs = getattr(node, "attributes", None) or {}
                ax = getattr(node, "ax_node", None)
                d = {"selector": "", "role": attrs.get("role") or getattr(ax, "role", None),
                     "name": getattr(ax, "name", None) or "", "text": "", "tag": getattr(node, "tag_name", "") or "",
                     "testid": attrs.get("data-testid"), "value": attrs.get("value"), "options": None}  # fmt: skip
            elements.append(
                Element(index=index, selector=d["selector"], role=d["role"], name=d["name"] or "", text=d["text"] or "",
                        tag=d["tag"], testid=d["testid"], value=d["value"], options=d["options"])  # fmt: skip
            )
        url = await self.session.get_current_page_url()
        lines = "\n".join(el.line() for el in elements)
        return f"URL: {url}\nTitle: \nInteractive elements:\n{lines}\nVisible text:\n", elements

    def _to_browser_use(self, action: dict[str, Any], base_url: str) -> list[dict[str, Any]]:
        kind = action["action"]
        if kind == "click":
            return [{"click": {"index": action["index"]}}]
        if kind == "type":
            out: list[dict[str, Any]] = [{"input": {"index": action["index"], "text": action.get("text") or "", "clear": True}}]
            if action.get("submit"):
                out.append({"send_keys": {"keys": "Enter"}})
            return out
        if kind == "select":
            return [{"select_dropdown": {"index": action["index"], "text": action.get("option") or ""}}]
        if kind == "scroll":
            return [{"scroll": {"down": action.get("direction", "down") == "down", "pages": 1.0}}]
        if kind == "goto":
            return [{"navigate": {"url": urljoin(base_url, action.get("url") or "/"), "new_tab": False}}]
        if kind == "back":
            return [{"go_back": {}}]
        answer = action.get("answer")
        text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        return [{"done": {"text": text, "success": True}}]

    async def ainvoke(self, messages: list[Any], output_format: Any = None, **kwargs: Any) -> Any:
        from browser_use.llm.views import ChatInvokeCompletion, ChatInvokeUsage

        t0 = time.perf_counter()
        text_tokens, img_tokens = count_prompt(messages)
        if output_format is None:  # a free-text request (a summary): answer briefly
            completion: Any = "(oracle)"
            out_text = completion
        else:
            try:
                view, _ = await self._view()
                base = view.splitlines()[0][5:]
                prompt = f"Task: {self.task.task}\n\nActions so far:\n\nCurrent page:\n{view}"
                action = json.loads(self.policy([Message(role="user", content=prompt)]))
                actions = self._to_browser_use(action, base)
            except (AgentJITError, RuntimeError, KeyError, ValueError) as exc:
                # the oracle cannot go on (its next target is not among browser-use's elements): stop the run
                self.error = self.error or f"{type(exc).__name__}: {exc}"
                action = {"action": "done", "answer": f"oracle gave up: {exc}"}
                actions = [{"done": {"text": action["answer"], "success": False}}]
            self.actions.append(action)
            self.sent_actions += len(actions)
            self.adapter_s += time.perf_counter() - t0
            body = {
                "thinking": None,
                "evaluation_previous_goal": "",
                "memory": "",
                "next_goal": action.get("note") or action["action"],
                "action": actions,
            }
            completion = output_format.model_validate(body)
            out_text = completion.model_dump_json(exclude_none=True)
        out_tokens = _count_tokens(out_text)
        prompt_tokens = text_tokens + img_tokens
        delay = self.profile.seconds(prompt_tokens, out_tokens)
        if delay > 0:
            await asyncio.sleep(delay)
        self.calls += 1
        self.input_tokens += prompt_tokens
        self.image_tokens += img_tokens
        self.output_tokens += out_tokens
        self.simulated_s += delay
        self.model_s += time.perf_counter() - t0
        usage = ChatInvokeUsage(prompt_tokens=prompt_tokens, prompt_cached_tokens=None, prompt_cache_creation_tokens=None,
                                prompt_image_tokens=img_tokens, completion_tokens=out_tokens,
                                total_tokens=prompt_tokens + out_tokens)  # fmt: skip
        return ChatInvokeCompletion(completion=completion, usage=usage)


# -- the report --------------------------------------------------------------------------------


class SideRun(BaseModel):
    """One agent's run of one task."""

    side: str
    """``browser-use`` or ``agent`` (agentjit's stepwise agent)."""
    run: int
    ok: bool
    reason: str = ""
    steps: int = 0
    """Agent steps (one model call each; browser-use's may carry several actions)."""
    actions: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    image_tokens: int = 0
    """Of ``input_tokens``, the screenshots' (browser-use, vision on)."""
    output_tokens: int = 0
    model_s: float = 0.0
    """Time in the model: the simulated latency plus the oracle's own (and, for browser-use, the adapter's)."""
    simulated_s: float = 0.0
    adapter_s: float = 0.0
    """browser-use only: describing its elements for the oracle and asking it (inside ``model_s``)."""
    latency_s: float = 0.0
    outside_model_s: float = 0.0
    outside_model_per_step_s: float = 0.0
    observe_s: float = 0.0
    """Of the time outside the model, reading the page for the model: the stepwise agent's observation
    (and its fresh context with the start page), browser-use's browser state (DOM tree, screenshot,
    its page-load waits)."""
    act_s: float = 0.0
    """Of the time outside the model, acting: the actions and the waits after them (browser-use's
    initial navigation to the start page included)."""
    other_s: float = 0.0
    """The rest of the time outside the model (prompt building, history, logging)."""
    dom_s: float = 0.0
    """browser-use only: building its DOM tree (inside ``observe_s``, in parallel with the screenshot)."""
    screenshot_s: float = 0.0
    """browser-use only: taking the screenshot (inside ``observe_s``)."""
    answer: Any = None
    error: str | None = None


class TaskRow(BaseModel):
    id: str
    kind: str
    runs: list[SideRun] = Field(default_factory=list)
    summary: dict[str, Any] = Field(default_factory=dict)


class BrowserUseReport(BaseModel):
    app: str
    profile: dict[str, Any]
    runs: int
    browser_use_version: str
    settings: dict[str, Any] = Field(default_factory=dict)
    command: str = ""
    load_average: list[float] = Field(default_factory=list)
    """``os.getloadavg()`` at the start and (second triple) at the end of the run."""
    tasks: list[TaskRow] = Field(default_factory=list)
    skipped: list[dict[str, str]] = Field(default_factory=list)
    summary: dict[str, Any] = Field(default_factory=dict)


def _finish(r: SideRun) -> SideRun:
    r.outside_model_s = max(0.0, r.latency_s - r.model_s)
    r.outside_model_per_step_s = r.outside_model_s / r.steps if r.steps else 0.0
    r.other_s = max(0.0, r.outside_model_s - r.observe_s - r.act_s)
    return r


class _Timer:
    """Wraps an object's async methods (on the instance) and adds up the wall time of their calls."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}

    def wrap(self, obj: Any, method: str, key: str) -> None:
        fn = getattr(obj, method)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.total[key] = self.total.get(key, 0.0) + time.perf_counter() - t

        object.__setattr__(obj, method, timed)  # pydantic models (the session) refuse setattr


async def browser_use_run(task: Task, run: int, *, site: Site, start_url: str, profile: LatencyProfile,
                          executable: str | None, use_vision: bool, max_steps: int,
                          values: Mapping[str, str] | None = None, answer: Any = DEMO_ANSWER) -> SideRun:  # fmt: skip
    """browser-use on ``task`` (the oracle replaying its demonstration; with ``values`` and ``answer``, a
    literal variant's: see :class:`OracleChatModel`), from a fresh browser, judged."""
    from browser_use import Agent, BrowserProfile, BrowserSession

    site.reset(draws=f"{task.id}/run-{run}")
    before = site.state()
    with tempfile.TemporaryDirectory(prefix="agentjit-bu-") as tmp:
        browser_profile = BrowserProfile(
            executable_path=executable, headless=True, args=[HOST_RULES], user_data_dir=None,
            enable_default_extensions=False, downloads_path=tmp,
        )  # fmt: skip
        session = BrowserSession(browser_profile=browser_profile)
        llm = OracleChatModel(task, session, profile, values=values, answer=answer)
        try:
            await session.start()  # the launch is not timed (the stepwise agent's pool is already up)
            agent = Agent(task=task.task, llm=llm, browser_session=session, use_judge=False, use_vision=use_vision,
                          initial_actions=[{"navigate": {"url": start_url, "new_tab": False}}],
                          file_system_path=tmp, enable_signal_handler=False, calculate_cost=False)  # fmt: skip
            timer = _Timer()
            timer.wrap(session, "get_browser_state_summary", "observe")
            timer.wrap(agent, "multi_act", "act")
            watchdog = getattr(session, "_dom_watchdog", None)
            if watchdog is not None:
                timer.wrap(watchdog, "_build_dom_tree_without_highlights", "dom")
                timer.wrap(watchdog, "_capture_clean_screenshot", "screenshot")
            log.info("browser-use starts %s (run %d)", task.id, run)
            t0 = time.perf_counter()
            history = await agent.run(max_steps=max_steps)
            latency = time.perf_counter() - t0
        finally:
            await session.kill()
    final = history.final_result()
    said: Any = final
    if final is not None and not isinstance(llm.answer, str):
        try:  # the oracle answered JSON (a list, a number): the judge reads it as such
            said = json.loads(final)
        except ValueError:
            said = final
    after = site.state()
    ok, reason = judge_answer(task, said, before, after, site.url)
    if llm.error and ok:
        ok, reason = False, f"the oracle gave up: {llm.error}"
    elif llm.error:
        reason = f"{reason}; the oracle gave up: {llm.error}"
    if not history.is_done():
        ok, reason = False, f"browser-use did not finish in {max_steps} steps; {reason}"
    return _finish(SideRun(
        side="browser-use", run=run, ok=ok, reason=reason, steps=llm.calls, actions=llm.sent_actions, model_calls=llm.calls,
        input_tokens=llm.input_tokens, image_tokens=llm.image_tokens, output_tokens=llm.output_tokens,
        model_s=llm.model_s, simulated_s=llm.simulated_s, adapter_s=llm.adapter_s, latency_s=latency,
        observe_s=timer.total.get("observe", 0.0), act_s=timer.total.get("act", 0.0),
        dom_s=timer.total.get("dom", 0.0), screenshot_s=timer.total.get("screenshot", 0.0),
        answer=said, error=llm.error,
    ))  # fmt: skip


async def _agent_run(task: Task, run: int, *, pool: Any, site: Site, start_url: str, profile: LatencyProfile,
                     budget_tokens: int = 6000) -> SideRun:  # fmt: skip
    """agentjit's stepwise agent on ``task``, as :mod:`agentjit.bench.e2e` runs it (fresh context, start page timed)."""
    from agentjit.llm.latency import SimulatedLatency

    from .oracle import oracle_model

    model = SimulatedLatency(oracle_model(task), profile)
    result, setup_s, ok, reason = await agent_once(task, run, model, pool=pool, site=site, start_url=start_url,
                                                   budget_tokens=budget_tokens)  # fmt: skip
    act_s = sum(s.act_s for s in result.steps)
    latency = setup_s + result.total_s
    # the rest of the run outside the model and the actions is observing (and the fresh context's start page)
    observe_s = max(0.0, latency - result.model_s - act_s)
    return _finish(SideRun(
        side="agent", run=run, ok=ok, reason=reason, steps=len(result.steps), actions=len(result.steps),
        model_calls=result.model_calls, input_tokens=result.usage.input_tokens,
        output_tokens=result.usage.output_tokens, model_s=result.model_s, simulated_s=model.simulated_s,
        latency_s=latency, observe_s=observe_s, act_s=act_s, answer=result.answer,
    ))  # fmt: skip


_FIELDS = ("steps", "actions", "model_calls", "input_tokens", "image_tokens", "output_tokens", "model_s",
           "simulated_s", "adapter_s", "latency_s", "outside_model_s", "outside_model_per_step_s", "observe_s",
           "act_s", "other_s", "dom_s", "screenshot_s")  # fmt: skip


def _side(runs: list[SideRun], side: str) -> dict[str, Any]:
    mine = [r for r in runs if r.side == side]
    out: dict[str, Any] = {f: mean_or_zero([getattr(r, f) for r in mine]) for f in _FIELDS}
    out["passed"] = sum(r.ok for r in mine)
    out["runs"] = len(mine)
    return out


def _summarize(report: BrowserUseReport) -> None:
    for t in report.tasks:
        t.summary = {side: _side(t.runs, side) for side in ("browser-use", "agent")}
    done = [t for t in report.tasks if t.summary["browser-use"]["runs"]]
    summary: dict[str, Any] = {"tasks": len(done), "skipped": [s["id"] for s in report.skipped]}
    for side in ("browser-use", "agent"):
        rows = [t.summary[side] for t in done]
        steps = sum(r["steps"] for r in rows)
        outside = sum(r["outside_model_s"] for r in rows)
        summary[side] = {
            **{f"mean_{f}": mean_or_zero([r[f] for r in rows]) for f in _FIELDS},
            "outside_model_per_step_s": outside / steps if steps else 0.0,
            "per_step_s": {k: sum(r[f"{k}_s"] for r in rows) / steps if steps else 0.0
                           for k in ("model", "observe", "act", "other", "dom", "screenshot")},  # fmt: skip
            "input_tokens_per_call": sum(r["input_tokens"] for r in rows) / max(1e-9, sum(r["model_calls"] for r in rows)),
            "model_share": sum(r["model_s"] for r in rows) / max(1e-9, sum(r["latency_s"] for r in rows)),
            "passed": sum(r["passed"] for r in rows),
            "runs": sum(r["runs"] for r in rows),
        }
    bu, ag = summary["browser-use"], summary["agent"]
    summary["latency_ratio"] = bu["mean_latency_s"] / ag["mean_latency_s"] if ag["mean_latency_s"] else None
    summary["outside_model_per_step_ratio"] = (
        bu["outside_model_per_step_s"] / ag["outside_model_per_step_s"] if ag["outside_model_per_step_s"] else None
    )
    report.summary = summary


async def run_browser_use_bench(
    app_name: str = "food",
    *,
    runs: int = 1,
    profile: str | LatencyProfile = DEFAULT_PROFILE,
    task_ids: Sequence[str] | None = None,
    use_vision: bool = True,
    max_steps: int = 30,
    latency_scale: float = 1.0,
    seed: int = 0,
    executable: str | None = None,
    pool: Any = None,
    command: str = "",
    on_run: Any = None,
) -> BrowserUseReport:
    """Both agents on ``app_name``'s tasks that have a demonstration, ``runs`` times; see the module docstring."""
    version = require_browser_use()
    from agentjit.tasks.runner import _pool, resolve_target

    prof = get_profile(profile)
    exe = chromium_executable(executable)
    target = resolve_target(app_name, task_ids=task_ids, latency_scale=latency_scale, seed=seed)
    site = target.site
    report = BrowserUseReport(
        app=app_name, profile=prof.to_json(), runs=runs, browser_use_version=version, command=command,
        settings={"use_vision": use_vision, "use_judge": False, "max_steps": max_steps, "chromium": exe,
                  "default_extensions": False, "other": "browser-use defaults (thinking, planning, 5 actions a step)"},
        load_average=list(os.getloadavg()),
    )  # fmt: skip
    tasks = [t for t in target.tasks if has_demo(t)]
    report.skipped = [{"id": t.id, "kind": t.kind, "reason": "no recorded demonstration for the oracle"}
                      for t in target.tasks if not has_demo(t)]  # fmt: skip
    if not tasks:
        raise ConfigError(f"no task of {app_name!r} has a demonstration for the oracle")
    rows = {t.id: TaskRow(id=t.id, kind=t.kind) for t in tasks}
    site.start()
    try:
        async with _pool(pool) as active:
            start_url = urls.site_url(site.url, target.cache.info.start_path)
            for r in range(runs):
                for task in tasks:
                    for side in ("agent", "browser-use"):
                        try:
                            if side == "agent":
                                res = await _agent_run(task, r, pool=active, site=site, start_url=start_url, profile=prof)
                            else:
                                res = await browser_use_run(task, r, site=site, start_url=start_url, profile=prof,
                                                             executable=exe, use_vision=use_vision, max_steps=max_steps)  # fmt: skip
                        except Exception as exc:  # one side's crash is that run's failure, the bench goes on
                            log.exception("%s on %s failed", side, task.id)
                            res = SideRun(side=side, run=r, ok=False, reason=f"{type(exc).__name__}: {exc}", error=str(exc))
                        rows[task.id].runs.append(res)
                        if on_run is not None:
                            on_run(task.id, res)
    finally:
        site.stop()
    report.tasks = list(rows.values())
    report.load_average += list(os.getloadavg())
    _summarize(report)
    return report


def _table(report: BrowserUseReport) -> str:
    head = (f"{'task':16} {'side':11} {'ok':>5} {'steps':>5} {'in tok':>7} {'out tok':>7} {'model s':>8} "
            f"{'outside s':>9} {'/step':>6} {'observe':>7} {'act':>6} {'total s':>8}")  # fmt: skip
    lines = [head]

    def row(name: str, side: str, s: dict[str, Any], per_step: float, prefix: str = "") -> str:
        steps = max(1e-9, s[prefix + "steps"])
        return (f"{name:16} {side:11} {s['passed']:>2}/{s['runs']:<2} {s[prefix + 'steps']:>5.1f} "
                f"{s[prefix + 'input_tokens']:>7.0f} {s[prefix + 'output_tokens']:>7.0f} {s[prefix + 'model_s']:>8.2f} "
                f"{s[prefix + 'outside_model_s']:>9.2f} {per_step:>6.2f} {s[prefix + 'observe_s'] / steps:>7.2f} "
                f"{s[prefix + 'act_s'] / steps:>6.2f} {s[prefix + 'latency_s']:>8.2f}")  # fmt: skip

    for t in report.tasks:
        for side in ("agent", "browser-use"):
            s = t.summary[side]
            lines.append(row(t.id, side, s, s["outside_model_per_step_s"]))
    for side in ("agent", "browser-use"):
        s = report.summary[side]
        lines.append(row("mean", side, s, s["outside_model_per_step_s"], prefix="mean_"))
    lines.append("(/step, observe and act: seconds outside the model per step)")
    if report.skipped:
        lines.append("skipped: " + ", ".join(s["id"] for s in report.skipped))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agentjit.bench.browser_use_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--app", default="food")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--profile", default=DEFAULT_PROFILE, help="simulated model latency profile (both sides)")
    p.add_argument("--task", action="append", dest="tasks", help="a task id (repeat; default: every task with a demonstration)")
    p.add_argument("--no-vision", action="store_true", help="browser-use without screenshots (its default is vision on)")
    p.add_argument("--max-steps", type=int, default=30)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--out", type=Path, help="also write the JSON report to this file")
    args = p.parse_args(argv)
    try:
        require_browser_use()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    command = "python -m agentjit.bench.browser_use_bench " + " ".join(sys.argv[1:] if argv is None else argv)

    def progress(task_id: str, r: SideRun) -> None:
        print(f"{task_id} {r.side}: ok={r.ok} steps={r.steps} {r.latency_s:.2f}s ({r.model_s:.2f}s model) {r.reason[:120]}",
              file=sys.stderr, flush=True)  # fmt: skip

    try:
        report = asyncio.run(run_browser_use_bench(args.app, runs=args.runs, profile=args.profile, task_ids=args.tasks,
                                                   use_vision=not args.no_vision, max_steps=args.max_steps,
                                                   command=command.strip(), on_run=progress))  # fmt: skip
    except AgentJITError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = report.model_dump(mode="json")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(data, indent=1, ensure_ascii=False) if args.json else _table(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
