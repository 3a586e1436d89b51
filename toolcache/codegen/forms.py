"""Form tools: fields set and a button clicked that wrote (``<button>(...)``), and reading a form's values."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from agentjit.protocol.manifest import Effect, ToolManifest, ToolType

from ..dom import camel, parse_html, snake
from ..extract import Element
from ..extract.lists import _one
from ..inputs import (
    checkbox_state,
    control_attrs,
    input_schema,
    is_multiple,
    radio_choices,
    setter_js,
    shows_js,
)
from ..inputs import typed as typed_value
from ..label import LabeledStep
from ..literal import js, prop
from ..pages import route_noun as _noun
from ..redact import REDACTED
from .base import (
    _GENERIC_BUTTONS,
    Synth,
    _body,
    _cards_js,
    _is_item_page,
    _name_of_js,
    _option_label,
    _page_check,
    _page_guard,
    _page_pattern,
    _page_test,
    _posts_document,
    _query_changed,
    _radio_choice,
    _redraws_in_place,
    _route_verb,
    _Site,
    plural,
    singular,
)


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
        if _creates(before) and _is_item_page(after) and after != before:
            # a new item's form under its parent (``pages/add/home/homepage/3``, ``projects/7/issues/new``)
            return f"create_{_one(_noun(after))}"
        if _is_item_page(before):
            return f"edit_{_noun(before)}"
        if _is_item_page(after):
            return f"create_{_noun(after)}"
    if not writes and after and after != before:
        return f"{'search' if typed == 1 and len(seqs[0]) == 2 else 'filter'}_{plural(_noun(after))}"
    return base


_CREATE_WORDS = frozenset({"add", "new", "create"})


def _creates(page: str) -> bool:
    """A page whose route says it makes a new item, anywhere in it: ``admin/pages/add/home/homepage/3``."""
    return any(w.lower() in _CREATE_WORDS for w in page.split("_"))


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


def _shows_typed_js(el: Element, pname: str) -> str:
    """A post_check line: the page after the post shows in ``el`` what was typed into it (its value,
    or the text of a ``contenteditable`` editor, which has no value: ``__holds`` in prelude.js)."""
    return (f"{{ const el = __q({js(el.selector)});"
            f" if (el && {prop('inputs', pname)} != null && !__holds(el, {prop('inputs', pname)}))"
            f" return [false, {js(f'{pname} shows ')} + JSON.stringify(__fieldText(el))]; }}")


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
                    shows.append(_shows_typed_js(el, pname))
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
        # the page answers the edits on a timer (a rich-text editor writes its text into the form,
        # a slug follows its title): the form is sent once those timers ran
        execute=_body(open_js, "const __held = __hiddenNow();", "await __timed(async () => {", *setters, "});",
                      "if (__typedIn && __held.length) await __editorSaved(__held);", "await __timersRan();", click, tail),
        post_check=post_check,
        effect=Effect.WRITE if writes else Effect.READ,
        elements=sorted({f"{s.page_before}.{s.element.name}" for seq in seqs for s in seq if s.element}),
        navigates=navigates,
    )
    return Synth(m, "form", element=sel.name, evidence=[s for seq in seqs for s in seq],
                 name_param=snake(card.name_prop or "name") if card else None,
                 source_list=site.list_tool.get(card.selector) if card else None, witness_args=witness)
