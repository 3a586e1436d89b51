"""Import browser-use agent histories (``AgentHistoryList.save_to_file`` JSON) as traces.

The file is ``{"history": [item, ...]}`` (browser-use ``agent/views.py``); each item
(``AgentHistory.model_dump``) has:

- ``model_output``: ``null`` (the model gave nothing usable) or ``{"current_state":
  {"evaluation_previous_goal", "memory", "next_goal"}, "action": [...]}``; newer releases put
  ``thinking`` / ``next_goal`` at the top level. Each action is a one-key dict:
  ``{"go_to_url": {"url"}}``, ``{"click_element_by_index": {"index"}}``, ``{"input_text":
  {"index", "text"}}``, ``{"send_keys": {"keys"}}``, ``{"done": {"text", "success"}}``; newer
  releases say ``navigate`` / ``click`` / ``input``.
- ``result``: one ``ActionResult`` per action that ran (``is_done``, ``success``,
  ``extracted_content``, ``error``); browser-use stops a step's actions after an error or a page
  change, so a shorter list means the later actions never ran.
- ``state`` (``BrowserStateHistory.to_dict``): ``url`` and ``title`` of the page the model saw
  (before the step's actions), ``tabs``, ``screenshot`` / ``screenshot_path``, and
  ``interacted_element``: per action a ``DOMHistoryElement`` (``tag_name``, ``xpath``,
  ``highlight_index``, ``entire_parent_branch_path``, ``attributes``, ``css_selector``, ...)
  or, in newer releases, a ``DOMInteractedElement`` (``node_name``, ``node_value``,
  ``attributes``, ``x_path``), or ``null``.
- ``metadata`` (``StepMetadata``): ``step_start_time``, ``step_end_time`` (Unix times; the step
  includes the model's own thinking time), ``input_tokens``, ``step_number``.

Mapping: each executed action is one trace step; ``url`` is the state's URL, ``url_after`` and
``title`` come from the next item's state (after the step's last action) or the ``go_to_url``
target; the step's time is split evenly over its actions; ``ok`` is the absence of an ``error``
in its result. Histories carry no DOM, so the steps have no snapshots; the builder labels them
from their targets (``data-testid``, ``id``, ``name`` attributes). Actions without a trace
equivalent (``done``, ``extract_content``, tab switches) are skipped.

A malformed file raises :class:`TraceError` naming the file and the field
(``history[3].model_output.action``), and nothing is written.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import agentjit
from agentjit.exceptions import TraceError
from agentjit.protocol import jsonio
from agentjit.protocol.trace import SessionEvent, StepEvent, Target, TraceWriter

from .literal import css_attr, css_ident

__all__ = ["import_history", "read_history", "ACTION_MAP"]

log = logging.getLogger(__name__)

ACTION_MAP: dict[str, str] = {
    "go_to_url": "goto", "navigate": "goto", "open_tab": "goto", "search_google": "goto", "go_back": "goto",
    "click_element": "click", "click_element_by_index": "click", "click": "click",
    "input_text": "fill", "input": "fill", "type": "fill",
    "select_dropdown_option": "select", "select_dropdown": "select",
    "send_keys": "press", "scroll_down": "scroll", "scroll_up": "scroll", "scroll": "scroll",
    "scroll_to_text": "scroll", "wait": "wait",
}
"""browser-use action name -> trace action."""

_IMPLICIT_ROLE = {"a": "link", "button": "button", "select": "combobox", "textarea": "textbox"}
_INPUT_ROLE = {"checkbox": "checkbox", "radio": "radio", "submit": "button", "button": "button", "search": "searchbox"}


class _Fields:
    """Typed access to one JSON object, with errors naming the file and the field path."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, msg: str) -> TraceError:
        return TraceError(f"field '{where}': {msg}", path=str(self.path))

    def obj(self, data: dict[str, Any], key: str, where: str, *, optional: bool = True) -> dict[str, Any] | None:
        val = data.get(key)
        if val is None:
            if optional:
                return None
            raise self.fail(f"{where}.{key}", "missing")
        if not isinstance(val, dict):
            raise self.fail(f"{where}.{key}", f"expected an object, got {type(val).__name__}")
        return val

    def items(self, data: dict[str, Any], key: str, where: str) -> list[Any]:
        val = data.get(key)
        if val is None:
            return []
        if not isinstance(val, list):
            raise self.fail(f"{where}.{key}", f"expected a list, got {type(val).__name__}")
        return val

    def text(self, data: dict[str, Any], key: str, where: str) -> str | None:
        val = data.get(key)
        if val is not None and not isinstance(val, str):
            raise self.fail(f"{where}.{key}", f"expected a string, got {type(val).__name__}")
        return val

    def number(self, data: dict[str, Any], key: str, where: str) -> float | None:
        val = data.get(key)
        if val is None:
            return None
        if isinstance(val, bool) or not isinstance(val, int | float):
            raise self.fail(f"{where}.{key}", f"expected a number, got {type(val).__name__}")
        return float(val)


def _selector(tag: str | None, attrs: dict[str, Any]) -> str | None:
    if attrs.get("data-testid"):
        return css_attr("data-testid", str(attrs["data-testid"]))
    if attrs.get("id"):
        return "#" + css_ident(str(attrs["id"]))
    if tag and attrs.get("name"):
        return css_ident(tag) + css_attr("name", str(attrs["name"]))
    return None


def _role(tag: str | None, attrs: dict[str, Any]) -> str | None:
    if attrs.get("role"):
        return str(attrs["role"])
    if tag == "input":
        return _INPUT_ROLE.get(str(attrs.get("type") or "text"), "textbox")
    if tag == "a" and not attrs.get("href"):
        return None
    return _IMPLICIT_ROLE.get(tag or "")


def _target(el: dict[str, Any], index: Any) -> Target:
    """A trace target from a ``DOMHistoryElement`` / ``DOMInteractedElement`` dict."""
    attrs = {str(k): v for k, v in (el.get("attributes") or {}).items()}
    raw_tag = el.get("tag_name") or el.get("node_name") or el.get("tagName") or ""
    tag = str(raw_tag).lower() or None
    branch = el.get("entire_parent_branch_path") or el.get("entireParentBranchPath") or []
    ancestors = [{"tag": str(t).lower()} for t in reversed(branch[:-1])] if isinstance(branch, list) else []
    text = el.get("node_value") or None
    return Target.model_validate({
        "selector": el.get("css_selector") or el.get("cssSelector") or _selector(tag, attrs),
        "role": _role(tag, attrs),
        "name": attrs.get("aria-label") or el.get("ax_name") or attrs.get("placeholder") or attrs.get("title")
        or attrs.get("alt") or text,
        "text": text,
        "tag": tag,
        "testid": attrs.get("data-testid"),
        "attributes": attrs,
        "ancestors": ancestors,
        "xpath": el.get("xpath") or el.get("x_path"),
        "index": index if isinstance(index, int) else el.get("highlight_index"),
    })


def read_history(src: str | Path) -> tuple[SessionEvent, list[StepEvent]]:
    """Parse and check one history file; the trace's session and steps (nothing is written)."""
    p = Path(src)
    f = _Fields(p)
    try:
        data = jsonio.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TraceError(f"cannot read: {exc.strerror}", path=str(p)) from exc
    except UnicodeDecodeError as exc:
        raise TraceError(f"not UTF-8 text (byte offset {exc.start})", path=str(p)) from None
    except json.JSONDecodeError as exc:  # jsonio.JSONTooDeep too: nested deeper than a history is
        raise TraceError(f"invalid JSON: {exc.msg}", path=str(p), line=exc.lineno) from None
    if not isinstance(data, dict) or not isinstance(data.get("history"), list):
        raise TraceError("field 'history': not a browser-use history (expected {\"history\": [...]})", path=str(p))
    history: list[Any] = data["history"]
    states: list[dict[str, Any]] = []
    for n, item in enumerate(history):
        if not isinstance(item, dict):
            raise f.fail(f"history[{n}]", f"expected an object, got {type(item).__name__}")
        state = f.obj(item, "state", f"history[{n}]", optional=False)
        assert state is not None
        states.append(state)

    steps: list[StepEvent] = []
    clock = 0.0
    first_url: str | None = None
    for n, item in enumerate(history):
        where = f"history[{n}]"
        state = states[n]
        url = f.text(state, "url", f"{where}.state")
        f.text(state, "title", f"{where}.state")
        if first_url is None and url and not url.startswith("about:"):
            first_url = url
        nxt = states[n + 1] if n + 1 < len(states) else None
        next_url = f.text(nxt, "url", f"history[{n + 1}].state") if nxt else None
        next_title = f.text(nxt, "title", f"history[{n + 1}].state") if nxt else None
        elements = f.items(state, "interacted_element", f"{where}.state")
        results = f.items(item, "result", where)
        meta = f.obj(item, "metadata", where) or {}
        start = f.number(meta, "step_start_time", f"{where}.metadata")
        end = f.number(meta, "step_end_time", f"{where}.metadata")
        start = clock if start is None else start
        end = start if end is None else end
        if end < start:
            raise f.fail(f"{where}.metadata.step_end_time", f"ends before it starts ({end} < {start})")
        clock = end
        out = f.obj(item, "model_output", where)
        if out is None:
            continue
        actions = f.items(out, "action", f"{where}.model_output")
        brain = f.obj(out, "current_state", f"{where}.model_output") or {}
        goal = f.text(brain, "next_goal", f"{where}.model_output.current_state") or f.text(
            out, "next_goal", f"{where}.model_output")
        ran = len(actions) if not results else min(len(actions), len(results))
        for k, act in enumerate(actions[:ran]):
            aw = f"{where}.model_output.action[{k}]"
            if not isinstance(act, dict) or len(act) != 1:
                raise f.fail(aw, "expected an object with one action name")
            name, params = next(iter(act.items()))
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise f.fail(f"{aw}.{name}", f"expected an object of parameters, got {type(params).__name__}")
            res = results[k] if k < len(results) else {}
            if not isinstance(res, dict):
                raise f.fail(f"{where}.result[{k}]", f"expected an object, got {type(res).__name__}")
            el = elements[k] if k < len(elements) else None
            if el is not None and not isinstance(el, dict):
                raise f.fail(f"{where}.state.interacted_element[{k}]", f"expected an object, got {type(el).__name__}")
            if name not in ACTION_MAP:
                log.debug("%s: skipping browser-use action %s", aw, name)
                continue
            action = ACTION_MAP[name]
            value = params.get("url") or params.get("text") or params.get("keys") or params.get("query")
            last = k == ran - 1
            after = str(value) if action == "goto" and name != "go_back" and value else (next_url if last else None)
            error = f.text(res, "error", f"{where}.result[{k}]")
            steps.append(StepEvent(
                index=len(steps),
                action=action,  # type: ignore[arg-type]
                url=url if k == 0 else None,  # later actions start wherever the earlier ones left
                url_after=after,
                title=next_title if last else None,
                target=_target(el, params.get("index")) if el else None,
                value=value,
                start=start + (end - start) * k / max(ran, 1),
                end=start + (end - start) * (k + 1) / max(ran, 1),
                ok=not error,
                phase="execute" if error else None,
                reason=error,
                goal=goal,
            ))
    task = data.get("task") if isinstance(data.get("task"), str) else None
    session = SessionEvent(site=None, start_url=first_url, agentjit_version=agentjit.__version__,
                           source="browser-use", task=task, started_at=steps[0].start if steps else 0.0)
    return session, steps


def import_history(src: str | Path, dest: str | Path, *, site: str | None = None) -> Path:
    """Convert one history file to a trace at ``dest``; a malformed one raises :class:`TraceError`."""
    session, steps = read_history(src)
    if site is not None:
        session = session.model_copy(update={"site": site})
    dest = Path(dest)
    with TraceWriter(dest, session) as writer:
        for st in steps:
            writer.step(st.model_copy(update={"index": writer.next_index()}))
    return dest
