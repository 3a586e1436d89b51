"""Rows ticked by their checkboxes, then an action chosen and submitted (``<action>(rows)``)."""

from __future__ import annotations

import re
from typing import Any

from agentjit.protocol.manifest import Effect, ToolManifest, ToolType

from ..dom import snake
from ..extract import Element
from ..label import LabeledStep
from ..literal import js
from ..rows import is_row_check
from .base import (
    Synth,
    _body,
    _cards_js,
    _name_of_js,
    _option_label,
    _page_guard,
    _page_pattern,
    _page_test,
    _posts_document,
    _Site,
    plural,
    singular,
)


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
