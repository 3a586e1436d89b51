"""The stepwise agent: one model call per browser action (the bench baseline, ``ai_exec``, a trace source).

:class:`StepwiseAgent` observes the page (:func:`observe`: indexed interactive
elements and visible text, trimmed to a token budget), asks a
:class:`~agentjit.llm.Model` for one JSON action, validates it, acts through
Playwright and records the step in the trace format the runtime and the
recorder share. WRITE actions go through the run's effect log.
"""

from .fallback import agent_tool_fallback, fallback_instruction
from .observe import Element, Observation, observe, parse_elements
from .stepwise import (
    SYSTEM_PROMPT,
    AgentAction,
    AgentResult,
    AgentStep,
    StepwiseAgent,
    agent_ai_exec,
    parse_action,
)

__all__ = [
    "Element", "Observation", "observe", "parse_elements",
    "SYSTEM_PROMPT", "AgentAction", "AgentResult", "AgentStep", "StepwiseAgent", "parse_action", "agent_ai_exec",
    "agent_tool_fallback", "fallback_instruction",
]  # fmt: skip
