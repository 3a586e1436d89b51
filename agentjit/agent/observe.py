"""What the stepwise agent sees of a page: URL, title, indexed interactive elements, visible text.

One ``page.evaluate`` numbers the visible interactive elements (links,
buttons, form fields, anything with a clickable role or a tab stop; only those
of the open modal dialog while one is open, the rest being inert), marks each
with ``data-aj-index`` so an action can find it again, and describes it the
way the recorder describes a target (CSS selector, role, accessible name,
text, tag, test id, attributes, ancestors), so a step the agent takes can be
written to a trace that ``toolcache`` learns from. :meth:`Observation.render`
turns it into the model's view, trimmed to a token budget.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Observation", "Element", "observe", "parse_elements", "INDEX_ATTR", "ELEMENT_HELPERS_JS"]

INDEX_ATTR = "data-aj-index"

CHARS_PER_TOKEN = 4
"""The same rough tokenizer as the fake models (about four characters a token)."""

# Runs in the page. The descriptor fields match toolcache's recorder (describe_js), so
# traces written by the agent carry the same targets as recorded demonstrations.
ELEMENT_HELPERS_JS = r"""
  const implicit = (n) => {
    const t = n.tagName.toLowerCase();
    if (t === 'a' && n.hasAttribute('href')) return 'link';
    if (t === 'button') return 'button';
    if (t === 'select') return 'combobox';
    if (t === 'textarea') return 'textbox';
    if (t === 'input') {
      const ty = (n.getAttribute('type') || 'text').toLowerCase();
      return {checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button',
              number: 'spinbutton', search: 'searchbox'}[ty] || 'textbox';
    }
    if (/^h[1-6]$/.test(t)) return 'heading';
    return null;
  };
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  // The attribute, not the property: a form holding an <input name="id"> answers form.id with that input.
  const idOf = (n) => n.getAttribute('id') || null;
  // The accessible name in the order of ARIA's name computation (accname 1.2): aria-labelledby,
  // aria-label, the host language's label (<label>, a button input's value), the content for the
  // roles that are named from their content (a link, a button, a menu item: `<a title="Edit this
  // page">Owls Guide</a>` is "Owls Guide"), then placeholder and title; any other element its
  // text last, as a person would name it.
  const FROM_CONTENT = /^(button|link|menuitem|menuitemcheckbox|menuitemradio|tab|option|treeitem|heading|cell|gridcell|columnheader|rowheader|switch|tooltip)$/;
  const contentOf = (n) => {
    const text = clean(n.innerText || n.textContent);
    if (text) return text.slice(0, 120);
    const img = n.querySelector && n.querySelector('img[alt]:not([alt=""]),svg[aria-label],[role=img][aria-label]');
    return img ? clean(img.getAttribute('alt') || img.getAttribute('aria-label')).slice(0, 120) : '';
  };
  const labelOf = (n) => {
    const by = (n.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean)
      .map((id) => document.getElementById(id)).filter(Boolean).map((e) => clean(e.innerText || e.textContent)).filter(Boolean);
    if (by.length) return by.join(' ').slice(0, 120);
    if (clean(n.getAttribute('aria-label'))) return clean(n.getAttribute('aria-label'));
    if (n.labels && n.labels.length) return clean(n.labels[0].textContent);
    // <input type=submit value="Save">: its value is its name (an unset one reads "Submit")
    if (n.tagName === 'INPUT' && /^(submit|reset|button)$/i.test(n.type)) return clean(n.value || (n.type === 'submit' ? 'Submit' : n.type === 'reset' ? 'Reset' : ''));
    const role = n.getAttribute('role') || implicit(n);
    if (role && FROM_CONTENT.test(role) && !/^(INPUT|SELECT|TEXTAREA)$/.test(n.tagName)) {
      // (content of symbols only, an icon's "+" or "⋯", says less than a title: the title then)
      const text = contentOf(n);
      if (/[\p{L}\p{N}]/u.test(text) || (text && !n.getAttribute('title'))) return text;
    }
    if (n.getAttribute('placeholder')) return n.getAttribute('placeholder');
    if (n.getAttribute('title')) return n.getAttribute('title');
    return clean(n.innerText || n.textContent).slice(0, 120);
  };
  const sig = (n) => {
    const data = {};
    for (const a of n.attributes) if (a.name.startsWith('data-') && a.name !== 'data-testid' && a.name !== 'data-aj-index') data[a.name] = a.value.slice(0, 200);
    return {tag: n.tagName.toLowerCase(), testid: n.getAttribute('data-testid'),
            classes: (typeof n.className === 'string' ? n.className.trim() : ''), id: idOf(n),
            role: n.getAttribute('role') || implicit(n), data};
  };
  const selectorOf = (n) => {
    const parts = [];
    let cur = n;
    while (cur && cur.nodeType === 1 && cur.tagName.toLowerCase() !== 'html') {
      const tid = cur.getAttribute('data-testid');
      if (idOf(cur)) { parts.unshift('#' + CSS.escape(idOf(cur))); break; }
      let part = cur.tagName.toLowerCase();
      if (tid) part += '[data-testid="' + tid + '"]';
      const parent = cur.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === cur.tagName &&
          (!tid || c.getAttribute('data-testid') === tid));
        if (same.length > 1) part += ':nth-of-type(' + (Array.from(parent.children).filter((c) => c.tagName === cur.tagName).indexOf(cur) + 1) + ')';
      }
      parts.unshift(part);
      if (tid && document.querySelectorAll('[data-testid="' + tid + '"]').length === 1) break;
      cur = parent;
    }
    return parts.join(' > ');
  };
"""
"""In-page helpers (role, accessible name, signature, selector of an element) shared with toolcache's recorder."""

_OBSERVE_JS = "(maxText) => {\n" + ELEMENT_HELPERS_JS + r"""  const visible = (n) => {
    if (n.closest('[hidden],[aria-hidden=true]')) return false;
    const r = n.getBoundingClientRect();
    if (r.width === 0 && r.height === 0 && n.getClientRects().length === 0) return false;
    const st = getComputedStyle(n);
    return st.visibility !== 'hidden' && st.display !== 'none';
  };
  const writeLike = (n) => {
    const t = n.tagName.toLowerCase();
    const ty = (n.getAttribute('type') || '').toLowerCase();
    const isButton = t === 'button' || (t === 'input' && ['submit', 'button', 'image'].includes(ty));
    const form = n.form || n.closest('form');
    const posts = !!form && (form.getAttribute('method') || 'get').toLowerCase() !== 'get';
    if (!isButton) return posts && !['checkbox', 'radio'].includes(ty) && t !== 'select' ? 'enter' : false;
    if (form) return posts;
    return true;  // a script button outside any form may send anything
  };
  for (const old of document.querySelectorAll('[data-aj-index]')) old.removeAttribute('data-aj-index');
  const sel = 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link],' +
              '[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[role=textbox],[role=combobox],' +
              '[role=searchbox],[contenteditable=""],[contenteditable=true],[onclick],[tabindex]:not([tabindex="-1"])';
  // Read everything first and mark the elements last: an attribute written between two layout
  // reads (innerText, getComputedStyle) can make the next read restyle the page, once per element.
  // A modal dialog makes the rest of the document inert (no click or key reaches it): offer only
  // what can be acted on, the top modal's elements, and nothing under an inert attribute.
  const modals = document.querySelectorAll('dialog:modal');
  const modal = modals.length ? modals[modals.length - 1] : null;
  const out = [];
  const marked = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!visible(el) || el.disabled || (modal && !modal.contains(el)) || el.closest('[inert]')) continue;
    const i = out.length;
    marked.push(el);
    const me = sig(el);
    const attrs = {};
    for (const a of el.attributes) if (a.name !== 'data-aj-index') attrs[a.name] = a.value.slice(0, 200);
    const ancestors = [];
    for (let p = el.parentElement; p && p.tagName.toLowerCase() !== 'body'; p = p.parentElement) ancestors.push(sig(p));
    let value = null;
    const t = me.tag;
    if (t === 'input' && ['checkbox', 'radio'].includes((el.type || '').toLowerCase())) value = el.checked ? 'checked' : 'unchecked';
    else if (t === 'input' || t === 'textarea') value = el.value;
    else if (t === 'select') value = el.options[el.selectedIndex] ? el.options[el.selectedIndex].text : '';
    const options = t === 'select' ? Array.from(el.options).map((o) => clean(o.text)) : null;
    out.push({index: i, selector: selectorOf(el), role: me.role, name: labelOf(el),
              text: clean(el.innerText || el.textContent).slice(0, 200), tag: t, testid: me.testid,
              attributes: attrs, ancestors, in_dialog: !!el.closest('dialog[open],[role=dialog],[aria-modal=true]'),
              value, options, write: writeLike(el)});
  }
  const text = clean(document.body ? document.body.innerText : '').slice(0, maxText);
  marked.forEach((el, i) => el.setAttribute('data-aj-index', String(i)));
  // One JSON string: Playwright's own serialisation of the nested descriptors costs seconds on a big page.
  return JSON.stringify({url: location.href, title: document.title, elements: out, text,
          scroll: {y: window.scrollY, height: document.documentElement.scrollHeight, view: window.innerHeight}});
}
"""


@dataclass
class Element:
    """One interactive element as the agent numbered it."""

    index: int
    selector: str
    role: str | None
    name: str
    text: str
    tag: str
    testid: str | None = None
    value: str | None = None
    options: list[str] | None = None
    write: bool = False
    """A button that submits a non-GET form or runs a script: clicking it may change the site."""
    submits: bool = False
    """A field of a non-GET form: typing into it with Enter submits the form."""
    info: dict[str, Any] = field(default_factory=dict)
    """The whole descriptor (attributes, ancestors, in_dialog), for the trace's target."""

    def line(self) -> str:
        """The element as the model sees it: ``[3] link "Winstop ..." (a#store-card) sel=...``."""
        where = self.tag + (f"#{self.testid}" if self.testid else "")
        out = f"[{self.index}] {self.role or self.tag} {_quote(self.name)} ({where})"
        if self.value is not None:
            out += f" value={_quote(self.value)}"
        if self.options:
            out += " options=" + "|".join(self.options[:20])
        return out + f" sel={self.selector}"


@dataclass
class Observation:
    url: str
    title: str
    elements: list[Element]
    text: str
    scroll: dict[str, float] = field(default_factory=dict)

    def element(self, index: int) -> Element | None:
        return self.elements[index] if 0 <= index < len(self.elements) else None

    def render(self, budget_tokens: int = 6000) -> str:
        """URL, title, elements then visible text, cut to about ``budget_tokens`` tokens.

        Elements take up to three quarters of the budget (the rest of them are
        counted, not shown); the visible text gets what is left.
        """
        budget = budget_tokens * CHARS_PER_TOKEN
        head = f"URL: {self.url}\nTitle: {self.title}\n"
        lines: list[str] = []
        used = len(head)
        cap = int(budget * 0.75)
        shown = 0
        for el in self.elements:
            line = el.line()
            if used + len(line) + 1 > cap:
                break
            lines.append(line)
            used += len(line) + 1
            shown += 1
        if shown < len(self.elements):
            lines.append(f"... {len(self.elements) - shown} more elements not shown (scroll to see others)")
        room = max(0, budget - used - 40)
        text = self.text if len(self.text) <= room else self.text[:room] + " ..."
        return head + "Interactive elements:\n" + "\n".join(lines) + "\nVisible text:\n" + text


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_LINE = re.compile(r'^\[(\d+)\] (\S+) "((?:[^"\\]|\\.)*)" \(([^)#]*)(?:#([^)]*))?\)(?: value="((?:[^"\\]|\\.)*)")?(?: options=.*?)? sel=(.*)$')


def parse_elements(rendered: str) -> list[dict[str, Any]]:
    """The element lines of a rendered observation back as dicts (index, role, name, tag, testid, value, selector).

    For policies that read what the model reads (the oracle of the bench).
    """
    out = []
    for raw in rendered.splitlines():
        m = _LINE.match(raw)
        if m is None:
            continue
        unq = lambda s: None if s is None else s.replace('\\"', '"').replace("\\\\", "\\")  # noqa: E731
        out.append(
            {
                "index": int(m.group(1)),
                "role": m.group(2),
                "name": unq(m.group(3)),
                "tag": m.group(4),
                "testid": m.group(5),
                "value": unq(m.group(6)),
                "selector": m.group(7),
            }
        )
    return out


async def observe(page: Any, *, max_text: int = 20_000) -> Observation:
    """Number the page's visible interactive elements and describe the page."""
    raw = json.loads(await page.evaluate(_OBSERVE_JS, max_text))
    elements = [
        Element(
            index=e["index"],
            selector=e["selector"],
            role=e["role"],
            name=e["name"] or "",
            text=e["text"] or "",
            tag=e["tag"],
            testid=e["testid"],
            value=e["value"],
            options=e["options"],
            write=e["write"] is True,
            submits=e["write"] == "enter",
            info={k: e[k] for k in ("attributes", "ancestors", "in_dialog")},
        )
        for e in raw["elements"]
    ]
    return Observation(url=raw["url"], title=raw["title"], elements=elements, text=raw["text"], scroll=raw["scroll"])
