"""Heal a broken tool in the middle of the run that found it, with no model (issue 21).

A suspect call (:mod:`agentjit.runtime.healing`) may be answered two ways. The
stepwise agent (a :data:`~agentjit.runtime.healing.ToolFallback`) does the call
with a model. A :data:`ToolRepair`, tried first, rebuilds the tool itself:
:class:`HealInRun` runs ``toolcache heal --tool NAME --no-probe`` on the run's
cache directory as a process of its own (the builder imports agentjit, never
the reverse), on pages that start from the run's own browser session (its
cookies and local storage, handed over on stdin: the cart the plan filled, the
user it signed in), and returns the healed manifest. The interpreter then calls
the healed tool once in place of the broken one, through the same write gate,
and the plan goes on; the cache on disk already holds the healed version, so
the next run needs neither the heal nor a model.

Healing is read-only (every state-changing request a heal page makes is
answered from the record or refused), so a repair never changes the site; the
one call that may is the healed tool's own, and only for a WRITE known not to
have reached the site before (the same rule as the fallback).

A WRITE that did reach the site and then broke (it sent the order, then could
not read the confirmation the redesign renamed) is never sent again. Heal
rebuilds it against that very write, its requests answered with the site's own
answers, and reports what the healed tool read from them (:attr:`Repaired.output`,
the output the call would have given); the interpreter takes the page to where
the write led and accepts that output only when the healed post_check passes
there: the site itself says the write happened.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache
from agentjit.exceptions import AgentJITError
from agentjit.protocol.manifest import ToolManifest

from .healing import Suspect, heal_process

__all__ = ["ToolRepair", "Repaired", "HealInRun", "REPAIR_TIMEOUT_S", "same_interface"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Repaired:
    """A suspect tool rebuilt: ``tool`` stands in for the broken one (same name, inputs, outputs, states, effect)."""

    tool: ToolManifest
    output: dict[str, Any] | None = None
    """For a WRITE that reached the site before it broke: the output the healed tool reads from that write's own
    answer (None otherwise)."""


ToolRepair = Callable[[Any, ToolManifest, Suspect], Awaitable[Repaired | None]]
"""``repair(page, tool, suspect)``: ``tool`` rebuilt to work on the site ``page`` shows, or None when it cannot be.
For a suspect whose write reached the site (``suspect.write_sent``) only a :class:`Repaired` with an ``output``
counts: that write is confirmed, never sent again."""

REPAIR_TIMEOUT_S = 240.0
"""The longest one tool's heal in the middle of a run may take (a process started, a browser, a page or two loaded
and each candidate tried, on a busy machine); past it the call is left to the fallback, or fails."""


def same_interface(old: ToolManifest, new: ToolManifest) -> bool:
    """Whether ``new`` can stand in for ``old`` in a plan checked against ``old``: the same name, schemas, abstract
    states and effect (what a heal may change is how the tool finds and checks its elements)."""
    keep = ("name", "input_schema", "output_schema", "pre", "post", "effect", "navigates")
    return all(getattr(old, k) == getattr(new, k) for k in keep)


class HealInRun:
    """A :data:`ToolRepair` that heals the suspect in the run's cache directory (``toolcache heal``, read-only) and
    hands back the healed tool. Each tool version is healed at most once per instance (a second suspect call of the
    same version gets the first heal's answer), but for a write that reached the site (its answer is its own each
    time); heals run one at a time (parallel workers share the cache).

    ``reports`` keeps one entry per heal: the tool, whether it healed, the seconds it took, and why not."""

    def __init__(self, cache_dir: str | Path, site_url: str, *, timeout_s: float = REPAIR_TIMEOUT_S) -> None:
        self.cache_dir = Path(cache_dir)
        self.site_url = site_url
        self.timeout_s = timeout_s
        self.reports: list[dict[str, Any]] = []
        self._done: dict[tuple[str, int], Repaired | None] = {}
        self._lock = asyncio.Lock()

    async def __call__(self, page: Any, tool: ToolManifest, suspect: Suspect) -> Repaired | None:
        async with self._lock:
            if suspect.write_sent:
                return await self._heal(page, tool, sent=True)
            key = (tool.name, tool.version)
            if key not in self._done:
                self._done[key] = await self._heal(page, tool)
            return self._done[key]

    async def _heal(self, page: Any, tool: ToolManifest, *, sent: bool = False) -> Repaired | None:
        t0 = time.perf_counter()
        entry: dict[str, Any] = {"tool": tool.name, "from_version": tool.version, "healed": False}
        if sent:
            entry["write_sent"] = True
        self.reports.append(entry)
        try:
            session = await page.context.storage_state()
        except Exception as exc:  # a closed page: heal would not see the run's pages
            entry["error"] = f"no browser session to heal in: {exc}"
            return None
        code, out, err = await heal_process(str(self.cache_dir), self.site_url, [tool.name], {}, self.timeout_s,
                                            probe=False, session=session)  # fmt: skip
        entry["time_s"] = round(time.perf_counter() - t0, 2)
        report = _report(out)
        if code not in (0, 1) or report is None:
            why = f"ran past {self.timeout_s:.0f} s" if code is None else f"exited {code}"
            entry["error"] = f"toolcache heal {why}: {(err.strip() or out.strip())[-400:]}"
            log.warning("heal of %s in the run failed: %s", tool.name, entry["error"])
            return None
        if tool.name not in (report.get("healed") or []):
            entry["error"] = str((report.get("failed") or {}).get(tool.name) or "heal found no working tool")
            return None
        try:
            new = ToolCache.load(self.cache_dir).tool(tool.name)
        except AgentJITError as exc:  # the cache changed under the run in another way
            entry["error"] = f"the healed cache does not load: {exc}"
            return None
        if not same_interface(tool, new):
            entry["error"] = "the healed tool changed its inputs, outputs or states: the plan was checked against the old"
            return None
        output = (report.get("outputs") or {}).get(tool.name) if sent else None
        if sent and not isinstance(output, dict):
            entry["error"] = "healed, but it reads no output from the answer of the write the run sent"
            return None
        entry.update(healed=True, version=new.version, revision=report.get("revision"))
        log.info("tool %s healed in the run (%.1f s): version %d", tool.name, entry["time_s"], new.version)
        return Repaired(new, output)


def _report(out: str) -> dict[str, Any] | None:
    try:
        report = json.loads(out)
    except ValueError:
        return None
    return report if isinstance(report, dict) and "healed" in report else None
