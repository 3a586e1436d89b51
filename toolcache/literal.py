"""The one encoder for what the builder writes into generated code, selectors and patterns.

Everything the builder read from a site, a trace or a user (names, labels,
selectors, texts, page names, URL parameters) is data. It enters the
JavaScript of a generated tool only as a literal made here, the way
markupsafe's ``Markup`` makes escaping the default:

* :func:`js` -- a JavaScript literal of any JSON value (a string, a number, a
  list of selectors). JSON is a JS literal once U+2028/U+2029 are escaped (older
  engines end a line there); ``<`` is escaped too, so that no ``</script>``
  or ``<!--`` ends or opens anything when a body is ever put in an HTML
  ``<script>`` (``>`` and ``&`` do nothing there without a ``<``, and stay
  readable in selectors such as ``tr:has(> td)``); lone surrogates become
  ``\\ud800`` escapes (they cannot be written as UTF-8).
* :func:`css_string` / :func:`css_ident` / :func:`css_attr` -- CSS escaping
  for the parts of a selector that come from the page (attribute values, ids,
  classes, tag names), like the browser's ``CSS.escape``; the selector is then
  a string and goes through :func:`js` like any other.
* :func:`prop` -- a property access ``obj["name"]`` for a name the site gave.
* :func:`state_value` -- a value that becomes part of a tool's ``pre`` /
  ``post`` pattern (a page name, a dialog name) in a safe alphabet: ASCII
  letters, digits and ``_``, plus the route placeholders ``{id}`` and
  ``{name}``. No site can write a wildcard (``*``), an alternative (``a|b``) or
  a binding (``$x``) into a precondition (:mod:`agentjit.protocol.state`).
  ``toolcache/js/page.js`` (``__safe``) computes the same in the page; a test
  holds the two together on hostile input.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["js", "css_string", "css_ident", "css_attr", "prop", "state_value", "STATE_VALUE_MAX"]

_JS_UNSAFE = re.compile("[\u2028\u2029<\ud800-\udfff]")


def _js_escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def js(value: Any) -> str:
    """A JavaScript literal of ``value`` (any JSON value): the only way site text enters generated JS."""
    return _JS_UNSAFE.sub(_js_escape, json.dumps(value, ensure_ascii=False, allow_nan=False))


_CSS_KEEP = re.compile(r"[A-Za-z0-9 _\-./:?=&%+~@!,;#()'$*^\[\]{}`]")
"""Characters a CSS string keeps as they are (readable URLs and labels); the rest is escaped."""


def _css_hex(c: str) -> str:
    """A CSS hex escape; the space after it ends the escape (and is not part of the value)."""
    return f"\\{ord(c) if c != chr(0) else 0xFFFD:x} "


def css_string(value: str) -> str:
    """``value`` as a double-quoted CSS string: quotes, backslashes, newlines, ``>`` and ``|``
    hex-escaped (so that no site text splits a ``sel >> text=...`` locator or a ``sel|attr`` key)."""
    out = [c if _CSS_KEEP.match(c) or (ord(c) >= 0xA0 and c not in "\u2028\u2029" and not 0xD800 <= ord(c) <= 0xDFFF)
           else _css_hex(c) for c in value]
    return '"' + "".join(out) + '"'


def css_ident(value: str) -> str:
    """``value`` as a CSS identifier (an id, a class, a tag name), as ``CSS.escape`` makes it:
    letters, digits, ``-``, ``_`` and non-ASCII kept, everything else hex-escaped, a leading digit too."""
    out = []
    for i, c in enumerate(value):
        lead_digit = c.isascii() and c.isdigit() and (i == 0 or (i == 1 and value[0] == "-"))
        safe = (c.isascii() and (c.isalnum() or c in "-_")) or (ord(c) >= 0xA0 and not 0xD800 <= ord(c) <= 0xDFFF)
        out.append(_css_hex(c) if lead_digit or not safe else c)
    if value == "-":
        return "\\-"
    return "".join(out)


def css_attr(name: str, value: str) -> str:
    """An attribute selector ``[name="value"]`` with both parts escaped for CSS."""
    return f"[{css_ident(name)}={css_string(value)}]"


def prop(obj: str, name: str) -> str:
    """JS reading property ``name`` of the expression ``obj``: ``inputs["query"]``. Always a
    subscript: a name made from site text (an input's label) is data even when it looks like an
    identifier, and ``inputs.1st`` would not parse."""
    return f"{obj}[{js(name)}]"


STATE_VALUE_MAX = 100
"""The longest state value: a page name longer than this is cut (the same in the page)."""
_PLACEHOLDERS = re.compile(r"(\{id\}|\{name\})")
_UNSAFE_STATE = re.compile(r"[^A-Za-z0-9_]+")


def state_value(text: str | None) -> str:
    """``text`` in the alphabet of state values (see the module docstring); ``""`` when nothing is left.

    Runs of other characters become one ``_``; leading and trailing ``_`` go; at most
    :data:`STATE_VALUE_MAX` characters. ``toolcache/js/page.js``'s ``__safe`` is the same function.
    """
    parts = _PLACEHOLDERS.split(text or "")
    out = "".join(p if i % 2 else _UNSAFE_STATE.sub("_", p) for i, p in enumerate(parts))
    return out.strip("_")[:STATE_VALUE_MAX]
