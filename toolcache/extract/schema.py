"""The schemas extraction makes: ``Prop``, ``Element``, ``PageSchema``, ``SiteSchema``; page keys and URL patterns."""


from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from ..dom import Node
from ..literal import js, state_value
from ..pages import VARIANT_MARK, page_name, page_variant
from ..variants import document_heading


@dataclass
class Prop:
    """A value visible on an element: a ``data-*`` attribute, a descendant's text, or ``data-value``."""

    name: str
    source: str  # attr | text | value | self | pair (beside a label) | cell (under a header) | labeled ("Key: v") | next (the next row)
    key: str  # attribute name, or a CSS selector relative to the element ("" for the element itself)
    type: str = "string"  # JSON type: string | number | boolean

    def js(self, var: str) -> str:
        """A JS expression reading this property from element ``var`` (text as shown, less text for
        screen readers only: ``__text`` in prelude.js)."""
        if self.source == "row":
            return f"__row({var})"
        if self.source == "pair":
            raw = f"__pair({js(self.key)})"
        elif self.source == "cell":
            raw = f"__cell({var}, {js(self.key)})"
        elif self.source == "labeled":
            raw = f"__labeled({var}, {js(self.key)})"
        elif self.source == "next":
            raw = f"(({var}.nextElementSibling) ? __text({var}.nextElementSibling) : null)"
        elif self.source == "attr":
            raw = f"{var}.getAttribute({js(self.key)})"
        elif self.source == "self":
            raw = f"__text({var})"
        else:
            sub = f"{var}.querySelector({js(self.key)})" if self.key else var
            if self.source == "value":
                raw = f"(({sub}) ? ({sub}).getAttribute('data-value') : null)"
            else:
                raw = f"(({sub}) ? __text({sub}) : null)"
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
