"""Pages a demonstration reached by URL: ``goto_<page>_by_<param>(value)`` over the page's route.

A demonstration that opened an item page by typing its address (a wiki page that does not exist
yet, to create it) clicked nothing a tool could repeat. When that page's type is an item route
(``wiki_{name}``: one path segment is the item's name or id, :func:`toolcache.pages.page_name`)
and the URL has no query, the route is a template: the segments before and after the item's
stay as they were, and the tool opens ``prefix + encodeURIComponent(value) + rest`` on the
origin of the page it runs on; its post-check wants that address, or a title or heading naming
the value. The value is one path segment (a ``/`` in it is encoded, ``.``
and ``..`` are refused), never a URL; the template's constant parts are checked as a site path
(:func:`agentjit.protocol.urls.check_site_path`) when the tool is made, and the URL built in the
page must keep the page's origin before it is opened.

A page opened by an address with no variable part and no query (``/admin/login/``, the sign-in
page every demonstration starts on) gives ``goto_<page>()``, with no input: a plan can reach it
from any state, so the tools that start there (a sign-in) have a reachable precondition.
"""

from __future__ import annotations

from collections import defaultdict
from urllib.parse import unquote, urlsplit

from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.protocol.urls import check_site_path

from ..dom import snake
from ..label import LabeledStep
from ..literal import js, prop
from ..pages import _segment
from .base import Synth, _body, _page_guard, _page_pattern, _Site

__all__ = ["route_template", "fixed_path", "route_goto_tools", "page_goto_tools"]


def route_template(url: str | None) -> tuple[str, str, str] | None:
    """``(prefix, param, rest)`` of a URL whose path has exactly one variable segment
    (``/wiki/Glossary`` -> ``("/wiki/", "name", "")``), else None (a query, no or several
    variable segments, a segment with a word around its number such as ``issue-7``)."""
    parts = urlsplit(url or "")
    if parts.query or not parts.path.startswith("/"):
        return None
    segs = parts.path.split("/")
    var = [i for i, seg in enumerate(segs) if seg and "{" in _segment(unquote(seg))]
    if len(var) != 1 or _segment(unquote(segs[var[0]])) not in ("{name}", "{id}"):
        return None
    i = var[0]
    prefix = "/".join(segs[:i]) + "/"
    rest = "/" + "/".join(segs[i + 1:]) if i + 1 < len(segs) else ""
    try:
        check_site_path(prefix)
        if rest:
            check_site_path(rest)
    except ValueError:
        return None
    if any(c in prefix + rest for c in "?#%{}"):
        return None
    return prefix, _segment(unquote(segs[i]))[1:-1], rest


def fixed_path(url: str | None) -> str | None:
    """The path of ``url`` when it has no variable segment and no query (``/admin/login/``), else None."""
    parts = urlsplit(url or "")
    if parts.query or not parts.path.startswith("/"):
        return None
    if any(seg and "{" in _segment(unquote(seg)) for seg in parts.path.split("/")):
        return None
    try:
        check_site_path(parts.path)
    except ValueError:
        return None
    return None if any(c in parts.path for c in "?#%{}") else parts.path


def page_goto_tools(site: _Site) -> list[Synth]:
    """``goto_<page>()`` (``open_<page>()`` when a link tool has that name): one per page type a
    demonstration opened by a fixed address, when the traces show that page type at that address
    only (not an item page named by its markup, ``/store/popeyes``, which would bind the tool to
    one item); the address is the tool's literal, the page type its post."""
    by_page: dict[str, list[tuple[str, LabeledStep]]] = defaultdict(list)
    for ls in site.steps:
        st = ls.step
        if st.action != "goto" or not st.ok or not ls.page_after or "{" in ls.page_after:
            continue
        path = fixed_path(str(st.value or st.url_after or ""))
        if path is not None:
            by_page[ls.page_after].append((path, ls))
    shown_at: dict[str, set[str]] = defaultdict(set)  # page type -> every path it was shown at
    for ls in site.steps:
        if ls.page_after and ls.step.url_after:
            shown_at[ls.page_after].add(urlsplit(ls.step.url_after).path)
    out: list[Synth] = []
    for page, hits in sorted(by_page.items()):
        paths = [path for path, _ in hits]
        path = max(dict.fromkeys(paths), key=paths.count)
        if shown_at[page] - {path}:
            continue  # one page type at several addresses (an item's page, named by its markup): no fixed address opens it
        steps = [ls for p, ls in hits if p == path]
        base = snake(page) or "home"
        m = ToolManifest(
            # a link tool may have the goto_ name already (it opens the page from some pages, not from any)
            name=site.name(f"goto_{base}" if f"goto_{base}" not in site.name.used else f"open_{base}"),
            description=f"Open the {page} page ({path} on this site), from any page.",
            type=ToolType.GOTO_ITEM,
            input_schema={"type": "object", "properties": {}},
            output_schema={"type": "object", "properties": {}},
            pre={},
            post={"page": _page_pattern({page})},
            execute=_body(*[
                f"const url = new URL({js(path)}, location.origin);",
                f"if (url.origin !== location.origin) throw new Error({js('the address leaves the site: ')} + url.href);",
                "setTimeout(() => location.assign(url.href), 0);",
                "return {};",
            ]),
            post_check=_body(_page_guard({page}), "return true;"),
            effect=Effect.READ,
            navigates=True,
        )
        out.append(Synth(m, "goto_route", evidence=steps, witness_args=[{} for _ in steps]))
    return out


def route_goto_tools(site: _Site) -> list[Synth]:
    """``goto_<page>_by_<param>``: one per item page type a demonstration opened by its URL; then
    ``goto_<page>()`` for the pages opened by a fixed address (:func:`page_goto_tools`)."""
    by_route: dict[tuple[str, str, str, str], list[LabeledStep]] = defaultdict(list)
    for ls in site.steps:
        st = ls.step
        if st.action != "goto" or not st.ok or not ls.page_after:
            continue
        if "{name}" not in ls.page_after and "{id}" not in ls.page_after:
            continue
        tpl = route_template(str(st.value or st.url_after or ""))
        if tpl is not None:
            by_route[(ls.page_after, *tpl)].append(ls)
    out: list[Synth] = []
    for (page, prefix, param, rest), steps in sorted(by_route.items(), key=lambda kv: kv[0]):
        base = snake(page.replace("{name}", "").replace("{id}", "")) or "item"
        values = [unquote(urlsplit(str(s.step.value or s.step.url_after)).path[len(prefix):][: None if not rest else -len(rest)])
                  for s in steps]
        tps = site.schema.pages.get(page)
        heads = ", ".join(dict.fromkeys([(tps.title_selector if tps else None) or "h1", "h1", "h2"]))
        m = ToolManifest(
            name=site.name(f"goto_{base}_by_{param}"),
            description=(f"Open the {page} page of the {param} given, by its address "
                         f"({prefix}<{param}>{rest} on this site), whether or not the item exists yet."),
            type=ToolType.GOTO_ITEM,
            input_schema={"type": "object", "properties": {param: {"type": "string", "minLength": 1}}, "required": [param]},
            output_schema={"type": "object", "properties": {param: {"type": "string"}}},
            pre={},
            post={"page": _page_pattern({page})},
            execute=_body(*[
                f"const value = String({prop('inputs', param)});",
                f"if (!value || value === '.' || value === '..') throw new Error({js(f'not a {param}: ')} + JSON.stringify(value));",
                f"const url = new URL({js(prefix)} + encodeURIComponent(value) + {js(rest)}, location.origin);",
                f"if (url.origin !== location.origin) throw new Error({js('the address leaves the site: ')} + url.href);",
                "setTimeout(() => location.assign(url.href), 0);",
                f"return {{{js(param)}: value}};",
            ]),
            post_check=_body(*[
                _page_guard({page}),
                # the address asked for (an id no page shows) or, after a redirect, a title or heading naming the item
                f"if (location.pathname === {js(prefix)} + encodeURIComponent(String({prop('inputs', param)})) + {js(rest)}) return true;",
                f"const want = __norm({prop('inputs', param)});",
                f"const shown = [document.title, ...[...document.querySelectorAll({js(heads)})].map((h) => h.textContent)];",
                f"return !want || shown.some((t) => __norm(t).includes(want)) ? true : [false, 'the page opened does not name ' + JSON.stringify({prop('inputs', param)})];",
            ]),
            effect=Effect.READ,
            navigates=True,
        )
        out.append(Synth(m, "goto_route", evidence=steps, name_param=param,
                         witness_args=[{param: v} for v in values]))
    return out + page_goto_tools(site)
