"""Demonstration scripts: a JSON list of primitive browser steps the recorder replays.

A script file looks like::

    {"name": "order_pickup", "description": "...", "steps": [
        {"action": "goto", "url": "/"},
        {"action": "click", "target": {"selector": "[data-testid=store-card]", "text": "Winstop"}},
        {"action": "fill", "target": {"role": "textbox", "name": "Address"}, "value": "1 Main St"},
        {"action": "press", "target": {"selector": "[data-testid=search-input]"}, "value": "Enter"},
        {"action": "select", "target": {"selector": "select[name=mode]"}, "value": "pickup"},
        {"action": "scroll", "value": 600}]}

A target names the element by any of ``selector`` (CSS), ``role`` + ``name``
(accessible role and name), ``text`` (visible text; with ``selector`` it narrows
the selector's matches), ``nth`` (which of several matches, 0-based; without it
a target must name one element) and ``exact`` (no case- and spacing-insensitive
second try for ``name`` / ``text``); :mod:`toolcache.targets` resolves them.
A bare list of steps is accepted too (the file name is then the name).
``traces/README.md`` documents every field and action.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from agentjit.exceptions import UserError
from agentjit.protocol import jsonio

__all__ = ["ScriptTarget", "ScriptStep", "Script", "load_script", "ScriptError", "STEP_TIMEOUT_S"]

STEP_TIMEOUT_S = 15.0
"""How long one step (a goto or an action, and the loads it starts) may take before the site counts
as not answering (``toolcache record --step-timeout``; the verifier's pages the same)."""


class ScriptError(UserError):
    """A demonstration script does not parse; names the file and the step."""


class ScriptTarget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    selector: str | None = None
    role: str | None = None
    name: str | None = None
    text: str | None = None
    nth: int | None = None
    """Which match (0-based, negative from the end) when the target matches several; None: it must match one."""
    exact: bool = False
    """Only an exact ``name`` / ``text`` match; without it, a match ignoring case and spacing is the fallback."""

    @model_validator(mode="after")
    def _something(self) -> ScriptTarget:
        if not (self.selector or self.role or self.text):
            raise ValueError("a target needs a selector, a role or a text")
        return self


class ScriptStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["goto", "click", "fill", "select", "press", "scroll", "check", "wait"]
    target: ScriptTarget | None = None
    url: str | None = None
    value: Any = None
    note: str | None = None
    """What the step is for (kept in the trace as ``goal``; the model labeler can read it)."""

    @model_validator(mode="after")
    def _consistent(self) -> ScriptStep:
        if self.action == "goto" and not self.url:
            raise ValueError("goto needs a url")
        if self.action in ("click", "fill", "select", "check") and self.target is None:
            raise ValueError(f"{self.action} needs a target")
        if self.action in ("fill", "select", "press") and self.value is None:
            raise ValueError(f"{self.action} needs a value")
        return self


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    steps: list[ScriptStep] = Field(min_length=1)
    reset: bool = True
    """Reset the site (``POST /__reset``) before the run, when it offers that."""
    answer: Any = None
    """A task demonstration's answer: what the demonstrator read off the last page (the bench's
    oracle policy says it with ``done``; ``traces/<app>/tasks/``). The recorder ignores it."""
    _path: str | None = PrivateAttr(default=None)

    @property
    def source(self) -> str:
        """The script's file (set by :func:`load_script`), else its name: what errors name."""
        return self._path or self.name


def load_script(path: str | Path) -> Script:
    """Read and validate a script file; errors name the file and the failing step."""
    p = Path(path)
    try:
        data = jsonio.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScriptError(f"{p}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ScriptError(f"{p}: not UTF-8 text (byte offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    if isinstance(data, list):
        data = {"name": p.stem, "steps": data}
    try:
        script = Script.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "<root>"
        raise ScriptError(f"{p}: {where}: {err['msg']}") from None
    script._path = str(p)
    return script
