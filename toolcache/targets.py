"""Find a demonstration step's target on the page, or say why not and what the page has instead.

A target (:class:`~toolcache.script.ScriptTarget`) names one element by CSS
``selector`` (narrowed by ``text``), by ``role`` and accessible ``name``, or by
visible ``text``. :func:`resolve_target` waits a little for it to appear, then:

- exactly one match: that element;
- a ``name`` or ``text`` that matches no element exactly but exactly one once
  case and runs of whitespace are ignored (``"Add  to cart"`` for ``Add to
  Cart``): that element, unless the target says ``"exact": true``;
- several matches and no ``nth``: the one that is visible, if only one is, or
  the first shown when all shown are alike (same role, name and text: one store
  listed in two sections); otherwise :class:`TargetError` listing them with a
  selector each, and how to pick one (``"nth": i``, or a narrower target);
- no match: :class:`TargetError` with the elements of the page most like the
  target (role, accessible name, text, selector), by :mod:`difflib` similarity.

A :class:`TargetError` is the script's fault (it does not fit the page), so the
command line exits with status 2.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import time
from typing import Any

from agentjit.agent.observe import ELEMENT_HELPERS_JS
from agentjit.exceptions import UserError

from .navigation import is_navigation_race
from .script import ScriptTarget

__all__ = ["TargetError", "resolve_target", "describe_target", "CANDIDATES"]

CANDIDATES = 8
"""How many of the page's elements an error lists."""
POLL_S = 0.1
MAX_MATCHES = 200
"""Above this many matches a target is too broad to look at each: it is ambiguous."""

_BRIEF_JS = "const brief = (el) => { const s = sig(el); return {role: s.role || s.tag, name: labelOf(el), " \
            "text: clean(el.innerText || el.textContent).slice(0, 80), selector: selectorOf(el), testid: s.testid, " \
            "visible: !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)}; };\n"

PAGE_ELEMENTS_JS = "(limit) => {\n" + ELEMENT_HELPERS_JS + _BRIEF_JS + r"""  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const s = sig(el);
    if (!(s.role || s.testid || el.tagName === 'LABEL' || el.hasAttribute('onclick') || el.hasAttribute('tabindex'))) continue;
    const b = brief(el);
    if (!b.visible) continue;
    out.push(b);
    if (out.length >= limit) break;
  }
  return out;
}
"""
"""The visible elements a script could target (with a role, a test id, a label or a click handler), briefly."""

MATCHES_JS = "(els, limit) => {\n" + ELEMENT_HELPERS_JS + _BRIEF_JS + "  return els.slice(0, limit).map(brief);\n}\n"


class TargetError(UserError):
    """A script step's target matches no element, or several; names the script, the step and the candidates.

    ``path`` is the script file, ``step`` the step's index, ``candidates`` the
    page's elements the message lists (``role``, ``name``, ``text``, ``selector``).
    """

    def __init__(self, message: str, *, path: str | None = None, step: int | None = None,
                 candidates: list[dict[str, Any]] | None = None):
        self.path = path
        self.step = step
        self.candidates = list(candidates or [])
        super().__init__(message)


def describe_target(target: ScriptTarget) -> str:
    """The target as the script spells it (``{"role": "button", "name": "Save"}``)."""
    return json.dumps(target.model_dump(exclude_defaults=True), ensure_ascii=False)


def _loose(text: str) -> re.Pattern[str]:
    """The whole of ``text``, any case, any run of whitespace between its words."""
    return re.compile(r"^\s*" + r"\s+".join(map(re.escape, text.split())) + r"\s*$", re.IGNORECASE)


def _locators(page: Any, target: ScriptTarget) -> list[Any]:
    """The ways to find ``target``, strictest first: the exact one, then (unless ``exact``) the loose one."""
    if target.selector:
        loc = page.locator(target.selector)
        return [loc.filter(has_text=target.text) if target.text else loc]
    if target.role:
        if not target.name:
            return [page.get_by_role(target.role)]
        exact = page.get_by_role(target.role, name=target.name, exact=True)
        return [exact] if target.exact else [exact, page.get_by_role(target.role, name=_loose(target.name))]
    text = target.text or ""
    exact = page.get_by_text(text, exact=True)
    return [exact] if target.exact else [exact, page.get_by_text(_loose(text))]


def _line(c: dict[str, Any], index: int | None = None) -> str:
    """One element for a message: ``[1] button "Save" (text "Save draft") at #form > button:nth-of-type(2)``."""
    head = f"[{index}] " if index is not None else ""
    name = c.get("name") or ""
    text = c.get("text") or ""
    out = f"{head}{c.get('role') or '?'} {json.dumps(name, ensure_ascii=False)}"
    if text and text != name:
        out += f" (text {json.dumps(text[:60], ensure_ascii=False)})"
    if c.get("selector"):
        out += f" at {c['selector']}"
    if c.get("visible") is False:
        out += " (hidden)"
    return out


def _closest(target: ScriptTarget, elements: list[dict[str, Any]], k: int = CANDIDATES) -> list[dict[str, Any]]:
    """The ``k`` elements most like ``target``: by name and text for a named target, by selector and test id for CSS."""
    want = (target.name or target.text or target.selector or "").lower()

    def score(c: dict[str, Any]) -> float:
        if target.name or (target.text and not target.selector):
            fields = [c.get("name"), c.get("text")]
        else:
            fields = [c.get("selector"), c.get("testid"), c.get("name"), c.get("text")]
        best = max((difflib.SequenceMatcher(None, want, str(f).lower()).ratio() for f in fields if f), default=0.0)
        return best + (0.25 if target.role and c.get("role") == target.role else 0.0)

    seen: set[tuple[Any, Any, Any]] = set()
    unique = []
    for c in sorted(elements, key=score, reverse=True):
        key = (c.get("role"), c.get("name"), c.get("text"))
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique[:k]


async def _pick(loc: Any, n: int, target: ScriptTarget, where: str) -> Any:
    """The one element of ``n`` matches ``target`` means, or :class:`TargetError` listing them."""
    if target.nth is not None:
        index = target.nth if target.nth >= 0 else n + target.nth
        if 0 <= index < n:
            return loc.nth(index)
        matches = await loc.evaluate_all(MATCHES_JS, CANDIDATES)
        listed = "; ".join(_line(c, i) for i, c in enumerate(matches))
        raise TargetError(f"{where}: {describe_target(target)} asks for match nth={target.nth}, but {n} "
                          f"element{'s' if n != 1 else ''} match: {listed}", candidates=matches)
    if n == 1:
        return loc.nth(0)
    matches = await loc.evaluate_all(MATCHES_JS, min(n, MAX_MATCHES))
    shown = [i for i, m in enumerate(matches) if m.get("visible")] or list(range(len(matches)))
    if n <= MAX_MATCHES and len({(matches[i]["role"], matches[i]["name"], matches[i]["text"]) for i in shown}) == 1:
        # a hidden twin (a collapsed menu, a template), or one item listed twice (a store in two
        # sections): to the demonstration they are one element, the first one shown
        return loc.nth(shown[0])
    listed = "; ".join(_line(c, i) for i, c in enumerate(matches[:CANDIDATES]))
    more = f" (the first {CANDIDATES} shown)" if n > CANDIDATES else ""
    raise TargetError(f"{where}: {describe_target(target)} matches {n} elements{more}: {listed}; "
                      f'add "nth": <index> (0-based, as listed) to the target, or name one element '
                      f"(a narrower selector, a role and name)", candidates=matches[:CANDIDATES])


async def _count(loc: Any, target: ScriptTarget, where: str) -> int:
    """How many elements ``loc`` matches; a selector Playwright cannot parse is the script's error."""
    try:
        return int(await loc.count())
    except Exception as exc:
        if target.selector and not is_navigation_race(exc) and "selector" in str(exc).lower():
            first = str(exc).splitlines()[0]
            raise TargetError(f"{where}: {target.selector} is not a valid CSS selector ({first})") from None
        raise


async def resolve_target(page: Any, target: ScriptTarget, *, wait_s: float, where: str) -> Any:
    """A locator of the one element ``target`` names, waiting up to ``wait_s`` for it to appear.

    ``where`` opens every message (``script.json: step 3 (click)``). Raises
    :class:`TargetError` when nothing matches (with the page's closest
    elements) or when several do and ``nth`` does not say which.
    """
    deadline = time.monotonic() + wait_s
    while True:
        for loc in _locators(page, target):
            n = await _count(loc, target, where)
            if n:
                return await _pick(loc, n, target, where)
        if time.monotonic() >= deadline:
            break
        await asyncio.sleep(POLL_S)
    elements = await page.evaluate(PAGE_ELEMENTS_JS, 2000)
    close = _closest(target, elements)
    listed = "; ".join(_line(c) for c in close) if close else "no element with a role, a test id or a label"
    how = "" if target.exact or not (target.name or target.text) else " (nor ignoring case and spacing)"
    raise TargetError(f"{where}: no element matches {describe_target(target)}{how} on {page.url} "
                      f"after {wait_s:g} s; the closest the page has: {listed}", candidates=close)
