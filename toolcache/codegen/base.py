"""What every tool builder shares: the ``Synth`` record, the site index (``_Site``), naming, page checks and bodies."""

from __future__ import annotations

import keyword
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlparse

from agentjit.plan.sandbox import FORBIDDEN_NAMES, SAFE_BUILTINS
from agentjit.protocol.manifest import ToolManifest
from agentjit.runtime.network import TRACK_JS

from ..dom import snake
from ..extract import Element, Prop, SiteSchema
from ..inputs import (
    radio_choices,
)
from ..js import source
from ..label import LabeledStep
from ..literal import js
from ..pages import _ROUTE_VERBS, PAGE_JS
from ..rows import is_row_check

PRELUDE = PAGE_JS + "\n" + f"const __net = {TRACK_JS};\n" + source("prelude.js")
"""The helpers every generated tool body starts with: ``page.js`` and ``prelude.js`` of :mod:`toolcache.js`."""


_UNCOUNTED = frozenset(
    "advice aircraft bison content data deer equipment evidence feedback fish furniture hardware help homework "
    "information info knowledge luggage media metadata money moose music news offspring research salmon series "
    "sheep software species staff stuff traffic weather".split())
"""Nouns whose plural is the noun itself (or that are plural already): ``list_data``, not ``list_datas``."""
_IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women", "mouse": "mice",
              "foot": "feet", "tooth": "teeth", "goose": "geese", "datum": "data", "criterion": "criteria",
              "leaf": "leaves", "life": "lives", "knife": "knives", "wife": "wives", "half": "halves",
              "shelf": "shelves", "wolf": "wolves", "thief": "thieves", "hero": "heroes", "potato": "potatoes",
              "tomato": "tomatoes", "echo": "echoes", "veto": "vetoes", "quiz": "quizzes", "axis": "axes"}
_PLURALS = frozenset(_IRREGULAR.values()) | {"indices", "matrices", "vertices", "analytics", "statistics"}
_SINGULAR_S = frozenset(
    "alias atlas bias bonus bus cactus campus canvas census chaos chassis chorus circus corpus cosmos "
    "dais ethos focus gas genus iris lens minus nexus octopus onus pancreas plus radius sinus status "
    "stimulus surplus syllabus tennis this thermos trellis virus walrus yes".split())
"""Nouns ending in ``s`` that are one thing (``status``, ``canvas``): ``-ss``, ``-us`` and ``-sis`` words are
found by their ending, these by name."""
_PLURAL_US = frozenset("emus gnus gurus haikus menus snafus sudokus tofus tutus".split())
"""Plurals ending in ``us`` (a noun ending in ``u`` and its ``s``): other ``-us`` words are one thing."""


def _is_plural(word: str) -> bool:
    """Whether an English noun is already plural (``pages``, ``issues``, ``entries``, ``people``), as a
    list's name taken from a route or a heading may be; ``status``, ``class``, ``analysis`` are not."""
    if word in _PLURALS or word in _UNCOUNTED:
        return True
    if word in _IRREGULAR or not word.endswith("s") or word in _SINGULAR_S or word.endswith(("ss", "sis")):
        return False
    if word.endswith("us"):
        return word in _PLURAL_US
    return len(word) > 2


def plural(name: str) -> str:
    """``store_card`` -> ``stores``; ``menu_item`` -> ``menu_items``; ``category_chip`` -> ``categories``;
    a name whose last word is plural already stays as it is: ``admin_pages`` (a route's), ``people``."""
    base = singular(name)
    head, _, last = base.rpartition("_")
    head = head + "_" if head else ""
    if _is_plural(last):
        return base
    if last in _IRREGULAR:
        return head + _IRREGULAR[last]
    if last.endswith("sis"):
        return head + last[:-2] + "es"  # analysis -> analyses
    if last.endswith("y") and not last.endswith(("ay", "ey", "oy", "uy")):
        return head + last[:-1] + "ies"
    if last.endswith(("s", "x", "z", "ch", "sh")):
        return head + last + ("zes" if last.endswith("iz") else "es")
    return head + last + "s"


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
    """The cards of ``el`` on the page; the rows of a table read by its headers without its header row
    (one of ``td`` cells matches ``tr:has(> td)`` too: ``__notHead``)."""
    by_head = el.member_sig == "tr" and any(p.source in ("cell", "row") for p in el.props.values())
    rows = ".filter(__notHead)" if by_head else ""
    return f"[...document.querySelectorAll({js(el.selector)})]{rows}"


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
                typed_live = any(p.element is el and p.step.action == "fill" and _query_changed(p) for p in pending)
                if s.step.action == "press" and el.kind == "input" and (s.page_after != s.page_before or _query_changed(s) or typed_live):
                    # (a live search moves the query as it is typed, and Enter changes nothing more)
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


def _query_changed(s: LabeledStep) -> bool:
    """The step changed the URL's query (a single-page app's filter) without leaving the page type."""
    before, after = urlparse(s.step.url or ""), urlparse(s.step.url_after or "")
    return bool(s.step.url_after) and before.path == after.path and before.query != after.query


def _filters_in_place(typed: LabeledStep, sent: LabeledStep) -> bool:
    """A filter's typing and Enter left the page where it was and redrew it: the query moved (as
    the value was typed, in a live search, or on Enter) and no new document was loaded."""
    return sent.page_after == sent.page_before and (_redraws_in_place(sent) or (
        sent.step.document is not True and typed is not sent and _redraws_in_place(typed)))


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


_GENERIC_BUTTONS = {"save", "submit", "ok", "done", "apply", "confirm", "go", "send", "continue", "update"}
"""Button words that say nothing of what is saved: the page's noun completes them (``save_book``)."""


def _route_verb(page: str | None) -> str | None:
    """``admin_library_book_{id}_change`` -> ``change``: the verb that ends a page's route, if one does."""
    last = (page or "").split("_")[-1]
    return _ROUTE_VERBS.get(last.lower())
