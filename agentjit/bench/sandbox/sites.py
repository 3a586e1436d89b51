"""The hostile-site corpus: a site whose every name, label and text is code, built and run as a user would.

:class:`~agentjit.bench.sandbox.hostile_site.HostileSite` puts a hostile text in
every place the builder reads from a page (page names with ``|`` and ``*``,
labels, ids, test ids, link targets, options, headings, a dialog opener's
name); a request for ``/x`` is what any text that became code would send.
For each text the corpus runs, each as its own process: ``toolcache record``
of the site's demonstration, ``toolcache build --site`` (verification
included), and ``agentjit run`` of a plan over the built tools (list the cards,
open one by its name, read it). The verdicts:

* **injected**: requests for ``/x`` during any phase (text that ran as code);
* **unsafe patterns**: a tool's pre/post value holding anything but safe state
  values (letters, digits, ``_``, ``{id}``) and the builder's own ``|``: a
  site that widened a precondition;
* **crash / hang / failure**: a phase that exits non-zero, prints a traceback
  or non-JSON with ``--json``, or runs past :data:`HANG_S`.

``agentjit bench sandbox`` runs it after the hostile plans and caches.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentjit.cache import ToolCache
from agentjit.protocol.manifest import ToolType
from agentjit.runtime.processes import run_command

from .caches import is_strict_json
from .hostile_site import SCRIPT, HostileSite

__all__ = ["TEXTS", "SiteVerdict", "SiteReport", "run_site_corpus"]

HANG_S = 240.0
"""A phase (record, build, run) that takes longer than this hangs (a build here takes seconds)."""

TEXTS: dict[str, str] = {
    "splice": "T'+(fetch('/x/t'),'')+'",
    "template": "${fetch('/x/tpl')}`+fetch('/x/bt')+`",
    "script_tag": "</script><script>fetch('/x/s')</script><!--",
    "line_separators": "a\u2028fetch('/x/ls')\u2029b\\\\'\"",
    "patterns": "*|$page|{id}|home",
    "long_nested": "((((" * 50 + "deep" + "))))" * 50,
}
"""The hostile texts, by name: each is valid code somewhere the builder once spliced site text."""

_SAFE_VALUE = re.compile(r"[A-Za-z0-9_{}]+")


def unsafe_patterns(cache: ToolCache) -> list[str]:
    """The pre/post values that hold anything but the builder's own alternatives of safe values."""
    return [f"{t.name}.{key}={pat!r}" for t in cache.tools.values() for key, pat in [*t.pre.items(), *t.post.items()]
            if isinstance(pat, str) and pat and not re.fullmatch(r"\$[A-Za-z_][A-Za-z0-9_]*", pat)
            and not all(_SAFE_VALUE.fullmatch(alt) for alt in pat.split("|"))]


@dataclass
class SiteVerdict:
    text: str
    phases: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Phase -> exit code, seconds, injected requests, problems."""
    tools: int = 0
    unsafe: list[str] = field(default_factory=list)

    @property
    def injected(self) -> int:
        return sum(p["injected"] for p in self.phases.values())

    @property
    def problems(self) -> list[str]:
        out = [f"{name}: {p}" for name, ph in self.phases.items() for p in ph["problems"]]
        return out + [f"unsafe pattern {u}" for u in self.unsafe]

    @property
    def ok(self) -> bool:
        return self.injected == 0 and not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "tools": self.tools, "injected": self.injected, "unsafe_patterns": self.unsafe,
                "phases": self.phases, "problems": self.problems}


@dataclass
class SiteReport:
    verdicts: list[SiteVerdict] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)

    @property
    def totals(self) -> dict[str, int]:
        return {"sites": len(self.verdicts), "injected": sum(v.injected for v in self.verdicts),
                "unsafe_patterns": sum(len(v.unsafe) for v in self.verdicts),
                "failures": sum(not v.ok for v in self.verdicts)}

    def to_dict(self) -> dict[str, Any]:
        return {"totals": self.totals, "wall_s": round(self.wall_s, 1), "verdicts": [v.to_dict() for v in self.verdicts]}


async def _phase(argv: list[str], site: HostileSite, *, json_out: bool) -> dict[str, Any]:
    before = len(site.injected)
    t0 = time.monotonic()
    code, stdout, stderr = await run_command(argv, HANG_S)
    problems = [] if code is not None else [f"hang: still running after {HANG_S:g} s"]
    if code not in (0, None):
        problems.append(f"exit {code}: {stderr.strip()[-300:] or stdout.strip()[-300:]}")
    if "Traceback (most recent call last)" in stderr:
        problems.append("traceback on stderr")
    if json_out and stdout.strip() and not is_strict_json(stdout):
        problems.append("--json output is not strict JSON")
    return {"exit_code": code, "seconds": round(time.monotonic() - t0, 2),
            "injected": len(site.injected) - before, "problems": problems, "stdout": stdout}


def _plan(cache: ToolCache) -> str | None:
    """List the home page's cards, open the second by its name, read the item page (or only list them
    where no tool opens a card)."""
    tools = sorted(cache.tools.values(), key=lambda t: t.name)
    home = cache.info.initial_state.get("page")
    listing = next((t for t in tools if t.type == ToolType.LIST_ITEMS and t.pre.get("page") == home), None)
    opens = next((t for t in tools if t.type == ToolType.GOTO_ITEM), None)
    if listing is None:
        return None
    if opens is None or not opens.parameters:  # texts past the recorder's 200 characters label no card link
        return f"cards = await {listing.name}()\nresult = len(cards.items)\n"
    details = next((t for t in tools if t.type == ToolType.GET_FIELDS and t.pre.get("page") == opens.post.get("page")),
                   None)
    name = next(iter(opens.parameters))
    read = f"facts = await {details.name}()\n" if details is not None else "facts = 1\n"
    return (f"cards = await {listing.name}()\nawait {opens.name}({name}=cards.items[1].{name})\n{read}"
            "result = [len(cards.items), facts]\n")


async def _one(name: str, text: str, tmp: Path) -> SiteVerdict:
    verdict = SiteVerdict(text=name)
    script = tmp / "hostile.json"
    script.write_text(json.dumps(SCRIPT))
    tc, aj = [sys.executable, "-m", "toolcache.cli"], [sys.executable, "-m", "agentjit.cli"]
    with HostileSite(text) as site:
        rec = await _phase([*tc, "record", str(script), "--site", site.url, "-o", str(tmp / "traces"), "--force"],
                           site, json_out=False)
        verdict.phases["record"] = rec
        if rec["exit_code"] != 0:
            return verdict
        built = await _phase([*tc, "build", str(tmp / "traces"), "--site", site.url, "-o", str(tmp / "cache"), "--json"],
                             site, json_out=True)
        verdict.phases["build"] = built
        if built["exit_code"] != 0:
            return verdict
        cache = ToolCache.load(tmp / "cache")
        verdict.tools, verdict.unsafe = len(cache.tools), unsafe_patterns(cache)
        plan = _plan(cache)
        if plan is None:
            verdict.phases["run"] = {"exit_code": None, "seconds": 0, "injected": 0,
                                     "problems": [f"no list tool to plan with: {sorted(cache.tools)}"]}
            return verdict
        (tmp / "plan.py").write_text(plan)
        verdict.phases["run"] = await _phase([*aj, "run", str(tmp / "plan.py"), "--cache", str(tmp / "cache"),
                                              "--site", site.url, "--json", "--strategy", "serial"], site, json_out=True)
    for ph in verdict.phases.values():
        ph.pop("stdout", None)
    return verdict


async def run_site_corpus(texts: dict[str, str] | None = None, *,
                          on_verdict: Callable[[SiteVerdict], None] | None = None) -> SiteReport:
    """Record, build and run the hostile site once per text; see the module docstring."""
    report = SiteReport()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentjit-sites-") as tmp:
        for i, (name, text) in enumerate((texts or TEXTS).items()):
            here = Path(tmp) / f"site{i}"
            here.mkdir()
            verdict = await _one(name, text, here)
            for ph in verdict.phases.values():
                ph.pop("stdout", None)
            report.verdicts.append(verdict)
            if on_verdict is not None:
                on_verdict(verdict)
    report.wall_s = time.perf_counter() - t0
    return report
