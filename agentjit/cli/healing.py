"""``agentjit run``'s part of issue 21: a broken tool's call falls back to the stepwise agent (with ``--model``),
and a run that fell back heals the cache it ran on, by running ``toolcache heal`` as a process of its own (the
builder imports agentjit, never the reverse).

With a cache directory of the user's (``--cache DIR``) a broken tool is first healed in the run that finds it
(``toolcache heal`` in the run's browser session, no model: :class:`agentjit.runtime.repair.HealInRun`) and the call
goes on with the healed tool; only a tool that cannot be healed so falls back to the agent.

``--no-fallback``: a broken tool's call fails the run, as without ``--model``. ``--no-heal-in-run``: only the heal
after the run (of what fell back). ``--no-heal``: no heal, in the run or after it; the suspects stay in the cache's
``suspects.json`` for a later ``toolcache heal``. Healing needs a cache directory of the user's: a bundled app's
cache is read-only and never healed in place.
"""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["add_healing_args", "arm", "heal_after"]

HEAL_TIMEOUT_S = 600.0
"""The longest an automatic heal may take (probing adds ``PROBE_S_PER_TOOL`` per tool of the cache); past it the
heal is stopped and the run's result says so."""


def add_healing_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-fallback", action="store_true",
                   help="a tool the site broke fails the run (default with --model: the stepwise agent finishes "
                        "that one call)")  # fmt: skip
    p.add_argument("--no-heal", action="store_true",
                   help="leave the tools the site broke to a later `toolcache heal` (default with --cache DIR: a "
                        "broken tool is healed in the run that finds it, with no model, and the run goes on; what "
                        "fell back to the agent is healed after the run)")  # fmt: skip
    p.add_argument("--no-heal-in-run", action="store_true",
                   help="with --cache DIR: a broken tool's call fails (or, with --model, falls back to the agent) and "
                        "is healed after the run, not in it")  # fmt: skip


def arm(args: argparse.Namespace, session: Any, model: Any) -> None:
    """Give ``session`` the fallback (``model`` drives the stepwise agent) and, on a cache directory of the user's,
    the heal in the run and the suspect recording that healing reads."""
    if model is not None and not args.no_fallback:
        from agentjit.agent import agent_tool_fallback

        session.fallback = agent_tool_fallback(model)
    own = bool(getattr(args, "cache", None))
    session.heal_in_run = own and not args.no_heal and not args.no_heal_in_run
    session.record_suspects = own and session.fallback is not None


async def heal_after(args: argparse.Namespace, result: Any, site_url: str, *, cache: Any = None,
                     source: str | None = None) -> dict[str, Any] | None:
    """Heal the tools ``result``'s calls fell back for (``toolcache heal --json``); its report in short, or why
    not; None when nothing fell back. When the plan ``source`` signs in with ``cache``'s sign-in tool (its password
    a literal of the plan), the heal signs in with those values first, handed over on stdin, never in argv."""
    tools = sorted({f["tool"] for f in result.fallbacks if f.get("ok") and f.get("how") != "heal"})  # not healed already
    if not tools:
        return None
    if args.no_heal:
        return {"skipped": "--no-heal", "tools": tools}
    if not getattr(args, "cache", None):
        return {"skipped": "a bundled app's cache is never healed in place (copy it and run with --cache DIR)",
                "tools": tools}  # fmt: skip
    secrets: dict[str, str] = {}
    if cache is not None and source is not None:
        from agentjit.cache.suspects import sign_in_secrets

        secrets = sign_in_secrets(cache, [source])
    from agentjit.runtime.healing import heal_process

    code, out, err = await heal_process(str(args.cache), site_url, tools, secrets, HEAL_TIMEOUT_S)
    if code is None:
        return {"error": f"toolcache heal ran past its time limit ({HEAL_TIMEOUT_S:.0f} s, and more for each tool it "
                         "probes) and was stopped", "tools": tools}  # fmt: skip
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    if code not in (0, 1) or not isinstance(report, dict) or "healed" not in report:
        tail = (err or out).strip()[-600:]
        return {"error": f"toolcache heal exited {code}: {tail}", "tools": tools}
    return {"tools": tools, "healed": report.get("healed", []), "failed": report.get("failed", {}),
            "changes": report.get("changes", {}), "time_s": report.get("time_s"),
            "revision": report.get("revision"), "signed_in": report.get("signed_in"),
            "probed": report.get("probed", [])}  # fmt: skip
