"""Tools from clicks on cards of a list: ``goto_<card>(name)``, a card's modal details, a button inside a card."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from agentjit.protocol.manifest import Effect, ToolManifest, ToolType

from ..dom import snake
from ..extract import Element
from ..label import LabeledStep
from ..literal import js, prop
from .base import (
    Synth,
    _body,
    _cards_js,
    _name_of_js,
    _out_type,
    _page_check,
    _page_guard,
    _page_pattern,
    _Site,
    singular,
)


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
