"""Page names from route templates: the one function codegen, runtime checks and verify share.

A page is named by ``<body data-page>`` when the site sets it; otherwise by
the template of its URL: the first path segment as it is, ids made
placeholders (``/issue123`` -> ``issue{id}``, ``/orders/8f3a9c`` ->
``orders_{id}``), values made ``{name}`` (a segment with capitals, colons, ``@`` or
spaces: ``/account/Assets:Cash/`` -> ``account_{name}``), and, on a page that shows no single item, the view a query
parameter selects (``/issue?@template=search`` -> ``issue_search``). ``/`` is
``home``. The name is a state value (:func:`toolcache.literal.state_value`):
ASCII letters, digits, ``_`` and the placeholders, nothing a pattern reads as a
wildcard or an alternative. :data:`PAGE_JS` is the same function for the browser (the checks
generated tools run; ``toolcache/js/page.js``); a test keeps the two in step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import parse_qsl, unquote, urlsplit

from .dom import snake
from .js import source
from .literal import js, state_value

__all__ = ["page_name", "route_noun", "PAGE_JS", "VIEW_PARAMS", "ROUTES_SLOT", "with_routes", "learn_routes", "heading_slug", "page_variant"]

VIEW_PARAMS = ("@template", "template", "view", "tab", "action")
"""Query parameters that choose which view of a collection a URL shows."""

# ASCII classes and fullmatch, as in page.js (Python's \d, \s and $ mean more than JavaScript's)
_ITEM = re.compile(r"([A-Za-z_-]*?)-?([0-9]+)")
_OPAQUE = re.compile(r"(?=.*[0-9])[0-9a-fA-F-]{6,}")
_VALUE = re.compile(r"[A-Z:@\t\n\v\f\r ]")
"""A segment with capitals, colons, ``@`` or spaces is a value (an account, a user name), not a route word."""


def _segment(seg: str) -> str:
    m = _ITEM.fullmatch(seg)
    if m:
        return f"{m.group(1)}{{id}}" if m.group(1) else "{id}"
    if _OPAQUE.fullmatch(seg):
        return "{id}"
    if _VALUE.search(seg):
        return "{name}"
    return re.sub(r"[^A-Za-z0-9_{}]+", "_", seg).strip("_").lower() or "x"


def _apply_routes(parts: list[str], routes: Sequence[str]) -> list[str]:
    """``parts`` with the variable segments of the first learned route they follow made ``{name}``."""
    for route in routes:
        if VARIANT_MARK in route:
            continue  # a page variant (:func:`page_variant`), not a path template
        pat = route.split("/")
        if len(parts) >= len(pat) and all(p == "{name}" or p == parts[i] for i, p in enumerate(pat)):
            return [("{name}" if i < len(pat) and pat[i] == "{name}" and "{" not in x else x) for i, x in enumerate(parts)]
    return parts


def page_name(url: str | None, routes: Sequence[str] = ()) -> str:
    """The page type of ``url`` when the page does not name itself (see the module docstring).

    ``routes`` are route templates the builder learned (``library/{name}``: a list's items link
    to ``/library/books``, ``/library/authors``): a URL that starts with one has ``{name}`` in its
    variable segments (``/library/books/7`` is ``library_{name}_{id}``).
    """
    u = urlsplit(url or "")
    parts = _apply_routes([_segment(unquote(p)) for p in (u.path or "/").split("/") if p], routes)
    name = "_".join(parts) if parts else "home"
    if "{id}" not in (parts[-1] if parts else ""):
        query: dict[str, str] = {}
        for k, v in parse_qsl(u.query, keep_blank_values=True):
            query.setdefault(k, v)  # the first value, as the page's URLSearchParams.get reads it
        for key in VIEW_PARAMS:
            view = query.get(key)
            if view:
                name += "_" + _segment(view)
                break
    return state_value(name) or "x"  # never empty: "" is the null pattern


VARIANT_MARK = "#"
"""Separates a page variant's base page from its heading (``admin_library_book#delete_multiple_objects``)."""

_SLUG_MAX = 40
"""The longest heading slug a variant's name keeps."""


def heading_slug(text: str | None) -> str:
    """A main heading as a word key: lower case, numbers left out (a count of what it shows),
    runs of anything but ``a-z`` one ``_`` (``Delete multiple objects`` -> ``delete_multiple_objects``,
    ``Delete 3 tickets?`` -> ``delete_tickets``); the same in page.js."""
    return re.sub(r"[^a-z]+", "_", (text or "").lower()).strip("_")


def page_variant(page: str, slug: str, routes: Sequence[str] = ()) -> str:
    """``page``, or its variant when ``routes`` hold ``page#slug``: a document the same URL serves
    in another shape, told apart by its main heading (a POST's confirmation page at a list's URL):
    ``admin_library_book`` + ``delete_multiple_objects`` -> ``admin_library_book_delete_multiple_objects``.
    The builder learns these (:func:`toolcache.variants.learn_variants`); page.js's ``__page()`` does the same."""
    if not slug or f"{page}{VARIANT_MARK}{slug}" not in routes:
        return page
    return state_value(f"{page}_{slug[:_SLUG_MAX].strip('_')}") or page


PAGE_JS = source("page.js")
"""``__pageOf(href)`` and ``__page()`` for the browser, the same rules as :func:`page_name`."""

ROUTES_SLOT = "const __ROUTES = [];"
"""The line of :data:`PAGE_JS` that :func:`with_routes` fills with a site's learned routes."""


def with_routes(body: str, routes: Sequence[str]) -> str:
    """``body`` (a tool body starting with :data:`PAGE_JS`) naming pages with ``routes`` too."""
    return body.replace(ROUTES_SLOT, f"const __ROUTES = {js(list(routes))};", 1) if routes else body


def learn_routes(clicks: Sequence[tuple[str, Sequence[str | None]]]) -> list[str]:
    """Route templates from the URLs one list's items opened: ``(list key, [url after each click])``.

    When the items of one list (a card group on one page) opened pages of different types
    whose paths differ in exactly one segment (``/library/books``, ``/library/authors``), that
    segment is data, not a route word: ``library/{name}``.
    """
    out: list[str] = []
    for _key, urls in clicks:
        paths = {tuple(_segment(unquote(p)) for p in (urlsplit(u or "").path or "/").split("/") if p) for u in urls if u}
        if len(paths) < 2 or len({len(p) for p in paths}) != 1:
            continue
        cols = list(zip(*paths, strict=True))
        varying = [i for i, col in enumerate(cols) if len(set(col)) > 1]
        if len(varying) != 1 or any("{" in x for x in cols[varying[0]]):
            continue
        route = "/".join("{name}" if i == varying[0] else col[0] for i, col in enumerate(cols))
        if route not in out:
            out.append(route)
    return sorted(out, key=lambda r: -r.count("/"))


_ROUTE_VERBS = {"add": "add", "new": "create", "create": "create", "edit": "edit", "change": "change",
                "update": "update", "delete": "delete", "remove": "remove"}
"""A route's last word that says what its page's form does (``book/{id}/change``, ``issues/new``)."""


_NOT_NOUNS = {*_ROUTE_VERBS, "item", "items", "list", "index", "search", "details", "view", "show", "home"}
"""Route words that name no kind of item (``issue_item``: an issue)."""


def route_noun(page: str | None) -> str:
    """The kind of item a page is about, from its route: ``issue{id}`` / ``issue_item`` / ``issue``
    -> ``issue``; ``admin_library_book_{id}_change`` / ``admin_library_book_add`` -> ``book`` (the
    word that holds or precedes the id; else the last word that is no verb nor "item")."""
    parts = [p for p in (page or "").split("_") if p]
    for i, p in enumerate(parts):
        if "{id}" in p or "{name}" in p:
            own = re.sub(r"\{(id|name)\}", "", p)
            if own:
                return snake(own) or "item"
            if i:
                return snake(parts[i - 1]) or "item"
            break
    words = [snake(p) for p in parts if "{" not in p]
    while words and words[-1] in _NOT_NOUNS and len(words) > 1:
        words.pop()
    return (words[-1] if words else "") or "item"
