"""Navigating tools: ``goto_<page>`` links and buttons, pagers, ``open_<dialog>``."""

from __future__ import annotations

import re
from collections import defaultdict
from urllib.parse import urljoin, urlparse

from agentjit.protocol.manifest import ToolManifest, ToolType

from ..dom import camel, snake
from ..extract import PAGER_WORDS
from ..label import LabeledStep
from ..literal import js
from .base import (
    Synth,
    _body,
    _href_or_query,
    _is_item_page,
    _page_check,
    _page_guard,
    _page_pattern,
    _query_changed,
    _Site,
)


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
