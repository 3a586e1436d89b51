"""The sandboxed child process that runs a plan (issue 8: isolation in depth).

The runtime starts ``python -I -S`` with a stub ``agentjit`` package so that
only this layer and :mod:`agentjit.exceptions` load (no pydantic, no
Playwright, no site-packages). Before it reads anything from the plan, the
child locks itself in:

* a scrubbed environment (the parent passes only ``PATH`` and ``LANG``);
* a new network namespace (no interfaces but a down loopback) and a new mount
  namespace, chroot into an empty directory, then the ``nobody`` user when
  started as root; unprivileged users get the same through a user namespace
  where the kernel allows it;
* ``no_new_privs``; resource limits on address space, CPU time, file size (0)
  and open files (only the ones it has);
* SIGINT ignored: the parent owns Ctrl-C and kills the child.

What it obtained is reported in its first message (``isolation``). Then it
speaks newline-delimited JSON on stdin/stdout: the parent sends trees to run
and answers tool calls; the child sends calls, prints and results. Values
cross as :mod:`agentjit.plan.data` tagged JSON, trees as
:mod:`agentjit.plan.astjson`.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import resource
import signal
import sys
import time
from typing import Any

from agentjit import exceptions as errors

from . import astjson
from .data import ValueTooLarge, decode, encode, to_plan_value, to_record
from .guard import SAFE_EXCEPTIONS, LimitHit, current_plan_line, plan_error
from .limits import PlanLimits
from .machine import ALL, PlanMachine
from .signatures import PLAN_FUNCTIONS, bind_call, bind_tool_call

__all__ = ["main", "isolate"]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_PR_SET_NO_NEW_PRIVS = 38
_NOBODY = 65534


def _unshare(libc: Any, flags: int) -> bool:
    return bool(libc.unshare(flags) == 0)


def isolate(jail: str | None, *, memory_mb: int, cpu_s: int) -> dict[str, Any]:
    """Lock this process in as far as the OS allows; say what was obtained."""
    got: dict[str, Any] = {"network": False, "filesystem": False, "user": None, "limits": False}
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        libc = None
    if libc is not None:
        flags = _CLONE_NEWNET | _CLONE_NEWNS
        ok = _unshare(libc, flags) if os.geteuid() == 0 else _unshare(libc, flags | _CLONE_NEWUSER)
        got["network"] = ok
        if ok and jail:
            try:
                os.chroot(jail)
                os.chdir("/")
                got["filesystem"] = True
            except OSError as exc:
                got["filesystem_error"] = str(exc)
    if os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setgid(_NOBODY)
            os.setuid(_NOBODY)
        except OSError as exc:
            got["user_error"] = str(exc)
    got["user"] = os.geteuid()
    if libc is not None:
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    try:
        mem = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        got["limits"] = True
    except (OSError, ValueError) as exc:
        got["limits_error"] = str(exc)
    return got


def _close_file_limit() -> None:
    """No new file descriptors: files, sockets and pipes the plan might open all fail."""
    highest = max((int(n) for n in os.listdir("/proc/self/fd")), default=64) if os.path.isdir("/proc/self/fd") else 64
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1, highest + 1))
    except (OSError, ValueError):
        pass


MAX_RESULT_BYTES = 1 << 26
"""Largest ``done`` message (the values a run hands back, as JSON): half the parent's line limit."""


class _Child:
    def __init__(self, out: Any) -> None:
        self.out = out
        self.machine: PlanMachine | None = None
        self.trees: dict[int, Any] = {}
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.next_call = 0
        self.limits = PlanLimits()
        self.schemas: dict[str, Any] = {}
        self.failed_call: int | None = None

    @staticmethod
    def line(msg: dict[str, Any]) -> bytes:
        return (json.dumps(msg, ensure_ascii=True, allow_nan=True, separators=(",", ":")) + "\n").encode("ascii")

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def send(self, msg: dict[str, Any]) -> None:
        self.write(self.line(msg))

    # -- calls to the parent ---------------------------------------------------------------

    async def _ask(self, fn: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        n = self.next_call
        self.next_call += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[n] = fut
        lim = self.limits
        line = self.line({"op": "call", "call": n, "fn": fn, "name": name, "line": current_plan_line(),
                          "args": encode(list(args), max_depth=lim.max_depth, max_items=lim.max_items),
                          "kwargs": encode(kwargs, max_depth=lim.max_depth, max_items=lim.max_items)})
        if len(line) > lim.max_call_chars + 1000:  # the parent refuses it too; not worth the pipe
            self.pending.pop(n, None)
            raise errors.ToolInputError(f"{name}: the arguments are about {len(line):,} characters as JSON; "
                                        f"at most {lim.max_call_chars:,} are allowed")
        self.write(line)
        reply = await fut
        if "error" in reply:
            err = reply["error"]
            self.failed_call = n
            exc = _rebuild(err)
            if isinstance(exc, LimitHit) and self.machine is not None:
                self.machine.guard._stop(exc)  # a run-wide bound the parent counts: it stops the plan
            raise exc
        self.failed_call = None
        if "json" in reply:  # a tool's output: plain JSON from the page
            return to_record(reply["json"], self.schemas.get(name), max_depth=lim.max_depth + 2)
        return to_plan_value(decode(reply.get("value"), max_depth=lim.max_depth + 2), max_depth=lim.max_depth + 2)

    def callables(self, tools: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, spec in tools.items():
            out[name] = self._tool(name, list(spec.get("params", [])))

        def plan_function(fn: str) -> Any:
            async def call(*args: Any, **kwargs: Any) -> Any:
                values, rest = bind_call(fn, args, kwargs)  # the checker's table: same arity, same words
                return await self._ask(fn, fn, tuple(values), rest)

            call.__name__ = fn
            return call

        for fn in PLAN_FUNCTIONS:
            out[fn] = plan_function(fn)
        return out

    def _tool(self, name: str, params: list[str]) -> Any:
        async def bound(*args: Any, **kwargs: Any) -> Any:
            kwargs = bind_tool_call(name, params, args, kwargs)
            return await self._ask("tool", name, (), kwargs)

        bound.__name__ = name
        return bound

    # -- commands from the parent ----------------------------------------------------------

    def init(self, msg: dict[str, Any]) -> None:
        self.limits = PlanLimits(**msg.get("limits", {}))
        tools = msg.get("tools", {})
        self.schemas = {k: v.get("schema") for k, v in tools.items()}
        deadline = time.monotonic() + float(msg.get("time_left", self.limits.time_s))
        self.machine = PlanMachine(self.callables(tools), self.limits, deadline=deadline,
                                   printer=lambda text: self.send({"op": "print", "text": text}))

    async def run(self, msg: dict[str, Any]) -> None:
        assert self.machine is not None
        tid = int(msg["tree_id"])
        if "tree" in msg:
            self.trees[tid] = astjson.load(msg["tree"])
        lim = self.limits
        try:
            want = msg.get("want", ["result"])
            values, ops = await self.machine.run(
                self.trees[tid],
                ns=msg.get("ns", "main"),
                copy_from=msg.get("copy_from"),
                set_vars=decode(msg.get("set", {"$d": []}), max_depth=lim.max_depth + 2),
                recorders=msg.get("recorders", []),
                want=ALL if want == ALL else list(want),
            )
            enc_values = {}
            for k, v in values.items():
                try:
                    enc_values[k] = encode(v, max_depth=lim.max_depth, max_items=lim.max_items)
                except ValueTooLarge as exc:
                    raise errors.PlanLimitExceeded(f"`{k}` cannot leave the plan: {exc}", limit=exc.limit) from None
                except ValueError as exc:
                    if want != ALL:  # a prefix hands on what it can; an asked-for value must cross
                        raise errors.PlanError(f"`{k}` cannot leave the plan: {exc}") from None
                except RecursionError:
                    raise errors.PlanLimitExceeded(f"`{k}` is nested too deeply", limit="depth") from None
            data = self.line({"op": "done", "id": msg["id"], "values": enc_values,
                              "ops": encode(ops, max_depth=lim.max_depth + 4, max_items=lim.max_items)})
            if len(data) > MAX_RESULT_BYTES:
                raise errors.PlanLimitExceeded(
                    f"the plan's values are {len(data):,} bytes as JSON; at most {MAX_RESULT_BYTES:,} can leave the plan",
                    limit="size")
            self.write(data)
        except BaseException as exc:  # everything goes back to the parent as data
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
            self.send({"op": "failed", "id": msg["id"], "error": _describe(exc, self.failed_call)})

    def apply_ops(self, msg: dict[str, Any]) -> None:
        assert self.machine is not None
        try:
            ops = decode(msg["ops"], max_depth=self.limits.max_depth + 6)
            self.machine.apply_ops([(o[0], tuple(o[1]), o[2], tuple(o[3])) for o in ops], ns=msg.get("ns", "main"))
            if "set" in msg:
                self.machine.set_vars(decode(msg["set"], max_depth=self.limits.max_depth + 2), ns=msg.get("ns", "main"))
            self.send({"op": "done", "id": msg["id"], "values": {}, "ops": []})
        except Exception as exc:
            self.send({"op": "failed", "id": msg["id"], "error": _describe(exc, None)})


def _rebuild(err: dict[str, Any]) -> BaseException:
    """The parent's error as an exception of the same class inside the plan.

    A run-wide limit the parent counts (``PlanLimitExceeded``) comes back as the
    guard's :class:`LimitHit`, which the plan cannot catch. Every other class gets
    the attributes its own constructor sets (``line``, ``tool``...), so describing it
    later cannot fail; a class that is not an exception of ours or a safe builtin one
    becomes a RuntimeError that names it.
    """
    name = str(err.get("type", "RuntimeError"))
    message = str(err.get("message", ""))
    cls = SAFE_EXCEPTIONS.get(name) or getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, errors.PlanLimitExceeded):
        return LimitHit(str(err.get("limit") or "calls"), message)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        return RuntimeError(f"{name}: {message}" if message else name)
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    if isinstance(exc, errors.PlanError):
        exc.line = None
        exc.col = None
        exc.detail = message
    if isinstance(exc, errors.ToolError):
        exc.tool = err.get("tool")
        exc.outcome = None
    return exc


def _describe(exc: BaseException, failed_call: int | None) -> dict[str, Any]:
    mapped = plan_error(exc)
    out: dict[str, Any] = {"type": type(mapped).__name__, "message": str(mapped)[:2000]}
    if isinstance(mapped, errors.PlanError):
        out["line"] = mapped.line
        out["message"] = str(getattr(mapped, "detail", None) or (mapped.args[0] if mapped.args else mapped))[:2000]
        if isinstance(mapped, errors.PlanLimitExceeded):
            out["limit"] = mapped.limit
    if isinstance(mapped, errors.AgentJITError) and not isinstance(mapped, errors.PlanError) and failed_call is not None:
        out["call"] = failed_call  # the parent re-raises its own exception object for this call
    if isinstance(mapped, errors.ToolError):
        out["tool"] = mapped.tool
    return out


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 27)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    child = _Child(sys.stdout.buffer)
    _close_file_limit()
    child.send({"op": "ready", "isolation": ISOLATION})
    running: set[asyncio.Task[None]] = set()
    while True:
        line = await reader.readline()
        if not line:
            return
        msg = json.loads(line)
        op = msg.get("op")
        if op == "init":
            child.init(msg)
        elif op == "run":
            task = asyncio.create_task(child.run(msg))
            running.add(task)
            task.add_done_callback(running.discard)
        elif op == "apply_ops":
            child.apply_ops(msg)
        elif op == "reply":
            fut = child.pending.pop(int(msg["call"]), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)
        elif op == "cancel":
            if child.machine is not None:
                child.machine.guard.cancelled = True
            for task in running:
                task.cancel()
        elif op == "exit":
            return


ISOLATION: dict[str, Any] = {}


def probe(targets: dict[str, Any]) -> dict[str, Any]:
    """What code that got past the guard could still do here: try each door and report it.

    ``targets``: ``read`` (a file path), ``write`` (a file path to create),
    ``connect`` ([host, port] of a listener), ``env`` (a variable name). Each
    result is ``"blocked: ..."`` or ``"OPEN"``. Used by the tests and by
    ``agentjit bench isolation`` to show what the OS gives on this machine.
    """
    import socket

    out: dict[str, Any] = {}
    try:
        with open(str(targets["read"]), "rb") as fh:
            fh.read(16)
        out["read"] = "OPEN"
    except Exception as exc:  # noqa: BLE001 - any failure is a closed door
        out["read"] = f"blocked: {exc.__class__.__name__}"
    try:
        with open(str(targets["write"]), "wb") as fh:
            fh.write(b"escaped")
        out["write"] = "OPEN"
    except Exception as exc:  # noqa: BLE001 - any failure is a closed door
        out["write"] = f"blocked: {exc.__class__.__name__}"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            sock.connect((str(targets["connect"][0]), int(targets["connect"][1])))
        out["connect"] = "OPEN"
    except Exception as exc:  # noqa: BLE001 - any failure is a closed door
        out["connect"] = f"blocked: {exc.__class__.__name__}: {exc}"
    out["env"] = "OPEN" if os.environ.get(str(targets["env"])) else "blocked: not in the environment"
    try:
        big = bytearray(2 * 1024 * 1024 * 1024)
        out["memory"] = f"OPEN ({len(big)} bytes)"
    except MemoryError:
        out["memory"] = "blocked: MemoryError"
    return out


def main() -> None:
    """Entry point: ``argv[1]`` the jail directory (or ``-``), ``argv[2]`` memory MiB, ``argv[3]`` CPU s.

    With ``argv[4] == "--probe"`` and ``argv[5]`` a JSON object of targets,
    the child locks itself in, runs :func:`probe` and prints its JSON report.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    jail = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "-" else None
    memory_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    cpu_s = int(sys.argv[3]) if len(sys.argv) > 3 else 600
    if len(sys.argv) > 5 and sys.argv[4] == "--probe":
        import socket  # noqa: F401 - loaded before the jail closes

        targets = json.loads(sys.argv[5])
        got = isolate(jail, memory_mb=memory_mb, cpu_s=cpu_s)
        report = json.dumps({"isolation": got, "probe": "pending"})  # the pipe is open before the fd limit
        _close_file_limit()
        report = json.dumps({"isolation": got, "probe": probe(targets)})
        print(report)
        return
    ISOLATION.update(isolate(jail, memory_mb=memory_mb, cpu_s=cpu_s))
    sys.setrecursionlimit(1000)
    try:
        asyncio.run(_serve())
    except KeyboardInterrupt:
        pass
