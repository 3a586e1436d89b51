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

from agentjit.planner.menu import Menu, ToolIndex
from agentjit.planner.prompts import plan_messages

from .tool_catalog import Catalog, CatalogTask, large_catalog

__all__ = ["DEFAULT_KS", "menu_metrics", "prompt_tokens", "run_menus_bench"]

DEFAULT_KS = (8, 16, 32)
METHODS = ("state_path", "relevance")
TARGET_K = 16
TARGET_CHAIN = 0.95
TARGET_TOKEN_DROP = 5.0


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



def run_menus_bench(*, seed: int = 0, ks: Sequence[int] = DEFAULT_KS, hosted: bool = False,
                    catalog: Catalog | None = None) -> dict[str, Any]:  # fmt: skip
    """Every task of the catalog (made from ``seed``) at every K; a summary per method and K."""
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
    done = None
    if target is not None:
        done = {
            "k": TARGET_K, "chain": target["chain"], "chain_target": TARGET_CHAIN,
            "relevance_chain": summary["relevance"][str(TARGET_K)]["chain"],
            "token_drop": target["token_drop"], "token_drop_target": TARGET_TOKEN_DROP,
            "met": target["chain"] >= TARGET_CHAIN and (target["token_drop"] or 0) >= TARGET_TOKEN_DROP,
        }  # fmt: skip
    return {
        "catalog": {"tools": len(cat.cache.tools), "sources": cat.sources, "tasks": len(cat.tasks), "seed": seed,
                    "hosted_sections": hosted},  # fmt: skip
        "ks": list(ks),
        "prompt_tokens_all": round(all_tokens, 1),
        "summary": summary,
        "done_when": done,
        "tasks": rows,
        "wall_s": round(time.perf_counter() - t0, 2),
    }
