"""The resource bounds of one plan run (issue 8): time, steps, sizes, memory.

Every bound has a default and a CLI flag (``--time-limit``, ``--max-steps``);
crossing one stops the plan with :class:`~agentjit.exceptions.PlanLimitExceeded`
naming the bound and the plan line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["PlanLimits", "DEFAULT_LIMITS"]


@dataclass(frozen=True)
class PlanLimits:
    """Bounds on one plan run.

    ``time_s`` is the wall-clock limit of the whole run (tool calls included);
    ``max_steps`` counts loop iterations, comprehension items and calls;
    ``max_int_bits`` bounds integers made by ``**``, ``<<`` and ``*``;
    ``max_str`` and ``max_items`` bound the length of strings and of lists,
    dicts, sets and tuples a plan builds; ``max_depth`` bounds the nesting of
    values (checked where values leave the plan). ``max_call_chars`` bounds the
    arguments of one tool call, ``ai_eval``, ``ask_human`` or ``ai_exec`` (as
    JSON text) and ``max_sent_chars`` all of them over the run: the runtime
    keeps every call's arguments in its trace. ``isolate`` runs the plan in
    a child process with ``memory_mb`` of address space and ``cpu_s`` of CPU
    time, a scrubbed environment and, where the OS allows, no network.
    """

    time_s: float = 300.0
    max_steps: int = 1_000_000
    max_int_bits: int = 65_536
    max_str: int = 10_000_000
    max_items: int = 1_000_000
    max_depth: int = 100
    max_call_chars: int = 1_000_000
    max_sent_chars: int = 50_000_000
    memory_mb: int = 1024
    cpu_s: int = 600
    isolate: bool = True

    def with_(self, **changes: object) -> PlanLimits:
        """A copy with ``changes`` (None values are ignored, so CLI defaults pass through)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]


DEFAULT_LIMITS = PlanLimits()
