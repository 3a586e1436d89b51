"""Wagtail behind the redesign proxy: run every plan, heal, run again (issue 21, by hand on a real app).

    .venv/bin/python examples/wagtail/heal_redesign.py --cache DIR --site http://127.0.0.1:8861 \\
        --db /tmp/wagtail-site/db.sqlite3 --base-db /tmp/wagtail-base.sqlite3 [--rounds 1] [--seed 7]

``--cache`` is a build of this folder's recordings (it is healed in place: copy it first). Before each
plan the site's database is put back to ``--base-db`` (the server keeps running). Each plan runs once on
the site as it is (its answers are what the redesigned runs must give; the calls are the good calls heal
holds tools to), then on the site behind :class:`agentjit.bench.redesign.RedesignProxy` (the seed's
renamed classes and ids, wrapped buttons), then ``toolcache heal --sign-in`` and every plan again, for
``--rounds`` rounds (``--heal-in-run``: each redesigned run heals a broken tool where it finds it, in the run's
own session, and goes on with it; the heal between runs takes what is left). The writes are judged by ``judge.py``; a read passes when it gives the original
answer. Heal must leave the content as it was: the rows of every table are compared before and after
it, but for the sign-in's own (``django_session``, ``auth_user.last_login``) and what Wagtail's GETs write
themselves (:data:`NOISE`: the editor's editing session and subscription, the user's profile with its defaults).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agentjit.bench.redesign import RedesignProxy
from agentjit.cache import ToolCache
from agentjit.runtime import BrowserPool, Runtime
from agentjit.runtime.repair import HealInRun
from agentjit.tasks.runner import jsonable

HERE = Path(__file__).resolve().parent
WRITES = {"create_page", "edit_title", "publish_page", "delete_page", "edit_body"}
NOISE = {"django_session", "wagtailadmin_editingsession", "wagtailcore_pagesubscription", "sqlite_sequence",
         "wagtailusers_userprofile"}
"""Tables Wagtail writes on a read: the sign-in's session, the editor GET's editing session and subscription, and
the user's profile, made with its defaults on the first GET of the site's own pages signed in (the userbar)."""
SECRETS = {"password": "wagtail-pass-1"}


def content(db: Path) -> str:
    """Every row of every table but :data:`NOISE`, ``auth_user`` without ``last_login``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = []
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
        if table in NOISE:
            continue
        cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")') if (table, r[1]) != ("auth_user", "last_login")]
        names = ", ".join(f'"{c}"' for c in cols)
        out.append(f"== {table}\n" + "\n".join(sorted(repr(r) for r in conn.execute(f'SELECT {names} FROM "{table}"'))))
    conn.close()
    return "\n".join(out)


async def run_all(args: argparse.Namespace, url: str, pool: BrowserPool, label: str,
                  original: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {}
    for plan in sorted((HERE / "plans").glob("*.py")):
        shutil.copyfile(args.base_db, args.db)
        repair = HealInRun(args.cache, url) if args.heal_in_run and original is not None else None
        runtime = Runtime(ToolCache.load(args.cache), url, pool=pool, record_suspects=True, tool_timeout_ms=8000,
                          repair=repair)  # fmt: skip
        t0 = time.perf_counter()
        try:
            value, error = jsonable((await runtime.run(plan.read_text())).value), None
        except Exception as exc:
            value, error = None, f"{type(exc).__name__}: {str(exc)[:300]}"
        if plan.stem in WRITES and error is None:
            judge = [sys.executable, str(HERE / "judge.py"), str(args.db), plan.stem]
            judged = await asyncio.to_thread(subprocess.run, judge, capture_output=True, text=True)
            ok, why = judged.returncode == 0, judged.stdout.strip()
        else:
            ok = error is None and (original is None or value == original[plan.stem]["value"])
            why = error or ("" if ok else f"another answer: {str(value)[:200]}")
        out[plan.stem] = {"ok": ok, "why": why, "value": value, "s": round(time.perf_counter() - t0, 1)}
        if repair is not None and repair.reports:
            out[plan.stem]["healed_in_run"] = repair.reports
        print(f"{label} {plan.stem}: {'pass' if ok else 'FAIL'} ({out[plan.stem]['s']} s) {why[:200]}", file=sys.stderr)
    return out


async def main(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {}
    async with BrowserPool.from_spec() as pool:
        report["original"] = await run_all(args, args.site, pool, "original")
        with RedesignProxy(args.site, seed=args.seed, wrap=args.wrap) as proxy:
            report["run1"] = await run_all(args, proxy.url, pool, "run 1", report["original"])
            for r in range(1, args.rounds + 1):
                shutil.copyfile(args.base_db, args.db)
                before = content(args.db)
                t0 = time.perf_counter()
                command = [str(Path(sys.executable).with_name("toolcache")), "heal", "--cache", str(args.cache),
                           "--site", proxy.url, "--sign-in", "--secrets-stdin", "--json"]  # fmt: skip
                heal = await asyncio.to_thread(subprocess.run, command, input=json.dumps(SECRETS), capture_output=True, text=True)
                healed = json.loads(heal.stdout) if heal.stdout.lstrip().startswith("{") else {"error": heal.stderr[-2000:]}
                report[f"heal{r}"] = {"exit": heal.returncode, "s": round(time.perf_counter() - t0, 1),
                                      "content_unchanged": content(args.db) == before,
                                      **{k: healed.get(k) for k in ("healed", "failed", "error")}}  # fmt: skip
                print(f"heal {r}: {json.dumps(report[f'heal{r}'])[:600]}", file=sys.stderr)
                report[f"run{r + 1}"] = await run_all(args, proxy.url, pool, f"run {r + 1}", report["original"])
    report["passed"] = {k: sum(x["ok"] for x in v.values()) for k, v in report.items() if k.startswith(("run", "original"))}
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--site", required=True, help="the Wagtail server, http://127.0.0.1:PORT")
    parser.add_argument("--db", type=Path, required=True, help="the server's sqlite database")
    parser.add_argument("--base-db", type=Path, required=True, help="a copy of it to start every plan from")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--wrap", type=float, default=0.3)
    parser.add_argument("--heal-in-run", action="store_true",
                        help="a redesigned run heals a broken tool when it finds it (in its own session) and goes on")
    args = parser.parse_args()
    args.site = args.site.rstrip("/")
    print(json.dumps(asyncio.run(main(args)), default=str))
