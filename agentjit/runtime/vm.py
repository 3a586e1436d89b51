"""Where a plan's code runs: in this process, or in a sandboxed child (the default).

Both kinds of :class:`PlanVM` run checked plan trees through the guard of
:mod:`agentjit.plan.guard` in named namespaces (see
:class:`~agentjit.plan.machine.PlanMachine`) and send every tool call,
``ai_eval`` and ``ask_human`` to the :class:`~agentjit.runtime.interpreter.PlanRun`
they serve. :class:`ChildVM` runs the machine in ``python -I -S`` with a
scrubbed environment, resource limits and, where the OS allows, no network and
an empty root (:mod:`agentjit.plan.child`); calls come back over a pipe as
JSON. :class:`InProcessVM` (``PlanLimits(isolate=False)``) skips the process,
keeping the language-level guard.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from agentjit.exceptions import AgentJITError, InfrastructureError, PlanError, PlanLimitExceeded
from agentjit.plan import astjson
from agentjit.plan.data import ValueTooLarge, decode, encode, to_plan_value
from agentjit.plan.guard import LimitHit
from agentjit.plan.limits import PlanLimits
from agentjit.plan.machine import ALL, PlanMachine
from agentjit.plan.recorder import Op
from agentjit.plan.signatures import PLAN_FUNCTIONS, bind_call

__all__ = ["PlanVM", "InProcessVM", "ChildVM", "open_vm", "child_command", "probe_isolation", "GRACE_S"]

log = logging.getLogger(__name__)


class PlanHost(Protocol):
    """What a VM serves: the parts of a :class:`~agentjit.runtime.interpreter.PlanRun` it uses.

    A protocol, so this module does not import the interpreter (which imports it).
    """

    @property
    def tools(self) -> Mapping[str, Any]: ...

    def callables(self) -> Mapping[str, Callable[..., Awaitable[Any]]]: ...

    def print(self, text: str) -> None: ...

    async def call_raw(self, name: str, args: dict[str, Any]) -> dict[str, Any]: ...

    async def ai_eval_call(self, prompt: Any, /, **values: Any) -> Any: ...

    async def ask_human_call(self, question: Any) -> Any: ...

    async def ai_exec_call(self, instruction: Any) -> Any: ...


GRACE_S = 2.0
"""How long past the plan's time limit the runtime waits before it kills the child."""

MESSAGE_LIMIT = 1 << 27
"""Longest line (bytes) read from the child; the child refuses to send a result past half of it."""

_KEPT_CALL_ERRORS = 16
"""How many failed calls' exceptions are kept for the child to name (it names the latest one)."""

_BOOT = (
    "import sys, types\n"
    "root = sys.argv.pop(1)\n"
    "sys.path[:0] = [root]\n"
    "pkg = types.ModuleType('agentjit'); pkg.__path__ = [root + '/agentjit']\n"
    "sys.modules['agentjit'] = pkg\n"
    "from agentjit.plan.child import main\n"
    "main()\n"
)


def child_command(jail: str | None, limits: PlanLimits) -> list[str]:
    """The command line of a sandbox child (``-I``: no environment, no user site; ``-S``: no site-packages)."""
    root = str(Path(__file__).resolve().parents[2])
    return [sys.executable, "-I", "-S", "-c", _BOOT, root, jail or "-", str(limits.memory_mb), str(limits.cpu_s)]


_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


async def probe_isolation(targets: Mapping[str, Any], limits: PlanLimits | None = None) -> dict[str, Any]:
    """Start a sandbox child exactly as a plan run does, and have it try every door in ``targets``.

    Returns ``{"isolation": what the child obtained, "probe": {door: "blocked: ..." | "OPEN"}}``
    (see :func:`agentjit.plan.child.probe`).
    """
    limits = limits or PlanLimits()
    jail = tempfile.mkdtemp(prefix="agentjit-jail-")
    os.chmod(jail, 0o555)
    try:
        proc = await asyncio.create_subprocess_exec(
            *child_command(jail, limits), "--probe", json.dumps(dict(targets)),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=dict(_ENV), start_new_session=True,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        shutil.rmtree(jail, ignore_errors=True)
    try:
        report: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise InfrastructureError(f"the isolation probe failed: {err.decode(errors='replace')[-500:]}") from None
    return report


class PlanVM:
    """Runs plan trees for one :class:`PlanRun` (one browser context)."""

    isolation: dict[str, Any]

    async def run(
        self,
        tree: ast.Module,
        *,
        ns: str = "main",
        copy_from: str | None = None,
        set_vars: Mapping[str, Any] | None = None,
        recorders: Iterable[str] = (),
        want: Iterable[str] | str = ("result",),
    ) -> tuple[dict[str, Any], list[Op]]:
        raise NotImplementedError

    async def apply_ops(self, ops: list[Op], *, ns: str = "main", set_vars: Mapping[str, Any] | None = None) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None


class InProcessVM(PlanVM):
    """The guard without the process: for tests and for hosts that cannot spawn one."""

    def __init__(self, run: PlanHost, limits: PlanLimits, deadline: float) -> None:
        callables = {name: self._stopping(fn) for name, fn in run.callables().items()}
        self.machine = PlanMachine(callables, limits, deadline=deadline, printer=run.print)
        self.isolation = {"process": False}

    def _stopping(self, fn: Any) -> Any:
        """``fn`` whose PlanLimitExceeded (a run-wide bound the PlanRun counts) the plan cannot catch."""

        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except PlanLimitExceeded as exc:
                raise self.machine.guard._stop(LimitHit(exc.limit, exc.detail)) from None

        call.__name__ = getattr(fn, "__name__", "call")
        return call

    async def run(
        self,
        tree: ast.Module,
        *,
        ns: str = "main",
        copy_from: str | None = None,
        set_vars: Mapping[str, Any] | None = None,
        recorders: Iterable[str] = (),
        want: Iterable[str] | str = ("result",),
    ) -> tuple[dict[str, Any], list[Op]]:
        values, ops = await self.machine.run(tree, ns=ns, copy_from=copy_from, set_vars=set_vars,
                                             recorders=recorders, want=want)
        # values leave as copies, checked as plain data, exactly as they cross from the child
        lim = self.machine.guard.limits
        out = {}
        for k, v in values.items():
            try:
                out[k] = decode(encode(v, max_depth=lim.max_depth, max_items=lim.max_items), max_depth=lim.max_depth + 2)
            except ValueTooLarge as exc:
                raise PlanLimitExceeded(f"`{k}` cannot leave the plan: {exc}", limit=exc.limit) from None
            except ValueError as exc:
                if want != ALL:
                    raise PlanError(f"`{k}` cannot leave the plan: {exc}") from None
            except RecursionError:
                raise PlanLimitExceeded(f"`{k}` is nested too deeply", limit="depth") from None
        depth = lim.max_depth + 6
        ops = [(o[0], tuple(o[1]), o[2], tuple(o[3]))
               for o in decode(encode([list(o) for o in ops], max_depth=depth), max_depth=depth)]
        return out, ops

    async def apply_ops(self, ops: list[Op], *, ns: str = "main", set_vars: Mapping[str, Any] | None = None) -> None:
        try:
            self.machine.apply_ops(ops, ns=ns)
            if set_vars:
                self.machine.set_vars(set_vars, ns=ns)
        except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:
            raise PlanError(f"merging the parallel loop's results: {type(exc).__name__}: {exc}") from exc


class ChildVM(PlanVM):
    """A sandboxed ``python`` child that runs the plan; this side serves its calls."""

    def __init__(self, run: PlanHost, limits: PlanLimits, deadline: float) -> None:
        self.plan_run = run
        self.limits = limits
        self.deadline = deadline
        self.isolation: dict[str, Any] = {"process": True}
        self._proc: asyncio.subprocess.Process | None = None
        self._jail: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._calls: set[asyncio.Task[None]] = set()
        self._call_lines: dict[int, int] = {}
        """The plan line of each call the child is waiting on (a run past its time limit names it)."""
        self._call_errors: dict[int, BaseException] = {}
        self._sent_trees: dict[int, ast.Module] = {}
        self._next = 0
        self._ready: asyncio.Future[dict[str, Any]] | None = None
        self._stderr = b""
        self._stderr_task: asyncio.Task[None] | None = None
        self._overlong = False
        self._fatal: BaseException | None = None

    # -- process -----------------------------------------------------------------------------

    async def start(self) -> None:
        self._jail = tempfile.mkdtemp(prefix="agentjit-jail-")
        os.chmod(self._jail, 0o555)
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *child_command(self._jail, self.limits),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=dict(_ENV),
                start_new_session=True,
                limit=MESSAGE_LIMIT,
            )
        except OSError as exc:
            self._cleanup_jail()
            raise InfrastructureError(f"cannot start the plan sandbox process: {exc}") from exc
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._reader = asyncio.create_task(self._read(), name="plan-sandbox-reader")
        self._stderr_task = asyncio.create_task(self._drain_stderr(), name="plan-sandbox-stderr")
        try:
            async with asyncio.timeout(30):
                hello = await self._ready
        except TimeoutError:
            await self.aclose()
            raise InfrastructureError("the plan sandbox process did not start within 30 s") from None
        self.isolation.update(hello.get("isolation", {}))
        tools = {
            name: {"params": list(tool.parameters), "schema": tool.output_schema}
            for name, tool in self.plan_run.tools.items()
        }
        limits = {k: getattr(self.limits, k) for k in self.limits.__dataclass_fields__}
        self._send({"op": "init", "limits": limits, "tools": tools,
                    "time_left": max(self.deadline - time.monotonic(), 0.0)})

    def _send(self, msg: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.returncode is not None:
            raise PlanError("the plan sandbox process is gone")
        proc.stdin.write((json.dumps(msg, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii"))

    async def _drain_stderr(self) -> None:
        """Read the child's stderr as it comes, keeping the last 4000 bytes.

        Unread, a pipe holds 64 KiB: a child that writes more (Python warnings, say) would block
        on the write and look like a plan past its time limit.
        """
        proc = self._proc
        if proc is None or proc.stderr is None:
            return
        with contextlib.suppress(Exception):
            while True:
                chunk = await proc.stderr.read(65536)
                if not chunk:
                    return
                self._stderr = (self._stderr + chunk)[-4000:]

    async def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        try:
            while True:
                try:
                    line = await proc.stdout.readline()
                except ValueError:  # a line over the stream limit: a misbehaving child
                    self._overlong = True
                    break
                if not line or not line.endswith(b"\n"):  # the end, or a child killed in mid-message
                    break
                try:
                    msg = json.loads(line)
                except (ValueError, RecursionError):
                    log.warning("plan sandbox sent a malformed line: %r", line[:200])
                    break
                try:
                    if not isinstance(msg, dict):
                        raise TypeError(type(msg).__name__)
                    self._dispatch(msg)
                except (TypeError, ValueError, KeyError):
                    log.warning("plan sandbox sent a malformed message: %r", line[:200])
                    break
        finally:
            gone = PlanError("the plan sandbox process ended unexpectedly")
            if self._ready is not None and not self._ready.done():
                self._ready.set_exception(gone)
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_result({"op": "gone"})

    def _dispatch(self, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        if op == "ready":
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(msg)
        elif op == "call":
            n, line = msg.get("call"), msg.get("line")
            if isinstance(n, int) and isinstance(line, int):
                self._call_lines[n] = line
            task = asyncio.create_task(self._serve_call(msg))
            task.add_done_callback(lambda _t: self._call_lines.pop(n, None) if isinstance(n, int) else None)
            self._calls.add(task)
            task.add_done_callback(self._calls.discard)
        elif op == "print":
            self.plan_run.print(str(msg.get("text", "")))
        elif op in ("done", "failed"):
            fut = self._waiting.pop(int(msg.get("id", -1)), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)

    async def _serve_call(self, msg: dict[str, Any]) -> None:
        n = int(msg["call"])
        depth = self.limits.max_depth + 2
        try:
            args = decode(msg.get("args", []), max_depth=depth)
            kwargs = decode(msg.get("kwargs", {"$d": []}), max_depth=depth)
            if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
                raise PlanError("malformed call from the plan sandbox")
            fn = msg.get("fn")
            if fn == "tool":
                name = str(msg.get("name"))
                if name not in self.plan_run.tools:
                    raise PlanError(f"{name!r} is not a tool")
                output = await self.plan_run.call_raw(name, kwargs)
                # a tool's output is JSON from the page: it crosses as it is, the child makes it records
                self._send({"op": "reply", "call": n, "json": output})
                return
            value: Any
            if fn not in PLAN_FUNCTIONS:
                raise PlanError(f"unknown call {fn!r} from the plan sandbox")
            args, kwargs = bind_call(str(fn), args, kwargs)  # the child bound them too; it is not trusted
            if fn == "ai_eval":
                value = to_plan_value(await self.plan_run.ai_eval_call(*args, **kwargs))
            elif fn == "ask_human":
                value = to_plan_value(await self.plan_run.ask_human_call(*args))
            else:
                value = to_plan_value(await self.plan_run.ai_exec_call(*args))
            reply: dict[str, Any] = {"op": "reply", "call": n, "value": encode(value)}
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._call_errors[n] = exc
            while len(self._call_errors) > _KEPT_CALL_ERRORS:  # each holds its call's arguments; keep the latest
                del self._call_errors[next(iter(self._call_errors))]
            reply = {"op": "reply", "call": n, "error": {
                "type": type(exc).__name__, "message": _message(exc)[:2000], "tool": getattr(exc, "tool", None)}}
            if isinstance(exc, PlanLimitExceeded):
                reply["error"]["limit"] = exc.limit
        except BaseException as exc:  # e.g. a hedged replica that lost the race: the run ends here, not the plan
            self._fatal = exc
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_result({"op": "fatal"})
            return
        with contextlib.suppress(PlanError, ConnectionError):
            self._send(reply)

    # -- runs --------------------------------------------------------------------------------

    async def _request(self, msg: dict[str, Any]) -> dict[str, Any]:
        rid = self._next
        self._next += 1
        msg["id"] = rid
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        self._send(msg)
        left = self.deadline - time.monotonic() + GRACE_S
        try:
            async with asyncio.timeout(max(left, 0.1)):
                reply = await fut
        except TimeoutError:
            line = min(self._call_lines.values(), default=None)  # a call it was waiting on: where the time went
            await self.kill()
            raise PlanLimitExceeded(
                f"the plan ran longer than its time limit of {self.limits.time_s:g} s (raise it with --time-limit)",
                limit="time", line=line,
            ) from None
        finally:
            self._waiting.pop(rid, None)
        if reply.get("op") == "fatal" and self._fatal is not None:
            await self.kill()
            raise self._fatal
        if reply.get("op") == "gone":
            raise await self._death()
        if reply.get("op") == "failed":
            raise self._error(reply.get("error") or {})
        return reply

    async def _death(self) -> BaseException:
        proc = self._proc
        if self._overlong:
            await self.kill()
            return PlanLimitExceeded(f"the plan's sandbox process sent a message over {MESSAGE_LIMIT >> 20} MiB "
                                     "(a result or call arguments too large to hand over); it was stopped", limit="size")
        code = None
        if proc is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2):
                    code = await proc.wait()
            if self._stderr_task is not None:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(1):
                        await asyncio.shield(self._stderr_task)
        if code is None:  # its output ended but it lives on: not a plan that ran to its end
            await self.kill()
            return PlanError("the plan's sandbox process stopped answering (it closed its output); it was stopped")
        if code < 0 and -code in (signal.SIGXCPU, signal.SIGKILL):
            return PlanLimitExceeded(f"the plan used more than its {self.limits.cpu_s} s of CPU time", limit="cpu")
        tail = self._stderr.decode("utf-8", "replace").strip().splitlines()[-1:] if self._stderr else []
        if any("MemoryError" in t for t in tail):
            return PlanLimitExceeded(f"the plan used more than {self.limits.memory_mb} MiB", limit="memory")
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            hint = (" (a value nested very deeply, such as a tuple inside a tuple a hundred thousand times, "
                    "overflows the C stack when it is hashed)" if -code in (signal.SIGSEGV, signal.SIGBUS) else "")
            return PlanError(f"the plan's sandbox process crashed with {name}{hint}")
        return PlanError(f"the plan's sandbox process died (exit code {code})" + (f": {tail[0][:300]}" if tail else ""))

    def _error(self, err: dict[str, Any]) -> BaseException:
        call = err.get("call")
        if isinstance(call, int) and call in self._call_errors:
            return self._call_errors[call]  # the tool's own exception, as a serial in-process run raises it
        line = err.get("line") if isinstance(err.get("line"), int) else None
        message = str(err.get("message", "plan failed"))
        kind = str(err.get("type", "PlanError"))
        if kind == "PlanLimitExceeded":
            return PlanLimitExceeded(message, limit=str(err.get("limit", "")), line=line)
        from agentjit import exceptions as errors

        cls = getattr(errors, kind, None)
        if isinstance(cls, type) and issubclass(cls, PlanError):
            return cls(message, line=line)
        if isinstance(cls, type) and issubclass(cls, AgentJITError) and kind in ("ConfigError", "ToolInputError"):
            return cls(message)
        return PlanError(f"{kind}: {message}", line=line)

    async def run(
        self,
        tree: ast.Module,
        *,
        ns: str = "main",
        copy_from: str | None = None,
        set_vars: Mapping[str, Any] | None = None,
        recorders: Iterable[str] = (),
        want: Iterable[str] | str = ("result",),
    ) -> tuple[dict[str, Any], list[Op]]:
        tid = id(tree)
        msg: dict[str, Any] = {"op": "run", "tree_id": tid, "ns": ns, "copy_from": copy_from,
                               "recorders": list(recorders), "want": want if want == ALL else list(want)}
        if self._sent_trees.get(tid) is not tree:
            try:
                msg["tree"] = astjson.dump(tree)
            except RecursionError:
                raise PlanError("the plan is nested too deeply to run") from None
            self._sent_trees[tid] = tree
        msg["set"] = encode(dict(set_vars or {}))
        reply = await self._request(msg)
        depth = self.limits.max_depth + 6
        values = {str(k): decode(v, max_depth=depth) for k, v in dict(reply.get("values", {})).items()}
        raw_ops = decode(reply.get("ops", []), max_depth=depth)
        ops: list[Op] = [(o[0], tuple(o[1]), o[2], tuple(o[3])) for o in raw_ops]
        return values, ops

    async def apply_ops(self, ops: list[Op], *, ns: str = "main", set_vars: Mapping[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"op": "apply_ops", "ns": ns, "ops": encode([list(o) for o in ops])}
        if set_vars:
            msg["set"] = encode(dict(set_vars))
        await self._request(msg)

    async def kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5)

    async def aclose(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(Exception):
                self._send({"op": "exit"})
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 1.0)
            except (TimeoutError, asyncio.CancelledError):
                await self.kill()
                raise
            except Exception:
                await self.kill()
        tasks = [*self._calls, *(t for t in (self._reader, self._stderr_task) if t is not None)]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._cleanup_jail()

    def _cleanup_jail(self) -> None:
        if self._jail is not None:
            shutil.rmtree(self._jail, ignore_errors=True)
            self._jail = None


def _message(exc: BaseException) -> str:
    if isinstance(exc, AgentJITError) and getattr(exc, "tool", None) and exc.args:
        text = str(exc.args[0])
        prefix = f"{exc.tool}: "  # type: ignore[attr-defined]
        return text[len(prefix):] if text.startswith(prefix) else text
    return str(exc)


@contextlib.asynccontextmanager
async def open_vm(run: PlanHost, limits: PlanLimits, deadline: float) -> Any:
    """A VM for ``run``: a sandbox child when ``limits.isolate``, else in-process. Always closed."""
    vm: PlanVM
    if limits.isolate:
        child = ChildVM(run, limits, deadline)
        try:
            await child.start()
        except BaseException:
            await child.aclose()
            raise
        vm = child
    else:
        vm = InProcessVM(run, limits, deadline)
    try:
        yield vm
    except BaseException:
        if isinstance(vm, ChildVM):  # cancelled, interrupted or failed: no goodbye, the child goes now
            await asyncio.shield(vm.kill())
        raise
    finally:
        if isinstance(vm, ChildVM):
            try:
                await vm.aclose()
            except asyncio.CancelledError:
                await vm.kill()
                vm._cleanup_jail()
                raise
