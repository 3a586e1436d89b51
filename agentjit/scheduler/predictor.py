"""Optional LLM usage predictor in the paper's three steps (Algorithm 2, line 5).

A. sequential usage: which tools a serial run calls, and how often;
B. parallelizable? independent operations on separate entities;
C. parallel usage (only if B says yes): the calls one worker makes, the number
   of workers, and the navigation calls each worker must repeat.

The answers become a :class:`~agentjit.scheduler.usage.PlanUsage`, the same
shape :func:`~agentjit.scheduler.usage.plan_usage` reads from plan source, so
the Monte Carlo is unchanged. Reading usage from a compiled plan is the
default; this predictor is for tasks that have no plan yet.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from agentjit.exceptions import ModelResponseError
from agentjit.llm.base import Message, Model
from agentjit.protocol.manifest import Effect, ToolManifest

from .usage import CallUse, LoopUse, PlanUsage

__all__ = ["LLMUsagePredictor"]

log = logging.getLogger(__name__)

_SEQUENTIAL = """You estimate which website tools an automation run will call.
You get a task and a list of tools (name, READ or WRITE, what it does, page elements it touches).
List the calls a single browser doing the task one step after another would make, in order,
with how many times each is called. Reading what is already on the page needs no extra call;
each navigation or interaction is a call. Use only tools from the list.
Answer with JSON only: {"calls": [{"tool": "<name>", "count": <int>}]}"""

_PARALLEL_CHECK = """You decide whether a browser task splits into independent pieces.
It does when the same operation is repeated on several separate entities (several items,
restaurants, emails, orders) and no piece needs another's result. A single-entity task, a
chain of dependent steps, or reading everything from one page does not split.
Answer with JSON only: {"parallelizable": true|false, "reason": "<one sentence>"}"""

_PARALLEL_USAGE = """You split a serial tool plan over independent browser workers.
Every call in the serial plan must still happen. Say which calls one worker makes for its
entity (count per worker), how many workers the task needs in total (one per entity, it may
exceed the number of browsers; extra workers run in batches), which calls run once outside
the workers, and which navigation calls each worker must repeat to reach its starting page
(workers do not share a page).
Answer with JSON only: {"per_worker": [{"tool": "<name>", "count": <int>}], "num_workers": <int>,
"shared": [{"tool": "<name>", "count": <int>}], "rediscovery": ["<tool>", ...]}"""


def _tool_lines(tools: Mapping[str, ToolManifest]) -> str:
    lines = []
    for tool in tools.values():
        elements = f" [elements: {', '.join(tool.elements)}]" if tool.elements else ""
        lines.append(f"- {tool.name} ({tool.effect.value}): {tool.description}{elements}")
    return "\n".join(lines)


def _parse_json(text: str, step: str) -> dict[str, Any]:
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ModelResponseError(
            f"usage predictor step {step}: no JSON object in the answer: {text[:200]!r}"
        )
    try:
        data = json.loads(body[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ModelResponseError(
            f"usage predictor step {step}: invalid JSON ({exc.msg}): {text[:200]!r}"
        ) from None
    if not isinstance(data, dict):
        raise ModelResponseError(f"usage predictor step {step}: expected a JSON object")
    return data


class LLMUsagePredictor:
    """Predicts a plan's tool usage from the task text with a language model (three prompts)."""

    def __init__(self, model: Model, *, temperature: float | None = 0.0) -> None:
        self.model = model
        self.temperature = temperature

    async def _ask(self, system: str, user: str, step: str) -> dict[str, Any]:
        response = await self.model.request(
            [Message(role="system", content=system), Message(role="user", content=user)],
            temperature=self.temperature,
        )
        return _parse_json(response.text, step)

    def _calls(
        self, raw: Any, tools: Mapping[str, ToolManifest], step: str, field: str
    ) -> list[CallUse]:
        if not isinstance(raw, list):
            raise ModelResponseError(f"usage predictor step {step}: '{field}' must be a list")
        out: list[CallUse] = []
        for item in raw:
            if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
                raise ModelResponseError(
                    f"usage predictor step {step}: each '{field}' entry needs a 'tool'"
                )
            name = item["tool"]
            count = item.get("count", 1)
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ModelResponseError(
                    f"usage predictor step {step}: count of {name!r} must be a whole number"
                )
            if name not in tools:
                log.warning("usage predictor step %s named unknown tool %r; ignored", step, name)
                continue
            tool = tools[name]
            if count:
                out.append(
                    CallUse(
                        tool=name,
                        effect=tool.effect,
                        line=0,
                        elements=tuple(tool.elements),
                        count=count,
                    )
                )
        return out

    async def predict(self, task: str, tools: Mapping[str, ToolManifest] | Any) -> PlanUsage:
        """Run steps A, B and (if B says yes) C; ``tools`` is a ToolCache or a name -> manifest map."""
        manifests: Mapping[str, ToolManifest] = getattr(tools, "tools", tools)
        menu = _tool_lines(manifests)
        a = await self._ask(_SEQUENTIAL, f"Task: {task}\n\nTools:\n{menu}", "A")
        sequential = self._calls(a.get("calls"), manifests, "A", "calls")
        b = await self._ask(_PARALLEL_CHECK, f"Task: {task}\n\nIs this parallelizable?", "B")
        parallel = b.get("parallelizable")
        if not isinstance(parallel, bool):
            raise ModelResponseError(
                "usage predictor step B: 'parallelizable' must be true or false"
            )
        if not parallel:
            return PlanUsage(prefix=sequential, loop=None, suffix=[])

        plan_text = "\n".join(f"- {c.tool} x{c.count} ({c.effect.value})" for c in sequential)
        c = await self._ask(
            _PARALLEL_USAGE, f"Task: {task}\n\nSerial plan:\n{plan_text}\n\nTools:\n{menu}", "C"
        )
        per_worker = self._calls(c.get("per_worker"), manifests, "C", "per_worker")
        workers = c.get("num_workers")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ModelResponseError(
                "usage predictor step C: 'num_workers' must be a positive whole number"
            )
        rediscovery = c.get("rediscovery", [])
        if not isinstance(rediscovery, list) or not all(isinstance(t, str) for t in rediscovery):
            raise ModelResponseError(
                "usage predictor step C: 'rediscovery' must be a list of tool names"
            )
        replay = self._calls(
            [{"tool": t, "count": 1} for t in rediscovery], manifests, "C", "rediscovery"
        )

        # The serial usage of step A stays the total; what the workers do not cover runs once,
        # READs before the loop and WRITEs after it.
        remaining = {call.tool: call.count for call in sequential}
        for call in per_worker:
            remaining[call.tool] = remaining.get(call.tool, 0) - call.count * workers
        prefix = [
            CallUse(
                tool=x.tool, effect=x.effect, line=0, elements=x.elements, count=remaining[x.tool]
            )
            for x in sequential
            if remaining.get(x.tool, 0) > 0 and x.effect is Effect.READ
        ]
        suffix = [
            CallUse(
                tool=x.tool, effect=x.effect, line=0, elements=x.elements, count=remaining[x.tool]
            )
            for x in sequential
            if remaining.get(x.tool, 0) > 0 and x.effect is Effect.WRITE
        ]
        writes = [x for x in per_worker if x.effect is Effect.WRITE]
        ok = not writes
        reason = str(b.get("reason") or "the model says the task splits into independent pieces")
        if writes:
            reason = f"WRITE tool {writes[0].tool!r} per worker (writes are never parallelized)"
        loop = LoopUse(
            line=0,
            kind="llm",
            body=per_worker,
            trips=workers,
            trip_source="llm",
            parallel_ok=ok,
            reason=reason,
            entry_replay=replay,
        )
        return PlanUsage(prefix=prefix, loop=loop, suffix=suffix)
