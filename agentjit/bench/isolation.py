"""Benchmark: what running a plan in the sandbox child costs, per tool call and per run.

The same plan (``n`` calls of one tool, each returning an output the size of
``list_stores``'s: 34 records of 6 fields) runs in-process under the guard and
in the sandboxed child, interleaved, ``repeat`` times. The tool answers at
once, so the difference is the isolation itself: the JSON round trip over the
pipe, encoding and decoding, and the child's records. Start-up (spawning the
child, locking it in) is reported separately. Wall time suffers from other
load on the machine; CPU time (this process during the plan, plus the child's
whole life, start-up included) does much less, so both are reported.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import time
from typing import Any

from agentjit.plan.limits import PlanLimits
from agentjit.protocol.manifest import ToolManifest, ToolType
from agentjit.runtime.interpreter import PlanRun, parse_plan

__all__ = ["measure_isolation"]

_OUTPUT = {
    "items": [
        {"name": f"Store {i}", "rating": 4.5, "reviews": 100 + i, "eta": "20 min", "fee": 1.99, "id": f"store-{i}"}
        for i in range(34)
    ]
}
_SCHEMA = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
        k: {"type": "string"} for k in ("name", "eta", "id")}}}},
}


class _InstantRun(PlanRun):
    """A PlanRun whose one tool answers at once with a fixed output (no browser)."""

    async def call_raw(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return _OUTPUT


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def _time_plan(n: int, isolate: bool) -> tuple[float, float, float]:
    tool = ToolManifest(name="list_things", description="bench", type=ToolType.LIST_ITEMS, execute="return 1;",
                        output_schema=_SCHEMA)
    run = _InstantRun({"list_things": tool}, page=None, limits=PlanLimits(isolate=isolate, time_s=600))
    source = f"total = 0\nfor i in range({n}):\n    r = await list_things()\n    total += len(r.items)\nresult = total"
    tree = parse_plan(source, frozenset(run.tools))
    t0 = time.perf_counter()
    cpu0 = _child_cpu()
    async with run.vm() as vm:
        t1 = time.perf_counter()
        c1 = time.process_time()
        values, _ = await vm.run(tree)
        t2 = time.perf_counter()
        c2 = time.process_time()
    cpu = (c2 - c1) + (_child_cpu() - cpu0)  # this process during the body, plus the child's whole life
    if values.get("result") != n * 34:
        raise RuntimeError(f"isolation bench plan returned {values.get('result')!r}")
    return t1 - t0, t2 - t1, cpu


async def measure_isolation(n: int = 200, repeat: int = 5) -> dict[str, Any]:
    """Median per-call and start-up seconds, in-process against the sandbox child."""
    per_call: dict[bool, list[float]] = {False: [], True: []}
    cpu_per_call: dict[bool, list[float]] = {False: [], True: []}
    startup: dict[bool, list[float]] = {False: [], True: []}
    isolation: dict[str, Any] = {}
    await _time_plan(5, True)  # warm the page cache for the child's interpreter
    for _ in range(repeat):
        for isolate in (False, True):
            start, body, cpu = await _time_plan(n, isolate)
            startup[isolate].append(start)
            per_call[isolate].append(body / n)
            cpu_per_call[isolate].append(cpu / n)
    probe = _InstantRun({}, page=None)
    async with probe.vm() as vm:
        isolation = dict(getattr(vm, "isolation", {}))
    inproc = statistics.median(per_call[False])
    child = statistics.median(per_call[True])
    return {
        "calls_per_plan": n,
        "repeat": repeat,
        "in_process_per_call_ms": round(inproc * 1000, 4),
        "isolated_per_call_ms": round(child * 1000, 4),
        "added_per_call_ms": round((child - inproc) * 1000, 4),
        "in_process_cpu_per_call_ms": round(statistics.median(cpu_per_call[False]) * 1000, 4),
        "isolated_cpu_per_call_ms": round(statistics.median(cpu_per_call[True]) * 1000, 4),
        "added_cpu_per_call_ms": round((statistics.median(cpu_per_call[True])
                                        - statistics.median(cpu_per_call[False])) * 1000, 4),
        "child_startup_ms": round(statistics.median(startup[True]) * 1000, 1),
        "isolation": isolation,
    }


def main() -> None:  # pragma: no cover - `agentjit bench isolation` is the entry point
    import json

    print(json.dumps(asyncio.run(measure_isolation()), indent=2))
