"""Page variants: one URL route serving documents of different shapes.

A page is named by its URL when it does not name itself (:mod:`toolcache.pages`),
but a form's POST may be answered, at the same URL, with a document of another
kind: Django's "Delete multiple objects" confirmation comes back from the POST to
the change list's own URL. Taken for the list, its controls would be looked for on
the list and its tools would run there. :func:`learn_variants` finds such
documents in the traces and names them by their main heading:
``admin_library_book#delete_multiple_objects`` is the variant
``admin_library_book_delete_multiple_objects`` (:func:`toolcache.pages.page_variant`;
the same in the browser, page.js's ``__page()``).

A document is a variant of its URL's page when

* a state-changing request answered it (a form post answered with a document, not a redirect),
* the same page type was also loaded otherwise (a GET, a redirect's target),
* its main heading (the first ``h1`` outside the site chrome) is none of those documents' headings, and
* its visible form controls are mostly not theirs (at most half shared): a form shown again
  with its errors keeps its page, and so does a page whose heading only echoes what was asked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from agentjit.protocol.trace import StepEvent

from .dom import Node, parse_html
from .pages import VARIANT_MARK, heading_slug, page_name

__all__ = ["document_heading", "learn_variants"]

_CHROME = {"nav", "header", "footer", "aside"}
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary"}
_SHARED_MAX = 0.5
"""The largest share of visible controls a variant may have in common with its page's other documents."""


def _text_content(n: Node) -> str:
    """What the browser's ``textContent`` reads (no spaces added between elements)."""
    return "".join(c if isinstance(c, str) else _text_content(c) for c in n.chunks)


def document_heading(body: Node | None) -> str:
    """The slug of the document's main heading (:func:`toolcache.pages.heading_slug`), ``""`` without one."""
    if body is None:
        return ""
    h1 = body.find(lambda n: n.tag == "h1" and not any(
        a.tag in _CHROME or a.attrs.get("role") in _CHROME_ROLES for a in n.ancestors()))
    return heading_slug(_text_content(h1)) if h1 is not None else ""


def _controls(body: Node) -> set[str]:
    """The document's visible form controls, each by its name, id, or kind and label."""
    out: set[str] = set()
    for n in body.iter():
        if n.tag not in ("input", "select", "textarea", "button") or n.hidden:
            continue
        kind = n.attrs.get("type", "text" if n.tag == "input" else n.tag).lower()
        if kind == "hidden":
            continue
        out.add(n.attrs.get("name") or n.attrs.get("id") or f"{kind}:{n.attrs.get('value') or n.text}")
    return out


def _answered_by_write(step: StepEvent) -> bool:
    """The step's document came back from a state-changing request (not from a redirect after it)."""
    return any(str(w.get("method", "GET")).upper() not in ("GET", "HEAD") and w.get("resource") == "document"
               and 200 <= int(w.get("status") or 0) < 300 for w in step.requests)


def _loads_document(step: StepEvent) -> bool:
    if step.document is not None:
        return step.document
    return step.action == "goto" or (step.url_after or "") != (step.url or "") or bool(step.requests)


def learn_variants(traces: Iterable[Any], routes: Sequence[str] = ()) -> list[str]:
    """The page variants (``page#heading``) the traces show (see the module docstring);
    ``routes`` are the path templates that name the pages."""
    plain: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    answered: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for tr in traces:
        by_write = False
        for st in tr.steps:
            if _loads_document(st):
                by_write = _answered_by_write(st)
            html = tr.snapshot_html(st) if st.snapshot else None
            if not html:
                continue
            body = parse_html(html).find(lambda n: n.tag == "body")
            if body is None or body.attrs.get("data-page"):
                continue  # a page that names itself needs no variant
            page = page_name(st.url_after or st.url, routes)
            (answered if by_write else plain)[page].append((document_heading(body), _controls(body)))
    out: list[str] = []
    for page, docs in sorted(answered.items()):
        seen = plain.get(page)
        if not seen:
            continue
        headings = {h for h, _ in seen}
        for slug, controls in docs:
            if not slug or slug in headings or f"{page}{VARIANT_MARK}{slug}" in out:
                continue
            if any(len(controls & other) > _SHARED_MAX * max(1, len(controls | other)) for _, other in seen):
                continue
            out.append(f"{page}{VARIANT_MARK}{slug}")
    return out
