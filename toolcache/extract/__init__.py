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

The package: :mod:`.schema` (the schema types), :mod:`.elements` (one element: name, selector,
kind), :mod:`.lists` (what repeats: tables, record and link lists, link groups); here the walk over
one snapshot (:func:`extract_snapshot`) and the merge of snapshots (:func:`merge_page`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from ..dom import Node, camel, parse_html, signature
from ..literal import css_attr
from .elements import (
    _HEADINGS,
    _accessible_name,
    _card_props,
    _form_selector,
    _group_noun,
    _is_actionable,
    _is_control,
    _kind,
    _label_of,
    _modal_name,
    _modal_of,
    _name_for,
    _name_prop,
    _readable_class,
    _selector,
    is_hashed_class,
)
from .lists import (
    PAGER_WORDS,
    _column_header,
    _concealed,
    _heading_before,
    _is_chrome,
    _is_decoration,
    _is_skip_link,
    _link_items,
    _link_list,
    _one,
    _pairs,
    _record_list,
    _table_list,
    is_layout_class,
    is_same_page_href,
    link_group,
)
from .schema import Element, PageSchema, Prop, SiteSchema, _type_of, page_key, url_pattern

__all__ = [
    "Prop", "Element", "PageSchema", "SiteSchema", "page_key", "url_pattern", "extract_snapshot", "merge_page",
    "PAGER_WORDS", "is_hashed_class", "is_same_page_href", "link_group",
]


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
        if _concealed(ul):
            continue  # links nobody sees as the page arrives (a bulk-action bar until a row is ticked)
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
