"""READ tools of a page: ``list_<cards>``, ``get_<page>_details`` and ``observe_page``."""

from __future__ import annotations

import re
from typing import Any

from agentjit.protocol.manifest import Effect, ToolManifest, ToolType

from ..dom import snake
from ..extract import Prop
from ..literal import js, prop
from .base import (
    Synth,
    _body,
    _cards_js,
    _is_item_page,
    _item_expr,
    _out_type,
    _page_check,
    _page_guard,
    _page_pattern,
    _Site,
    plural,
    singular,
)


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
        box = table_of_rows(el.selector)
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
                f"const empty = [...document.querySelectorAll({js(empty_sel)})].find(__visible) || __emptyNotice({js(_item_words(el.name))});",
                # a table drawn with no rows while no data is on its way: an empty list (a search that found nothing)
                f"if (!empty && document.querySelector({js(box)}) && !__busy(Date.now())) return true;" if box else "",
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


def _item_words(name: str) -> list[str]:
    """The words a page names a list's items by in its notice that there are none: the last word of the list's
    name, singular and plural (``stock_item``: ``item``, ``items``)."""
    word = re.split(r"[_\s]+", snake(name).strip("_"))[-1]
    return list(dict.fromkeys([singular(word), plural(word)]))


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


def table_of_rows(selector: str) -> str | None:
    """The table (or ``tbody``) whose rows ``selector`` picks (``table.list tr:has(> td)`` -> ``table.list``),
    else None: a list of cards, or a selector that reaches into the rows."""
    depth, starts = 0, []
    for i, ch in enumerate(selector):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif (depth == 0 and selector.startswith("tr", i) and (i == 0 or selector[i - 1] in " >")
              and not re.match(r"[\w-]", selector[i + 2:i + 3])):
            starts.append(i)
    if not starts:
        return None
    row, box = selector[starts[-1]:], selector[:starts[-1]].rstrip(" >").strip()
    if re.search(r"[\s>]", re.sub(r"\([^()]*\)", "", row)) or not re.search(r"\b(?:table|tbody)\b", box):
        return None
    return box
