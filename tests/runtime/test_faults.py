"""Exactly-once WRITEs under fire (issue 12), judged from the food site's own write log.

The fault plan and its hooks (HTTP and WSGI), Chromium's own re-send of a
POST whose connection dropped (which the pool's ``send_writes_once`` stops),
a run of the fault matrix that hits every fault kind once through the real
runtime and real Chromium, and the baseline without the effect log, where a
re-execution duplicates the write.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from agentjit.bench.faults import FaultInjector, FaultMiddleware, FaultRule
from agentjit.bench.faults_bench import FAULTS, FaultSpec, food_profile, matrix, run_fault_matrix
from agentjit.bench.food import FoodSite
from agentjit.bench.food.data import BY_SLUG
from agentjit.exceptions import ConfigError
from agentjit.runtime import BrowserPool

STORE = BY_SLUG["stonemill-matcha"]
ADD = {"store": STORE.slug, "item_id": STORE.menu[0].id}


def _request(url: str, method: str = "GET", body: Any = None, timeout: float = 10) -> tuple[int | str, Any]:
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    req = urllib.request.Request(url, method=method, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw.startswith(b"{") else raw
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, json.loads(raw) if raw.startswith(b"{") else raw
    except OSError as exc:  # a dropped connection
        return type(exc).__name__, str(exc)


def _applied(site: FoodSite) -> int:
    """Cart writes the site applied (its own log: entries the handler ran, status 200)."""
    return sum(1 for e in site.state()["log"] if e["path"] == "/api/cart" and e["status"] == 200)


@pytest.fixture
def faulty_site(food_site: FoodSite) -> Any:
    yield food_site
    food_site.faults.clear()


def test_the_fault_plan_is_set_and_checked_over_http(faulty_site: FoodSite) -> None:
    url = faulty_site.url + "/__faults"
    status, data = _request(url, "POST", {"rules": [{"path": "/api/cart", "kind": "teapot"}]})
    assert status == 400 and "teapot" in data["error"]
    status, data = _request(url, "POST", {"rules": [{"path": "/api/cart", "when": "later"}]})
    assert status == 400 and "'before' or 'after'" in data["error"]
    status, data = _request(url, "POST", {"rules": [{"path": "/api/cart", "kind": "500", "when": "after", "nth": 2}]})
    assert status == 200
    assert _request(faulty_site.url + "/api/cart", "POST", ADD)[0] == 200  # the 1st passes
    assert _request(faulty_site.url + "/api/cart", "POST", ADD)[0] == 500  # the 2nd is faulted, after applying
    assert _request(faulty_site.url + "/api/cart", "POST", ADD)[0] == 200
    assert _applied(faulty_site) == 3
    status, data = _request(url)
    assert data["seen"] == [3] and [e["kind"] for e in data["injected"]] == ["500"]


@pytest.mark.parametrize("kind", ["500", "drop", "timeout"])
@pytest.mark.parametrize("when", ["before", "after"])
def test_before_means_never_applied_and_after_means_applied(faulty_site: FoodSite, kind: str, when: str) -> None:
    faulty_site.faults.set([FaultRule("/api/cart", kind, when, hang_s=0.2)])  # type: ignore[arg-type]
    status, _ = _request(faulty_site.url + "/api/cart", "POST", ADD)
    assert status != 200 or (kind, when) == ("timeout", "after")  # a late answer still arrives
    assert _applied(faulty_site) == (1 if when == "after" else 0)
    assert len(faulty_site.faults.injected) == 1


def test_restart_keeps_the_state_and_the_port(faulty_site: FoodSite) -> None:
    assert _request(faulty_site.url + "/api/cart", "POST", ADD)[0] == 200
    port = faulty_site.port
    faulty_site.restart()
    assert faulty_site.port == port and _applied(faulty_site) == 1
    assert _request(faulty_site.url + "/api/cart")[1]["count"] == 1


def test_wsgi_middleware_faults_a_wsgi_app() -> None:
    applied: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        applied.append(environ["PATH_INFO"])
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"done"]

    injector = FaultInjector()
    mw = FaultMiddleware(app, injector)
    with pytest.raises(ConfigError, match="cannot drop"):
        injector.set([FaultRule("/w", "drop")])
    statuses: list[str] = []

    def call(path: str, method: str = "POST") -> bytes:
        env = {"PATH_INFO": path, "REQUEST_METHOD": method, "CONTENT_LENGTH": "0"}
        return b"".join(mw(env, lambda status, headers, exc=None: statuses.append(status)))

    injector.set([FaultRule("/w", "500", "before"), FaultRule("/x", "500", "after")])
    call("/w")
    call("/x")
    call("/x")
    assert applied == ["/x", "/x"]  # before: never reached the app; after: applied, then the 500
    assert statuses == ["500 Internal Server Error", "500 Internal Server Error", "200 OK"]


async def _fetch_add(pool: BrowserPool, site: FoodSite) -> str:
    async with pool.page() as page:
        await page.goto(f"{site.url}/store/{STORE.slug}")
        await page.evaluate("fetch('/api/cart').then((r) => r.text())")  # a keep-alive connection to reuse
        return str(await page.evaluate(
            "(b) => fetch('/api/cart', {method: 'POST', headers: {'Content-Type': 'application/json'}, "
            "body: JSON.stringify(b)}).then((r) => 'answered ' + r.status, (e) => 'failed: ' + e)", ADD))


async def test_chromium_resends_a_dropped_post_unless_the_pool_sends_writes_once(faulty_site, browser_pool) -> None:
    """The site applies the POST and drops the connection: Chromium re-sends it on a fresh one."""
    faulty_site.faults.set([FaultRule("/api/cart", "drop", "after")])
    async with BrowserPool(send_writes_once=False) as plain:
        answer = await _fetch_add(plain, faulty_site)
    assert answer == "answered 200" and _applied(faulty_site) == 2  # the page saw one success; the site two writes

    faulty_site.reset()
    faulty_site.faults.set([FaultRule("/api/cart", "drop", "after")])
    answer = await _fetch_add(browser_pool, faulty_site)
    assert answer.startswith("failed") and _applied(faulty_site) == 1  # once, and the page knows it failed


def test_the_matrix_covers_every_fault_early() -> None:
    cells = matrix(food_profile(), 36)
    assert [c.fault for c in cells[:12]] == list(FAULTS)
    assert len({(c.strategy, c.fault) for c in cells}) == 36


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_every_fault_kind_duplicates_and_loses_nothing() -> None:
    """Twelve runs, one per (kind, when), strategies rotating (about a minute: two hold a request past
    the tools' timeout)."""
    # 3 s: a tool's navigation on a busy machine; the timeout faults hold their request past it (3 * 3 + 8 s)
    report = await run_fault_matrix("food", runs=len(FAULTS), tool_timeout_ms=3000)
    detail = json.dumps([r for r in report.to_json()["runs"]], indent=1)
    assert [r.fault for r in report.runs] == [f.name for f in FAULTS]
    assert {r.strategy for r in report.runs} == {"serial", "parallel", "hedge"}
    totals = report.totals()
    assert totals["faulted_runs"] == len(FAULTS), detail
    assert (totals["duplicated"], totals["lost"], totals["unaccounted"], totals["uncertain_silent"]) == (0, 0, 0, 0), detail
    assert report.passed
    assert totals["ok"] + totals["failed_clean"] + totals["unclear"] == len(FAULTS)


@pytest.mark.timeout(240)
async def test_without_the_effect_log_a_re_execution_duplicates() -> None:
    """A 500 after the site applied the add: re-executing with an empty log sends it again."""
    fault = [FaultSpec("500", "after")]  # nothing held: a generous limit costs nothing and a busy machine fits in it
    baseline = await run_fault_matrix(food_profile(), runs=1, strategies=["serial"], faults=fault,
                                      effect_log=False, tool_timeout_ms=8000)
    (run,) = baseline.runs
    assert run.executions == 2 and run.duplicated == 1 and not baseline.passed, run
    logged = await run_fault_matrix(food_profile(), runs=1, strategies=["serial"], faults=fault, tool_timeout_ms=8000)
    (run,) = logged.runs
    assert run.executions == 1 and run.status == "uncertain" and run.duplicated == 0 and logged.passed, run
    assert run.site == {"add_to_cart/mochiset": 1} and run.uncertain == 1


async def test_a_write_answered_with_a_server_error_fails_whatever_its_post_check(faulty_site, browser_pool) -> None:
    """A form post answered with HTTP 500 lands on an error page that a URL-only post_check accepts:
    the call must fail (and the effect log record it uncertain), never report the write done."""
    from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
    from agentjit.runtime import call_tool

    submit = ToolManifest(
        name="submit_order", description="Place the order with the checkout form (a navigation).",
        type=ToolType.SET_FIELDS, effect=Effect.WRITE, navigates=True, timeout_ms=3000,
        execute="const f = document.querySelector('[data-testid=checkout-form]'); "
                "f.querySelector('input[name=mode][value=pickup]').checked = true; f.submit(); return null;",
        post_check="return location.pathname.startsWith('/checkout') || location.pathname.startsWith('/orders');",
    )  # fmt: skip
    outcomes = []
    for faults in ([FaultRule("/checkout/place", "500", "before")], []):
        faulty_site.reset()
        faulty_site.faults.set(faults)
        assert _request(faulty_site.url + "/api/cart", "POST", ADD)[0] == 200
        async with browser_pool.page() as page:
            await page.goto(faulty_site.url + "/checkout")
            outcomes.append((await call_tool(page, submit, {}), len(faulty_site.state()["orders"])))
    (faulted, orders_faulted), (clean, orders_clean) = outcomes
    assert orders_faulted == 0 and not faulted.ok and faulted.phase == "navigation" and "HTTP 500" in (faulted.reason or "")
    assert orders_clean == 1 and clean.ok, clean


@pytest.mark.timeout(240)
async def test_roundup_edit_answered_500_is_uncertain_not_lost() -> None:
    """Roundup behind the WSGI fault middleware: the edit's POST refused with a 500 before Roundup saw it."""
    pytest.importorskip("roundup")
    from agentjit.bench.faults_bench import FaultTask, roundup_profile

    profile = roundup_profile()
    note = next(t for t in profile.tasks["serial"] if t.id == "add-message")
    target = next(t for t in note.targets if t.name == "last-write")
    profile.tasks = {"serial": [FaultTask(note.id, note.source, note.writes, (target,))]}
    report = await run_fault_matrix(profile, runs=1, strategies=["serial"], faults=[FaultSpec("500", "before")],
                                    tool_timeout_ms=8000)  # nothing held: Roundup's sign-in may be slow to answer
    (run,) = report.runs
    assert run.faults_injected == 1 and run.site == {} and run.lost == 0 and run.status == "uncertain", run


_LOOP_PLAN = """\
await goto_list()
items = await list_items()
for it in items.items[:3]:
    await goto_item(id=it.id)
    await order_item(id=it.id, qty=1)
result = len(items.items)
"""


class _WriteLoop:
    """Facts that call the loop on line 3 parallel (a caller's analysis may, for writes to distinct items)."""

    line = 3
    parallel_ok = True
    reason = "one order per item"
    accumulators: tuple[str, ...] = ()
    entry_replay: tuple[Any, ...] = ()


class _Facts:
    loop = _WriteLoop()


@pytest.mark.timeout(120)
async def test_a_parallel_re_execution_replays_each_iteration_write_whatever_worker_runs_it(shop, shop_runtime) -> None:
    """Keys of a loop's writes follow the iteration, not the worker: a re-execution with more workers
    (items landing on other workers) replays every order instead of sending it again."""
    from agentjit.runtime import EffectLog, ParallelStrategy

    effects = EffectLog()
    shop.path_delays = {"/item/": 0.4}  # slow iterations, so the extra workers take some items
    first = await shop_runtime.run(_LOOP_PLAN, strategy=ParallelStrategy(1, usage=_Facts(), effects=effects))
    assert first.value == 6 and len(shop.orders) == 3
    again = await shop_runtime.run(_LOOP_PLAN, strategy=ParallelStrategy(3, usage=_Facts(), effects=effects))
    assert again.strategy == "parallel" and again.workers > 1
    assert len(shop.orders) == 3, f"re-execution sent {len(shop.orders) - 3} order(s) again"
    orders = [c for c in again.calls if c.tool == "order_item"]
    assert len(orders) == 3 and all(c.replayed and c.ok for c in orders)


@pytest.mark.timeout(120)
def test_bench_faults_command_prints_json_and_refuses_an_unknown_app(capsys) -> None:
    from agentjit.cli import main

    assert main(["bench", "faults", "--runs", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] and data["totals"]["runs"] == 1 and data["totals"]["faulted_runs"] == 1
    assert data["cells"][0]["strategy"] == "serial" and data["runs"][0]["fault"] == "500-before"
    assert main(["bench", "faults", "--app", "nosuch", "--runs", "1"]) != 0
    assert "no fault profile for app 'nosuch'" in capsys.readouterr().err
