"""Form inputs typed from their controls: a tool input's JSON schema, the value a demonstration
gave it, and the JavaScript that sets it.

The control says what a value is, not a guess from its name: ``<input type=number step=0.01>``
takes decimals (``integer`` only when its ``step`` and every demonstrated value are whole), its
``min``/``max`` bound it when the page says so; a checkbox is a ``boolean`` whose setter clicks
only when the state differs (so the page's change handlers run); a ``<select multiple>`` takes a
list of its option labels; ``date``/``email``/``url`` inputs are strings with the JSON-schema
``format`` of the same name (``time`` and ``datetime-local`` with the pattern the control accepts,
as JSON schema's formats want a time zone the control has not).

The attributes come from the recorded targets of the demonstrated steps (what the page showed
when the step ran), so a tool is typed from every control it sets, whatever page schema named it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .extract import Element
from .label import LabeledStep
from .literal import js, prop

__all__ = [
    "checkbox_state", "control_attrs", "input_schema", "is_multiple", "radio_choices", "setter_js", "shows_js", "typed",
]

_FORMATS = {"date": "date", "email": "email", "url": "uri"}
"""HTML input type -> the JSON-schema ``format`` for its value."""
_PATTERNS = {
    "time": (r"^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$", "A time of day, HH:MM (24-hour)."),
    "datetime-local": (r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$", "A local date and time, YYYY-MM-DDTHH:MM."),
    "month": (r"^\d{4}-\d{2}$", "A month, YYYY-MM."),
    "week": (r"^\d{4}-W\d{2}$", "A week, YYYY-Www."),
}
"""Input types whose values JSON schema has no format for (its ``time`` wants a zone): a pattern."""
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def control_attrs(steps: Sequence[LabeledStep]) -> dict[str, str]:
    """The HTML attributes of the control the ``steps`` acted on, as the recorder saw them (the
    first step's value of each attribute wins)."""
    out: dict[str, str] = {}
    for s in steps:
        extra = (s.step.target.model_extra or {}) if s.step.target is not None else {}
        for k, v in (extra.get("attributes") or {}).items():
            out.setdefault(str(k).lower(), str(v))
    return out


def checkbox_state(s: LabeledStep) -> bool | None:
    """Whether the checkbox is ticked after the step: ``check``/``uncheck`` say so; a click toggles
    the state the recorder saw (its live ``checked`` when recorded, else the ``checked`` attribute)."""
    if s.step.action == "check":
        return True
    if s.step.action == "uncheck":
        return False
    if s.step.action != "click" or s.step.target is None:
        return None
    extra = s.step.target.model_extra or {}
    before = extra.get("checked")
    if not isinstance(before, bool):
        before = "checked" in (extra.get("attributes") or {})
    return not before


def is_multiple(el: Element, attrs: dict[str, str]) -> bool:
    """A ``<select multiple>``: it takes a list."""
    return el.kind == "select" and "multiple" in attrs


def radio_choices(el: Element) -> list[str]:
    """What a radio group's input takes: the options' labels, or their values where each label
    is its value in other case or spacing (``pickup`` / "Pickup": the value is readable already)
    or an option has no label."""
    labels = el.option_labels
    if len(labels) != len(el.options) or not all(x.strip() for x in labels):
        return list(el.options)
    if all(_norm(a) == _norm(b) for a, b in zip(labels, el.options, strict=True)):
        return list(el.options)
    return list(labels)


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _num(text: str | None) -> float | None:
    if text is None or not _NUMBER.fullmatch(text.strip()):
        return None
    return float(text)


def _whole(x: float | None) -> bool:
    return x is not None and x == int(x)


def input_schema(el: Element, attrs: dict[str, str], values: Sequence[Any]) -> dict[str, Any]:
    """The JSON schema of one text-like control's input (``input``, ``textarea``): from its type
    and attributes, and the values the demonstration typed into it."""
    itype = (attrs.get("type") or el.input_type or "text").lower()
    if el.kind == "textarea" or el.kind != "input":
        return {"type": "string"}
    if itype in ("number", "range"):
        step = attrs.get("step")
        whole_step = step is None or _whole(_num(step))  # "any" or "0.01": decimals
        shown = [_num(str(v)) for v in values if v is not None and str(v).strip() != ""]
        whole_values = all(_whole(x) for x in shown if x is not None)
        typ = "integer" if whole_step and whole_values else "number"
        out: dict[str, Any] = {"type": typ}
        for key, word in (("min", "minimum"), ("max", "maximum")):
            bound = _num(attrs.get(key))
            if bound is not None:
                out[word] = int(bound) if typ == "integer" and _whole(bound) else bound
        return out
    if itype in _FORMATS:
        return {"type": "string", "format": _FORMATS[itype]}
    if itype in _PATTERNS:
        pattern, what = _PATTERNS[itype]
        return {"type": "string", "pattern": pattern, "description": what}
    return {"type": "string"}


def typed(schema: dict[str, Any], value: Any) -> Any:
    """A demonstrated value as the input's schema types it (``"25.00"`` -> ``25.0`` for a number,
    ``"2024"`` -> ``2024`` for an integer); None when it is not one (the call leaves it out)."""
    typ = schema.get("type")
    if value is None:
        return None
    if typ == "boolean":
        return value if isinstance(value, bool) else str(value).lower() in ("true", "on", "1", "yes")
    if typ == "array":
        return list(value) if isinstance(value, list | tuple) else [value]
    if typ in ("integer", "number"):
        if isinstance(value, bool):
            return None
        x = value if isinstance(value, int | float) else _num(str(value))
        if x is None:
            return None
        if typ == "integer":
            return int(x) if _whole(x) else None
        return float(x)
    return value


def setter_js(el: Element, pname: str, schema: dict[str, Any]) -> str | None:
    """The statement that sets ``inputs[pname]`` on a checkbox, a multiple select or a radio
    group (None for other controls: the caller's text setter)."""
    v = prop("inputs", pname)
    miss = js(f" for {pname}")
    if el.kind == "checkbox":
        # click (not assign) so the page's change handlers run, and only when the state differs
        return (
            f"if ({v} != null) {{ const box = __q({js(el.selector)});"
            f" if (!box) throw new Error({js(f'no {pname} checkbox here')});"
            f" if (box.checked !== !!{v}) box.click(); }}"
        )
    if el.kind == "select" and schema.get("type") == "array":
        return (
            f"if ({v} != null) {{ const sel = __q({js(el.selector)}); const want = {v}.map(String);\n"
            "  const is = (o, w) => __same(o.textContent, w) || o.value === w;\n"
            "  const bad = want.find((w) => ![...sel.options].some((o) => is(o, w)));\n"
            f"  if (bad !== undefined) throw new Error('no choice ' + JSON.stringify(bad) + {miss});\n"
            "  for (const o of sel.options) o.selected = want.some((w) => is(o, w));\n"
            "  sel.dispatchEvent(new Event('input', {bubbles: true})); sel.dispatchEvent(new Event('change', {bubbles: true})); }"
        )
    if el.kind == "radio":
        # by its label or its value; a click only when it is not the chosen one already
        return (
            f"if ({v} != null) {{ const r = [...document.querySelectorAll({js(el.selector)})].find((x) =>"
            f" __norm(x.value) === __norm({v}) || [...(x.labels || [])].some((l) => __same(l.textContent, {v})));"
            f" if (!r) throw new Error('no choice ' + JSON.stringify({v}) + {miss}); if (!r.checked) r.click(); }}"
        )
    return None


def shows_js(el: Element, pname: str) -> str | None:
    """After a form post: the check that the page shown holds the set checkbox state (None for
    other controls)."""
    if el.kind != "checkbox":
        return None
    v = prop("inputs", pname)
    return (
        f"{{ const box = __q({js(el.selector)});"
        f" if (box && {v} != null && box.checked !== !!{v})"
        f" return [false, {js(f'{pname} shows ')} + (box.checked ? 'checked' : 'unchecked')]; }}"
    )
