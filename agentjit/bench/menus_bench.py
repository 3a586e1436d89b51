"""``agentjit bench menus``: state-path tool menus against relevance-only menus on the large catalog.

For every bench task with a reference plan (:mod:`agentjit.bench.tool_catalog`), and each K: the share
of the reference plan's tools the menu holds (recall), whether it holds all of them (the complete
chain), NDCG@K with the plan's tools as the relevant ones, the producer -> consumer pairs of the plan
the menu shows consumer first (order violations), and the plan prompt's tokens with the menu against
the prompt with every stub (about four characters a token, the estimate the model adapters use).
Deterministic: no model, no browser, no site.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from agentjit.planner.menu import Menu, MenuConfig, ToolIndex
from agentjit.planner.prompts import plan_messages

from .tool_catalog import Catalog, CatalogTask, large_catalog

__all__ = ["CONFIG_GRID", "DEFAULT_KS", "held_out", "menu_metrics", "prompt_tokens", "run_menus_bench"]

DEFAULT_KS = (8, 16, 32)
METHODS = ("state_path", "relevance")
TARGET_K = 16
TARGET_CHAIN = 0.95
TARGET_TOKEN_DROP = 5.0


CONFIG_GRID: tuple[MenuConfig, ...] = (MenuConfig(), *(
    MenuConfig(alternates=a, alternate_decay=d, relevance_weight=w, readers=r)
    for a in (1, 2, 3) for d in (0.5, 0.7) for w in (0.0, 0.5) for r in (False, True)
    if (a, d, w, r) != (3, 0.7, 0.0, False)))  # fmt: skip
"""The menu knobs the held-out measurement chooses among (the default first)."""


def held_out(index: ToolIndex, tasks: Sequence[CatalogTask], k: int = TARGET_K,
             grid: Sequence[MenuConfig] = CONFIG_GRID) -> dict[str, Any]:  # fmt: skip
    """Leave one app out: for each app, the knobs of ``grid`` with the best complete-chain coverage on the
    other apps' tasks, measured on that app's tasks (the knobs never saw them). ``chain`` pools the held-out
    tasks; ``chain_default`` is the same tasks with the default knobs. Two caches of one site (``food`` and
    ``food_built``) are held out together."""
    hit = [[set(t.chain) <= set(index.menu(t.task, k, start=t.start, config=cfg).names) for t in tasks]
           for cfg in grid]  # fmt: skip
    family = [_site(t.app) for t in tasks]
    per_app: dict[str, Any] = {}
    held = 0
    for app in sorted(set(family)):
        inside = [i for i, f in enumerate(family) if f != app]
        out = [i for i, f in enumerate(family) if f == app]
        best = max(range(len(grid)), key=lambda c: (sum(hit[c][i] for i in inside), -c))
        got = sum(hit[best][i] for i in out)
        held += got
        per_app[app] = {"tasks": len(out), "chain": round(got / len(out), 4), "config": grid[best].to_dict(),
                        "chain_other_apps": round(sum(hit[best][i] for i in inside) / (len(inside) or 1), 4),
                        "chain_default": round(sum(hit[0][i] for i in out) / len(out), 4)}  # fmt: skip
    n = len(tasks) or 1
    return {"k": k, "configs": len(grid), "chain": round(held / n, 4),
            "chain_default": round(sum(hit[0]) / n, 4), "apps": per_app}  # fmt: skip


def _site(app: str) -> str:
    """The site an app's tasks are on: ``food_built`` (the food site's built cache) is ``food``, held out with it."""
    return app.removesuffix("_built")


def prompt_tokens(messages: Sequence[Any]) -> int:
    return sum(len(m.content) for m in messages) // 4


def menu_metrics(menu: Sequence[str], chain: Sequence[str], pairs: Sequence[tuple[str, str]], k: int) -> dict[str, Any]:
    """Recall, complete chain, NDCG@k and order violations of ``menu`` against a reference ``chain``."""
    top = list(menu)[:k]
    wanted = set(chain)
    hit = [n in wanted for n in top]
    dcg = sum(1.0 / math.log2(i + 2) for i, h in enumerate(hit) if h)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(wanted), k)))
    pos = {n: i for i, n in enumerate(top)}
    violations = sum(1 for p, c in pairs if p in pos and c in pos and pos[c] < pos[p])
    return {
        "recall": round(sum(hit) / len(wanted), 4) if wanted else 1.0,
        "chain": wanted <= set(top),
        "ndcg": round(dcg / ideal, 4) if ideal else 1.0,
        "order_violations": violations,
        "missing": [n for n in chain if n not in pos],
    }


def _task_row(index: ToolIndex, cat: Catalog, task: CatalogTask, ks: Sequence[int], full_tokens: int) -> dict[str, Any]:
    row: dict[str, Any] = {"app": task.app, "id": task.id, "task": task.task, "chain": list(task.chain),
                           "pairs": [list(p) for p in task.pairs], "prompt_tokens_all": full_tokens}  # fmt: skip
    for method in METHODS:
        out: dict[str, Any] = {}
        for k in ks:
            menu: Menu = index.menu(task.task, k, state_path=method == "state_path", start=task.start)
            tools = [cat.cache.tools[n] for n in menu.names]
            out[str(k)] = {**menu_metrics(menu.names, task.chain, task.pairs, k), "tools": menu.names,
                           "prompt_tokens": prompt_tokens(plan_messages(task.task, cat.cache, tools=tools))}  # fmt: skip
        row[method] = out
    return row



def _per_app(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Complete-chain coverage per app, state-path and relevance-only, at each K."""
    out: dict[str, Any] = {}
    for r in rows:
        app = out.setdefault(r["app"], {"tasks": 0, **{m: {} for m in METHODS}})
        app["tasks"] += 1
        for m in METHODS:
            for k, cell in r[m].items():
                app[m][k] = app[m].get(k, 0) + int(cell["chain"])
    for app in out.values():
        for m in METHODS:
            app[m] = {k: round(v / app["tasks"], 4) for k, v in app[m].items()}
    return out


def run_menus_bench(*, seed: int = 0, ks: Sequence[int] = DEFAULT_KS, hosted: bool = False,
                    catalog: Catalog | None = None, held: bool = True) -> dict[str, Any]:  # fmt: skip
    """Every task of the catalog (made from ``seed``) at every K; a summary per method and K, per app, and
    (``held``) the leave-one-app-out coverage at K = 16 (:func:`held_out`)."""
    t0 = time.perf_counter()
    cat = catalog or large_catalog(seed=seed, hosted=hosted)
    index = ToolIndex.of(cat.cache)
    rows = []
    for task in cat.tasks:
        full = prompt_tokens(plan_messages(task.task, cat.cache))
        rows.append(_task_row(index, cat, task, ks, full))
    summary: dict[str, Any] = {}
    for method in METHODS:
        per_k: dict[str, Any] = {}
        for k in ks:
            cells = [r[method][str(k)] for r in rows]
            n = len(cells) or 1
            tokens = sum(c["prompt_tokens"] for c in cells) / n
            per_k[str(k)] = {
                "recall": round(sum(c["recall"] for c in cells) / n, 4),
                "chain": round(sum(c["chain"] for c in cells) / n, 4),
                "ndcg": round(sum(c["ndcg"] for c in cells) / n, 4),
                "order_violations": sum(c["order_violations"] for c in cells),
                "prompt_tokens": round(tokens, 1),
                "token_drop": round((sum(r["prompt_tokens_all"] for r in rows) / n) / tokens, 2) if tokens else None,
            }
        summary[method] = per_k
    all_tokens = sum(r["prompt_tokens_all"] for r in rows) / (len(rows) or 1)
    target = summary["state_path"].get(str(TARGET_K))
    loao = held_out(index, cat.tasks) if held and cat.tasks else None
    done = None
    if target is not None:
        done = {
            "k": TARGET_K, "chain": target["chain"], "chain_target": TARGET_CHAIN,
            "relevance_chain": summary["relevance"][str(TARGET_K)]["chain"],
            "token_drop": target["token_drop"], "token_drop_target": TARGET_TOKEN_DROP,
            "met": target["chain"] >= TARGET_CHAIN and (target["token_drop"] or 0) >= TARGET_TOKEN_DROP,
            "held_out_chain": loao["chain"] if loao else None,
        }  # fmt: skip
    return {
        "catalog": {"tools": len(cat.cache.tools), "sources": cat.sources, "tasks": len(cat.tasks), "seed": seed,
                    "hosted_sections": hosted},  # fmt: skip
        "ks": list(ks),
        "prompt_tokens_all": round(all_tokens, 1),
        "summary": summary,
        "done_when": done,
        "held_out": loao,
        "per_app": _per_app(rows),
        "tasks": rows,
        "wall_s": round(time.perf_counter() - t0, 2),
    }
