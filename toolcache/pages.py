"""Page names from route templates: the one function codegen, runtime checks and verify share.

A page is named by ``<body data-page>`` when the site sets it; otherwise by
the template of its URL: the first path segment as it is, ids made
placeholders (``/issue123`` -> ``issue{id}``, ``/orders/8f3a9c`` ->
``orders_{id}``), values made ``{name}`` (a segment with capitals, colons, ``@`` or
spaces: ``/account/Assets:Cash/`` -> ``account_{name}``), and, on a page that shows no single item, the view a query
parameter selects (``/issue?@template=search`` -> ``issue_search``). ``/`` is
``home``. :data:`PAGE_JS` is the same function for the browser (the checks
generated tools run; ``toolcache/js/page.js``); a test keeps the two in step.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlparse

from .js import source

__all__ = ["page_name", "PAGE_JS", "VIEW_PARAMS"]

VIEW_PARAMS = ("@template", "template", "view", "tab")
"""Query parameters that choose which view of a collection a URL shows."""

_ITEM = re.compile(r"^([A-Za-z_-]*?)-?(\d+)$")
_OPAQUE = re.compile(r"^(?=.*\d)[0-9a-fA-F-]{6,}$")
_VALUE = re.compile(r"[A-Z:@\s]")
"""A segment with capitals, colons, ``@`` or spaces is a value (an account, a user name), not a route word."""


def _segment(seg: str) -> str:
    m = _ITEM.match(seg)
    if m:
        return f"{m.group(1)}{{id}}" if m.group(1) else "{id}"
    if _OPAQUE.match(seg):
        return "{id}"
    if _VALUE.search(seg):
        return "{name}"
    return re.sub(r"[^A-Za-z0-9_{}]+", "_", seg).strip("_").lower() or "x"


def page_name(url: str | None) -> str:
    """The page type of ``url`` when the page does not name itself (see the module docstring)."""
    u = urlparse(url or "")
    parts = [_segment(unquote(p)) for p in (u.path or "/").split("/") if p]
    name = "_".join(parts) if parts else "home"
    if "{id}" not in (parts[-1] if parts else ""):
        query = dict(parse_qsl(u.query, keep_blank_values=True))
        for key in VIEW_PARAMS:
            view = query.get(key)
            if view:
                name += "_" + _segment(view)
                break
    return name


PAGE_JS = source("page.js")
"""``__pageOf(href)`` and ``__page()`` for the browser, the same rules as :func:`page_name`."""
