"""The stepwise agent as a trace source: run demonstrations through the agent, write its traces.

``toolcache build`` reads any trace in the project's format; this writes them
from :class:`~agentjit.agent.StepwiseAgent` runs instead of the recorder. Each
demonstration (a recorded trace) drives the agent through the oracle policy;
with a real model the same function records the model's own runs. A trace
starts with the ``goto`` of the start page (with its snapshot), then one step
per agent action, with the element descriptors and DOM snapshots the builder
needs.

``python -m agentjit.bench.agent_traces OUT_DIR DEMO.jsonl ...`` records them
against the food site started in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from agentjit._version import __version__
from agentjit.agent import StepwiseAgent
from agentjit.protocol.trace import SessionEvent, StepEvent, TraceWriter, read_trace
from agentjit.runtime import BrowserPool
from agentjit.tasks.apps import Site, get_app

from .oracle import OraclePolicy, patient_model

__all__ = ["record_with_agent", "main"]


async def record_with_agent(demos: Sequence[str | Path], site: Site, out_dir: str | Path, *, pool: BrowserPool) -> list[Path]:
    """One agent trace per demonstration in ``out_dir`` (same file names); the site is reset before each."""
    out = Path(out_dir)
    await asyncio.to_thread(out.mkdir, parents=True, exist_ok=True)
    written = []
    for demo in demos:
        trace = read_trace(demo, check_snapshots=False)
        first = next((s for s in trace.steps if s.action == "goto"), None)
        path = urlsplit(str(first.value)).path if first is not None and first.value else "/"
        start = site.url.rstrip("/") + (path or "/")
        site.reset()
        target = out / Path(demo).name
        session = SessionEvent(site=trace.session.site, start_url=site.url, agentjit_version=__version__,
                               task=trace.session.task, source="agent", script=trace.session.script)  # fmt: skip
        async with pool.page() as page:
            with TraceWriter(target, session) as writer:
                t0 = time.time()
                await page.goto(start, wait_until="load")
                writer.step(
                    StepEvent(index=writer.next_index(), action="goto", value=start, start=t0, end=time.time(),
                              url_after=page.url, title=await page.title(), snapshot=writer.snapshot(await page.content()))
                )  # fmt: skip
                model = patient_model(OraclePolicy(trace.steps, answer="done"))
                await StepwiseAgent(model, base_url=site.url, trace=writer).run(page, trace.session.task or "")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agentjit.bench.agent_traces", description=__doc__)
    p.add_argument("out_dir")
    p.add_argument("demos", nargs="+", help="recorded demonstration traces (.jsonl)")
    p.add_argument("--app", default="food")
    args = p.parse_args(argv)

    async def run() -> list[Path]:
        site = get_app(args.app).site(latency_scale=0.0)
        site.start()
        try:
            async with BrowserPool.from_spec() as pool:
                return await record_with_agent(args.demos, site, args.out_dir, pool=pool)
        finally:
            site.stop()

    for path in asyncio.run(run()):
        sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
