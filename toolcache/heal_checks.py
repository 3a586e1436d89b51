"""What ``toolcache heal`` holds a healed tool to beyond its own checks: it gives what the tool gave while it worked.

A tool's own checks pass on many wrong repairs: a list read from another table
(its rows have other columns), a search typed into another box (the page it
lands on lists everything), a form field found by a name that is some other
field's. The last good call of a tool (:meth:`agentjit.cache.SuspectStore.good`)
is the evidence each healed tool is judged against, run with that call's
arguments on that call's page:

* a READ's output must keep the good output's fields (every key path, each
  with a value where the good one had one) and agree with its values
  (:func:`unlike_good`; a list is compared as a set of items, so a row the
  site gained since does not count against it); a field the page now names
  otherwise (a column relabelled: its cells keyed by the new header) is
  mapped back to its old key when its values are the old key's
  (:func:`key_map`), and the healed tool renames it so
  (:func:`rekeyed_execute`);
* a navigating READ (a search, a filter, a sort) must change the page as the
  good call did: land on the good call's address (path and query), or show
  the rows the good call's landing page showed, in its order
  (:func:`lands_unlike_good`);
* a form control the tool's execute fills or clicks, renamed by the redesign,
  must be named again by a selector that finds exactly one element, the same
  kind of control with the same ``name`` or label as the one it found on the
  good page (:data:`EVIDENCE_JS`).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .pages import page_name

__all__ = ["EVIDENCE_JS", "ROWS_JS", "key_map", "lands_like", "lands_unlike_good", "renamed", "rekeyed_execute",
           "rows_unlike_good", "similarity", "unlike_good"]  # fmt: skip

MIN_SIMILARITY = 0.5
"""The least :func:`similarity` a healed READ's output has to its good call's (rows may have changed since)."""
MAX_ITEMS = 200
"""The items of a list compared (the first ones)."""


def _shape(value: Any, path: str = "", out: dict[str, list[Any]] | None = None) -> dict[str, list[Any]]:
    """Every leaf of ``value`` by its key path with list positions left out (``.items[].cells.Book``): its values."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            _shape(v, f"{path}.{k}", out)
    elif isinstance(value, list):
        out.setdefault(f"{path}[]", [])
        for v in value[:MAX_ITEMS]:
            _shape(v, f"{path}[]", out)
    else:
        out.setdefault(path, []).append(value)
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) < 1e-6
    return bool(a == b)


def similarity(good: Any, got: Any) -> float:
    """How much of ``good`` ``got`` gives, 0 to 1: a dict by the mean of its keys; a list by the mean, over the
    good items, of the best match among ``got``'s, times the ratio of the lengths (a list of everything is not the
    filtered list it contains); anything else by equality (numbers to 1e-6)."""
    if isinstance(good, dict):
        if not good:
            return 1.0
        if not isinstance(got, dict):
            return 0.0
        return sum(similarity(v, got.get(k)) for k, v in good.items()) / len(good)
    if isinstance(good, list):
        if not isinstance(got, list):
            return 0.0
        if not good or not got:
            return 1.0 if not good and not got else 0.0
        mine, theirs = good[:MAX_ITEMS], got[:MAX_ITEMS]
        best = sum(max(similarity(g, h) for h in theirs) for g in mine) / len(mine)
        return best * min(len(good), len(got)) / max(len(good), len(got))
    return 1.0 if _same(good, got) else 0.0


def unlike_good(output: Any, good: Any) -> str | None:
    """Why ``output``, a healed READ's, is not what its good call gave (``good``), or None when it is: a key path
    of the good output missing (a plan reads it), one with values there and none here, or too little of it."""
    want, have = _shape(good), _shape(output)
    lost = [p for p in want if p not in have and not p.endswith("[]")]
    if lost:
        return f"its output lacks the good call's field(s) {', '.join(sorted(lost)[:6])}"
    blank = [p for p, vs in want.items() if any(v not in (None, "") for v in vs)
             and not any(v not in (None, "") for v in have.get(p, []))]  # fmt: skip
    if blank:
        return f"its output has no value for {', '.join(sorted(blank)[:6])}, which the good call's had"
    share = similarity(good, output)
    if share < MIN_SIMILARITY:
        return f"its output agrees with the good call's on {share:.0%} (at least {MIN_SIMILARITY:.0%} needed)"
    return None


def _values_share(want: list[Any], have: list[Any]) -> float:
    """The share of ``want``'s values (a multiset) that ``have`` has too, over the longer of the two."""
    a = Counter(json.dumps(v, sort_keys=True, default=str) for v in want)
    b = Counter(json.dumps(v, sort_keys=True, default=str) for v in have)
    return sum((a & b).values()) / max(len(want), len(have), 1)


def key_map(output: Any, good: Any) -> dict[str, str]:
    """The key paths of ``output`` that are fields of ``good`` under another name, by their values: for each key
    path of the good output that ``output`` lacks, the one ``output`` has beside it (same parent) and the good
    output lacks whose values are most of the lost one's. ``{new path: old key}`` (``{".items[].cells.Title":
    "Book"}``); empty when none is."""
    want, have = _shape(good), _shape(output)
    lost = [p for p in want if p not in have and not p.endswith("[]")]
    extra = [p for p in have if p not in want and not p.endswith("[]")]
    out: dict[str, str] = {}
    for path in lost:
        parent, _dot, key = path.rpartition(".")
        share, best = max(((_values_share(want[path], have[q]), q) for q in extra
                           if q.rpartition(".")[0] == parent and q not in out), default=(0.0, ""))  # fmt: skip
        if best and share >= MIN_SIMILARITY:
            out[best] = key
    return out


def renamed(value: Any, keys: dict[str, str], path: str = "") -> Any:
    """``value`` with the keys at the paths of ``keys`` given their old names (:func:`key_map`)."""
    if isinstance(value, dict):
        return {keys.get(f"{path}.{k}", k): renamed(v, keys, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, keys, f"{path}[]") for v in value]
    return value


_RENAMED_JS = """const __renamed = (v, keys, path) => {
  if (Array.isArray(v)) return v.map((x) => __renamed(x, keys, path + '[]'));
  if (!v || typeof v !== 'object') return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) out[Object.hasOwn(keys, path + '.' + k) ? keys[path + '.' + k] : k] = __renamed(x, keys, path + '.' + k);
  return out;
};"""


def rekeyed_execute(execute: str, keys: dict[str, str]) -> str:
    """``execute`` whose output has the keys at the paths of ``keys`` given their old names (:func:`renamed`, in
    the page). The map is written as one JSON string: no literal of it reads as a name of the page."""
    body = json.dumps(json.dumps(keys, sort_keys=True))
    return f"{_RENAMED_JS}\nreturn __renamed(await (async () => {{\n{execute}\n}})(), JSON.parse({body}), '');"


#: The data rows of each ``[html, url]`` given (``html`` null for the page itself; ``url`` where the document was,
#: its links' base): each row (a ``tr`` with ``td`` cells, not its table's header row of labels) as the items it
#: links to (the paths and queries of its links off its page, sorted: what the row is, whatever markup draws it),
#: or, for a row without such a link, its cells' texts, sorted (a redesign may move columns) and joined. A row with
#: no link and a form field (a select, a text box) is a form's, laid out in a table: no row of data.
ROWS_JS = r"""
(docs) => docs.map(([html, url]) => {
  const doc = html === null ? document : new DOMParser().parseFromString(html, 'text/html');
  const base = html === null ? location.href : (url || 'http://unknown.invalid/');
  const here = new URL(base).pathname;
  const clean = (t) => (t || '').replace(/\s+/g, ' ').trim();
  const label = (c) => { const t = clean(c.textContent); return !!t && t.length <= 40 && t.split(' ').length <= 5 && !/\d/.test(t)
    && !c.querySelector('a[href]:not([href^="?"]):not([href^="#"]), input, select, textarea, button, img'); };
  const head = (r) => r.cells.length > 1 && r.closest('table').querySelector('tr') === r && !!r.nextElementSibling
    && [...r.cells].every((c) => c.tagName === 'TH' || c.getAttribute('role') === 'columnheader' || label(c));
  const item = (a) => { try { const u = new URL(a.getAttribute('href'), base); return u.pathname === here ? '' : u.pathname + u.search; }
    catch (e) { return ''; } };
  // a row of a form laid out in a table (classic Roundup's "Sort on:" select under its list): no link, a field
  const field = (r) => !r.querySelector('a[href]') && !!r.querySelector('select, textarea, input:not([type=hidden]):not([type=checkbox])');
  return [...doc.querySelectorAll('tr')].filter((r) => r.querySelector(':scope > td') && !head(r) && !field(r)).slice(0, 500)
    .map((r) => {
      const links = [...new Set([...r.querySelectorAll('a[href]')].map(item).filter(Boolean))].sort();
      return links.length ? links.join(' | ') : [...r.children].map((c) => clean(c.textContent)).filter(Boolean).sort().join(' | ');
    })
    .filter(Boolean);
})
"""


def _address(url: str | None) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """A page's path and its query, sorted: where it is on any origin (heal runs on another host than the run)."""
    if not url:
        return None
    parts = urlsplit(url)
    return parts.path.rstrip("/") or "/", tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))


def _argument_params(url: str | None, args: dict[str, Any]) -> set[tuple[str, str]]:
    """The query parameters of ``url`` that carry one of ``args``' values (``@search_text=login`` for ``login``)."""
    values = {str(v).strip() for v in args.values() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    values.discard("")
    return {(k, v) for k, v in parse_qsl(urlsplit(url or "").query, keep_blank_values=True) if v.strip() in values}


def lands_like(url: str, good: dict[str, Any]) -> bool:
    """Whether ``url`` is the page of the kind the good call landed on (``good["after_url"]``) for the same
    arguments: the same route template (:func:`toolcache.pages.page_name`), and every query parameter of the
    good landing that carried an argument there with that value (one at least). The page's own parameters (the
    hidden inputs of a search form: a sort, a filter a redesign sets otherwise) are the page's, not the call's."""
    landed = good.get("after_url")
    args = good.get("args")
    carried = _argument_params(landed, args if isinstance(args, dict) else {})
    if not landed or not carried or page_name(url) != page_name(landed):
        return False
    return carried <= set(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def _rows_like(rows: list[str], want: list[str], before: list[str]) -> bool:
    """Whether ``rows`` are the rows of ``want`` (the good landing page's): most of them (a set), not the rows
    ``before`` the good call where it changed them, and in ``want``'s order where it only reordered them."""
    if not want:
        return not rows or set(rows) == set(before) == set()
    got, need = set(rows), set(want)
    if len(got & need) / len(got | need) < MIN_SIMILARITY:
        return False
    if rows == before and want != before:
        return False
    if need == set(before):  # the good call reordered the rows: the order is what it did
        common = [r for r in rows if r in need]
        order = [r for r in want if r in got]
        return common == order
    return True


def lands_unlike_good(url: str, rows: list[str] | None, good: dict[str, Any],
                      good_rows: tuple[list[str], list[str]]) -> str | None:  # fmt: skip
    """Why a navigating READ that landed on ``url`` showing ``rows`` did not do what its good call did (which went
    from ``good["url"]`` to ``good["after_url"]``, its rows from ``good_rows[0]`` to ``good_rows[1]``), or None.

    It did when it lands at the good call's address (path and query), where that call changed the address; or
    shows that call's rows (:func:`_rows_like`: the items they link to, the text of a row without a link) where
    that call changed them; or, where it changed the address and not the rows, lands on a page of its route with
    the parameters that carried its arguments (:func:`lands_like`). A page of that route showing other rows than
    the good call's did not search as that call did (a redesigned search form that filters by a field of its own:
    Roundup jinja2's box searches open issues only). A call that changed neither shows nothing to hold it to.
    ``rows`` None: the address alone (the rows not read yet)."""
    start, landed = _address(good.get("url")), _address(good.get("after_url"))
    before, after = good_rows
    moved = landed is not None and landed != start
    redrawn = before != after
    if not moved and not redrawn:
        return None
    if moved and (_address(url) == landed or (not redrawn and lands_like(url, good))):
        return None
    if redrawn and rows is not None and _rows_like(rows, after, before):
        return None
    where = f"it lands on {url}, not at {good.get('after_url')} as its good call did" if moved else f"it lands on {url}"
    what = "; its rows are not the ones that call showed" if redrawn else ""
    return where + what


def rows_unlike_good(rows: list[str], good_rows: tuple[list[str], list[str]]) -> str | None:
    """Why ``rows``, those of the page a navigating READ landed on, are not the rows its good call's landing
    showed (``good_rows``: before and after that call), or None; None too when that call redrew no rows."""
    before, after = good_rows
    if before == after or _rows_like(rows, after, before):
        return None
    return f"it shows {len(rows)} row(s), not the {len(after)} its good call's landing showed"


#: For ``[oldHtml, oldSelector, candidates]``: whether the element ``oldSelector`` found on the good page (one
#: form control) is what each candidate finds now, exactly one element: null when it is, else why not. Null
#: instead of the list when the old selector found no control, or more than one element (no evidence).
EVIDENCE_JS = r"""
([oldHtml, oldSel, cands]) => {
  const old = new DOMParser().parseFromString(oldHtml, 'text/html');
  const clean = (t) => (t || '').replace(/\s+/g, ' ').trim().toLowerCase();
  const CONTROL = /^(input|select|textarea|button)$/i;
  const find = (doc, sel) => {
    const i = sel.indexOf(' >> text=');
    const css = i < 0 ? sel : sel.slice(0, i);
    const els = [...doc.querySelectorAll(css)];
    return i < 0 ? els : els.filter((e) => clean(e.textContent || e.value) === clean(sel.slice(i + 9)));
  };
  const label = (doc, el) => {
    const parts = [];
    if (el.id) for (const l of doc.querySelectorAll('label[for]')) if (l.getAttribute('for') === el.id) parts.push(l.textContent);
    const wrap = el.closest('label');
    if (wrap) parts.push(wrap.textContent);
    for (const a of ['aria-label', 'placeholder', 'title']) if (el.getAttribute(a)) parts.push(el.getAttribute(a));
    return parts.map(clean).filter(Boolean);
  };
  const sig = (doc, el) => ({tag: el.tagName.toLowerCase(), type: clean(el.getAttribute('type')), name: el.getAttribute('name') || '',
    labels: label(doc, el), text: clean(el.tagName === 'INPUT' ? el.getAttribute('value') : el.textContent)});
  let was;
  try { was = find(old, oldSel); } catch (e) { return null; }
  if (was.length !== 1 || !CONTROL.test(was[0].tagName)) return null;
  const w = sig(old, was[0]);
  return cands.map((c) => {
    let now;
    try { now = find(document, c); } catch (e) { return 'it does not parse'; }
    if (now.length !== 1) return `it finds ${now.length} elements, not one`;
    const n = sig(document, now[0]);
    if (n.tag !== w.tag || n.type !== w.type) return `it finds a ${n.tag}${n.type ? ' ' + n.type : ''}, not a ${w.tag}${w.type ? ' ' + w.type : ''}`;
    // the same name, or the same label, and neither another: the evidence it is the control the tool filled (a
    // button without either: its words)
    const named = !!w.name && n.name === w.name;
    const labelled = w.labels.length > 0 && n.labels.some((l) => w.labels.includes(l));
    const unlike = (w.name && n.name !== w.name) || (w.labels.length && n.labels.length && !labelled);
    if (!unlike && (named || labelled || (!w.name && !w.labels.length && n.text === w.text))) return null;
    const was = w.name ? `named ${JSON.stringify(w.name)}` : w.labels.length ? `labelled ${JSON.stringify(w.labels[0])}` : `saying ${JSON.stringify(w.text)}`;
    return `it finds a ${n.tag} named ${JSON.stringify(n.name)} (${JSON.stringify(n.labels[0] || n.text)}), not the one ${was}`;
  });
}
"""

