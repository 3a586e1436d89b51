"""The stepwise agent standing in for one call of a suspect tool (issue 21).

:func:`agent_tool_fallback` makes a :data:`~agentjit.runtime.healing.ToolFallback`:
the agent gets the tool's description, its arguments and its output schema as
the task, acts on the plan's own page, and its ``done`` answer (JSON, or an
object) is the call's output. The runtime checks the answer against the
output schema before the plan sees it; writes the agent makes go through its
effect log, one scope per fallback call.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from agentjit.exceptions import ModelResponseError
from agentjit.llm.base import Model
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.trace import TraceWriter
from agentjit.runtime.effects import EffectLog
from agentjit.runtime.healing import FallbackAnswer, Suspect, ToolFallback

from .stepwise import StepwiseAgent

__all__ = ["agent_tool_fallback", "fallback_instruction"]


def fallback_instruction(tool: ToolManifest, args: dict[str, Any]) -> str:
    """The task the agent gets in place of ``tool(**args)``: what the tool does, with what, and the answer's shape."""
    lines = [
        f"Do what the tool {tool.name!r} does, on the current page: {tool.description}",
        f"Arguments: {json.dumps(args, ensure_ascii=False, sort_keys=True)}",
    ]
    if tool.is_write:
        lines.append("This changes the site: do it exactly once.")
    lines.append(
        'Finish with {"action": "done", "answer": ANSWER} where ANSWER is one JSON object matching this JSON Schema: '
        + json.dumps(tool.output_schema, ensure_ascii=False, sort_keys=True)
    )
    return "\n".join(lines)


def _as_output(answer: Any) -> Any:
    """The agent's ``done`` answer as the tool's output: an object as it is, a JSON text parsed."""
    if isinstance(answer, str):
        text = answer.strip()
        if text.startswith("```"):
            text = text.strip("`").removeprefix("json").strip()
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise ModelResponseError(f"the fallback's answer is not a JSON object: {answer[:200]!r}") from None
    return answer


def agent_tool_fallback(
    model: Model,
    *,
    effects: EffectLog | None = None,
    trace: TraceWriter | None = None,
    max_steps: int = 15,
    budget_tokens: int = 6000,
    clock: Callable[[], float] = time.perf_counter,
) -> ToolFallback:
    """A fallback for :class:`~agentjit.runtime.Runtime` (``fallback=``): the stepwise agent does the suspect
    call on the plan's page. ``trace`` receives the agent's steps (the recorder's format: a source for
    ``toolcache`` to rebuild the tool from)."""
    log_ = effects if effects is not None else EffectLog()
    count = 0

    async def fallback(page: Any, tool: ToolManifest, args: dict[str, Any], suspect: Suspect) -> FallbackAnswer:
        nonlocal count
        count += 1
        agent = StepwiseAgent(model, max_steps=max_steps, budget_tokens=budget_tokens, effects=log_, trace=trace,
                              clock=clock)  # fmt: skip
        t0 = clock()
        result = await agent.run(page, fallback_instruction(tool, args), scope=f"fallback-{tool.name}-{count}")
        return FallbackAnswer(
            output=_as_output(result.answer),
            model_calls=result.model_calls,
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
            time_s=clock() - t0,
            steps=len(result.steps),
            trace_path=str(trace.path) if trace is not None else None,
        )

    return fallback
