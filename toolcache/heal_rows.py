"""Healing a list READ whose records moved out of table cells: read again with the builder's current helpers.

A redesign may draw a list's records as cards of label/value parts (``Author: bob``, ``<dt>Author</dt>
<dd>bob</dd>``, ``<span class=label>Author</span> bob``) where it drew table rows. The tool's own code reads each
field by its label (``__cell(row, "Author")`` under a column head, ``__labeled(row, "Author")`` in a cell that
reads ``Author: bob``); no name change makes a card a table row. The builder's current helpers
(``toolcache/js/prelude.js``) read a record that is no table row by its labelled parts, so the tool with those
helpers (:func:`toolcache.heal_fill.with_current_helpers`; ``_Healer.heal_by_reading`` in
:mod:`toolcache.heal`) is healed as any tool, by names (its rows' selector
now the cards'), and kept only when it gives its good call's output again, as every healed READ must.

Heal tells such a page from one in another state (a cart emptied since, which no repair fixes) by what the tool
read: the page still shows every value of its good call's output (:func:`shows_output`).
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["shows_output", "output_texts"]

log = logging.getLogger(__name__)

MAX_TEXTS = 200
"""The most values of a good output looked for on a page."""

#: Whether the page's text holds every one of the given texts (spacing and case aside).
_SHOWN_JS = r"""
(texts) => {
  const flat = (s) => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
  const page = flat(document.body ? document.body.innerText || document.body.textContent : '');
  return texts.every((t) => page.includes(flat(t)));
}
"""


def output_texts(output: Any) -> list[str]:
    """The texts of a READ's output (its string values of two characters or more, each once), at most
    :data:`MAX_TEXTS`: what a page that still shows what the tool read shows."""
    out: dict[str, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and len(value.strip()) >= 2:
            out[value.strip()] = None

    walk(output)
    return list(out)[:MAX_TEXTS]


async def shows_output(page: Any, output: Any) -> bool:
    """Whether ``page`` shows every text of ``output`` (a READ's good call's, :func:`output_texts`); False when it
    has none to show. Such a page lost the tool's names, not what they matched: its names are for heal."""
    texts = output_texts(output)
    if not texts:
        return False
    try:
        return bool(await page.evaluate(_SHOWN_JS, texts))
    except Exception:  # a page mid-navigation: no evidence either way
        return False
