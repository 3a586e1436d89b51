"""Batches on Ray workers (a local cluster) under a shared effect log (PostgreSQL, else SQLite), judged
from the food site's cart: no write sent twice, none lost, with a second batch racing and a worker killed
mid-batch."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentjit.runtime.effectstore import open_store
from agentjit.tasks.apps import get_app
from agentjit.tasks.runner import TaskResult, run_batch
from agentjit.tasks.taskfile import load_tasks

ray = pytest.importorskip("ray")

from agentjit.bench.postgres import Postgres  # noqa: E402
from agentjit.tasks.distributed import run_batch_ray  # noqa: E402

pytestmark = pytest.mark.browser

STORE = "Stonemill Matcha"
ITEMS = ["Matcha Croissant", "Iced Matcha Latte", "Ceremonial Matcha Latte", "Mochi Set", "Hojicha Latte",
         "Matcha Soft Serve"]  # fmt: skip


def task_file(path: Path, items: list[str]) -> Path:
    """One write task per item: open the store, add one of the item to the (one, shared) cart."""
    with path.open("w") as fh:
        for i, item in enumerate(items):
            plan = (f"await goto_store(name={STORE!r})\n"
                    f"added = await add_to_cart(item_name={item!r}, quantity=1)\nresult = added.item_added\n")  # fmt: skip
            fh.write(json.dumps({"id": f"add-{i}", "task": f"Add one {item} to the cart", "plan": plan,
                                 "kind": "write"}) + "\n")  # fmt: skip
    return path


@pytest.fixture
def effects_url(postgres: Postgres, tmp_path: Path) -> str:
    """The store for many machines (PostgreSQL from Debian's package) where it can start here, else
    SQLite (both race across processes in tests/runtime/test_effect_stores.py)."""
    return postgres.url or f"sqlite:///{tmp_path}/effects.db"


@pytest.fixture
def shared_site() -> Iterator[str]:
    site = get_app("food").site(latency_scale=0.0)
    site.start()
    try:
        yield site.url
    finally:
        site.stop()


def cart(site: object) -> Counter[str]:
    import urllib.request

    with urllib.request.urlopen(f"{site}/__state", timeout=10) as response:
        state = json.load(response)
    return Counter({line["item_name"]: line["quantity"] for line in state["cart"]})


def first_event(trace: str) -> tuple[str, str]:
    """The kind and site of a trace file's first event."""
    first = json.loads(Path(trace).read_text().splitlines()[0])
    return first["kind"], first["site"]


def committed(url: str, run_id: str, task_ids: list[str]) -> set[str]:
    """The tasks whose write the shared log holds as committed."""
    store = open_store(url)
    try:
        return {tid for tid in task_ids if any(r.status == "committed" for r in store.rows(f"{run_id}/{tid}"))}
    finally:
        store.close()


async def test_ray_workers_a_racing_batch_and_a_killed_worker_send_each_write_once(
    ray_cluster: Any, shared_site: str, effects_url: str, tmp_path: Path
) -> None:
    """Two Ray workers and an in-process batch run the same task file on one site, one effect store;
    worker 1 is killed at the first result, so its task (or its next one) is retried on worker 0."""
    items = ITEMS[:5]
    path = task_file(tmp_path / "tasks.jsonl", items)
    tasks = load_tasks(path)
    url = effects_url
    killed: list[str] = []

    def kill_one(res: TaskResult) -> None:  # worker 1, busy or about to be given a task
        if killed:
            return
        for name in ray.util.list_named_actors():
            if name.endswith("-worker-1"):
                ray.kill(ray.get_actor(name))
                killed.append(name)

    on_ray = run_batch_ray(tasks, app_name="food", task_file=path, workers=2, site_url=shared_site, effects=url,
                           run_id="night-1", strategy="serial", on_result=kill_one)  # fmt: skip
    in_process = run_batch(tasks, app_name="food", browsers=[None], site_url=shared_site, effects=url,
                           run_id="night-1", strategy="serial")  # fmt: skip
    ray_report, local_report = await asyncio.gather(on_ray, in_process)
    have = cart(shared_site)
    assert all(n == 1 for n in have.values()), have  # 0 duplicated
    wanted = {t.id: item for t, item in zip(tasks, items, strict=True)}
    sent = committed(url, "night-1", [t.id for t in tasks])
    assert all(have[wanted[tid]] == 1 for tid in sent)  # 0 lost: every write the log calls committed is there
    for report in (ray_report, local_report):  # an ok task's write is on the site; a failed one failed closed
        for res in report.tasks:
            if res.ok:
                assert have[wanted[res.id]] == 1
            else:
                assert "worker" in res.reason or "not sent again" in res.reason, res.reason
    assert sum(r.ok for r in local_report.tasks) >= len(items) - 1  # at most the one write cut by the kill
    summary = ray_report.summary
    assert killed and summary["retried"] >= 1 and summary["per_worker"][1]["died"]
    assert summary["engine"] == "ray" and summary["first_task_overhead_s"] is not None
    assert sum(row["tasks"] for row in summary["per_worker"]) + sum(not r.ok for r in ray_report.tasks) >= len(items)


async def test_four_ray_workers_run_one_task_file_at_once_and_stream_their_traces_back(
    ray_cluster: Any, shared_site: str, effects_url: str, tmp_path: Path
) -> None:
    """Four batches of one Ray worker each run the whole task file at once under one run id: every
    write is raced by four processes and reaches the site once; each worker's traces come back to
    the driver and land in its batch's trace directory as the tasks end."""
    items = ITEMS[:2]
    path = task_file(tmp_path / "tasks.jsonl", items)
    tasks = load_tasks(path)
    arrived: list[list[bool]] = [[] for _ in range(4)]

    def seen(n: int) -> Any:
        def on_result(res: TaskResult) -> None:  # the trace is on disk when the result arrives
            arrived[n].append(res.trace_path is not None and Path(res.trace_path).is_file())
        return on_result

    reports = await asyncio.gather(*(
        run_batch_ray(tasks, app_name="food", task_file=path, workers=1, site_url=shared_site, effects=effects_url,
                      run_id="race-4", strategy="serial", cpus_per_worker=0.5, trace_dir=tmp_path / f"traces-{n}",
                      on_result=seen(n))
        for n in range(4)))  # fmt: skip
    have = cart(shared_site)
    assert have == Counter(dict.fromkeys(items, 1))  # 0 duplicated, 0 lost
    assert committed(effects_url, "race-4", [t.id for t in tasks]) == {t.id for t in tasks}
    for n, report in enumerate(reports):
        assert all(res.ok or "not sent again" in res.reason for res in report.tasks), report.tasks
        ok = [res for res in report.tasks if res.ok]
        assert arrived[n] == [True] * len(tasks) or len(ok) < len(tasks)
        for res in ok:
            assert res.trace_path is not None and Path(res.trace_path).parent == tmp_path / f"traces-{n}"
            assert first_event(res.trace_path) == ("session", "food")
        assert report.summary["traces"] == report.summary["per_worker"][0]["traces"] == len(ok)
    assert sum(res.ok for report in reports for res in report.tasks) >= len(tasks)
