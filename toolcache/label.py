"""Label: map every recorded step to its page-schema element.

The recorder stores the target's test id and its ancestors, so the element is
found deterministically: the nearest ancestor-or-self that is a member of a
repeated group is the card (and a test-id'd actionable inside it is the
card's *action*); else the singular element with the target's selector (test
id, id, input name); else one whose text matches. Only steps that carry no
target at all are left for the optional model labeler (paper, prompt 4).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from agentjit.llm.base import Message, Model
from agentjit.protocol.trace import StepEvent, Target

from .dom import camel, signature
from .extract import Element, PageSchema, is_same_page_href
from .literal import css_attr, css_ident

__all__ = ["LabeledStep", "label_step", "label_with_model"]

log = logging.getLogger(__name__)


@dataclass
class LabeledStep:
    """One step with its page before and after and its element."""

    trace: str
    step: StepEvent
    page_before: str | None
    page_after: str | None
    element: Element | None = None
    action: str | None = None
    """For a card: the name of the action inside it that was clicked (``removeLine``)."""
    card_name: str | None = None
    """For a card: the value of its name property on the clicked card."""
    modal_before: set[str] = field(default_factory=set)
    modal_after: set[str] = field(default_factory=set)
    via: str = "target"
    """How the element was found: ``target``, ``text``, ``region`` (a look at the list inside the target), ``model`` or ``none``."""

    @property
    def writes(self) -> list[dict[str, Any]]:
        return list(self.step.requests)

    @property
    def duration(self) -> float:
        return self.step.end - self.step.start


def _chain(target: Target) -> list[dict[str, Any]]:
    extra = target.model_extra or {}
    me: dict[str, Any] = {"tag": target.tag, "testid": extra.get("testid"), "data": {}, "classes": ""}
    attrs = extra.get("attributes") or {}
    me["data"] = {k: v for k, v in attrs.items() if k.startswith("data-") and k != "data-testid"}
    me["classes"] = attrs.get("class", "")
    me["name_attr"] = attrs.get("name")
    me["id"] = attrs.get("id")
    return [me, *list(extra.get("ancestors") or [])]


def _sig_of(node: dict[str, Any]) -> str:
    return signature(node.get("tag"), node.get("testid"), (node.get("classes") or "").split())


def _id_sel(node: dict[str, Any]) -> str:
    return "#" + css_ident(str(node.get("id")))


_MENU_ROLES = {"menu", "menubar", "menuitem", "listbox", "toolbar", "dialog"}
_MENU_WORDS = ("dropdown", "menu", "actions", "popover", "toolbar")


def _in_menu(between: list[dict[str, Any]]) -> bool:
    """One of the nodes between a clicked link and its row is a menu or a box of actions."""
    for a in between:
        classes = (a.get("classes") or "").lower()
        if a.get("role") in _MENU_ROLES or any(w in classes for w in _MENU_WORDS):
            return True
    return False


def _own_control(chain: list[dict[str, Any]], depth: int, text: str | None, samples: list[str]) -> bool:
    """A control clicked inside a list's row that is not the row's own link: a button, or a link
    in a menu or box of actions of the row (its Edit / Delete / History) whose text is no row's
    name. A link in a cell of its own (a ticket's summary beside its number) is the row's: the
    samples hold one column's names only, so a text missing from them says nothing alone."""
    me = chain[0]
    if me.get("tag") == "button":
        return True
    if me.get("tag") != "a" or not samples or not _in_menu(chain[1:depth]):
        return False
    want = " ".join((text or "").split())
    # a row's name starts its cell's text; anywhere in it may be the row's open menu (the Delete
    # of a dropdown drawn inside the row's title cell)
    return bool(want) and not any(" ".join(s.split()).startswith(want) for s in samples)


def label_step(step: StepEvent, schema: PageSchema | None) -> tuple[Element | None, str | None, str | None, str]:
    """``(element, card action, card name, via)`` for ``step`` on page ``schema``."""
    if schema is None or step.target is None:
        return None, None, None, "none"
    chain = _chain(step.target)
    cards = {el.selector: el for el in schema.elements.values() if el.repeated and not el.member_sig}
    rows = [el for el in schema.elements.values() if el.repeated and el.member_sig]
    th = next((i for i in (1, 2) if len(chain) > i + 2 and chain[i].get("tag") == "th"), None)
    if th is not None and chain[0].get("tag") == "a":
        # a sort link in a list's column header (maybe in a box of its own beside the header's
        # sort widgets): the list, action "sort", named by the column
        for r in rows:
            if r.sort_selector and any(a.get("tag") == "thead" for a in chain[th + 1:th + 3]) and any(
                    _sig_of(a) == r.container_sig or _id_sel(a) == r.container_sig for a in chain[th + 1:th + 5]):
                return r, "sort", step.target.text, "target"
    for depth, node in enumerate(chain):
        el = cards.get(_sig_of(node))
        if el is None:
            # a table row: the member signature here and its table further up
            # (a classed row, ``tr.even``, is one of them when a link in it was clicked: the row's
            # own link; a control in a row's cell is a control of its own)
            el = next((r for r in rows if (_sig_of(node) == r.member_sig or (node.get("tag") == r.member_sig and chain[0].get("tag") == "a"))
                       # a column's header cell is no row; a row's own header cell (its title) is
                       and (depth == 0 or chain[depth - 1].get("tag") != "th" or not any(a.get("tag") == "thead" for a in chain[depth + 1:depth + 2]))
                       and any(_sig_of(a) == r.container_sig or _id_sel(a) == r.container_sig
                               for a in chain[depth + 1:])), None)
        if el is None:
            continue
        action = None
        for inner in chain[:depth]:
            if inner.get("testid") and camel(inner["testid"]) in el.actions:
                action = camel(inner["testid"])
                break
        if el.member_sig and depth > 0 and action is None and _own_control(chain, depth, step.target.text, el.samples):
            break  # a control of one row (its menu toggle, its Delete link): not the row itself
        name = None
        if el.name_prop and el.name_prop in el.props:
            prop = el.props[el.name_prop]
            if prop.source == "attr":
                name = (node.get("data") or {}).get(prop.key)
        if name is None and (depth == 0 or chain[0].get("tag") == "a"):  # the card, or the link that opens it
            name = step.target.text
        if el.kind == "card" and el.modal and depth > 0 and chain[0].get("tag") == "input":
            # an input inside a repeated label (an option choice): still the card
            pass
        return el, action, name, "target"
    me = chain[0]
    singles = [el for el in schema.elements.values() if not el.repeated]
    for el in singles:
        if me.get("testid") and el.selector == css_attr("data-testid", me["testid"]):
            return el, None, None, "target"
    # the control's own id before any control of its name: two inputs may share a name (a sidebar's
    # search and the page's own are both ``q``), and the one the demonstration used is the one
    for el in singles:
        if el.kind == "radio" and me.get("name_attr") and el.input_name == me["name_attr"]:
            return el, None, None, "target"
        if me.get("id") and el.selector == _id_sel(me):
            return el, None, None, "target"
    by_name = [el for el in singles if me.get("name_attr") and el.input_name == me["name_attr"] and el.kind != "radio"]
    if len(by_name) > 1:
        # the one in the demonstrated control's form (its form's id or class among the target's ancestors)
        forms = {_sig_of(a) for a in chain[1:] if a.get("tag") == "form"} | {_id_sel(a) for a in chain[1:] if a.get("tag") == "form" and a.get("id")}
        # and in the site's chrome (a sidebar's search) only when the demonstrated one was
        chrome = any(a.get("tag") in ("nav", "header", "footer", "aside") or a.get("role") in ("navigation", "banner", "contentinfo", "complementary")
                     for a in chain[1:])
        by_name.sort(key=lambda el: (el.form not in forms, el.chrome != chrome))
    if by_name:
        return by_name[0], None, None, "target"
    attrs = (step.target.model_extra or {}).get("attributes") or {}
    if me.get("tag") in ("input", "button") and attrs.get("value") and attrs.get("type") in ("submit", "button"):
        own = f"{css_ident(str(me['tag']))}{css_attr('type', attrs['type'])}{css_attr('value', attrs['value'])}"
        for el in singles:
            if el.selector == own or el.selector.endswith(" " + own):
                return el, None, None, "target"
    # a control found the way Playwright's get_by_placeholder / get_by_label does; inside an open
    # dialog, the dialog's own control (the page may show one with the same placeholder)
    in_dialog = bool((step.target.model_extra or {}).get("in_dialog"))
    named = [css_attr(k, attrs[k]) for k in ("aria-label", "placeholder") if attrs.get(k)]
    owns = [f"{css_ident(str(me.get('tag')))}{n}" for n in named] + ([css_attr("aria-placeholder", attrs["aria-placeholder"])] if attrs.get("aria-placeholder") else [])
    if attrs.get("type") and me.get("tag") == "input":
        owns.append(f"input{css_attr('type', attrs['type'])}")
    hits = [el for el in singles if any(el.selector == o or el.selector.endswith(" " + o) for o in owns)]
    if hits:
        return sorted(hits, key=lambda e: (bool(e.modal) != in_dialog, e.chrome))[0], None, None, "target"
    text = (step.target.text or step.target.name or "").strip()
    if me.get("tag") == "a" and text and is_same_page_href(str(attrs.get("href") or ""), step.url):
        # a filter link's href says what the page showed when it was clicked (another snapshot's
        # link may have had that very href): it is the link with its text among the filter links
        by_text = [el for el in singles if el.link_group and el.kind == "link" and el.text.strip() == text]
        same = [el for el in by_text if el.selector == "a" + css_attr("href", str(attrs["href"]))]
        if same or by_text:
            return (same or by_text)[0], None, None, "target"
    if me.get("tag") == "a" and attrs.get("href"):
        for el in singles:
            if el.selector == "a" + css_attr("href", attrs["href"]):
                return el, None, None, "target"
    if me.get("tag") in ("input", "textarea", "select") and not (me.get("id") or me.get("name_attr")):
        # a control with no name (a code editor's input box): the one the page knows by its widget
        unnamed = [el for el in singles if el.selector.endswith(" " + str(me["tag"])) or el.selector == me["tag"]]
        if len(unnamed) == 1:
            return unnamed[0], None, None, "target"
    if text:
        for el in singles:
            if el.text and el.text.strip() == text:
                return el, None, None, "text"
    return None, None, None, "none"


async def label_with_model(model: Model, step: StepEvent, schema: PageSchema) -> Element | None:
    """Ask ``model`` which element a target-less step was after (the paper's prompt 4, our wording)."""
    valid = sorted(schema.elements)
    goal = step.goal or ""
    prompt = (
        "Which page element was this browser step ultimately aiming at? Answer with JSON "
        '{"goal_element": <one of the valid elements>} and nothing else. Map exploratory steps '
        "(scrolling, reading) to the element they were trying to reach.\n"
        f"valid_elements: {json.dumps(valid)}\n"
        f"step: action={step.action} value={step.value!r} url={step.url} goal={goal!r}"
    )
    reply = await model.request([Message(role="user", content=prompt)], temperature=0)
    try:
        name = json.loads(reply.text.strip().strip("`").removeprefix("json")).get("goal_element")
    except (ValueError, AttributeError):
        log.info("model label not JSON: %r", reply.text[:200])
        return None
    return schema.elements.get(name) if isinstance(name, str) else None
