"""One element of a page: is it actionable, its accessible name, its selector, its kind, a card group's properties."""


from __future__ import annotations

import re
from collections import defaultdict

from ..dom import Node, camel
from ..literal import css_attr, css_ident, state_value
from .schema import Prop, _type_of

_ACTION_TAGS = {"a", "button", "input", "select", "textarea"}


_HASHED = re.compile(r"(^|[-_])(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{5,}$", re.I)


_TEXTBOX_ROLES = ("textbox", "combobox", "searchbox")


def is_hashed_class(c: str) -> bool:
    """A class a CSS-in-JS or component framework generated (``svelte-1kd9pqk``, ``css-1x2y3z``):
    stable within a build, but it names nothing a reader knows."""
    return bool(_HASHED.search(c)) or not c.isascii()


def _readable_class(n: Node) -> str | None:
    return next((c for c in n.classes if not is_hashed_class(c)), None)


def _is_control(n: Node) -> bool:
    """A form control: an input, select or text area, or an editable element with a textbox role."""
    if n.tag in ("input", "select", "textarea"):
        return n.attrs.get("type", "text") not in ("hidden", "submit", "button", "reset", "image")
    return n.attrs.get("contenteditable") == "true" or n.attrs.get("role") in _TEXTBOX_ROLES


def _accessible_name(n: Node) -> str:
    """What a person calls a control: its ``aria-label``, placeholder, ``aria-placeholder``, ``title`` or ``name``."""
    for key in ("aria-label", "placeholder", "aria-placeholder", "title", "name"):
        if n.attrs.get(key, "").strip():
            return n.attrs[key].strip()
    return ""


def _is_actionable(n: Node) -> bool:
    if n.attrs.get("contenteditable") == "true" or n.attrs.get("role") in _TEXTBOX_ROLES:
        return True
    if n.tag in _ACTION_TAGS:
        if n.tag == "a":
            return "href" in n.attrs
        if n.tag == "input":
            return n.attrs.get("type", "text") != "hidden"
        return True
    return n.attrs.get("role") in ("button", "link", "tab", "menuitem") or "onclick" in n.attrs


def _selector(n: Node) -> str:
    if n.testid:
        return css_attr("data-testid", n.testid)
    if n.attrs.get("id"):
        return "#" + css_ident(n.attrs["id"])
    if n.tag in ("input", "select", "textarea") and n.attrs.get("name"):
        return n.css_tag + css_attr("name", n.attrs["name"])
    if n.tag == "a" and n.attrs.get("href") and not n.attrs["href"].startswith("javascript:"):
        return "a" + css_attr("href", n.attrs["href"])
    if n.tag in ("input", "button") and n.attrs.get("type") in ("submit", "button") and n.attrs.get("value"):
        own = n.css_tag + css_attr("type", n.attrs["type"]) + css_attr("value", n.attrs["value"])
        form = next((a for a in n.ancestors() if a.tag == "form"), None)
        if form is not None and (form.attrs.get("name") or form.attrs.get("id")):
            key = "id" if form.attrs.get("id") else "name"
            return "form" + css_attr(key, form.attrs[key]) + " " + own  # the same button in another form
        return own
    if n.attrs.get("aria-label"):
        return n.css_tag + css_attr("aria-label", n.attrs["aria-label"])
    if n.tag in ("input", "textarea") and n.attrs.get("placeholder"):
        return n.css_tag + css_attr("placeholder", n.attrs["placeholder"])
    if n.attrs.get("aria-placeholder"):
        return css_attr("aria-placeholder", n.attrs["aria-placeholder"])
    if n.tag == "input" and n.attrs.get("type") not in (None, "text"):
        form = next((a for a in n.ancestors() if a.tag in ("form", "dialog")), None)
        own = "input" + css_attr("type", n.attrs["type"])
        return (_selector(form) + " " + own) if form is not None and (form.attrs.get("id") or form.tag == "dialog") else own
    text = n.text
    if (n.tag == "button" or n.attrs.get("role") in ("button", "link", "tab", "menuitem")) and 0 < len(text) <= 60:
        return f"{n.signature} >> text={text}"  # role + accessible name, as Playwright's locators find it
    if n.tag in ("input", "textarea", "select") and n.signature == n.tag:
        # a control with no name of its own (a code editor's input box): the widget it lives in
        # names it, so that it is not the page's first control of its kind
        widget = next((a for a in n.ancestors() if a.attrs.get("id") or _readable_class(a)), None)
        if widget is not None and widget.tag not in ("body", "html", "form"):
            return ("#" + css_ident(widget.attrs["id"]) if widget.attrs.get("id") else "." + css_ident(_readable_class(widget) or "")) + " " + n.css_tag
    return n.signature


def _form_selector(form: Node) -> str | None:
    """A selector of one ``<form>``: its id, its ``action``, else its readable class; None for none."""
    if form.attrs.get("id"):
        return "#" + css_ident(form.attrs["id"])
    if form.attrs.get("action"):
        return "form" + css_attr("action", form.attrs["action"])
    cls = next((c for c in form.classes if not is_hashed_class(c)), None)
    return "form." + css_ident(cls) if cls else None


def _replaced(n: Node) -> Node | None:
    """For an unnamed control inside a widget: the named control of the same tag the widget
    replaced (progressive enhancement hides the original and inserts the widget right after it:
    a code editor over a ``textarea``, a searchable drop-down over a ``select``)."""
    for w in n.ancestors():
        if w.parent is None or w.tag in ("form", "body"):
            return None
        sibs = w.parent.children
        i = sibs.index(w)
        prev = sibs[i - 1] if i > 0 else None
        if prev is not None and prev.tag == n.tag and (prev.attrs.get("name") or prev.attrs.get("id")):
            return prev
    return None


def _label_of(n: Node, scope: Node) -> str:
    """The text of a control's ``<label>``: the one around it, or the one ``for`` its id."""
    around = next((a for a in n.ancestors() if a.tag == "label"), None)
    if around is None and n.attrs.get("id"):
        around = scope.find(lambda x: x.tag == "label" and x.attrs.get("for") == n.attrs["id"])
    return " ".join(around.text.split()) if around is not None else ""


_FIELD_LABELS = ("label", "legend", "h1", "h2", "h3", "h4", "h5", "h6")


def field_label(n: Node) -> str | None:
    """The label of the field an editable element (a rich-text or code editor, no ``<label>`` of its
    own) belongs to: the text its ``aria-labelledby`` names, else the nearest ``<label>``,
    ``<legend>`` or heading before it within its field's wrappers (Draftail's body under its panel's
    heading "Body"); None when it has none a person would call it by (over 40 characters)."""
    root = n
    while root.parent is not None:
        root = root.parent
    ids = n.attrs.get("aria-labelledby", "").split()
    named = [root.find(lambda x, i=i: x.attrs.get("id") == i) for i in ids]
    text = " ".join(" ".join(x.text.split()) for x in named if x is not None).strip()
    if text:
        return text if len(text) <= 40 else None
    inside = {id(x) for x in n.iter()}
    for depth, wrap in enumerate(n.ancestors()):
        if depth >= 12 or wrap.tag in ("form", "body", "main", "html"):
            break
        by = [root.find(lambda x, i=i: x.attrs.get("id") == i) for i in wrap.attrs.get("aria-labelledby", "").split()]
        text = " ".join(" ".join(x.text.split()) for x in by if x is not None).strip()
        if text and len(text) <= 40:
            return text  # a panel labelled by its heading (``<section aria-labelledby=...>``)
        last: str | None = None
        for x in wrap.iter():
            if x is n:
                break
            words = " ".join(x.text.split())
            if x.tag in _FIELD_LABELS and id(x) not in inside and words and len(words) <= 40:
                last = words
        if last:
            return last
    return None


def _name_for(n: Node) -> str:
    for cand in (n.testid, n.attrs.get("id"), n.attrs.get("name"), n.attrs.get("aria-label"), n.attrs.get("placeholder")):
        if cand:
            return camel(cand)
    # (a submit button is no control a widget replaces: ``<input type=submit value="Yes">`` after
    # a form's hidden inputs is named by its value below, not after them)
    orig = _replaced(n) if n.tag in ("input", "textarea", "select") and _is_control(n) else None
    if orig is not None:
        return camel(orig.attrs.get("name") or orig.attrs["id"])
    if _is_control(n) and n.tag not in ("select",):
        if n.attrs.get("aria-placeholder"):
            # "…enter a BQL query. 'help' to ..." -> query: the last word of the first phrase
            words = re.findall(r"[A-Za-z]+", re.split(r"[.;:!?'(]", n.attrs["aria-placeholder"])[0])
            return camel(words[-1]) if words else "text"
        if n.attrs.get("type") in ("date", "email", "number", "time", "datetime-local", "url", "tel"):
            return camel(n.attrs["type"])
        if n.tag not in ("input", "textarea"):
            # an editor is named by its field, never by the text it holds
            return camel(field_label(n) or "text")
    text = n.text[:30]
    if not text and n.tag == "input" and n.attrs.get("type") in ("submit", "button"):
        return camel(n.attrs.get("value", "")[:30] or "submit") + "Button"
    base = camel(text) if text else n.tag
    return base + {"a": "Link", "button": "Button"}.get(n.tag, "")


def _kind(n: Node) -> str:
    if n.tag not in ("input", "select", "textarea") and _is_control(n):
        return "input"
    if n.tag == "a":
        return "link"
    if n.tag == "input":
        t = n.attrs.get("type", "text").lower()
        if t in ("radio", "checkbox"):
            return t
        if t in ("submit", "button"):
            return "button"
        return "input"
    if n.tag in ("select", "textarea", "button"):
        return n.tag
    return "button"


def _group_noun(n: Node) -> str:
    """A name for a repeated element without a readable class: its role, or what its tag is for."""
    role = n.attrs.get("role")
    if role:
        return role
    return {"li": "item", "tr": "row", "p": "line", "span": "part", "div": "block", "a": "link", "td": "cell"}.get(n.tag, n.tag)


def _modal_name(n: Node) -> str:
    head = n.find(lambda x: x.tag in ("h1", "h2", "h3", "h4", "legend"))
    title = n.attrs.get("aria-label") or (" ".join(head.text.split()[:2]) if head is not None and not n.testid and not n.attrs.get("id") else "")
    base = camel(n.testid or n.attrs.get("id") or title or "dialog")
    return state_value(base if "modal" in base.lower() else base + "Modal")  # a dialog state value


def _modal_of(n: Node, modals: dict[int, str]) -> str | None:
    for a in n.ancestors():
        if id(a) in modals:
            return modals[id(a)]
    return None


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _card_props(members: list[Node]) -> tuple[dict[str, Prop], dict[str, str]]:
    """Properties and actions shared by a group's members."""
    attr_values: dict[str, list[str]] = defaultdict(list)
    text_values: dict[str, list[str]] = defaultdict(list)
    actions: dict[str, str] = {}
    for m in members:
        for k, v in m.data().items():
            attr_values[k].append(v)
        for d in m.iter():
            if d is m:
                continue
            if d.testid and _is_actionable(d):
                actions[camel(d.testid)] = css_attr("data-testid", d.testid)
            elif d.testid and d.text and not any(_is_actionable(c) for c in d.iter()):
                text_values[d.testid].append(d.text)
    props: dict[str, Prop] = {}
    for k, vals in attr_values.items():
        if k in ("data-options",) or len(vals) < len(members) * 0.5:
            continue
        props[camel(k)] = Prop(camel(k), "attr", k, _type_of(vals))
    for tid in text_values:
        name = camel(tid)
        if name in props:
            name += "Text"
        props[name] = Prop(name, "text", css_attr("data-testid", tid), "string")
    if not props:
        # a card with a heading of its own (a table's name over its columns and row count) is
        # called by that heading; its whole text stays readable beside it
        heads = [m.find(lambda x, m=m: x is not m and x.tag in _HEADINGS and bool(x.text)) for m in members]
        tags = {h.tag for h in heads if h is not None}
        if len(tags) == 1 and all(h is not None for h in heads) and len({h.text for h in heads if h is not None}) == len(members):
            props["name"] = Prop("name", "text", next(iter(tags)), "string")
        props["text"] = Prop("text", "self", "", "string")
    return props, actions


def _name_prop(props: dict[str, Prop]) -> str | None:
    if "name" in props:
        return "name"
    named = [p for p in props if p.lower().endswith("name")]
    attr_named = [p for p in named if props[p].source == "attr"]
    if attr_named:
        return sorted(attr_named, key=len)[0]
    if named:
        return sorted(named, key=len)[0]
    texts = [p for p, v in props.items() if v.type == "string"]
    return texts[0] if texts else None
