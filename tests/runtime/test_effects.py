"""The effect log: claims, replays, occurrence keys, persistence, failures; then against a real page."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentjit.exceptions import ToolCallFailed, TraceError
from agentjit.protocol.manifest import Effect, ToolManifest, ToolType
from agentjit.runtime import CallOutcome, EffectKey, EffectLog, EffectRecord, Runtime
from agentjit.runtime.effects import Claim, canonical_args
from agentjit.runtime.interpreter import execute_plan

from .conftest import FakeSite, ShopSite


def key(tool: str = "order", args: dict | None = None, occurrence: int = 0) -> EffectKey:
    return EffectKey(tool, canonical_args(args or {"id": "a1"}), occurrence)


def test_canonical_args_ignores_key_order_and_spacing() -> None:
    assert canonical_args({"b": 1, "a": [1, 2]}) == canonical_args({"a": [1, 2], "b": 1}) == '{"a":[1,2],"b":1}'


async def test_concurrent_claimants_send_once_and_share_the_outcome() -> None:
    effects = EffectLog()
    site = FakeSite(delay=0.05)
    results = await asyncio.gather(*(effects.write(key(), site.send, worker=w) for w in range(5)))
    assert site.sent == 1
    outcomes = [o for o, _ in results]
    assert [o.replayed for o in outcomes].count(False) == 1
    assert [o.replayed for o in outcomes].count(True) == 4
    assert {o.output["order"] for o in outcomes} == {1}
    assert effects.sent == 1 and effects.replays == 4
    assert [r.status for r in effects.working] == ["committed"]


async def test_claim_returns_the_record_once_committed() -> None:
    effects = EffectLog()
    first = await effects.claim(key())
    assert isinstance(first, Claim)
    waiter = asyncio.create_task(effects.claim(key()))
    await asyncio.sleep(0.01)
    assert not waiter.done()  # waits for the claimant
    rec = first.commit(CallOutcome(tool="order", ok=True, output={"n": 7}))
    got = await waiter
    assert isinstance(got, EffectRecord) and got is rec and got.outcome.output == {"n": 7}


async def test_a_cancelled_waiter_does_not_disturb_the_claim() -> None:
    effects = EffectLog()
    first = await effects.claim(key())
    assert isinstance(first, Claim)
    waiter = asyncio.create_task(effects.claim(key()))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert first.open
    first.commit(CallOutcome(tool="order", ok=True))
    assert effects.lookup(key()) is not None


async def test_replay_returns_the_recorded_outcome() -> None:
    effects = EffectLog()
    site = FakeSite()
    sent, rec = await effects.write(key(), site.send)
    assert rec is None and not sent.replayed
    effects.begin_execution()  # a re-execution
    again, rec = await effects.write(key(), site.send)
    assert site.sent == 1
    assert rec is not None and again.replayed and again.ok
    assert again.output == sent.output == {"order": 1}
    assert len(effects.history) == 1 and effects.working == []


async def test_occurrence_index_keeps_two_identical_writes_apart() -> None:
    effects = EffectLog()
    site = FakeSite()
    gate = effects.gate(worker=0)
    k1, k2 = gate.key("order", {"id": "a1"}), gate.key("order", {"id": "a1"})
    assert (k1.occurrence, k2.occurrence) == (0, 1)
    await effects.write(k1, site.send)
    await effects.write(k2, site.send)
    assert site.sent == 2  # the second identical write is a new write, not a replay
    # a re-execution with a fresh gate replays both, in order, and sends nothing
    effects.begin_execution()
    gate2 = effects.gate(worker=0)
    outs = [await effects.write(gate2.key("order", {"id": "a1"}), site.send) for _ in range(2)]
    assert site.sent == 2
    assert [o.output["order"] for o, _ in outs] == [1, 2]
    assert all(o.replayed for o, _ in outs)
    # a third identical write in the re-execution is new
    await effects.write(gate2.key("order", {"id": "a1"}), site.send)
    assert site.sent == 3


async def test_a_secret_input_never_reaches_the_stored_log(tmp_path: Path) -> None:
    """A sign-in is a WRITE whose password is a ``writeOnly`` input: the log keys it without the value (the
    key is written to the store), and the same sign-in after a crash still finds its record."""
    path = tmp_path / "effects.jsonl"
    login = ToolManifest(name="login", description="Sign in.", type=ToolType.SET_FIELDS, effect=Effect.WRITE, execute="return {};",
                         input_schema={"type": "object", "properties": {"user": {"type": "string"},
                                                                        "password": {"type": "string", "writeOnly": True}}})  # fmt: skip
    site = FakeSite()
    await EffectLog(path).gate()(login, {"user": "alice", "password": "s3cret-pw"}, site.send)
    assert site.sent == 1 and "s3cret-pw" not in path.read_text() and "alice" in path.read_text()
    again = EffectLog(path)
    out = await again.gate()(login, {"user": "alice", "password": "s3cret-pw"}, site.send)
    assert site.sent == 1 and out.replayed


async def test_persisted_history_replays_after_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "effects.jsonl"
    site = FakeSite()
    first = EffectLog(path)
    gate = first.gate()
    await first.write(gate.key("order", {"id": "a1"}), site.send)
    await first.write(gate.key("order", {"id": "b2"}), site.send)
    del first  # the process "dies" here

    second = EffectLog(path)
    assert [r.status for r in second.history] == ["committed", "committed"]
    gate = second.gate()
    out, rec = await second.write(gate.key("order", {"id": "a1"}), site.send)
    out2, _ = await second.write(gate.key("order", {"id": "b2"}), site.send)
    assert site.sent == 2 and rec is not None and out.replayed and out2.replayed
    assert (out.output, out2.output) == ({"order": 1}, {"order": 2})


async def test_a_crash_mid_write_reloads_as_uncertain_and_is_not_resent(tmp_path: Path) -> None:
    path = tmp_path / "effects.jsonl"
    first = EffectLog(path)
    claim = await first.claim(key())
    assert isinstance(claim, Claim)  # claimed, written ahead, then the process dies before the outcome
    second = EffectLog(path)
    site = FakeSite()
    out, rec = await second.write(key(), site.send)
    assert site.sent == 0
    assert rec is not None and rec.status == "uncertain"
    assert not out.ok and out.phase == "effect_log" and "not sent again" in (out.reason or "")
    second.forget(key())  # after checking the site by hand
    third = EffectLog(path)
    out, _ = await third.write(key(), site.send)
    assert out.ok and site.sent == 1


async def test_failure_before_execute_releases_the_claim() -> None:
    effects = EffectLog()
    failing = FakeSite(phase="pre_check")
    out, _ = await effects.write(key(), failing.send)
    assert not out.ok and effects.lookup(key()) is None  # nothing reached the site: free to send
    ok = FakeSite()
    out, rec = await effects.write(key(), ok.send)
    assert out.ok and rec is None and ok.sent == 1


async def test_a_released_claim_passes_to_a_waiter() -> None:
    effects = EffectLog()
    failing, ok = FakeSite(delay=0.02, phase="pre_check"), FakeSite()
    a = asyncio.create_task(effects.write(key(), failing.send))
    await asyncio.sleep(0)
    b = asyncio.create_task(effects.write(key(), ok.send))
    (out_a, _), (out_b, rec_b) = await asyncio.gather(a, b)
    assert not out_a.ok and out_b.ok and rec_b is None
    assert (failing.sent, ok.sent) == (1, 1)


@pytest.mark.parametrize("phase", ["execute", "navigation", "post_check"])
async def test_failure_after_execute_is_uncertain_and_never_resent(phase: str) -> None:
    effects = EffectLog()
    failing = FakeSite(phase=phase)
    out, _ = await effects.write(key(), failing.send)
    assert not out.ok and out.phase == phase
    rec = effects.lookup(key())
    assert rec is not None and rec.status == "uncertain"
    ok = FakeSite()
    again, _ = await effects.write(key(), ok.send)
    assert ok.sent == 0 and not again.ok and again.replayed and again.phase == "effect_log"


async def test_a_cancelled_send_is_uncertain() -> None:
    effects = EffectLog()
    slow = FakeSite(delay=5)
    task = asyncio.create_task(effects.write(key(), slow.send))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    rec = effects.lookup(key())
    assert rec is not None and rec.status == "uncertain" and rec.outcome.phase == "interrupted"


def test_a_bad_log_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "effects.jsonl"
    good = {"event": "claimed", "tool": "t", "args": "{}", "occurrence": 0}
    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(TraceError, match=r"effects\.jsonl:2"):
        EffectLog(path)


# -- against a real page -----------------------------------------------------------------

WRITE_THEN_FAIL = """
await goto_list()
items = (await list_items()).items
await goto_item(items[1].id)
await order_item(items[1].id, 2)
conf = await get_confirmation()
await goto_item("no-such-item")
result = conf.order
"""

WRITE_PLAN = WRITE_THEN_FAIL.replace('await goto_item("no-such-item")\n', "")


async def _serial_with(runtime: Runtime, source: str, effects: EffectLog, worker: int = 0):
    gate = effects.gate(worker=worker)
    async with runtime.worker(write_gate=gate, worker=worker) as run:
        gate.bind(run)
        try:
            return await execute_plan(source, run), run
        except Exception as exc:
            return exc, run


async def test_reexecution_after_a_failure_replays_the_write_and_checks_it(
    shop: ShopSite, shop_runtime: Runtime, tmp_path: Path
) -> None:
    path = tmp_path / "effects.jsonl"
    shop_runtime.tool_timeout_ms = 2500
    first, _ = await _serial_with(shop_runtime, WRITE_THEN_FAIL, EffectLog(path))
    assert isinstance(first, ToolCallFailed) and first.tool == "goto_item"
    assert len(shop.orders) == 1 and shop.orders[0]["item"] == "b2" and shop.orders[0]["qty"] == 2

    # the "repaired" plan, run again in a new context with the log read back from disk
    effects = EffectLog(path)
    value, run = await _serial_with(shop_runtime, WRITE_PLAN, effects)
    assert value == 0  # the first (and only) order's number, read from the confirmation page
    assert len(shop.orders) == 1  # not sent again
    write = next(c for c in run.calls if c.tool == "order_item")
    assert write.replayed and write.ok
    # the replay moved this context's page to the confirmation and ran post_check there
    assert write.url_after and write.url_after.endswith("/orders/0")
    assert effects.sent == 0 and effects.replays == 1


async def test_replay_that_the_page_cannot_confirm_fails(shop: ShopSite, shop_runtime: Runtime) -> None:
    effects = EffectLog()
    value, _ = await _serial_with(shop_runtime, WRITE_PLAN, effects)
    assert value == 0
    # fake a record whose confirmation page shows another item: post_check must fail on replay
    rec = effects.working[0]
    rec.outcome = rec.outcome.model_copy(update={"url_after": shop.url + "/item/a1"})
    effects.begin_execution()
    effects.verify_timeout_ms = 200
    err, run = await _serial_with(shop_runtime, WRITE_PLAN, effects)
    assert isinstance(err, ToolCallFailed) and err.tool == "order_item"
    assert "not confirmed" in str(err)
    assert len(shop.orders) == 1
