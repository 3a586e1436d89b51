"""Filters and sorting: ``search(query)`` forms and sort controls."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qs, urlparse

from agentjit.protocol.manifest import ToolManifest, ToolType

from ..dom import snake
from ..extract import Element
from ..label import LabeledStep
from ..literal import js, prop
from .base import (
    Synth,
    _body,
    _cards_js,
    _filters_in_place,
    _item_expr,
    _out_type,
    _page_check,
    _page_guard,
    _page_pattern,
    _Site,
    plural,
)
from .links import _click_link_js


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
        in_place = all(_filters_in_place(p, q) for p, q in pairs)
        what = snake(inp.name.split(".")[-1])
        what = what.removeprefix("filter_by_").removeprefix("id_")  # (named by its id: ``#id_q``)
        label = " ".join(str(p.step.target.name or "") for p, _ in pairs[:1] if p.step.target is not None)
        searches = "search" in (inp.name.lower() + target + label.lower())
        fname = "search" if searches else (f"filter_by_{what}" if in_place else f"set_{what}")
        param = _filter_param(pairs) if in_place else None
        # the list it narrows: one on the page its demonstrations filtered (a search page's results,
        # not the list of another page its box also sits on)
        typed_values = {str(p.step.value) for p, _ in pairs if p.step.value}
        shown = (_list_on(site, {q.page_after for _, q in pairs if q.page_after}, typed_values) or _list_on(site, pages, typed_values)) if in_place else None
        if in_place and searches:
            fname = f"search_{plural(shown.name)}" if shown is not None else "search"  # a live search narrows the list
        elif in_place:
            pname = what if what.isidentifier() and what not in ("query", "filter") else "value"
        items, item_props = _items_js(shown)
        m = ToolManifest(
            name=site.name(fname),
            description=(
                f"Filter what this page shows by {label or inp.name.split('.')[-1]} (the {label or inp.name.split('.')[-1]} box, then Enter);"
                " the page stays and shows only the matching entries; an empty value clears the filter."
                + (f" Returns the {plural(shown.name).replace('_', ' ')} shown then (items, with {', '.join(snake(k) for k in shown.props)})."
                   if shown is not None else "")
                if in_place else f"Type a query into {inp.name} and submit it; opens the {target} page."
            ),
            type=ToolType.SET_FILTER,
            input_schema={"type": "object", "properties": {pname: {"type": "string", "minLength": 0 if in_place else 1}}, "required": [pname]},
            output_schema={"type": "object", "properties": {pname: {"type": "string"}, **item_props}},
            pre={"page": _page_pattern(pages)},
            post={} if in_place else {"page": target},
            pre_check=_body(f"return __q({js(sel)}) ? true : [false, {js(f'no {inp.name} here')}];"),
            execute=_body(
                f"const input = __q({js(sel)});",
                f"__setValue(input, {prop('inputs', pname)});",
                "const before = location.href;",
                "const enter = new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', bubbles: true, cancelable: true});",
                # an Enter the page's script left alone submits the input's form, as a browser's does
                "__enterSubmits(input, !input.dispatchEvent(enter));",
                *_until_filtered(param, pname),
                f"return {{{js(pname)}: {prop('inputs', pname)}{items}}};",
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


def _list_on(site: _Site, pages: set[str], typed: Iterable[str] = ()) -> Element | None:
    """The list a filter on ``pages`` narrows: one whose items the demonstration's value named (a
    search for "bees" left rows named "Bees ..."), else the group shown there with the most
    entries (a table's rows before other cards), or None when the page shows none."""
    shown = [el for sel, el in site.groups.items() if site.group_pages.get(sel, set()) & pages]
    if not shown:
        return None
    want = {t.casefold() for t in typed if t}
    # the items every snapshot of those pages showed under a group's selector: the group kept for a
    # selector is one page's (a list before the search, named otherwise), the rows the search left
    # another's
    samples: dict[str, list[str]] = defaultdict(list)
    for page in pages:
        for el in site.schema.pages[page].elements.values() if page in site.schema.pages else ():
            if el.repeated:
                samples[el.selector].extend(el.samples)

    def named(el: Element) -> bool:
        return bool(want) and any(w in str(x).casefold() for x in samples.get(el.selector, el.samples) for w in want)

    return max(shown, key=lambda el: (named(el), bool(el.member_sig), el.visible_count, len(el.props)))


def _items_js(el: Element | None) -> tuple[str, dict[str, Any]]:
    """What a filter adds to its output for the list ``el`` it narrows: the JavaScript of the
    ``items`` entry (read as its list tool reads it) and its output schema."""
    if el is None:
        return "", {}
    props = dict(el.props)
    expr = f", items: {_cards_js(el)}.map((c) => {_item_expr(props, 'c')})"
    schema = {"items": {"type": "array", "items": {"type": "object", "properties": {snake(n): _out_type(p) for n, p in props.items()}}}}
    return expr, schema


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
