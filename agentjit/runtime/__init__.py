"""The runtime: browser pool, tool invocation, the plan interpreter and run strategies."""

from .browser import HOST_RULES, BrowserPool, chromium_executable
from .interpreter import PlanRun, execute_plan, format_prompt, parse_plan
from .invoke import CallOutcome, call_tool
from .runner import (
    STRATEGIES,
    RunResult,
    Runtime,
    SerialStrategy,
    Strategy,
    model_ai_eval,
    run_plan,
)

__all__ = [
    "HOST_RULES", "BrowserPool", "chromium_executable",
    "PlanRun", "execute_plan", "format_prompt", "parse_plan",
    "CallOutcome", "call_tool",
    "STRATEGIES", "RunResult", "Runtime", "SerialStrategy", "Strategy", "model_ai_eval", "run_plan",
]
