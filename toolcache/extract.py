"""Extract: page schemas from DOM snapshots, by structure alone (no model).

For every snapshot the page type is ``<body data-page>`` when the site sets
it, else a pattern of the URL path. On each page:

* **repeated groups** (cards): elements with a test id or a class whose
  signature repeats among siblings; their properties are their ``data-*``
  attributes and the text of their test-id'd descendants; a repeated container
  around them (a home-page section) becomes a grouping property
  (``x-visibleCounts``). Buttons inside a card are the card's *actions*.
* **actionable elements**: links, buttons, inputs, selects, text areas, radio
  groups (by input name), ``role=button``.
* **fields**: leaf elements with a test id and text (or ``data-value``), and
  the ``data-*`` facts of singular containers (a store header).
* **modals**: ``role=dialog`` / ``aria-modal`` containers; their elements are
  named ``<modal>.<element>`` as in the paper's prompt 3.

``opensPage`` / ``opensModal`` come later from observed transitions
(:mod:`toolcache.label`). :meth:`PageSchema.to_json_schema` renders the
paper's JSON Schema shape.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlparse

from .dom import Node, camel, parse_html, signature
from .literal import css_attr, css_ident, js, state_value
from .pages import VARIANT_MARK, page_name, page_variant
from .variants import document_heading

__all__ = ["Prop", "Element", "PageSchema", "SiteSchema", "page_key", "extract_snapshot", "merge_page"]

log = logging.getLogger(__name__)

_ACTION_TAGS = {"a", "button", "input", "select", "textarea"}


@dataclass
class Prop:
    """A value visible on an element: a ``data-*`` attribute, a descendant's text, or ``data-value``."""

    name: str
    source: str  # attr | text | value | self | pair (beside a label) | cell (under a header) | labeled ("Key: v") | next (the next row)
    key: str  # attribute name, or a CSS selector relative to the element ("" for the element itself)
    type: str = "string"  # JSON type: string | number | boolean

    def js(self, var: str) -> str:
        """A JS expression reading this property from element ``var``."""
        if self.source == "row":
            return f"__row({var})"
        if self.source == "pair":
            raw = f"__pair({js(self.key)})"
        elif self.source == "cell":
            raw = f"__cell({var}, {js(self.key)})"
        elif self.source == "labeled":
            raw = f"__labeled({var}, {js(self.key)})"
        elif self.source == "next":
            raw = f"(({var}.nextElementSibling) ? __clean({var}.nextElementSibling.innerText || {var}.nextElementSibling.textContent) : null)"
        elif self.source == "attr":
            raw = f"{var}.getAttribute({js(self.key)})"
        elif self.source == "self":
            raw = f"(({var}.innerText || {var}.textContent || '').replace(/\\s+/g, ' ').trim())"
        else:
            sub = f"{var}.querySelector({js(self.key)})" if self.key else var
            if self.source == "value":
                raw = f"(({sub}) ? ({sub}).getAttribute('data-value') : null)"
            else:
                raw = f"(({sub}) ? (({sub}).innerText || ({sub}).textContent || '').replace(/\\s+/g, ' ').trim() : null)"
        if self.type == "number":
            return f"__num({raw})"
        if self.type == "boolean":
            return f"__bool({raw})"
        return raw

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "key": self.key, "type": self.type}


@dataclass
class Element:
    """One page-schema element (a ``$def``)."""

    name: str
    page: str
    kind: str  # card | link | button | input | textarea | select | radio | checkbox
    selector: str
    repeated: bool = False
    modal: str | None = None
    props: dict[str, Prop] = field(default_factory=dict)
    name_prop: str | None = None
    group_prop: Prop | None = None
    group_selector: str | None = None
    visible_count: int = 1
    visible_counts: dict[str, int] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)
    """For cards: action name -> selector of an actionable descendant (``removeLine``)."""
    clickable: bool = False
    text: str = ""
    input_name: str | None = None
    input_type: str | None = None
    options: list[str] = field(default_factory=list)
    option_labels: list[str] = field(default_factory=list)
    """For a select: the options' visible labels (what a person picks; ``options`` holds their values)."""
    option_label_of: dict[str, str] = field(default_factory=dict)
    """For a select: each enabled option's label by its value (what the page posts -> what a person picks)."""
    options_vary: bool = False
    """For a select: pages of this type offered different options (a table's columns): the
    choices are data, not a fixed set, so no tool may hold them to the ones recorded."""
    columns_vary: bool = False
    """For table rows: pages of this type showed different columns."""
    form: str | None = None
    """Selector of the enclosing form, when there is one."""
    opens_page: set[str] = field(default_factory=set)
    opens_modal: str | None = None
    samples: list[str] = field(default_factory=list)
    member_sig: str | None = None
    """For table rows: what one member looks like in a recorded target's chain (``tr``), when not ``selector``."""
    container_sig: str | None = None
    """For table rows: the signature of the table they belong to."""
    link_selector: str | None = None
    """For table rows: the link inside a row that opens the row's item (rows themselves do not navigate)."""
    sort_selector: str | None = None
    """For table rows: the header links that sort the table (``table.x thead th a[href]``), when it has them."""
    sort_columns: list[str] = field(default_factory=list)
    """For table rows: the columns whose header is a link (the ones the site sorts by)."""
    sort_marks: bool = False
    """For table rows: a header showed which way the table is sorted (``aria-sort``, an asc/desc class, an arrow)."""
    link_group: str | None = None
    """For a link that keeps the page and changes its query: the name of the sibling links it sits
    among (a filter sidebar's "By genre", a chip row): :func:`link_group`."""
    chrome: bool = False
    """In the site chrome (``nav``, ``header``, ``footer``, ``aside``): the same on every page that has it."""

    @property
    def key(self) -> str:
        return f"{self.page}.{self.name}"

    def def_json(self) -> dict[str, Any]:
        props: dict[str, Any] = {p.name: {"type": p.type} for p in self.props.values()}
        if self.group_prop is not None:
            props[self.group_prop.name] = {"type": "string", "description": "the group (section) it is shown in"}
        if len(self.opens_page) == 1:
            props["opensPage"] = {"const": next(iter(self.opens_page))}
        elif self.opens_page:
            props["opensPage"] = {"enum": sorted(self.opens_page)}
        if self.opens_modal:
            props["opensModal"] = {"const": self.opens_modal}
        if self.options:
            props["value"] = {"type": "string", "enum": list(self.options)}
        out: dict[str, Any] = {
            "type": "object",
            "description": self.describe(),
            "x-kind": self.kind,
            "x-selector": self.selector,
            "properties": props,
        }
        if self.repeated:
            out["x-visibleCount"] = self.visible_count
            if self.visible_counts:
                out["x-visibleCounts"] = dict(self.visible_counts)
        if self.actions:
            out["x-actions"] = dict(self.actions)
        return out

    def describe(self) -> str:
        what = {
            "card": "Repeated card", "link": "Link", "button": "Button", "input": "Text input",
            "textarea": "Text area", "select": "Drop-down", "radio": "Radio group", "checkbox": "Checkbox",
        }.get(self.kind, self.kind)
        extra = f" '{self.text[:40]}'" if self.text and not self.repeated else ""
        where = f" in {self.modal}" if self.modal else ""
        goes = f", opens the {'/'.join(sorted(self.opens_page))} page" if self.opens_page else ""
        modal = f", opens {self.opens_modal}" if self.opens_modal else ""
        return f"{what}{extra}{where}{goes}{modal}"


@dataclass
class PageSchema:
    page: str
    url_patterns: set[str] = field(default_factory=set)
    urls: list[str] = field(default_factory=list)
    elements: dict[str, Element] = field(default_factory=dict)
    fields: dict[str, Prop] = field(default_factory=dict)
    """Singular visible facts (``getFields``), by name; modal fields are ``<modal>.<name>``."""
    modals: dict[str, str] = field(default_factory=dict)
    """Modal name -> selector."""
    snapshots: int = 0
    open_modals: set[str] = field(default_factory=set)
    """Modals open in the (last) snapshot: per-snapshot, not merged."""
    title_selector: str | None = None
    """The page's main heading (``h1``), for post-checks of navigations."""
    link_groups: dict[str, list[str]] = field(default_factory=dict)
    """Group name -> the texts of its links (:attr:`Element.link_group`), in page order."""
    link_groups_vary: set[str] = field(default_factory=set)
    """Groups whose links differed between snapshots of this page type: their texts are data."""

    def to_json_schema(self) -> dict[str, Any]:
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": self.page,
            "type": "object",
            "x-urlPatterns": sorted(self.url_patterns),
            "x-snapshots": self.snapshots,
            "x-modals": dict(self.modals),
            "properties": {name: {"type": p.type, "x-source": p.source, "x-key": p.key} for name, p in self.fields.items()},
            "$defs": {name: el.def_json() for name, el in sorted(self.elements.items())},
        }


@dataclass
class SiteSchema:
    pages: dict[str, PageSchema] = field(default_factory=dict)
    transitions: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """(page, element, page after) -> times seen."""

    def element(self, page: str, name: str) -> Element | None:
        ps = self.pages.get(page)
        return ps.elements.get(name) if ps else None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "toolcache-schemas",
            "version": 1,
            "pages": {k: v.to_json_schema() for k, v in sorted(self.pages.items())},
            "transitions": [
                {"from": a, "element": e, "to": b, "count": n} for (a, e, b), n in sorted(self.transitions.items())
            ],
        }


_NUM = re.compile(r"^-?\d+(\.\d+)?$")


def _type_of(values: list[str]) -> str:
    vals = [v for v in values if v != ""]
    if vals and all(v in ("true", "false") for v in vals):
        return "boolean"
    if vals and all(_NUM.match(v) for v in vals):
        return "number"
    return "string"


def page_key(body: Node | None, url: str | None, routes: Sequence[str] = ()) -> str:
    """The page type: ``<body data-page>``, else the URL's route template (:func:`toolcache.pages.page_name`),
    or the variant of it that the document's heading names (:mod:`toolcache.variants`); either way
    a state value (:func:`toolcache.literal.state_value`, ``__page()`` in the browser)."""
    named = state_value(body.attrs.get("data-page")) if body is not None else ""
    if named:
        return named
    base = page_name(url, routes)
    if body is None or not any(VARIANT_MARK in r for r in routes):
        return base
    return page_variant(base, document_heading(body), routes)


def url_pattern(url: str | None) -> str:
    """``/store/winstop?x=1`` -> ``/store/*``: the first segment kept, the rest wildcarded."""
    path = urlparse(url or "").path or "/"
    parts = [p for p in path.split("/") if p]
    if not parts:
        return "/"
    return "/" + "/".join([parts[0]] + ["*"] * (len(parts) - 1))


_HASHED = re.compile(r"(^|[-_])(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{5,}$", re.I)
_TEXTBOX_ROLES = ("textbox", "combobox", "searchbox")


def is_hashed_class(c: str) -> bool:
    """A class a CSS-in-JS or component framework generated (``svelte-1kd9pqk``, ``css-1x2y3z``):
    stable within a build, but it names nothing a reader knows."""
    return bool(_HASHED.search(c)) or not c.isascii()


def _readable_class(n: Node) -> str | None:
    return next((c for c in n.classes if not is_hashed_class(c)), None)


def _is_control(n: Node) -> bool:
    """A form control: an input, select or text area, or an editable element with a textbox role."""
    if n.tag in ("input", "select", "textarea"):
        return n.attrs.get("type", "text") not in ("hidden", "submit", "button", "reset", "image")
    return n.attrs.get("contenteditable") == "true" or n.attrs.get("role") in _TEXTBOX_ROLES


def _accessible_name(n: Node) -> str:
    """What a person calls a control: its ``aria-label``, placeholder, ``aria-placeholder``, ``title`` or ``name``."""
    for key in ("aria-label", "placeholder", "aria-placeholder", "title", "name"):
        if n.attrs.get(key, "").strip():
            return n.attrs[key].strip()
    return ""


def _is_actionable(n: Node) -> bool:
    if n.attrs.get("contenteditable") == "true" or n.attrs.get("role") in _TEXTBOX_ROLES:
        return True
    if n.tag in _ACTION_TAGS:
        if n.tag == "a":
            return "href" in n.attrs
        if n.tag == "input":
            return n.attrs.get("type", "text") != "hidden"
        return True
    return n.attrs.get("role") in ("button", "link", "tab", "menuitem") or "onclick" in n.attrs


def _selector(n: Node) -> str:
    if n.testid:
        return css_attr("data-testid", n.testid)
    if n.attrs.get("id"):
        return "#" + css_ident(n.attrs["id"])
    if n.tag in ("input", "select", "textarea") and n.attrs.get("name"):
        return n.css_tag + css_attr("name", n.attrs["name"])
    if n.tag == "a" and n.attrs.get("href") and not n.attrs["href"].startswith("javascript:"):
        return "a" + css_attr("href", n.attrs["href"])
    if n.tag in ("input", "button") and n.attrs.get("type") in ("submit", "button") and n.attrs.get("value"):
        own = n.css_tag + css_attr("type", n.attrs["type"]) + css_attr("value", n.attrs["value"])
        form = next((a for a in n.ancestors() if a.tag == "form"), None)
        if form is not None and (form.attrs.get("name") or form.attrs.get("id")):
            key = "id" if form.attrs.get("id") else "name"
            return "form" + css_attr(key, form.attrs[key]) + " " + own  # the same button in another form
        return own
    if n.attrs.get("aria-label"):
        return n.css_tag + css_attr("aria-label", n.attrs["aria-label"])
    if n.tag in ("input", "textarea") and n.attrs.get("placeholder"):
        return n.css_tag + css_attr("placeholder", n.attrs["placeholder"])
    if n.attrs.get("aria-placeholder"):
        return css_attr("aria-placeholder", n.attrs["aria-placeholder"])
    if n.tag == "input" and n.attrs.get("type") not in (None, "text"):
        form = next((a for a in n.ancestors() if a.tag in ("form", "dialog")), None)
        own = "input" + css_attr("type", n.attrs["type"])
        return (_selector(form) + " " + own) if form is not None and (form.attrs.get("id") or form.tag == "dialog") else own
    text = n.text
    if (n.tag == "button" or n.attrs.get("role") in ("button", "link", "tab", "menuitem")) and 0 < len(text) <= 60:
        return f"{n.signature} >> text={text}"  # role + accessible name, as Playwright's locators find it
    if n.tag in ("input", "textarea", "select") and n.signature == n.tag:
        # a control with no name of its own (a code editor's input box): the widget it lives in
        # names it, so that it is not the page's first control of its kind
        widget = next((a for a in n.ancestors() if a.attrs.get("id") or _readable_class(a)), None)
        if widget is not None and widget.tag not in ("body", "html", "form"):
            return ("#" + css_ident(widget.attrs["id"]) if widget.attrs.get("id") else "." + css_ident(_readable_class(widget) or "")) + " " + n.css_tag
    return n.signature


def _form_selector(form: Node) -> str | None:
    """A selector of one ``<form>``: its id, its ``action``, else its readable class; None for none."""
    if form.attrs.get("id"):
        return "#" + css_ident(form.attrs["id"])
    if form.attrs.get("action"):
        return "form" + css_attr("action", form.attrs["action"])
    cls = next((c for c in form.classes if not is_hashed_class(c)), None)
    return "form." + css_ident(cls) if cls else None


def _replaced(n: Node) -> Node | None:
    """For an unnamed control inside a widget: the named control of the same tag the widget
    replaced (progressive enhancement hides the original and inserts the widget right after it:
    a code editor over a ``textarea``, a searchable drop-down over a ``select``)."""
    for w in n.ancestors():
        if w.parent is None or w.tag in ("form", "body"):
            return None
        sibs = w.parent.children
        i = sibs.index(w)
        prev = sibs[i - 1] if i > 0 else None
        if prev is not None and prev.tag == n.tag and (prev.attrs.get("name") or prev.attrs.get("id")):
            return prev
    return None


def _label_of(n: Node, scope: Node) -> str:
    """The text of a control's ``<label>``: the one around it, or the one ``for`` its id."""
    around = next((a for a in n.ancestors() if a.tag == "label"), None)
    if around is None and n.attrs.get("id"):
        around = scope.find(lambda x: x.tag == "label" and x.attrs.get("for") == n.attrs["id"])
    return " ".join(around.text.split()) if around is not None else ""


_FIELD_LABELS = ("label", "legend", "h1", "h2", "h3", "h4", "h5", "h6")


def field_label(n: Node) -> str | None:
    """The label of the field an editable element (a rich-text or code editor, no ``<label>`` of its
    own) belongs to: the text its ``aria-labelledby`` names, else the nearest ``<label>``,
    ``<legend>`` or heading before it within its field's wrappers (Draftail's body under its panel's
    heading "Body"); None when it has none a person would call it by (over 40 characters)."""
    root = n
    while root.parent is not None:
        root = root.parent
    ids = n.attrs.get("aria-labelledby", "").split()
    named = [root.find(lambda x, i=i: x.attrs.get("id") == i) for i in ids]
    text = " ".join(" ".join(x.text.split()) for x in named if x is not None).strip()
    if text:
        return text if len(text) <= 40 else None
    inside = {id(x) for x in n.iter()}
    for depth, wrap in enumerate(n.ancestors()):
        if depth >= 12 or wrap.tag in ("form", "body", "main", "html"):
            break
        by = [root.find(lambda x, i=i: x.attrs.get("id") == i) for i in wrap.attrs.get("aria-labelledby", "").split()]
        text = " ".join(" ".join(x.text.split()) for x in by if x is not None).strip()
        if text and len(text) <= 40:
            return text  # a panel labelled by its heading (``<section aria-labelledby=...>``)
        last: str | None = None
        for x in wrap.iter():
            if x is n:
                break
            words = " ".join(x.text.split())
            if x.tag in _FIELD_LABELS and id(x) not in inside and words and len(words) <= 40:
                last = words
        if last:
            return last
    return None


def _name_for(n: Node) -> str:
    for cand in (n.testid, n.attrs.get("id"), n.attrs.get("name"), n.attrs.get("aria-label"), n.attrs.get("placeholder")):
        if cand:
            return camel(cand)
    # (a submit button is no control a widget replaces: ``<input type=submit value="Yes">`` after
    # a form's hidden inputs is named by its value below, not after them)
    orig = _replaced(n) if n.tag in ("input", "textarea", "select") and _is_control(n) else None
    if orig is not None:
        return camel(orig.attrs.get("name") or orig.attrs["id"])
    if _is_control(n) and n.tag not in ("select",):
        if n.attrs.get("aria-placeholder"):
            # "…enter a BQL query. 'help' to ..." -> query: the last word of the first phrase
            words = re.findall(r"[A-Za-z]+", re.split(r"[.;:!?'(]", n.attrs["aria-placeholder"])[0])
            return camel(words[-1]) if words else "text"
        if n.attrs.get("type") in ("date", "email", "number", "time", "datetime-local", "url", "tel"):
            return camel(n.attrs["type"])
        if n.tag not in ("input", "textarea"):
            # an editor is named by its field, never by the text it holds
            return camel(field_label(n) or "text")
    text = n.text[:30]
    if not text and n.tag == "input" and n.attrs.get("type") in ("submit", "button"):
        return camel(n.attrs.get("value", "")[:30] or "submit") + "Button"
    base = camel(text) if text else n.tag
    return base + {"a": "Link", "button": "Button"}.get(n.tag, "")


def _kind(n: Node) -> str:
    if n.tag not in ("input", "select", "textarea") and _is_control(n):
        return "input"
    if n.tag == "a":
        return "link"
    if n.tag == "input":
        t = n.attrs.get("type", "text").lower()
        if t in ("radio", "checkbox"):
            return t
        if t in ("submit", "button"):
            return "button"
        return "input"
    if n.tag in ("select", "textarea", "button"):
        return n.tag
    return "button"


def _group_noun(n: Node) -> str:
    """A name for a repeated element without a readable class: its role, or what its tag is for."""
    role = n.attrs.get("role")
    if role:
        return role
    return {"li": "item", "tr": "row", "p": "line", "span": "part", "div": "block", "a": "link", "td": "cell"}.get(n.tag, n.tag)


def _modal_name(n: Node) -> str:
    head = n.find(lambda x: x.tag in ("h1", "h2", "h3", "h4", "legend"))
    title = n.attrs.get("aria-label") or (" ".join(head.text.split()[:2]) if head is not None and not n.testid and not n.attrs.get("id") else "")
    base = camel(n.testid or n.attrs.get("id") or title or "dialog")
    return state_value(base if "modal" in base.lower() else base + "Modal")  # a dialog state value


def _modal_of(n: Node, modals: dict[int, str]) -> str | None:
    for a in n.ancestors():
        if id(a) in modals:
            return modals[id(a)]
    return None


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _card_props(members: list[Node]) -> tuple[dict[str, Prop], dict[str, str]]:
    """Properties and actions shared by a group's members."""
    attr_values: dict[str, list[str]] = defaultdict(list)
    text_values: dict[str, list[str]] = defaultdict(list)
    actions: dict[str, str] = {}
    for m in members:
        for k, v in m.data().items():
            attr_values[k].append(v)
        for d in m.iter():
            if d is m:
                continue
            if d.testid and _is_actionable(d):
                actions[camel(d.testid)] = css_attr("data-testid", d.testid)
            elif d.testid and d.text and not any(_is_actionable(c) for c in d.iter()):
                text_values[d.testid].append(d.text)
    props: dict[str, Prop] = {}
    for k, vals in attr_values.items():
        if k in ("data-options",) or len(vals) < len(members) * 0.5:
            continue
        props[camel(k)] = Prop(camel(k), "attr", k, _type_of(vals))
    for tid in text_values:
        name = camel(tid)
        if name in props:
            name += "Text"
        props[name] = Prop(name, "text", css_attr("data-testid", tid), "string")
    if not props:
        # a card with a heading of its own (a table's name over its columns and row count) is
        # called by that heading; its whole text stays readable beside it
        heads = [m.find(lambda x, m=m: x is not m and x.tag in _HEADINGS and bool(x.text)) for m in members]
        tags = {h.tag for h in heads if h is not None}
        if len(tags) == 1 and all(h is not None for h in heads) and len({h.text for h in heads if h is not None}) == len(members):
            props["name"] = Prop("name", "text", next(iter(tags)), "string")
        props["text"] = Prop("text", "self", "", "string")
    return props, actions


def _name_prop(props: dict[str, Prop]) -> str | None:
    if "name" in props:
        return "name"
    named = [p for p in props if p.lower().endswith("name")]
    attr_named = [p for p in named if props[p].source == "attr"]
    if attr_named:
        return sorted(attr_named, key=len)[0]
    if named:
        return sorted(named, key=len)[0]
    texts = [p for p, v in props.items() if v.type == "string"]
    return texts[0] if texts else None



_CHROME_TAGS = {"nav", "header", "footer", "aside"}
_GENERIC_CLASSES = {"list", "table", "data", "grid", "form", "striped", "condensed", "bordered", "hover", "responsive", "listing"}
_LAYOUT_WORDS = {"full", "nice", "padding", "margin", "wrapper", "wrap", "container", "inner", "outer", "content", "layout",
                 "clearfix", "row", "col", "dialog", "body", "box", "block", "section", "panel", "main", "flex", "grid",
                 "listing", "dropdown", "popup", "popover", "tooltip", "overlay", "modal", "hidden", "visible", "auto"}
_UTILITY_CLASS = re.compile(r"[a-z]{1,3}-(\d+|full|auto|screen|px|none)", re.I)


def is_layout_class(c: str) -> bool:
    """A class that says how a box is laid out (``w-full``, ``nice-padding``, ``w-dialog``, ``p-4``),
    not what it holds: no name for a list."""
    if _UTILITY_CLASS.fullmatch(c):
        return True
    words = [w for w in re.split(r"[-_]+", c.lower()) if w]
    return bool(words) and all(w in _LAYOUT_WORDS or len(w) <= 1 for w in words)


def _concealed(n: Node) -> bool:
    """Shown to nobody as the page arrives: ``hidden``, ``aria-hidden=true`` or an inline
    ``display: none`` / ``visibility: hidden`` on it or an ancestor (a date picker's calendar)."""
    for a in (n, *n.ancestors()):
        if "hidden" in a.attrs or a.attrs.get("aria-hidden") == "true":
            return True
        if re.search(r"(display\s*:\s*none|visibility\s*:\s*hidden)", a.attrs.get("style", ""), re.I):
            return True
    return False


def _heading_before(n: Node, depth: int = 4) -> str | None:
    """What names the box ``n``: within its ``depth`` nearest ancestors, the ``aria-label`` of one,
    or the last heading (``h1``-``h4``, a ``caption``, a ``legend``; or one inside a ``header``)
    among the children of one before the child holding ``n`` (a sibling section's own heading is
    not one); None when none is short."""
    child = n
    for i, wrap in enumerate(n.ancestors()):
        if i >= depth or wrap.tag in ("body", "html"):
            break
        label = " ".join(wrap.attrs.get("aria-label", "").split())
        if label and len(label) <= 40:
            return label
        last: str | None = None
        for c in wrap.children:
            if c is child:
                break
            head = c if c.tag in _HEADS else (c.find(lambda x: x.tag in _HEADS) if c.tag == "header" else None)
            words = " ".join(head.text.split()) if head is not None else ""
            if words and len(words) <= 40:
                last = words
        if last:
            return last
        child = wrap
    return None


_HEADS = ("h1", "h2", "h3", "h4", "caption", "legend")
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary"}


def _is_chrome(n: Node) -> bool:
    """Inside site chrome (a ``nav``/``header``/``footer``/``aside`` landmark): the same on every page."""
    return any(a.tag in _CHROME_TAGS or a.attrs.get("role") in _CHROME_ROLES for a in (n, *n.ancestors()))


def _is_decoration(n: Node) -> bool:
    """Hidden from assistive technology or stripped of its role (``aria-hidden``, a ``div`` with
    ``role=presentation``: a code editor's line and measuring boxes); a layout table keeps its rows."""
    return n.attrs.get("aria-hidden") == "true" or (n.tag != "table" and n.attrs.get("role") in ("presentation", "none"))


def _is_skip_link(n: Node) -> bool:
    return n.tag == "a" and n.attrs.get("href", "").startswith("#") and "skip" in n.text.lower()


def _cells(tr: Node) -> list[Node]:
    return [c for c in tr.children if c.tag in ("td", "th")]


def _rows(table: Node) -> list[Node]:
    """The table's own rows (not a nested table's)."""
    out: list[Node] = []
    for c in table.children:
        if c.tag == "tr":
            out.append(c)
        elif c.tag in ("thead", "tbody", "tfoot"):
            out.extend(r for r in c.children if r.tag == "tr")
    return out


def _column_header(n: Node) -> str | None:
    """For a form control with an id in a table cell (an inline formset's ``#id_books-0-price``,
    labeled only by its column): the column's header text; None for anything else (a row's
    checkbox shared by every row has no id of its own)."""
    if not (_is_control(n) and n.attrs.get("id")):
        return None
    cell = next((a for a in n.ancestors() if a.tag in ("td", "th")), None)
    row = cell.parent if cell is not None else None
    table = next((a for a in row.ancestors() if a.tag == "table"), None) if row is not None and row.tag == "tr" else None
    if cell is None or row is None or table is None:
        return None
    head = next((r for r in _rows(table) if r is not row and _cells(r) and all(c.tag == "th" for c in _cells(r))), None)
    i = _cells(row).index(cell)
    if head is None or i >= len(_cells(head)):
        return None
    return _label(_cells(head)[i].text) or None


def _is_checkbox_cell(cell: Node) -> bool:
    """A cell holding only a checkbox (a row's select box, a header's select-all): no column of data."""
    boxes = cell.find_all(lambda x: x.tag == "input" and x.attrs.get("type") == "checkbox")
    return bool(boxes) and not cell.text.strip() and cell.find(lambda x: x.tag in ("a", "select", "textarea", "button")) is None \
        and all(x.attrs.get("type") == "checkbox" for x in cell.find_all(lambda x: x.tag == "input"))


def _is_data_row(tr: Node, in_thead: bool) -> bool:
    """A row of data: all ``td`` cells, or ``td`` cells beside a row header (``th scope=row``, or a
    ``th`` among ``td`` under a ``thead`` of column headers: the row's title, often its link). A
    ``th`` + ``td`` row of a table without column headers is a label and its value, not a row."""
    cells = [c for c in _cells(tr) if not _is_checkbox_cell(c)]
    if not cells or not any(c.tag == "td" for c in cells):
        return False
    ths = [c for c in cells if c.tag == "th"]
    return not ths or in_thead or all(c.attrs.get("scope") == "row" for c in ths)


def _is_menu(data: list[Node]) -> bool:
    """Rows headed by links to pages of different types (an admin's index: "Books", "Loans"): a
    menu set out as a table, whose links are the site's navigation, not items of one list."""
    heads = [c for r in data for c in _cells(r) if c.tag == "th"]
    hrefs = [a.attrs["href"] for c in heads for a in c.iter() if a.tag == "a" and a.attrs.get("href")]
    kinds = {page_name(h) for h in hrefs}
    return len(heads) >= 2 and len(kinds) >= 2 and not any("{" in k for k in kinds)


def _label(text: str) -> str:
    return text.strip().rstrip(":").strip()


_SORT_MARK = re.compile(r"[\s\u2190-\u21ff\u25b2-\u25c5\u2b06\u2b07]+$")
"""Arrows and triangles at the end of a column header: the sort order it shows."""


def _header_link(cell: Node) -> Node | None:
    """The link that names a column header (its sort link), beside any text-less sort widgets."""
    return next((a for a in cell.iter() if a.tag == "a" and "href" in a.attrs and a.text), None)


def _header_label(cell: Node) -> str:
    """A column header's name: its link's text when it has one (a sorted column adds a priority
    number and remove/toggle links beside it), else its text, without a sort arrow."""
    link = _header_link(cell)
    return _label(_SORT_MARK.sub("", (link if link is not None else cell).text))


_ASCENDING = re.compile(r"(^|[-_\s])(asc|ascending|sorted-asc)($|[-_\s])|[\u25b2\u2191\u2b06]", re.I)
_DESCENDING = re.compile(r"(^|[-_\s])(desc|descending|sorted-desc)($|[-_\s])|[\u25bc\u2193\u2b07]", re.I)


def _sort_state(cell: Node) -> str | None:
    """Which way a header cell says its column is sorted (``aria-sort``, an asc/desc class on it or
    inside it, an arrow in its text): ``ascending``, ``descending`` or None (``sortState`` in prelude.js)."""
    aria = cell.attrs.get("aria-sort", "")
    if aria in ("ascending", "descending"):
        return aria
    marks = " ".join([" ".join(c.attrs.get("class", "") for c in cell.iter()), cell.text])
    if _ASCENDING.search(marks):
        return "ascending"
    if _DESCENDING.search(marks):
        return "descending"
    return None


_GROUP_HEADS = {"h1", "h2", "h3", "h4", "h5", "h6", "summary", "legend", "caption", "dt", "label"}

PAGER_WORDS = re.compile(r"^(next|previous|prev|older|newer|more|load more|show more)\b|^[\u2039\u203a\u00ab\u00bb<>]+$", re.I)
"""The text of a link that moves a list along (``Next page``, ``Older``, ``\u00bb``): a pager, never a
filter link nor one of a group's choices (``__PAGER`` in nav.js)."""

_COUNT_HEAD = re.compile(r"^\d[\d,.]*(\s|$)")
"""A heading that starts with a number ("320 rows", "12 results") counts the list; it names no group."""


def _lead_strong(n: Node) -> Node | None:
    """A paragraph or box led by a bold text (``<p><strong>genre <span>7</span></strong> <a>x</a></p>``,
    a facet's title): the bold element, when it holds no link."""
    if n.tag not in ("p", "div", "span", "header"):
        return None
    first = next(iter(n.children), None)
    if first is None or first.tag not in ("strong", "b") or first.find(lambda x: x.tag == "a") or any(t.strip() for t in n.texts):
        return None
    return first


def _is_group_head(n: Node) -> bool:
    """A heading over a group of links: a heading tag, a summary or legend, ``role=heading``, a
    short text ending in a colon ("Genre:"), or a box led by a bold title (:func:`_lead_strong`)."""
    return n.tag in _GROUP_HEADS or n.attrs.get("role") == "heading" or _lead_strong(n) is not None or (
        n.tag not in ("a", "ul", "ol", "li") and 0 < len(n.text) <= 40 and n.text.endswith(":") and not n.find(lambda x: x.tag == "a"))


def _head_name(head: Node) -> str:
    """What a group head calls its group: its text (a lead bold title's alone, less a trailing
    count), empty for a count ("320 rows")."""
    lead = _lead_strong(head)
    text = re.sub(r"(\s+\d[\d,.]*)+$", "", lead.text) if lead is not None else head.text
    return "" if _COUNT_HEAD.match(text) else text


def _groups_with(a: Node, x: Node, url: str | None) -> bool:
    """``x`` is another same-page link that could share a group with ``a`` (no pager link does)."""
    return x.tag == "a" and x is not a and is_same_page_href(x.attrs.get("href", ""), url) and not PAGER_WORDS.match(x.text)


def is_same_page_href(href: str, url: str | None) -> bool:
    """``href`` only changes the query of ``url``'s page (``?genre=x``, ``/books?genre=x`` on
    ``/books``), and the page stays of its type (:func:`toolcache.pages.page_name`)."""
    if not href or href.startswith(("#", "javascript:")):
        return False
    full = urljoin(url or "", href)
    target = urlparse(full)
    here = urlparse(url or "")
    return (bool(target.query) or href.startswith("?")) and target.path == here.path and (not target.netloc or target.netloc == here.netloc) \
        and page_name(full) == page_name(url)  # a query that names another page (``?@template=search``) leaves it


def link_group(a: Node, url: str | None) -> str | None:
    """The name of the group a same-page link sits in: the nearest ancestor (up to five levels)
    holding another same-page link, named by its heading (a heading before it or first in it,
    outside the link's own branch; a count is no name), else its ``aria-label``, ``id`` or first readable
    class. A pager link (:data:`PAGER_WORDS`) is in no group and counts for none.
    ``__linkGroup`` in prelude.js is the same rule for the page the tool runs on."""
    if PAGER_WORDS.match(a.text):
        return None
    branch: Node = a
    for anc in list(a.ancestors())[:5]:
        if anc.tag in ("body", "form", "table", "tr"):
            return None
        if any(_groups_with(a, x, url) for x in anc.iter()):
            head = None
            for sib in anc.children[:anc.children.index(branch)]:
                if _is_group_head(sib):
                    head = sib
            if head is None and anc.parent is not None:
                sibs = anc.parent.children
                head = next((x for x in reversed(sibs[:sibs.index(anc)]) if _is_group_head(x)), None)
            name = (_head_name(head) if head is not None else "") or anc.attrs.get("aria-label") or anc.attrs.get("id") \
                or _readable_class(anc) or ""
            return _label(name) or None
        branch = anc
    return None


def _table_list(table: Node, page: str) -> Element | None:
    """A data table (a header row of ``th``, two or more rows of ``td``) as a list whose fields are the header cells."""
    rows = _rows(table)
    # a table with its own <thead> is data even with one column or one row (a query's result)
    thead = next((c for c in table.children if c.tag == "thead"), None)
    least = 1 if thead is not None else 2
    head = next((r for r in rows if len(_cells(r)) >= least and all(c.tag == "th" for c in _cells(r))), None)
    if head is None:
        return None
    in_thead = thead is not None and head.parent is thead
    data = [r for r in rows if r is not head and _is_data_row(r, in_thead)]
    data = [r for r in data if len(_cells(r)) == len(_cells(head))]
    # links in a header row make it a record's heading (a message list), unless the row is the
    # table's own <thead>: column headers that sort the table when clicked; a select-all box
    # heads a column of row checkboxes, not a form
    if _is_menu(data):
        return None
    if len(data) < least or any(c.find(lambda x: x.tag in ("form", "input") or (x.tag == "a" and not in_thead))
                                for c in _cells(head) if not _is_checkbox_cell(c)):
        return None
    # a sorted column's header carries an arrow ("id ▼") or a priority: the column is still "id"
    headers = [_header_label(c) for c in _cells(head)]
    props: dict[str, Prop] = {}
    linked: list[tuple[int, str]] = []
    col_of: dict[str, int] = {}
    for i, h in enumerate(headers):
        if not h:
            continue
        name = camel(h)
        vals = [_cells(r)[i].text for r in data if len(_cells(r)) > i]
        props[name] = Prop(name, "cell", h, _type_of(vals))  # by header text: columns move between views
        col_of.setdefault(name, i)
        if any(len(_cells(r)) > i and _cells(r)[i].find(lambda x: x.tag == "a" and "href" in x.attrs) for r in data):
            linked.append((i, name))
    if not props:
        return None
    link_col, link_sel = _title_link(data, linked)
    if thead is not None:
        # columns that change with what was asked (a query shell): every cell by its header, live
        props["cells"] = Prop("cells", "row", "", "object")
    href = next((a.attrs["href"] for r in data for a in r.iter() if a.tag == "a" and a.attrs.get("href")), None)
    caption = next((" ".join(c.text.split()) for c in table.children if c.tag == "caption" and c.text.strip()), "")
    own = caption or " ".join(table.attrs.get("aria-label", "").split()) or table.attrs.get("id") or next(
        (c for c in table.classes if c.lower() not in _GENERIC_CLASSES and not c.startswith("table-") and not is_layout_class(c)), "")
    if not own and any(c.lower() in _GENERIC_CLASSES or is_layout_class(c) for c in table.classes):
        own = _heading_before(table) or ""  # ``table.listing``: the heading it sits under names it ("Pages")
    noun = _one(own) if own else (page_name(href).replace("{id}", "").strip("_") if href else "")
    if not noun or noun == "home":
        noun = "row"
    tsig = ("#" + css_ident(table.attrs["id"])) if table.attrs.get("id") else table.signature
    el = Element(
        name=camel(noun), page=page, kind="card", selector=f"{tsig} tr:has(> td)", repeated=True, props=props,
        name_prop=link_col or _name_prop(props), visible_count=len(data), clickable=False,
        member_sig="tr", container_sig=tsig, link_selector=link_sel,
        sort_selector=f"{tsig} thead th a[href]" if in_thead and head.find(lambda x: x.tag == "a" and "href" in x.attrs) else None,
    )
    if el.sort_selector:
        el.sort_columns = [h for c, h in zip(_cells(head), headers, strict=True) if h and _header_link(c) is not None]
        el.sort_marks = any(_sort_state(c) for c in _cells(head))
    if el.name_prop:
        col = col_of.get(el.name_prop, 0)
        el.samples = [_cells(r)[col].text for r in data[:50] if len(_cells(r)) > col]
    return el


_ID_TEXT = re.compile(r"#?[A-Za-z]{0,4}[-#]?[0-9]+")
"""A cell text that is an item's number (``#3``, ``r12``, ``PROJ-7``), not its title."""


def _title_link(data: list[Node], linked: list[tuple[int, str]]) -> tuple[str | None, str | None]:
    """The column whose link names a row (its title) and the selector of that link in a row.

    The first linked column, unless its links read as numbers (``#3``) and a later linked column's
    do not: a ticket list links the row's own page from its number and from its summary, and a
    person names (and clicks) the summary. The first column's link is ``a[href]``; a later one is
    addressed by its cell's position (``:scope > :nth-child(k) a[href]``), the same in every row.
    """
    if not linked:
        return None, None

    def texts(i: int) -> list[str]:
        return [_cells(r)[i].text.strip() for r in data if len(_cells(r)) > i and _cells(r)[i].text.strip()]

    first_i, first = linked[0]
    if not all(_ID_TEXT.fullmatch(t) for t in texts(first_i)):
        return first, "a[href]"
    for i, name in linked[1:]:
        vals = texts(i)
        if not vals or all(_ID_TEXT.fullmatch(t) for t in vals):
            continue
        pos = {r.children.index(_cells(r)[i]) for r in data if len(_cells(r)) > i}
        if len(pos) == 1:
            return name, f":scope > :nth-child({pos.pop() + 1}) a[href]"
    return first, "a[href]"


_LABELED = re.compile(r"^([A-Za-z][\w .-]{0,30}):\s*(.*)$")


def _one(noun: str) -> str:
    """A class name for the collection as the name of one item: ``messages`` -> ``message``."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3 else noun


def _record_list(table: Node, page: str) -> Element | None:
    """Records of two rows each: a row of ``Label: value`` header cells, then one content cell
    (a message list: ``Author: dave | Date: ...`` over the text)."""
    rows = _rows(table)
    heads = []
    for a, b in zip(rows, rows[1:], strict=False):
        ac, bc = _cells(a), _cells(b)
        if ac and all(c.tag == "th" for c in ac) and len(bc) == 1 and bc[0].tag == "td" \
                and any(_LABELED.match(c.text) for c in ac):
            heads.append(a)
    if not heads:
        return None
    props: dict[str, Prop] = {}
    for c in _cells(heads[0]):
        m = _LABELED.match(c.text)
        if m:
            props[camel(m.group(1))] = Prop(camel(m.group(1)), "labeled", m.group(1))
    props["content"] = Prop("content", "next", "")
    own = table.attrs.get("id") or next((c for c in table.classes if c.lower() not in _GENERIC_CLASSES), "") or "record"
    tsig = ("#" + css_ident(table.attrs["id"])) if table.attrs.get("id") else table.signature
    return Element(
        name=camel(_one(own)), page=page, kind="card", selector=f"{tsig} tr:has(> th):has(+ tr > td)", repeated=True,
        props=props, name_prop="content", visible_count=len(heads), member_sig="tr", container_sig=tsig,
    )


_LIST_ROLES = {"navigation", "menu", "menubar", "tablist", "toolbar"}


def _link_items(ul: Node, url: str | None) -> list[Node] | None:
    """The items of a plain list of links (``<ul><li><a href>Title</a></li>...``, no class on the
    items): each ``li`` holds one link to another page, and nothing to fill; None for any other list
    (a menu, a pager, a row of filter links, a list whose items carry controls or several links)."""
    items = [c for c in ul.children if c.tag == "li"]
    if len(items) < 2 or len(items) != len([c for c in ul.children if c.tag not in ("script", "template")]):
        return None
    if ul.attrs.get("role") in _LIST_ROLES or _is_chrome(ul) or _is_decoration(ul):
        return None
    for li in items:
        if li.testid or li.classes or li.attrs.get("role"):
            return None
        links = li.find_all(lambda x: x.tag == "a" and "href" in x.attrs)
        if len(links) != 1 or li.find(lambda x: x.tag in ("input", "select", "textarea", "button", "ul", "ol")) is not None:
            return None
        href, text = links[0].attrs["href"], links[0].text
        if not text or text.isdigit() or PAGER_WORDS.match(text) or href.startswith(("#", "javascript:")) or is_same_page_href(href, url):
            return None
    return items


def _list_anchor(ul: Node) -> tuple[str, str] | None:
    """``(container, selector)`` of a plain list: the signature that names the list among a
    recorded click's ancestors (the labeler matches it there) and the CSS selector of its ``ul``:
    its own id or classes, else the nearest ancestor with a test id or an id, else the ``main``
    landmark; None when nothing tells this list from the page's other lists."""
    if ul.attrs.get("id"):
        return _selector(ul), _selector(ul)
    if _readable_class(ul):
        return ul.signature, ul.signature
    for a in ul.ancestors():
        if a.testid or a.attrs.get("id"):
            own = _selector(a)
            return own, own + " " + ul.css_tag
        if a.tag == "main":
            return "main", "main " + ul.css_tag
    return None


def _link_list(ul: Node, items: list[Node], page: str) -> Element | None:
    """A plain list of links as a list whose items are named by their link's text (and read whole)."""
    anchor = _list_anchor(ul)
    if anchor is None:
        return None
    container, selector = anchor
    # named after the path the links share (``/guide/alpha``, ``/guide/beta``: guide)
    paths = [[seg for seg in urlparse(urljoin("http://x/", a.attrs["href"])).path.split("/") if seg]
             for li in items for a in li.find_all(lambda x: x.tag == "a" and "href" in x.attrs)]
    shared = [segs[0] for segs in zip(*paths, strict=False) if len(set(segs)) == 1] if len(paths) > 1 else []
    words = [w for w in re.split(r"[^A-Za-z]+", shared[-1]) if w] if shared else []
    noun = _one(words[-1].lower()) if words else "link"
    props = {"name": Prop("name", "text", "a[href]", "string")}
    if any(li.text != li.find(lambda x: x.tag == "a").text for li in items):  # type: ignore[union-attr]
        props["text"] = Prop("text", "self", "", "string")  # the item says more than its title
    return Element(
        name=camel(noun), page=page, kind="card", selector=f"{selector} > li", repeated=True, props=props,
        name_prop="name", visible_count=len(items), clickable=True, member_sig="li",
        container_sig=container, link_selector="a[href]",
        samples=[li.text if "text" not in props else (li.find(lambda x: x.tag == "a") or li).text for li in items[:50]],
    )


def _pairs(scope: Node, skip: set[int]) -> tuple[dict[str, Prop], bool]:
    """Label/value pairs (``th`` + ``td`` cells of form-like tables, ``dt`` + ``dd``), and whether
    every value is a form control (an empty form to fill, not an item to read)."""
    out: dict[str, Prop] = {}
    controls = True
    for n in scope.iter():
        if id(n) in skip or _is_chrome(n):
            continue
        if n.tag == "tr":
            cells = _cells(n)
            for a, b in zip(cells, cells[1:], strict=False):
                if a.tag == "th" and b.tag == "td" and _label(a.text) and not b.find(lambda x: x.tag == "table"):
                    label = _label(a.text)
                    out.setdefault(camel(label), Prop(camel(label), "pair", label))
                    if b.find(lambda x: x.tag in ("input", "select", "textarea")) is None and b.text.strip():
                        controls = False  # a value shown as text: something to read
        elif n.tag == "dt" and _label(n.text):
            label = _label(n.text)
            out.setdefault(camel(label), Prop(camel(label), "pair", label))
            controls = False
    return out, controls


def extract_snapshot(html: str, url: str | None, known: set[str] | None = None, routes: Sequence[str] = ()) -> PageSchema:
    """The page schema of one snapshot; ``known`` signatures count as repeated even when alone;
    ``routes`` are the learned route templates that name pages (:func:`toolcache.pages.page_name`)."""
    root = parse_html(html)
    body = root.find(lambda n: n.tag == "body")
    page = page_key(body, url, routes)
    ps = PageSchema(page=page, snapshots=1)
    ps.url_patterns.add(url_pattern(url))
    if url:
        ps.urls.append(url)
    scope = body or root
    h1 = scope.find(lambda n: n.tag == "h1")
    if h1 is not None:
        ps.title_selector = _selector(h1) if h1.testid else "h1"

    modals: dict[int, str] = {}
    for n in scope.iter():
        if n.tag == "dialog" or n.attrs.get("role") == "dialog" or n.attrs.get("aria-modal") == "true":
            modals[id(n)] = _modal_name(n)
            ps.modals[_modal_name(n)] = _selector(n) if n.tag != "dialog" or n.testid or n.attrs.get("id") else "dialog"
            if n.tag == "dialog" and "open" not in n.attrs:
                continue  # a native <dialog> is shown only while it has the open attribute
            if "hidden" not in n.attrs and n.attrs.get("data-open") != "false":
                ps.open_modals.add(_modal_name(n))

    # -- data tables: lists whose fields are the header cells -----------------------------
    in_table: set[int] = set()
    table_lists: list[tuple[Element, Node]] = []
    for t in scope.find_all(lambda x: x.tag == "table"):
        if any(id(a) in in_table for a in t.ancestors()) or _is_chrome(t):
            continue
        if _concealed(t) and not _modal_of(t, modals):
            continue  # a widget's table nobody sees (a closed date picker's calendar) is no list
        tl = _table_list(t, page) or _record_list(t, page)
        if tl is not None:
            while tl.name in ps.elements:
                tl.name += "Row"
            ps.elements[tl.name] = tl
            table_lists.append((tl, t))
            in_table |= {id(d) for d in t.iter()}

    # -- repeated groups -------------------------------------------------------------
    by_parent: dict[str, set[int]] = defaultdict(set)
    members_of: dict[str, list[Node]] = defaultdict(list)
    for n in scope.iter():
        if not (n.testid or n.classes) or n.tag in ("script", "style", "br") or id(n) in in_table:
            continue
        if not n.testid and any(a.tag in ("pre", "code") or _is_decoration(a) for a in n.ancestors()):
            continue  # preformatted text's highlighting spans, a widget's own machinery: not a list
        if not n.testid and (_is_chrome(n) or n.tag in ("tr", "td", "th")):
            continue  # site chrome (sidebar blocks, header boxes) is not a list, nor are a form's table cells
        members_of[n.signature].append(n)
    # variants of one kind of row (``li.transaction.cleared`` beside ``li.transaction.pending``) are one group
    variants: dict[tuple[int, str], set[str]] = defaultdict(set)
    for sig, nodes in members_of.items():
        for n in nodes:
            lead = n.classes[0] if n.classes and not n.testid and not is_hashed_class(n.classes[0]) else None
            if lead is not None and n.parent is not None and n.find(_is_control) is None:  # rows of a form stay apart
                variants[(id(n.parent), signature(n.tag, None, (lead,)))].add(sig)
    for (_pid, base_sig), sigs in variants.items():
        if len(sigs) < 2 or (base_sig in members_of and base_sig not in sigs) or sum(len(members_of.get(sg, [])) for sg in sigs) < 3:
            continue
        merged = [n for sg in sorted(sigs) for n in members_of.pop(sg, [])]
        if merged:
            members_of[base_sig] = merged
    for sig, nodes in members_of.items():
        counts = Counter(id(n.parent) for n in nodes)
        if "[data-testid" not in sig and len(nodes) < 4 and all(_is_actionable(n) for n in nodes):
            continue  # a few buttons or links side by side (a toolbar) are controls, not a list
        held = [c for c in (n.find(_is_control) for n in nodes) if c is not None]
        if "[data-testid" not in sig and held and len({_accessible_name(c) for c in held}) > 1:
            continue  # form controls (or their wrappers) told apart by name (Time, Account, Payee) are fields, not a list
        if "[data-testid" not in sig and not any(n.text or n.data() or n.find(_is_actionable) for n in nodes):
            continue  # empty boxes (an editor's measuring divs, spacers) show nothing to list
        if all(_concealed(n) for n in nodes) and not _modal_of(nodes[0], modals):  # (a closed dialog's opens)
            continue  # a widget's parts nobody sees as the page arrives
        if counts and (max(counts.values()) >= 2 or sig in (known or set())):
            by_parent[sig] = {id(n) for n in nodes}
    candidates = dict(by_parent)
    member_sig: dict[int, str] = {nid: sig for sig, ids in candidates.items() for nid in ids}
    # a candidate without a test id inside another candidate is markup, not a group
    for sig in list(candidates):
        nodes = members_of[sig]
        inside = sum(1 for n in nodes if any(id(a) in member_sig and member_sig[id(a)] != sig for a in n.ancestors()))
        if "[data-testid" not in sig and inside >= 0.9 * len(nodes):
            del candidates[sig]  # (a header cell or two outside the rows do not make the cells a list)
    member_sig = {nid: sig for sig, ids in candidates.items() for nid in ids}
    containers: dict[str, str] = {}  # inner sig -> container sig
    for sig in candidates:
        for n in members_of[sig]:
            outer = next((member_sig[id(a)] for a in n.ancestors() if id(a) in member_sig), None)
            if outer is not None and outer != sig:
                containers[sig] = outer
                break
    groups = [s for s in candidates if s not in containers.values()]
    for sig in groups:
        nodes = members_of[sig]
        outer_sig = containers.get(sig)
        if outer_sig is not None and outer_sig not in containers.values():
            continue
        if outer_sig is not None and sig in containers and containers[sig] in groups:
            continue  # a part of another card
        first = nodes[0]
        props, actions = _card_props(nodes)
        modal = _modal_of(first, modals)
        own = next((c for c in first.classes if not is_hashed_class(c) and not is_layout_class(c)), None)
        laid_out = own is None and _readable_class(first) is not None  # named by layout classes only (``w-full``)
        heading = _heading_before(first) if laid_out else None
        base = camel(first.testid) if first.testid else camel(own or (heading and _one(heading)) or _group_noun(first))
        name = f"{modal}.{base}" if modal else base
        el = Element(
            name=name, page=page, kind="card", selector=sig, repeated=True, modal=modal, props=props,
            name_prop=_name_prop(props), visible_count=len(nodes), actions=actions,
            clickable=any(_is_actionable(n) for n in nodes) or first.tag == "label",
        )
        if outer_sig is not None:
            outer_nodes = members_of[outer_sig]
            gp: Prop | None = None
            data = outer_nodes[0].data()
            if data:
                k = next(iter(data))
                gp = Prop(camel(k), "attr", k, "string")
            else:
                head = outer_nodes[0].find(lambda x: x.tag in ("h2", "h3", "h4", "legend"))
                if head is not None:
                    gp = Prop("group", "text", head.tag, "string")
            if gp is not None:
                el.group_prop, el.group_selector = gp, outer_sig
                for o in outer_nodes:
                    label = o.attrs.get(gp.key, "") if gp.source == "attr" else (o.find(lambda x, k=gp.key: x.tag == k) or o).text
                    el.visible_counts[label] = sum(1 for d in o.iter() if id(d) in candidates.get(sig, set()))
        if el.name_prop:
            np_ = props[el.name_prop]
            for n in nodes[:50]:
                val = n.attrs.get(np_.key) if np_.source == "attr" else (n.text if np_.source == "self" else None)
                if val is None and np_.source == "text":
                    sub = n.find(lambda x, k=np_.key: (x.testid is not None and css_attr("data-testid", x.testid) == k)
                                 or (k in _HEADINGS and x.tag == k))
                    val = sub.text if sub is not None else None
                if val and val not in el.samples:
                    el.samples.append(val)
        ps.elements[name] = el

    in_group = {nid for sig in groups for nid in candidates.get(sig, set())} | in_table

    # -- plain lists of links (no class to group them by) ---------------------------------
    for ul in scope.find_all(lambda x: x.tag in ("ul", "ol")):
        if id(ul) in in_group or any(id(a) in in_group for a in ul.ancestors()) or _modal_of(ul, modals):
            continue
        items = _link_items(ul, url)
        ll = _link_list(ul, items, page) if items else None
        if ll is None or any(e.repeated and e.selector == ll.selector for e in ps.elements.values()):
            continue
        while ll.name in ps.elements:
            ll.name += "Item"
        ps.elements[ll.name] = ll
        in_group |= {id(d) for d in ul.iter()}

    def inside_card(n: Node) -> bool:
        return id(n) in in_group or any(id(a) in in_group for a in n.ancestors())

    # -- singular actionable elements --------------------------------------------------
    shared_names = Counter((n.tag, n.attrs.get("name")) for n in scope.iter() if n.tag in ("input", "select", "textarea") and n.attrs.get("name"))
    for n in scope.iter():
        header = _column_header(n) if inside_card(n) else None
        if not _is_actionable(n) or (inside_card(n) and header is None) or _is_skip_link(n):
            continue
        modal = _modal_of(n, modals)
        kind = _kind(n)
        form = next((a for a in n.ancestors() if a.tag == "form"), None)
        if kind == "radio":
            group = n.attrs.get("name") or "choice"
            name = camel(group)
            name = f"{modal}.{name}" if modal else name
            found = ps.elements.get(name)
            if found is None:
                found = Element(name=name, page=page, kind="radio", selector="input" + css_attr("type", "radio") + css_attr("name", group), modal=modal,
                                input_name=group, input_type="radio")
                ps.elements[name] = found
            val = n.attrs.get("value", "")
            if (val or "value" in n.attrs) and val not in found.options:
                found.options.append(val)
                found.option_labels.append(_label_of(n, scope))  # one per option, "" for none
            found.form = _selector(form) if form is not None else None
            continue
        base = _name_for(n)
        name = f"{modal}.{base}" if modal else base
        own = _selector(n)
        if form is not None and own == n.css_tag + css_attr("name", n.attrs.get("name", "")) and shared_names[(n.tag, n.attrs.get("name"))] > 1:
            # two controls of one name (a sidebar's search and the page's own, both ``q``): each in its form
            fsel = _form_selector(form)
            if fsel:
                own = f"{fsel} {own}"
        if modal and not own.startswith(("[data-testid", "#")) and not own.startswith(ps.modals[modal]):
            own = f"{ps.modals[modal]} {own}"  # the dialog's own control, not the page's one with the same name
        el = Element(name=name, page=page, kind=kind, selector=own, modal=modal, text=(header or n.text)[:80], chrome=_is_chrome(n),
                     input_name=n.attrs.get("name"), input_type=n.attrs.get("type"), clickable=True,
                     form=_selector(form) if form is not None else None)
        if n.tag == "a" and is_same_page_href(n.attrs.get("href", ""), url) and n.text and not n.text.isdigit():
            el.link_group = link_group(n, url)
            if el.link_group is not None:
                texts = ps.link_groups.setdefault(el.link_group, [])
                if n.text not in texts:
                    texts.append(n.text)
        if n.tag == "select":
            el.options = [o.attrs.get("value", o.text) for o in n.iter() if o.tag == "option"]
            el.option_labels = [o.text for o in n.iter() if o.tag == "option" and "disabled" not in o.attrs]
            el.option_label_of = {o.attrs.get("value", o.text): o.text for o in n.iter() if o.tag == "option" and "disabled" not in o.attrs}
        alt = camel(n.attrs.get("aria-label") or n.attrs.get("placeholder") or "")
        if name in ps.elements and ps.elements[name].selector != el.selector and alt and alt not in ps.elements and not modal:
            name = el.name = alt  # a second control of one name (a page's own ``q`` beside the sidebar's): by its label
        if name in ps.elements and ps.elements[name].selector != el.selector and not (body is not None and body.attrs.get("data-page")):
            i = 2
            while f"{name}{i}" in ps.elements:
                i += 1
            name = el.name = f"{name}{i}"
        ps.elements.setdefault(name, el)

    # -- fields -------------------------------------------------------------------------
    for n in scope.iter():
        if not n.testid or inside_card(n) or _is_actionable(n) or n.tag in ("script", "form", "ul", "table", "nav", "header"):
            continue
        if any(_is_actionable(d) for d in n.iter()):
            continue
        modal = _modal_of(n, modals)
        prefix = f"{modal}." if modal else ""
        if id(n) in modals:
            continue
        has_testid_child = any(d.testid for d in n.iter() if d is not n)
        data = n.data()
        if len(data) >= 3 and has_testid_child:
            for k, v in data.items():
                fname = prefix + camel(k)
                ps.fields.setdefault(fname, Prop(fname, "attr", f"{css_attr('data-testid', n.testid)}|{k}", _type_of([v])))
            continue
        if has_testid_child:
            continue
        fname = prefix + camel(n.testid)
        if "data-value" in n.attrs:
            ps.fields.setdefault(fname, Prop(fname, "value", css_attr("data-testid", n.testid), _type_of([n.attrs["data-value"]])))
        elif n.text or modal:
            ps.fields.setdefault(fname, Prop(fname, "text", css_attr("data-testid", n.testid), "string"))
    if body is None or not body.attrs.get("data-page"):
        pairs, controls = _pairs(scope, in_table)
        # one item's facts: an item page's form holds its values; elsewhere a form of controls is
        # something to fill (a search form, a new-item form, a list's display options), not to read
        if "{id}" in page or "{name}" in page or not (controls or table_lists):
            for fname, prop in pairs.items():
                ps.fields.setdefault(fname, prop)
    return ps


def _columns(el: Element) -> set[str]:
    return {p.key for p in el.props.values() if p.source == "cell"}


def merge_page(into: PageSchema, other: PageSchema) -> None:
    """Fold one snapshot's schema into the page's schema (union, max counts)."""
    into.snapshots += other.snapshots
    into.url_patterns |= other.url_patterns
    for u in other.urls:
        if u not in into.urls and len(into.urls) < 20:
            into.urls.append(u)
    into.modals.update(other.modals)
    into.title_selector = into.title_selector or other.title_selector
    for g, texts in other.link_groups.items():
        have_texts = into.link_groups.setdefault(g, [])
        if have_texts and set(have_texts) != set(texts):
            into.link_groups_vary.add(g)
        have_texts.extend(t for t in texts if t not in have_texts)
    into.link_groups_vary |= other.link_groups_vary
    for name, prop in other.fields.items():
        into.fields.setdefault(name, prop)
    for name, el in other.elements.items():
        if el.member_sig == "li":
            # one plain list of links, named by another snapshot's links (:func:`_link_list`): one
            # element, under the more telling of the two names (a shared path over "link")
            same = next((k for k, e in into.elements.items() if e.member_sig == "li" and e.selector == el.selector), None)
            if same is not None and same != name:
                if re.sub(r"(Item)+$", "", same.split(".")[-1]) == "link" and name not in into.elements:
                    into.elements[name] = into.elements.pop(same)
                    into.elements[name].name = name
                else:
                    name = same
        have = into.elements.get(name)
        if have is None:
            into.elements[name] = el
            continue
        have.visible_count = max(have.visible_count, el.visible_count)
        for k, v in el.visible_counts.items():
            have.visible_counts[k] = max(have.visible_counts.get(k, 0), v)
        if el.member_sig and have.member_sig and _columns(el) != _columns(have):
            have.columns_vary = True
        have.columns_vary = have.columns_vary or el.columns_vary
        for k, p in el.props.items():
            have.props.setdefault(k, p)
        others = [p for k, p in have.props.items() if k != "text"]
        if "text" in have.props and others and have.props["text"].source == "self" \
                and not all(p.source == "text" and p.key in _HEADINGS for p in others):
            del have.props["text"]  # a stand-in until another snapshot showed the card's fields (not its heading)
        have.name_prop = _name_prop(have.props) if have.name_prop not in have.props else have.name_prop
        have.actions.update(el.actions)
        have.sort_selector = have.sort_selector or el.sort_selector
        have.sort_columns.extend(c for c in el.sort_columns if c not in have.sort_columns)
        have.sort_marks = have.sort_marks or el.sort_marks
        have.link_group = have.link_group or el.link_group
        have.group_prop = have.group_prop or el.group_prop
        have.group_selector = have.group_selector or el.group_selector
        if el.options and have.options and set(el.options) != set(have.options):
            have.options_vary = True
        have.options_vary = have.options_vary or el.options_vary
        for o in el.options:
            if o not in have.options:
                have.options.append(o)
        for o in el.option_labels:
            if o not in have.option_labels:
                have.option_labels.append(o)
        for posted, shown in el.option_label_of.items():
            have.option_label_of.setdefault(posted, shown)
        for s in el.samples:
            if s not in have.samples and len(have.samples) < 100:
                have.samples.append(s)
