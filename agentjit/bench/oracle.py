"""The oracle policy: an offline "model" that replays a recorded demonstration of a task.

Each request gets the page the stepwise agent sees; the oracle takes the next
recorded step (``traces/<app>/tasks/<task id>.jsonl``, recorded with
``toolcache record`` from the scripts beside them), finds the element on the
page whose descriptor matches the recorded target (CSS selector first, then
test id + role + accessible name, then test id + role + name prefix) and
answers that action as JSON; after the last step it answers ``done`` with the
task's expected answer (``task.expected``; for a task whose judge computes its
own, such as Roundup's and Fava's, the ``answer`` of the demonstration script
``<task id>.json`` beside the recording: what the demonstrator read off the last
page). So the baseline agent never takes a wrong step, and a speedup measured
against it is a lower bound on what compiling gains.

Recorded ``scroll`` steps are left out (the agent already sees the whole
page's text), a ``fill`` followed by ``press Enter`` on the same field becomes
one ``type`` with ``submit``, and a leading ``goto`` to the page the agent
already shows (or lands on, after a redirect) is skipped: each leaves the
baseline with fewer calls, never more.

A secret the recorder kept out of the trace (a password, written as
``<redacted>``) is typed from the demonstration script's own step (the recorder
numbers its steps as the script does), as a demonstrator who read it off the
task would type it.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agentjit.agent.observe import parse_elements
from agentjit.exceptions import ConfigError
from agentjit.llm.base import Message
from agentjit.llm.function import FunctionModel
from agentjit.protocol.trace import REDACTED, StepEvent, read_trace
from agentjit.tasks.task import Task

__all__ = [
    "OraclePolicy", "oracle_model", "patient_model", "demo_path", "has_demo", "DEMOS_ROOT", "answer_for", "secrets_for",
    "substitute_steps", "substitute_text",
]  # fmt: skip


DEMOS_ROOT = Path(__file__).resolve().parents[2] / "traces"
"""``traces/`` of the source checkout: demonstrations live in ``traces/<app>/tasks/``."""


def _demo_file(task: Task, root: Path | None) -> Path:
    return (root or DEMOS_ROOT) / task.app / "tasks" / f"{task.id}.jsonl"


def has_demo(task: Task, root: Path | None = None) -> bool:
    """Whether ``task`` has a recorded demonstration for the oracle to replay."""
    return _demo_file(task, root).exists()


def demo_path(task: Task, root: Path | None = None) -> Path:
    path = _demo_file(task, root)
    if not path.exists():
        raise ConfigError(f"no recorded demonstration for task {task.id!r} (looked for {path})")
    return path


def _script(task: Task, root: Path | None) -> dict[str, Any] | None:
    """The demonstration script beside the recording (``<task id>.json``), or None."""
    path = _demo_file(task, root).with_suffix(".json")
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the demonstration script {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"the demonstration script {path} is not a JSON object")
    return data


def secrets_for(task: Task, steps: list[StepEvent], root: Path | None = None) -> dict[int, str]:
    """The values the recording of ``task`` redacted, by step index, from its script's same steps."""
    redacted = [s for s in steps if s.value == REDACTED]
    if not redacted:
        return {}
    script = (_script(task, root) or {}).get("steps") or []
    out = {}
    for step in redacted:
        src = script[step.index] if 0 <= step.index < len(script) else None
        if not isinstance(src, dict) or src.get("action") != step.action or src.get("value") in (None, REDACTED):
            raise ConfigError(f"task {task.id!r}: step {step.index} of its recording is redacted and its script does not say the value")
        out[step.index] = str(src["value"])
    return out


def answer_for(task: Task, root: Path | None = None) -> Any:
    """What ``done`` carries: ``task.expected`` as text, else the demonstration script's ``answer``.

    The script (``<task id>.json`` beside the recording) keeps the answer as JSON
    (a string, a number or a list); ``None`` when neither says (a write task).
    """
    if task.expected is not None:
        return task.expected if isinstance(task.expected, str) else json.dumps(task.expected, ensure_ascii=False)
    script = _script(task, root)
    return None if script is None else script.get("answer")


def _spellings(values: Mapping[str, str]) -> dict[str, str]:
    """Each literal of ``values`` (task's -> variant's) in the spellings a page or a URL writes it: as written,
    lower case, capitalised, and as a slug (``Man vs. Fries`` -> ``man-vs-fries``). Only literals with a
    letter and three characters or more: a bare number inside a name or selector is not the task's."""
    out: dict[str, str] = {}
    for old, new in values.items():
        if len(old) < 3 or not re.search(r"[^\W\d_]", old) or old == new:
            continue
        for f in (lambda v: v, str.lower, lambda v: v[:1].upper() + v[1:], _slug):
            if f(old) and f(old) not in out:
                out[f(old)] = f(new)
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def substitute_text(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each literal of ``values`` replaced by the variant's (see :func:`substitute_steps`)."""
    if text in values:
        return values[text]
    spelled = _spellings(values)
    if not spelled:
        return text
    alternatives = sorted(spelled, key=len, reverse=True)
    pattern = "|".join((r"\b" if k[:1].isalnum() else "") + re.escape(k) + (r"\b" if k[-1:].isalnum() else "")
                       for k in alternatives)  # fmt: skip
    return re.sub(pattern, lambda m: spelled[m.group(0)], text)


def substitute_steps(steps: list[StepEvent], values: Mapping[str, str]) -> list[StepEvent]:
    """A demonstration of a task replayed for a literal variant of it: ``values`` maps each literal as the
    task wrote it (a store, a search word, ``pickup``, ``2``) to the variant's.

    A typed value or chosen option equal to a literal becomes the variant's, and a literal inside one (a
    search, a URL), inside a target's accessible name or text, or inside its selector
    (``mode-pickup``) is replaced in each spelling (:func:`_spellings`); the target of a step whose value
    changed stays as recorded (the same field or select, whose name lists every option). A target whose name changed but
    whose selector did not (a positional selector: the third store card) keeps no selector, so the
    oracle finds the variant's element by name: its test id, role and first word, else the first element
    of that test id and role whose name holds the variant's value (the first menu item that is a sub, where
    the demonstration took the first that is a taco)."""
    out = []
    for step in steps:
        update: dict[str, Any] = {}
        if isinstance(step.value, str) and step.value != REDACTED:
            update["value"] = substitute_text(step.value, values)
        if step.url_after:
            update["url_after"] = substitute_text(step.url_after, values)
        t = step.target
        if t is not None and update.get("value", step.value) == step.value:
            name = substitute_text(t.name, values) if t.name else t.name
            selector = substitute_text(t.selector, values) if t.selector else t.selector
            extra: dict[str, Any] = {}
            if name != t.name and selector == t.selector:
                selector = None
                put = [new for old, new in _spellings(values).items() if old in (t.name or "")]
                extra["contains"] = max(put, key=len) if put else None
            text = substitute_text(t.text, values) if t.text else t.text
            update["target"] = t.model_copy(update={"name": name, "selector": selector, "text": text, **extra})
        out.append(step.model_copy(update=update))
    return out


MAX_LOOKS = 10
"""How many fresh observations the oracle asks for (a harmless scroll) when the next recorded
target is not on the page yet, before it says the demonstration cannot be replayed. Each is an
agent step (a second or more): few enough to leave a task's own steps room under the agent's
``max_steps``; three were not enough for Fava's query editor, which a script builds after the
page's data, on a loaded machine (a fresh-clone suite run failed there)."""

LOOK_PAUSE_S = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
"""How long :func:`oracle_model` waits before it answers the n-th look in a row (the last figure for
every later one): about two minutes over MAX_LOOKS looks, a guard rail against a target that never
comes, not a measure of speed (a page drawn at once costs no look). Twelve looks over 36 s were
not enough on a machine at load 30-60: a fresh-clone run saw Fava's balance sheet without its
account tree after all of them; the pauses double, so a slow machine gets time, not more steps."""


RELOAD_AT = (5, 8)
"""The looks (counted as for MAX_LOOKS) at which the oracle opens the step's recorded page again instead
of scrolling, as a person would reload a page that stopped short. A script-driven page can stay
without the target for good: a fresh-clone CI run saw Fava's balance sheet, reached by a click in
its single-page router, without the Checking link through all ten looks (two minutes). Late enough
that a page still building its target on a loaded machine is not restarted at once."""


class OraclePolicy:
    """Answers the agent's requests from ``steps`` (a recorded demonstration), then ``done``."""

    def __init__(self, steps: list[StepEvent], answer: Any, secrets: dict[int, str] | None = None) -> None:
        self.steps = [s for s in steps if s.ok and s.action != "scroll"]
        self.answer = answer
        self.secrets = dict(secrets or {})
        """Values the recording redacted, by step index (see :func:`secrets_for`)."""
        self.position = 0
        self.started = False
        self.looks = 0
        """Observations in a row in which the next step's target was not found (see MAX_LOOKS)."""

    def __call__(self, messages: list[Message]) -> str:
        page = next((m.content for m in reversed(messages) if m.role == "user" and "Current page:" in m.content), "")
        url = next((ln[5:] for ln in page.splitlines() if ln.startswith("URL: ")), "")
        elements = parse_elements(page)
        while self.position < len(self.steps):
            step = self.steps[self.position]
            first = not self.started
            self.started = True
            if step.action == "goto":
                self.position += 1
                target = urlsplit(str(step.value or step.url_after or "/"))
                landed = urlsplit(str(step.url_after or "")).path
                if first and urlsplit(url).path in (target.path, landed):
                    continue
                return self._say({"action": "goto", "url": target.path or "/"}, step)
            try:
                index = self._find(step, elements, url)
            except ConfigError:
                # the page may still be rendering its target (a script-built editor on a loaded
                # machine): look again, as an agent would, a few times before giving up
                if self.looks >= MAX_LOOKS:
                    raise
                self.looks += 1
                again = urlsplit(str(step.url or ""))
                if self.looks in RELOAD_AT and again.path:
                    return json.dumps(
                        {"action": "goto", "url": urlunsplit(("", "", again.path, again.query, "")),
                         "note": "the page does not show the next target: open it again"}  # fmt: skip
                    )
                return json.dumps({"action": "scroll", "direction": "up", "note": "looking for the next target"})
            self.looks = 0
            nxt = self.steps[self.position + 1] if self.position + 1 < len(self.steps) else None
            self.position += 1
            if step.action == "fill":
                submit = (
                    nxt is not None and nxt.action == "press" and str(nxt.value) == "Enter"
                    and nxt.target is not None and step.target is not None
                    and nxt.target.selector == step.target.selector
                )  # fmt: skip
                if submit:
                    self.position += 1
                text = self.secrets.get(step.index, str(step.value))
                return self._say({"action": "type", "index": index, "text": text, "submit": submit}, step)
            if step.action == "select":
                return self._say({"action": "select", "index": index, "option": str(step.value)}, step)
            if step.action in ("click", "check"):
                return self._say({"action": "click", "index": index}, step)
            if step.action == "press":  # Enter alone: submit the field as it is
                value = next((e["value"] for e in elements if e["index"] == index), "") or ""
                return self._say({"action": "type", "index": index, "text": value, "submit": True}, step)
            raise ConfigError(f"the oracle cannot replay a recorded {step.action!r} step")
        return json.dumps({"action": "done", "answer": self.answer}, ensure_ascii=False)

    @staticmethod
    def _say(action: dict[str, Any], step: StepEvent) -> str:
        if step.goal:
            action["note"] = step.goal
        return json.dumps(action, ensure_ascii=False)

    @staticmethod
    def _find(step: StepEvent, elements: list[dict[str, Any]], url: str) -> int:
        t = step.target
        if t is None:
            raise ConfigError(f"recorded step {step.index} ({step.action}) has no target to replay")
        testid = getattr(t, "testid", None)
        contains = (getattr(t, "contains", None) or "").lower()
        tests = [
            lambda e: e["selector"] == t.selector,
            lambda e: e["testid"] == testid and e["role"] == t.role and e["name"] == t.name,
            lambda e: e["testid"] == testid and e["role"] == t.role and bool(t.name)
            and (e["name"] or "").split(" ")[0] == (t.name or "").split(" ")[0],
            lambda e: bool(contains) and e["testid"] == testid and e["role"] == t.role
            and contains in (e["name"] or "").lower(),
        ]  # fmt: skip
        for test in tests:
            found = [e["index"] for e in elements if test(e)]
            if found:
                return found[0]
        raise ConfigError(
            f"oracle: no element on {url} matches the recorded target of step {step.index} "
            f"({t.role} {t.name!r}, selector {t.selector!r})"
        )


def oracle_model(task: Task, *, demos: Path | None = None, name: str = "oracle") -> FunctionModel:
    """A :class:`FunctionModel` that replays ``task``'s demonstration (one per agent run)."""
    trace = read_trace(demo_path(task, demos), check_snapshots=False)
    policy = OraclePolicy(trace.steps, answer_for(task, demos), secrets_for(task, trace.steps, demos))
    return patient_model(policy, name=name)


def patient_model(policy: OraclePolicy, *, name: str = "oracle") -> FunctionModel:
    """``policy`` as a model that waits (:data:`LOOK_PAUSE_S`) before each look for a target not drawn yet."""

    async def answer(messages: list[Message]) -> str:
        out = policy(messages)
        if policy.looks:  # the page may still be rendering: give it time before the next look
            await asyncio.sleep(LOOK_PAUSE_S[min(policy.looks, len(LOOK_PAUSE_S)) - 1])
        return out

    return FunctionModel(answer, name=name)
