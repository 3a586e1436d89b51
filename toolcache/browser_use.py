"""Import browser-use agent histories (``AgentHistoryList.save_to_file`` JSON) as traces.

The file holds ``{"history": [item, ...]}``; each item has ``model_output``
(``current_state`` / ``next_goal`` and a list of ``action`` dicts such as
``{"go_to_url": {"url": ...}}``, ``{"click_element_by_index": {"index": 3}}``,
``{"input_text": {"index": 5, "text": "..."}}``; newer versions say
``navigate`` / ``click`` / ``input``), ``result`` (``error``,
``extracted_content``), ``state`` (``url``, ``title``, ``interacted_element``
per action: tag, attributes, xpath, CSS selector) and ``metadata``
(``step_start_time`` / ``step_end_time``). Histories carry no DOM, so the
steps have no snapshots; the builder labels them from their targets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agentjit
from agentjit.exceptions import TraceError
from agentjit.protocol.trace import SessionEvent, StepEvent, Target, TraceWriter

__all__ = ["import_history", "ACTION_MAP"]

ACTION_MAP: dict[str, str] = {
    "go_to_url": "goto", "navigate": "goto", "open_tab": "goto", "search_google": "goto",
    "click_element": "click", "click_element_by_index": "click", "click": "click",
    "input_text": "fill", "input": "fill", "type": "fill",
    "select_dropdown_option": "select", "select_dropdown": "select",
    "send_keys": "press", "scroll_down": "scroll", "scroll_up": "scroll", "scroll": "scroll",
    "scroll_to_text": "scroll", "go_back": "goto", "wait": "wait",
}


def _target(el: dict[str, Any] | None) -> Target | None:
    if not isinstance(el, dict):
        return None
    attrs = el.get("attributes") or {}
    tag = (el.get("tag_name") or el.get("node_name") or el.get("tagName") or "").lower() or None
    return Target.model_validate({
        "selector": el.get("css_selector") or el.get("cssSelector"),
        "role": attrs.get("role"),
        "name": attrs.get("aria-label") or el.get("ax_name") or attrs.get("placeholder"),
        "text": el.get("node_value") or None,
        "tag": tag,
        "testid": attrs.get("data-testid"),
        "attributes": attrs,
        "xpath": el.get("xpath") or el.get("x_path"),
    })


def import_history(src: str | Path, dest: str | Path, *, site: str | None = None) -> Path:
    """Convert one history file; a malformed one raises :class:`TraceError` naming it."""
    p = Path(src)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TraceError(f"cannot read: {exc.strerror}", path=str(p)) from exc
    except json.JSONDecodeError as exc:
        raise TraceError(f"invalid JSON: {exc.msg}", path=str(p), line=exc.lineno) from None
    history = data.get("history") if isinstance(data, dict) else None
    if not isinstance(history, list):
        raise TraceError("not a browser-use history: no 'history' list", path=str(p))
    first_url = next((h.get("state", {}).get("url") for h in history if isinstance(h, dict)), None)
    session = SessionEvent(site=site, start_url=first_url, agentjit_version=agentjit.__version__, source="browser-use",
                           task=data.get("task") if isinstance(data, dict) else None)
    dest = Path(dest)
    with TraceWriter(dest, session) as writer:
        for n, item in enumerate(history):
            if not isinstance(item, dict):
                raise TraceError(f"history[{n}] is not an object", path=str(p))
            out = item.get("model_output") or {}
            actions = out.get("action") or []
            state = item.get("state") or {}
            results = item.get("result") or []
            meta = item.get("metadata") or {}
            elements = state.get("interacted_element") or []
            goal = (out.get("current_state") or {}).get("next_goal") or out.get("next_goal")
            start = float(meta.get("step_start_time") or 0.0)
            end = float(meta.get("step_end_time") or start)
            for k, act in enumerate(actions):
                if not isinstance(act, dict) or not act:
                    continue
                name, params = next(iter(act.items()))
                if name not in ACTION_MAP:
                    continue
                params = params if isinstance(params, dict) else {}
                res = results[k] if k < len(results) and isinstance(results[k], dict) else {}
                writer.step(StepEvent(
                    index=writer.next_index(),
                    action=ACTION_MAP[name],  # type: ignore[arg-type]
                    url=state.get("url"),
                    title=state.get("title"),
                    target=_target(elements[k] if k < len(elements) else None),
                    value=params.get("url") or params.get("text") or params.get("keys"),
                    start=start + (end - start) * k / max(len(actions), 1),
                    end=start + (end - start) * (k + 1) / max(len(actions), 1),
                    ok=not res.get("error"),
                    reason=res.get("error"),
                    goal=goal,
                ))
    return dest
