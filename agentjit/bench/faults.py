"""Fault injection on a bench site's write endpoints: a small declarative plan, one injector.

A :class:`FaultRule` says which requests to hit and how::

    {"path": "/api/cart", "method": "POST", "when": "after", "kind": "500", "nth": 1}

* ``path``: a regular expression the request path must match in full;
  ``method``: the HTTP method (``POST`` by default: the writes);
* ``nth``: the n-th matching request (1-based) trips the rule, and ``times``
  requests from there on (default 1);
* ``when``: ``before`` the site applies the request (it never reaches the
  handler), or ``after`` (the site applied it; only the answer is faulty);
* ``kind``:

  - ``500``: answer HTTP 500 (an error page);
  - ``timeout``: hold the request ``hang_s`` seconds (past the tool's timeout),
    then close the connection (``before``: never applied) or send the real,
    late answer (``after``);
  - ``drop``: close the connection without an answer (HTTP-server sites only);
  - ``kill``, ``crash``, ``restart``: *signal* the harness through
    :attr:`FaultInjector.on_fault` (``kill``: close the browser context that
    sent the request; ``crash``: kill Chromium's process) or restart the site
    on the same port, keeping its state (:attr:`FaultInjector.restart`); the
    request is held ``hang_s`` seconds (the client is gone by then), then
    dropped.

The same plan is set over HTTP, next to ``/__state`` and ``/__reset``:
``POST /__faults`` with ``{"rules": [...]}`` replaces the plan (``{"rules": []}``
clears it), ``GET /__faults`` returns the plan, how often each rule matched
and every fault injected so far. The food site handles it in its own server;
WSGI apps (Roundup, Fava) get it from :class:`FaultMiddleware`, installed in
front of the app by :func:`install_wsgi_faults`.

:func:`chromium_pids` and :func:`kill_pids` find and kill the browser
processes this process started (descendants only, by pid): the ``crash`` fault.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from agentjit.exceptions import ConfigError
from agentjit.runtime.processes import descendants

__all__ = [
    "FaultRule",
    "FaultEvent",
    "FaultInjector",
    "FaultMiddleware",
    "install_wsgi_faults",
    "chromium_pids",
    "kill_pids",
    "KINDS",
    "CLIENT_HEADER",
    "SIGNAL_KINDS",
]

log = logging.getLogger(__name__)

When = Literal["before", "after"]
KINDS: tuple[str, ...] = ("500", "timeout", "drop", "kill", "crash", "restart")
CLIENT_HEADER = "X-Fault-Client"
"""A header the harness puts on every request of a browser context, so a fault names the context it hit."""
SIGNAL_KINDS: frozenset[str] = frozenset({"kill", "crash", "restart"})
"""Kinds that need someone outside the site: the harness (kill, crash) or the site's own restart."""

Action = Literal["error", "drop", "late"]
"""What the server does with the request once the fault ran: answer 500, close the connection,
or send the real answer (late)."""


@dataclass(frozen=True)
class FaultRule:
    """One fault: which requests (``method``, ``path``, ``nth``, ``times``), when, and what."""

    path: str
    kind: str = "500"
    when: When = "before"
    method: str = "POST"
    nth: int = 1
    times: int = 1
    hang_s: float = 15.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"fault kind {self.kind!r} unknown (known: {', '.join(KINDS)})")
        if self.when not in ("before", "after"):
            raise ConfigError(f"fault 'when' must be 'before' or 'after', not {self.when!r}")
        if self.nth < 1 or self.times < 1:
            raise ConfigError(f"fault nth and times must be at least 1, got nth={self.nth} times={self.times}")
        if self.hang_s < 0:
            raise ConfigError(f"fault hang_s must be >= 0, got {self.hang_s}")
        try:
            re.compile(self.path)
        except re.error as exc:
            raise ConfigError(f"fault path {self.path!r} is not a regular expression: {exc}") from None

    @classmethod
    def from_json(cls, data: Any) -> FaultRule:
        """A rule from its JSON object; unknown fields and bad values raise a ConfigError naming them."""
        if not isinstance(data, dict):
            raise ConfigError(f"a fault rule is a JSON object, not {type(data).__name__}")
        known = set(cls.__dataclass_fields__)
        extra = sorted(set(data) - known)
        if extra:
            raise ConfigError(f"unknown fault rule field(s) {', '.join(extra)} (known: {', '.join(sorted(known))})")
        if "path" not in data:
            raise ConfigError("a fault rule needs a 'path' (a regular expression over the request path)")
        try:
            return cls(**{**data, "kind": str(data.get("kind", "500")), "method": str(data.get("method", "POST")).upper()})
        except TypeError as exc:
            raise ConfigError(f"bad fault rule {data!r}: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def matches(self, method: str, path: str) -> bool:
        return method.upper() == self.method and re.fullmatch(self.path, path) is not None


@dataclass
class FaultEvent:
    """One fault injected: which rule, on which request, when (wall time)."""

    rule: int
    kind: str
    when: str
    method: str
    path: str
    time: float
    client: str | None = None
    """The request's ``X-Fault-Client`` header: which browser context sent it (the harness tags each)."""


@dataclass
class FaultInjector:
    """The fault plan of one site, shared by its request threads (thread-safe).

    ``on_fault(rule, event)`` is called in the request's thread for the signal
    kinds ``kill`` and ``crash`` (the harness closes a context or kills the
    browser); ``restart()`` for ``restart`` (the site sets it).
    """

    rules: list[FaultRule] = field(default_factory=list)
    on_fault: Callable[[FaultRule, FaultEvent], None] | None = None
    restart: Callable[[], None] | None = None
    supports_drop: bool = True
    seen: list[int] = field(default_factory=list)
    injected: list[FaultEvent] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _release: threading.Event = field(default_factory=threading.Event, repr=False)

    def set(self, rules: Iterable[FaultRule]) -> None:
        """Replace the plan (counts and the injected list start over); held requests are let go."""
        rules = list(rules)
        for rule in rules:
            if rule.kind == "drop" and not self.supports_drop:
                raise ConfigError("this site cannot drop a connection (a WSGI app): use kind 500 or timeout")
        self._release.set()
        with self._lock:
            self.rules = rules
            self.seen = [0] * len(rules)
            self.injected = []
            self._release = threading.Event()

    def clear(self) -> None:
        self.set([])

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "rules": [r.to_json() for r in self.rules],
                "seen": list(self.seen),
                "injected": [asdict(e) for e in self.injected],
            }

    def decide(self, method: str, path: str) -> tuple[int, FaultRule] | None:
        """Count this request against every rule it matches; the first rule it trips, if any."""
        hit: tuple[int, FaultRule] | None = None
        with self._lock:
            for i, rule in enumerate(self.rules):
                if not rule.matches(method, path):
                    continue
                self.seen[i] += 1
                if hit is None and rule.nth <= self.seen[i] < rule.nth + rule.times:
                    hit = (i, rule)
        return hit

    def trip(self, index: int, rule: FaultRule, method: str, path: str, client: str | None = None) -> Action:
        """Inject ``rule`` on this request (in the request's thread); what the server does next.

        ``client`` is the request's ``X-Fault-Client`` header (:data:`CLIENT_HEADER`), if any.
        """
        event = FaultEvent(index, rule.kind, rule.when, method, path, time.time(), client)
        with self._lock:
            self.injected.append(event)
            release = self._release
        log.info("fault %s %s on %s %s", rule.kind, rule.when, method, path)
        if rule.kind == "500":
            return "error"
        if rule.kind == "drop":
            return "drop"
        if rule.kind == "timeout":
            release.wait(rule.hang_s)
            return "drop" if rule.when == "before" else "late"
        if rule.kind == "restart":
            if self.restart is None:
                log.warning("restart fault on a site without a restart hook: dropping the request")
            else:
                self.restart()
            return "drop"
        # kill / crash: the harness acts on the browser while this request is held open
        if self.on_fault is None:
            log.warning("%s fault with no harness listening: dropping the request", rule.kind)
        else:
            try:
                self.on_fault(rule, event)
            except Exception:  # the harness's failure must not take the site down
                log.exception("fault hook failed")
        release.wait(rule.hang_s)
        return "drop"

    def handle_hook(self, method: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """``GET /__faults`` (the plan, counts, events) or ``POST /__faults`` (set the plan): status and JSON."""
        if method == "GET":
            return 200, self.snapshot()
        try:
            data = json.loads(body or b"{}")
            raw = data.get("rules", []) if isinstance(data, dict) else data
            if not isinstance(raw, list):
                raise ConfigError("'rules' must be a list of fault rules")
            self.set(FaultRule.from_json(r) for r in raw)
        except (json.JSONDecodeError, ConfigError) as exc:
            return 400, {"ok": False, "error": f"bad fault plan: {exc}"}
        return 200, {"ok": True, **self.snapshot()}


# -- WSGI apps (Roundup, Fava) ---------------------------------------------------------------


class FaultMiddleware:
    """WSGI middleware: ``/__faults`` and the injector's faults in front of ``app``.

    ``after`` faults run the app to the end (the write is applied and the
    response fully produced) before the fault. A WSGI app cannot drop its
    connection, so the injector refuses ``drop`` rules; a ``timeout`` before
    the app answers 504 once the hang is over (the client is gone).
    """

    def __init__(self, app: Callable[..., Iterable[bytes]], injector: FaultInjector) -> None:
        self.app = app
        self.injector = injector
        injector.supports_drop = False

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "GET").upper()
        if path == "/__faults":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(length) if length > 0 else b""
            status, data = self.injector.handle_hook(method, body)
            return _respond(start_response, status, json.dumps(data).encode(), "application/json")
        hit = self.injector.decide(method, path)
        if hit is None:
            return self.app(environ, start_response)
        index, rule = hit
        client = environ.get("HTTP_" + CLIENT_HEADER.upper().replace("-", "_"))
        if rule.when == "before":
            action = self.injector.trip(index, rule, method, path, client)
            status = 500 if action == "error" else 504
            return _respond(start_response, status, f"injected fault: {rule.kind} before {method} {path}".encode())
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            captured["status"], captured["headers"] = status, headers
            return lambda _chunk: None

        chunks = self.app(environ, capture)
        try:
            body = b"".join(chunks)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        action = self.injector.trip(index, rule, method, path, client)
        if action == "late":
            start_response(captured["status"], captured["headers"])
            return [body]
        status = 500 if action == "error" else 504
        return _respond(start_response, status, f"injected fault: {rule.kind} after {method} {path}".encode())


def _respond(start_response: Callable[..., Any], status: int, body: bytes, ctype: str = "text/plain") -> list[bytes]:
    reason = {200: "OK", 400: "Bad Request", 500: "Internal Server Error", 504: "Gateway Timeout"}.get(status, "Error")
    start_response(f"{status} {reason}", [("Content-Type", ctype), ("Content-Length", str(len(body)))])
    return [body]


def install_wsgi_faults(site: Any, injector: FaultInjector | None = None) -> FaultInjector:
    """Put :class:`FaultMiddleware` in front of a started WSGI bench site (Roundup, Fava); its injector.

    The middleware wraps the app the site's HTTP server calls (outside the
    site's own request lock, so a held request does not block the others).
    """
    injector = injector or FaultInjector()
    server = getattr(site, "_server", None)  # the sites keep their WSGI server here
    if server is None:
        raise ConfigError(f"{type(site).__name__} is not started, or has no WSGI server to put faults in front of")
    if hasattr(server, "set_app") and hasattr(server, "get_app"):  # wsgiref (Roundup)
        server.set_app(FaultMiddleware(server.get_app(), injector))
    elif hasattr(server, "app"):  # werkzeug (Fava)
        server.app = FaultMiddleware(server.app, injector)
    else:
        raise ConfigError(f"cannot install faults in {type(server).__name__}: not a wsgiref or werkzeug server")
    site.faults = injector
    return injector


# -- the browser process ---------------------------------------------------------------------


def chromium_pids(root: int | None = None) -> set[int]:
    """Pids of Chromium *browser* processes (not renderers) descended from ``root`` (this process)."""
    found = set()
    for child in descendants(root):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if argv and b"chrom" in os.path.basename(argv[0]) and not any(a.startswith(b"--type=") for a in argv):
            found.add(child)
    return found


def kill_pids(pids: Iterable[int]) -> list[int]:
    """SIGKILL each pid (ours, found by :func:`chromium_pids`); the ones that were still alive."""
    killed = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except ProcessLookupError:
            pass
    return killed
