"""Suspect tools: tools a run caught failing on the page they were made for (issue 21).

A cache directory may hold, beside its tools::

    suspects.json               {"format": "agentjit-suspects", "format_version": 1, "revision": N,
                                 "suspects": {"<tool>": {evidence...}}}
    suspects/<sha256>.html      the DOM the tool failed on, by content hash
    suspects/good-<tool>.html   the DOM before the tool's first successful call (``"good"`` in the file)
    suspects/good-<tool>.after.html  for a navigating tool, the page that call landed on

The last good page of a tool (``"good": {"<tool>": {"version", "url", "dom_path", "args"}}``, for a
navigating tool also ``after_url`` and ``after_dom_path``, for a WRITE the ``writes`` it sent with their
answers, for a READ the ``output`` it gave) shows healing what the tool's selectors matched while they worked; a
READ's entry keeps ``others`` too, up to :data:`MAX_GOOD_CALLS` - 1 later calls of it (at the same version) with
other arguments or on another page (``{"url", "args", "output", "after_url"}``), each of which a healed READ must
give back as well. ``revision`` counts the writes of ``suspects.json`` (a reader can tell a fresh
report from one it has seen). Every file is written atomically, like the rest
of the cache. ``toolcache heal`` reads the suspects, rebuilds and verifies the
tools, and clears the ones it healed.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentjit.exceptions import CacheError
from agentjit.protocol import jsonio

from .store import atomic_write_json, atomic_write_text

if TYPE_CHECKING:
    from .store import ToolCache

__all__ = ["SUSPECTS_FORMAT", "SUSPECTS_FORMAT_VERSION", "SuspectStore", "sign_in_secrets"]

SUSPECTS_FORMAT = "agentjit-suspects"
SUSPECTS_FORMAT_VERSION = 1

SNAPSHOT_MAX_CHARS = 5_000_000
"""The longest DOM snapshot kept as evidence (a larger page is cut, the hash is of the whole)."""


GOOD_OUTPUT_MAX_CHARS = 1_000_000
"""The largest READ output (as JSON) kept with a good call; ``suspects.json`` is rewritten on every suspect."""


MAX_GOOD_CALLS = 3
"""The most good calls kept per tool: the first (with its pages) and distinct later ones (another page or other
arguments); their outputs together stay within :data:`GOOD_OUTPUT_MAX_CHARS`."""


def good_call_key(url: str | None, args: Any) -> str:
    """What tells two good calls apart: the page's path and query (any host) and the arguments."""
    parts = urlsplit(url or "")
    where = (parts.path.rstrip("/") or "/") + ("?" + parts.query if parts.query else "")
    return json.dumps([where, args], sort_keys=True, default=str)


class SuspectStore:
    """``suspects.json`` and its snapshots in the cache directory ``root``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def file(self) -> Path:
        return self.root / "suspects.json"

    def read(self) -> dict[str, Any]:
        """The whole file (an empty report when there is none); a malformed one raises CacheError naming it."""
        if not self.file.exists():
            return {"format": SUSPECTS_FORMAT, "format_version": SUSPECTS_FORMAT_VERSION, "revision": 0, "suspects": {}}
        try:
            data = jsonio.loads(jsonio.read_text(self.file, within=self.root))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CacheError(f"cannot read suspects: {exc}", path=str(self.file)) from None
        if not isinstance(data, dict) or data.get("format") != SUSPECTS_FORMAT:
            raise CacheError(f"not a suspects file (format must be {SUSPECTS_FORMAT!r})", path=str(self.file))
        if data.get("format_version") != SUSPECTS_FORMAT_VERSION:
            raise CacheError(f"unknown format_version {data.get('format_version')!r} (this agentjit reads "
                             f"{SUSPECTS_FORMAT_VERSION})", path=str(self.file))  # fmt: skip
        if not isinstance(data.get("suspects"), dict) or not isinstance(data.get("revision"), int):
            raise CacheError("field 'suspects' must be an object and 'revision' an integer", path=str(self.file))
        return data

    def suspects(self) -> dict[str, dict[str, Any]]:
        """Tool name -> its latest evidence."""
        return dict(self.read()["suspects"])

    def save_snapshot(self, html: str) -> tuple[str, Path]:
        """Keep ``html`` as evidence; returns ``(sha256, path)``. One file per distinct page."""
        digest = hashlib.sha256(html.encode("utf-8", "replace")).hexdigest()
        path = self.root / "suspects" / f"{digest[:32]}.html"
        if not path.exists():
            atomic_write_text(path, html[:SNAPSHOT_MAX_CHARS])
        return digest, path

    def add(self, tool: str, evidence: dict[str, Any]) -> int:
        """Record ``tool`` as suspect with ``evidence`` (a later report of the same tool replaces it, keeping a
        count); returns the new revision."""
        data = self.read()
        before = data["suspects"].get(tool)
        seen = before.get("times", 1) if isinstance(before, dict) else 0
        data["suspects"][tool] = {**evidence, "times": seen + 1}
        data["revision"] += 1
        atomic_write_json(self.file, data)
        return int(data["revision"])

    def annotate(self, tool: str, fields: dict[str, Any]) -> int:
        """Add ``fields`` to ``tool``'s evidence (the fallback's answer, say); returns the new revision."""
        data = self.read()
        entry = data["suspects"].get(tool)
        if not isinstance(entry, dict):
            return int(data["revision"])
        entry.update(fields)
        data["revision"] += 1
        atomic_write_json(self.file, data)
        return int(data["revision"])

    def own_file(self, value: Any) -> Path | None:
        """The page file a suspect or good entry names (``dom_path``, ``after_dom_path``), only inside this store's
        ``suspects/`` folder: where it says, or, in a cache copied or moved since (its entries name the old folder),
        the file of that name here when there is one. None for anything else: a cache file is no way to read
        another file."""
        if not isinstance(value, str) or not value:
            return None
        folder = (self.root / "suspects").resolve()
        path = Path(value)
        try:
            resolved = path.resolve()
            if resolved.parent != folder and path.name and (folder / path.name).is_file():
                resolved = (folder / path.name).resolve()
        except (OSError, ValueError):
            return None
        return resolved if resolved.parent == folder else None

    def good(self, tool: str) -> dict[str, Any] | None:
        """Where ``tool`` last worked: ``{"version", "url", "dom_path"}``, or None."""
        entry = self.read().get("good", {}).get(tool)
        return entry if isinstance(entry, dict) else None

    def save_good(self, tool: str, version: int, url: str | None, html: str, *, args: dict[str, Any] | None = None,
                  after_url: str | None = None, after_html: str | None = None,
                  writes: list[dict[str, Any]] | None = None, output: Any = None) -> None:  # fmt: skip
        """Keep ``html``, the page ``tool`` (at ``version``) worked on, replacing an earlier one; with the call's
        ``args``, the page a navigating tool landed on (``after_url``, ``after_html``), a WRITE's requests with
        their answers (``writes``, as a trace keeps them) and a READ's ``output`` (what a healed READ must give
        again)."""
        path = self.root / "suspects" / f"good-{tool}.html"
        atomic_write_text(path, html[:SNAPSHOT_MAX_CHARS])
        entry: dict[str, Any] = {"version": version, "url": url, "dom_path": str(path)}
        if args is not None:
            entry["args"] = args
        if after_html is not None:
            after = self.root / "suspects" / f"good-{tool}.after.html"
            atomic_write_text(after, after_html[:SNAPSHOT_MAX_CHARS])
            entry.update(after_url=after_url, after_dom_path=str(after))
        if writes is not None:
            entry["writes"] = writes
        if output is not None and len(json.dumps(output, default=str)) <= GOOD_OUTPUT_MAX_CHARS:
            entry["output"] = output  # a larger one is not kept: heal then holds the tool to its page alone
        data = self.read()
        good: dict[str, Any] = data["good"] if isinstance(data.get("good"), dict) else {}
        good[tool] = entry
        data["good"] = good
        data["revision"] += 1
        atomic_write_json(self.file, data)

    def good_calls(self, tool: str) -> list[dict[str, Any]]:
        """Every good call of ``tool`` on record, the first one first: its entry (:meth:`good`), then ``others``."""
        good = self.good(tool)
        if good is None:
            return []
        others = good.get("others")
        return [good, *(o for o in others if isinstance(o, dict))] if isinstance(others, list) else [good]

    def add_good_call(self, tool: str, version: int, url: str | None, *, args: dict[str, Any], output: Any,
                      after_url: str | None = None, writes: list[dict[str, Any]] | None = None) -> bool:  # fmt: skip
        """Keep one more good call of ``tool`` (at ``version``, whose first good call is on record: a READ's with
        its ``output``, a WRITE's with the requests it sent, ``writes``) when it is unlike those kept (another page
        or other arguments: :func:`_call_key`), fewer than :data:`MAX_GOOD_CALLS` are kept, and the outputs fit
        :data:`GOOD_OUTPUT_MAX_CHARS` together. Returns whether it was kept."""
        what = "writes" if writes is not None else "output"
        if (output if writes is None else writes) is None:
            return False
        data = self.read()
        good = data.get("good")
        entry = good.get(tool) if isinstance(good, dict) else None
        if not isinstance(entry, dict) or entry.get("version") != version or entry.get(what) is None:
            return False
        others = [o for o in entry.get("others") or [] if isinstance(o, dict)]
        calls = [entry, *others]
        if len(calls) >= MAX_GOOD_CALLS or good_call_key(url, args) in {good_call_key(c.get("url"), c.get("args")) for c in calls}:
            return False
        size = sum(len(json.dumps(c.get("output"), default=str)) for c in calls) + len(json.dumps(output, default=str))
        if size > GOOD_OUTPUT_MAX_CHARS:
            return False
        call: dict[str, Any] = {"url": url, "args": args, "output": output}
        if writes is not None:
            call["writes"] = writes
        if after_url is not None:
            call["after_url"] = after_url
        entry["others"] = [*others, call]
        data["revision"] += 1
        atomic_write_json(self.file, data)
        return True

    def new_write_inputs(self, tool: str, version: int, args: dict[str, Any], texts: list[str]) -> list[str]:
        """The free-text inputs (of ``texts``) ``args`` gives a text that no good call of ``tool`` (a WRITE at
        ``version``, its first good call on record) kept gave, while fewer than :data:`MAX_GOOD_CALLS` are kept: what
        :meth:`add_good_write` would keep this call for (empty: nothing)."""
        entry = self.good(tool)
        if entry is None or entry.get("version") != version or not isinstance(entry.get("writes"), list):
            return []
        if len(self.good_calls(tool)) >= MAX_GOOD_CALLS:
            return []
        missing = set(self.texts_not_given(tool, texts))
        return [k for k, v in args.items() if k in missing and _text(v)]

    def texts_not_given(self, tool: str, texts: list[str]) -> list[str]:
        """The free-text inputs (of ``texts``) to which no good call of ``tool`` on record gave a text."""
        given = {k for c in self.good_calls(tool) if isinstance(c.get("args"), dict) for k, v in c["args"].items() if _text(v)}
        return [t for t in texts if t not in given]

    def add_good_write(self, tool: str, version: int, url: str | None, *, args: dict[str, Any],
                       writes: list[dict[str, Any]], texts: list[str]) -> bool:  # fmt: skip
        """Keep one more good call of ``tool`` (a WRITE) beside its first: the page it ran on, its ``args`` and the
        requests it sent with their answers (``writes``), when it gives a free-text input (of ``texts``) a text no kept call gave
        (:meth:`new_write_inputs`) and the requests kept stay within :data:`GOOD_OUTPUT_MAX_CHARS`. A healed WRITE is
        verified by the kept call most like the one that failed, and a call's request is held to what the kept
        calls' requests carried (:func:`agentjit.runtime.healing.inputs_not_carried`). Returns whether it was kept."""
        if not writes or not self.new_write_inputs(tool, version, args, texts):
            return False
        data = self.read()
        entry = data["good"][tool]
        others = [o for o in entry.get("others") or [] if isinstance(o, dict)]
        size = sum(len(json.dumps(c.get("writes"), default=str)) for c in [entry, *others]) + len(json.dumps(writes, default=str))
        if size > GOOD_OUTPUT_MAX_CHARS:
            return False
        entry["others"] = [*others, {"url": url, "args": args, "writes": writes}]
        data["revision"] += 1
        atomic_write_json(self.file, data)
        return True

    def clear(self, tools: list[str] | set[str]) -> int:
        """Drop ``tools`` from the report (they were healed); returns the new revision."""
        data = self.read()
        for name in tools:
            data["suspects"].pop(name, None)
        data["revision"] += 1
        atomic_write_json(self.file, data)
        return int(data["revision"])


def _text(value: Any) -> bool:
    """Whether ``value`` is a text with something in it (what a call gives an input to be sent)."""
    return isinstance(value, str) and bool(value.strip())


def sign_in_secrets(cache: ToolCache, plans: list[str]) -> dict[str, str]:
    """The values ``plans`` give the secret (``writeOnly``) inputs of ``cache``'s WRITE tools as literals (a sign-in's
    password written in the plan), for ``toolcache heal --sign-in``. Empty when no plan signs in that way."""
    tools = {n: t for n, t in cache.tools.items() if t.is_write and t.secret_inputs}
    out: dict[str, str] = {}
    for source in plans:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in tools:
                for kw in node.keywords:
                    if kw.arg in tools[node.func.id].secret_inputs and isinstance(kw.value, ast.Constant):
                        out.setdefault(kw.arg, str(kw.value.value))
    return out
