"""Codegen: deterministic synthesis of protocol-compliant tools from schemas and labeled steps.

Which tools, from what evidence:

============ ==================================================================
listItems    every repeated card group (``list_<cards>``), with a filter input
             for the grouping property; a grouping container (home-page
             sections) also gets its own list (``list_<groups>``)
gotoItem     a card group whose click opened another page (``goto_<card>(name)``)
getFields    every page with singular fields (``get_<page>_details``), and a
             modal opened by a card (``get_<card>_details(name)``: open, read,
             close)
gotoField    a singular link or button whose click opened another page
             (``goto_<page>``), or a dialog (``open_<dialog>``)
setFilter    an input filled and then submitted (Enter or its form's button)
             that changed the page (``search(query)``)
setFields    fields set and a button clicked that sent a state-changing request
             or posted a form (``<button>(...)``); when a card click opened the
             modal the fields live in, the card's name is an input too; a
             button inside a card that wrote (``<action>(name)``); rows of a
             list ticked by their checkboxes, then an action chosen and
             submitted (``<action>(rows)``, one tool per action)
observe      ``observe_page``: the page type, URL and title
============ ==================================================================

One builder per kind of tool (``_list_tools``, ``_card_click_tools``, ...,
``_observe_tool``) makes the tools of its kind; :func:`synthesize` runs them in
the order of ``_BUILDERS``, a later one reading the names, list tools and
dialog titles an earlier one made. Every tool body
starts with the in-page helpers of :mod:`toolcache.js` (``page.js``,
``prelude.js``).

Each tool gets ``pre`` / ``post`` from the page types seen before and after,
``pre_check`` / ``post_check`` from ``<body data-page>`` (or the URL) and
element presence, ``effect`` WRITE when its evidence carried a non-GET
request, and JSON schemas for its inputs and outputs. Every tool keeps the
trace steps it came from (``Synth.evidence``) so verify can replay them.

Bodies are fixed code plus literals: every value that came from the site, a
trace or a user (a selector, a label, a page name, a message naming them, an
input's name) enters through :func:`toolcache.literal.js` or
:func:`~toolcache.literal.prop`, never as text spliced into code, and the
page names in ``pre``/``post`` are state values (``tests/toolcache/test_injection.py``).
"""

from __future__ import annotations

import keyword
import logging
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

from agentjit.plan.sandbox import FORBIDDEN_NAMES, SAFE_BUILTINS
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime.network import TRACK_JS

from .dom import camel, parse_html, snake
from .extract import PAGER_WORDS, Element, Prop, SiteSchema
from .inputs import (
    checkbox_state,
    control_attrs,
    input_schema,
    is_multiple,
    radio_choices,
    setter_js,
    shows_js,
)
from .inputs import typed as typed_value
from .js import source
from .label import LabeledStep
from .literal import js, prop
from .pages import PAGE_JS, with_routes
from .redact import REDACTED
from .rows import is_row_check

__all__ = ["Synth", "synthesize", "PRELUDE", "plural", "singular"]

log = logging.getLogger(__name__)

PRELUDE = PAGE_JS + "\n" + f"const __net = {TRACK_JS};\n" + source("prelude.js")
"""The helpers every generated tool body starts with: ``page.js`` and ``prelude.js`` of :mod:`toolcache.js`."""


def plural(name: str) -> str:
    """``store_card`` -> ``stores``; ``menu_item`` -> ``menu_items``; ``category_chip`` -> ``categories``."""
    base = singular(name)
    if base.endswith("y") and not base.endswith(("ay", "ey", "oy", "uy")):
        return base[:-1] + "ies"
    if base.endswith(("s", "x", "ch", "sh")):
        return base + "es"
    return base + "s"


def singular(name: str) -> str:
    """Drop a widget word: ``store_card`` -> ``store``, ``category_chip`` -> ``category``."""
    base = snake(name.split(".")[-1])
    base = re.sub(r"_(card|chip|tile|row|entry|link|button|btn|item_card)$", "", base)
    return base or "item"


@dataclass
class Synth:
    """A synthesized tool and the evidence it came from."""

    manifest: ToolManifest
    kind: str
    """What made it: list, group_list, goto_card, card_details, fields, goto_link, filter, filter_links, page_number, sort, form, card_action, observe."""
    element: str | None = None
    evidence: list[LabeledStep] = field(default_factory=list)
    name_param: str | None = None
    """The input naming a card (for inputs taken from a list's output)."""
    source_list: str | None = None
    """The list tool whose items the name input comes from."""
    witness_args: list[dict[str, Any]] = field(default_factory=list)
    """Arguments seen in the traces, in order."""


def _href_or_query(sel: str) -> str:
    """``a[href="/x/"]`` -> also ``a[href^="/x/?"]``: the link with the query a filter added."""
    m = re.fullmatch(r'a\[href="([^"?#]+)"\]', sel)
    return f'{sel}, a[href^="{m.group(1)}?"]' if m else sel


def _shared_prefix(pages: list[str]) -> str:
    """The leading words every page name shares (``example_beancount_file`` of Fava's ledger slug),
    when there are two pages or more and each keeps a word of its own."""
    if len(pages) < 2:
        return ""
    words = [snake(p).split("_") for p in pages]
    n = 0
    while all(len(w) > n + 1 for w in words) and len({w[n] for w in words}) == 1:
        n += 1
    return "_".join(words[0][:n])


def _is_item_page(page: str | None) -> bool:
    """A page showing one item: its route has an id or a name in it (``issue{id}``, ``account_{name}``)."""
    return "{id}" in (page or "") or "{name}" in (page or "")


def _page_pattern(pages: set[str] | list[str]) -> str:
    return "|".join(sorted(pages))


def _page_test(pages: set[str] | list[str]) -> str:
    """A JS expression: ``true`` on one of ``pages``, else ``[false, why]`` (a check's answer)."""
    ps = sorted(pages)
    cond = " || ".join(f"__page() === {js(p)}" for p in ps)
    why = js(f"expected page {'/'.join(ps)}, on ")
    return f"({cond}) ? true : [false, {why} + __page()]"


def _page_check(pages: set[str] | list[str]) -> str:
    """A check body answering whether the browser is on one of ``pages``."""
    return f"return {_page_test(pages)};"


def _page_guard(pages: set[str] | list[str]) -> str:
    """The start of a check body that goes on only on one of ``pages`` (``ok`` holds the answer)."""
    return f"const ok = {_page_test(pages)};\nif (ok !== true) return ok;"


def _out_type(p: Prop) -> dict[str, Any]:
    return {"type": [p.type, "null"]}


def _item_expr(props: dict[str, Prop], var: str) -> str:
    return "({" + ", ".join(f"{js(snake(n))}: {p.js(var)}" for n, p in props.items()) + "})"


def _body(*parts: str) -> str:
    return PRELUDE.strip() + "\n" + "\n".join(p.strip() for p in parts if p)


_NAME_MAX = 64
"""The longest tool name (it is a file name in the cache, and a word in a prompt)."""


class _Namer:
    def __init__(self, strip: str = "") -> None:
        self.used: set[str] = set()
        self.strip = strip
        """A prefix every page name shares (a mount point or tenant slug): it tells no tool apart."""

    def __call__(self, name: str) -> str:
        name = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "tool"
        if self.strip and f"_{self.strip}_" in f"_{name}_":
            name = f"_{name}_".replace(f"_{self.strip}_", "_", 1).strip("_") or name
        name = name[:_NAME_MAX].rstrip("_")  # a site's long text makes no name a file system refuses
        if name[0].isdigit():
            name = "t_" + name
        if keyword.iskeyword(name) or name in FORBIDDEN_NAMES or name in SAFE_BUILTINS:
            name = "do_" + name  # a pager's "Next" is no `next` a plan may not call, nor a `sorted` it shadows
        out, i = name, 2
        while out in self.used:
            out, i = f"{name}_{i}", i + 1
        self.used.add(out)
        return out


def _cards_js(el: Element) -> str:
    return f"[...document.querySelectorAll({js(el.selector)})]"


def _name_of_js(el: Element) -> str:
    if el.member_sig and el.link_selector:
        # a table row is named by its link's text (its title cell), whatever the column is called:
        # one row markup serves lists whose title columns have other headers
        return f"(c) => __clean((c.querySelector({js(el.link_selector)}) || c).textContent)"
    prop = el.props.get(el.name_prop or "") if el.name_prop else None
    if prop is None:
        return "(c) => __clean(c.innerText || c.textContent)"
    return f"(c) => {prop.js('c')}"


@dataclass
class _Site:
    """What the builders read (the schema, the labeled steps, where each element shows) and what
    earlier builders leave for later ones (the tool names taken, the list tools, the dialogs' titles)."""

    schema: SiteSchema
    traces: dict[str, list[LabeledStep]]
    name: _Namer
    groups: dict[str, Element] = field(default_factory=dict)
    """Card group selector -> the element with the most properties seen for it."""
    group_pages: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Card group selector -> the pages it appears on."""
    single_pages: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Single element selector -> the pages it appears on."""
    list_tool: dict[str, str] = field(default_factory=dict)
    """Card group selector -> the list tool whose items name its cards."""
    dialog_titles: dict[str, str] = field(default_factory=dict)
    """Dialog -> what its opener is called ("Add Journal Entry"): the words that name the dialog's tools."""
    html_of: Callable[[LabeledStep], str | None] | None = None
    """A labeled step's snapshot (the page after it), when the build has the traces' snapshots."""

    @classmethod
    def index(cls, schema: SiteSchema, traces: dict[str, list[LabeledStep]]) -> _Site:
        site = cls(schema, traces, _Namer(_shared_prefix(list(schema.pages))))
        for page, ps in schema.pages.items():
            for el in ps.elements.values():
                if el.repeated and not el.modal:
                    site.group_pages[el.selector].add(page)
                    have = site.groups.get(el.selector)
                    if have is None or len(el.props) > len(have.props) or (el.group_prop and not have.group_prop):
                        if have is not None and have.group_prop and not el.group_prop:
                            el.group_prop, el.group_selector = have.group_prop, have.group_selector
                        site.groups[el.selector] = el
                elif not el.repeated:
                    site.single_pages[el.selector].add(page)
        return site

    @property
    def steps(self) -> list[LabeledStep]:
        return [s for ss in self.traces.values() for s in ss]

    @cached_property
    def sequences(self) -> _Sequences:
        return _Sequences.scan(self.traces)


@dataclass
class _Sequences:
    """The step sequences that make filters, card actions and forms, in trace order."""

    forms: dict[tuple[str, str], list[list[LabeledStep]]] = field(default_factory=lambda: defaultdict(list))
    """(page or "", submit selector) -> the sequences of settings ending in that submit."""
    filters: dict[str, list[tuple[LabeledStep, LabeledStep]]] = field(default_factory=lambda: defaultdict(list))
    """Input selector -> (the fill, the step that submitted it)."""
    card_actions: dict[tuple[str, str], list[LabeledStep]] = field(default_factory=lambda: defaultdict(list))
    """(card group selector, action) -> the clicks of that action's button that wrote."""
    bulk: dict[tuple[str, ...], list[list[LabeledStep]]] = field(default_factory=lambda: defaultdict(list))
    """(page, submit selector, the choices made) -> the sequences of row checks (and those choices)
    ending in a submit that wrote."""

    @classmethod
    def scan(cls, traces: dict[str, list[LabeledStep]]) -> _Sequences:
        seqs = cls()
        forms, filters, card_actions = seqs.forms, seqs.filters, seqs.card_actions
        for ss in traces.values():
            pending: list[LabeledStep] = []
            opener: LabeledStep | None = None
            for s in ss:
                el = s.element
                if s.step.action == "goto" or not s.step.ok:
                    pending, opener = [], None
                    continue
                if el is None:
                    continue
                if is_row_check(s.step, el) and not s.writes:
                    pending.append(s)  # a row picked for an action on several rows (a tick that writes is a row's own action)
                    continue
                if el.repeated and s.action and s.writes:
                    card_actions[(el.selector, s.action)].append(s)
                    pending = []
                    continue
                if el.repeated and not el.modal and s.modal_after - s.modal_before:
                    opener, pending = s, []
                    continue
                if s.step.action in ("fill", "select") or el.kind in ("radio", "checkbox") or (el.repeated and el.modal):
                    pending.append(s)
                    continue
                if s.step.action == "press" and el.kind == "input" and (s.page_after != s.page_before or _query_changed(s)):
                    # (the fill that typed the value, the Enter that submitted it)
                    typed = [p for p in pending if p.element is el and p.step.action == "fill"]
                    filters[el.selector].append((typed[-1] if typed else s, s))
                    pending = []
                    continue
                if el.kind == "button" and s.step.action == "click":
                    filled = [p for p in pending if p.element and p.element.kind == "input" and p.step.action == "fill"]
                    if s.page_after == "search" and filled and not s.writes:
                        filters[filled[-1].element.selector].append((filled[-1], s))  # type: ignore[union-attr]
                    elif s.writes and any(is_row_check(p.step, p.element) for p in pending):
                        # one tool per action chosen: each leads to its own page (a confirmation, the list)
                        chosen = tuple(str(p.step.value) for p in pending if p.step.action == "select")
                        seqs.bulk[(s.page_before or "", el.selector, *chosen)].append(pending + [s])
                    elif s.writes:
                        seq = ([opener] if opener and el.modal else []) + pending + [s]
                        # a form that posts a document is one tool per page (the same button edits and creates)
                        fkey = (s.page_before or "", el.selector) if _posts_document(s) else ("", el.selector)
                        forms[fkey].append(seq)
                    elif pending and s.page_after and (s.page_after != s.page_before or _query_changed(s)):
                        picked = [p for p in pending if not is_row_check(p.step, p.element)]
                        forms[(s.page_before or "", el.selector)].append(picked + [s])  # a query form (GET)
                    pending = []
                    if s.modal_before - s.modal_after:
                        opener = None
                    continue
                if s.page_after != s.page_before:
                    pending, opener = [], None
        return seqs



# -- listItems -------------------------------------------------------------------------------


def _list_tools(site: _Site) -> list[Synth]:
    """``list_<cards>`` for every card group, and ``list_<groups>`` for a grouping container."""
    out: list[Synth] = []
    for sel, el in site.groups.items():
        pages = site.group_pages[sel]
        props = {k: v for k, v in el.props.items()}
        tname = site.name("list_" + plural(el.name))
        filt = ""
        inputs: dict[str, Any] = {}
        if el.group_prop is not None and el.group_selector:
            gp = el.group_prop
            pname = snake(gp.name)
            inputs[pname] = {"type": "string", "description": f"Only cards shown in this {pname} (where the page groups them)."}
            gsel = js(el.group_selector)
            filt = (
                f"if ({prop('inputs', pname)}) {{\n"
                f"  const groups = [...document.querySelectorAll({gsel})];\n"
                f"  const g = __find(groups, (x) => {gp.js('x') if gp.source == 'attr' else '__clean((x.querySelector(' + js(gp.key) + ') || x).textContent)'}, {prop('inputs', pname)});\n"
                f"  if (!g) throw new Error({js(f'no {pname} ')} + JSON.stringify({prop('inputs', pname)}));\n"
                f"  cards = cards.filter((c) => g.contains(c));\n}}"
            )
        key = el.props.get(el.name_prop or "")
        # (a row without the name column, in a list sharing its markup with others, is its own key)
        dedupe = f"const seen = new Set(); cards = cards.filter((c) => {{ const k = {'(' + key.js('c') + ') || c.outerHTML' if key else 'c.outerHTML'}; if (seen.has(k)) return false; seen.add(k); return true; }});"
        # what a page shows instead of an empty list ("0 records")
        empty_sel = "[data-testid*=empty],[data-testid*=no-results],[class*=no-results],[class*=zero-results],[class*=empty-state]"
        manifest = ToolManifest(
            name=tname,
            description=f"List the {plural(el.name).replace('_', ' ')} shown on the {'/'.join(sorted(pages))} page, with {', '.join(snake(p) for p in props)}.",
            type=ToolType.LIST_ITEMS,
            input_schema={"type": "object", "properties": inputs},
            output_schema={
                "type": "object",
                "properties": {"items": {"type": "array", "items": {
                    "type": "object", "properties": {snake(n): _out_type(p) for n, p in props.items()}}}},
                "required": ["items"],
            },
            pre={"page": _page_pattern(pages)},
            post={},
            pre_check=_body(
                _page_guard(pages),
                f"if (document.querySelector({js(el.selector)})) return true;",
                f"const empty = [...document.querySelectorAll({js(empty_sel)})].find(__visible);",
                f"return empty ? true : [false, {js(f'no {singular(el.name)} cards yet')}];",
            ),
            execute=_body(
                f"let cards = {_cards_js(el)};",
                filt,
                dedupe,
                f"return {{items: cards.map((c) => {_item_expr(props, 'c')})}};",
            ),
            effect=Effect.READ,
            elements=[f"{p}.{el.name}" for p in sorted(pages)],
            timeout_ms=5000,
        )
        out.append(Synth(manifest, "list", element=el.name))
        site.list_tool[sel] = tname
        if el.group_prop is not None and el.group_selector:
            gp = el.group_prop
            gname = site.name("list_" + plural(snake(gp.name)))
            gpages = {p for p in pages if any(
                e.selector == sel and e.group_prop for e in site.schema.pages[p].elements.values())}
            gpages = gpages or pages
            value = gp.js("g") if gp.source == "attr" else f"__clean((g.querySelector({js(gp.key)}) || g).textContent)"
            out.append(Synth(ToolManifest(
                name=gname,
                description=f"List the {plural(snake(gp.name))} the {'/'.join(sorted(gpages))} page groups its {plural(el.name).replace('_', ' ')} into, with how many each shows.",
                type=ToolType.LIST_ITEMS,
                output_schema={"type": "object", "properties": {"items": {"type": "array", "items": {
                    "type": "object", "properties": {"name": {"type": "string"}, "count": {"type": "integer"}}}}},
                    "required": ["items"]},
                pre={"page": _page_pattern(gpages)},
                pre_check=_body(_page_check(gpages)),
                execute=_body(
                    f"const groups = [...document.querySelectorAll({js(el.group_selector)})];",
                    f"return {{items: groups.map((g) => ({{name: {value}, count: g.querySelectorAll({js(el.selector)}).length}}))}};",
                ),
                elements=[f"{p}.{el.name}" for p in sorted(gpages)],
                timeout_ms=5000,
            ), "group_list", element=el.name))

    return out


# -- card clicks: gotoItem / modal details ---------------------------------------------------


@dataclass
class _CardClicks:
    """The clicks on one card group, and what the tools made from them share."""

    sel: str
    el: Element
    clicks: list[LabeledStep]
    pages: set[str]
    pname: str
    """The input naming the card."""
    param: dict[str, Any]
    find: str
    """JS finding the card named by the input (``card``), or throwing."""
    witnesses: list[dict[str, Any]]


def _card_click_tools(site: _Site) -> list[Synth]:
    """A card group's clicks: ``goto_<card>(name)`` when one opened a page, ``get_<card>_details(name)`` when one opened a modal."""
    out: list[Synth] = []
    by_group_clicks: dict[str, list[LabeledStep]] = defaultdict(list)
    for s in site.steps:
        if s.element is not None and s.element.repeated and not s.element.modal and s.action is None and s.step.action == "click" and s.step.ok:
            by_group_clicks[s.element.selector].append(s)
    for sel, clicks in by_group_clicks.items():
        maybe = site.groups.get(sel) or clicks[0].element
        assert maybe is not None
        el = maybe
        pages = site.group_pages.get(sel) or {c.page_before for c in clicks if c.page_before}
        to_pages = {c.page_after for c in clicks if c.page_after and (c.page_after != c.page_before or _opened_another(c))}
        modals = {m for c in clicks for m in c.modal_after - c.modal_before}
        pname = snake(el.name_prop or "name")
        numeric = el.name_prop in el.props and el.props[el.name_prop].type == "number"  # a row's id column
        param = {"type": ["number", "string"] if numeric else "string", "minLength": 1,
                 "description": f"The {singular(el.name).replace('_', ' ')}'s {pname.replace('_', ' ')} (from {site.list_tool.get(sel, 'the list')})."}
        find = (
            f"const cards = {_cards_js(el)};\n"
            f"const card = __find(cards, {_name_of_js(el)}, {prop('inputs', pname)});\n"
            f"if (!card) throw new Error({js(f'no {singular(el.name)} matches ')} + JSON.stringify({prop('inputs', pname)}) + '; have: ' + cards.slice(0, 20).map({_name_of_js(el)}).join(', '));"
        )
        witnesses = [{pname: c.card_name} for c in clicks if c.card_name]
        group = _CardClicks(sel, el, clicks, pages, pname, param, find, witnesses)
        if len(to_pages) == 1:
            out.append(_goto_card(site, group, next(iter(to_pages))))
        for target in sorted(to_pages) if len(to_pages) > 1 else ():
            # one markup for the rows of several lists (an admin's change lists): each list's rows
            # open their own item page, one tool per target, from the pages whose clicks opened it
            these = [c for c in clicks if c.page_after == target]
            from_pages = {c.page_before for c in these if c.page_before}
            sub = _CardClicks(sel, el, these, from_pages, pname, param, find, [{pname: c.card_name} for c in these if c.card_name])
            out.append(_goto_card(site, sub, target, name=re.sub(r"_?\{(id|name)\}", "", target)))
        if modals:
            out.append(_card_details(site, group, sorted(modals)[0]))
    return out


def _opened_another(c: LabeledStep) -> bool:
    """A click on an item of a plain list of links (an index of pages) that opened another page of
    the same type (one wiki page's index opening another wiki page): a goto, like a new page type."""
    if c.element is None or c.element.member_sig != "li" or not c.step.url or not c.step.url_after:
        return False
    return urlparse(c.step.url).path != urlparse(c.step.url_after).path


def _goto_card(site: _Site, group: _CardClicks, target: str, name: str | None = None) -> Synth:
    """``goto_<card>(name)``: click the named card; it opens ``target`` (``goto_<name>`` when given)."""
    sel, el, clicks, pages, pname, param, find, witnesses = (
        group.sel, group.el, group.clicks, group.pages, group.pname, group.param, group.find, group.witnesses)
    # the page opened must name the item asked for: its title, a heading, or a field holding the
    # name (an edit form's title box) — a page of the right type showing another row fails
    tps = site.schema.pages.get(target)
    title = tps.title_selector if tps else None
    heads = ", ".join(dict.fromkeys([title or "h1", "h1", "h2"]))
    post_check = _page_guard({target}) + "\n" + (
        f"const want = __norm((output && {prop('output', pname)}) || {prop('inputs', pname)});\n"
        f"const shown = [document.title, ...[...document.querySelectorAll({js(heads)})].map((h) => h.textContent),\n"
        "  ...[...document.querySelectorAll('input:not([type=hidden]), textarea')].map((i) => i.value)];\n"
        f"return !want || shown.some((t) => __norm(t).includes(want)) ? true : [false, 'the page opened does not name ' + JSON.stringify({prop('inputs', pname)})];"
    )
    m = ToolManifest(
        name=site.name("goto_" + snake(name or singular(el.name))),
        description=f"Open the {target} page of a {singular(el.name).replace('_', ' ')} by clicking its card on the {'/'.join(sorted(pages))} page.",
        type=ToolType.GOTO_ITEM,
        input_schema={"type": "object", "properties": {pname: param}, "required": [pname]},
        output_schema={"type": "object", "properties": {pname: {"type": param["type"]}}},
        pre={"page": _page_pattern(pages)},
        post={"page": target},
        pre_check=_body(_page_check(pages)),
        execute=_body(
            find, f"const value = ({_name_of_js(el)})(card);",
            f"const target = card.querySelector({js(el.link_selector)}) || card;" if el.link_selector
            # the demonstrations clicked a link inside the card (a heading's link): a click on the box goes nowhere
            else "const target = card.matches('a[href]') ? card : (card.querySelector('a[href]') || card);"
            if clicks and all(c.step.target is not None and c.step.target.tag == "a" for c in clicks) else "const target = card;",
            "setTimeout(() => target.click(), 0);", f"return {{{js(pname)}: value}};"),
        post_check=_body(post_check),
        effect=Effect.READ,
        elements=[f"{p}.{el.name}" for p in sorted(pages)],
        navigates=True,
    )
    return Synth(m, "goto_card", element=el.name, evidence=clicks, name_param=pname,
                 source_list=site.list_tool.get(sel), witness_args=witnesses)


def _card_details(site: _Site, group: _CardClicks, modal: str) -> Synth:
    """``get_<card>_details(name)``: open the named card's ``modal``, read it, close it."""
    sel, el, clicks, pages, pname, param, find, witnesses = (
        group.sel, group.el, group.clicks, group.pages, group.pname, group.param, group.find, group.witnesses)
    page = sorted(pages)[0]
    ps = site.schema.pages[page]
    msel = ps.modals.get(modal, "[role=dialog]")
    fields = {k.split(".", 1)[1]: p for k, p in ps.fields.items() if k.startswith(modal + ".")}
    choice = next((e for e in ps.elements.values() if e.modal == modal and e.repeated), None)
    close = next((e for e in ps.elements.values() if e.modal == modal and not e.repeated and e.kind == "button" and "close" in e.name.lower()), None)
    fields_js = ", ".join(f"{js(snake(n))}: {p.js('modal')}" for n, p in fields.items() if p.source != "attr")
    opts_js = ""
    out_props: dict[str, Any] = {snake(n): _out_type(p) for n, p in fields.items() if p.source != "attr"}
    if choice is not None:
        cprop = choice.props.get(choice.name_prop or "")
        group_sel = "fieldset"
        opts_js = (
            f"const choiceEls = [...modal.querySelectorAll({js(choice.selector)})];\n"
            "const groupsOf = new Map();\n"
            "for (const c of choiceEls) { const g = c.closest(" + js(group_sel) + ") || modal;"
            " const gname = (g.dataset && (g.dataset.group || g.dataset.name)) || __clean((g.querySelector('legend') || {}).textContent) || 'options';"
            " if (!groupsOf.has(g)) groupsOf.set(g, {name: gname, choices: []});"
            f" groupsOf.get(g).choices.push({cprop.js('c') if cprop else '__clean(c.textContent)'}); }}\n"
            "result.options = [...groupsOf.values()];"
        )
        out_props["options"] = {"type": "array", "items": {"type": "object"}}
    m = ToolManifest(
        name=site.name("get_" + singular(el.name) + "_details"),
        description=f"Open a {singular(el.name).replace('_', ' ')}'s {modal} on the {page} page, read its details{' and choices' if choice else ''}, and close it again.",
        type=ToolType.GET_FIELDS,
        input_schema={"type": "object", "properties": {pname: param}, "required": [pname]},
        output_schema={"type": "object", "properties": {pname: {"type": "string"}, **out_props}},
        pre={"page": _page_pattern(pages)},
        post={},
        pre_check=_body(_page_check(pages)),
        execute=_body(
            find,
            f"const modal = document.querySelector({js(msel)});",
            "card.click();",
            "for (let i = 0; i < 100 && !__visible(modal); i++) await new Promise((r) => setTimeout(r, 20));",
            f"if (!__visible(modal)) throw new Error({js(f'the {modal} did not open')});",
            f"const result = {{{js(pname)}: ({_name_of_js(el)})(card)}};",
            f"Object.assign(result, {{{fields_js}}});",
            opts_js,
            f"const close = modal.querySelector({js(close.selector)});" if close else "const close = null;",
            "if (close) close.click();",
            "return result;",
        ),
        post_check=_body(f"const modal = document.querySelector({js(msel)});", "return !__visible(modal) ? true : [false, 'the dialog is still open'];") if close else "return true;",
        effect=Effect.READ,
        elements=[f"{page}.{el.name}", *([f"{page}.{close.name}"] if close else [])],
    )
    return Synth(m, "card_details", element=el.name, evidence=clicks, name_param=pname,
                 source_list=site.list_tool.get(sel), witness_args=witnesses)


# -- getFields per page ----------------------------------------------------------------------


def _page_field_tools(site: _Site) -> list[Synth]:
    """``get_<page>_details`` (or ``get_<item>`` on an item's page) for every page with singular fields."""
    out: list[Synth] = []
    for page, ps in sorted(site.schema.pages.items()):
        fields = {k: p for k, p in ps.fields.items() if "." not in k and not k.lower().endswith(("toast", "error", "empty", "heading"))}
        if not fields:
            continue
        parts = []
        for fname, p in fields.items():
            if p.source == "attr" and "|" in p.key:
                sel, attr = p.key.split("|", 1)
                expr = Prop(fname, "attr", attr, p.type).js(f"document.querySelector({js(sel)})")
                parts.append(f"{js(snake(fname))}: (document.querySelector({js(sel)}) ? {expr} : null)")
            else:
                parts.append(f"{js(snake(fname))}: {p.js('document')}")
        noun = re.sub(r"_?\{(id|name)\}", "", page).strip("_")
        out.append(Synth(ToolManifest(
            name=site.name(f"get_{snake(noun)}" if _is_item_page(page) and noun else f"get_{snake(page)}_details"),
            description=f"Read the facts shown on the {page} page: {', '.join(snake(f) for f in fields)}.",
            type=ToolType.GET_FIELDS,
            output_schema={"type": "object", "properties": {snake(f): _out_type(p) for f, p in fields.items()}},
            pre={"page": page},
            post={},
            pre_check=_body(_page_check({page})),
            execute=_body("return {" + ",\n  ".join(parts) + "};"),
            elements=[f"{page}.{f}" for f in fields],
            timeout_ms=5000,
        ), "fields"))

    return out


# -- singular links/buttons that navigate -----------------------------------------------------


def _link_tools(site: _Site) -> list[Synth]:
    """``goto_<page>`` for a singular link or button whose click opened another page."""
    out: list[Synth] = []
    nav: dict[str, list[LabeledStep]] = defaultdict(list)
    submits: set[int] = set()  # buttons that submitted what the step before filled: query forms, not links
    for ss in site.traces.values():
        for a, b in zip(ss, ss[1:], strict=False):
            if (a.step.action in ("fill", "select") or (a.element is not None and a.element.kind in ("radio", "checkbox"))) and b.element is not None and b.element.kind == "button" and b.element.form:
                submits.add(id(b))
    for s in site.steps:
        nel = s.element
        if nel is None or nel.repeated or s.step.action != "click" or not s.step.ok or s.writes or id(s) in submits:
            continue
        if s.page_after and s.page_after != s.page_before and nel.kind in ("link", "button"):
            if s.page_after == "search":
                continue  # a search submit: handled as a filter
            nav[s.page_after].append(s)
    groups_nav: list[tuple[str, str, list[LabeledStep]]] = []
    for target, clicks in sorted(nav.items()):
        texts = {(c.step.target.text or c.step.target.name or "") if c.step.target else "" for c in clicks}
        if f"goto_{snake(target)}" in site.name.used and all(texts):
            # several links to a page a card already opens: one tool per link, named by its text
            by_text: dict[str, list[LabeledStep]] = defaultdict(list)
            for c in clicks:
                by_text[snake((c.step.target.text or c.step.target.name or "") if c.step.target else "")].append(c)
            groups_nav.extend((target, t, cs) for t, cs in sorted(by_text.items()))
        else:
            groups_nav.append((target, f"goto_{snake(target)}", clicks))
    for target, tool_name, clicks in groups_nav:
        sels: list[str] = []
        for c in clicks:
            assert c.element is not None
            if c.element.selector not in sels:
                sels.append(c.element.selector)
        sels.sort(key=lambda s: -len(site.single_pages.get(s, set())))
        lpages: set[str] = set()
        for s_ in sels:
            lpages |= site.single_pages.get(s_, set())
        # a single-page app keeps its filters in its links (``/journal/?time=2025``): the same link
        sels = [_href_or_query(s_) for s_ in sels]
        relative = _item_relative_text(clicks)
        if relative is not None:
            # the current item's own link (its Delete, History): by its text on whatever item page
            # of the type the browser is on, never by the recorded item's href
            sels = [f"a[href] >> text={relative}"]
            lpages = {c.page_before for c in clicks if c.page_before}
        m = ToolManifest(
            name=site.name(tool_name),
            description=f"Go to the {target} page with the site's own link ({', '.join(sels)}).",
            type=ToolType.GOTO_FIELD,
            output_schema={"type": "object", "properties": {"page": {"type": "string"}}},
            pre={"page": _page_pattern(lpages)},
            post={"page": target},
            pre_check=_body(
                _page_guard(lpages) if relative is not None else "",
                f"const sels = {js(sels)};",
                f"return sels.some((s) => __q(s)) ? true : [false, {js(f'no link to {target} on ')} + __page()];",
            ),
            execute=_body(
                f"const sels = {js(sels)};",
                "const el = sels.map((s) => __q(s)).find(Boolean);",
                "setTimeout(() => el.click(), 0);",
                f"return {{page: {js(target)}}};",
            ),
            post_check=_body(_page_check({target})),
            elements=sorted({f"{c.page_before}.{c.element.name}" for c in clicks if c.element}),
            navigates=True,
        )
        out.append(Synth(m, "goto_link", evidence=clicks))

    out.extend(_pager_tools(site))
    return out


def _item_relative_text(clicks: list[LabeledStep]) -> str | None:
    """The text of a link that belongs to the item page it was clicked on, when every click was
    one: its ``href`` holds the item's own id or name (a path segment of the page's URL that its
    route does not name), or the link kept its text while its ``href`` changed from item to item."""
    texts: set[str] = set()
    hrefs: set[str] = set()
    own = True
    for c in clicks:
        t = c.step.target
        attrs = ((t.model_extra or {}).get("attributes") or {}) if t is not None else {}
        text = re.sub(r"\s+", " ", (t.text or t.name or "") if t is not None else "").strip()
        if not _is_item_page(c.page_before) or t is None or t.tag != "a" or not attrs.get("href") or not text:
            return None
        texts.add(text)
        href = urljoin(c.step.url or "", str(attrs["href"]))
        hrefs.add(href)
        words = set(re.split(r"[_{}]+", c.page_before or ""))
        data = [seg for seg in urlparse(c.step.url or "").path.split("/") if seg and snake(seg) not in words]
        there = urlparse(href).path.split("/")
        own = own and any(seg in there for seg in data)
    if len(texts) != 1:
        return None
    return next(iter(texts)) if own or len(hrefs) > 1 else None


def _click_link_js(navigates: bool) -> str:
    """Click ``link``: after the tool has answered when the click loads a new document (the runtime
    waits for it), else in place and wait for the page to settle."""
    return "setTimeout(() => link.click(), 0);" if navigates else "const before = location.href;\nlink.click();\nawait __settle(before);"


def _pager_tools(site: _Site) -> list[Synth]:
    """``next_page``: a link that moves a list along (the page type stays, the URL's query changes):
    followed again with another target, or named like a pager (``Next page``, ``rel=next``).
    Found by its text, since its ``href`` changes with every page."""
    out: list[Synth] = []
    moves: dict[str, list[LabeledStep]] = defaultdict(list)
    for s in site.steps:
        el, target = s.element, s.step.target
        if el is None or el.repeated or el.kind != "link" or s.step.action != "click" or not s.step.ok or s.writes or target is None:
            continue
        text = (target.text or target.name or "").strip()
        if text and s.page_before and s.page_after == s.page_before and _query_changed(s):
            moves[text].append(s)
    for text, clicks in sorted(moves.items()):
        hrefs = {((c.step.target.model_extra or {}).get("attributes") or {}).get("href") for c in clicks if c.step.target}
        rel = {((c.step.target.model_extra or {}).get("attributes") or {}).get("rel") for c in clicks if c.step.target}
        if len(hrefs) < 2 and not PAGER_WORDS.match(text) and not rel & {"next", "prev", "previous"}:
            continue  # one click on a link that changed the query: a facet or a sort, not a pager
        if not PAGER_WORDS.match(text) and (text.isdigit() or any(c.element is not None and c.element.link_group for c in clicks)):
            continue  # a page number or a filter link (followed from other filters): :mod:`toolcache.navlinks`
        pages = {c.page_before for c in clicks if c.page_before}
        sel = f"a >> text={text}"
        navigates = any(c.step.document for c in clicks)
        follow = _click_link_js(navigates)
        m = ToolManifest(
            name=site.name(snake(camel(text)) or "next_page"),
            description=f"Follow the page's own '{text}' link: the same {'/'.join(sorted(pages))} page, moved along "
                        f"(the list's next rows); fails where there is no such link (the last page).",
            type=ToolType.GOTO_FIELD,
            output_schema={"type": "object", "properties": {"page": {"type": "string"}}},
            pre={"page": _page_pattern(pages)},
            post={},
            pre_check=_body(_page_guard(pages), f"return __q({js(sel)}) ? true : [false, {js(f'no {text} link here')}];"),
            execute=_body(f"const link = __q({js(sel)});", follow, "return {page: __page()};"),
            post_check=_body(_page_check(pages)),
            elements=sorted({f"{c.page_before}.{c.element.name}" for c in clicks if c.element}),
            navigates=navigates,
        )
        out.append(Synth(m, "goto_link", evidence=clicks))
    return out


# -- singular links/buttons that open a dialog: the abstract state records it (``dialog``) --------


def _dialog_tools(site: _Site) -> list[Synth]:
    """``open_<dialog>`` for a singular control whose click opened a dialog; records the dialogs' titles."""
    out: list[Synth] = []
    openers: dict[tuple[str, str], list[LabeledStep]] = defaultdict(list)
    for s in site.steps:
        oel = s.element
        if oel is None or oel.repeated or oel.modal or s.step.action != "click" or not s.step.ok or s.writes:
            continue
        opened = sorted(s.modal_after - s.modal_before)
        if opened and s.page_after == s.page_before:
            openers[(opened[0], oel.selector)].append(s)
    for (modal, osel), clicks in sorted(openers.items()):
        opages = site.single_pages.get(osel) or {c.page_before for c in clicks if c.page_before}
        ops = site.schema.pages.get(sorted(opages)[0])
        msel = (ops.modals.get(modal) if ops else None) or "dialog, [role=dialog]"
        words = re.sub(r"Modal$", "", modal)
        called = next((c.step.target.name or c.step.target.text or "" for c in clicks if c.step.target), "").strip()
        if re.search(r"[A-Za-z]{2}", called) and len(called) <= 40:
            words = site.dialog_titles[modal] = called
        m = ToolManifest(
            name=site.name(f"open_{snake(camel(words))}"),
            description=f"Open the {snake(words).replace('_', ' ')} dialog (the site's own {osel} control); tools acting inside it need it open.",
            type=ToolType.GOTO_FIELD,
            output_schema={"type": "object", "properties": {"dialog": {"type": "string"}}},
            pre={"page": _page_pattern(opages), "dialog": ""},
            post={"dialog": modal},
            pre_check=_body(_page_guard(opages),
                            f"return __q({js(osel)}) ? true : [false, {js(f'no {words} control here')}];"),
            execute=_body(
                f"__q({js(osel)}).click();",
                f"const modal = () => document.querySelector({js(msel)});",
                "for (let i = 0; i < 150 && !(modal() && (modal().open || __visible(modal()))); i++) await new Promise((r) => setTimeout(r, 20));",
                "await __settle(null, 100, 3000);",
                f"return {{dialog: {js(modal)}}};",
            ),
            post_check=_body(
                f"const d = document.querySelector({js(msel)});",
                "return d && (d.open || (__visible(d) && d.tagName !== 'DIALOG')) ? true : [false, 'the dialog did not open'];",
            ),
            elements=sorted({f"{c.page_before}.{c.element.name}" for c in clicks if c.element}),
        )
        out.append(Synth(m, "open_dialog", element=clicks[0].element.name if clicks[0].element else None, evidence=clicks))

    return out


# -- filters and forms from step sequences ---------------------------------------------------


def _filter_tools(site: _Site) -> list[Synth]:
    """``search(query)`` / ``filter_by_<input>(value)``: an input filled and submitted that changed the page."""
    out: list[Synth] = []
    for sel, pairs in site.sequences.filters.items():
        inp_ = pairs[0][0].element
        assert inp_ is not None
        inp = inp_
        pages = site.single_pages.get(sel, {p.page_before for p, _ in pairs if p.page_before})
        target = pairs[0][1].page_after or "search"
        pname = "query"
        sent = pairs[0][1].element
        submit_sel = sent.selector if sent is not None and sent is not inp else None
        # a filter of a single-page app: Enter changes the URL's query, the page stays and redraws
        in_place = all(q.page_after == q.page_before and _redraws_in_place(q) for _, q in pairs)
        what = snake(inp.name.split(".")[-1])
        what = what.removeprefix("filter_by_")
        fname = "search" if "search" in (inp.name.lower() + target) else (f"filter_by_{what}" if in_place else f"set_{what}")
        if in_place:
            pname = what if what.isidentifier() and what not in ("query", "filter") else "value"
        param = _filter_param(pairs) if in_place else None
        m = ToolManifest(
            name=site.name(fname),
            description=(
                f"Filter what this page shows by {inp.name.split('.')[-1]} (the {inp.name.split('.')[-1]} box, then Enter);"
                " the page stays and shows only the matching entries; an empty value clears the filter."
                if in_place else f"Type a query into {inp.name} and submit it; opens the {target} page."
            ),
            type=ToolType.SET_FILTER,
            input_schema={"type": "object", "properties": {pname: {"type": "string", "minLength": 0 if in_place else 1}}, "required": [pname]},
            output_schema={"type": "object", "properties": {pname: {"type": "string"}}},
            pre={"page": _page_pattern(pages)},
            post={} if in_place else {"page": target},
            pre_check=_body(f"return __q({js(sel)}) ? true : [false, {js(f'no {inp.name} here')}];"),
            execute=_body(
                f"const input = __q({js(sel)});",
                f"__setValue(input, {prop('inputs', pname)});",
                "const before = location.href;",
                "input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', bubbles: true}));",
                *_until_filtered(param, pname),
                f"return {{{js(pname)}: {prop('inputs', pname)}}};",
            ) if in_place else _body(
                f"const input = __q({js(sel)});",
                f"__setValue(input, {prop('inputs', pname)});",
                f"const submit = {js(submit_sel)} && __q({js(submit_sel)});",
                "setTimeout(() => { if (input.form) input.form.requestSubmit(submit || undefined); else if (submit) submit.click();"
                " else input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})); }, 0);",
                f"return {{{js(pname)}: {prop('inputs', pname)}}};",
            ),
            post_check=_body(_page_guard(pages), _filtered_check(param, pname)) if in_place else _body(_page_check({target})),
            elements=[f"{p}.{inp.name}" for p in sorted(pages)],
            navigates=not in_place,
        )
        out.append(Synth(m, "filter", element=inp.name, evidence=[p for pair in pairs for p in pair],
                         witness_args=[{pname: p.step.value} for p, _ in pairs]))

    return out


def _filter_param(pairs: list[tuple[LabeledStep, LabeledStep]]) -> str | None:
    """The URL query parameter an in-place filter writes its value to: the one that held the typed
    value after every recorded use (Fava's ``?time=2025``), or None when the recordings disagree."""
    found: set[str] | None = None
    for typed, sent in pairs:
        value = str(typed.step.value or "")
        query = parse_qs(urlparse(sent.step.url_after or "").query, keep_blank_values=True)
        keys = {k for k, vs in query.items() if value and value in vs}
        found = keys if found is None else found & keys
    return min(found) if found else None


def _filter_param_js(param: str) -> str:
    return f"(new URL(location.href).searchParams.get({js(param)}) ?? '')"


def _until_filtered(param: str | None, pname: str) -> list[str]:
    """Execute's wait after Enter: for the URL to carry the value (the site redraws when its data is
    in, and may move the URL only then), then for the redraw to settle."""
    if param is None:
        return ["await __settle(before);"]
    return [
        f"for (const t0 = Date.now(); !__same({_filter_param_js(param)}, {prop('inputs', pname)}) && Date.now() - t0 < 10000;)",
        "  await new Promise((r) => setTimeout(r, 20));",
        "await __settle(null);",
    ]


def _filtered_check(param: str | None, pname: str) -> str:
    """The end of an in-place filter's post_check: the URL says the page shows what the value selects."""
    if param is None:
        return "return true;"
    got = _filter_param_js(param)
    return (f"return __same({got}, {prop('inputs', pname)}) ? true"
            f" : [false, {js(f'the page is filtered by {param}=')} + JSON.stringify({got}) + ', not ' + JSON.stringify({prop('inputs', pname)})];")


def _sort_tools(site: _Site) -> list[Synth]:
    """``sort_<rows>(column, direction?)``: a click on a list's column header link (the site sorts
    the table); ``direction`` when the headers show which way the table is sorted."""
    from .navlinks import NAV_JS

    out: list[Synth] = []
    clicks: dict[str, list[LabeledStep]] = defaultdict(list)
    for s in site.steps:
        if s.element is not None and s.element.sort_selector and s.action == "sort" and s.step.ok and not s.writes:
            clicks[s.element.selector].append(s)
    for sel, cs in sorted(clicks.items()):
        el = site.groups.get(sel) or cs[0].element
        assert el is not None and el.sort_selector
        pages = {c.page_before for c in cs if c.page_before}
        columns = el.sort_columns or [p.key for p in el.props.values() if p.source == "cell"]
        navigates = any(c.step.document for c in cs)
        links = js(el.sort_selector)
        click = _click_link_js(navigates)
        props: dict[str, Any] = {"column": (
            {"type": "string", "enum": columns} if columns and not el.columns_vary
            else {"type": "string", "description": f"A column header of the table shown (seen: {', '.join(columns[:12])})."})}
        find = (
            f"const links = [...document.querySelectorAll({links})].filter((a) => __clean(a.textContent));\n"
            "const link = __find(links, (a) => a.textContent, inputs.column);\n"
            "if (!link) throw new Error('no column ' + JSON.stringify(inputs.column) + '; have: ' + links.map((a) => __clean(a.textContent)).join(', '));"
        )
        turn = ""
        check = _page_check(pages)
        if el.sort_marks:
            props["direction"] = {"type": "string", "enum": ["ascending", "descending"],
                                  "description": "Which way to sort (left out: the site's own first order for the column)."}
            # the header link sorts one way and then toggles: when the order it gives is not the one
            # asked for, follow the same header's link on the page it leads to (read first, not shown)
            turn = (
                "let href = link.href;\n"
                # already sorted that way: the same page again (a navigating tool loads a document)
                "if (inputs.direction && __sortState(link.closest('th')) === inputs.direction) href = location.href;\n"
                "else if (inputs.direction) {\n"
                "  const res = await fetch(href, {credentials: 'same-origin'});\n"
                "  const doc = new DOMParser().parseFromString(await res.text(), 'text/html');\n"
                f"  const next = __find([...doc.querySelectorAll({links})].filter((a) => __clean(a.textContent)), (a) => a.textContent, inputs.column);\n"
                "  if (next && __sortState(next.closest('th')) && __sortState(next.closest('th')) !== inputs.direction) href = new URL(next.getAttribute('href'), res.url || href).href;\n"
                "}\n"
                "if (href !== link.href) { setTimeout(() => location.assign(href), 0); return {column: inputs.column, direction: inputs.direction ?? null}; }"
            )
            check = "\n".join([
                _page_guard(pages), find,
                "const state = __sortState(link.closest('th'));",
                "if (!state) return [false, 'the ' + inputs.column + ' column does not show it is sorted'];",
                "return !inputs.direction || state === inputs.direction ? true : [false, 'the ' + inputs.column + ' column is sorted ' + state];",
            ])
            if not navigates:  # in place: the first click sorts, a second toggles
                turn = ("const first = __sortState(link.closest('th'));\n"
                        "if (inputs.direction && first === inputs.direction) return {column: inputs.column, direction: inputs.direction};\n")
                click = ("const before = location.href;\nlink.click();\nawait __settle(before);\n"
                         f"const again = __find([...document.querySelectorAll({links})].filter((a) => __clean(a.textContent)), (a) => a.textContent, inputs.column);\n"
                         "if (inputs.direction && again && __sortState(again.closest('th')) !== inputs.direction) { const b2 = location.href; again.click(); await __settle(b2); }")
        m = ToolManifest(
            name=site.name("sort_" + plural(el.name)),
            description=f"Sort the {plural(el.name).replace('_', ' ')} by a column with its header link (the site's own "
                        "sort; a second call on the same column reverses the order"
                        + ("; or give the direction" if el.sort_marks else "") + "); the page stays.",
            type=ToolType.SET_FILTER,
            input_schema={"type": "object", "properties": props, "required": ["column"]},
            output_schema={"type": "object", "properties": {"column": {"type": "string"}, **({"direction": {"type": ["string", "null"]}} if el.sort_marks else {})}},
            pre={"page": _page_pattern(pages)},
            post={},
            pre_check=_body(_page_guard(pages), f"return document.querySelector({links}) ? true : [false, 'no column headers to sort by here'];"),
            execute=_body(NAV_JS if el.sort_marks else "", find, turn, click,
                          "return {column: inputs.column" + (", direction: inputs.direction ?? null" if el.sort_marks else "") + "};"),
            post_check=_body(NAV_JS if el.sort_marks else "", check),
            elements=[f"{p}.{el.name}" for p in sorted(pages)],
            navigates=navigates,
        )
        out.append(Synth(m, "sort", element=el.name, evidence=cs, witness_args=[{"column": _column_named(c.card_name, columns)} for c in cs]))
    return out


def _column_named(text: str | None, columns: list[str]) -> str | None:
    """The column a recorded header click named: the recorder keeps 200 characters of a link's
    text, so a longer header is the one column that starts with them."""
    want = re.sub(r"\s+", " ", text or "").strip()
    if want in columns or not want:
        return text
    # (a header styled in capitals is recorded as shown: "YEAR" for "Year")
    same = [c for c in columns if c.casefold() == want.casefold()]
    if len(same) == 1:
        return same[0]
    longer = [c for c in columns if re.sub(r"\s+", " ", c).casefold().startswith(want.casefold())]
    return longer[0] if len(longer) == 1 else text


def _card_action_tools(site: _Site) -> list[Synth]:
    """``<action>(name)``: a button inside a card whose click wrote."""
    out: list[Synth] = []
    for (sel, action), acts in site.sequences.card_actions.items():
        act_el = acts[0].element
        assert act_el is not None
        el = act_el
        cpages = site.group_pages.get(sel) or {a.page_before for a in acts if a.page_before}
        pname = snake(el.name_prop or "name")
        asel = el.actions[action]
        m = ToolManifest(
            name=site.name(snake(action) if not snake(action).startswith("goto") else snake(action) + "_action"),
            description=f"Click {action} on the {singular(el.name).replace('_', ' ')} with the given {pname.replace('_', ' ')} (a state-changing request), and wait for the site's answer.",
            type=ToolType.SET_FIELDS,
            input_schema={"type": "object", "properties": {pname: {"type": "string", "minLength": 1,
                          "description": f"from {site.list_tool.get(sel, 'the list')}"}}, "required": [pname]},
            output_schema={"type": "object", "properties": {"success": {"type": "boolean"}, "status": {"type": "integer"}, pname: {"type": "string"}}, "required": ["success"]},
            pre={"page": _page_pattern(cpages)},
            post={"page": _page_pattern(cpages)},
            pre_check=_body(_page_check(cpages)),
            execute=_body(
                f"const cards = {_cards_js(el)};",
                f"const card = __find(cards, {_name_of_js(el)}, {prop('inputs', pname)});",
                f"if (!card) throw new Error({js(f'no {singular(el.name)} matches ')} + JSON.stringify({prop('inputs', pname)}));",
                f"const btn = card.querySelector({js(asel)});",
                "const wait = __watchWrites();",
                "btn.click();",
                "const res = await wait(20000);",
                f"return {{success: !!res.ok, status: res.status || 0, {js(pname)}: ({_name_of_js(el)})(card)}};",
            ),
            post_check="return output && output.success === true ? true : [false, 'the site refused: status ' + (output && output.status)];",
            effect=Effect.WRITE,
            elements=[f"{p}.{el.name}" for p in sorted(cpages)],
        )
        out.append(Synth(m, "card_action", element=el.name, evidence=acts, name_param=pname,
                         source_list=site.list_tool.get(sel), witness_args=[{pname: a.card_name} for a in acts if a.card_name]))

    return out


def _row_selection_tools(site: _Site) -> list[Synth]:
    """``<action>(rows)``: rows of a list ticked by their checkboxes, then an action applied to them
    all (a choice of actions and a button, or a button alone) that wrote. The rows are an input,
    a list of the rows' names; each action chosen is a tool of its own, named after the choice
    (``delete_selected_books``), else after the button."""
    return [_row_selection_tool(site, seqs) for seqs in site.sequences.bulk.values()]


def _row_selection_tool(site: _Site, seqs: list[list[LabeledStep]]) -> Synth:
    submit = seqs[0][-1]
    sel = submit.element
    assert sel is not None
    checks = [p for seq in seqs for p in seq if is_row_check(p.step, p.element)]
    row = checks[0].element
    assert row is not None
    pages = {seq[-1].page_before for seq in seqs if seq[-1].page_before}
    after = {seq[-1].page_after for seq in seqs if seq[-1].page_after}
    target = sorted(after)[0] if after else sorted(pages)[0]
    navigates = any(_posts_document(seq[-1]) or seq[-1].page_after != seq[-1].page_before for seq in seqs)
    choices: dict[str, tuple[Element, Any]] = {}
    """Select selector -> the select and the label picked (the same in every sequence: see ``_Sequences.bulk``)."""
    for p in seqs[0][:-1]:
        if p.element is not None and p.element.kind == "select" and p.step.action == "select":
            choices[p.element.selector] = (p.element, _option_label(p.element, p.step.value))
    lister = site.list_tool.get(row.selector)
    noun = f"rows of the {lister} list" if lister else f"{plural(row.name).replace('_', ' ')}"
    key = snake(row.name_prop) if row.name_prop else "name"
    props: dict[str, Any] = {"rows": {
        "type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1},
        "description": f"The rows to act on, each by its {key} as {lister or 'the list'} gives it; each one's checkbox is ticked, every other one's cleared.",
    }}
    setters: list[str] = []
    witness: list[dict[str, Any]] = [{"rows": [p.card_name for p in seq if is_row_check(p.step, p.element)]} for seq in seqs]
    for el, picked in choices.values():
        want = js(str(picked))
        setters.append(
            f"{{ const sel = __q({js(el.selector)}); if (!sel) throw new Error({js(f'no {el.name} choice on this page')});"
            f" const o = [...sel.options].find((x) => __same(x.textContent, {want})) || [...sel.options].find((x) => x.value === String({want}));"
            f" if (!o) throw new Error('no choice ' + JSON.stringify({want})); __setValue(sel, o.value); }}"
        )
    labels = [str(picked) for _, picked in choices.values()]
    button = re.sub(r"_(button|btn|submit)$", "", snake(sel.name.split(".")[-1]))
    base = snake(labels[0]) if len(labels) == 1 else (button or f"act_on_{plural(row.name)}")
    name_of = _name_of_js(row)
    tick = (
        f"const listed = {_cards_js(row)};\n"
        f"const nameOf = {name_of};\n"
        "const picked = new Set();\n"
        "for (const want of inputs.rows) {\n"
        "  const r = listed.find((x) => __clean(nameOf(x)) === __clean(want)) || __find(listed, nameOf, want);\n"
        f"  if (!r) throw new Error({js(f'no {singular(row.name)} ')} + JSON.stringify(want) + '; have: ' + listed.map((x) => __clean(nameOf(x))).join(', '));\n"
        "  picked.add(r);\n}\n"
        "for (const r of listed) {\n"
        "  const box = r.querySelector('input[type=checkbox]');\n"
        "  if (!box) { if (picked.has(r)) throw new Error('no checkbox in the row ' + JSON.stringify(__clean(nameOf(r)))); continue; }\n"
        "  if (box.checked !== picked.has(r)) box.click();\n}"
    )
    click = f"const btn = __q({js(sel.selector)});\nif (!btn) throw new Error({js(f'no {base} button here')});"
    said = (
        "const said = [...document.querySelectorAll('[class*=warning], [class*=error], [role=alert]')]"
        ".filter((e) => __visible(e) && e.offsetParent !== null && __clean(e.textContent)).map((e) => __clean(e.textContent));"
    )
    if navigates:
        tail = "setTimeout(() => btn.click(), 0);\nreturn {success: true, status: 0, rows: [...picked].map((r) => __clean(nameOf(r)))};"
        post_check = _body(
            f"const ok = {_page_test({target})};", "if (ok !== true) return ok;", said,
            "if (said.length) return [false, 'the site said: ' + said.join('; ')];", "return true;")
    else:
        tail = ("const wait = __watchWrites();\nbtn.click();\nconst res = await wait(20000);\n"
                "return {success: !!res.ok, status: res.status || 0, rows: [...picked].map((r) => __clean(nameOf(r)))};")
        post_check = "return output && output.success === true ? true : [false, 'the site refused: status ' + (output && output.status)];"
    what = " / ".join(labels) if labels else f"click {sel.name.split('.')[-1]}"
    goes = f"; opens the {target} page" if target not in pages else ""
    m = ToolManifest(
        name=site.name(base),
        description=f"Tick the given {noun} and apply {what} to them all (a state-changing request){goes}.",
        type=ToolType.SET_FIELDS,
        input_schema={"type": "object", "properties": props, "required": ["rows"]},
        output_schema={"type": "object", "properties": {"success": {"type": "boolean"}, "status": {"type": "integer"},
                                                        "rows": {"type": "array", "items": {"type": "string"}}}, "required": ["success"]},
        pre={"page": _page_pattern(pages)},
        post={"page": target},
        pre_check=_body(
            _page_guard(pages),
            f"if (!document.querySelector({js(row.selector)})) return [false, {js(f'no {singular(row.name)} rows on this page')}];",
            f"return __q({js(sel.selector)}) ? true : [false, {js(f'no {base} button on this page')}];",
        ),
        execute=_body(tick, *setters, click, tail),
        post_check=post_check,
        effect=Effect.WRITE,
        elements=sorted({f"{p.page_before}.{p.element.name}" for seq in seqs for p in seq if p.element}),
        navigates=navigates,
    )
    return Synth(m, "form", element=sel.name, evidence=[p for seq in seqs for p in seq],
                 source_list=site.list_tool.get(row.selector), witness_args=witness)


def _form_tools(site: _Site) -> list[Synth]:
    """``<button>(...)``: fields set and a button clicked that wrote, posted a form or changed the page;
    beside a write whose text boxes came filled in (an edit form), ``get_<tool>_values``."""
    out: list[Synth] = []
    for seqs in site.sequences.forms.values():
        form = _form_tool(site, seqs)
        out.append(form)
        values = _form_values_tool(site, form, seqs)
        if values is not None:
            out.append(values)
    return out


def _form_values_tool(site: _Site, form: Synth, seqs: list[list[LabeledStep]]) -> Synth | None:
    """``get_<form tool>_values``: what the form's text boxes hold before it is changed, when the
    demonstrations found them filled in (a page's source in its edit form): a person edits that
    text, so a plan must read it before it writes the whole box back."""
    m = form.manifest
    if m.effect != Effect.WRITE or m.pre.get("dialog") or form.name_param:
        return None
    filled: dict[str, str] = {}
    for seq in seqs:
        for s in seq[:-1]:
            el, t = s.element, s.step.target
            if el is None or t is None or el.repeated or s.step.action != "fill" or el.kind not in ("input", "textarea"):
                continue
            attrs = (t.model_extra or {}).get("attributes") or {}
            before = attrs.get("value") if el.kind == "input" else t.text
            if not before or str(attrs.get("type", "text")).lower() not in ("text", "search", ""):
                continue
            base = el.input_name or el.name.split(".")[-1]
            pname = snake(re.sub(r"(?i)(input|field|box)$", "", base) or base)
            if pname in m.input_schema.get("properties", {}):
                filled.setdefault(pname, el.selector)
    if not filled:
        return None
    pages = m.pre.get("page", "")
    reads = ", ".join(f"{js(k)}: ((c) => c ? c.value : null)(__q({js(sel)}))" for k, sel in filled.items())
    vm = ToolManifest(
        name=site.name(f"get_{m.name}_values"),
        description=f"Read what the {m.name} form's text boxes ({', '.join(filled)}) hold now, on the {pages} page, before {m.name} changes them.",
        type=ToolType.GET_FIELDS,
        output_schema={"type": "object", "properties": {k: {"type": ["string", "null"]} for k in filled}},
        pre={"page": pages},
        post={},
        pre_check=m.pre_check,
        execute=_body(f"return {{{reads}}};"),
        effect=Effect.READ,
        elements=m.elements,
    )
    return Synth(vm, "fields", element=form.element)


def _observe_tool(site: _Site) -> list[Synth]:
    """``observe_page``: the page type, URL and title."""
    return [Synth(ToolManifest(
        name=site.name("observe_page"),
        description="Say which page the browser is on (page type, URL path, title).",
        type=ToolType.OBSERVE,
        output_schema={"type": "object", "properties": {"page": {"type": "string"}, "path": {"type": "string"}, "title": {"type": "string"}}, "required": ["page"]},
        execute=_body("return {page: __page(), path: location.pathname, title: document.title};"),
        timeout_ms=5000,
    ), "observe")]


def _nav_link_tools(site: _Site) -> list[Synth]:
    """Filter-link groups and numbered pages: :mod:`toolcache.navlinks` (which builds on this module)."""
    from .navlinks import filter_link_tools, page_number_tools

    return filter_link_tools(site) + page_number_tools(site)


def _route_goto_tools(site: _Site) -> list[Synth]:
    """Item pages a demonstration opened by their URL: :mod:`toolcache.route_goto`."""
    from .route_goto import route_goto_tools

    return route_goto_tools(site)


_BUILDERS: tuple[Callable[[_Site], list[Synth]], ...] = (
    _list_tools, _card_click_tools, _page_field_tools, _link_tools, _dialog_tools,
    _filter_tools, _sort_tools, _nav_link_tools, _route_goto_tools, _card_action_tools, _row_selection_tools, _form_tools, _observe_tool,
)
"""In this order: a later builder reads the names and list tools an earlier one made."""


def synthesize(schema: SiteSchema, traces: dict[str, list[LabeledStep]], routes: Sequence[str] = (),
               html_of: Callable[[LabeledStep], str | None] | None = None) -> list[Synth]:
    """All tools the schema and the labeled traces support, deterministic and named uniquely;
    their checks name pages with the learned ``routes`` too (:func:`toolcache.pages.page_name`).
    ``html_of`` gives a step's snapshot (the page after it): what a form's result page showed."""
    site = _Site.index(schema, traces)
    site.html_of = html_of
    out = [synth for build in _BUILDERS for synth in build(site)]
    if routes:
        for synth in out:
            m = synth.manifest
            synth.manifest = m.model_copy(update={
                k: with_routes(getattr(m, k), routes) for k in ("pre_check", "execute", "post_check") if getattr(m, k)})
    return out


def _query_changed(s: LabeledStep) -> bool:
    """The step changed the URL's query (a single-page app's filter) without leaving the page type."""
    before, after = urlparse(s.step.url or ""), urlparse(s.step.url_after or "")
    return bool(s.step.url_after) and before.path == after.path and before.query != after.query


def _redraws_in_place(s: LabeledStep) -> bool:
    """The step changed the URL's query and the page redrew itself (a single-page app); a step the
    recorder saw load a new document (a server-rendered form's GET) navigated instead."""
    return _query_changed(s) and s.step.document is not True


def _posts_document(s: LabeledStep) -> bool:
    """The step's write was a form post that loaded a new document (not a fetch from the page)."""
    return any(w.get("resource") == "document" for w in s.writes)


def _option_label(el: Element, value: Any) -> Any:
    """What a select's option is called (the tool's enum) for a recorded option value
    (``exact`` -> ``=``); a value that is already a label, or unknown, stays as it is."""
    if value in el.option_labels:
        return value
    if isinstance(value, str) and value in el.option_label_of:
        # by the page's own pairing: the labels leave disabled options out, and pages merged
        # into one element may list them in other orders
        return el.option_label_of[value]
    if value not in el.options:
        return value
    if len(el.options) == len(el.option_labels):
        return el.option_labels[el.options.index(value)]
    return value


def _radio_choice(el: Element, value: Any) -> Any:
    """What a radio group's input calls a recorded option value: its label when the group's
    input takes labels (:func:`toolcache.inputs.radio_choices`)."""
    if value in el.options and len(el.option_labels) == len(el.options) and radio_choices(el) == el.option_labels:
        return el.option_labels[el.options.index(value)]
    return value


_ROUTE_VERBS = {"add": "add", "new": "create", "create": "create", "edit": "edit", "change": "change",
                "update": "update", "delete": "delete", "remove": "remove"}
"""A route's last word that says what its page's form does (``book/{id}/change``, ``issues/new``)."""
_NOT_NOUNS = {*_ROUTE_VERBS, "item", "items", "list", "index", "search", "details", "view", "show", "home"}
"""Route words that name no kind of item (``issue_item``: an issue)."""
_GENERIC_BUTTONS = {"save", "submit", "ok", "done", "apply", "confirm", "go", "send", "continue", "update"}
"""Button words that say nothing of what is saved: the page's noun completes them (``save_book``)."""


def _noun(page: str | None) -> str:
    """The kind of item a page is about, from its route: ``issue{id}`` / ``issue_item`` / ``issue``
    -> ``issue``; ``admin_library_book_{id}_change`` / ``admin_library_book_add`` -> ``book`` (the
    word that holds or precedes the id; else the last word that is no verb nor "item")."""
    parts = [p for p in (page or "").split("_") if p]
    for i, p in enumerate(parts):
        if "{id}" in p or "{name}" in p:
            own = re.sub(r"\{(id|name)\}", "", p)
            if own:
                return snake(own) or "item"
            if i:
                return snake(parts[i - 1]) or "item"
            break
    words = [snake(p) for p in parts if "{" not in p]
    while words and words[-1] in _NOT_NOUNS and len(words) > 1:
        words.pop()
    return (words[-1] if words else "") or "item"


def _route_verb(page: str | None) -> str | None:
    """``admin_library_book_{id}_change`` -> ``change``: the verb that ends a page's route, if one does."""
    last = (page or "").split("_")[-1]
    return _ROUTE_VERBS.get(last.lower())


def _button_word(sel: Element, submit: LabeledStep) -> str:
    """What the submit button says (``Save``, ``Yes, I'm sure``), when its element is named after
    its ``name`` attribute (a form field key such as ``index`` or ``_save``, no word for a person);
    else the element's name."""
    own = sel.name.split(".")[-1]
    target = submit.step.target
    if not sel.input_name or own != camel(sel.input_name) or target is None:
        return own
    label = (target.name or ((target.model_extra or {}).get("attributes") or {}).get("value") or target.text or "").strip()
    return camel(label) if label and len(label.split()) <= 4 else own


def _form_name(seqs: list[list[LabeledStep]], base: str, has_secret: bool, writes: bool, typed: int) -> str:
    """A name that says what the form does: ``login``, ``create_issue``, ``edit_issue``,
    ``search_issues``; a page whose route ends in a verb names it (``book/{id}/change``:
    ``change_book``, ``book/add``: ``add_book``, ``book/{id}/delete``: ``delete_book``)."""
    last = seqs[0][-1]
    before, after = last.page_before or "", last.page_after or ""
    if has_secret and writes:
        return "login"
    if writes and _route_verb(before) and len({s[-1].page_before for s in seqs}) == 1:
        return f"{_route_verb(before)}_{_noun(before)}"
    if not writes and after == before and _query_changed(last) and not _redraws_in_place(last) and base in ("search", "filter", "go", "submit"):
        # a query form that reloads its own list page (a change list's search box): what it searches
        return f"{'filter' if base == 'filter' else 'search'}_{plural(_noun(after))}"
    if writes and _posts_document(last):
        if _is_item_page(before):
            return f"edit_{_noun(before)}"
        if _is_item_page(after):
            return f"create_{_noun(after)}"
    if not writes and after and after != before:
        return f"{'search' if typed == 1 and len(seqs[0]) == 2 else 'filter'}_{plural(_noun(after))}"
    return base


def _form_description(
    base: str, props: dict[str, Any], required: list[str], card: Element | None, sel: Element,
    target: str, navigates: bool, writes: bool, stays: bool,
) -> str:
    """What the form tool does, in the words a planner looks for."""
    fields = ", ".join(k for k in props if k not in required) or "nothing"
    secret = [k for k in props if props[k].get("writeOnly")]
    noun = base.split("_", 1)[1].replace("_", " ") if "_" in base else ""
    if base == "login":
        return f"Log in with the site's login form ({', '.join(props)}; {', '.join(secret)} is a secret given at call time); the page reloads."
    done = " Returns success (true once the form is sent; the page it opens is checked) and the HTTP status when known."
    if base.startswith("create_"):
        return f"Create a new {noun} with the form: set {fields} and submit; opens the new {noun}'s page ({target}) (a state-changing request)." + done
    if base.startswith("add_"):
        return f"Add a new {noun} with this page's form: set {fields} and submit; opens the {target} page (a state-changing request)." + done
    if base.startswith(("edit_", "change_", "update_")):
        return f"Change the {noun} shown on this page: set any of {fields} (unset ones keep their value) and submit (a state-changing request)." + done
    if base.startswith(("delete_", "remove_")):
        return (f"{base.split('_')[0].capitalize()} the {noun} this page asks about: confirm with the page's button"
                f"{'' if fields == 'nothing' else f' (setting {fields})'}; opens the {target} page (a state-changing request)." + done)
    if base.startswith(("search_", "filter_")):
        return f"{base.split('_')[0].capitalize()} the {noun}: set {fields} and submit; opens the {target} page with the matching {noun}."
    return (
        (f"Open a {singular(card.name).replace('_', ' ')}, set " if card else "Set ")
        + fields
        + f" and click {sel.name.split('.')[-1]}"
        + (f"; opens the {target} page" if navigates and not stays else "")
        + (" (a state-changing request)." if writes else ".")
    )


def _echoed(site: _Site, seqs: list[list[LabeledStep]], el: Element) -> bool:
    """Whether the pages a form's demonstrations ended on showed what they typed into ``el``: a
    control the result page offers again empty or with its default (a workflow's "reassign to"
    box under an item's history) says nothing of the write, and its post-check would fail it."""
    if site.html_of is None or not el.input_name:
        return True
    tag = "select" if el.kind == "select" else "input"
    for seq in seqs:
        typed = [s.step.value for s in seq[:-1] if s.element is el and s.step.action in ("fill", "select") and isinstance(s.step.value, str) and s.step.value]
        html = site.html_of(seq[-1]) if typed else None
        if not html:
            continue
        shown = parse_html(html).find(lambda n, w=el.input_name: n.tag == tag and n.attrs.get("name") == w)
        if shown is None:
            continue
        if tag == "select":
            opts = [o for o in shown.iter() if o.tag == "option"]
            chosen = next((o for o in opts if "selected" in o.attrs), opts[0] if opts else None)
            now = {chosen.attrs.get("value", chosen.text), chosen.text} if chosen is not None else {""}
        else:
            now = {shown.attrs.get("value", "")}
        if str(typed[-1]) not in now and _option_label(el, typed[-1]) not in now:
            return False
    return True


def _form_tool(site: _Site, seqs: list[list[LabeledStep]]) -> Synth:
    """One form: the settings of ``seqs`` (the sequences ending in one submit) as inputs, then the click."""
    submit = seqs[0][-1]
    sel = submit.element
    assert sel is not None
    pages = {s[-1].page_before for s in seqs if s[-1].page_before}
    # a form in the site chrome (a sidebar login) works on every page that shows it, and stays there
    in_chrome = all(s.element is not None and s.element.chrome for seq in seqs for s in seq)
    stays = in_chrome and all(seq[-1].page_after == seq[-1].page_before for seq in seqs)
    if in_chrome:
        pages |= site.single_pages.get(sel.selector, set())
    opener = next((s[0] for s in seqs if s[0].element is not None and s[0].element.repeated and not s[0].element.modal), None)
    after = {s[-1].page_after for s in seqs if s[-1].page_after}
    navigates = any(s[-1].page_after != s[-1].page_before or _posts_document(s[-1]) or not s[-1].writes for s in seqs)
    has_secret = False
    typed = 0
    shows: list[str] = []
    """After a form post: the fields the new page shows must hold what was set (the same DOM change)."""
    target = sorted(after)[0] if after else sorted(pages)[0]
    props: dict[str, Any] = {}
    required: list[str] = []
    setters: list[str] = []
    witness: list[dict[str, Any]] = []
    seen: set[str] = set()
    card = opener.element if opener else None
    if card is not None:
        pname = snake(card.name_prop or "name")
        props[pname] = {"type": "string", "minLength": 1, "description": f"from {site.list_tool.get(card.selector, 'the list')}"}
        required.append(pname)
        seen.add(pname)
    choice_el = None
    row_el: Element | None = None
    row_fields: list[str] = []
    # every demonstrated step on a control, over all the sequences: its type comes from them all
    on: dict[int, list[LabeledStep]] = defaultdict(list)
    for seq in seqs:
        for s in seq[:-1]:
            if s.element is not None:
                on[id(s.element)].append(s)
    for seq in seqs:
        w: dict[str, Any] = {}
        if card is not None and opener is not None and seq[0].element is card:
            w[snake(card.name_prop or "name")] = seq[0].card_name
        for s in seq[1 if seq[0] is opener else 0:-1]:
            el = s.element
            if el is None:
                continue
            tattrs = ((s.step.target.model_extra or {}).get("attributes") or {}) if s.step.target else {}
            field_name = tattrs.get("placeholder") or tattrs.get("aria-label") or ""
            if el.repeated and s.step.action == "fill" and field_name:
                # a repeated row of named controls (an entry's lines): the k-th fill of a name is row k
                rows = w.setdefault("lines", [])
                k = sum(1 for r in rows if field_name in r)
                while len(rows) <= k:
                    rows.append({})
                rows[k][field_name] = s.step.value
                row_el = el
                if field_name not in row_fields:
                    row_fields.append(field_name)
                continue
            if el.repeated and el.modal:
                choice_el = el
                continue
            base = el.input_name or el.name.split(".")[-1]
            pname = snake(re.sub(r"(?i)(input|field|box)$", "", base) or base)
            attrs = control_attrs(on[id(el)])
            if el.kind == "radio":
                w[pname] = _radio_choice(el, ((s.step.target.model_extra or {}).get("attributes") or {}).get("value") if s.step.target else None)
            elif el.kind == "checkbox":
                w[pname] = checkbox_state(s)
            elif el.kind == "select" and is_multiple(el, attrs):
                w[pname] = [_option_label(el, v) for v in (s.step.value if isinstance(s.step.value, list) else [s.step.value])]
            elif el.kind == "select":
                w[pname] = _option_label(el, s.step.value)
            else:
                w[pname] = s.step.value
            if pname in seen:
                continue
            seen.add(pname)
            if s.step.value == REDACTED:
                has_secret = True
                props[pname] = {"type": "string", "minLength": 1, "writeOnly": True,
                                "description": "A secret (never stored in traces or the cache): give it at call time."}
                required.append(pname)
                setters.append(f"__setValue(__q({js(el.selector)}), {prop('inputs', pname)});")
                continue
            if el.kind == "select" and is_multiple(el, attrs):
                labels = [o for o in el.option_labels if o.strip()]
                item = {"type": "string", **({"enum": labels} if labels and not el.options_vary else {})}
                props[pname] = {"type": "array", "items": item, "description": "The choices to select (every other is unselected)."}
                setters.append(setter_js(el, pname, props[pname]) or "")
                continue
            if el.kind == "select":
                labels = [o for o in el.option_labels if o.strip() and not re.fullmatch(r"-.*-|[-\s]*", o.strip())]
                if el.options_vary:  # the page offers other choices elsewhere (a table's columns): data, not an enum
                    props[pname] = {"type": "string", "description": f"One of the choices the page offers (seen: {', '.join(labels[:12])})."}
                else:
                    props[pname] = {"type": "string", **({"enum": labels} if labels else {})}
                shows.append("" if not _echoed(site, seqs, el) else  # a select back at its placeholder ("And": add a filter)
                    f"{{ const el = __q({js(el.selector)}); const o = el && el.options[el.selectedIndex];"
                    f" if (el && {prop('inputs', pname)} != null && (!o || !__same(o.textContent, {prop('inputs', pname)})))"
                    f" return [false, {js(f'{pname} shows ')} + (o && __clean(o.textContent)) + ', not ' + {prop('inputs', pname)}]; }}"
                )
                setters.append(
                    # a select the page's script adds after another control's change (a filter row) is waited for
                    f"if ({prop('inputs', pname)} != null) {{ const sel = await __waitQ({js(el.selector)});"
                    f" if (!sel) throw new Error({js(f'no {pname} select on this page')});"
                    f" const o = [...sel.options].find((x) => __same(x.textContent, {prop('inputs', pname)})) || [...sel.options].find((x) => x.value === String({prop('inputs', pname)}));"
                    f" if (!o) throw new Error('no choice ' + JSON.stringify({prop('inputs', pname)}) + {js(f' for {pname}')}); __setValue(sel, o.value); }}"
                )
                continue
            if el.kind in ("input", "textarea"):
                typed += 1
            if el.kind == "radio":
                props[pname] = {"type": "string", "enum": radio_choices(el)} if el.options else {"type": "string"}
                setters.append(setter_js(el, pname, props[pname]) or "")
            elif el.kind == "checkbox":
                props[pname] = {"type": "boolean", "description": "Ticked (true) or not (false)."}
                setters.append(setter_js(el, pname, props[pname]) or "")
                shows.append(shows_js(el, pname) or "")
            else:
                props[pname] = input_schema(el, attrs, [x.step.value for x in on[id(el)] if x.step.action == "fill"])
                numeric = props[pname]["type"] in ("integer", "number")
                if el.kind == "input" and not numeric and _echoed(site, seqs, el):
                    shows.append(
                        f"{{ const el = __q({js(el.selector)});"
                        f" if (el && {prop('inputs', pname)} != null && el.value !== String({prop('inputs', pname)}))"
                        f" return [false, {js(f'{pname} shows ')} + JSON.stringify(el.value)]; }}"
                    )
                setters.append(f"if ({prop('inputs', pname)} != null) __setValue(__q({js(el.selector)}), {prop('inputs', pname)}, true);")
        witness.append({k: typed_value(props[k], v) if k in props else v for k, v in w.items()})
    if row_el is not None:
        keys = {f: snake(f) for f in row_fields}
        props["lines"] = {
            "type": "array", "minItems": 1,
            "description": f"The form's repeated rows, in order: one object per row with {', '.join(keys.values())}.",
            "items": {"type": "object", "properties": {k: {"type": "string"} for k in keys.values()}, "additionalProperties": False},
        }
        required.append("lines")
        setters.append(
            f"const names = {js(keys)};\n"
            "for (let i = 0; i < inputs.lines.length; i++) {\n"
            f"  const rows = [...document.querySelectorAll({js(row_el.selector)})].filter((r) => r.offsetParent !== null || r.closest('dialog[open]'));\n"
            "  if (!rows[i]) throw new Error('the form has no row ' + (i + 1));\n"
            "  for (const [label, key] of Object.entries(names)) {\n"
            "    if (inputs.lines[i][key] == null) continue;\n"
            "    const c = rows[i].querySelector(`[placeholder=\"${CSS.escape(label)}\"], [aria-label=\"${CSS.escape(label)}\"]`);\n"
            "    if (!c) throw new Error('no ' + label + ' in row ' + (i + 1));\n"
            "    __setValue(c, inputs.lines[i][key], true);\n"
            "    await __settle(null, 60, 1500);\n"
            "  }\n"
            "}"
        )
        for w in witness:
            w["lines"] = [{keys[f]: v for f, v in r.items()} for r in w.get("lines", [])]
    if choice_el is not None:
        props["options"] = {"type": "object", "description": "Choices by group name: {group: choice} (a list for multi-choice groups).",
                            "additionalProperties": {"type": ["string", "array"]}}
        cprop = choice_el.props.get(choice_el.name_prop or "")
        setters.append(
            "for (const [gname, want] of Object.entries(inputs.options || {})) {\n"
            f"  const groupEls = [...new Set([...document.querySelectorAll({js(choice_el.selector)})].map((c) => c.closest('fieldset') || c.parentElement))];\n"
            "  const g = __find(groupEls, (x) => (x.dataset && (x.dataset.group || x.dataset.name)) || __clean((x.querySelector('legend') || {}).textContent), gname);\n"
            "  if (!g) throw new Error('no option group ' + JSON.stringify(gname));\n"
            "  for (const v of (Array.isArray(want) ? want : [want])) {\n"
            f"    const c = __find([...g.querySelectorAll({js(choice_el.selector)})], (x) => {cprop.js('x') if cprop else '__clean(x.textContent)'}, v);\n"
            "    if (!c) throw new Error('no choice ' + JSON.stringify(v) + ' in ' + gname);\n"
            "    const i = c.querySelector('input') || c; if (!i.checked) i.click();\n  }\n}"
        )
    writes = any(s[-1].writes for s in seqs)
    in_page_write = writes and not navigates
    # a single-page app's query form: the page stays, its URL's query and its content change
    in_place = not writes and all(seq[-1].page_after == seq[-1].page_before and _redraws_in_place(seq[-1]) for seq in seqs)
    if in_place:
        navigates = False
    open_js = ""
    if card is not None:
        ps = site.schema.pages[sorted(pages)[0]]
        modal_sel = ps.modals.get(sel.modal or "", "[role=dialog]")
        pname = snake(card.name_prop or "name")
        open_js = (
            f"const cards = {_cards_js(card)};\n"
            f"const card = __find(cards, {_name_of_js(card)}, {prop('inputs', pname)});\n"
            f"if (!card) throw new Error({js(f'no {singular(card.name)} matches ')} + JSON.stringify({prop('inputs', pname)}));\n"
            f"const modal = document.querySelector({js(modal_sel)});\n"
            "card.click();\n"
            "for (let i = 0; i < 100 && !__visible(modal); i++) await new Promise((r) => setTimeout(r, 20));\n"
            "if (!__visible(modal)) throw new Error('the dialog did not open');"
        )
    base = re.sub(r"_(button|btn|submit)$", "", snake(_button_word(sel, submit))) or "submit"
    if re.match(r"(yes|confirm)(_|$)", base):
        base = "confirm"  # "Yes, I'm sure": a confirmation
    base = _form_name(seqs, base, has_secret, writes, typed)
    title = site.dialog_titles.get(sel.modal or "")
    if title and base in ("save", "submit", "ok", "done", "apply", "confirm", "create", "add"):
        base = snake(camel(title))  # Save in the "Add Journal Entry" dialog: add_journal_entry
    elif writes and base in _GENERIC_BUTTONS and len(pages) == 1:
        base = f"{base}_{_noun(next(iter(pages)))}"  # Save on the book page: save_book
    click = f"const btn = __q({js(sel.selector)});\nif (!btn) throw new Error({js(f'no {base} button here')});"
    if in_place:
        base = f"{base}_{snake(re.sub(r'[{](id|name)[}]', '', target)).strip('_').split('_')[-1]}" if base in ("submit", "ok", "go", "run") else base
        # an editor (CodeMirror) takes in typed text on its next tick: let it settle before submitting
        tail = "await __settle(null, 100, 2000);\nconst before = location.href;\nbtn.click();\nawait __settle(before);\nreturn {success: true, status: 0};"
        post_check = _body(_page_check(pages))
    elif in_page_write:
        tail = "const wait = __watchWrites();\nbtn.click();\nconst res = await wait(20000);\nreturn {success: !!res.ok, status: res.status || 0};"
        post_check = "return output && output.success === true ? true : [false, 'the site refused: status ' + (output && output.status)];"
    else:
        tail = "setTimeout(() => btn.click(), 0);\nreturn {success: true, status: 0};"
        post_check = _body(
            f"const ok = {_page_test({target})};" if not stays else "const ok = true;",
            "if (ok !== true) return ok;",
            "const errs = __errors();",
            "if (errs.length) return [false, 'the site said: ' + errs.join('; ')];",
            *(shows if writes else []),
            "return true;",
        )
    # a form inside a dialog another tool opened (not a card's own modal) needs that dialog open
    dialog_pre: dict[str, str] = {}
    dialog_post: dict[str, str] = {}
    if sel.modal and card is None and all(sel.modal in seq[0].modal_before for seq in seqs):
        dialog_pre["dialog"] = sel.modal
        if all(sel.modal not in seq[-1].modal_after for seq in seqs):
            dialog_post["dialog"] = ""
    m = ToolManifest(
        name=site.name(base),
        description=_form_description(base, props, required, card, sel, target, navigates, writes, stays),
        type=ToolType.SET_FIELDS,
        input_schema={"type": "object", "properties": props, **({"required": required} if required else {})},
        output_schema={"type": "object", "properties": {"success": {"type": "boolean"}, "status": {"type": "integer"}}, "required": ["success"]},
        pre={"page": _page_pattern(pages), **dialog_pre},
        post={**({} if stays or in_place else {"page": target}), **dialog_post},
        pre_check=_body(
            _page_guard(pages),
            f"return __q({js(sel.selector)}) ? true : [false, {js(f'no {base} button on this page')}];",
        ),
        execute=_body(open_js, *setters, click, tail),
        post_check=post_check,
        effect=Effect.WRITE if writes else Effect.READ,
        elements=sorted({f"{s.page_before}.{s.element.name}" for seq in seqs for s in seq if s.element}),
        navigates=navigates,
    )
    return Synth(m, "form", element=sel.name, evidence=[s for seq in seqs for s in seq],
                 name_param=snake(card.name_prop or "name") if card else None,
                 source_list=site.list_tool.get(card.selector) if card else None, witness_args=witness)
