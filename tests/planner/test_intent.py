"""A plan for a task that asks for a change must make one (issue 19: valid plans that wrote nothing).

A small real model, asked to set an issue's status, wrote plans that logged in and returned; the
checker passed them and the tracker stayed as it was. The planner now reads the task too.
"""

from __future__ import annotations

import pytest

from agentjit.llm import FunctionModel, Message
from agentjit.planner import NoValidPlan, Planner, check
from agentjit.planner.cost import CallSite
from agentjit.planner.intent import asked_changes, is_sign_in, missing_write
from agentjit.protocol import Effect, ToolManifest

from .helpers import make_cache
from .test_planner import fenced

WRITE_TASK = "Open Pizza Palace and add a Margherita to my cart."
READ_ONLY = 'await goto_store(name="Pizza Palace")\nresult = await get_store_details()\n'
WRITES = 'await goto_store(name="Pizza Palace")\nawait add_to_cart(item="Margherita")\nresult = "added"\n'


@pytest.mark.parametrize(
    ("task", "verbs"),
    [
        ("Log in as alice (password demo-pass-1) and set the status of 'Allow renaming' to testing.", ["set"]),
        ("Buy a taco from any store and make sure you place the order.", ["buy"]),
        ("Move the ticket 'Add an index' to milestone 1.0 and raise its priority to critical.", ["move", "raise"]),
        ("On the wiki page OnCall, add 'April: carol' to the rota.", ["add"]),
        ("Please cancel my order 'Lunch'.", ["cancel"]),
        ("Check out the cart with delivery to 1 Main St.", ["check out"]),
        ("First log in as bob; then delete the book 'Counting with Bears'.", ["delete"]),
        # reads, some with a change verb elsewhere than at the head of an order
        ("What are the status and the priority of the issue 'Set up CI'?", []),
        ("Log in as admin (password p). How many poetry books are in stock?", []),
        ("Search the tracker for 'delete': which issues come up?", []),
        ("Add up the prices of the three cheapest pizzas.", []),
        ("Order the results by price and tell me the cheapest.", []),
        ("Return the list of open tickets.", []),
        ("Check whether the store 'Order Up' delivers.", []),
        ("Tell me who placed the last order, and report how many items it had.", []),
        ("Which orders were cancelled last week?", []),
        ("List the titles of the deferred issues, sorted by title.", []),
    ],
)
def test_the_orders_of_a_task_that_change_a_site(task: str, verbs: list[str]) -> None:
    assert asked_changes(task) == verbs


def test_a_plan_that_writes_nothing_for_a_change_gets_a_finding_naming_the_writers() -> None:
    cache = make_cache()
    result = check(READ_ONLY, cache)
    assert result.valid  # the checker alone is content
    finding = missing_write(WRITE_TASK, result.calls, cache.tools)
    assert finding is not None and finding.code == "no-write"
    assert "asks to add" in finding.message and "add_to_cart()" in finding.message
    assert missing_write("How much is a Margherita at Pizza Palace?", result.calls, cache.tools) is None
    assert missing_write(WRITE_TASK, check(WRITES, cache).calls, cache.tools) is None
    # ai_exec may act on the page: it is not judged here
    stepwise = 'result = await ai_exec("add a Margherita to the cart")\n'
    assert missing_write(WRITE_TASK, check(stepwise, cache).calls, cache.tools) is None
    # a cache with no tool that writes: nothing to ask for
    readers = {n: t for n, t in cache.tools.items() if t.effect.value != "WRITE"}
    assert missing_write(WRITE_TASK, result.calls, readers) is None


def test_signing_in_is_no_change_of_the_site() -> None:
    cache = make_cache()
    secret = {"type": "string", "minLength": 1, "writeOnly": True}
    login = ToolManifest(name="login", description="Log in with the site's login form.", type="setFields", execute="return {};",
                         effect="WRITE", input_schema={"type": "object", "properties": {"user": {"type": "string"},
                                                                                      "password": secret}})
    change = login.model_copy(update={"name": "change_password", "description": "Change the account's password."})
    assert is_sign_in(login) and not is_sign_in(change)
    assert not any(is_sign_in(t) for t in cache.tools.values())
    tools = {**cache.tools, "login": login}
    calls = [CallSite("login", 1, 1, 0, effect=Effect.WRITE)]
    finding = missing_write("Log in as bob (password p) and add a Margherita to my cart.", calls, tools)
    assert finding is not None and "login()" not in finding.message and "add_to_cart()" in finding.message


async def test_the_planner_repairs_a_plan_that_changes_nothing() -> None:
    def answer(messages: list[Message]) -> str:
        return fenced(READ_ONLY if len(messages) == 2 else WRITES)

    model = FunctionModel(answer)
    plan = await Planner(model, make_cache(), n=1, k=1, max_repairs=2).compile(WRITE_TASK, use_cache=False)
    assert plan.source == WRITES
    assert [(c.attempt, c.valid) for c in plan.candidates] == [(0, False), (1, True)]
    assert plan.candidates[0].diagnostics[0]["code"] == "no-write"
    assert plan.stats.rejected_by_code == {"no-write": 1}
    assert "tools that write" in model.calls[1][-1].content and "add_to_cart()" in model.calls[1][-1].content


async def test_a_model_that_never_writes_is_no_valid_plan_not_a_false_success() -> None:
    model = FunctionModel(lambda messages: fenced(READ_ONLY))
    with pytest.raises(NoValidPlan, match="no-write"):
        await Planner(model, make_cache(), n=1, k=1, max_repairs=1).compile(WRITE_TASK, use_cache=False)


async def test_a_read_task_is_not_asked_to_write() -> None:
    model = FunctionModel(lambda messages: fenced(READ_ONLY))
    plan = await Planner(model, make_cache(), n=1, k=1).compile("Open Pizza Palace and give its rating.", use_cache=False)
    assert plan.source == READ_ONLY and len(model.calls) == 1
