"""The plan interpreter: plan source run in a restricted namespace, tools bound to a page.

A plan is top-level Python with ``await tool(...)``, ``ai_eval(...)``,
``ask_human(...)`` and plain control flow; its final value is ``result``. The
interpreter

* rejects what the sandbox forbids *before* running anything (imports, dunder
  attributes, exec, unknown node types) with :class:`SandboxViolation`;
* runs the plan with only :data:`~agentjit.planner.sandbox.SAFE_BUILTINS`, the
  tools, ``ai_eval`` and ``ask_human`` in scope;
* tracks the abstract state: a call whose ``pre`` does not hold raises
  :class:`PreconditionFailed` without touching the page, a successful call
  applies its ``post`` (bindings: the arguments, then the output fields);
* turns each output into the tool's pydantic output model, so
  ``stores.items[0].name`` works;
* records every call as a trace :class:`StepEvent`.

WRITE calls go through an optional ``write_gate`` (the effect log of the
parallel and hedged strategies), which decides whether the write is sent.
"""

from __future__ import annotations

import ast
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from agentjit.exceptions import (
    ConfigError,
    PlanError,
    PreconditionFailed,
    SandboxViolation,
    ToolCallFailed,
    ToolInputError,
)
from agentjit.planner.sandbox import SAFE_BUILTINS, check_sandbox
from agentjit.protocol import state as algebra
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.schema import ToolResult, output_model, to_plain, validate_inputs
from agentjit.protocol.trace import StepEvent, TraceWriter

from .invoke import CallOutcome, call_tool

__all__ = ["PlanRun", "execute_plan", "run_tree", "parse_plan", "WriteGate", "AiEval", "AskHuman", "format_prompt"]

log = logging.getLogger(__name__)

PLAN_FILENAME = "<plan>"

WriteGate = Callable[[ToolManifest, dict[str, Any], Callable[[], Awaitable[CallOutcome]]], Awaitable[CallOutcome]]
AiEval = Callable[..., Awaitable[Any]]
AskHuman = Callable[[str], Awaitable[Any]]


def format_prompt(prompt: str, values: Mapping[str, Any]) -> str:
    """Fill ``{name}`` fields of an ``ai_eval`` prompt with JSON renderings of ``values``.

    Only bare names are substituted (no attribute or index lookups), so a
    prompt cannot reach into objects the way ``str.format`` can.
    """

    def render(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            return match.group(0)
        value = values[key]
        if isinstance(value, str):
            return value
        return json.dumps(to_plain(value, stringify=True), ensure_ascii=False)

    return re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", render, prompt)


async def _no_ai_eval(prompt: str, **values: Any) -> Any:
    raise ConfigError("the plan calls ai_eval, but no model was given (pass model= or ai_eval=)")


async def _no_ask_human(question: str) -> Any:
    raise ConfigError("the plan calls ask_human, but no ask_human handler was given")


def parse_plan(source: str, tool_names: set[str] | frozenset[str]) -> ast.Module:
    """Parse plan source and apply the sandbox; raises PlanError / SandboxViolation."""
    try:
        tree = ast.parse(source, filename=PLAN_FILENAME)
    except SyntaxError as exc:
        raise PlanError(f"syntax error: {exc.msg}", line=exc.lineno, col=exc.offset) from None
    findings = check_sandbox(tree, callables=set(tool_names) | {"ai_eval", "ask_human"})
    if findings:
        first = findings[0]
        rest = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        err = SandboxViolation(f"[{first.code}] {first.message}{rest}", line=first.line, col=first.col)
        err.diagnostics = findings  # type: ignore[attr-defined]
        raise err
    return tree


class PlanRun:
    """The tools of one cache bound to one page, with the abstract state they track."""

    def __init__(
        self,
        tools: Mapping[str, ToolManifest],
        page: Any,
        *,
        state: Mapping[str, Any] | None = None,
        trace: TraceWriter | None = None,
        worker: int = 0,
        ai_eval: AiEval | None = None,
        ask_human: AskHuman | None = None,
        timeout_ms: int | None = None,
        snapshots: bool = False,
        write_gate: WriteGate | None = None,
        check_state: bool = True,
    ) -> None:
        self.tools = dict(tools)
        self.page = page
        self.state: dict[str, Any] = dict(state or {})
        self.trace = trace
        self.worker = worker
        self.ai_eval = ai_eval or _no_ai_eval
        self.ask_human = ask_human or _no_ask_human
        self.timeout_ms = timeout_ms
        self.snapshots = snapshots
        self.write_gate = write_gate
        self.check_state = check_state
        self.calls: list[StepEvent] = []
        self._local_index = 0

    # -- the namespace a plan sees -----------------------------------------

    def namespace(self) -> dict[str, Any]:
        ns: dict[str, Any] = {"__builtins__": dict(SAFE_BUILTINS)}
        for name in self.tools:
            ns[name] = self._bind(name)
        ns["ai_eval"] = self._ai_eval
        ns["ask_human"] = self._ask_human
        return ns

    def _bind(self, name: str) -> Callable[..., Awaitable[ToolResult]]:
        tool = self.tools[name]
        params = list(tool.parameters)

        async def bound(*args: Any, **kwargs: Any) -> ToolResult:
            if len(args) > len(params):
                raise ToolInputError(f"{name}() takes at most {len(params)} positional arguments")
            for pname, value in zip(params, args, strict=False):
                if pname in kwargs:
                    raise ToolInputError(f"{name}() got multiple values for {pname!r}")
                kwargs[pname] = value
            return await self.call(name, kwargs)

        bound.__name__ = name
        bound.__doc__ = tool.description
        return bound

    async def _ai_eval(self, prompt: str, **values: Any) -> Any:
        start = time.time()
        value = await self.ai_eval(prompt, **values)
        self._record(
            StepEvent(
                index=self._next_index(),
                worker=self.worker,
                action="evaluate",
                tool="ai_eval",
                args={"prompt": prompt},
                start=start,
                end=time.time(),
                output=to_plain(value, stringify=True),
            )
        )
        return value

    async def _ask_human(self, question: str) -> Any:
        return await self.ask_human(question)

    # -- one tool call ---------------------------------------------------------

    def _next_index(self) -> int:
        if self.trace is not None:
            return self.trace.next_index()
        i = self._local_index
        self._local_index += 1
        return i

    def _record(self, event: StepEvent) -> None:
        self.calls.append(event)
        if self.trace is not None:
            self.trace.step(event)

    async def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        """Run tool ``name``: precondition, call (through the write gate), record, post."""
        tool = self.tools[name]
        args = to_plain(args)
        validate_inputs(tool, args)
        if self.check_state:
            missing = algebra.unmet(self.state, tool.pre, args)
            if missing:
                have = ", ".join(f"{k}={algebra.render_value(self.state.get(k))}" for k in missing)
                want = ", ".join(f"{k}={tool.pre[k]!r}" for k in missing)
                outcome = CallOutcome(tool=name, ok=False, phase="precondition", reason=f"needs {want}; state has {have}")
                outcome.start = outcome.end = time.time()
                await self._record_outcome(tool, args, outcome)
                raise PreconditionFailed(outcome.reason or "precondition", tool=name, outcome=outcome)

        async def perform() -> CallOutcome:
            return await call_tool(self.page, tool, args, timeout_ms=self.timeout_ms)

        if tool.is_write and self.write_gate is not None:
            outcome = await self.write_gate(tool, args, perform)
        else:
            outcome = await perform()
        await self._record_outcome(tool, args, outcome)
        if not outcome.ok:
            raise ToolCallFailed(f"{outcome.phase} failed: {outcome.reason}", tool=name, outcome=outcome)
        output = outcome.output if isinstance(outcome.output, dict) else {}
        result = output_model(tool).model_validate(output)
        bindings = {**output, **args}
        self.state = algebra.apply(self.state, tool.post, bindings)
        return result

    async def _record_outcome(self, tool: ToolManifest, args: dict[str, Any], outcome: CallOutcome) -> None:
        snapshot = None
        if self.snapshots and self.trace is not None and outcome.phase != "precondition":
            try:
                snapshot = self.trace.snapshot(await self.page.content())
            except Exception:  # a page mid-navigation or closed: no snapshot for this step
                log.debug("no DOM snapshot after %s", tool.name, exc_info=True)
        self._record(
            StepEvent(
                index=self._next_index(),
                worker=self.worker,
                action="tool",
                url=outcome.url_before,
                tool=tool.name,
                args=args,
                effect=tool.effect.value,
                elements=list(tool.elements),
                start=outcome.start,
                end=outcome.end,
                ok=outcome.ok,
                output=outcome.output,
                phase=outcome.phase,
                reason=outcome.reason,
                url_after=outcome.url_after,
                timings=outcome.timings,
                replayed=bool(getattr(outcome, "replayed", False)),
                snapshot=snapshot,
            )
        )


async def execute_plan(source: str, run: PlanRun) -> Any:
    """Run ``source`` with ``run``'s tools; returns the plan's ``result``.

    Errors in the plan itself (an unknown name, a type error) become
    :class:`PlanError` with the plan's line number; tool errors propagate as
    they are (:class:`~agentjit.exceptions.ToolError` subclasses).
    """
    tree = parse_plan(source, frozenset(run.tools))
    namespace = run.namespace()
    await run_tree(tree, namespace)
    if "result" not in namespace:
        raise PlanError("the plan finished without setting `result`")
    return namespace["result"]


async def run_tree(tree: ast.Module, namespace: dict[str, Any]) -> None:
    """Run an already checked plan tree, or a piece of one, in ``namespace``.

    ``tree`` must come from :func:`parse_plan` (or be cut from such a tree, as
    the parallel strategy does for a plan's prefix, one loop iteration and
    suffix, which share variables through ``namespace``). Errors map to
    :class:`PlanError` with the plan's line, as in :func:`execute_plan`.
    """
    code = compile(tree, PLAN_FILENAME, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    try:
        maybe = eval(code, namespace)  # noqa: S307 - sandboxed: checked tree, restricted builtins
        if maybe is not None:
            await maybe
    except (PlanError, ConfigError):
        raise
    except (NameError, TypeError, AttributeError, KeyError, IndexError, ValueError, ZeroDivisionError) as exc:
        line = _plan_line(exc)
        if line is None:
            raise
        raise PlanError(f"{type(exc).__name__}: {exc}", line=line) from exc


def _plan_line(exc: BaseException) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PLAN_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
