"""Codegen: deterministic synthesis of protocol-compliant tools from schemas and labeled steps.

Which tools, from what evidence:

============ ==================================================================
listItems    every repeated card group (``list_<cards>``), with a filter input
             for the grouping property; a grouping container (home-page
             sections) also gets its own list (``list_<groups>``)
gotoItem     a card group whose click opened another page (``goto_<card>(name)``)
getFields    every page with singular fields (``get_<page>_details``), and a
             modal opened by a card (``get_<card>_details(name)``: open, read,
             close)
gotoField    a singular link or button whose click opened another page
             (``goto_<page>``), or a dialog (``open_<dialog>``)
setFilter    an input filled and then submitted (Enter or its form's button)
             that changed the page (``search(query)``)
setFields    fields set and a button clicked that sent a state-changing request
             or posted a form (``<button>(...)``); when a card click opened the
             modal the fields live in, the card's name is an input too; a
             button inside a card that wrote (``<action>(name)``); rows of a
             list ticked by their checkboxes, then an action chosen and
             submitted (``<action>(rows)``, one tool per action)
observe      ``observe_page``: the page type, URL and title
============ ==================================================================

One builder per kind of tool, one module per kind (``reads``: lists, details and
``observe_page``; ``cards``; ``links``: links, pagers and dialogs; ``filters``: search forms
and sorting; ``navlinks``: filter links and numbered pages; ``route_goto``; ``selection``:
ticked rows; ``forms``), all over ``base`` (the ``Synth`` record, the site index, naming and
page checks), makes the tools of its kind; :func:`synthesize` runs them in
the order of ``_BUILDERS``, a later one reading the names, list tools and
dialog titles an earlier one made. Every tool body
starts with the in-page helpers of :mod:`toolcache.js` (``page.js``,
``prelude.js``).

Each tool gets ``pre`` / ``post`` from the page types seen before and after,
``pre_check`` / ``post_check`` from ``<body data-page>`` (or the URL) and
element presence, ``effect`` WRITE when its evidence carried a non-GET
request, and JSON schemas for its inputs and outputs. Every tool keeps the
trace steps it came from (``Synth.evidence``) so verify can replay them.

Bodies are fixed code plus literals: every value that came from the site, a
trace or a user (a selector, a label, a page name, a message naming them, an
input's name) enters through :func:`toolcache.literal.js` or
:func:`~toolcache.literal.prop`, never as text spliced into code, and the
page names in ``pre``/``post`` are state values (``tests/toolcache/test_injection.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..extract import SiteSchema
from ..label import LabeledStep
from ..pages import with_routes
from .base import PRELUDE, Synth, _Site, plural, singular
from .cards import _card_action_tools, _card_click_tools
from .filters import _filter_tools, _sort_tools
from .forms import _form_tools
from .links import _dialog_tools, _link_tools
from .navlinks import filter_link_tools, page_number_tools
from .reads import _list_tools, _observe_tool, _page_field_tools
from .route_goto import route_goto_tools
from .selection import _row_selection_tools

__all__ = ["Synth", "synthesize", "PRELUDE", "plural", "singular"]


def _nav_link_tools(site: _Site) -> list[Synth]:
    """Filter-link groups and numbered pages: :mod:`toolcache.codegen.navlinks`."""
    return filter_link_tools(site) + page_number_tools(site)


def _route_goto_tools(site: _Site) -> list[Synth]:
    """Item pages a demonstration opened by their URL: :mod:`toolcache.codegen.route_goto`."""
    return route_goto_tools(site)


_BUILDERS: tuple[Callable[[_Site], list[Synth]], ...] = (
    _list_tools, _card_click_tools, _page_field_tools, _link_tools, _dialog_tools,
    _filter_tools, _sort_tools, _nav_link_tools, _route_goto_tools, _card_action_tools, _row_selection_tools, _form_tools, _observe_tool,
)
"""In this order: a later builder reads the names and list tools an earlier one made."""


def synthesize(schema: SiteSchema, traces: dict[str, list[LabeledStep]], routes: Sequence[str] = (),
               html_of: Callable[[LabeledStep], str | None] | None = None) -> list[Synth]:
    """All tools the schema and the labeled traces support, deterministic and named uniquely;
    their checks name pages with the learned ``routes`` too (:func:`toolcache.pages.page_name`).
    ``html_of`` gives a step's snapshot (the page after it): what a form's result page showed."""
    site = _Site.index(schema, traces)
    site.html_of = html_of
    out = [synth for build in _BUILDERS for synth in build(site)]
    if routes:
        for synth in out:
            m = synth.manifest
            synth.manifest = m.model_copy(update={
                k: with_routes(getattr(m, k), routes) for k in ("pre_check", "execute", "post_check") if getattr(m, k)})
    return out
