"""The hostile-cache corpus: tool caches built to make agentjit itself misbehave.

A tool cache is shared, checked into repositories and downloaded, so every
file in it is input. Each case here copies the bundled food cache and poisons
one thing: a schema reference to a loopback listener, to a local file, to
``/dev/zero`` or to a port that accepts and never answers; an unresolvable or
remote reference; a backtracking or lookaround ``pattern``; a ``start_path``
that leaves the site (userinfo, a scheme, ``//host``); a tool file that is a
symlink out of the cache, a FIFO, ``/dev/zero``, a sparse file of gigabytes or
JSON nested thousands deep; a NaN in a manifest. Then it runs the commands a
person would try on a cache they were handed, each as its own process, as a
person would: ``agentjit tools --cache DIR --json``, ``agentjit check PLAN
--cache DIR --json`` and, for some, ``agentjit run PLAN --cache DIR --site URL
--json`` against a food site served here.

The verdicts, per command:

* **escape**: the listener named by the cache saw a connection, or the secret
  of the canary file the cache points at appears in the output;
* **hang**: the command ran longer than :data:`HANG_S`;
* **crash**: exit 4 (an internal error), a traceback on stderr, or ``--json``
  output that is not strict JSON (``NaN``, ``Infinity``);
* **mismatch**: another exit code than the case expects (2 for a malformed
  cache or a bad argument, 1 for a plan the checker refuses, 0 for a cache
  that is fine to use).

``agentjit bench sandbox`` runs it after the hostile plans; the test suite runs
a sample of it, every class and verdict (``tests/security/test_hostile_caches.py``;
``AGENTJIT_WHOLE_CORPUS=1`` there runs it all).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentjit.runtime.processes import run_command

from .listeners import Listeners

__all__ = ["CacheCase", "CacheVerdict", "CASES", "run_cache_corpus", "is_strict_json"]

HANG_S = 30.0
"""A command that runs longer than this hangs (each would otherwise end within seconds; the runs'
own plan time limit is :data:`PLAN_TIME_S`)."""

PLAN_TIME_S = 5


BENIGN_PLAN = "found = await search(query='noodles')\nresult = len(found.items) >= 0\n"
"""A plan over the poisoned tool (``search``): the checker and the runtime both read its schemas."""


@dataclass
class Ctx:
    """What a case may point its poison at."""

    root: Path
    port: int
    """A loopback listener that accepts (the kernel's backlog) and never answers."""
    canary: Path
    """A file outside the cache holding :attr:`secret`."""
    secret: str

    def tool(self, name: str = "search") -> Path:
        return self.root / "tools" / f"{name}.json"

    def edit_tool(self, change: Callable[[dict[str, Any]], None], name: str = "search") -> None:
        data = json.loads(self.tool(name).read_text())
        change(data)
        self.tool(name).write_text(json.dumps(data))

    def edit_info(self, **fields: Any) -> None:
        path = self.root / "cache.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))

    def query_schema(self, schema: dict[str, Any], where: str = "input_schema") -> None:
        def change(tool: dict[str, Any]) -> None:
            if where == "input_schema":
                tool["input_schema"]["properties"]["query"] = schema
            else:
                tool["output_schema"]["properties"]["items"] = schema

        self.edit_tool(change)

    def replace_tool(self, make: Callable[[Path], None]) -> None:
        self.replace(self.tool(), make)

    def link_tools_dir_outside(self) -> None:
        shutil.rmtree(self.root / "tools")
        (self.root / "tools").symlink_to(self.canary.parent)

    @staticmethod
    def replace(path: Path, make: Callable[[Path], None]) -> None:
        """Make ``path`` anew (a symlink, a FIFO) in place of the file the copied cache has there."""
        path.unlink(missing_ok=True)
        make(path)


@dataclass
class CacheCase:
    cls: str
    name: str
    poison: Callable[[Ctx], None]
    expect: dict[str, int]
    """Command (``tools``, ``check``, ``run``) -> the exit code it must end with."""
    plan: str = BENIGN_PLAN
    why: str = ""

    @property
    def id(self) -> str:
        return f"{self.cls}/{self.name}"


MALFORMED = {"tools": 2, "check": 2, "run": 2}
"""A cache that must be refused as malformed by every command, before anything runs."""


def _deep(path: Path) -> None:
    path.write_text("[" * 20_000 + "]" * 20_000)


def _sparse(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(4 << 30)  # four gigabytes of holes: no disk used, and read_text would take them all


CASES: list[CacheCase] = [
    # -- schema references --------------------------------------------------------------------
    CacheCase("schema_ref", "http_listener", lambda c: c.query_schema({"$ref": f"http://127.0.0.1:{c.port}/s.json"}),
              MALFORMED, why="a remote $ref would be fetched by the parent process"),
    CacheCase("schema_ref", "http_in_output", lambda c: c.query_schema(
        {"$ref": f"http://127.0.0.1:{c.port}/items.json"}, where="output_schema"), MALFORMED),
    CacheCase("schema_ref", "file_canary", lambda c: c.query_schema({"$ref": c.canary.as_uri()}), MALFORMED,
              why="a file:// $ref reads local files"),
    CacheCase("schema_ref", "dev_zero", lambda c: c.query_schema({"$ref": "file:///dev/zero"}), MALFORMED,
              why="read until memory runs out"),
    CacheCase("schema_ref", "unresolvable", lambda c: c.query_schema({"$ref": "#/$defs/missing"}), MALFORMED,
              why="was an internal error (exit 4)"),
    CacheCase("schema_ref", "relative_with_id", lambda c: c.edit_tool(lambda t: t["input_schema"].update(
        {"$id": f"http://127.0.0.1:{c.port}/base/", "properties": {"query": {"$ref": "q.json"}}})), MALFORMED),
    CacheCase("schema_ref", "remote_metaschema", lambda c: c.edit_tool(lambda t: t["input_schema"].update(
        {"$schema": f"http://127.0.0.1:{c.port}/meta"})), MALFORMED),
    CacheCase("schema_ref", "nested_in_defs", lambda c: c.edit_tool(lambda t: t["input_schema"].update(
        {"$defs": {"q": {"allOf": [{"$ref": f"http://127.0.0.1:{c.port}/q"}]}},
         "properties": {"query": {"$ref": "#/$defs/q"}}})), MALFORMED),
    # -- regular expressions --------------------------------------------------------------------
    CacheCase("schema_regex", "lookaround", lambda c: c.query_schema({"type": "string", "pattern": "^(?=a)a+$"}),
              MALFORMED, why="needs a backtracking engine"),
    CacheCase("schema_regex", "backreference", lambda c: c.query_schema({"type": "string", "pattern": r"^(a)\1$"}),
              MALFORMED),
    CacheCase("schema_regex", "catastrophic_constant", lambda c: c.query_schema({"type": "string", "pattern": "^(a+)+$"}),
              {"tools": 0, "check": 1}, plan="found = await search(query='" + "a" * 40 + "!')\nresult = 1\n",
              why="hung `check` in Python's re"),
    CacheCase("schema_regex", "catastrophic_computed", lambda c: c.query_schema({"type": "string", "pattern": "^(a+)+$"}),
              {"check": 0, "run": 2}, plan="q = 'a' * 40 + '!'\nfound = await search(query=q)\nresult = 1\n",
              why="ran past the time limit; now a bad argument (ToolInputError) at once"),
    # -- URLs -------------------------------------------------------------------------------------
    CacheCase("start_path", "userinfo", lambda c: c.edit_info(start_path=f"@127.0.0.1:{c.port}/x"), MALFORMED,
              why="appended to the site URL it became the userinfo of another origin"),
    CacheCase("start_path", "absolute", lambda c: c.edit_info(start_path=f"http://127.0.0.1:{c.port}/"), MALFORMED),
    CacheCase("start_path", "protocol_relative", lambda c: c.edit_info(start_path=f"//127.0.0.1:{c.port}/"), MALFORMED),
    CacheCase("start_path", "backslash", lambda c: c.edit_info(start_path=f"/\\127.0.0.1:{c.port}/"), MALFORMED),
    # -- files ------------------------------------------------------------------------------------
    CacheCase("files", "symlink_out", lambda c: c.replace_tool(lambda p: p.symlink_to(c.canary)), MALFORMED,
              why="a tool file that links to a file outside the cache"),
    CacheCase("files", "symlinked_tools_dir", lambda c: c.link_tools_dir_outside(), MALFORMED),
    CacheCase("files", "dev_zero", lambda c: c.replace_tool(lambda p: p.symlink_to("/dev/zero")), MALFORMED),
    CacheCase("files", "fifo", lambda c: c.replace_tool(lambda p: os.mkfifo(p)), MALFORMED,
              why="opening a FIFO for reading blocks until a writer comes"),
    CacheCase("files", "sparse_huge", lambda c: c.replace_tool(_sparse), MALFORMED),
    CacheCase("files", "deep_json", lambda c: c.replace_tool(_deep), MALFORMED),
    CacheCase("files", "plans_fifo", lambda c: c.replace(c.root / "plans.json", os.mkfifo), MALFORMED),
    CacheCase("files", "latency_dev_zero", lambda c: c.replace(c.root / "latency.json",
                                                               lambda p: p.symlink_to("/dev/zero")), MALFORMED),
    # -- output -----------------------------------------------------------------------------------
    CacheCase("output", "nan_in_manifest", lambda c: c.edit_tool(lambda t: t["pre"].update({"weight": float("nan")})),
              {"tools": 0}, why="printed bare NaN, which is not JSON"),
    CacheCase("output", "nan_result", lambda c: None, {"run": 0}, plan="result = [float('nan'), float('inf')]\n"),
]


@dataclass
class CacheVerdict:
    case: str
    command: str
    exit_code: int | None
    expected: int
    seconds: float
    hits: int = 0
    leaked: bool = False
    traceback: bool = False
    strict_json: bool = True
    stderr_tail: str = ""

    @property
    def hang(self) -> bool:
        return self.exit_code is None

    @property
    def crash(self) -> bool:
        return self.exit_code == 4 or self.traceback or not self.strict_json

    @property
    def escape(self) -> bool:
        return self.hits > 0 or self.leaked

    @property
    def mismatch(self) -> bool:
        return not self.hang and self.exit_code != self.expected

    @property
    def ok(self) -> bool:
        return not (self.hang or self.crash or self.escape or self.mismatch)

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case, "command": self.command, "exit_code": self.exit_code, "expected": self.expected,
                "seconds": round(self.seconds, 2), "escape": self.escape, "hang": self.hang, "crash": self.crash,
                "mismatch": self.mismatch, "stderr": self.stderr_tail}


@dataclass
class CacheReport:
    verdicts: list[CacheVerdict] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def totals(self) -> dict[str, int]:
        return {"commands": len(self.verdicts), "escapes": sum(v.escape for v in self.verdicts),
                "hangs": sum(v.hang for v in self.verdicts), "crashes": sum(v.crash for v in self.verdicts),
                "mismatches": sum(v.mismatch for v in self.verdicts)}

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)

    def to_dict(self) -> dict[str, Any]:
        return {"cases": len({v.case for v in self.verdicts}), "totals": self.totals, "wall_s": round(self.wall_s, 1),
                "failures": [v.to_dict() for v in self.verdicts if not v.ok],
                "verdicts": [v.to_dict() for v in self.verdicts]}


def is_strict_json(text: str) -> bool:
    """Whether ``text`` is one JSON document with no ``NaN`` / ``Infinity``."""

    def refuse(word: str) -> Any:
        raise ValueError(word)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True


def _argv(command: str, cache: Path, plan: Path, site_url: str) -> list[str]:
    exe = [sys.executable, "-m", "agentjit.cli"]
    if command == "tools":
        return [*exe, "tools", "--cache", str(cache), "--json"]
    if command == "check":
        return [*exe, "check", str(plan), "--cache", str(cache), "--json"]
    return [*exe, "run", str(plan), "--cache", str(cache), "--site", site_url, "--json", "--strategy", "serial",
            "--time-limit", str(PLAN_TIME_S)]


async def _run_command(case: CacheCase, command: str, ctx: Ctx, plan: Path, site_url: str,
                       listeners: Any) -> CacheVerdict:
    t0 = time.monotonic()
    code, stdout, stderr = await run_command(_argv(command, ctx.root, plan, site_url), HANG_S)
    return CacheVerdict(
        case=case.id, command=command, exit_code=code, expected=case.expect[command], seconds=time.monotonic() - t0,
        hits=listeners.hits(ctx.port), leaked=ctx.secret in stdout or ctx.secret in stderr,
        traceback="Traceback (most recent call last)" in stderr,
        strict_json=not stdout.strip() or is_strict_json(stdout), stderr_tail=stderr.strip()[-300:])


async def run_cache_corpus(
    cases: list[CacheCase] | None = None, *, site_url: str | None = None, concurrency: int = 2,
    on_verdict: Callable[[CacheVerdict], None] | None = None,
) -> CacheReport:
    """Poison a copy of the food cache per case and run its commands; see the module docstring.

    Without ``site_url`` (needed by the cases that ``run``) the food site is started here."""
    from agentjit.tasks.apps import get_app

    todo = cases if cases is not None else CASES
    site = None
    if site_url is None and any("run" in c.expect for c in todo):
        site = get_app("food").site(latency_scale=0)
        site.start()
        site_url = site.url
    listeners = Listeners()
    report = CacheReport()
    gate = asyncio.Semaphore(concurrency)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentjit-caches-") as tmp:

        async def one(i: int, case: CacheCase) -> None:
            base = Path(tmp) / f"case{i}"
            outside = base / "outside"
            outside.mkdir(parents=True)
            secret = secrets.token_hex(16)
            canary = outside / "canary.json"
            canary.write_text(json.dumps({"secret": secret}))
            ctx = Ctx(root=base / "cache", port=listeners.open(), canary=canary, secret=secret)
            shutil.copytree(get_app("food").cache_dir, ctx.root)
            case.poison(ctx)
            plan = base / "plan.py"
            plan.write_text(case.plan)
            for command in case.expect:
                async with gate:
                    verdict = await _run_command(case, command, ctx, plan, site_url or "", listeners)
                report.verdicts.append(verdict)
                if on_verdict is not None:
                    on_verdict(verdict)
            listeners.close(ctx.port)

        try:
            await asyncio.gather(*(one(i, c) for i, c in enumerate(todo)))
        finally:
            listeners.close_all()
            if site is not None:
                site.stop()
    report.verdicts.sort(key=lambda v: (v.case, v.command))
    report.wall_s = time.perf_counter() - t0
    return report
