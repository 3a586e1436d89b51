"""Links that keep the page type and change what it shows: filter groups and numbered pages.

============ ==================================================================
filterLinks  a link among sibling links under one heading (a filter sidebar's
             "By genre: All, Fiction, ...", a row of chips) that changed the
             page's query: ``filter_<list>_by_<group>(value)``, the value one
             of the group's link texts (any text when the group's links are
             data), found by its group and its text, never by its ``href``
pageNumber   a link whose text is a number that changed the page's query (a
             paginator's "2"): ``goto_<list>_page(page)``
============ ==================================================================

Both find their link on the page the tool runs on (``nav.js``): the group by
the same rule the builder used (:func:`toolcache.extract.link_group`), the
page number by its text. The column-header sort links are
:func:`toolcache.codegen.filters._sort_tools`; Next/Previous links are
:func:`toolcache.codegen.links._pager_tools`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

from agentjit.protocol.manifest import ToolManifest, ToolType

from ..dom import snake
from ..extract import PAGER_WORDS
from ..js import source
from ..label import LabeledStep
from ..literal import js, prop
from .base import Synth, _body, _page_guard, _page_pattern, _query_changed, _Site, plural

__all__ = ["filter_link_tools", "page_number_tools", "list_noun"]

NAV_JS = source("nav.js")


def list_noun(page: str) -> str:
    """What a page lists, by its name's last word: ``admin_library_book`` -> ``book``."""
    words = [w for w in re.sub(r"\{(id|name)\}", "", page).split("_") if w]
    return snake(words[-1]) if words else "item"


def _stays(s: LabeledStep) -> bool:
    """A click on a singular link that kept the page type and changed the URL's query."""
    el = s.element
    return (el is not None and not el.repeated and el.kind == "link" and s.step.action == "click" and s.step.ok
            and not s.writes and s.step.target is not None and bool(s.page_before)
            and s.page_after == s.page_before and _query_changed(s))


def _text(s: LabeledStep) -> str:
    return re.sub(r"\s+", " ", (s.step.target.text or s.step.target.name or "") if s.step.target else "").strip()


def _href(s: LabeledStep) -> str:
    attrs = ((s.step.target.model_extra or {}).get("attributes") or {}) if s.step.target else {}
    return urljoin(s.step.url or "", str(attrs.get("href") or ""))


def filter_link_tools(site: _Site) -> list[Synth]:
    """``filter_<list>_by_<group>(value)`` for every group of filter links a demonstration clicked."""
    clicked: dict[str, list[LabeledStep]] = defaultdict(list)
    for s in site.steps:
        if _stays(s) and s.element is not None and s.element.link_group and not _text(s).isdigit() \
                and not PAGER_WORDS.match(_text(s)):
            clicked[s.element.link_group].append(s)
    out: list[Synth] = []
    for group, clicks in sorted(clicked.items()):
        # one tool per set of choices: the same group on pages of several types offering the same links
        by_choices: dict[tuple[str, ...], list[LabeledStep]] = defaultdict(list)
        for c in clicks:
            ps = site.schema.pages.get(c.page_before or "")
            by_choices[tuple(sorted(ps.link_groups.get(group, []))) if ps else ()].append(c)
        for _, cs in sorted(by_choices.items()):
            pages = sorted({c.page_before for c in cs if c.page_before})
            texts: list[str] = []
            vary = False
            for p in pages:
                ps = site.schema.pages[p]
                texts.extend(t for t in ps.link_groups.get(group, []) if t not in texts)
                vary = vary or group in ps.link_groups_vary
            what = snake(re.sub(r"^(by|filter by|show)\s+", "", group, flags=re.I)) or "value"
            pname = what if what.isidentifier() else "value"
            param: dict[str, Any] = (
                {"type": "string", "minLength": 1, "description": f"A {group} link's text (seen: {', '.join(texts[:12])})."}
                if vary or not texts else {"type": "string", "enum": texts})
            navigates = any(c.step.document for c in cs)
            click = "setTimeout(() => link.click(), 0);" if navigates else "const before = location.href;\nlink.click();\nawait __settle(before);"
            m = ToolManifest(
                name=site.name(f"filter_{plural(list_noun(pages[0]))}_by_{what}"),
                description=f"Filter the {'/'.join(pages)} page by {group.lower()} with the site's own links there "
                            f"(one of: {', '.join(texts[:12])}); the page stays and shows only what matches, "
                            "with the other filters it already had.",
                type=ToolType.SET_FILTER,
                input_schema={"type": "object", "properties": {pname: param}, "required": [pname]},
                output_schema={"type": "object", "properties": {pname: {"type": "string"}, "link": {"type": "string"}}},
                pre={"page": _page_pattern(pages)},
                post={},
                pre_check=_body(_page_guard(pages), NAV_JS,
                                f"return __groupLinks({js(group)}).length ? true : [false, {js(f'no {group} links here')}];"),
                execute=_body(
                    NAV_JS,
                    f"const links = __groupLinks({js(group)});",
                    f"const link = __find(links, (a) => a.textContent, {prop('inputs', pname)});",
                    f"if (!link) throw new Error({js(f'no {group} link ')} + JSON.stringify({prop('inputs', pname)})"
                    " + '; have: ' + links.map((a) => __clean(a.textContent)).join(', '));",
                    "const chosen = {value: __clean(link.textContent), link: link.href};",
                    click,
                    f"return {{{js(pname)}: chosen.value, link: chosen.link}};",
                ),
                post_check=_body(
                    _page_guard(pages), NAV_JS,
                    # the site's answer: the URL carries every parameter of the link followed, or
                    # the group marks the link as its current choice
                    "const want = output && output.link ? new URL(output.link, location.href) : null;",
                    "const here = new URL(location.href);",
                    "if (want && [...want.searchParams].length && [...want.searchParams].every(([k, v]) => here.searchParams.getAll(k).includes(v))) return true;",
                    f"const now = __groupLinks({js(group)}).find((a) => __same(a.textContent, {prop('inputs', pname)}));",
                    "if (now && __chosen(now)) return true;",
                    "if (want && ![...want.searchParams].length && !here.search.replace(/^\\?$/, '')) return true;",
                    f"return [false, {js(f'the page does not show {group} ')} + JSON.stringify({prop('inputs', pname)}) + ' chosen'];",
                ),
                elements=sorted({f"{c.page_before}.{c.element.name}" for c in cs if c.element}),
                navigates=navigates,
            )
            out.append(Synth(m, "filter_links", evidence=cs, witness_args=[{pname: _text(c)} for c in cs]))
    return out


def _page_param(clicks: list[LabeledStep]) -> str | None:
    """The query parameter every recorded page link set to its own number (``?p=2`` for "2")."""
    found: set[str] | None = None
    for c in clicks:
        query = parse_qs(urlparse(_href(c)).query)
        keys = {k for k, vs in query.items() if _text(c) in vs}
        found = keys if found is None else found & keys
    return min(found) if found else None


def page_number_tools(site: _Site) -> list[Synth]:
    """``goto_<list>_page(page)``: a numbered paginator, for every page type whose page numbers were followed."""
    clicked: dict[str, list[LabeledStep]] = defaultdict(list)
    for s in site.steps:
        if _stays(s) and _text(s).isdigit() and s.page_before:
            clicked[s.page_before].append(s)
    out: list[Synth] = []
    for page, cs in sorted(clicked.items()):
        param = _page_param(cs)
        navigates = any(c.step.document for c in cs)
        click = "setTimeout(() => link.click(), 0);" if navigates else "const before = location.href;\nlink.click();\nawait __settle(before);"
        # the page number shown as the current one: the URL's parameter, else the paginator's
        # number that is no link
        current = (
            f"const shown = () => (new URL(location.href).searchParams.get({js(param)}) ?? '1') === String({prop('inputs', 'page')});"
            if param else
            "const shown = () => { const first = __pageLinks()[0]; const box = first && (first.closest('nav, ul, ol, p, div') || first.parentElement);"
            " return !!box && [...box.querySelectorAll('*')].some((n) => !n.closest('a') && !n.children.length"
            f" && __clean(n.textContent) === String({prop('inputs', 'page')})); }};"
        )
        m = ToolManifest(
            name=site.name(f"goto_{plural(list_noun(page))}_page"),
            description=f"Show page N of the {page} list with the site's numbered page links (1 2 3 ...); "
                        "the page type stays; fails where the paginator has no such page.",
            type=ToolType.GOTO_FIELD,
            input_schema={"type": "object", "properties": {"page": {"type": "integer", "minimum": 1}}, "required": ["page"]},
            output_schema={"type": "object", "properties": {"page": {"type": "integer"}}},
            pre={"page": _page_pattern({page})},
            post={},
            pre_check=_body(_page_guard({page}), NAV_JS, "return __pageLinks().length ? true : [false, 'no numbered page links here'];"),
            execute=_body(
                NAV_JS, current,
                f"const link = __pageLinks().find((a) => __clean(a.textContent) === String({prop('inputs', 'page')}));",
                # already there: the same page again (a navigating tool loads a document)
                ("if (!link && shown()) { setTimeout(() => location.assign(location.href), 0);" if navigates else "if (!link && shown()) {")
                + f" return {{page: {prop('inputs', 'page')}}}; }}",
                f"if (!link) throw new Error('no page ' + {prop('inputs', 'page')} + ' here; have: ' + __pageLinks().map((a) => __clean(a.textContent)).join(', '));",
                click,
                f"return {{page: {prop('inputs', 'page')}}};",
            ),
            post_check=_body(
                _page_guard({page}), NAV_JS, current,
                f"return shown() ? true : [false, 'the page does not show page ' + {prop('inputs', 'page')}];",
            ),
            elements=sorted({f"{c.page_before}.{c.element.name}" for c in cs if c.element}),
            navigates=navigates,
        )
        out.append(Synth(m, "page_number", evidence=cs, witness_args=[{"page": int(_text(c))} for c in cs]))
    return out
