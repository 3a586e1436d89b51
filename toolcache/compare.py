"""Compare a built cache with a hand-written one on the live site.

For every hand-written tool, candidate built tools are ranked (shared name
words, same ``pre`` page, same ``post`` page). The hand-written tool and a
candidate are run from the same state: the site reset, then built tools as
setup (a route over page types, writes included: adding a cart line for the
cart and checkout pages, placing an order for the order page), with the same
arguments. Their outcomes are compared: both succeed and reach the same page
type; a WRITE tool must cause the same site state change (cart lines added or
removed, orders placed, from ``/__state``); a READ tool must list the same
items, or share an output value. The coverage is the fraction of hand-written
tools with an equivalent.

``python -m toolcache.compare BUILT_CACHE [--json]`` runs it against the food
site started in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import logging
import re
import sys
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from agentjit.cache import ToolCache
from agentjit.protocol.manifest import ToolManifest
from agentjit.runtime import BrowserPool, call_tool

from .record import reset_site

__all__ = ["Comparison", "compare_caches", "main"]

log = logging.getLogger(__name__)


@dataclass
class Comparison:
    matches: dict[str, str] = field(default_factory=dict)
    misses: dict[str, str] = field(default_factory=dict)
    judged_by: dict[str, str] = field(default_factory=dict)
    """Per match, what decided it: ``state change``, ``items``, ``values`` or ``page``."""

    @property
    def coverage(self) -> float:
        total = len(self.matches) + len(self.misses)
        return len(self.matches) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"coverage": round(self.coverage, 3), "matched": len(self.matches), "total": len(self.matches) + len(self.misses),
                "matches": self.matches, "judged_by": self.judged_by, "misses": self.misses}


def _words(name: str) -> set[str]:
    stop = {"get", "list", "goto", "go", "to", "details", "view", "from", "page"}
    out = set()
    for w in re.split(r"[_\W]+", name.lower()):
        if w and w not in stop:
            out.add(w.rstrip("s"))
    return out


def _pages(pattern: Any) -> set[str]:
    return set(str(pattern).split("|")) if pattern else set()


def _score(h: ToolManifest, b: ToolManifest) -> float:
    s = 2.0 * len(_words(h.name) & _words(b.name))
    hp, bp = _pages(h.pre.get("page")), _pages(b.pre.get("page"))
    if hp & bp or "*" in hp:
        s += 1
    if h.post.get("page") == b.post.get("page"):
        s += 1
    if h.effect == b.effect:
        s += 1
    if h.navigates == b.navigates:
        s += 0.5
    if _lists(h) == _lists(b):
        s += 1
    if h.type == b.type:
        s += 1
    return s


def _lists(m: ToolManifest) -> bool:
    """Whether the tool's output holds a list of objects (items, lines)."""
    props = m.output_schema.get("properties") or {}
    return any(isinstance(v, dict) and v.get("type") == "array" and (v.get("items") or {}).get("type") == "object"
               for v in props.values())


def _line(ln: dict[str, Any]) -> tuple[Any, ...]:
    """A cart or order line by what the customer sees: store, item, options, notes, quantity, total."""
    return (ln.get("store"), ln.get("item_name"), json.dumps(ln.get("options") or {}, sort_keys=True),
            ln.get("instructions") or "", ln.get("quantity"), ln.get("line_total"))


def _state(base_url: str) -> dict[str, Any]:
    """The site's server state (``/__state``) without ids and logs: the cart and the orders."""
    with urllib.request.urlopen(urljoin(base_url, "/__state"), timeout=5) as resp:  # noqa: S310 - loopback bench site
        data = json.loads(resp.read())
    cart = data.get("cart") or {}
    lines = cart.get("lines") if isinstance(cart, dict) else cart
    orders = data.get("orders") or []
    return {
        "cart": sorted(_line(ln) for ln in (lines or []) if isinstance(ln, dict)),
        "orders": [(o.get("store"), o.get("mode"), o.get("address") or "", o.get("total"),
                    sorted(_line(ln) for ln in (o.get("lines") or []) if isinstance(ln, dict)))
                   for o in orders if isinstance(o, dict)],
    }


def _delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What a call changed: cart lines removed / added, orders placed (JSON-friendly lists)."""
    b_cart, a_cart = Counter(before["cart"]), Counter(after["cart"])
    return {
        "cart_removed": sorted((b_cart - a_cart).elements()),
        "cart_added": sorted((a_cart - b_cart).elements()),
        "orders_added": after["orders"][len(before["orders"]):] if after["orders"][:len(before["orders"])] == before["orders"]
        else after["orders"],
    }


def _names(output: Any) -> list[str] | None:
    if not isinstance(output, dict):
        return None
    for key in ("items", "lines"):
        items = output.get(key)
        if isinstance(items, list):
            out = []
            for it in items:
                if isinstance(it, dict):
                    val = it.get("name") if isinstance(it.get("name"), str) else next(
                        (v for k, v in sorted(it.items(), key=lambda kv: len(kv[0])) if "name" in k and isinstance(v, str)), None)
                    if val is None:
                        val = next((v for v in it.values() if isinstance(v, str)), None)
                    if val is not None:
                        out.append(val)
            return out
    return None


def _scalars(output: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(output, dict):
        for v in output.values():
            if isinstance(v, bool) or v is None:
                continue
            if isinstance(v, int | float | str):
                out.add(re.sub(r"[^a-z0-9.]", "", str(v).lower()))
    return out - {"", "0"}


def _usable(name: str, tool: ToolManifest, witnesses: dict[str, dict[str, Any]]) -> bool:
    """A setup step needs verified arguments for every required input."""
    return set(tool.required) <= set(witnesses.get(name) or {})


def _route(tools: dict[str, ToolManifest], witnesses: dict[str, dict[str, Any]], cur: str, want: set[str]) -> list[str] | None:
    """The cheapest chain of built tools from page type ``cur`` to one in ``want``.

    Dijkstra over page types; an edge is a tool whose ``pre`` page includes the page and whose
    ``post`` names one page. READ steps cost 1 and WRITE steps 3, so a write is taken only when no
    read gets there (the order page is reached by placing an order).
    """
    edges: list[tuple[str, set[str], str, float]] = []
    for n, t in sorted(tools.items()):
        post = t.post.get("page")
        if not isinstance(post, str) or not post or "|" in post or not _usable(n, t, witnesses):
            continue
        edges.append((n, _pages(t.pre.get("page")) or {"*"}, post, 3.0 if t.is_write else 1.0))
    best: dict[str, float] = {cur: 0.0}
    heap: list[tuple[float, str, list[str]]] = [(0.0, cur, [])]
    while heap:
        d, here, path = heapq.heappop(heap)
        if here in want:
            return path
        if d > best.get(here, float("inf")):
            continue
        for n, pres, post, w in edges:
            if post != here and (here in pres or "*" in pres) and d + w < best.get(post, float("inf")):
                best[post] = d + w
                heapq.heappush(heap, (d + w, post, [*path, n]))
    return None


async def _here(page: Any) -> str:
    return str(await page.evaluate("() => document.body.dataset.page"))


async def _setup(page: Any, built: ToolCache, witnesses: dict[str, dict[str, Any]], base_url: str, want: set[str],
                 ran: list[str] | None = None) -> bool:
    """Reach a page in ``want`` from home with built tools, writes included.

    The cart, checkout and order pages need a cart line first: the built WRITE tool of the store
    page adds one (with its verified arguments); the route then runs producer tools, placing an
    order when the order page is wanted.
    """
    await page.goto(base_url, wait_until="load")
    tools = built.tools

    async def run(name: str) -> bool:
        if ran is not None:
            ran.append(name)
        out = await call_tool(page, tools[name], dict(witnesses.get(name) or {}))
        if not out.ok:
            log.info("setup step %s failed: %s: %s", name, out.phase, out.reason)
        return out.ok

    async def follow(target: set[str]) -> bool:
        for _ in range(2):  # plan again once if a step lands somewhere unexpected
            cur = await _here(page)
            if "*" in target or cur in target:
                return True
            path = _route(tools, witnesses, cur, target)
            if path is None:
                return False
            for name in path:
                if not await run(name):
                    return False
        return await _here(page) in target

    if "*" in want or await _here(page) in want:
        return True
    if want & {"cart", "checkout", "order"}:
        add = next((n for n, t in sorted(tools.items()) if t.is_write and "store" in _pages(t.pre.get("page"))
                    and t.post.get("page") == "store" and _usable(n, t, witnesses)), None)
        if add is None or not await follow({"store"}) or not await run(add):
            return False
    return await follow(want)


def _args_for(h: ToolManifest, b: ToolManifest, witness: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Arguments for the hand tool from the built tool's verified ones, and the built tool's share.

    The built tool gets its required arguments and those the hand tool also receives (by name or
    a ``<x>_<name>`` alias), so both calls ask for the same thing.
    """
    hargs: dict[str, Any] = {}
    used: set[str] = set()
    wkeys = [k for k, v in witness.items() if isinstance(v, str)]
    for pname, spec in h.parameters.items():
        alias = next((k for k in witness if k != pname and (k.endswith("_" + pname) or pname.endswith("_" + k))), None)
        if pname in witness:
            key: str | None = pname
        elif alias is not None:
            key = alias
        elif wkeys and spec.get("type") == "string" and (pname in h.required or "name" in pname):
            key = wkeys[0]
        else:
            key = None
        if key is not None:
            hargs[pname] = witness[key]
            used.add(key)
    bargs = {k: v for k, v in witness.items() if k in b.required or k in used}
    return hargs, bargs


async def _call(page: Any, base_url: str, tool: ToolManifest, args: dict[str, Any]) -> dict[str, Any]:
    """One call with the site state read before and after it."""
    before = await asyncio.to_thread(_state, base_url)
    out = await call_tool(page, tool, args, validate=False)
    page_after = await _here(page)
    after = await asyncio.to_thread(_state, base_url)
    return {"ok": out.ok, "reason": f"{out.phase}: {out.reason}", "page": page_after, "names": _names(out.output),
            "scalars": _scalars(out.output), "changed": before != after, "delta": _delta(before, after)}


async def _outcomes(page: Any, base_url: str, built: ToolCache, witnesses: dict[str, Any],
                    runs: list[tuple[ToolManifest, dict[str, Any]]], want: set[str],
                    fresh: tuple[str, list[str]] | None = None,
                    reached: dict[frozenset[str], str] | None = None) -> list[dict[str, Any]] | None:
    """Run each ``(tool, args)`` from the same state: a reset site, then the setup tools.

    When no tool in ``runs`` writes, the server state cannot differ between the calls, so the
    setup is done once and the page reloaded at the reached URL before each later call (same
    server state, same URL, a fresh document); a run with a WRITE tool gets its own reset and
    setup. ``reached`` remembers, per wanted page set, the URL a setup without writes ended on:
    on a reset site, loading it is the same state as running those READ tools again.

    The one ``page`` serves every run: the site keeps its state on the server, every run starts
    from a reset site and a navigation, and cookies are cleared (a new browser context per run
    cost over a second each on a loaded machine).
    """
    shared = not any(t.is_write for t, _ in runs)
    results: list[dict[str, Any]] = []
    names: list[str] | None = None
    url0 = ""
    key = frozenset(want)
    for i, (tool, args) in enumerate(runs):
        if i == 0 or not shared:
            await asyncio.to_thread(reset_site, base_url)
            await page.context.clear_cookies()
            known = reached.get(key) if reached is not None else None
            if known is not None:
                await page.goto(known, wait_until="load")
            if known is None or await _here(page) not in want:
                ran: list[str] = []
                if not await _setup(page, built, witnesses, base_url, want, ran):
                    return None
                if reached is not None and not any(built.tools[n].is_write for n in ran):
                    reached[key] = page.url
            if fresh is not None and fresh[0] in built.tools and names is None:
                listed = await call_tool(page, built.tools[fresh[0]], {})
                names = _names(listed.output) or []
            url0 = page.url
        else:
            await page.goto(url0, wait_until="load")
        if fresh is not None and names:
            args = {**args, **{k: names[0] for k in fresh[1] if k in args}}
        results.append(await _call(page, base_url, tool, args))
    return results


def _norm(v: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", v.lower())


def _same(h: dict[str, Any], b: dict[str, Any], *, write: bool, listing: bool) -> tuple[str | None, str]:
    """``(None, how)`` when equivalent (``how``: what decided it), else ``(why not, "")``.

    A WRITE tool is judged by the state change it causes (cart lines added or removed, orders
    placed, read from ``/__state``), not by its output fields, which differ between hand-written
    and built tools. A READ tool must change nothing and list the same items (when both list,
    and always when the hand-written tool is a ``listing`` one), or else share an output value.
    """
    if not (h["ok"] and b["ok"]):
        return f"hand ok={h['ok']} built ok={b['ok']} ({b['reason'] if not b['ok'] else h['reason']})", ""
    if h["page"] != b["page"]:
        return f"pages differ: {h['page']} vs {b['page']}", ""
    if write:
        if not h["changed"]:
            return "the hand-written write changed nothing", ""
        if h["delta"] != b["delta"]:
            return f"different state change: {h['delta']} vs {b['delta']}", ""
        return None, "state change"
    if h["changed"] or b["changed"]:
        if h["delta"] != b["delta"]:
            return "different state change", ""
    if listing and b["names"] is None:
        return "the built tool lists nothing", ""
    if h["names"] is not None and b["names"] is not None:
        if set(h["names"]) != set(b["names"]):
            return f"different items: {sorted(h['names'])[:4]} vs {sorted(b['names'])[:4]}", ""
        return None, "items"
    hv = h["scalars"] | {_norm(n) for n in h["names"] or []}
    bv = b["scalars"] | {_norm(n) for n in b["names"] or []}
    if hv and bv:
        if not hv & bv:
            return "no shared values", ""
        return None, "values"
    return None, "page"


async def compare_caches(hand: ToolCache, built: ToolCache, base_url: str, pool: BrowserPool) -> Comparison:
    """Run each hand-written tool and its best built counterpart; see the module docstring."""
    result = Comparison()
    builder = getattr(built.info, "builder", None) or (built.info.model_extra or {}).get("builder") or {}
    witnesses: dict[str, dict[str, Any]] = dict(builder.get("witnesses") or {})
    reached: dict[frozenset[str], str] = {}
    async with pool.page() as page:
        for hname, h in sorted(hand.tools.items()):
            ranked = sorted(built.tools.values(), key=lambda b: -_score(h, b))
            want = _pages(h.pre.get("page")) or {"*"}
            why = ""
            for b in ranked[:2]:
                if _score(h, b) < 2.5:
                    break
                if b.pre.get("page") and "*" not in want and not (want & _pages(b.pre.get("page"))):
                    continue
                hargs, bargs = _args_for(h, b, witnesses.get(b.name) or {})
                if set(b.required) - set(bargs):
                    why = why or f"{b.name}: no verified arguments"
                    continue
                start = want if "*" not in want else _pages(b.pre.get("page")) or {"*"}
                provider = next((v[0] for v in b.pre_tools.values() if v), None)
                consumed = {bargs.get(k) for k in b.pre_tools} - {None}
                keys = [k for k, v in {**hargs, **bargs}.items() if isinstance(v, str) and v in consumed]
                fresh = (provider, keys) if provider else None
                outs = await _outcomes(page, base_url, built, witnesses, [(h, hargs), (b, bargs)], start, fresh, reached)
                if outs is None:
                    why = why or f"{b.name}: could not reach {sorted(start)}"
                    continue
                diff, how = _same(outs[0], outs[1], write=h.is_write, listing=h.type == "listItems")
                if diff is None:
                    result.matches[hname] = b.name
                    result.judged_by[hname] = how
                    break
                why = why or f"{b.name}: {diff}"
            if hname not in result.matches:
                result.misses[hname] = why or "no candidate"

    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m toolcache.compare")
    p.add_argument("built")
    p.add_argument("--hand", default=None, help="hand-written cache (default: the food site's)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    from agentjit.tasks.apps import get_app

    food = get_app("food")
    hand = ToolCache.load(args.hand or food.cache_dir)
    built = ToolCache.load(args.built)

    async def go(url: str) -> Comparison:
        async with BrowserPool.from_spec() as pool:
            return await compare_caches(hand, built, url, pool)

    site = food.site(latency_scale=0)
    site.start()
    try:
        res = asyncio.run(go(site.url))
    finally:
        site.stop()
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
    else:
        print(f"coverage: {res.coverage:.2f} ({len(res.matches)}/{len(res.matches) + len(res.misses)})")
        for h, b in sorted(res.matches.items()):
            print(f"  {h:<20} = {b:<24} ({res.judged_by.get(h, '')})")
        for h, why in sorted(res.misses.items()):
            print(f"  {h:<20} MISSING: {why}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
