"""Every error agentjit raises, split by who is at fault.

::

    AgentJITError
    ├── UserError                      the caller's input is wrong
    │   ├── ManifestError              a tool manifest does not parse or validate
    │   ├── CacheError                 a cache directory/file is missing or malformed
    │   ├── TraceError                 a trace file is malformed (names file and line)
    │   ├── InputFileError             a file the caller named is missing, unreadable or not text
    │   ├── PlanError                  a plan does not parse or breaks the sandbox
    │   │   ├── SandboxViolation       a plan tried something the sandbox forbids
    │   │   ├── PlanRejected           the checker refused a plan before it ran
    │   │   └── PlanLimitExceeded      a plan crossed a bound (time, steps, size)
    │   ├── ToolInputError             arguments do not match a tool's input_schema
    │   └── ConfigError                bad option, unknown app, missing optional extra
    ├── ModelError                     the language model misbehaved
    │   ├── ModelRequestError          the request failed (HTTP, rate limit, timeout)
    │   ├── ModelResponseError         the answer was malformed or empty
    │   └── ModelRequestsDisallowed    a real provider was called while the guard is on
    ├── ToolError                      a site or tool failed at run time
    │   ├── PreconditionFailed         the abstract pre of a call does not hold
    │   ├── ToolCallFailed             pre_check / execute / post_check failed
    │   └── ToolOutputError            the output does not match output_schema
    └── InfrastructureError            the browser or the machine failed
        ├── BrowserError               Chromium could not start / crashed / disconnected
        └── SiteUnreachable            the site stopped answering within the timeout

Errors from outside libraries (Playwright, openai, google-genai) are caught at
the adapter and re-raised as one of these with ``raise ... from exc``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AgentJITError",
    "UserError",
    "ManifestError",
    "CacheError",
    "TraceError",
    "InputFileError",
    "PlanError",
    "SandboxViolation",
    "PlanRejected",
    "PlanLimitExceeded",
    "ToolInputError",
    "ConfigError",
    "ModelError",
    "ModelRequestError",
    "ModelResponseError",
    "ModelRequestsDisallowed",
    "ToolError",
    "PreconditionFailed",
    "ToolCallFailed",
    "ToolOutputError",
    "InfrastructureError",
    "BrowserError",
    "SiteUnreachable",
]


class AgentJITError(Exception):
    """Base of every agentjit error."""


class UserError(AgentJITError):
    """The caller's input is wrong."""


class ManifestError(UserError):
    """A tool manifest is malformed. ``path`` and ``field`` say where."""

    def __init__(self, message: str, *, path: str | None = None, field: str | None = None):
        self.path = path
        self.field = field
        where = ""
        if path:
            where += f"{path}: "
        if field:
            where += f"field '{field}': "
        super().__init__(where + message)


class CacheError(UserError):
    """A cache directory or one of its files is missing or malformed."""

    def __init__(self, message: str, *, path: str | None = None):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class TraceError(UserError):
    """A trace file is malformed; names the file and the line."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = path or "<trace>"
        if line is not None:
            where += f":{line}"
        super().__init__(f"{where}: {message}")


class InputFileError(UserError):
    """A file the caller named cannot be used: missing, unreadable, too large, not UTF-8 text."""

    def __init__(self, message: str, *, path: str | None = None):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class PlanError(UserError):
    """A plan does not parse or cannot run."""

    def __init__(self, message: str, *, line: int | None = None, col: int | None = None):
        self.line = line
        self.col = col
        self.detail = message
        """The message without the ``line N:`` prefix."""
        where = f"line {line}: " if line is not None else ""
        super().__init__(where + message)


class SandboxViolation(PlanError):
    """A plan tried an import, a dunder attribute, exec or another forbidden thing."""


class PlanRejected(PlanError):
    """The static checker refused a plan before it ran (``diagnostics`` holds its findings).

    ``source`` says where the plan came from (a file, a plan cache entry).
    """

    def __init__(self, message: str, *, line: int | None = None, col: int | None = None,
                 diagnostics: list[Any] | None = None, source: str | None = None):
        super().__init__(message, line=line, col=col)
        self.diagnostics = list(diagnostics or [])
        self.source = source


class PlanLimitExceeded(PlanError):
    """A plan crossed one of its bounds (``limit``: time, steps, int, str, items, depth, memory, cpu, size, calls)."""

    def __init__(self, message: str, *, limit: str, line: int | None = None):
        super().__init__(message, line=line)
        self.limit = limit


class ToolInputError(UserError):
    """Arguments do not match a tool's input schema."""


class ConfigError(UserError):
    """A bad option, an unknown app, or a missing optional dependency."""


class ModelError(AgentJITError):
    """The language model misbehaved."""


class ModelRequestError(ModelError):
    """A model request failed after retries (HTTP error, rate limit, timeout)."""


class ModelResponseError(ModelError):
    """A model answered with something unusable (empty, malformed)."""


class ModelRequestsDisallowed(ModelError):
    """A real provider was called while ``agentjit.llm.ALLOW_MODEL_REQUESTS`` is False."""


class ToolError(AgentJITError):
    """A site or tool failed at run time."""

    def __init__(self, message: str, *, tool: str | None = None, outcome: Any = None):
        self.tool = tool
        self.outcome = outcome
        super().__init__(f"{tool}: {message}" if tool else message)


class PreconditionFailed(ToolError):
    """The abstract precondition of a call does not hold in the tracked state."""


class ToolCallFailed(ToolError):
    """A tool's pre_check, execute or post_check failed; ``outcome`` holds the details."""


class ToolOutputError(ToolError):
    """A tool's output does not match its output schema."""


class InfrastructureError(AgentJITError):
    """The browser, the network or the machine failed."""


class BrowserError(InfrastructureError):
    """Chromium could not be launched or connected to, or it went away."""


class SiteUnreachable(InfrastructureError):
    """The site stopped answering within the timeout."""
