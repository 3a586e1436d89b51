"""The on-disk tool cache.

A cache is a directory::

    cache.json          {"format": "agentjit-cache", "format_version": 1, "app": ..., "url_pattern": ...}
    tools/<name>.json   one tool manifest each
    latency.json        fitted latency distributions (agentjit.scheduler.distributions)
    machine.json        what an extra browser context costs on the machine that profiled
                        (agentjit.scheduler.Overheads: start-up, per-call concurrency cost)
    schemas.json        page schemas from the offline builder
    plans.json          the plan cache: normalized task + cache fingerprint -> compiled plan

Every file is written atomically (a temporary file in the same directory, then
``os.replace``), so a crash never leaves a half-written cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from agentjit.exceptions import CacheError, ManifestError
from agentjit.protocol import jsonio
from agentjit.protocol.manifest import ToolManifest, load_manifest
from agentjit.protocol.urls import check_site_path

__all__ = ["CACHE_FORMAT", "CACHE_FORMAT_VERSION", "CacheInfo", "ToolCache", "atomic_write_text", "atomic_write_json"]

log = logging.getLogger(__name__)

CACHE_FORMAT = "agentjit-cache"
CACHE_FORMAT_VERSION = 1


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_json(path: str | Path, data: Any) -> None:
    atomic_write_text(path, jsonio.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n")


class CacheInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    format: str = CACHE_FORMAT
    format_version: int = CACHE_FORMAT_VERSION
    app: str
    url_pattern: str = "*"
    description: str = ""
    start_path: str = "/"
    """Where a run starts, relative to the site's base URL."""
    initial_state: dict[str, Any] = {}
    """The abstract state at ``start_path`` (``{"page": "home"}``)."""
    builder: dict[str, Any] | None = None
    """How the offline builder made this cache (traces, verified witness arguments), if it did."""
    revision: int = 0
    """Bumped by every ``toolcache heal`` that changed a tool (issue 21)."""

    @field_validator("start_path")
    @classmethod
    def _on_the_site(cls, path: str) -> str:
        return check_site_path(path)  # "@other-host/x" appended to the site's URL would leave it


def _read_json(path: Path, *, required: bool, default: Any) -> Any:
    if not path.exists() and not path.is_symlink():
        if required:
            raise CacheError("missing file", path=str(path))
        return default
    try:
        return jsonio.loads(jsonio.read_text(path, within=path.parent))
    except UnicodeDecodeError as exc:
        raise CacheError(f"not UTF-8 text (byte offset {exc.start})", path=str(path)) from None
    except json.JSONDecodeError as exc:  # jsonio.JSONTooDeep too
        raise CacheError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path=str(path)) from exc
    except OSError as exc:
        raise CacheError(f"cannot read: {exc.strerror}", path=str(path)) from exc


_PARTS = ("latency", "schemas", "plans", "machine")
"""The JSON-object files of a cache beside ``cache.json`` and ``tools/``."""


class ToolCache:
    """A loaded cache directory: its info, tools, latency fits, page schemas and plans."""

    def __init__(
        self,
        info: CacheInfo,
        tools: Iterable[ToolManifest] = (),
        *,
        latency: dict[str, Any] | None = None,
        schemas: dict[str, Any] | None = None,
        plans: dict[str, Any] | None = None,
        machine: dict[str, Any] | None = None,
        path: str | Path | None = None,
    ) -> None:
        self.info = info
        self.tools: dict[str, ToolManifest] = {}
        for tool in tools:
            self.add_tool(tool)
        self.latency: dict[str, Any] = latency if latency is not None else {}
        self.schemas: dict[str, Any] = schemas if schemas is not None else {}
        self.plans: dict[str, Any] = plans if plans is not None else {}
        self.machine: dict[str, Any] = machine if machine is not None else {}
        """Measured browser-context overheads (``Overheads`` fields); empty: the scheduler's defaults."""
        self.path = Path(path) if path is not None else None
        self.plans_path: Path | None = None
        """Where :attr:`plans` came from when not ``path/plans.json`` (the CLI's per-user plan cache)."""

    @property
    def plans_file(self) -> Path | None:
        """The file the plan cache is read from and saved to, if any (for messages)."""
        if self.plans_path is not None:
            return self.plans_path
        return self.path / "plans.json" if self.path is not None else None

    @property
    def app(self) -> str:
        return self.info.app

    def add_tool(self, tool: ToolManifest) -> None:
        self.tools[tool.name] = tool

    def tool(self, name: str) -> ToolManifest:
        try:
            return self.tools[name]
        except KeyError:
            raise CacheError(f"no tool named {name!r} (have: {', '.join(sorted(self.tools))})", path=str(self.path)) from None

    def fingerprint(self) -> str:
        """A hash of the tools' manifests: the cache version the plan cache keys on."""
        h = hashlib.sha256()
        for name in sorted(self.tools):
            h.update(self.tools[name].model_dump_json().encode())
        return h.hexdigest()[:16]

    # -- loading and saving -------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> ToolCache:
        root = Path(path)
        if not root.is_dir():
            raise CacheError("not a cache directory (missing or not a directory)", path=str(root))
        raw_info = _read_json(root / "cache.json", required=True, default=None)
        try:
            info = CacheInfo.model_validate(raw_info)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "<root>"
            raise CacheError(f"field '{field}': {err['msg']}", path=str(root / "cache.json")) from None
        if info.format != CACHE_FORMAT:
            raise CacheError(f"unknown format {info.format!r}", path=str(root / "cache.json"))
        if info.format_version != CACHE_FORMAT_VERSION:
            raise CacheError(
                f"unknown format_version {info.format_version} (this agentjit reads {CACHE_FORMAT_VERSION})",
                path=str(root / "cache.json"),
            )
        tools: list[ToolManifest] = []
        tools_dir = root / "tools"
        if tools_dir.is_dir():
            for file in sorted(tools_dir.glob("*.json")):
                tool = load_manifest(file, within=root)
                if tool.name != file.stem:
                    raise ManifestError(f"name {tool.name!r} does not match the file name", path=str(file), field="name")
                tools.append(tool)
        extras = {}
        for key in _PARTS:
            data = _read_json(root / f"{key}.json", required=False, default={})
            if not isinstance(data, dict):
                raise CacheError("must hold a JSON object", path=str(root / f"{key}.json"))
            extras[key] = data
        return cls(info, tools, path=root, **extras)

    def save(self, path: str | Path | None = None) -> Path:
        """Write every file of the cache atomically; returns the directory."""
        root = Path(path) if path is not None else self.path
        if root is None:
            raise CacheError("no path to save to")
        tools_dir = root / "tools"
        tools_dir.mkdir(parents=True, exist_ok=True)
        for tool in self.tools.values():
            atomic_write_json(tools_dir / f"{tool.name}.json", tool.model_dump(mode="json"))
        for stale in tools_dir.glob("*.json"):
            if stale.stem not in self.tools:
                stale.unlink()
        for part in _PARTS:
            if part != "machine" or self.machine:  # no machine.json until a profile measured one
                self.save_part(part, root)
        atomic_write_json(root / "cache.json", self.info.model_dump(mode="json"))
        self.path = root
        return root

    def save_part(self, part: str, path: str | Path | None = None) -> None:
        """Write one of ``latency``, ``schemas``, ``plans`` or ``machine`` atomically."""
        root = Path(path) if path is not None else self.path
        if root is None:
            raise CacheError("no path to save to")
        if part not in _PARTS:
            raise ValueError(f"unknown cache part {part!r}")
        atomic_write_json(Path(root) / f"{part}.json", getattr(self, part))

    def __repr__(self) -> str:
        return f"ToolCache(app={self.app!r}, tools={len(self.tools)}, path={str(self.path)!r})"
