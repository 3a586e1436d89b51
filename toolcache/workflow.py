"""Workflow tools: the demonstrated steps no semantic tool covers, replayed as they were shown.

Where the builder recognises no pattern (a wizard of clickable ``div`` s, a
widget of its own), the demonstration is still worth a tool, the way
browser-use's workflow-use keeps one: :func:`workflow_tools` takes the steps no
kept tool acts on (:func:`toolcache.coverage.count_coverage`), cuts each trace's
uncovered runs into *segments* between two stable states, and makes one tool per
segment shape:

- a segment starts on a page the site schema knows (its ``pre``) and ends at
  the step that leaves it (a new page type, a document load) or at the last
  uncovered step of the run (its ``post``); a ``goto``, a failed step or a step
  another tool covers ends it too. The steps of one segment run in one document,
  so a tool's ``execute`` can replay them all; only the last may navigate;
- segments of the same shape (the same pages, actions and targets) from any
  trace are one tool, each a demonstration of it (``witness_args``);
- each step keeps a target a person would name: role and accessible name, a
  field's label, the visible text, the recorder's selector last (never a
  class or an id that looks generated); a click on one of several similar items
  (an element the schema found repeated: a card, a row) finds the item by
  the text given in a parameter, the one the demonstration clicked by default;
  a typed or chosen value is a string parameter (a secret stays one,
  ``writeOnly``);
- ``effect`` is WRITE when any demonstration of the segment sent a state-changing
  request; ``pre_check`` wants the pre page and the first target, ``post_check``
  the post page and, when the demonstration ended on a status message (a
  ``role=status`` / ``alert`` / ``aria-live`` element, or one whose class says
  status, message, notice, toast, flash, success), that message shown.

The steps are data: one literal (:func:`toolcache.literal.js`) read by the fixed
replayer ``toolcache/js/workflow.js``. The tools are verified like any other
(:func:`toolcache.verify.verify_tools` calls one where its segment starts), and a
rejected one leaves its steps uncovered, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from agentjit.agent.observe import ELEMENT_HELPERS_JS
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType

from .codegen.base import (
    Synth,
    _body,
    _Namer,
    _page_guard,
    _page_test,
    _shared_prefix,
    singular,
)
from .coverage import ACTIONS, _reads_only, step_key
from .dom import Node, parse_html, signature, snake
from .extract.elements import field_label, is_hashed_class
from .extract.lists import _one
from .js import source
from .label import LabeledStep
from .literal import css_attr, css_ident, js
from .pages import route_noun as _noun
from .pages import with_routes
from .redact import REDACTED
from .rows import _resolve

__all__ = ["Segment", "WorkflowSynth", "uncovered_segments", "workflow_tools", "WORKFLOW_JS"]

WORKFLOW_JS = ELEMENT_HELPERS_JS + "\n" + source("workflow.js")
"""The replayer every workflow tool body holds (after the prelude)."""

_REPLAYED = ACTIONS | {"scroll", "wait"}
"""The actions a workflow replays (a ``goto`` is a stable state of its own)."""
_STATUS_WORDS = re.compile(r"(^|[-_])(status|message|messages|notice|toast|flash|success|result|alert)($|[-_])", re.I)
_LABEL_MAX = 60


@dataclass
class Segment:
    """Uncovered steps of one trace between two stable states."""

    trace: str
    steps: list[LabeledStep]
    before: LabeledStep | None = None
    """The step the segment follows (its snapshot is the page the segment starts on)."""
    priors: list[LabeledStep | None] = field(default_factory=list)
    """For each step, the step before it in the trace (its snapshot: the page the step acted on)."""
    items: list[tuple[dict[str, Any], str] | None] = field(default_factory=list)
    """For each step, :func:`_item` (filled in by :func:`workflow_tools`)."""

    @property
    def pre(self) -> str:
        return self.steps[0].page_before or ""

    @property
    def post(self) -> str | None:
        return self.steps[-1].page_after


@dataclass
class WorkflowSynth(Synth):
    """A workflow tool; ``starts`` are the first steps of its demonstrations, in the order of
    ``witness_args`` (where the verifier's replay calls it)."""

    starts: list[LabeledStep] = field(default_factory=list)


def _leaves(ls: LabeledStep) -> bool:
    """The step ends a stable state: a new page type, or a new document."""
    st = ls.step
    if ls.page_after != ls.page_before:
        return True
    if st.document is not None:
        return bool(st.document)
    before, after = urlparse(st.url or ""), urlparse(st.url_after or "")
    return bool(st.url_after) and (before.path, before.query) != (after.path, after.query)


def _covered(ls: LabeledStep, acting: set[str], reading: set[str]) -> bool:
    key = step_key(ls)
    return key is not None and (key in acting or (key in reading and ls.step.action not in ACTIONS))


def uncovered_segments(labeled: dict[str, list[LabeledStep]], tools: Iterable[ToolManifest]) -> list[Segment]:
    """The runs of steps no tool of ``tools`` acts on, cut at stable states (module docstring)."""
    tools = list(tools)
    acting = {e for t in tools if not _reads_only(t) for e in t.elements}
    reading = {e for t in tools if _reads_only(t) for e in t.elements}
    return [seg for trace, steps in labeled.items() for seg in _trace_segments(trace, steps, acting, reading)]


def _trace_segments(trace: str, steps: list[LabeledStep], acting: set[str], reading: set[str]) -> list[Segment]:
    out: list[Segment] = []
    seg = Segment(trace, [])
    prev: LabeledStep | None = None
    for ls in steps:
        if not ls.step.ok:
            break  # the replay stops at a failed step: nothing after it is demonstrated
        if ls.step.action in _REPLAYED and not _covered(ls, acting, reading):
            if not seg.steps:
                seg.before = prev
            seg.steps.append(ls)
            seg.priors.append(prev)
        if seg.steps and (seg.steps[-1] is not ls or _leaves(ls)):
            out.append(seg)
            seg = Segment(trace, [])
        prev = ls
    if seg.steps:
        out.append(seg)
    return [s for s in out if s.steps[0].page_before and any(x.step.action in ACTIONS for x in s.steps)]


# -- targets and parameters ------------------------------------------------------------------


def _attrs(ls: LabeledStep) -> dict[str, Any]:
    t = ls.step.target
    return dict(((t.model_extra or {}).get("attributes") or {}) if t is not None else {})


def _readable(text: str | None) -> str | None:
    """``text`` cut to a label's length, or None for nothing or what looks generated (``a8f3k2``)."""
    text = re.sub(r"\s+", " ", text or "").strip()
    if not text or (" " not in text and is_hashed_class(text)):
        return None
    return text[:_LABEL_MAX * 2]


def _short(t: Any) -> str | None:
    """What a person calls the control ``t`` (a recorded target), in a few words: its accessible
    name, or its visible text when the name is a sentence and the text is short (a sort link
    ``aria-label="Sort the order of child pages within 'Home' by 'Title'"`` showing "Title")."""
    if t is None:
        return None
    name, text = _readable(t.name), _readable(t.text)
    if name and text and len(name) > 30 and len(text) < len(name) and re.search(r"[A-Za-z]{2}", text):
        return text
    return name or text


def _target(ls: LabeledStep) -> dict[str, Any]:
    """The recorded target as the replayer finds it (see ``workflow.js``)."""
    t = ls.step.target
    assert t is not None
    extra = t.model_extra or {}
    attrs = _attrs(ls)
    out: dict[str, Any] = {}
    tag = (t.tag or "").lower() or None
    if tag:
        out["tag"] = tag
    if extra.get("testid"):
        out["testid"] = extra["testid"]
    name = _readable(t.name)
    if t.role and name:
        out["role"], out["name"] = t.role, name
    elif t.role:
        out["role"] = t.role
    if tag in ("input", "textarea", "select") or attrs.get("contenteditable") is not None:
        label = next((_readable(attrs.get(k)) for k in ("aria-label", "placeholder", "title") if _readable(attrs.get(k))), None)
        if label:
            out["label"] = label
        if attrs.get("name") and not is_hashed_class(str(attrs["name"])):
            out["inputName"] = attrs["name"]
    else:
        text = _readable(t.text)
        if text:
            out["text"] = text
    if tag == "input" and attrs.get("type") in ("submit", "button", "reset") and _readable(attrs.get("value")):
        out["value"] = _readable(attrs.get("value"))  # ``<input type=submit value="Yes, I'm sure">``
    if t.selector and not any(is_hashed_class(c) for c in re.findall(r"[.#]([A-Za-z0-9_-]+)", t.selector)):
        out["selector"] = t.selector
    elif attrs.get("id") and not is_hashed_class(str(attrs["id"])):
        out["selector"] = "#" + css_ident(str(attrs["id"]))
    return out


def _similar_group(ls: LabeledStep, html_before: str | None) -> str | None:
    """A selector of the clicked element and its like siblings (two or more shown, each with a
    text) on the page the click happened on, or None: the click chose one of several items."""
    t = ls.step.target
    if not html_before or t is None or not _readable(t.text):
        return None
    attrs = _attrs(ls)
    classes = [c for c in str(attrs.get("class") or "").split() if not is_hashed_class(c)]
    tag = (t.tag or "").lower()
    want = _readable(t.text)
    root = parse_html(html_before)
    for n in root.iter():
        if n.tag != tag or n.hidden or _readable(n.text) != want or [c for c in n.classes if not is_hashed_class(c)] != classes:
            continue
        parent = n.parent
        if parent is None:
            continue
        kind = signature(tag, n.testid, classes)
        like = [c for c in parent.children if signature(c.tag, c.testid, [x for x in c.classes if not is_hashed_class(x)]) == kind
                and not c.hidden and _readable(c.text)]
        if len(like) < 2 or len({_readable(c.text) for c in like}) < 2:
            continue
        if n.testid or classes:
            return kind
        scope = parent.signature if (parent.testid or parent.classes) else None
        if scope is None and parent.attrs.get("id") and not is_hashed_class(parent.attrs["id"]):
            scope = "#" + css_ident(parent.attrs["id"])
        return f"{scope} > {kind}" if scope else None
    return None


def _item(ls: LabeledStep, html_before: str | None = None) -> tuple[dict[str, Any], str] | None:
    """For a click on one of several similar items: the target (the item's group, and the control
    inside it when the click was on one) and the item's text; else None.

    An item is a member of a group the schema found repeated that the labeler named (the card
    itself or its title link was clicked, ``card_name``), or an element with two or more like
    siblings of other texts on the page before the click (a list of buttons of no known kind)."""
    el = ls.element
    t = ls.step.target
    if ls.step.action != "click" or t is None:
        return None
    if el is not None and el.repeated and ls.card_name and el.visible_count > 1:
        name = ls.card_name
        target: dict[str, Any] = {"group": el.selector}
        inner = _target(ls)
        inner.pop("selector", None)
        if _readable(inner.get("text")) == name or _readable(inner.get("name")) == name:
            # the item's own title (a row's link): the element of that kind inside the item
            inner = {k: v for k, v in inner.items() if k in ("tag", "role") and not (k == "role" and not inner.get("name"))}
        target["inner"] = inner
        return target, name
    group = _similar_group(ls, html_before)
    text = _readable(t.text)
    if group is None or text is None:
        return None
    return {"group": group}, text


def _row_node(node: Node) -> Node | None:
    """The row of a list ``node`` sits in: its nearest ``tr`` with data cells among two or more such
    (or ``li`` among two or more), else None."""
    for a in [node, *node.ancestors()]:
        if a.tag not in ("tr", "li") or a.parent is None:
            continue
        like = [c for c in a.parent.children if c.tag == a.tag and (a.tag == "li" or any(x.tag == "td" for x in c.children))]
        if len(like) >= 2 and a in like:
            return a
    return None


def _row_group(row: Node) -> str | None:
    """A selector of ``row`` and its like siblings: the rows of its table (or list) by the nearest
    ancestor with a readable id, test id or class."""
    scope = row.parent
    while scope is not None and scope.tag not in ("html", "body"):
        if scope.attrs.get("id") and not is_hashed_class(scope.attrs["id"]):
            return f"#{css_ident(scope.attrs['id'])} {row.tag}"
        classes = [c for c in scope.classes if not is_hashed_class(c)]
        if scope.testid or classes:
            return f"{signature(scope.tag, scope.testid, classes)} {row.tag}"
        if scope.tag in ("table", "ul", "ol"):
            return f"{scope.tag} {row.tag}"
        scope = scope.parent
    return None


def _row_name(row: Node) -> str | None:
    """What a row is called: its first link's text (its title), else its first cell's."""
    link = row.find(lambda n: n.tag == "a" and "href" in n.attrs and not n.hidden and _readable(n.text))
    if link is not None:
        return _readable(link.text)
    cell = row.find(lambda n: n.tag in ("th", "td") and _readable(n.text))
    return _readable(cell.text) if cell is not None else None


def _row_control(ls: LabeledStep, html_before: str | None) -> tuple[dict[str, Any], str] | None:
    """For a click on a control inside one row of a list (a row's "More options for 'X'" menu
    toggle, its Delete button), not on the row's own title: the target (the rows, and the control
    inside the row, its name with the row's name a blank) and the row's name; else None."""
    t = ls.step.target
    if ls.step.action != "click" or t is None or not html_before or not t.selector:
        return None
    node = _resolve(parse_html(html_before), t.selector)
    row = _row_node(node) if node is not None else None
    group = _row_group(row) if row is not None else None
    name = _row_name(row) if row is not None else None
    if row is None or group is None or name is None:
        return None
    inner = _target(ls)
    inner.pop("selector", None)
    if _readable(inner.get("text")) == name or _readable(inner.get("name")) == name:
        return None  # the row's own title: an item click (:func:`_item`)
    for key in ("name", "text"):
        if inner.get(key) and name in inner[key]:
            inner[key + "For"] = inner.pop(key).replace(name, "{item}")
    return {"group": group, "inner": inner, "row": True}, name


def _items(seg: Segment, html_of: Callable[[LabeledStep], str | None]) -> list[tuple[dict[str, Any], str] | None]:
    """:func:`_item` of each step of ``seg``; once a step chose a row by a control of its own (a
    row's menu toggle), a later click inside that row (the menu's Delete) acts on the same row, by
    what it says, and a later click outside it (a menu drawn elsewhere) is no choice of its own."""
    out: list[tuple[dict[str, Any], str] | None] = []
    row: tuple[dict[str, Any], str] | None = None
    for ls, prior in zip(seg.steps, seg.priors, strict=True):
        html = html_of(prior) if prior is not None else None
        if row is not None and ls.step.action == "click":
            here = _row_control(ls, html)
            if here is not None and here[0]["group"] == row[0]["group"]:
                out.append(({**here[0], "sameItem": True}, row[1]))
            else:
                out.append(None)
            continue
        item = _item(ls, html)
        if item is None:
            item = row = _row_control(ls, html)
        out.append(item)
    return out


def _item_noun(ls: LabeledStep, item: tuple[dict[str, Any], str]) -> str:
    """What an item is called: its card group (``store_card`` -> ``store``), else the readable
    class its like siblings share (``div.desk`` -> ``desk``), else ``item``."""
    if not item[0].get("inner") and "group" in item[0]:
        words = [w for w in re.findall(r"\.([A-Za-z][A-Za-z0-9_-]*)", item[0]["group"]) if not is_hashed_class(w)]
        if words:
            return snake(singular(words[-1]))
        return "item"
    return snake(singular(ls.element.name)) if ls.element is not None else "item"


def _is_editor(ls: LabeledStep) -> bool:
    """The target is a rich-text or code editor (a ``contenteditable`` element), not a form field."""
    t = ls.step.target
    attrs = _attrs(ls)
    return t is not None and (t.tag or "").lower() not in ("input", "textarea", "select") and (
        str(attrs.get("contenteditable", "false")).lower() in ("", "true", "plaintext-only") or t.role == "textbox")


def _field_label(ls: LabeledStep, html_before: str | None) -> str | None:
    """:func:`toolcache.extract.field_label` of the step's editor on the page before the step."""
    t = ls.step.target
    if not html_before or t is None or not t.selector:
        return None
    node = _resolve(parse_html(html_before), t.selector)
    return field_label(node) if node is not None else None


def _param(ls: LabeledStep, used: set[str], html_before: str | None = None) -> str:
    """An input's name: the field's label, its name attribute, else what it is; an editor's, its
    field's label (its own name is the text it held)."""
    attrs = _attrs(ls)
    t = ls.step.target
    named = t.name if t is not None else None
    if _is_editor(ls) and not attrs.get("aria-labelledby"):
        named = _field_label(ls, html_before)
    words = next((w for w in (attrs.get("aria-label"), attrs.get("placeholder"), named, attrs.get("name"))
                  if _readable(w) and len(str(w)) <= 40), None)
    base = snake(str(words)) if words else ("choice" if ls.step.action == "select" else "text")
    base = base[:40].strip("_") or "text"
    if base[0].isdigit():
        base = "v_" + base
    name, i = base, 2
    while name in used:
        name, i = f"{base}_{i}", i + 1
    used.add(name)
    return name


def _shape(seg: Segment) -> tuple[Any, ...]:
    """What makes two segments one tool: their pages, and per step the action and the target."""
    parts: list[Any] = [seg.pre, seg.post]
    for ls, item in zip(seg.steps, seg.items, strict=True):
        where = js(item[0]) if item else (js(_target(ls)) if ls.step.target is not None else "")
        parts.append((ls.step.action, where))
    return tuple(parts)


# -- outcome ---------------------------------------------------------------------------------


def _status_nodes(root: Node) -> dict[str, str]:
    """Status-message selectors of a page -> their text (visible ones only)."""
    out: dict[str, str] = {}
    for n in root.iter():
        if n.hidden or n.tag in ("script", "style", "template"):
            continue
        sel = None
        if n.attrs.get("role") in ("status", "alert"):
            sel = css_attr("role", n.attrs["role"])
        elif "aria-live" in n.attrs:
            sel = n.css_tag + "[aria-live]"
        else:
            cls = next((c for c in n.classes if _STATUS_WORDS.search(c) and not is_hashed_class(c)), None)
            if cls:
                sel = n.css_tag + "." + css_ident(cls)
        if sel and sel not in out:
            out[sel] = n.text
    return out


def _outcome(seg: Segment, html_of: Callable[[LabeledStep], str | None]) -> str | None:
    """The selector of the status message the segment ended on (shown after, not before), if any."""
    after_html = html_of(seg.steps[-1])
    if not after_html:
        return None
    before_html = html_of(seg.before) if seg.before is not None else None
    after = _status_nodes(parse_html(after_html))
    before = _status_nodes(parse_html(before_html)) if before_html else {}
    return next((sel for sel, text in after.items() if text and before.get(sel) != text), None)


# -- the tool --------------------------------------------------------------------------------


def _verb(segs: list[Segment]) -> str:
    """What the segment does, in the words of its last click (``finish``), else its last action."""
    seg = segs[0]
    for ls, item in reversed(list(zip(seg.steps, seg.items, strict=True))):
        if ls.step.action != "click":
            continue
        own = item is not None and (item[0].get("row") or item[0].get("sameItem"))  # a row's control: what it says
        if item is not None and not own and ls is not seg.steps[-1]:
            continue
        if item is not None and not own:
            return _item_noun(ls, item)
        label = _short(ls.step.target)
        if label:
            return "_".join(snake(label).split("_")[:3])
    return segs[0].steps[-1].step.action


def _describe(seg: Segment, params: dict[str, str]) -> str:
    words = []
    for ls, item in zip(seg.steps, seg.items, strict=True):
        t = ls.step.target
        pname = params.get(str(id(ls)))
        label = (_short(t) or pname or ls.step.action)
        if item is not None and item[1]:
            label = label.replace(item[1], "...")  # no demonstrated row in a description
        label = label[:40]
        if item is not None and item[0].get("sameItem"):
            words.append(f"click {json_word(label)} of that {pname}")
        elif item is not None and item[0].get("row"):
            words.append(f"click {json_word(label)} of the {pname} given (its row, by its text)")
        elif item is not None:
            words.append(f"choose the {pname} given")
        elif ls.step.action in ("fill", "select"):
            words.append(f"set {json_word(label)} to {pname}")
        else:
            words.append(f"{ls.step.action} {json_word(label)}")
    return "; ".join(words)


def json_word(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def _page_noun(page: str, strip: str) -> str:
    """What a page is about, in a word or two: after the words every page of the site shares
    (``strip``, Fava's ledger slug), its first two; else its last word; placeholders and view words
    left out (``admin_library_author_{id}_change`` -> ``author``)."""
    words = [w for w in snake(re.sub(r"\{(id|name)\}", "", page)).split("_") if w]
    shared = strip.split("_") if strip else []
    if shared and words[:len(shared)] == shared and len(words) > len(shared):
        words = words[len(shared):]
        words = [w for w in words if w not in _VIEW_WORDS] or words
        return "_".join(words[:2])
    words = [w for w in words if w not in _VIEW_WORDS] or words
    return words[-1] if words else _noun(page)


_VIEW_WORDS = {"change", "edit", "add", "new", "view", "show", "list", "index", "detail", "details", "page"}


def _tool(segs: list[Segment], name: Callable[[str], str], html_of: Callable[[LabeledStep], str | None],
          strip: str = "") -> WorkflowSynth:
    first = segs[0]
    used: set[str] = set()
    props: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    params: dict[str, str] = {}  # id(step of the first segment) -> its input
    pos_param: list[str | None] = []
    for ls, item, prior in zip(first.steps, first.items, first.priors, strict=True):
        act = ls.step.action
        spec: dict[str, Any] = {"action": act}
        pname: str | None = None
        if item is not None and item[0].get("sameItem"):
            spec["target"] = {k: v for k, v in item[0].items() if k != "sameItem"}
            pname = next((p for p in reversed(pos_param) if p), None)
        elif item is not None:
            spec["target"] = item[0]
            base = _item_noun(ls, item)
            if item[0].get("row"):
                base = _one(_page_noun(first.pre, strip).split("_")[-1]) or "item"  # a row of the page's list
            pname = base if base not in used else f"{base}_{len(used) + 1}"
            used.add(pname)
            props[pname] = {"type": "string", "minLength": 1,
                            "description": f"Which {pname.replace('_', ' ')} to choose: its text as the page shows it."}
        elif ls.step.target is not None:
            spec["target"] = _target(ls)
        if act in ("fill", "select") and item is None:
            pname = _param(ls, used, html_of(prior) if prior is not None else None)
            if ls.step.value == REDACTED:
                props[pname] = {"type": "string", "minLength": 1, "writeOnly": True,
                                "description": "A secret (never stored in traces or the cache): give it at call time."}
            else:
                props[pname] = {"type": "string", "description": f"What to {'type' if act == 'fill' else 'choose'} here."}
        elif act in ("press", "scroll", "wait"):
            spec["value"] = ls.step.value
        spec["input"] = pname
        pos_param.append(pname)
        if pname:
            params[str(id(ls))] = pname
        steps.append(spec)
    last = first.steps[-1]
    navigates = last.step.document is True or (last.step.document is None and _leaves(last) and bool(last.step.url_after)
                                                and urlparse(last.step.url_after or "").path != urlparse(last.step.url or "").path)
    if navigates:
        steps[-1]["navigates"] = True
    witnesses: list[dict[str, Any]] = []
    for seg in segs:
        w: dict[str, Any] = {}
        for ls, item, pname in zip(seg.steps, seg.items, pos_param, strict=True):
            if pname is None:
                continue
            w[pname] = item[1] if item is not None else ("" if ls.step.value is None else str(ls.step.value))
        witnesses.append(w)
    writes = any(s.writes for seg in segs for s in seg.steps)
    pre_pages = {first.pre}
    post_pages = {seg.post for seg in segs if seg.post}
    post_page = first.post if len(post_pages) == 1 else None
    outcome = _outcome(first, html_of)
    first_spec = steps[0].get("target")
    first_want = f"inputs[{js(steps[0]['input'])}]" if steps[0].get("input") and first_spec and first_spec.get("group") else "null"
    pre_check = _body(
        WORKFLOW_JS,
        _page_guard(pre_pages),
        *([f"const [el, why] = __wfLocate({js(first_spec)}, {first_want});", "return el ? true : [false, why];"] if first_spec else ["return true;"]),
    )
    post = []
    if post_page:
        post.append(f"const ok = {_page_test({post_page})};\nif (ok !== true) return ok;")
    if outcome:
        post.append(f"const msg = [...document.querySelectorAll({js(outcome)})].find(__wfShown);\n"
                    f"if (!msg || !__clean(msg.textContent)) return [false, {js('no status message (' + outcome + ') shown')}];")
    post.append("const errs = __errors().filter((e) => !msg || e !== __clean(msg.textContent));" if outcome else "const errs = __errors();")
    post.append("return errs.length ? [false, 'the site said: ' + errs.join('; ')] : true;")
    verb = _verb(segs)
    if verb[0].isdigit():
        verb = f"click_{verb}"  # a page number, a count: what was clicked
    noun = _page_noun(first.pre, strip)
    base = f"do_{verb}" if verb.endswith(noun) or set(noun.split("_")) <= set(verb.split("_")) else f"do_{verb}_{noun}"
    row = next((p for p, item in zip(pos_param, first.items, strict=True) if p and item and item[0].get("row")), None)
    if row and verb != row:
        # an action on one row of a list, the row given: ``delete_page(page)``; one that only opens
        # another page (a confirmation page) says so: ``goto_delete_page(page)``
        base = f"{verb}_{row}" if writes or not navigates else f"goto_{verb}_{row}"
    m = ToolManifest(
        name=name(base),
        description=(f"A demonstrated sequence on the {first.pre} page: {_describe(first, params)}"
                     + (f"; ends on the {post_page} page" if post_page and post_page != first.pre else "")
                     + (" (a state-changing request)." if writes else ".")),
        type=ToolType.SET_FIELDS,
        input_schema={"type": "object", "properties": props, **({"required": list(props)} if props else {})},
        output_schema={"type": "object", "properties": {"success": {"type": "boolean"}}, "required": ["success"]},
        pre={"page": first.pre},
        post={"page": post_page} if post_page else {},
        pre_check=pre_check,
        execute=_body(WORKFLOW_JS, f"const __steps = {js(steps)};", "return await __wfRun(__steps, inputs);"),
        post_check=_body(WORKFLOW_JS, *post),
        effect=Effect.WRITE if writes else Effect.READ,
        elements=sorted({k for seg in segs for s in seg.steps if (k := step_key(s)) is not None}),
        navigates=navigates,
    )
    return WorkflowSynth(m, "workflow", element=None, evidence=[s for seg in segs for s in seg.steps],
                         witness_args=witnesses, starts=[seg.steps[0] for seg in segs])


def workflow_tools(
    labeled: dict[str, list[LabeledStep]], tools: Iterable[ToolManifest],
    html_of: Callable[[LabeledStep], str | None] = lambda _ls: None, routes: Sequence[str] = (),
) -> list[WorkflowSynth]:
    """One workflow tool per shape of the segments no tool of ``tools`` covers; ``html_of`` gives a
    step's snapshot (the page after it), where the outcome of a segment is read; the checks name
    pages with the learned ``routes`` too, as the other tools' do."""
    tools = list(tools)
    groups: dict[tuple[Any, ...], list[Segment]] = {}
    for seg in uncovered_segments(labeled, tools):
        seg.items = _items(seg, html_of)
        groups.setdefault(_shape(seg), []).append(seg)
    namer = _Namer()
    namer.used |= {t.name for t in tools}
    pages = sorted({p for steps in labeled.values() for ls in steps for p in (ls.page_before, ls.page_after) if p})
    strip = _shared_prefix(pages)
    out = [_tool(segs, namer, html_of, strip) for segs in groups.values()]
    if routes:
        for w in out:
            m = w.manifest
            w.manifest = m.model_copy(update={k: with_routes(getattr(m, k), routes) for k in ("pre_check", "execute", "post_check")})
    return out
