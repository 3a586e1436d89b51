"""Compare a built cache with a hand-written one on the live site.

For every hand-written tool, candidate built tools are ranked (shared name
words, same ``pre`` page, same ``post`` page); each candidate and the
hand-written tool are run from the same state (site reset, then the same
setup calls over built tools) with the same arguments, and their outcomes
compared: both succeed, the same page type after, the same items listed (names
of the listed things), the same site state change (cart lines, orders). The
coverage is the fraction of hand-written tools with an equivalent.

``python -m toolcache.compare BUILT_CACHE [--json]`` runs it against the food
site started in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from agentjit.cache import ToolCache
from agentjit.protocol.manifest import ToolManifest
from agentjit.runtime import BrowserPool, call_tool

from .record import reset_site

__all__ = ["Comparison", "compare_caches", "main"]


@dataclass
class Comparison:
    matches: dict[str, str] = field(default_factory=dict)
    misses: dict[str, str] = field(default_factory=dict)

    @property
    def coverage(self) -> float:
        total = len(self.matches) + len(self.misses)
        return len(self.matches) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"coverage": round(self.coverage, 3), "matched": len(self.matches), "total": len(self.matches) + len(self.misses),
                "matches": self.matches, "misses": self.misses}


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
    return s


def _state(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(urljoin(base_url, "/__state"), timeout=5) as resp:  # noqa: S310 - loopback bench site
        data = json.loads(resp.read())
    cart = data.get("cart") or {}
    lines = cart.get("lines") if isinstance(cart, dict) else cart
    orders = data.get("orders") or []
    return {
        "cart": sorted((ln.get("item_name"), ln.get("quantity")) for ln in (lines or []) if isinstance(ln, dict)),
        "orders": [(o.get("store"), o.get("mode"), len(o.get("lines") or [])) for o in orders if isinstance(o, dict)],
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


async def _setup(page: Any, built: ToolCache, witnesses: dict[str, dict[str, Any]], base_url: str, want: set[str]) -> bool:
    """Reach a page in ``want`` from home with built tools (a cart first for cart/checkout/order)."""
    await page.goto(base_url, wait_until="load")
    tools = built.tools

    async def run(name: str) -> bool:
        if name not in tools:
            return False
        out = await call_tool(page, tools[name], dict(witnesses.get(name) or {}))
        return out.ok

    async def here() -> str:
        return str(await page.evaluate("() => document.body.dataset.page"))

    if "*" in want or await here() in want:
        return True
    needs_cart = bool(want & {"cart", "checkout", "order"})
    store_goto = next((n for n, t in tools.items() if t.type == "gotoItem" and t.post.get("page") == "store"), None)
    if needs_cart or "store" in want:
        if store_goto is None or not await run(store_goto):
            return False
        if await here() in want:
            return True
        add = next((n for n, t in tools.items() if t.is_write and t.pre.get("page") == "store"), None)
        if needs_cart and (add is None or not await run(add)):
            return False
    for _ in range(4):
        cur = await here()
        if cur in want:
            return True
        step = next((n for n, t in tools.items() if t.navigates and cur in _pages(t.pre.get("page"))
                     and t.post.get("page") in want and (not t.required or n in witnesses)), None)
        if step is None:
            step = next((n for n, t in tools.items() if t.navigates and not t.is_write and cur in _pages(t.pre.get("page"))
                         and t.post.get("page") in {"cart", "checkout"} and not t.required), None)
        if step is None or not await run(step):
            return False
    return await here() in want


def _args_for(h: ToolManifest, b: ToolManifest, witness: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    bargs = dict(witness)
    hargs: dict[str, Any] = {}
    wvals = [v for k, v in witness.items() if isinstance(v, str)]
    for pname, spec in h.parameters.items():
        alias = next((k for k in witness if k != pname and (k.endswith("_" + pname) or pname.endswith("_" + k))), None)
        if pname in witness:
            hargs[pname] = witness[pname]
        elif alias is not None:
            hargs[pname] = witness[alias]
        elif pname in h.required and wvals and spec.get("type") == "string":
            hargs[pname] = wvals[0]
        elif "name" in pname and spec.get("type") == "string" and wvals:
            hargs[pname] = wvals[0]
    if not h.required and not any(p in witness for p in h.parameters):
        bargs = {k: v for k, v in bargs.items() if k in b.required}
    return hargs, bargs


async def _outcome(pool: BrowserPool, base_url: str, built: ToolCache, witnesses: dict[str, Any], tool: ToolManifest,
                   args: dict[str, Any], want: set[str], fresh: tuple[str, list[str]] | None = None) -> dict[str, Any] | None:
    await asyncio.to_thread(reset_site, base_url)
    async with pool.page() as page:
        if not await _setup(page, built, witnesses, base_url, want):
            return None
        if fresh is not None and fresh[0] in built.tools:
            listed = await call_tool(page, built.tools[fresh[0]], {})
            names = _names(listed.output) or []
            if names:
                args = {**args, **{k: names[0] for k in fresh[1] if k in args}}
        before = await asyncio.to_thread(_state, base_url)
        out = await call_tool(page, tool, args, validate=False)
        page_after = str(await page.evaluate("() => document.body.dataset.page"))
        after = await asyncio.to_thread(_state, base_url)
    return {"ok": out.ok, "reason": f"{out.phase}: {out.reason}", "page": page_after, "names": _names(out.output),
            "scalars": _scalars(out.output), "changed": before != after, "state": after}


def _same(h: dict[str, Any], b: dict[str, Any]) -> str | None:
    """None when equivalent, else why not."""
    if not (h["ok"] and b["ok"]):
        return f"hand ok={h['ok']} built ok={b['ok']} ({b['reason'] if not b['ok'] else h['reason']})"
    if h["page"] != b["page"]:
        return f"pages differ: {h['page']} vs {b['page']}"
    if h["changed"] != b["changed"] or (h["changed"] and h["state"] != b["state"]):
        return "different state change"
    if h["names"] is not None or b["names"] is not None:
        if set(h["names"] or []) != set(b["names"] or []):
            return f"different items: {sorted(h['names'] or [])[:4]} vs {sorted(b['names'] or [])[:4]}"
    elif h["scalars"] and b["scalars"] and not (h["scalars"] & b["scalars"]):
        return "no shared values"
    return None


async def compare_caches(hand: ToolCache, built: ToolCache, base_url: str, pool: BrowserPool) -> Comparison:
    """Run each hand-written tool and its best built counterpart; see the module docstring."""
    result = Comparison()
    builder = getattr(built.info, "builder", None) or (built.info.model_extra or {}).get("builder") or {}
    witnesses: dict[str, dict[str, Any]] = dict(builder.get("witnesses") or {})
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
            keys = [k for k, v in {**hargs, **bargs}.items() if isinstance(v, str) and v == next(iter(b.pre_tools and {k2: bargs.get(k2) for k2 in b.pre_tools}.values()), None)]
            fresh = (provider, keys) if provider else None
            ho = await _outcome(pool, base_url, built, witnesses, h, hargs, start, fresh)
            bo = await _outcome(pool, base_url, built, witnesses, b, bargs, start, fresh)
            if ho is None or bo is None:
                why = why or f"{b.name}: could not reach {sorted(start)}"
                continue
            diff = _same(ho, bo)
            if diff is None:
                result.matches[hname] = b.name
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
    from agentjit.bench.food import CACHE_DIR, FoodSite

    hand = ToolCache.load(args.hand or CACHE_DIR)
    built = ToolCache.load(args.built)

    async def go(url: str) -> Comparison:
        async with BrowserPool() as pool:
            return await compare_caches(hand, built, url, pool)

    with FoodSite(latency_scale=0) as site:
        res = asyncio.run(go(site.url))
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
    else:
        print(f"coverage: {res.coverage:.2f} ({len(res.matches)}/{len(res.matches) + len(res.misses)})")
        for h, b in sorted(res.matches.items()):
            print(f"  {h:<20} = {b}")
        for h, why in sorted(res.misses.items()):
            print(f"  {h:<20} MISSING: {why}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
