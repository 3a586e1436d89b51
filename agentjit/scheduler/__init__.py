"""The scheduler: fitted latency distributions, plan usage, Monte Carlo, strategy choice (Algorithm 2).

``distributions`` fits per-tool latencies (scipy) and keeps them in the cache's
``latency.json``; ``usage`` reads the calls, loop and effects of a plan;
``montecarlo`` estimates serial, parallel and hedge latencies with numpy;
``scheduler`` picks the strategy and the number of workers.
"""

from .distributions import (
    FAMILIES,
    MAX_KEPT_SAMPLES,
    MIN_FIT_SAMPLES,
    Distribution,
    Empirical,
    FitResult,
    durations_from_steps,
    fit_latency,
    fits_from_json,
    fits_to_json,
    refit_from_traces,
)
from .montecarlo import (
    DEFAULT_LATENCY_S,
    DEFAULT_TRIALS,
    LatencyModel,
    Overheads,
    StrategyEstimate,
    StrategyName,
    simulate_hedge,
    simulate_hedge_many,
    simulate_parallel,
    simulate_parallel_many,
    simulate_serial,
    summarize,
    win_rates,
)
from .predictor import LLMUsagePredictor
from .scheduler import Objective, Schedule, Scheduler, load_latency, load_overheads, schedule_plan
from .usage import (
    DEFAULT_TRIPS,
    LLM_CALL,
    CallUse,
    LoopUse,
    PlanUsage,
    observed_lengths_from_steps,
    plan_usage,
)

__all__ = [
    # distributions
    "FAMILIES",
    "MAX_KEPT_SAMPLES",
    "MIN_FIT_SAMPLES",
    "Distribution",
    "Empirical",
    "FitResult",
    "durations_from_steps",
    "fit_latency",
    "fits_from_json",
    "fits_to_json",
    "refit_from_traces",
    # usage
    "DEFAULT_TRIPS",
    "LLM_CALL",
    "CallUse",
    "LoopUse",
    "PlanUsage",
    "observed_lengths_from_steps",
    "plan_usage",
    "LLMUsagePredictor",
    # monte carlo
    "DEFAULT_LATENCY_S",
    "DEFAULT_TRIALS",
    "LatencyModel",
    "Overheads",
    "StrategyName",
    "StrategyEstimate",
    "simulate_hedge",
    "simulate_hedge_many",
    "simulate_parallel",
    "simulate_parallel_many",
    "simulate_serial",
    "summarize",
    "win_rates",
    # scheduling
    "Objective",
    "Schedule",
    "Scheduler",
    "load_latency",
    "load_overheads",
    "schedule_plan",
]
