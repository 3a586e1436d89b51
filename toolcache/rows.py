"""Rows of a list picked by their checkboxes: which row a recorded ``check`` ticked.

A list whose rows each carry a checkbox (a change list's select boxes, a mail
client's message boxes) lets a person pick several rows and then act on all of
them at once (a select of actions and a button, or a "Delete selected" button).
The recorder keeps the checkbox it clicked, not the row's name; the row is
found in the page as it was before the step (the recorder's selector resolved
in that snapshot), and named the way the generated tools name rows
(:func:`toolcache.codegen.base._name_of_js`): its link's text in a table, else its
name property. A selector that does not resolve falls back to the row names the
list showed that the checkbox's own accessible name contains ("Select this
object for an action - Migrations to Ravi Shah").
"""

from __future__ import annotations

import re

from agentjit.protocol.trace import StepEvent

from .dom import Node, parse_html
from .extract import Element

__all__ = ["is_row_check", "checked_row", "looked_at_list"]

_PART = re.compile(r"^(?:#(?P<id>(?:\\.|[^\s>:\[])+)|(?P<tag>[a-zA-Z][\w-]*)(?:\[data-testid=\"(?P<tid>[^\"]*)\"\])?(?::nth-of-type\((?P<nth>\d+)\))?)$")


_NTH_CELL = re.compile(r":scope > :nth-child\((\d+)\) ")


def is_row_check(step: StepEvent, el: Element | None) -> bool:
    """The step ticked (or unticked) the checkbox of a list's row."""
    if el is None or not el.repeated or el.modal or step.target is None or step.action not in ("check", "click"):
        return False
    attrs = (step.target.model_extra or {}).get("attributes") or {}
    return step.target.role == "checkbox" or str(attrs.get("type", "")).lower() == "checkbox"


def _resolve(root: Node, selector: str) -> Node | None:
    """The element of the recorder's selector (``#id > tag:nth-of-type(k) > ...``) in ``root``."""
    cur: Node | None = None
    for i, part in enumerate(p.strip() for p in selector.split(">")):
        m = _PART.match(part)
        if m is None:
            return None
        if m.group("id"):
            want = re.sub(r"\\(.)", r"\1", m.group("id"))
            cur = root.find(lambda n, w=want: n.attrs.get("id") == w)
            if cur is None:
                return None
            continue
        tag, tid, nth = m.group("tag").lower(), m.group("tid"), m.group("nth")
        scope = cur if cur is not None else (root.find(lambda n: n.tag == "html") if i == 0 and tag != "html" else root)
        if scope is None:
            return None
        same = [c for c in scope.children if c.tag == tag]
        if nth:
            k = int(nth) - 1
            cur = same[k] if k < len(same) and (tid is None or same[k].testid == tid) else None
        else:
            cur = next((c for c in same if tid is None or c.testid == tid), None)
        if cur is None:
            return None
    return cur


def _row_name(row: Node, el: Element) -> str | None:
    """The row's name as the tools read it (:func:`toolcache.codegen.base._name_of_js`)."""
    if el.member_sig and el.link_selector:
        scope: Node | None = row
        m = _NTH_CELL.match(el.link_selector)
        if m:  # the title link sits in a given cell (:func:`toolcache.extract.lists._title_link`)
            k = int(m.group(1)) - 1
            scope = row.children[k] if k < len(row.children) else None
        link = scope.find(lambda n: n.tag == "a" and "href" in n.attrs) if scope is not None else None
        return (link or row).text or None
    prop = el.props.get(el.name_prop or "") if el.name_prop else None
    if prop is None or prop.source == "self":
        return row.text or None
    if prop.source == "attr":
        return row.attrs.get(prop.key)
    if prop.source == "text":
        m = re.fullmatch(r'\[data-testid="([^"]*)"\]', prop.key)
        sub = row.find(lambda n: (m is not None and n.testid == m.group(1)) or n.tag == prop.key)
        return sub.text if sub is not None else None
    return None


def checked_row(html: str | None, step: StepEvent, el: Element) -> str | None:
    """The name of the row of ``el`` (a list) whose checkbox ``step`` clicked, on the page ``html``
    showed before the step; None when it cannot be told."""
    target = step.target
    if target is None:
        return None
    if html and target.selector:
        root = parse_html(html)
        box = _resolve(root, target.selector)
        rows = [a for a in (box.ancestors() if box is not None else []) if _is_member(a, el)]
        if rows:
            return _row_name(rows[0], el)
    label = " ".join((target.name or "").split())
    hits = [s for s in el.samples if s and " ".join(s.split()) in label]
    return max(hits, key=len) if hits else None


LOOKS = frozenset({"scroll", "hover", "wait"})
"""Steps that only bring something into view: they act on nothing."""


def _target_node(root: Node, step: StepEvent) -> Node | None:
    """The element a recorded target names in ``root``: its test id or id when the page has
    exactly one such, else the recorder's own selector."""
    target = step.target
    if target is None:
        return None
    extra = target.model_extra or {}
    attrs = extra.get("attributes") or {}
    for key, want in (("data-testid", extra.get("testid") or attrs.get("data-testid")), ("id", attrs.get("id"))):
        if want:
            hits = root.find_all(lambda n, k=key, w=want: n.attrs.get(k) == w)
            if len(hits) == 1:
                return hits[0]
    return _resolve(root, target.selector) if target.selector else None


def looked_at_list(html: str | None, step: StepEvent, elements: list[Element]) -> Element | None:
    """The list a look-only step (a scroll to a region, a hover) brought into view: the repeated
    element of ``elements`` with the most members inside the step's target on the page ``html``
    showed before the step; None when the target holds no list's members (or is not found)."""
    if not html or step.action not in LOOKS or step.target is None:
        return None
    region = _target_node(parse_html(html), step)
    if region is None:
        return None
    best: tuple[int, Element] | None = None
    for el in elements:
        if not el.repeated or el.modal:
            continue
        n = sum(1 for node in region.iter() if _is_member(node, el))
        if n and (best is None or n > best[0]):
            best = (n, el)
    return best[1] if best else None


def _is_member(n: Node, el: Element) -> bool:
    if el.member_sig:
        return n.tag == el.member_sig and any(c.tag == "td" for c in n.children)
    return n.signature == el.selector
