"""Which demonstrated steps a built cache has a tool for: ``python -m toolcache.coverage``.

The builder's report counts tools; this counts steps. Each step of each trace is
labeled as the builder labels it (its page and element, ``toolcache.build``'s own
labeling, no model); a step is *covered* when a tool of the cache acts on that
element (the tool's ``elements``): a tool that only reads (a list, a page's
details, ``observe_page``) covers no click, fill, select, press or check, even on
an element it reads. A step no element of the page matched is named by its
target (:func:`step_key`): a workflow tool (:mod:`toolcache.workflow`) that
replays it lists that key. ``goto`` steps are left out: a plan starts on
the cache's start page and moves with tools. The steps no tool covers are listed
with their page, element and target, which is what a builder fix starts from.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["StepCoverage", "count_coverage", "step_coverage", "step_key", "ACTIONS"]

ACTIONS = frozenset({"click", "check", "fill", "select", "press"})
"""Steps that act on their element: only a tool that acts covers them."""


def step_key(ls: Any) -> str | None:
    """What a tool's ``elements`` names a labeled step by: ``page.element``; a step no element
    matched, by its page and target (``page.~click:button:Finish``); None without a page or a target."""
    if ls.element is not None:
        return f"{ls.page_before}.{ls.element.name}"
    target = ls.step.target
    if ls.page_before is None or target is None:
        return None
    what = target.name or target.text or target.selector or ""
    return f"{ls.page_before}.~{ls.step.action}:{target.role or target.tag or ''}:{what[:80]}"


def _reads_only(tool: Any) -> bool:
    """A tool that reads the page and clicks nothing: a list, a page's details, observe."""
    kind = str(getattr(tool.type, "value", tool.type))
    return kind in ("listItems", "observe") or (kind == "getFields" and not tool.parameters)


@dataclass
class StepCoverage:
    steps: int = 0
    covered: int = 0
    missed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def fraction(self) -> float:
        return self.covered / self.steps if self.steps else 1.0

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "covered": self.covered, "fraction": round(self.fraction, 3), "missed": self.missed}


def count_coverage(labeled: dict[str, list[Any]], tools: Any, reasons: dict[tuple[str, int], str] | None = None) -> StepCoverage:
    """Which non-``goto`` steps of ``labeled`` (trace -> labeled steps) a tool of ``tools`` (manifests)
    acts on: the build's ``coverage`` and :func:`step_coverage` alike. ``reasons`` says why a
    step (trace, step index) is not covered when the build knows better than "no tool acts on it"
    (the workflow tool made for it was rejected, and why)."""
    tools = list(tools)
    acting = {e for t in tools if not _reads_only(t) for e in (t.elements or [])}
    reading = {e for t in tools if _reads_only(t) for e in (t.elements or [])}
    out = StepCoverage()
    for trace, steps in labeled.items():
        for ls in steps:
            if ls.step.action == "goto":
                continue
            out.steps += 1
            key = step_key(ls)
            why = (reasons or {}).get((trace, ls.step.index))
            # a step whose own workflow tool was rejected stays uncovered, whatever shares its element
            if why is None and key is not None and (key in acting or (key in reading and ls.step.action not in ACTIONS)):
                out.covered += 1
                continue
            target = ls.step.target
            if why is None:
                why = "no element of the page matched the step (unlabeled)" if ls.element is None else "no tool acts on it"
            out.missed.append({
                "trace": Path(trace).name, "index": ls.step.index, "action": ls.step.action,
                "page": ls.page_before, "element": key if ls.element is not None else None,
                "why": why,
                "target": {k: getattr(target, k, None) for k in ("selector", "role", "name")} if target else None,
            })
    return out


async def step_coverage(traces: list[Path], cache_dir: Path) -> StepCoverage:
    """Label ``traces`` the builder's way and check each non-``goto`` step against ``cache_dir``'s tools."""
    from agentjit.cache import ToolCache

    from .build import BuildReport, _extract, _label, load_traces

    cache = ToolCache.load(cache_dir)
    report = BuildReport()
    loaded = load_traces(traces, report)
    site, per_step = _extract(loaded, None, (cache.info.builder or {}).get("routes") or ())
    labeled = await _label(loaded, site, per_step, None, report, None)
    return count_coverage(labeled, cache.tools.values())


def main() -> None:  # pragma: no cover - a measuring command
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("traces", nargs="+", help="trace files or directories of them")
    p.add_argument("--cache", required=True, help="the cache built from them")
    args = p.parse_args()
    files = sorted(f for t in args.traces for f in (Path(t).glob("*.jsonl") if Path(t).is_dir() else [Path(t)]))
    print(json.dumps(asyncio.run(step_coverage(files, Path(args.cache))).to_json(), indent=1))


if __name__ == "__main__":  # pragma: no cover
    main()
