"""Time the checker per candidate: ``python -m agentjit.planner.bench_checker [CACHE_DIR] [PLAN.py ...]``.

Without arguments it checks the food site's reference plans against its cache.
Reports, per plan and over all, the median wall time of :func:`check` (parse
included) and its CPU time (less disturbed by other processes on a busy box).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache

from .checker import check

__all__ = ["bench", "main"]


def bench(sources: dict[str, str], cache: ToolCache, *, repeat: int = 200) -> dict[str, Any]:
    """Median wall and CPU milliseconds of ``check`` for each source, and over all runs."""
    per: dict[str, Any] = {}
    all_wall: list[float] = []
    all_cpu: list[float] = []
    for name, src in sources.items():
        check(src, cache)  # warm caches (validators, field tables)
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(repeat):
            w, c = time.perf_counter(), time.process_time()
            check(src, cache)
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        per[name] = {
            "lines": len(src.splitlines()),
            "median_ms": statistics.median(wall) * 1e3,
            "cpu_median_ms": statistics.median(cpu) * 1e3,
            "min_ms": min(wall) * 1e3,
        }
        all_wall += wall
        all_cpu += cpu
    return {
        "plans": per,
        "median_ms": statistics.median(all_wall) * 1e3 if all_wall else None,
        "cpu_median_ms": statistics.median(all_cpu) * 1e3 if all_cpu else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    here = Path(__file__).resolve().parent.parent / "bench" / "food"
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("cache", nargs="?", default=str(here / "cache"))
    ap.add_argument("plans", nargs="*")
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args(argv)
    cache = ToolCache.load(args.cache)
    paths = [Path(p) for p in args.plans] or sorted((here / "plans").glob("*.py"))
    sources = {p.name: p.read_text(encoding="utf-8") for p in paths}
    print(json.dumps(bench(sources, cache, repeat=args.repeat), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
