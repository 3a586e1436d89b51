"""What everyone must agree on about a plan: its bounds and the run-time guard.

This layer sits below the planner, the scheduler and the runtime and imports
only :mod:`agentjit.exceptions` and the standard library, so the sandboxed
child process that runs a plan loads nothing else.
"""

from .limits import DEFAULT_LIMITS, PlanLimits

__all__ = ["PlanLimits", "DEFAULT_LIMITS"]
