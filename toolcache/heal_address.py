"""Healing a navigating READ by the address its good call landed on, when no name change makes its form do it.

A search, a filter or a sort over a GET form lands on an address that carries
its arguments (``/issue?@search_text=login&@sort=activity``). A redesign may
keep that address working and change the form: Roundup's jinja2 template
searches from a box that adds a status filter of its own (open issues only), so
the healed form lands on the same route with the text, and shows other rows than
the good call did. Sites keep their URL API across template changes far more
often than their markup, so when :mod:`toolcache.heal` cannot heal such a tool
by names, it tries the good call's landing address as a template: the query
parameters that carried the call's arguments take the arguments of each call,
the others keep the values they had (:func:`address_template`). The tool made
so (:func:`by_address`) opens that address on the origin it runs on; it is
healed only when, run with the good call's arguments on the good call's page,
it lands there, passes its post_check and shows the rows the good call's
landing showed (:func:`toolcache.heal_checks.rows_unlike_good`), and gives the
output of each good call on record.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.urls import check_site_path

from .codegen.base import _body, _page_check
from .literal import js

__all__ = ["address_template", "by_address", "template_text"]

Param = tuple[str, str, str | None]
"""A query parameter of the template: its name, its value on the good call's landing, and the input whose value it
carries (None: a value of the page's own, kept as it was)."""


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    return text or None


def address_template(good: dict[str, Any]) -> tuple[str, list[Param]] | None:
    """The path and query parameters of the address a navigating READ's good call landed on (``good["after_url"]``),
    each parameter that carried one of the call's arguments marked with its input; None when that call did not move
    to another address, carried none of its arguments there, or left one out (an argument the address does not hold
    cannot be given by it), or when two arguments had one value (which parameter is whose is unknown)."""
    landed, start = good.get("after_url"), good.get("url")
    args = good.get("args")
    if not isinstance(landed, str) or not isinstance(args, dict):
        return None
    parts = urlsplit(landed)
    if not parts.query or (isinstance(start, str) and urlsplit(start)[2:4] == parts[2:4]):
        return None
    values = {name: v for name, raw in args.items() if (v := _scalar(raw)) is not None}
    if len(set(values.values())) != len(values):
        return None
    whose = {v: name for name, v in values.items()}
    params: list[Param] = [(k, v, whose.get(v.strip())) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    if not values or {p[2] for p in params if p[2] is not None} != set(values):
        return None
    path = parts.path or "/"
    try:
        check_site_path(path)
    except ValueError:
        return None
    return path, params


def _output_js(good: dict[str, Any], params: list[Param]) -> str | None:
    """The output the tool gives, as JS: its good call's (the ``success``/``status`` a form tool answers), with a
    top-level value that was one of the arguments given as that argument; None when the good output has no shape
    to give again (none on record, or an argument's value nested in it)."""
    output = good.get("output")
    if not isinstance(output, dict):
        return None
    carried = {v.strip(): arg for _k, v, arg in params if arg is not None}
    parts = []
    for key, value in output.items():
        arg = carried.get(_scalar(value) or "") if not isinstance(value, (dict, list)) else None
        if arg is None and isinstance(value, (dict, list)) and any(a in json.dumps(value) for a in carried):
            return None
        parts.append(f"{js(key)}: {f'inputs[{js(arg)}]' if arg is not None else js(value)}")
    return "{" + ", ".join(parts) + "}"


def by_address(tool: ToolManifest, good: dict[str, Any]) -> ToolManifest | None:
    """``tool`` (a navigating READ) opening its good call's landing address with each call's arguments in the
    parameters that carried them (:func:`address_template`), on the origin it runs on; its pre_check the page check
    of its ``pre`` alone (no form is needed), its post_check as it was. None when the good call gives no template.

    The parameters are one JSON string in the code (a value such as ``id,title`` is no selector of the page's), and
    a call with an argument the address does not carry throws: the address cannot do what that call asks."""
    template = address_template(good)
    output = _output_js(good, template[1]) if template is not None else None
    if template is None or output is None:
        return None
    path, params = template
    pages = [p for p in str((tool.pre or {}).get("page") or "").split("|") if p]
    execute = _body(
        f"const params = JSON.parse({js(json.dumps([[k, v, arg] for k, v, arg in params]))});",
        "const carried = new Set(params.map((p) => p[2]).filter((a) => a !== null));",
        "for (const [k, v] of Object.entries(inputs || {})) {",
        f"  if (v != null && v !== '' && !carried.has(k)) throw new Error({js('the address this tool opens has no place for ')} + k);",
        "}",
        f"const url = new URL({js(path)}, location.origin);",
        "for (const [k, v, arg] of params) url.searchParams.append(k, arg === null ? v : String(inputs[arg] ?? ''));",
        f"if (url.origin !== location.origin) throw new Error({js('the address leaves the site: ')} + url.href);",
        "setTimeout(() => location.assign(url.href), 0);",
        f"return {output};",
    )
    pre_check = _body(_page_check(pages)) if pages else "return true;"
    return tool.model_copy(update={"execute": execute, "pre_check": pre_check})


def template_text(good: dict[str, Any]) -> str:
    """The template for people: ``/issue?@sort=activity&@search_text={search_text}``."""
    template = address_template(good)
    if template is None:
        return ""
    path, params = template
    return path + "?" + "&".join(f"{k}={'{' + arg + '}' if arg is not None else v}" for k, v, arg in params)
