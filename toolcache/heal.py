"""``toolcache heal``: rebuild the tools a run found broken, verify them on the live site, save a new cache version.

A run with ``record_suspects`` writes each tool that no longer fits the site
into the cache's ``suspects.json`` (:class:`agentjit.cache.SuspectStore`): the
page it failed on, the check that failed, its arguments, and, when the stepwise
agent finished the call instead, the agent's validated answer. Healing one
suspect:

1. opens the suspect's page fresh on the live site (the URL is kept on
   ``--site``'s origin);
2. finds the selectors of the tool (the string literals of its pre_check,
   execute and post_check that are CSS selectors) that match nothing on that
   page any more;
3. proposes replacements from the page itself (its ids, classes and
   ``data-*``/``name``/``role``/``aria-label`` attributes), closest to the old
   selector first, each written into the tool through the builder's one
   literal encoder (:func:`toolcache.literal.js`);
4. verifies each candidate by running it, read-only, on a fresh load of the
   page with the suspect's arguments: every check passes, the output fits the
   schema and is not empty, and, when the agent answered the failed call, it
   agrees with that answer on at least half of its fields. The first that
   passes is kept.

A WRITE is verified without reaching the site: a run that recorded its good
call kept the requests it sent and the site's answers, and the candidate must
send the same request (answered from the record by a
:class:`~toolcache.recorded.WriteGuard`, modulo the hidden inputs its good page
supplied itself and the page here lacks: :func:`without_page_tokens`); a sign-in
whose recorded answer lands back on its own form is verified by that request.
A WRITE with no recorded call is healed only when its broken selectors are all
in its pre_check, verified by its pre_check alone. A WRITE is held to each of
its good calls on record; names its good page lacked (what its own click draws)
are found among what its run draws for the call that needs them
(:meth:`_Healer._other_writes`). A page the site now shows in another state
than the tool needs (an emptied cart) is healed on the run's own page, its
snapshot served at that address (:meth:`_Healer._serve_state`). A WRITE that
broke after its request reached the site (the order placed, its confirmation
unread) is verified with that run's write instead (:func:`_run_call`): its
request answered with the run's, and the page the run's redirect led to served
there when the site answers that address with an error now (an order heal never
placed); the names its script reads there are mapped from its good call's
landing page (:data:`_MAPPED_JS`: by text, else by shape and place). A recorded
answer whose redirect leads to such an error page otherwise verifies the WRITE
by its request (:func:`~toolcache.heal_fill.lands_nowhere`).

Healed tools get ``version + 1``, the cache ``revision + 1``; the plan cache
keeps every entry whose plan calls no changed tool (re-keyed under the new
fingerprint) and drops the others; the healed suspects are cleared. Each file
is written atomically.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import difflib
import errno
import itertools
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from agentjit.cache import SuspectStore, ToolCache
from agentjit.exceptions import CacheError, ConfigError, SiteUnreachable
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.schema import validate_output
from agentjit.protocol.trace import REDACTED
from agentjit.protocol.urls import OffSiteURL, site_url
from agentjit.runtime import BrowserPool, call_tool
from agentjit.runtime.healing import COUNT_JS as _COUNT_JS
from agentjit.runtime.healing import (
    LITERAL,
    LOCATOR_TEXT,
    REQUEST_PHASE,
    missing_selectors,
    selector_literals,
    text_inputs,
)
from agentjit.runtime.invoke import run_post_check
from agentjit.runtime.navigation import is_navigation_race
from agentjit.runtime.network import PENDING_JS

from .codegen import PRELUDE
from .heal_address import by_address, template_text
from .heal_checks import (
    EVIDENCE_JS,
    MIN_SIMILARITY,
    ROWS_JS,
    key_map,
    lands_unlike_good,
    rekeyed_execute,
    renamed,
    rows_unlike_good,
    similarity,
    unlike_good,
)
from .heal_fill import (
    HELPERS_CHANGE,
    fills,
    lands_nowhere,
    likest_write_call,
    refilled,
    with_current_helpers,
)
from .heal_rows import shows_output
from .literal import css_attr, css_ident, js
from .navigation import page_html
from .record import DOM_QUIET_JS
from .recorded import WriteGuard, answerable, describe, request_params

__all__ = ["HealReport", "heal_cache", "replace_literal", "rekey_plans", "without_page_tokens"]

log = logging.getLogger(__name__)

MAX_CANDIDATES = 40
"""Replacement selectors tried per broken selector, closest first."""
CANDIDATE_TIMEOUT_MS = 250
"""How long one candidate's checks may poll (a wrong selector fails them quickly)."""
DRAWN_WAIT_S = 5.0
"""How long a freshly loaded page is given to draw what its scripts load late (its fetches, then a quiet DOM), and
a selector that matches nothing to appear, before it counts as gone (the build's verifier polls as long)."""
QUIET_MS = 150
SETTLED_MS = 500
"""How long a page must stay quiet (no request open, no DOM change) before a selector that matches nothing on it
counts as gone."""
LANDING_PHASES = ("execute", "navigation", "post_check")
"""The phases a WRITE whose recorded answer led to a page the site does not have fails in after its request: its
script reading that page (a fetch's), its navigation to it, its post_check there (:func:`lands_nowhere`)."""
UNANSWERED_LIMIT = 3
"""Suspects in a row whose pages the site does not answer before heal stops (:class:`SiteUnreachable`); fewer fail
only their tools."""
NAVIGATION_MS = 10_000
"""How long a candidate of a navigating tool may take to navigate (a wrong one fails before, finding no element;
a shared machine may take seconds over a right one's)."""


#: Every selector-ish handle on the page: ids, classes and the attributes sites key elements by.
_HANDLES_JS = r"""
() => {
  const out = new Set();
  const keep = /^(data-[\w-]+|name|role|aria-label|type|for|title|placeholder)$/;
  for (const el of document.querySelectorAll('body *')) {
    if (out.size > 4000) break;
    const tag = el.tagName.toLowerCase();
    if (el.id) out.add(JSON.stringify(['id', '', el.id, tag]));
    for (const c of el.classList) out.add(JSON.stringify(['class', '', c, tag]));
    for (const a of el.attributes) {
      if (keep.test(a.name) && a.value.length <= 80) out.add(JSON.stringify(['attr', a.name, a.value, tag]));
    }
  }
  return [...out].map((s) => JSON.parse(s));
}
"""



#: Start keeping the handles (as :data:`_HANDLES_JS` gives them) of every element the page draws from now on: what
#: a tool's own click reveals (a dialog's option groups), on no page before it. :data:`_DRAWN_JS` reads them.
_DRAWN_START_JS = r"""
() => {
  const keep = /^(data-[\w-]+|name|role|aria-label|type|for|title|placeholder)$/;
  const seen = new Set();
  const add = (root) => {
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (seen.size > 4000) return;
      const tag = el.tagName.toLowerCase();
      if (el.id) seen.add(JSON.stringify(['id', '', el.id, tag]));
      for (const c of el.classList) seen.add(JSON.stringify(['class', '', c, tag]));
      for (const a of el.attributes) {
        if (keep.test(a.name) && a.value.length <= 80) seen.add(JSON.stringify(['attr', a.name, a.value, tag]));
      }
    }
  };
  window.__healDrawn = seen;
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'childList') r.addedNodes.forEach((n) => { if (n.nodeType === 1) add(n); });
      else if (r.target.nodeType === 1) add(r.target);
    }
  }).observe(document.documentElement, {childList: true, subtree: true, attributes: true});
}
"""
_DRAWN_JS = "() => window.__healDrawn ? [...window.__healDrawn].map((s) => JSON.parse(s)) : []"


@dataclass
class HealReport:
    cache: str
    site: str
    suspects: list[str] = field(default_factory=list)
    healed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    changes: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per healed tool: old selector -> new selector."""
    candidates_tried: dict[str, int] = field(default_factory=dict)
    writes_answered: dict[str, list[str]] = field(default_factory=dict)
    """Per healed WRITE: the requests its verification made, each answered from the recorded one (never sent)."""
    renamed_keys: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per healed READ: the key paths of its output the page names otherwise now, each with the old key the healed
    tool gives it under (a column relabelled: its values are the old column's)."""
    page_params: dict[str, list[str]] = field(default_factory=dict)
    """Per WRITE: the recorded parameters its good page supplied itself (hidden inputs) that the page it was healed
    on has no more, so its request was matched without them."""
    by_address: dict[str, str] = field(default_factory=dict)
    """Per navigating READ healed by its good call's landing address instead of its form
    (:mod:`toolcache.heal_address`): that address as a template, ``{input}`` where an argument goes."""
    landings: dict[str, str] = field(default_factory=dict)
    """Per WRITE verified with the write of the run that found it broken: the page that write led to, which the site
    no longer shows (an order heal never placed), where its script and post_check were judged as the run kept it."""
    outputs: dict[str, Any] = field(default_factory=dict)
    """Per WRITE healed with the write of the run that found it broken: the output the healed tool reads from that
    write's own answer, which is what the run's call would have given (the run confirms it with the healed post_check
    on the page the write led to instead of sending it again: :mod:`agentjit.runtime.repair`)."""
    plans_kept: int = 0
    plans_dropped: int = 0
    signed_in: dict[str, Any] | None = None
    """With ``--sign-in``: the sign-in tool heal ran on the site first (``tool``, ``ok``, ``reason``), so the pages
    behind it are healed signed in; the session lives in heal's browser only."""
    probed: list[dict[str, Any]] = field(default_factory=list)
    """The tools heal probed beside the suspects (:func:`probe_tools`): ``tool``, ``ok`` (None: not probed),
    ``reason``, ``suspect`` (made suspect and healed in this round), ``seconds``."""
    revision: int = 0
    time_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["time_s"] = round(self.time_s, 3)
        return data


def replace_literal(source: str, old: str, new: str) -> str:
    """``source`` with every string literal whose value is ``old`` written as the literal of ``new``."""

    def swap(m: re.Match[str]) -> str:
        try:
            value = ast.literal_eval(m.group(0))
        except (ValueError, SyntaxError):
            return m.group(0)
        return js(new) if value == old else m.group(0)

    return LITERAL.sub(swap, source)


#: What the elements an old selector matched on the tool's last good page are called now: the page's elements
#: with the same tag and text (or name/type) as one of them, each handle with how many of them it covers; when none
#: has its tag, those of another tag with its text (a record drawn as a card where it was a table row); when none
#: has its text either (an order's page for another order), those of its shape: its tag and the names of its
#: attributes but the renamed ones (class, id, data-testid), with the values of name, type and role, at its place
#: among its parent's children of its tag when several have that shape (a redesign renames, it seldom reorders).
_MAPPED_JS = r"""
([oldHtml, sels]) => {
  const old = new DOMParser().parseFromString(oldHtml, 'text/html');
  const norm = (t) => (t || '').replace(/\s+/g, ' ').trim().slice(0, 160);
  const sig = (el) => [el.tagName, norm(el.textContent), el.getAttribute('name') || '', el.getAttribute('type') || ''].join('|');
  const renamed = /^(class|id|data-testid|style)$/;
  const shape = (el) => [el.tagName, [...el.attributes].map((a) => a.name).filter((n) => !renamed.test(n)).sort().join(' '),
                         ...['name', 'type', 'role'].map((n) => el.getAttribute(n) || '')].join('|');
  const place = (el) => {
    const p = el.parentElement;
    return p ? p.tagName + ':' + [...p.children].filter((c) => c.tagName === el.tagName).indexOf(el) : '';
  };
  const keep = /^(data-[\w-]+|name|role|aria-label|type|for|title|placeholder)$/;
  const here = [...document.querySelectorAll('body *')];
  const sigs = here.map(sig);
  return sels.map((sel) => {
    let olds;
    try { olds = [...old.querySelectorAll(sel)]; } catch (e) { return {count: 0, handles: []}; }
    const want = new Set(olds.map(sig));
    let like = (i) => want.has(sigs[i]);
    if (!sigs.some((s) => want.has(s))) {
      // none drawn by its tag: by another, the same text (a table's rows now cards of divs: heal_rows)
      const loose = (s) => s.slice(s.indexOf('|'));
      const texts = new Set(olds.filter((el) => norm(el.textContent).length >= 3).map((el) => loose(sig(el))));
      like = (i) => texts.has(loose(sigs[i]));
      if (!sigs.some((s, i) => like(i))) {
        // none with its text: of its shape at its place; else of its shape, when it has an attribute of its own
        const shapes = new Set(olds.map(shape).filter((s) => s.split('|')[1]));
        const places = new Set(olds.map((el) => shape(el) + '@' + place(el)));
        const placed = here.map((el) => places.has(shape(el) + '@' + place(el)));
        like = placed.some(Boolean) ? (i) => placed[i] : (i) => shapes.has(shape(here[i]));
      }
    }
    const score = new Map();
    here.forEach((el, i) => {
      if (!like(i)) return;
      const hs = [];
      if (el.id) hs.push(['id', '', el.id]);
      for (const c of el.classList) hs.push(['class', '', c]);
      for (const a of el.attributes) if (keep.test(a.name) && a.value.length <= 80) hs.push(['attr', a.name, a.value]);
      for (const h of hs) { const k = JSON.stringify(h); score.set(k, (score.get(k) || 0) + 1); }
    });
    return {count: olds.length, handles: [...score.entries()].map(([k, n]) => [...JSON.parse(k), n])};
  });
}
"""


#: Per selector: whether the page has an element of the tag and text (numbers aside: a cart link's count), and the
#: ``name`` and ``type`` (an input has no text: the search box is no address field), of one the selector matched on
#: the good page (``oldHtml``), or of its tag with every word of its text among not many more (Wagtail's page rows
#: gain their row menus' words once its scripts ran): the thing is still shown, by whatever name.
_LIKE_JS = r"""
([oldHtml, sels]) => {
  const old = new DOMParser().parseFromString(oldHtml, 'text/html');
  const text = (el) => (el.textContent || '').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
  const sig = (el) => [el.tagName, text(el).slice(0, 160), el.getAttribute('name') || '', el.getAttribute('type') || ''].join('|');
  const all = [...document.querySelectorAll('body *')];
  const here = new Set(all.map(sig));
  // the words of an element's text nodes, each apart (cells run together in textContent), numbers as '#'
  const words = (el) => {
    const walk = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const parts = [];
    for (let n = walk.nextNode(); n && parts.length < 400; n = walk.nextNode()) parts.push(n.nodeValue);
    return parts.join(' ').replace(/\d+/g, ' # ').toLowerCase().split(/[^\p{L}\p{N}#]+/u).filter(Boolean);
  };
  const byTag = new Map();
  // or one of its tag that shows the words it showed, and not many more: a row whose menu a script has drawn
  // into it since the good page was saved (its text grew), not a wrapper of the whole page. One word in six may
  // differ: a time the page tells relative to now ("1 minute ago", "2 hours ago") has changed since
  const shown = (el) => {
    const want = new Set(words(el));
    if (want.size < 2) return false;
    if (!byTag.has(el.tagName)) {
      byTag.set(el.tagName, all.filter((e) => e.tagName === el.tagName).slice(0, 3000).map(words));
    }
    const spare = Math.floor(want.size / 6);
    return byTag.get(el.tagName).some((have) => have.length <= 4 * want.size + 10
                                                && [...want].filter((w) => !have.includes(w)).length <= spare);
  };
  // an editor's text is what was typed into it (a fill's good page is saved after the fill), no evidence of what it
  // is: one of its tag and role here is like it
  const editable = (el) => ['', 'true', 'plaintext-only'].includes(el.getAttribute('contenteditable'));
  const editorSig = (el) => [el.tagName, el.getAttribute('role') || ''].join('|');
  const editors = new Set(all.filter(editable).map(editorSig));
  return sels.map((sel) => {
    let olds;
    try { olds = [...old.querySelectorAll(sel)]; } catch (e) { return true; }
    return olds.some((el) => here.has(sig(el)) || (editable(el) && editors.has(editorSig(el)))) || olds.slice(0, 20).some(shown);
  });
}
"""


#: ``[hidden, here]``: the names of the hidden inputs of the tool's good page (``oldHtml``), the names of the
#: fields of the page as it is now.
#: Whether the page has a visible password field the good page (its HTML) had none of.
_SIGN_IN_WALL_JS = r"""
(oldHtml) => {
  const old = new DOMParser().parseFromString(oldHtml, 'text/html');
  if (old.querySelector('input[type=password]')) return false;
  return [...document.querySelectorAll('input[type=password]')].some((e) => e.getClientRects().length > 0);
}
"""

_FIELDS_JS = r"""
(oldHtml) => {
  const old = new DOMParser().parseFromString(oldHtml, 'text/html');
  return [[...old.querySelectorAll('input[type=hidden][name]')].map((e) => e.getAttribute('name')),
          [...document.querySelectorAll('[name]')].map((e) => e.getAttribute('name'))];
}
"""


def without_page_tokens(writes: list[dict[str, Any]], hidden: set[str], here: set[str],
                        args: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:  # fmt: skip
    """``writes`` (a WRITE's recorded requests) without the form parameters its good page supplied itself and the
    page it is healed on does not have; and their names.

    A hidden input (a CSRF token: Roundup's classic template has ``@csrf`` in its login form, the jinja2 template
    has none) is the page's, not the tool's: the tool never sets it, so a redesign that drops it does not make the
    tool send another request. Kept: a parameter carrying one of ``args``' values, one the page here still has
    (its value, any, is still required), every parameter of a JSON body (a script's, not a form's)."""
    values = {str(v) for v in args.values() if v is not None and v != ""}
    out: list[dict[str, Any]] = []
    dropped: list[str] = []
    for write in writes:
        body = write.get("post_data")
        if not isinstance(body, str) or not body or body.lstrip()[:1] in ("{", "["):
            out.append(write)
            continue
        params = request_params(body)
        gone = {k for k, vs in params.items() if k in hidden and k not in here and not values & set(vs)}
        if not gone:
            out.append(write)
            continue
        dropped += [k for k in sorted(gone) if k not in dropped]
        kept = [(k, v) for k, vs in params.items() if k not in gone for v in vs]
        out.append({**write, "post_data": urlencode(kept)})
    return out, dropped


def _sign_in_params(writes: list[dict[str, Any]], args: dict[str, Any]) -> list[dict[str, Any]]:
    """A sign-in's recorded requests holding only the parameters that carried its arguments or a secret: the
    others (a CSRF token, the columns of the list the sign-in box sat beside on classic Roundup) were its page's,
    and a redesigned page sends others. The method and route are still the recorded ones."""
    theirs = {k for w in writes for k in request_params(w.get("post_data") if isinstance(w.get("post_data"), str) else None)}
    kept, _dropped = without_page_tokens(writes, theirs, set(), {**args, "": REDACTED})
    return kept


_HELPER_SELECTORS = frozenset(selector_literals(PRELUDE))
"""The selectors of the helpers every built tool starts with (``__errors``' error markup, ``[hidden]``): what any
page may lack, never a name the tool was made for, so never a broken one."""


_ROUTES_LINE = re.compile(r"^const __ROUTES = \[.*\];$", re.MULTILINE)
"""The route templates a built tool names pages by (``admin_library_book#delete_multiple_objects``): not selectors."""


def _signs_in(tool: ToolManifest) -> bool:
    """Whether ``tool`` signs in: a WRITE with a secret input (``writeOnly``, given at call time)."""
    props = tool.input_schema.get("properties") or {}
    return tool.is_write and any(isinstance(p, dict) and p.get("writeOnly") for p in props.values())


def _handle_selector(kind: str, name: str, value: str) -> str:
    if kind == "id":
        return "#" + css_ident(value)
    if kind == "class":
        return "." + css_ident(value)
    return css_attr(name, value)


def _kind(selector: str) -> str:
    """``#`` for an id, ``.`` for a class, the attribute's name for ``[name=...]``, else ``""``."""
    if selector[:1] in "#.":
        return selector[0]
    m = re.match(r"\[([\w-]+)", selector)
    return m.group(1) if m else ""


def _kind_rank(broken: str, candidate: str) -> int:
    """0 for a candidate of the broken selector's own kind (a renamed ``data-testid`` is a ``data-testid``), 1 for
    an id or a class, 2 for another attribute (often the site's data, ``data-category="Mexican"``, true of one
    item only)."""
    kind = _kind(candidate)
    return 0 if kind == _kind(broken) else 1 if kind in ("#", ".") else 2


_NAME_TOKEN = re.compile(r"""([#.])(-?[_a-zA-Z][\w-]*)|\[[^\]]*\]""")
"""A name inside a selector: ``.list``, ``#submit_button``, ``[data-testid=x]``."""


def _restructured(broken: str, handles: list[list[str]]) -> list[str]:
    """``broken`` kept as a structure with one of its names changed (``table.list tr:has(> td)`` on a page whose
    tables are ``.table``): without that name, then with each of the page's names of the same kind on the tag
    that carried it."""
    tokens = list(_NAME_TOKEN.finditer(broken))
    if not tokens or (len(tokens) == 1 and tokens[0].group(0) == broken):
        return []  # a selector that is one name: the plain candidates are these
    out: list[str] = []
    for m in tokens:
        head, tail = broken[: m.start()], broken[m.end():]
        tag = re.search(r"([a-zA-Z][\w-]*)$", head)
        out.append(head + tail if tag else head + "*" + tail)
        kind = m.group(1) or "["
        for hkind, name, value, htag in handles:
            if tag is not None and htag != tag.group(1).lower():
                continue
            made = _handle_selector(hkind, name, value)
            if made[0] == kind:
                out.append(head + made + tail)
    return [c for c in dict.fromkeys(out) if c != broken and c.strip()]


def _candidates(broken: str, handles: list[list[str]]) -> list[str]:
    """Selectors made of the page's handles, the most like ``broken`` first; a structural selector's own
    structure with one name changed before them. A locator ``CSS >> text=Name`` keeps its name: its CSS part is
    what changes."""
    css, sep, text = broken.partition(LOCATOR_TEXT)
    if sep:
        return [c + sep + text for c in _candidates(css, handles)]
    made = {_handle_selector(kind, name, value) for kind, name, value, _tag in handles}
    made.discard(broken)
    ranked = sorted(made, key=lambda s: (-difflib.SequenceMatcher(None, broken, s).ratio(), s))
    return list(dict.fromkeys(_restructured(broken, handles) + ranked))


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{path}.{k}"))
        return out
    if isinstance(value, list):
        out = {f"{path}#len": len(value)}
        for i, v in enumerate(value[:50]):
            out.update(_leaves(v, f"{path}[{i}]"))
        return out
    return {path: value}


def _empty(output: Any) -> bool:
    leaves = _leaves(output)
    if not leaves:
        return True
    lists = [v for k, v in leaves.items() if k.endswith("#len")]
    return (bool(lists) and all(n == 0 for n in lists)) or all(v in (None, "", 0) for k, v in leaves.items()
                                                                if not k.endswith("#len"))


class _Healer:
    """Heals one suspect at a time on pages of ``pool``; every state-changing request those pages make goes through
    a :class:`~toolcache.recorded.WriteGuard`: answered from a WRITE's recorded request when it is that request,
    refused otherwise. Nothing healing does reaches the site's data."""

    def __init__(self, pool: BrowserPool, base_url: str, store: SuspectStore | None = None) -> None:
        self.store = store
        self.pool = pool
        self.base_url = base_url
        self.session: dict[str, Any] | None = None
        """The storage state of a sign-in heal made (:meth:`sign_in`): every later page starts with it."""
        self._dirty = True
        self.guard = WriteGuard(base_url, mode="recorded")
        self.guard.start_trace(None)
        self._answered = 0
        """How many requests the last guarded call made that were answered from the record."""
        self._old_counts: dict[str, int] = {}
        """How many elements each broken selector matched on the good page last compared (:meth:`_mapped_on`)."""
        self._good_output: Any = None
        """The output the READ being healed gave in its good call (run again with that call's arguments), or None."""
        self._good_landing: tuple[dict[str, Any], tuple[list[str], list[str]]] | None = None
        """For a navigating READ: its good call (``url``, ``after_url``) and the rows of the pages before and after."""
        self._keys: dict[str, str] = {}
        """The output keys the last READ verified gives under new names, mapped back to its good call's (:func:`key_map`)."""
        self._landing_kept = False
        """The post_check names of the navigating tool being healed were kept: the page it lands on shows the site in
        another state (:meth:`_heal_landing`)."""
        self._others: list[dict[str, Any]] = []
        """The READ being healed's other good calls (another page, other arguments): it must give each one's output."""
        self.unanswered = 0
        """Suspects in a row whose page the site did not answer (:func:`_heal_one`)."""

    async def _open(self, page: Any, url: str) -> None:
        for attempt in range(3):
            try:
                await page.goto(url, wait_until="domcontentloaded", timeout=15_000)
                break
            except Exception as exc:
                # a candidate's refused request left an error page loading: it interrupts this goto, try again
                if attempt < 2 and is_navigation_race(exc):
                    await asyncio.sleep(0.2)
                    continue
                raise SiteUnreachable(f"cannot open {url}: {str(exc).splitlines()[0]}") from exc
        await self._drawn(page)

    async def _drawn(self, page: Any) -> None:
        """Let the page's scripts draw what the tool reads: its load event, its own fetches, then a quiet DOM."""
        deadline = time.monotonic() + DRAWN_WAIT_S
        try:
            await page.wait_for_load_state("load", timeout=DRAWN_WAIT_S * 1000)
        except Exception:  # a page still loading an image: go on with what is drawn
            log.debug("no load event on %s", page.url)
        while time.monotonic() < deadline:
            try:
                if not await page.evaluate(PENDING_JS):
                    break
            except Exception:  # a page mid-navigation
                break
            await asyncio.sleep(0.05)
        try:
            await page.evaluate(DOM_QUIET_JS, [QUIET_MS, int(max(0.2, deadline - time.monotonic()) * 1000)])
        except Exception:  # a page that navigated away meanwhile
            log.debug("no quiet DOM on %s", page.url)

    async def _missing(self, page: Any, bodies: list[str]) -> list[str]:
        """The selectors of ``bodies`` that match nothing on ``page``, still nothing once the page is quiet: no
        request open and no DOM change for :data:`SETTLED_MS` (an element a late fetch draws is not gone), waited
        for at most :data:`DRAWN_WAIT_S`."""
        source = _ROUTES_LINE.sub("", "\n".join(bodies))
        missing = [m for m in await missing_selectors(page, source) if m not in _HELPER_SELECTORS]
        deadline = time.monotonic() + DRAWN_WAIT_S
        while missing and time.monotonic() < deadline:
            settled = await self._settled(page, deadline)
            missing = [m for m in missing if m in await missing_selectors(page, source)]
            if settled:
                break
        return missing

    async def _settled(self, page: Any, deadline: float) -> bool:
        """Wait until ``page`` has no request open and its DOM has not changed for :data:`SETTLED_MS` (True), or
        until ``deadline`` (False)."""
        while time.monotonic() < deadline:
            try:
                if await page.evaluate(PENDING_JS):
                    await asyncio.sleep(0.05)
                    continue
                left_ms = int((deadline - time.monotonic()) * 1000)
                if await page.evaluate(DOM_QUIET_JS, [SETTLED_MS, max(left_ms, 1)]):
                    return not await page.evaluate(PENDING_JS)
            except Exception:  # a page mid-navigation: look again
                await asyncio.sleep(0.05)
        return False

    async def _call(self, page: Any, tool: ToolManifest, args: dict[str, Any], writes: list[dict[str, Any]],
                    timeout_ms: int) -> tuple[Any, str | None]:  # fmt: skip
        """Run ``tool`` through the guard: its outcome and why it failed the guard (a request refused, a WRITE
        that sent none of its recorded requests), or None.

        ``timeout_ms`` bounds how long its checks poll; a navigating tool's new document may take
        :data:`NAVIGATION_MS` to come, and a post_check that fails there is asked once more when the page is
        quiet (:meth:`_settled`, at most :data:`DRAWN_WAIT_S`): a page its scripts draw late passes then, and a
        wrong candidate costs no more than the page takes to settle."""
        self.guard.begin(writes, args, live=False)
        try:
            outcome = await call_tool(page, tool, args, timeout_ms=timeout_ms, validate=False,
                                      navigation_timeout_ms=NAVIGATION_MS if tool.navigates else None)  # fmt: skip
            if tool.navigates and not outcome.ok and outcome.phase == "post_check":
                await self._settled(page, time.monotonic() + DRAWN_WAIT_S)
                again = await run_post_check(page, tool, args, outcome.output, timeout_ms=CANDIDATE_TIMEOUT_MS)
                if again.ok:
                    outcome = outcome.model_copy(update={"ok": True, "phase": None, "reason": None})
        finally:
            answered, _sent, refused = self.guard.end()
        self._answered = len(answered)
        if refused:
            return outcome, f"verify: {refused[0]}"
        if writes and outcome.ok and not answered:
            return outcome, "verify: it sent none of the requests the tool sent while it worked"
        return outcome, None

    async def _verify(self, page: Any, url: str, tool: ToolManifest, args: dict[str, Any], expected: Any,
                      *, pre_only: bool, writes: list[dict[str, Any]] | None = None,
                      timeout_ms: int = CANDIDATE_TIMEOUT_MS) -> str | None:  # fmt: skip
        """None when ``tool`` passes on ``url`` (loaded fresh unless only pre_checks ran since), else why not.

        ``pre_only``: its pre_check alone. A navigating tool's run counts when it navigates and its post_check
        passes on the page it lands on. A WRITE runs only with ``writes``, its recorded requests: each request it
        makes must be one of them (same method, route and arguments) and is answered from the record."""
        if self._dirty or page.url != url:
            await self._open(page, url)
            self._dirty = False
        timeout = timeout_ms
        if pre_only or (tool.is_write and not writes):
            probe = tool.model_copy(update={"execute": "return {};", "post_check": "return true;", "navigates": False,
                                            "output_schema": {"type": "object"}})  # fmt: skip
            outcome = await call_tool(page, probe, args, timeout_ms=timeout, validate=False)
            return None if outcome.ok else f"{outcome.phase}: {outcome.reason}"
        outcome, guarded = await self._call(page, tool, args, writes or [], timeout)
        self._dirty = outcome.phase != "pre_check"  # a pre_check changes nothing; anything after it may have
        if guarded is not None:
            return guarded
        if not outcome.ok and outcome.phase == "post_check" and await self._signed_out_again(page, tool, args):
            return None  # the request was the recorded one; the session the record set is not the site's
        if not outcome.ok and outcome.phase in LANDING_PHASES and lands_nowhere(self.guard, self._answered, page.url):
            return None  # the request was the recorded one; the page its answer leads to was made by that write
        if not outcome.ok:
            return f"{outcome.phase}: {outcome.reason}"
        if tool.is_write:
            return None  # its request was the recorded one and its post_check accepted the recorded answer
        output = outcome.output if outcome.output is not None else {}
        try:
            validate_output(tool, output)
        except Exception as exc:
            return str(exc)
        if _empty(output) and not tool.navigates and (self._good_output is None or not _empty(self._good_output)):
            return "the output is empty"
        share = similarity(expected, output) if expected is not None else 1.0
        if share < MIN_SIMILARITY:
            return f"the output agrees with the fallback's answer on {share:.0%} (at least {MIN_SIMILARITY:.0%} needed)"
        if self._good_output is not None:
            problem = unlike_good(output, self._good_output)
            keys = key_map(output, self._good_output) if problem is not None else {}
            if keys and unlike_good(renamed(output, keys), self._good_output) is None:
                self._keys, problem = keys, None  # its fields, named otherwise by the page: renamed back
            if problem is not None:
                return problem
        problem = await self._landing_problem(page) if tool.navigates else None
        return problem if problem is not None or not self._others else await self._unlike_others(page, tool)

    async def _run_answer(self, page: Any, url: str, tool: ToolManifest, args: dict[str, Any],
                          writes: list[dict[str, Any]]) -> dict[str, Any] | None:  # fmt: skip
        """The output healed ``tool`` (a WRITE) gives on ``url`` with its requests answered by the run's own write
        (``writes``, as the site answered them): what that run's call would have given had it read the answer. None
        when it gives none that fits its output schema."""
        await self._open(page, url)
        self._dirty = True
        outcome, guarded = await self._call(page, tool, args, writes, CANDIDATE_TIMEOUT_MS)
        if guarded is not None or outcome.phase in ("pre_check", "execute") or not isinstance(outcome.output, dict):
            return None
        try:
            validate_output(tool, outcome.output)
        except Exception:  # an answer it read wrong is no answer
            return None
        return dict(outcome.output)

    async def _unlike_others(self, page: Any, tool: ToolManifest) -> str | None:
        """Why ``tool`` (a READ that gave its first good call's output) does not give the output of each of its
        other good calls, run with their arguments on their pages (its fields renamed back as for the first), or
        None. A list read from the right table on one page can be another table's on the next."""
        keys = self._keys
        for call in self._others:
            url = site_url(self.base_url, call.get("url") or "/")
            await self._open(page, url)
            self._dirty = True
            args = dict(call.get("args") or {})
            outcome, guarded = await self._call(page, tool, args, [], CANDIDATE_TIMEOUT_MS)
            if guarded is not None or not outcome.ok:
                return f"its good call on {url}: {guarded or f'{outcome.phase}: {outcome.reason}'}"
            output = renamed(outcome.output if outcome.output is not None else {}, keys)
            problem = unlike_good(output, call.get("output"))
            if problem is not None:
                return f"with its good call's arguments on {url}, {problem}"
        return None

    async def _landing_problem(self, page: Any) -> str | None:
        """Why the page a navigating READ landed on is not what its good call's landing page was, or None."""
        if self._good_landing is None:
            return None
        good, rows = self._good_landing
        if lands_unlike_good(page.url, None, good, rows) is None:  # its address says it, the rows aside
            return None
        await self._drawn(page)
        try:
            [here] = await page.evaluate(ROWS_JS, [[None, None]])
        except Exception:  # a page still navigating: no rows to show it did
            here = []
        return lands_unlike_good(page.url, here, good, rows)

    def _recorded(self, tool: ToolManifest, good: dict[str, Any] | None) -> list[dict[str, Any]] | None:
        """The requests ``tool`` (a WRITE) sent while it worked, when every one of them can be answered offline."""
        writes = good.get("writes") if good is not None else None
        if not tool.is_write or not isinstance(writes, list) or not writes:
            return None
        return writes if all(isinstance(w, dict) and answerable(w) for w in writes) else None

    async def heal(self, tool: ToolManifest, evidence: dict[str, Any], report: HealReport) -> ToolManifest | None:
        good = self.store.good(tool.name) if self.store is not None else None
        raw_args = evidence.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        if tool.is_write and self.store is not None and good is not None:
            good = likest_write_call(self.store.good_calls(tool.name), args) or good
        writes = self._recorded(tool, good)
        where = evidence.get("url") or "/"
        expected = evidence.get("fallback_output")
        if writes is not None and good is not None:
            # a WRITE is verified with the call that worked, where it worked: its request is the recorded one
            where, args = good.get("url") or where, dict(good.get("args") or {})
        ran = _run_call(self.store, tool, evidence, writes)
        if ran is not None:
            # the run's own write, which reached the site as the good call's did: verified with its answer and the
            # page it led to, on the site as it is now; the good calls are held to after it, each by its request
            where, args, writes = ran.url, dict(ran.args), list(ran.writes)
        self.guard.start_trace(None)  # no page of another tool's run is served for this one's
        self._good_output, self._good_landing, self._others = None, None, []
        if _read_again(tool, good):
            # a READ too: what it gave there (and the page it landed on) is what the healed tool must give
            assert good is not None
            where, args, expected = good.get("url") or where, dict(good.get("args") or {}), None
            self._good_output = good.get("output")
            self._others = _other_calls(self.store, tool) if self._good_output is not None else []
            if tool.navigates:
                self._good_landing = (good, await self._good_rows(good))
        url = site_url(self.base_url, where)
        self._landing_kept = False
        if tool.navigates and evidence.get("phase") == "post_check":
            from_snapshot = await self._landing_from_snapshot(tool, evidence, good, args, report)
            if from_snapshot is not None:
                return from_snapshot
        async with self._page() as page:
            await self.guard.install(page)
            await self._open(page, url)
            self._dirty = False
            if not _signs_in(tool) and await self._sign_in_wall(page, good):
                report.failed[tool.name] = (f"{page.url} asks to sign in where the tool worked signed in: heal it signed "
                                            "in (toolcache heal --sign-in --secret NAME=VALUE)")  # fmt: skip
                return None
            if writes:
                writes = await self._own_params(page, writes, good, args, report, tool.name)
            if ran is not None and await self._serve_landing(page, ran):
                report.landings[tool.name] = ran.landing_url
            # a navigating tool's post_check runs on the page it lands on: its names are judged there
            bodies = [tool.pre_check, tool.execute] + ([] if tool.navigates else [tool.post_check])
            broken = await self._missing(page, bodies)
            served = bool(broken) and await self._serve_state(page, url, evidence, good, broken)
            if served:
                broken = await self._missing(page, bodies)
            if tool.is_write and writes is None and any(s in selector_literals(tool.execute) + selector_literals(tool.post_check) for s in broken):
                report.failed[tool.name] = ("a WRITE tool whose execute or post_check lost its elements is healed only "
                                            "against the requests it sent while it worked, and no run kept them (run "
                                            "it once on the site as it was with record_suspects, or rebuild it with "
                                            "`toolcache build`)")  # fmt: skip
                return None
            if served:  # the run's page at the good page's address: compared with it as it is
                mapped = await self._mapped_on(page, _good_file(self.store, good, "dom_path"), broken) if broken else {}
            else:
                mapped = await self._mapped(tool, broken) if broken else {}
            # a selector that matched nothing on the good page either may be fine (an item without options) or
            # name what the tool's click draws: kept as it is first, replaced only when the tool fails with it
            for b in broken:
                if self._old_counts.get(b) == 0:
                    mapped[b] = [b, *mapped.get(b, [])]
            if ran is not None:
                mapped.update(await self._landing_names(tool, good, ran, broken))
            handles = await page.evaluate(_HANDLES_JS) if broken else []
            # a control the execute fills or clicks is named again only by what finds that control, by its evidence
            vetted: dict[str, list[str]] = {}
            for b in (b for b in broken if b in selector_literals(tool.execute)):
                kept, why = await self._vet(page, good, b, list(dict.fromkeys(mapped.get(b, []) + _candidates(b, handles))))
                if kept is not None and not kept:
                    report.failed[tool.name] = (f"no element on {url} is the control {b!r} found on the tool's good "
                                                f"page: {why}")  # fmt: skip
                    return None
                if kept is not None:
                    vetted[b] = kept
            # the selectors only the pre_check uses first, checked by the pre_check alone (it passes on the right
            # page and changes nothing); then the others, checked by a whole run of the tool (a navigating tool's
            # up to the page it lands on, whose post_check names come next): a name the execute clicks must do
            # what the click did, not only exist
            acting = selector_literals(tool.execute) + selector_literals(tool.post_check)
            in_pre = [b for b in broken if b in selector_literals(tool.pre_check) and b not in acting]
            rest = [b for b in broken if b not in in_pre]
            start_run = _landing_probe(tool) if tool.navigates else tool
            chosen: dict[str, str] = {}
            tried = 0
            for group, pre_only, probe in ((in_pre, bool(rest) or tool.navigates, tool), (rest, False, start_run)):
                if not group:
                    continue
                # names the good page lacked too (what a click or an answer draws) stay as they are while the
                # others are searched: each of those gets the whole budget; all of them together only if that fails
                unseen = {b: b for b in group if self._old_counts.get(b) == 0}
                found, n = None, 0
                if unseen and len(unseen) < len(group):
                    seen = [b for b in group if b not in unseen]
                    found, n = await self._search(page, url, probe, args, expected, handles, seen, {**chosen, **unseen},
                                                  mapped, pre_only=pre_only, writes=writes, only=vetted)  # fmt: skip
                    found = None if found is None else {**found, **unseen}
                if found is None:
                    found, more = await self._search(page, url, probe, args, expected, handles, group, chosen, mapped,
                                                     pre_only=pre_only, writes=writes, only=vetted)  # fmt: skip
                    n += more
                tried += n
                if found is None:
                    report.candidates_tried[tool.name] = tried
                    report.failed[tool.name] = (f"no replacement for {', '.join(map(repr, group))} on {url} passes the "
                                                "tool's checks")  # fmt: skip
                    return None
                chosen.update(found)
            refreshed = False
            if tool.navigates:
                landed, n = await self._heal_landing(page, url, _apply(tool, chosen), args, writes, report)
                tried += n
                fresh = with_current_helpers(tool) if landed is None and writes else None
                if fresh is not None:
                    # a WRITE that does not reach its page by its recorded request: with the builder's current helpers
                    # (how it fills a field an editor now covers), held to the same request
                    first = report.failed.pop(tool.name, "")
                    landed, n = await self._heal_landing(page, url, _apply(fresh, chosen), args, writes, report)
                    tried += n
                    if landed is None:
                        again = report.failed.get(tool.name, "")
                        report.failed[tool.name] = first + (f"; with the builder's current helpers, {again}" if again != first else "")
                    else:
                        tool, refreshed = fresh, True
                if landed is None:
                    report.candidates_tried[tool.name] = tried
                    return None
                chosen.update(landed)
            report.candidates_tried[tool.name] = tried
            chosen = {old: new for old, new in chosen.items() if old != new}  # a name kept as it was is no change
            healed = _apply(tool, chosen)
            self._dirty, self._keys = True, {}
            # landing names the site's state hides kept as they were: the run up to where it lands is what is verified
            run = _landing_probe(healed) if self._landing_kept else healed
            problem = await self._verify(page, url, run, args, expected, pre_only=False, writes=writes)
            if problem is not None and writes and await self._state_unseen(page, run, problem):
                problem = None  # its request was the recorded one; the page it lands on shows the site unwritten
            keys = self._keys
            if problem is None and keys:
                # its output's fields renamed back to the keys its good call gave, and run once more so
                healed = healed.model_copy(update={"execute": rekeyed_execute(healed.execute, keys)})
                self._dirty, self._keys = True, {}
                problem = await self._verify(page, url, healed, args, expected, pre_only=False, writes=writes)
                problem = problem if problem is not None or not self._keys else "its renamed output still lacks fields"
            if refreshed:
                chosen[HELPERS_CHANGE] = "current"
            if problem is not None and writes and not refreshed:
                # every name found and still not its recorded request: how it fills may be what broke (an editor
                # over a field): the builder's current helpers, held to the same request
                async def guarded(trial: ToolManifest) -> str | None:
                    self._dirty = True
                    return await self._verify(page, url, trial, args, expected, pre_only=False, writes=writes)

                fresh = await refilled(healed, guarded)
                if fresh is not None:
                    healed, problem = fresh, None
                    chosen[HELPERS_CHANGE] = "current"
            if problem is None and not refreshed and fills(healed) and (fresh := with_current_helpers(healed)) is not None:
                # how it fills is the builder's now (an editor the page does not draw is shown first), when the tool
                # verifies so: a fill that took nothing passes a READ's checks (heal_fill.fills)
                self._dirty, self._keys = True, {}
                if await self._verify(page, url, fresh, args, expected, pre_only=False, writes=writes) is None:
                    healed = fresh
                    chosen[HELPERS_CHANGE] = "current"
                else:
                    log.info("%s with the builder's current helpers fails; kept with its own", tool.name)
            if problem is not None:
                report.failed[tool.name] = (f"every selector of the tool matches on {url}; it fails with {problem}"
                                            if not chosen else f"the healed tool fails on {url} with {problem}")  # fmt: skip
                return None
            if writes:
                # names the good page lacked were kept as they were: the WRITE's other good calls show what they name
                kept = [b for b in broken if self._old_counts.get(b) == 0 and b not in chosen]
                drawn, why = await self._other_writes(page, healed, kept, good, report, first=ran is not None)
                if drawn is None:
                    report.failed[tool.name] = why
                    return None
                if drawn:
                    chosen.update(drawn)
                    healed = _apply((with_current_helpers(tool) or tool) if HELPERS_CHANGE in chosen else tool, chosen)
                    self._dirty = True
                    problem = await self._verify(page, url, healed, args, expected, pre_only=False, writes=writes)
                    if problem is not None:
                        report.failed[tool.name] = f"named as its other good calls draw, it fails on {url} with {problem}"
                        return None
            if ran is not None:
                answer = await self._run_answer(page, url, healed if chosen or keys else tool, args, writes or [])
                if answer is not None:
                    report.outputs[tool.name] = answer
            report.changes[tool.name] = chosen
            if keys:
                report.renamed_keys[tool.name] = keys
            if writes:
                report.writes_answered[tool.name] = sorted({f"{w.get('method')} {w.get('url')}" for w in writes})
            if not chosen and not keys:
                return tool  # it passes again: the page was slow or the state was off, nothing to change
            return healed.model_copy(update={"version": tool.version + 1})

    async def _serve_state(self, page: Any, url: str, evidence: dict[str, Any], good: dict[str, Any] | None,
                           broken: list[str], *, key: str = "dom_path") -> bool:  # fmt: skip
        """Whether ``page`` now shows, at ``url``, the page the run that found the tool broken failed on: when the
        page fresh shows nothing like what ``broken`` matched on the good page (``key``; the site's state, a cart
        emptied since, not names) and that run kept its page at this address (the site in the state the tool
        needs, under its new names). Every later load of ``url`` on ``page`` is then that snapshot (its scripts,
        styles and every other request still the site's, behind the guard)."""
        where = evidence.get("url_after") if key == "after_dom_path" else evidence.get("url")
        snap = _good_file(self.store, evidence, "dom_path")
        if good is None or snap is None or not isinstance(where, str) or not _same_page(where, url):
            return False
        if not await asyncio.to_thread(snap.is_file) or any(await self._still_shown(page, good, broken, key)):
            return False
        html = await asyncio.to_thread(snap.read_text, encoding="utf-8")

        async def serve(route: Any) -> None:
            # the page going where a script's write led (its address the write's own: WriteGuard.follows) goes there
            if route.request.resource_type == "document" and not self.guard.follows(route.request.url):
                await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
            else:
                await route.fallback()

        def here(u: str) -> bool:
            return _same_page(u, url)

        await page.route(here, serve)
        await self._open(page, url)
        if not any(await self._still_shown(page, good, broken, key)) and not any(n > 0 for n in await self._counts(page, broken)):
            # the run's page shows nothing like them either, nor has them (names a heal gave after that good page):
            # not the state heal lacks, so the live page it is
            await page.unroute(here, serve)
            await self._open(page, url)
            return False
        log.info("the site shows %s in another state than the tool's good page: healed on the run's page (%s)", url, snap.name)
        return True

    async def _counts(self, page: Any, selectors: list[str]) -> list[int]:
        """How many elements each of ``selectors`` matches on ``page`` (-1: it does not parse; 0s on a page
        mid-navigation)."""
        try:
            return [int(n) for n in await page.evaluate(_COUNT_JS, selectors)]
        except Exception:  # a page mid-navigation: no evidence either way
            return [0] * len(selectors)

    async def _serve_run_page(self, page: Any, url: str, good: dict[str, Any], broken: list[str]) -> bool:
        """:meth:`_serve_state` with the page another suspect's run kept at ``url`` (the page it failed on, or the
        one a navigating tool landed on before its post_check failed): a probe judges a tool's names on the page
        as a run saw it, when the site shows that page in another state now."""
        suspects = self.store.suspects() if self.store is not None else {}
        for evidence in suspects.values():
            landed = evidence.get("phase") == "post_check" and isinstance(evidence.get("url_after"), str)
            where = evidence.get("url_after") if landed else evidence.get("url")
            if isinstance(where, str) and _same_page(where, url) and _good_file(self.store, evidence, "dom_path") is not None:
                return await self._serve_state(page, url, {"url": where, "dom_path": evidence["dom_path"]}, good, broken)
        return False

    async def _landing_from_snapshot(self, tool: ToolManifest, evidence: dict[str, Any], good: dict[str, Any] | None,
                                     args: dict[str, Any], report: HealReport) -> ToolManifest | None:  # fmt: skip
        """A navigating tool whose post_check failed in a run: its pre_check and execute worked there (it
        navigated), so only its post_check's names are healed, on the page it landed on, as the run kept it
        (:meth:`_serve_state`) when the site shows that page in another state now. None: not so, heal it as usual."""
        landing = evidence.get("url_after")
        if good is None or not isinstance(landing, str):
            return None
        try:
            url = site_url(self.base_url, landing)
        except OffSiteURL:
            return None
        async with self._page() as page:
            await self.guard.install(page)
            await self._open(page, url)
            broken = await self._missing(page, [tool.post_check])
            if not broken or not await self._serve_state(page, url, evidence, good, broken, key="after_dom_path"):
                return None
            broken = await self._missing(page, [tool.post_check])
            mapped = await self._mapped_on(page, _good_file(self.store, good, "after_dom_path"), broken)
            handles = await page.evaluate(_HANDLES_JS)
            per = MAX_CANDIDATES if len(broken) == 1 else max(2, int(MAX_CANDIDATES ** (1 / len(broken))))
            options = [list(dict.fromkeys(mapped.get(b, []) + _candidates(b, handles)))[:per] for b in broken]
            output = evidence.get("output") if isinstance(evidence.get("output"), dict) else {}
            tried = 0
            for combo in itertools.islice(itertools.product(*options), MAX_CANDIDATES * 2):
                tried += 1
                swaps = dict(zip(broken, combo, strict=True))
                check = await run_post_check(page, _apply(tool, swaps), args, output, timeout_ms=CANDIDATE_TIMEOUT_MS)
                if check.ok:
                    report.candidates_tried[tool.name] = tried
                    report.changes[tool.name] = swaps
                    return _apply(tool, swaps).model_copy(update={"version": tool.version + 1})
            report.candidates_tried[tool.name] = tried
            return None

    async def _serve_landing(self, page: Any, run: _RunCall) -> bool:
        """Whether the page ``run``'s write led to is served (by the guard) where a rebuilt tool's recorded answer
        leads: when the site, asked now (a read), answers that address with an error (an order heal never placed).
        A page the site still shows is the site's."""
        try:
            url = site_url(self.base_url, run.landing_url)
            status = await page.evaluate("(u) => fetch(u, {credentials: 'same-origin'}).then((r) => r.status)", url)
        except Exception as exc:  # an address off the site, or a page that cannot ask: nothing served
            log.info("the page a run's write led to is not served: %s", exc)
            return False
        if not isinstance(status, int) or status < 400:
            return False
        log.info("%s answers HTTP %s now: the page the run's write led to is served there", url, status)
        self.guard.add_document(url, run.landing_html)
        return True

    async def _landing_names(self, tool: ToolManifest, good: dict[str, Any] | None, run: _RunCall,
                             broken: list[str]) -> dict[str, list[str]]:  # fmt: skip
        """The names ``tool``'s execute reads on the page its write leads to (matching nothing on its good page:
        a fetch's answer) as the page ``run``'s write led to names them: each mapped from its good call's landing
        page (:meth:`_mapped_on`, by text, else by shape), the likeliest first, the old name last."""
        reads = [b for b in broken if self._old_counts.get(b) == 0 and b in selector_literals(tool.execute)]
        path = _good_file(self.store, good, "after_dom_path")
        if not reads or path is None:
            return {}
        async with self.pool.page() as page:
            await page.set_content(run.landing_html)
            found = await self._mapped_on(page, path, reads)
        return {b: [*names, b] for b, names in found.items() if names}

    async def _other_writes(self, page: Any, tool: ToolManifest, kept: list[str], good: dict[str, Any] | None,
                            report: HealReport, *, first: bool = False) -> tuple[dict[str, str] | None, str]:  # fmt: skip
        """Hold ``tool`` (a healed WRITE) to its other good calls (:func:`_other_write_calls`; ``first``: its first too,
        when it was verified with a run's write instead), each on its page with
        its arguments, behind the guard that answers its recorded requests. A call that fails names what the first
        call never drew: each of ``kept`` (names its good page lacked, kept as they were) is tried as each name the
        tool's own run drew on the page (:data:`_DRAWN_START_JS`: a dialog its click opened) that the page lacked
        before it, the tool's own kind of name first. Returns the replacements found (``{}``: none needed), or
        None and why not."""
        found: dict[str, str] = {}
        for call in _other_write_calls(self.store, tool, first=first):
            url = site_url(self.base_url, call["url"])
            args = dict(call.get("args") or {})
            await self._open(page, url)
            self._dirty = False
            writes = await self._own_params(page, call["writes"], good, args, report, tool.name)
            before = {tuple(h) for h in await page.evaluate(_HANDLES_JS)}
            await page.evaluate(_DRAWN_START_JS)
            problem = await self._verify(page, url, tool, args, None, pre_only=False, writes=writes)
            if problem is None or await self._state_unseen(page, tool, problem):
                continue
            drawn = [h for h in await page.evaluate(_DRAWN_JS) if tuple(h) not in before]
            todo = [b for b in kept if b not in found]
            if not todo or not drawn:
                return None, f"with its good call's arguments on {url}: {problem}"
            per = MAX_CANDIDATES if len(todo) == 1 else max(2, int(MAX_CANDIDATES ** (1 / len(todo))))
            # each name may stay as it is (this call may not use it), then the drawn names, its own kind first
            options = [[b, *_own_kind_first(b, _candidates(b, drawn))[: per - 1]] for b in todo]
            hit: dict[str, str] | None = None
            for combo in itertools.islice(itertools.product(*options), MAX_CANDIDATES * 2):
                if all(c == b for b, c in zip(todo, combo, strict=True)):
                    continue  # that is the run that failed
                trial = dict(zip(todo, combo, strict=True))
                if await self._verify(page, url, _apply(tool, trial), args, None, pre_only=False, writes=writes) is None:
                    hit = {b: c for b, c in trial.items() if b != c}
                    break
            if hit is None:
                return None, (f"with its good call's arguments on {url}: {problem}; no name its run drew there for "
                              f"{', '.join(map(repr, todo))} passes")  # fmt: skip
            log.info("%s: named %s by what its run drew on %s", tool.name, hit, url)
            found.update(hit)
            tool = _apply(tool, hit)
        return found, ""

    async def heal_by_reading(self, tool: ToolManifest, evidence: dict[str, Any],
                              report: HealReport) -> ToolManifest | None:  # fmt: skip
        """``tool`` (a READ with a good call's output on record that no name change healed) healed with the
        builder's current helpers (:mod:`toolcache.heal_rows`: a record drawn as labelled parts, no table row),
        held to that output as any healed READ; None when it is no such READ, its helpers are the current ones, or
        it still fails (``report.failed`` then says both)."""
        good = self.store.good(tool.name) if self.store is not None else None
        if tool.is_write or tool.navigates or good is None or good.get("output") is None:
            return None
        fresh = with_current_helpers(tool)
        if fresh is None:
            return None
        first = report.failed.pop(tool.name, "")
        healed = await self.heal(fresh, evidence, report)
        if healed is None:
            again = report.failed.get(tool.name, "")
            report.failed[tool.name] = f"{first}; read with the builder's current helpers, {again or 'it fails too'}"
            return None
        log.info("%s: healed with the builder's current helpers (its records read by their labelled parts)", tool.name)
        report.changes[tool.name] = {**report.changes.get(tool.name, {}), HELPERS_CHANGE: "current"}
        return healed.model_copy(update={"version": tool.version + 1})

    async def heal_by_address(self, tool: ToolManifest, report: HealReport) -> ToolManifest | None:
        """``tool`` (a navigating READ heal could not repair by names) made to open its good call's landing address
        (:func:`~toolcache.heal_address.by_address`), when that address still does what the call did on the site
        heal works on: run with the good call's arguments from its page, read-only, it passes its checks, lands there
        showing the rows the good call's landing showed, and gives each good call's output. The healed tool
        (``version + 1``), or None (the report's reason for ``tool`` kept, this attempt's added)."""
        store = self.store
        good = store.good(tool.name) if store is not None else None
        if tool.is_write or not tool.navigates or good is None or not isinstance(good.get("url"), str):
            return None
        made = by_address(tool, good)
        if made is None:
            return None
        args = dict(good.get("args") or {})
        try:
            url = site_url(self.base_url, good["url"])
            rows = await self._good_rows(good)
            self._good_output, self._good_landing = good.get("output"), (good, rows)
            self._others, self._keys = _other_calls(self.store, tool), {}
            async with self._page() as page:
                await self.guard.install(page)
                await self._open(page, url)
                outcome, guarded = await self._call(page, made, args, [], CANDIDATE_TIMEOUT_MS)
                self._dirty = True
                problem = guarded or (None if outcome.ok else f"{outcome.phase}: {outcome.reason}")
                if problem is None:
                    await self._drawn(page)
                    [here] = await page.evaluate(ROWS_JS, [[None, None]])
                    problem = rows_unlike_good(here, rows)
                if problem is None:
                    problem = await self._verify(page, url, made, args, None, pre_only=False)
        except (SiteUnreachable, OffSiteURL) as exc:
            problem = str(exc)
        if problem is not None:
            why = report.failed.get(tool.name)
            report.failed[tool.name] = f"{why + '; ' if why else ''}by its good call's address: {problem}"
            return None
        report.failed.pop(tool.name, None)
        report.by_address[tool.name] = template_text(good)
        return made.model_copy(update={"version": tool.version + 1})

    async def _state_unseen(self, page: Any, tool: ToolManifest, problem: str) -> bool:
        """Whether a WRITE run with a good call's arguments sent that call's request (answered from the record,
        unsent) and failed only its post_check, with every name it reads on the page: the page after the answer is
        the site's as the unsent write left it (a priority not set, a form showing the value the site keeps), so its
        values say nothing of the tool; its request does. A name its post_check reads that is gone is a name to
        heal, not this."""
        return (tool.is_write and problem.startswith("post_check") and self._answered > 0
                and not await self._missing(page, [tool.post_check]))  # fmt: skip

    async def _good_rows(self, good: dict[str, Any]) -> tuple[list[str], list[str]]:
        """The data rows of a navigating READ's good call's pages, before and after it (:data:`ROWS_JS`)."""
        docs: list[list[str | None]] = []
        for key, where in (("dom_path", "url"), ("after_dom_path", "after_url")):
            path = _good_file(self.store, good, key)
            ok = path is not None and await asyncio.to_thread(path.is_file)
            html = await asyncio.to_thread(path.read_text, encoding="utf-8") if ok and path is not None else ""
            docs.append([html, good.get(where) if isinstance(good.get(where), str) else None])
        async with self.pool.page() as page:
            before, after = await page.evaluate(ROWS_JS, docs)
        return before, after

    async def _vet(self, page: Any, good: dict[str, Any] | None, broken: str,
                   candidates: list[str]) -> tuple[list[str] | None, str]:  # fmt: skip
        """The ``candidates`` for ``broken`` that find, on ``page``, exactly one element, the form control
        ``broken`` found on the tool's good page by its name or its label (:data:`EVIDENCE_JS`), and why the first
        was refused; None when the good page shows no one control ``broken`` found (nothing to hold them to)."""
        path = _good_file(self.store, good, "dom_path")
        if path is None or not await asyncio.to_thread(path.is_file) or not candidates:
            return None, ""
        old_html = await asyncio.to_thread(path.read_text, encoding="utf-8")
        verdicts = await page.evaluate(EVIDENCE_JS, [old_html, broken, candidates])
        if verdicts is None:
            return None, ""
        kept = [c for c, v in zip(candidates, verdicts, strict=True) if v is None]
        why = next((f"{c!r}: {v}" for c, v in zip(candidates, verdicts, strict=True) if v is not None), "no candidate")
        return kept, why

    async def _sign_in_wall(self, page: Any, good: dict[str, Any] | None) -> bool:
        """Whether ``page`` shows a password field where the tool's good page had none: the site asks a visitor to
        sign in, and every name the tool looks for is behind it (no replacement found here could be right)."""
        path = _good_file(self.store, good, "dom_path")
        if path is None or not await asyncio.to_thread(path.is_file):
            return False
        old_html = await asyncio.to_thread(path.read_text, encoding="utf-8")
        try:
            return bool(await page.evaluate(_SIGN_IN_WALL_JS, old_html))
        except Exception:  # a page mid-navigation: no evidence either way
            return False

    def _page(self) -> Any:
        """A fresh page, signed in when heal signed in (:meth:`sign_in`)."""
        return self.pool.page(storage_state=self.session) if self.session is not None else self.pool.page()

    async def sign_in(self, tool: ToolManifest, secrets: dict[str, str]) -> dict[str, Any]:
        """Send ``tool`` (a sign-in) to the site with the arguments of its last good call and ``secrets`` (by input
        name), the only request heal ever sends: a session, not the site's data. Its request must be the one that
        call sent (the guard matches it); on success the session is kept for every page after. Returns what
        happened (``tool``, ``ok``, ``reason``)."""
        good = self.store.good(tool.name) if self.store is not None else None
        writes = good.get("writes") if good is not None else None
        if good is None or not isinstance(writes, list) or not writes:
            return {"tool": tool.name, "ok": False,
                    "reason": "no run of it on record (run a plan that signs in with record_suspects first)"}  # fmt: skip
        args = {**dict(good.get("args") or {}), **{k: v for k, v in secrets.items() if k in tool.parameters}}
        unknown = [n for n in tool.required if args.get(n) in (None, "", REDACTED)]
        if unknown:
            raise ConfigError(f"heal --sign-in: {tool.name} needs {', '.join(unknown)}: give --secret NAME=VALUE for each")
        async with self._page() as page:
            await self.guard.install(page)
            await self._open(page, site_url(self.base_url, good.get("url") or "/"))
            self.guard.begin(_sign_in_params([w for w in writes if isinstance(w, dict)], args), args, live=True, sign_in=True)
            try:
                outcome = await call_tool(page, tool, args, timeout_ms=NAVIGATION_MS, validate=False)
            finally:
                _answered, sent, refused = self.guard.end()
            if refused:
                return {"tool": tool.name, "ok": False, "reason": f"its request is not the one on record: {refused[0]}"}
            if not outcome.ok:
                return {"tool": tool.name, "ok": False, "reason": f"{outcome.phase}: {outcome.reason}"}
            self.session = await page.context.storage_state()
        log.info("heal signed in with %s (%d request(s) sent)", tool.name, len(sent))
        return {"tool": tool.name, "ok": True, "reason": None}

    def probe_call(self, tool: ToolManifest, good: dict[str, Any]) -> dict[str, Any]:
        """The good call to probe ``tool`` with: its first (``good``); for a WRITE, the one that gave the most free
        texts (:func:`~toolcache.heal_fill.likest_write_call`), where a text its request no longer carries shows."""
        if not tool.is_write or self.store is None:
            return good
        return likest_write_call(self.store.good_calls(tool.name), dict.fromkeys(text_inputs(tool), "x")) or good

    async def probe(self, tool: ToolManifest, good: dict[str, Any]) -> _Probe:
        """Whether ``tool``, no suspect, still works on its good call's page, read-only (:func:`probe_tools`).

        First its names: a selector of its pre_check and execute (and a non-navigating tool's post_check) that
        matches nothing on the page fresh, and matched something on the good page, is broken. Then its good call
        again where the code can hold it to what it did: a READ with its output or landing page on record, held to
        them by the checks healing uses; a WRITE whose requests are on record, behind the guard that answers them
        from the record (nothing reaches the site); else its pre_check alone. A run that fails with all its names
        in place is reported, not made suspect, unless heal can act on it: fields of its output named otherwise, or
        a navigating tool's post_check names gone from the page it lands on."""
        url = site_url(self.base_url, good.get("url") or "/")
        args = dict(good.get("args") or {})
        writes = self._recorded(tool, good)
        # a navigating tool's post_check is asked again once its new page is quiet (:meth:`_call`); another tool's
        # checks poll as long as the tool allows them, for what the page draws late
        timeout = CANDIDATE_TIMEOUT_MS if tool.navigates else min(max(tool.timeout_ms, CANDIDATE_TIMEOUT_MS), NAVIGATION_MS)
        again = _read_again(tool, good)
        self._good_output = good.get("output") if again else None
        self._good_landing = (good, await self._good_rows(good)) if again and tool.navigates else None
        self._keys = {}
        async with self._page() as page:
            await self.guard.install(page)
            await self._open(page, url)
            self._dirty = False
            if not _signs_in(tool) and await self._sign_in_wall(page, good):
                return _Probe(url, None, f"not probed: {page.url} asks to sign in (heal --sign-in probes signed in)")
            broken = await self._missing(page, [tool.pre_check, tool.execute] + ([] if tool.navigates else [tool.post_check]))
            if broken:
                await self._mapped_on(page, _good_file(self.store, good, "dom_path"), broken)
                broken = [b for b in broken if self._old_counts.get(b) != 0]  # a name the good page lacked too is no loss
                # renamed: what it matched on the good page is here under another name; else the page shows other
                # things now (a cart emptied since), which no name change repairs
                gone = [b for b, here in zip(broken, await self._still_shown(page, good, broken), strict=True) if not here]
                if gone and len(gone) == len(broken) and await self._serve_run_page(page, url, good, broken):
                    # a run saw this page in the state the tool needs: its names are judged there
                    bodies = [tool.pre_check, tool.execute] + ([] if tool.navigates else [tool.post_check])
                    broken = [b for b in await self._missing(page, bodies) if b in broken]
                    gone = [b for b, here in zip(broken, await self._still_shown(page, good, broken), strict=True) if not here]
                if gone and len(gone) == len(broken) and self._good_output is not None and await shows_output(page, self._good_output):
                    gone = []  # drawn otherwise (a table's rows now cards): the page still shows every value it read
                if gone and len(gone) == len(broken):
                    return _Probe(url, False, f"{', '.join(map(repr, gone))} match nothing on {url}, nor does anything "
                                              "like what they matched on the good page (the page's state, not a name?)",
                                  html=await page_html(page))  # fmt: skip
            if broken:
                return _Probe(url, False, f"{', '.join(map(repr, broken))} match nothing on {url}", suspect=True,
                              html=await page_html(page))  # fmt: skip
            if writes:
                writes = await self._own_params(page, writes, good, args, HealReport("", ""), tool.name)
            run = again or bool(writes)
            problem = await self._verify(page, url, tool, args, None, pre_only=not run, writes=writes, timeout_ms=timeout)
            if problem is None and self._keys:
                return _Probe(url, False, f"its output names {', '.join(sorted(self._keys.values()))} otherwise",
                              suspect=True, html=await page_html(page))  # fmt: skip
            if problem is None:
                return _Probe(url, True, None)
            html = await page_html(page)
            if tool.navigates and problem.startswith("post_check"):
                landed = await self._missing(page, [tool.post_check])
                if landed:
                    await self._mapped_on(page, _good_file(self.store, good, "after_dom_path"), landed)
                    if any(self._old_counts.get(b) != 0 for b in landed):
                        return _Probe(url, False, f"{problem} ({', '.join(map(repr, landed))} gone where it lands)",
                                      suspect=True, html=html)  # fmt: skip
            if writes and await self._refills(page, url, tool, args, writes, timeout):
                return _Probe(url, False, f"{problem}; with the builder's current helpers it sends its recorded request",
                              suspect=True, html=html)  # fmt: skip
            return _Probe(url, False, f"{problem}, though every name it uses is on the page (its state, not a name "
                                      "heal can repair)", html=html)  # fmt: skip

    async def _refills(self, page: Any, url: str, tool: ToolManifest, args: dict[str, Any],
                       writes: list[dict[str, Any]], timeout_ms: int) -> bool:  # fmt: skip
        """Whether ``tool`` (a WRITE that failed behind the guard with every name in place) sends its recorded
        request with the builder's current helpers (:mod:`toolcache.heal_fill`): heal can repair it."""
        fresh = with_current_helpers(tool)
        if fresh is None:
            return False
        self._dirty = True
        return await self._verify(page, url, fresh, args, None, pre_only=False, writes=writes, timeout_ms=timeout_ms) is None

    async def _still_shown(self, page: Any, good: dict[str, Any], selectors: list[str],
                           key: str = "dom_path") -> list[bool]:  # fmt: skip
        """For each selector, whether ``page`` shows an element like one it matched on the tool's good page (its tag
        and text, numbers aside: :data:`_LIKE_JS`), by whatever name; True when the good page is not at hand.
        ``key``: ``after_dom_path`` for the page a navigating tool's good call landed on."""
        path = _good_file(self.store, good, key)
        if path is None or not await asyncio.to_thread(path.is_file):
            return [True] * len(selectors)
        old_html = await asyncio.to_thread(path.read_text, encoding="utf-8")
        css = [sel.partition(LOCATOR_TEXT)[0] for sel in selectors]
        try:
            return [bool(x) for x in await page.evaluate(_LIKE_JS, [old_html, css])]
        except Exception:  # a page mid-navigation: no evidence either way
            return [True] * len(selectors)

    async def _signed_out_again(self, page: Any, tool: ToolManifest, args: dict[str, Any]) -> bool:
        """Whether a sign-in whose request was answered from its record landed back on its own form (its pre_check
        passes there): the session that answer set is no longer the site's (the site was reset since, or it is
        another instance of the app), so the page signed in is not to be seen. Its request, the one it sent while
        it worked, is then all there is to verify; its post_check is judged when it next runs."""
        if not _signs_in(tool) or not self._answered:
            return False
        probe = tool.model_copy(update={"execute": "return {};", "post_check": "return true;", "navigates": False,
                                        "output_schema": {"type": "object"}})  # fmt: skip
        try:
            outcome = await call_tool(page, probe, args, timeout_ms=2_000, validate=False)
        except Exception:  # a page still navigating
            return False
        if outcome.ok:
            log.info("%s: signed out again after its recorded answer; verified by its request", tool.name)
        return bool(outcome.ok)

    async def _own_params(self, page: Any, writes: list[dict[str, Any]], good: dict[str, Any] | None,
                          args: dict[str, Any], report: HealReport, name: str) -> list[dict[str, Any]]:  # fmt: skip
        """``writes`` without the page's own parameters the page at hand no longer supplies (:func:`without_page_tokens`)."""
        path = _good_file(self.store, good, "dom_path")
        if path is None or not await asyncio.to_thread(path.is_file):
            return writes
        old_html = await asyncio.to_thread(path.read_text, encoding="utf-8")
        hidden, here = await page.evaluate(_FIELDS_JS, old_html)
        writes, dropped = without_page_tokens(writes, set(hidden), set(here), args)
        if dropped:
            report.page_params[name] = dropped
        return writes

    async def _heal_landing(self, page: Any, url: str, tool: ToolManifest, args: dict[str, Any],
                            writes: list[dict[str, Any]] | None,
                            report: HealReport) -> tuple[dict[str, str] | None, int]:  # fmt: skip
        """The replacements of a navigating tool's post_check selectors, found on the page it lands on (reached by
        running it, read-only, from ``url``) and checked by its post_check there; and the trials."""
        await self._open(page, url)
        outcome, guarded = await self._call(page, _landing_probe(tool), args, writes or [], CANDIDATE_TIMEOUT_MS)
        self._dirty = True
        if guarded is None and not outcome.ok and outcome.phase in LANDING_PHASES and lands_nowhere(self.guard, self._answered, page.url):
            return {}, 0  # the page its recorded answer leads to is the unsent write's (an error page here)
        if guarded is not None or not outcome.ok:
            report.failed[tool.name] = f"it does not reach its page from {url}: {guarded or f'{outcome.phase}: {outcome.reason}'}"
            return None, 0
        await self._drawn(page)
        if await self._signed_out_again(page, tool, args):
            return {}, 0  # no page signed in to heal its post_check's names on
        if lands_nowhere(self.guard, self._answered, page.url):
            return {}, 0  # the page its recorded answer leads to is the unsent write's: no names to heal there
        if not tool.is_write:
            problem = await self._landing_problem(page)
            if problem is not None:
                report.failed[tool.name] = f"it does not do what its good call did from {url}: {problem}"
                return None, 0
        broken = await self._missing(page, [tool.post_check])
        if not broken:
            return {}, 0
        good = self.store.good(tool.name) if self.store is not None else None
        if good is not None and not any(await self._still_shown(page, good, broken, "after_dom_path")):
            # the page it lands on shows nothing like what those names matched (a checkout with an empty cart): the
            # site's state, not names; kept as they are until a run lands where they show (its post_check then
            # fails there, and that page is healed from the run's snapshot: _landing_from_snapshot)
            log.info("%s: %s not shown on %s (the site's state): kept", tool.name, broken, page.url)
            self._landing_kept = True
            return {}, 0
        handles = await page.evaluate(_HANDLES_JS)
        mapped = await self._mapped_on(page, _good_file(self.store, good, "after_dom_path"), broken)
        for b in broken:
            if self._old_counts.get(b) == 0:
                mapped[b] = [b, *mapped.get(b, [])]
        landing = page.url
        per = MAX_CANDIDATES if len(broken) == 1 else max(2, int(MAX_CANDIDATES ** (1 / len(broken))))
        options = [list(dict.fromkeys(mapped.get(b, []) + _candidates(b, handles)))[:per] for b in broken]
        tried = 0
        for combo in itertools.islice(itertools.product(*options), MAX_CANDIDATES * 2):
            tried += 1
            trial = _apply(tool, dict(zip(broken, combo, strict=True)))
            check = await run_post_check(page, trial, args, outcome.output, timeout_ms=CANDIDATE_TIMEOUT_MS)
            if check.ok and page.url == landing:
                return dict(zip(broken, combo, strict=True)), tried
        report.failed[tool.name] = (f"no replacement for {', '.join(map(repr, broken))} on {landing} (where it lands) "
                                    "passes its post_check")  # fmt: skip
        return None, tried

    async def _mapped(self, tool: ToolManifest, broken: list[str]) -> dict[str, list[str]]:
        """For each broken selector, the selectors that now name what it matched on the tool's last good page
        (that page's URL loaded fresh on the site), the likeliest first: covering every element it matched,
        and exactly as many."""
        good = self.store.good(tool.name) if self.store is not None else None
        path = _good_file(self.store, good, "dom_path")
        if good is None or path is None:
            return {}
        try:
            url = site_url(self.base_url, good.get("url") or "/")
        except OffSiteURL:
            return {}
        async with self._page() as page:
            await self.guard.install(page)
            await self._open(page, url)
            return await self._mapped_on(page, path, broken)

    async def _mapped_on(self, page: Any, path: Path | None, broken: list[str]) -> dict[str, list[str]]:
        """:meth:`_mapped` on ``page`` as it is, against the old DOM kept at ``path``."""
        if path is None or not await asyncio.to_thread(path.is_file):
            return {}
        old_html = await asyncio.to_thread(path.read_text, encoding="utf-8")
        out: dict[str, list[str]] = {}
        # a locator's CSS part names the elements; its ``>> text=`` part is kept on each new name
        parts = [sel.partition(LOCATOR_TEXT) for sel in broken]
        found = await page.evaluate(_MAPPED_JS, [old_html, [css for css, _sep, _text in parts]])
        for sel, (_css, sep, text), got in zip(broken, parts, found, strict=True):
            self._old_counts[sel] = got["count"]
            made = {_handle_selector(k, n, v) + sep + text: cover for k, n, v, cover in got["handles"]}
            names = list(made)
            counts = dict(zip(names, await page.evaluate(_COUNT_JS, names), strict=True)) if names else {}
            want = got["count"]
            out[sel] = sorted(names, key=lambda c: (-made[c], counts[c] != want, _kind_rank(sel, c),
                                                    abs(counts[c] - want), c))  # fmt: skip
        return out

    async def _search(self, page: Any, url: str, tool: ToolManifest, args: dict[str, Any], expected: Any,
                      handles: list[list[str]], group: list[str], chosen: dict[str, str],
                      mapped: dict[str, list[str]], *, pre_only: bool, writes: list[dict[str, Any]] | None = None,
                      only: dict[str, list[str]] | None = None) -> tuple[dict[str, str] | None, int]:  # fmt: skip
        """Replacements for the selectors of ``group`` (with ``chosen`` already applied) that pass; and the trials.

        One selector: its closest MAX_CANDIDATES replacements; several: the product of each one's closest few,
        at most about MAX_CANDIDATES trials in all. ``only``: a selector's replacements, when they are known
        (a control's, by its evidence: :meth:`_vet`).
        """
        per = MAX_CANDIDATES if len(group) == 1 else max(2, int(MAX_CANDIDATES ** (1 / len(group))))
        only = only or {}
        options = [(only[b] if b in only else list(dict.fromkeys(mapped.get(b, []) + _candidates(b, handles))))[:per]
                   for b in group]  # fmt: skip
        tried = 0
        for combo in itertools.islice(itertools.product(*options), MAX_CANDIDATES * 2):
            tried += 1
            trial = {**chosen, **dict(zip(group, combo, strict=True))}
            if await self._verify(page, url, _apply(tool, trial), args, expected, pre_only=pre_only, writes=writes) is None:
                return dict(zip(group, combo, strict=True)), tried
        return None, tried


@dataclass
class _Probe:
    """What probing one tool found: the page it was probed on, ``ok`` (None: it could not be probed), why not,
    whether that makes it suspect (heal can act on it), and the page as the probe left it (the evidence)."""

    url: str
    ok: bool | None
    reason: str | None
    suspect: bool = False
    html: str | None = None


def _read_again(tool: ToolManifest, good: dict[str, Any] | None) -> bool:
    """Whether ``tool``, a READ, has a good call to be run again and held to: its arguments, and its output or,
    for a navigating one, the page it landed on."""
    if tool.is_write or good is None or not isinstance(good.get("args"), dict) or not good.get("url"):
        return False
    return good.get("output") is not None or (tool.navigates and bool(good.get("after_url")))


def _other_calls(store: SuspectStore | None, tool: ToolManifest) -> list[dict[str, Any]]:
    """A READ's good calls after its first (:meth:`SuspectStore.good_calls`) that heal can run again read-only:
    on a page of the site, with arguments and an output (a navigating READ's address is not held to them)."""
    calls = store.good_calls(tool.name)[1:] if store is not None else []
    return [c for c in calls if isinstance(c.get("url"), str) and isinstance(c.get("args"), dict) and c.get("output") is not None]


def _same_page(a: str, b: str) -> bool:
    """Whether two addresses are the same page of a site: path and query (any host)."""
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.path.rstrip("/") or "/", pa.query) == (pb.path.rstrip("/") or "/", pb.query)


def _own_kind_first(broken: str, candidates: list[str]) -> list[str]:
    return sorted(candidates, key=lambda c: _kind_rank(broken, c))


def _other_write_calls(store: SuspectStore | None, tool: ToolManifest, *, first: bool = False) -> list[dict[str, Any]]:
    """A WRITE's good calls after its first (with ``first``, its first too) that heal can verify offline: on a page
    of the site, with arguments and requests that can each be answered from the record."""
    calls = store.good_calls(tool.name)[0 if first else 1:] if store is not None and tool.is_write else []
    return [c for c in calls if isinstance(c.get("url"), str) and isinstance(c.get("args"), dict)
            and isinstance(c.get("writes"), list) and c["writes"]
            and all(isinstance(w, dict) and answerable(w) for w in c["writes"])]  # fmt: skip


@dataclass(frozen=True)
class _RunCall:
    """The write of the run that found a WRITE broken (its evidence, kept by the runtime): the page it ran on, its
    arguments, the requests it sent with the site's answers, and the page the last answer's redirect led to."""

    url: str
    args: dict[str, Any]
    writes: list[dict[str, Any]]
    landing_url: str
    landing_html: str


def _run_call(store: SuspectStore | None, tool: ToolManifest, evidence: dict[str, Any],
              good_writes: list[dict[str, Any]] | None) -> _RunCall | None:  # fmt: skip
    """The run's write to verify ``tool``'s heal with (:class:`_RunCall`), or None: the run sent it (the tool broke
    after its request reached the site: reading the page it led to), every request can be answered from the record
    and is the request the good call sent (method, route, the same parameters: a request that lost a value, phase
    ``request``, is not), and the page it led to was kept."""
    writes = evidence.get("writes")
    if store is None or not tool.is_write or evidence.get("write_sent") is not True or evidence.get("phase") == REQUEST_PHASE:
        return None
    if not isinstance(writes, list) or not writes or not all(isinstance(w, dict) and answerable(w) for w in writes):
        return None
    if not good_writes or not _same_requests(writes, good_writes):
        return None
    path = store.own_file(evidence.get("landing_dom_path"))
    landing, where = evidence.get("landing_url"), evidence.get("url")
    if path is None or not path.is_file() or not isinstance(landing, str) or not isinstance(where, str):
        return None
    args = evidence.get("args") if isinstance(evidence.get("args"), dict) else {}
    return _RunCall(where, dict(args or {}), writes, landing, path.read_text(encoding="utf-8"))


def _same_requests(sent: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> bool:
    """Whether ``sent`` are the ``recorded`` requests again: one by one the same method, route and parameter names."""

    def shape(w: dict[str, Any]) -> tuple[str, frozenset[str]]:
        body = w.get("post_data") if isinstance(w.get("post_data"), str) else None
        return describe(str(w.get("method")), w.get("url")), frozenset(request_params(body))

    return len(sent) == len(recorded) and all(shape(a) == shape(b) for a, b in zip(sent, recorded, strict=True))


def _landing_probe(tool: ToolManifest) -> ToolManifest:
    """``tool`` up to the page it lands on: its post_check (whose names are judged there) left out."""
    return tool.model_copy(update={"post_check": "return true;"})


def _good_file(store: SuspectStore | None, good: dict[str, Any] | None, key: str) -> Path | None:
    """A page file of a tool's good (or suspect) entry, only from inside the store's own ``suspects/`` folder
    (:meth:`~agentjit.cache.SuspectStore.own_file`)."""
    if store is None or good is None:
        return None
    return store.own_file(good.get(key))


def _apply(tool: ToolManifest, swaps: dict[str, str]) -> ToolManifest:
    bodies = {"pre_check": tool.pre_check, "execute": tool.execute, "post_check": tool.post_check}
    for old, new in swaps.items():
        bodies = {k: replace_literal(v, old, new) for k, v in bodies.items()}
    return tool.model_copy(update=bodies)


def _plan_tools(source: str, names: set[str]) -> set[str]:
    """The tools a plan's source calls (every call of a bare name that is a tool); all of them if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(names)
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names}


def rekey_plans(cache: ToolCache, old_fingerprint: str, changed: set[str]) -> tuple[int, int]:
    """Keep the plan-cache entries of ``old_fingerprint`` that call no tool of ``changed`` under the cache's new
    fingerprint, drop the others; returns ``(kept, dropped)``. Entries of other fingerprints stay as they are."""
    new = cache.fingerprint()
    kept = dropped = 0
    plans: dict[str, Any] = {}
    for key, raw in cache.plans.items():
        if not key.startswith(old_fingerprint + ":"):
            plans[key] = raw
            continue
        source = raw.get("source") if isinstance(raw, dict) else None
        if not isinstance(source, str) or _plan_tools(source, set(cache.tools)) & changed:
            dropped += 1
            continue
        kept += 1
        if isinstance(raw, dict) and raw.get("cache_fingerprint") == old_fingerprint:
            raw = {**raw, "cache_fingerprint": new}
        plans[new + key[len(old_fingerprint):]] = raw
    cache.plans = plans
    return kept, dropped


async def probe_tools(healer: _Healer, cache: ToolCache, store: SuspectStore, skip: set[str], report: HealReport,
                      progress: Callable[[str], None] | None = None) -> list[str]:  # fmt: skip
    """Probe the cache's tools that are not suspect (not in ``skip``) and have a good call on record, read-only
    (:meth:`_Healer.probe`); record each that fails in a way heal can repair as suspect, with the evidence (reason
    ``probe: ...``), and return their names: healed in the same round. A run stops at its first broken tool, so
    the tools a task would have reached later are found here, not by the next run.

    A tool without a good call is not probed. The build keeps each verified READ's first passing call as its good
    call (:func:`toolcache.build.keep_good_calls`); a WRITE gets one from a run."""
    todo = [(n, g) for n in sorted(cache.tools) if n not in skip and (g := store.good(n)) is not None and g.get("url")]
    found: list[str] = []
    for i, (name, good) in enumerate(todo, 1):
        t0 = time.perf_counter()
        tool = cache.tools[name]
        try:
            good = healer.probe_call(tool, good)
            got = await healer.probe(tool, good)
        except (SiteUnreachable, OffSiteURL) as exc:
            got = _Probe(str(good.get("url")), None, f"not probed: {exc}")
        seconds = round(time.perf_counter() - t0, 2)
        report.probed.append({"tool": name, "ok": got.ok, "reason": got.reason, "suspect": got.suspect, "seconds": seconds})
        verdict = "ok" if got.ok else f"{'broken' if got.suspect else 'fails'}: {got.reason}" if got.ok is False else got.reason
        line = f"probe {i}/{len(todo)} {name}: {verdict} ({seconds:.1f} s)"
        log.info("%s", line)
        if progress is not None:
            progress(line)
        if not got.suspect:
            continue
        evidence: dict[str, Any] = {"tool": name, "effect": tool.effect.value, "phase": "probe",
                                    "reason": f"probe: {got.reason}", "url": got.url, "args": dict(good.get("args") or {}),
                                    "tool_version": tool.version, "at": time.time()}  # fmt: skip
        if got.html is not None:
            evidence["dom_sha256"], path = store.save_snapshot(got.html)
            evidence["dom_path"] = str(path)
        store.add(name, evidence)
        found.append(name)
    return found


HEAL_LOCK_WAIT_S = 900.0
"""How long a heal waits for another heal of the same cache directory to end before it gives up."""

LOCK_FILE = ".heal.lock"
"""The file in a cache directory that heals lock, one at a time (:func:`one_heal_at_a_time`)."""


@contextlib.asynccontextmanager
async def one_heal_at_a_time(cache_dir: Path, wait_s: float = HEAL_LOCK_WAIT_S) -> AsyncIterator[None]:
    """Hold the cache directory's heal lock (``flock`` on :data:`LOCK_FILE`, across processes) while inside. A heal
    loads the cache, heals and saves it whole, so two at once (two runs healing in the run, a run and a ``toolcache
    heal``) would save one over the other's tools. Waits at most ``wait_s`` for another heal to end (CacheError
    then); where there is no ``flock`` (not POSIX), nothing is locked. The lock file is never followed where a link
    points (a cache is untrusted input): a link there is a CacheError naming it."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    path = cache_dir / LOCK_FILE
    try:
        fd = await asyncio.to_thread(os.open, path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CacheError(f"{LOCK_FILE} is a link; heal locks a file of the cache's own", path=str(path)) from None
        log.info("no heal lock in %s (%s): this heal runs unlocked", cache_dir, exc.strerror)
        yield  # a directory heal cannot write in: it saves nothing there either
        return
    fh = os.fdopen(fd, "r+b")
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise CacheError(f"another heal of this cache has been running for over {wait_s:.0f} s (its lock "
                                     f"{LOCK_FILE}); try again when it ends", path=str(cache_dir)) from None  # fmt: skip
                await asyncio.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
    finally:
        fh.close()


async def heal_cache(cache_dir: str | Path, base_url: str, *, pool: BrowserPool | None = None,
                     tools: list[str] | None = None, sign_in: dict[str, str] | None = None, probe: bool = True,
                     progress: Callable[[str], None] | None = None,
                     session: dict[str, Any] | None = None) -> HealReport:  # fmt: skip
    """Heal the suspect tools of the cache at ``cache_dir`` (or only ``tools``) against the site at ``base_url``.

    ``sign_in``: sign in first (with these secrets, by input name) and heal the tools behind it signed in: the
    cache's sign-in tool is healed first when it is suspect, then sent once with its last good call's arguments.
    Without it, heal sees the site as a visitor does. ``probe``: also probe the cache's other tools with a good
    call on record (:func:`probe_tools`, in the signed-in session) and heal those found broken in the same round.
    ``progress``: called with a line per tool probed. ``session``: a browser storage state (Playwright's
    ``storage_state``: cookies, local storage) every page heal opens starts with, instead of a sign-in: the session of
    the run a suspect broke in (its cart with a line, its user signed in), for a heal in the middle of that run."""
    if session is not None and sign_in is not None:
        raise ConfigError("heal: a session to start from and a sign-in are one too many (give one)")
    ToolCache.load(cache_dir)  # a directory that is no cache is named before anything is made in it
    async with one_heal_at_a_time(Path(cache_dir)):
        return await _heal_locked(cache_dir, base_url, pool=pool, tools=tools, sign_in=sign_in, probe=probe,
                                  progress=progress, session=session)  # fmt: skip


async def _heal_locked(cache_dir: str | Path, base_url: str, *, pool: BrowserPool | None, tools: list[str] | None,
                       sign_in: dict[str, str] | None, probe: bool, progress: Callable[[str], None] | None,
                       session: dict[str, Any] | None) -> HealReport:  # fmt: skip
    """:func:`heal_cache` holding the directory's heal lock: the cache is loaded here, after any other heal saved it."""
    t0 = time.perf_counter()
    cache = ToolCache.load(cache_dir)
    store = SuspectStore(cache_dir)
    suspects = store.suspects()
    report = HealReport(cache=str(cache_dir), site=base_url, revision=cache.info.revision)
    names = sorted(suspects if tools is None else [t for t in tools if t in suspects])
    unknown = [n for n in (tools or []) if n not in cache.tools]
    if unknown:
        raise ConfigError(f"no tool named {', '.join(map(repr, unknown))} in {cache_dir}")
    report.suspects = names
    if not names and not probe:
        report.time_s = time.perf_counter() - t0
        return report
    if pool is None:
        async with BrowserPool.from_spec() as own:
            return await _heal(cache, store, names, suspects, base_url, own, report, t0, sign_in, probe, progress,
                               session)
    return await _heal(cache, store, names, suspects, base_url, pool, report, t0, sign_in, probe, progress, session)


async def _heal(cache: ToolCache, store: SuspectStore, names: list[str], suspects: dict[str, Any], base_url: str,
                pool: BrowserPool, report: HealReport, t0: float, sign_in: dict[str, str] | None = None,
                probe: bool = False, progress: Callable[[str], None] | None = None,
                session: dict[str, Any] | None = None) -> HealReport:  # fmt: skip
    pool.allow_site(base_url)
    healer = _Healer(pool, base_url, store)
    healer.session = session
    old_fingerprint = cache.fingerprint()
    changed: set[str] = set()
    signs_in = sorted(n for n, t in cache.tools.items() if _signs_in(t))
    if sign_in is not None and not signs_in:
        raise ConfigError(f"heal --sign-in: {store.root} has no sign-in tool (a WRITE with a writeOnly input)")
    # a sign-in first: the tools behind it are probed and healed on the pages it opens
    first = [n for n in names if n in signs_in]
    rest = [n for n in names if n not in signs_in]
    if probe and sign_in is not None:
        # the sign-in probed (and healed) before it is sent: a redesign that broke it leaves nothing signed in
        found = await probe_tools(healer, cache, store, set(suspects) | (set(cache.tools) - set(signs_in)), report, progress)
        suspects = store.suspects()
        report.suspects += found
        first += found
    for name in first:
        await _heal_one(healer, cache, name, suspects[name], report, changed)
    if sign_in is not None and (rest or probe):
        report.signed_in = await healer.sign_in(cache.tools[_pick_sign_in(signs_in, store)], sign_in)
    if probe:
        # every suspect is on record: the other tools are probed (signed in with --sign-in), those found broken
        # healed with them; a sign-in that was sent is known to work
        sent = set(signs_in) if report.signed_in and report.signed_in.get("ok") else set()
        skip = set(suspects) | sent | {p["tool"] for p in report.probed}
        found = await probe_tools(healer, cache, store, skip, report, progress)
        suspects = store.suspects()
        report.suspects += found
        rest += found
    for name in rest:
        await _heal_one(healer, cache, name, suspects[name], report, changed)
    if changed:
        report.plans_kept, report.plans_dropped = rekey_plans(cache, old_fingerprint, changed)
        cache.info.revision += 1
        cache.save()
    if report.healed:
        store.clear(report.healed)
    report.revision = cache.info.revision
    report.time_s = time.perf_counter() - t0
    return report


async def _heal_one(healer: _Healer, cache: ToolCache, name: str, evidence: dict[str, Any], report: HealReport,
                    changed: set[str]) -> None:  # fmt: skip
    """Heal the suspect ``name``; a tool it changed goes into ``cache`` and ``changed``.

    A page of the site that does not load in time (a slow moment of a loaded site) fails this tool, not the heal:
    the tools healed before and after it are kept. :data:`UNANSWERED_LIMIT` suspects in a row so fail the heal (the
    site is down)."""
    if name not in cache.tools:
        report.failed[name] = "the cache has no such tool any more"
        return
    try:
        new = await healer.heal(cache.tools[name], evidence, report)
        if new is None:  # a READ whose records are drawn otherwise (labelled parts, no table cells): current helpers
            new = await healer.heal_by_reading(cache.tools[name], evidence, report)
        if new is None:  # a navigating READ whose form no name change repairs: its good call's address may serve
            new = await healer.heal_by_address(cache.tools[name], report)
    except SiteUnreachable as exc:
        healer.unanswered += 1
        if healer.unanswered >= UNANSWERED_LIMIT:
            raise
        report.failed[name] = f"the site did not answer: {exc}"
        return
    healer.unanswered = 0
    if new is None:
        return
    report.healed.append(name)
    if new != cache.tools[name]:
        cache.add_tool(new)
        changed.add(name)


def _pick_sign_in(names: list[str], store: SuspectStore) -> str:
    """The sign-in tool to send: the first with a good call on record, else the first."""
    return next((n for n in names if store.good(n) is not None), names[0])


def heal_sync(cache_dir: str | Path, base_url: str, *, tools: list[str] | None = None,
              sign_in: dict[str, str] | None = None, probe: bool = True,
              progress: Callable[[str], None] | None = None,
              session: dict[str, Any] | None = None) -> HealReport:  # fmt: skip
    """:func:`heal_cache` for the command line."""
    return asyncio.run(heal_cache(cache_dir, base_url, tools=tools, sign_in=sign_in, probe=probe, progress=progress,
                                  session=session))


def render(report: HealReport) -> str:
    """A few lines for people."""
    lines = [f"toolcache heal {report.cache} against {report.site}: {len(report.suspects)} suspect(s), "
             f"{len(report.healed)} healed, {len(report.failed)} not ({report.time_s:.1f} s)"]  # fmt: skip
    if report.probed:
        broken = [p["tool"] for p in report.probed if p["suspect"]]
        lines.append(f"  probed {len(report.probed)} other tool(s): {sum(p['ok'] is True for p in report.probed)} ok"
                     + (f", found broken: {', '.join(broken)}" if broken else ""))  # fmt: skip
        for p in report.probed:
            if p["ok"] is not True and not p["suspect"]:
                lines.append(f"  probe {p['tool']}: {p['reason']}")
    for name in report.healed:
        swaps = report.changes.get(name) or {}
        what = "; ".join(f"{json.dumps(o)} -> {json.dumps(n)}" for o, n in swaps.items()) or "passes again, unchanged"
        what = f"opens {report.by_address[name]} (its good call's address)" if name in report.by_address else what
        lines.append(f"  healed {name}: {what}")
    for name, why in report.failed.items():
        lines.append(f"  not healed {name}: {why}")
    if report.plans_kept or report.plans_dropped:
        lines.append(f"  plan cache: {report.plans_kept} kept, {report.plans_dropped} dropped (they used a changed tool)")
    return "\n".join(lines)
