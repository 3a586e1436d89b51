"""The stepwise agent on the food site: oracle runs judged, bad answers, the trace, exactly-once writes."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from agentjit.agent import Observation, StepwiseAgent, parse_action, parse_elements
from agentjit.agent.observe import Element
from agentjit.bench.food.tasks import TASKS
from agentjit.bench.oracle import oracle_model
from agentjit.exceptions import ModelResponseError
from agentjit.llm import FunctionModel, TestModel
from agentjit.protocol.trace import SessionEvent, TraceWriter, read_trace
from agentjit.runtime import EffectLog

TASK = {t.id: t for t in TASKS}


def _view() -> Observation:
    els = [
        Element(0, "a#home", "link", 'Home "page"', "Home", "a", testid="nav-home"),
        Element(1, "input#q", "searchbox", "Search", "", "input", value="x"),
        Element(2, "select#mode", "combobox", "Mode", "", "select", value="Pickup", options=["Pickup", "Delivery"]),
    ]
    return Observation(url="http://127.0.0.1:1/", title="T", elements=els, text="hello")


def test_parse_action_accepts_and_explains():
    view = _view()
    assert parse_action('```json\n{"action": "click", "index": 0}\n```', view).index == 0
    assert parse_action('{"action": "done", "answer": "42"}', view).answer == "42"
    for bad, why in [
        ("click it", "not one JSON object"),
        ('{"action": "fly"}', "field 'action'"),
        ('{"action": "click", "index": 9}', r"no element \[9\]"),
        ('{"action": "type", "index": 1}', "type needs a text"),
        ('{"action": "select", "index": 1, "option": "Pickup"}', "not a select"),
        ('{"action": "select", "index": 2, "option": "Teleport"}', "needs an option"),
        ('{"action": "goto", "url": "https://example.com/x"}', "may not leave the site"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_action(bad, view, base_url="http://127.0.0.1:1/")


def test_rendered_elements_parse_back():
    view = _view()
    text = view.render()
    got = parse_elements(text)
    assert [e["index"] for e in got] == [0, 1, 2]
    assert got[0]["name"] == 'Home "page"' and got[0]["testid"] == "nav-home" and got[0]["selector"] == "a#home"
    assert got[1]["value"] == "x"
    small = view.render(budget_tokens=20)
    assert "more elements not shown" in small
    spaced = Element(0, "#status", "combobox", "Status", "", "select", value="don't care", options=["don't care", "in progress"])
    assert parse_elements(Observation("u", "t", [spaced], "").render())[0]["selector"] == "#status"


async def _run(browser_pool: Any, site: Any, model: Any, task: str, **kw: Any) -> Any:
    async with browser_pool.page() as page:
        await page.goto(site.url + "/")
        return await StepwiseAgent(model, **kw).run(page, task)


@pytest.mark.parametrize("task_id", ["food-custom-7", "food-custom-12"])
async def test_oracle_agent_passes_the_judge(browser_pool, food_site, task_id, tmp_path):
    task = TASK[task_id]
    before = food_site.state()
    trace = TraceWriter(tmp_path / "t.jsonl", SessionEvent(site="food", task=task.task, source="agent"))
    with trace:
        result = await _run(browser_pool, food_site, oracle_model(task), task.task, trace=trace)
    after = food_site.state()
    verdict = task.evaluate(SimpleNamespace(value=result.answer), before, after, food_site.url)
    assert verdict.ok, verdict.reason
    assert result.done and result.model_calls == len(result.steps)
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    steps = read_trace(tmp_path / "t.jsonl").steps
    clicks = [s for s in steps if s.action == "click"]
    assert clicks and all(s.target is not None and s.target.selector and s.target.role for s in clicks)
    assert all(s.snapshot for s in clicks)
    if task.kind == "write":
        writes = [s for s in steps if s.effect == "WRITE"]
        assert any(r["method"] == "POST" for s in writes for r in s.requests)


async def test_a_malformed_answer_is_retried_once(browser_pool, food_site):
    model = TestModel(["not json", '{"action": "done", "answer": "ok"}'])
    result = await _run(browser_pool, food_site, model, "say ok")
    assert result.answer == "ok" and result.model_calls == 2 and result.steps[0].retried
    assert "That action is invalid" in model.calls[1][-1].content


async def test_two_malformed_answers_fail_clearly(browser_pool, food_site):
    model = TestModel(['{"action": "click", "index": 100000}', "still not json"])
    with pytest.raises(ModelResponseError, match="invalid twice"):
        await _run(browser_pool, food_site, model, "click something")


async def test_no_done_within_max_steps_fails(browser_pool, food_site):
    model = TestModel('{"action": "scroll"}', cycle=True)
    with pytest.raises(ModelResponseError, match="within 2 steps"):
        await _run(browser_pool, food_site, model, "scroll forever", max_steps=2)


def _add_mochi_policy() -> FunctionModel:
    """Open the Mochi Set, add it to the cart, done (answers by test id and name from the page)."""
    plan = [("menu-item", "Mochi Set"), ("add-to-cart-button", "Add to cart")]

    def fn(messages):
        if not plan:
            return json.dumps({"action": "done", "answer": "added"})
        testid, name = plan.pop(0)
        els = parse_elements(messages[-1].content)
        index = next(e["index"] for e in els if e["testid"] == testid and e["name"].startswith(name))
        return json.dumps({"action": "click", "index": index})

    return FunctionModel(fn)


async def test_a_rerun_never_submits_twice(browser_pool, food_site):
    """The same steps run again with the same effect log (a retry): the write is replayed, not sent."""
    log = EffectLog()
    async with browser_pool.page() as page:
        await page.goto(food_site.url + "/store/stonemill-matcha")
        first = await StepwiseAgent(_add_mochi_policy(), effects=log).run(page, "add a mochi set")
        assert [s.effect for s in first.steps[:2]] == ["READ", "WRITE"] and log.sent == 1
        log.begin_execution()
        await page.goto(food_site.url + "/store/stonemill-matcha")
        second = await StepwiseAgent(_add_mochi_policy(), effects=log).run(page, "add a mochi set")
    assert log.sent == 1, "the write was sent again"
    assert second.steps[1].replayed and second.writes == 0
    assert [line["quantity"] for line in food_site.state()["cart"]] == [1]


async def test_the_model_sees_the_page(browser_pool, food_site):
    seen: list[str] = []

    def fn(messages):
        seen.append(messages[-1].content)
        return json.dumps({"action": "done", "answer": "x"})

    await _run(browser_pool, food_site, FunctionModel(fn), "look")
    page = seen[0]
    assert "Task: look" in page and "URL: " + food_site.url in page
    assert any(e["testid"] == "store-card" and e["role"] == "link" for e in parse_elements(page))
    assert "Visible text:" in page


async def test_a_form_holding_an_input_named_id_keeps_real_selectors(page):
    """``form.id`` is that input there, not the form's id: selectors and descriptors read the attribute."""
    from agentjit.agent import observe

    await page.set_content('<form method="get"><input name="id"><input name="q" aria-label="Query"></form>')
    view = await observe(page)
    assert [e.name for e in view.elements] == ["", "Query"]
    for el in view.elements:
        assert await page.locator(el.selector).count() == 1, el.selector
        assert all(a["id"] is None for a in el.info["ancestors"])


def test_the_oracle_looks_again_while_its_target_is_not_rendered_yet():
    from agentjit.bench.oracle import MAX_LOOKS, OraclePolicy
    from agentjit.exceptions import ConfigError
    from agentjit.llm import Message
    from agentjit.protocol.trace import StepEvent

    editor = Element(0, "div.editor", "textbox", "query", "", "div")
    step = StepEvent(index=0, action="click", start=0.0, end=0.1, target={"selector": "div.editor", "role": "textbox"})

    def page(*elements: Element) -> list[Message]:
        return [Message(role="user", content="Current page:\n" + Observation("http://x/q", "q", list(elements), "").render())]

    oracle = OraclePolicy([step], answer="42")
    assert json.loads(oracle(page()))["action"] == "scroll"  # not rendered yet: look again
    assert json.loads(oracle(page(editor))) == {"action": "click", "index": 0}
    assert json.loads(oracle(page(editor))) == {"action": "done", "answer": "42"}
    stuck = OraclePolicy([step], answer="42")
    for _ in range(MAX_LOOKS):
        assert json.loads(stuck(page()))["action"] == "scroll"
    with pytest.raises(ConfigError, match="no element on http://x/q matches"):
        stuck(page())


def test_the_oracle_opens_the_steps_page_again_when_looking_does_not_help():
    """A page that stopped short (a single-page router left the old report after a click) never draws
    the target however long one looks: at RELOAD_AT the oracle opens the step's recorded page again."""
    from agentjit.bench.oracle import MAX_LOOKS, RELOAD_AT, OraclePolicy
    from agentjit.llm import Message
    from agentjit.protocol.trace import StepEvent

    step = StepEvent(index=0, action="click", start=0.0, end=0.1, url="http://x/ledger/balance_sheet/?time=2025",
                     target={"selector": "a.acct", "role": "link", "name": "Checking"})  # fmt: skip
    empty = [Message(role="user", content="Current page:\n" + Observation("http://x/ledger/balance_sheet/", "b", [], "").render())]
    oracle = OraclePolicy([step], answer="42")
    said = [json.loads(oracle(empty)) for _ in range(MAX_LOOKS)]
    gotos = [n + 1 for n, a in enumerate(said) if a["action"] == "goto"]
    assert gotos == list(RELOAD_AT) and all(1 < n <= MAX_LOOKS for n in gotos)
    assert {a["url"] for a in said if a["action"] == "goto"} == {"/ledger/balance_sheet/?time=2025"}
    assert {a["action"] for a in said} == {"scroll", "goto"}


async def test_the_oracle_finds_a_target_that_only_a_fresh_load_draws(browser_pool):
    """The first load of the page never draws the link (as a router that lost a response); opened
    again, it does: the run ends with the click and done instead of giving up."""
    from agentjit.bench.oracle import OraclePolicy, patient_model
    from agentjit.protocol.trace import StepEvent

    loads = []

    async def serve(route):
        loads.append(route.request.url)
        link = "<a id='acct' href='#done'>Checking</a>" if len(loads) > 1 else "<p>Income statement</p>"
        await route.fulfill(status=200, content_type="text/html", body=f"<title>b</title>{link}")

    step = StepEvent(index=0, action="click", start=0.0, end=0.1, url="http://aj.test/sheet",
                     target={"selector": "a#acct", "role": "link", "name": "Checking"})  # fmt: skip
    async with browser_pool.page() as page:
        await page.route("http://aj.test/**", serve)
        await page.goto("http://aj.test/sheet")
        agent = StepwiseAgent(patient_model(OraclePolicy([step], answer="42")), snapshots=False)
        result = await agent.run(page, "open the Checking account")
    assert result.answer == "42" and len(loads) == 2
    assert [s.action["action"] for s in result.steps][-3:] == ["goto", "click", "done"]


async def test_only_the_open_modal_dialog_is_offered(page):
    """Behind a modal dialog the page is inert: the agent sees (and the oracle finds) the dialog's fields."""
    from agentjit.agent import observe

    await page.set_content(
        "<a href='/x'>Behind</a><button inert>Inert</button>"
        "<dialog><form><input aria-label='Amount'><button>Save</button></form></dialog>"
    )
    assert [e.name for e in (await observe(page)).elements] == ["Behind"]
    await page.evaluate("() => document.querySelector('dialog').showModal()")
    assert [e.name for e in (await observe(page)).elements] == ["Amount", "Save"]


SCRIPT_FORM = """<form id="f"><input id="amount" aria-label="Amount"><button>Save</button></form>
<p id="out"></p><script>
f.onsubmit = (e) => { e.preventDefault();
  fetch('/api/entries', {method: 'PUT', body: amount.value}).then((r) => r.text()).then((t) => { out.textContent = t; }); };
</script>"""


async def _announced_writes(page: Any) -> list[bool]:
    from agentjit.agent import observe

    return [e.write or e.submits for e in (await observe(page)).elements if e.write or e.submits]


async def test_a_script_write_the_page_does_not_announce_goes_through_the_effect_log(page):
    """A form with no method whose Save sends a fetch PUT (Fava's add-entry dialog): claimed before it
    leaves, sent once; the same step run again under the same log is not sent again."""
    puts: list[str] = []

    async def site(route):
        if route.request.method == "PUT":
            puts.append(route.request.post_data or "")
            await route.fulfill(body="saved")
        else:
            await route.fulfill(body=SCRIPT_FORM, content_type="text/html")

    def policy():
        plan = [("Amount", {"action": "type", "text": "24.50 USD"}), ("Save", {"action": "click"})]

        def fn(messages):
            if not plan:
                return json.dumps({"action": "done", "answer": "saved"})
            name, action = plan.pop(0)
            index = next(e["index"] for e in parse_elements(messages[-1].content) if e["name"] == name)
            return json.dumps({**action, "index": index})

        return FunctionModel(fn)

    await page.route("**/*", site)
    log = EffectLog()
    results = []
    for _ in range(2):
        await page.goto("http://127.0.0.1:9/")
        assert not (await _announced_writes(page))  # the page says nothing of a write
        results.append(await StepwiseAgent(policy(), effects=log).run(page, "save 24.50 USD"))
        log.begin_execution()
    first, second = results
    assert [s.effect for s in first.steps[:2]] == ["READ", "WRITE"] and first.writes == 1
    assert second.steps[1].effect == "WRITE" and second.steps[1].replayed and second.writes == 0
    assert puts == ["24.50 USD"] and log.sent == 1 and log.replays == 1
    assert [r.status for r in log.records] == ["committed"]


def test_the_oracle_types_a_redacted_secret_from_its_script(tmp_path):
    from agentjit.bench.oracle import OraclePolicy, secrets_for
    from agentjit.protocol.trace import StepEvent, Target
    from agentjit.tasks.task import Task

    task = Task(id="login", app="demo", task="log in", kind="write", reference_plan=None)
    (tmp_path / "demo" / "tasks").mkdir(parents=True)
    script = {"name": "login", "steps": [{"action": "goto", "url": "/"},
                                         {"action": "fill", "target": {"selector": "#pw"}, "value": "s3cret"}]}  # fmt: skip
    (tmp_path / "demo" / "tasks" / "login.json").write_text(json.dumps(script))
    steps = [StepEvent(index=0, action="goto", value="/", url_after="http://h/", start=0, end=0),
             StepEvent(index=1, action="fill", value="<redacted>", target=Target(selector="#pw"), start=0, end=0)]  # fmt: skip
    secrets = secrets_for(task, steps, tmp_path)
    assert secrets == {1: "s3cret"}
    policy = OraclePolicy(steps, None, secrets)
    page = '[0] textbox "Password" (input) value="" sel=#pw'
    from agentjit.llm.base import Message

    answer = json.loads(policy([Message(role="user", content=f"Current page:\nURL: http://h/\n{page}")]))
    assert answer == {"action": "type", "index": 0, "text": "s3cret", "submit": False}


async def test_the_oracle_waits_for_a_target_a_script_draws_late(browser_pool):
    """A page that draws its link seconds after it loaded (Fava's account tree on a loaded machine):
    the oracle's looks pause longer and longer, so the run finds the link instead of giving up after
    eight quick looks (it did, in a CI run)."""
    from agentjit.bench.oracle import OraclePolicy, patient_model
    from agentjit.protocol.trace import StepEvent

    step = StepEvent(index=0, action="click", start=0.0, end=0.1, target={"selector": "a#late", "role": "link", "name": "Late"})
    async with browser_pool.page() as page:
        await page.set_content(
            "<p>loading</p><script>setTimeout(() => { const a = document.createElement('a');"
            " a.id = 'late'; a.href = '#done'; a.textContent = 'Late'; document.body.append(a); }, 4000)</script>"
        )
        agent = StepwiseAgent(patient_model(OraclePolicy([step], answer="42")), snapshots=False)
        result = await agent.run(page, "click the late link")
    assert result.answer == "42"
    assert [s.action["action"] for s in result.steps][-2:] == ["click", "done"]
