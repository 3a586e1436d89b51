"""The runtime: browser pool, tool invocation, the plan interpreter and run strategies."""

from .browser import HOST_RULES, BrowserPool, chromium_executable, parse_browser_spec
from .clock import MonotonicClock
from .effects import EffectGate, EffectKey, EffectLog, EffectRecord
from .hedge import HedgeStrategy
from .interpreter import PlanRun, execute_plan, format_prompt, parse_plan
from .invoke import CallOutcome, call_tool
from .parallel import ParallelStrategy
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
    "HOST_RULES", "BrowserPool", "chromium_executable", "parse_browser_spec",
    "PlanRun", "execute_plan", "format_prompt", "parse_plan",
    "CallOutcome", "call_tool",
    "EffectGate", "EffectKey", "EffectLog", "EffectRecord",
    "HedgeStrategy", "MonotonicClock", "ParallelStrategy",
    "STRATEGIES", "RunResult", "Runtime", "SerialStrategy", "Strategy", "model_ai_eval", "run_plan",
]
