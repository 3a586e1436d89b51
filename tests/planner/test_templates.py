"""Plan templates: slots from task and plan, typed by the tool inputs they flow into; near misses do not match."""

from __future__ import annotations

import ast
import copy

import pytest

from agentjit.cache import ToolCache
from agentjit.llm import FunctionModel, Message
from agentjit.planner import Planner, check, make_template
from agentjit.planner.prompts import plan_messages, solved_examples
from agentjit.tasks.apps import get_app


@pytest.fixture(scope="module")
def roundup() -> ToolCache:
    return get_app("roundup").load_cache()


@pytest.fixture(scope="module")
def food() -> ToolCache:
    return get_app("food").load_cache()


def fresh(cache: ToolCache) -> ToolCache:
    """A copy of a bench cache with an empty plan cache, never saved."""
    copied = copy.copy(cache)
    copied.plans = {}
    copied.path = None
    return copied


SET_STATUS = "Log in as alice (password demo-pass-1) and set the status of 'Allow renaming of projects' to testing."
SET_STATUS_PLAN = """\
await login(login_name="alice", login_password="demo-pass-1")
await goto_issue(title="Allow renaming of projects")
await edit_issue(status="testing")
result = "done"
"""
FIRST_N = "What are the first three restaurants listed on the homepage?"
FIRST_N_PLAN = """\
await goto_home()
stores = await list_stores(section="Best near you", limit=3)
names = [s.name for s in stores.items[:3]]
result = names
"""
MOST_EXPENSIVE = "What's the most expensive item from Petco?"
MOST_EXPENSIVE_PLAN = """\
await goto_store(name="Petco")
menu = await list_menu_items()
top = menu.items[0]
result = f"The top item at Petco is {top.name} (Petco, {{sic}})"
"""


def test_slots_come_from_the_task_and_the_plan_typed_by_the_inputs_they_flow_into(roundup: ToolCache) -> None:
    t = make_template(SET_STATUS, SET_STATUS_PLAN, roundup)
    assert t is not None
    assert t.masked == "Log in as {s0} (password {s1}) and set the status of '{s2}' to {s3}"
    name, password, title, status = t.slots
    assert (name.value, name.inputs, name.quoted) == ("alice", ("login.login_name",), False)
    assert password.value == "demo-pass-1"  # the 1 inside it is no slot of its own
    assert title.quoted and title.inputs == ("goto_issue.title",) and title.enum is None
    assert status.inputs == ("edit_issue.status",) and status.enum is not None and "deferred" in status.enum
    assert t.key == t.masked.lower()


def test_a_literal_variant_matches_and_fills_the_plan(roundup: ToolCache) -> None:
    t = make_template(SET_STATUS, SET_STATUS_PLAN, roundup)
    assert t is not None
    values = t.match("Log in as bob (password demo-pass-2) and set the status of 'Graph legend is cut off' to Deferred")
    assert values == {"s0": "bob", "s1": "demo-pass-2", "s2": "Graph legend is cut off", "s3": "deferred"}
    filled = t.instantiate(values)
    assert "edit_issue(status='deferred')" in filled and "goto_issue(title='Graph legend is cut off')" in filled
    assert 'result = "done"' in filled and check(filled, roundup).valid


NEAR_MISSES = [
    # another verb, another target, a word that changes the meaning
    "Log in as alice (password demo-pass-1) and clear the status of 'Allow renaming of projects' to testing.",
    "Log in as alice (password demo-pass-1) and set the priority of 'Allow renaming of projects' to testing.",
    "Log in as alice (password demo-pass-1) and do not set the status of 'Allow renaming of projects' to testing.",
    "Log in as alice (password demo-pass-1) and set the status of 'Allow renaming of projects' to testing, then log out.",
    # outside the enum: a priority is no status; two titles are not one
    "Log in as alice (password demo-pass-1) and set the status of 'Allow renaming of projects' to critical.",
    "Log in as alice (password demo-pass-1) and set the status of 'Allow renaming' and 'Graph legend' to testing.",
    # an unquoted name that is not a name
    "Log in as alice or bob (password demo-pass-1) and set the status of 'Allow renaming of projects' to testing.",
]


@pytest.mark.parametrize("near", NEAR_MISSES)
def test_tasks_that_only_look_alike_do_not_match(roundup: ToolCache, near: str) -> None:
    t = make_template(SET_STATUS, SET_STATUS_PLAN, roundup)
    assert t is not None and t.match(near) is None


def test_numbers_take_digits_or_number_words_and_nothing_else(food: ToolCache) -> None:
    t = make_template(FIRST_N, FIRST_N_PLAN, food)
    assert t is not None and [(s.kind, s.value) for s in t.slots] == [("int", 3)]
    assert t.slots[0].inputs == ("list_stores.limit",)
    assert t.match("What are the first five restaurants listed on the homepage?") == {"s0": 5}
    assert t.match("what are the first 7 restaurants listed on the homepage") == {"s0": 7}
    filled = t.instantiate({"s0": 5})
    assert "limit=5" in filled and "items[:5]" in filled and check(filled, food).valid
    for wrong in ("several", "2.5", "-3", "three or four", "many"):
        assert t.match(f"What are the first {wrong} restaurants listed on the homepage?") is None, wrong


def test_a_bare_word_the_plan_only_compares_with_is_no_slot(food: ToolCache) -> None:
    plan = 'await goto_home()\nstores = await list_stores(section="Best near you")\n' \
           'result = [s.name for s in stores.items if s.category == "Mexican"]\n'
    t = make_template("Which Mexican stores are in Best near you?", plan, food)
    assert t is not None and [s.value for s in t.slots] == ["Best near you"]  # not "Mexican"
    assert t.match("Which Italian stores are in Best near you?") is None


def test_the_value_is_replaced_in_strings_and_fstrings_too_escaped(food: ToolCache) -> None:
    t = make_template(MOST_EXPENSIVE, MOST_EXPENSIVE_PLAN, food)
    assert t is not None and t.masked == "What's the most expensive item from {s0}"
    slot = t.slots[0]
    assert len(slot.places) == 1 and len(slot.inner) == 1
    odd = "Bob's \"{x}\" \\ Shop"  # what a site's name could be: quotes, braces, a backslash
    filled = t.instantiate({"s0": odd})
    tree = ast.parse(filled)
    call = tree.body[0].value.value  # type: ignore[attr-defined]
    assert call.keywords[0].value.value == odd
    fstring = tree.body[-1].value  # type: ignore[attr-defined]
    pieces = "".join(v.value for v in fstring.values if isinstance(v, ast.Constant))
    assert pieces == f"The top item at {odd} is  ({odd}, {{sic}})"
    assert check(filled, food).valid
    # as a task, such a name is refused for an unquoted slot (a connective or punctuation in it)
    assert t.match("What's the most expensive item from Bob's Shop?") is None
    assert t.match("What's the most expensive item from Man vs Fries?") == {"s0": "Man vs Fries"}


def test_a_task_without_shared_values_has_no_template(roundup: ToolCache) -> None:
    assert make_template("How many issues are in progress?", 'await goto_issue_search()\nresult = 1\n', roundup) is None
    assert make_template("x", "this is not python (", roundup) is None


def _model(plans: dict[str, str]) -> FunctionModel:
    def answer(messages: list[Message]) -> str:
        task = messages[-1].content.split("TASK: ", 1)[1].split("\n", 1)[0]
        return "```python\n" + plans.get(task, plans["*"]) + "```"

    return FunctionModel(answer, name="fn")


async def test_the_planner_compiles_a_variant_from_the_template_with_no_model_call(roundup: ToolCache) -> None:
    cache = fresh(roundup)
    other_write = 'await goto_issue(title="Graph legend is cut off")\nawait edit_issue(priority="critical")\nresult = "other"\n'
    model = _model({SET_STATUS: SET_STATUS_PLAN, "*": other_write})
    planner = Planner(model, cache, n=1, k=1)
    first = await planner.compile(SET_STATUS)
    assert first.origin == "model" and len(model.calls) == 1
    variant = "Log in as carol (password demo-pass-3) and set the status of 'Spell checker flags URLs' to resolved."
    hit = await planner.compile(variant)
    assert hit.origin == "template" and len(model.calls) == 1
    assert hit.stats.answered == 0 and hit.usage.input_tokens == 0 and hit.template_task == SET_STATUS
    assert hit.slot_values == {"s0": "carol", "s1": "demo-pass-3", "s2": "Spell checker flags URLs", "s3": "resolved"}
    assert "edit_issue(status='resolved')" in hit.source and hit.cost is not None
    again = await planner.compile(variant)  # now an exact hit
    assert again.origin == "cache" and again.source == hit.source and len(model.calls) == 1
    for near in NEAR_MISSES:
        miss = await planner.compile(near)
        assert miss.origin == "model", near
    assert len(model.calls) == 1 + len(NEAR_MISSES)
    # another model's template is not used unless asked
    other = Planner(FunctionModel(lambda _m: "```python\n" + SET_STATUS_PLAN + "```", name="other"), cache, n=1, k=1)
    assert (await other.compile(variant.replace("carol", "dave"))).origin == "model"
    borrowing = Planner(FunctionModel(lambda _m: "", name="third"), cache, n=1, k=1, any_model=True)
    assert (await borrowing.compile(variant.replace("carol", "erin"))).origin == "template"


async def test_a_template_the_checker_rejects_with_the_new_values_goes_to_the_model(roundup: ToolCache) -> None:
    cache = fresh(roundup)
    model = _model({"*": SET_STATUS_PLAN})
    planner = Planner(model, cache, n=1, k=1)
    await planner.compile(SET_STATUS)
    [key] = [k for k in cache.plans if k.startswith("template:")]
    # a stored template edited to call a tool that is not there: rejected, and the task compiled afresh
    cache.plans[key]["source"] = SET_STATUS_PLAN.replace("edit_issue", "no_such_tool")
    planner = Planner(model, cache, n=1, k=1)
    plan = await planner.compile(SET_STATUS.replace("testing", "deferred"))
    assert plan.origin == "model" and len(model.calls) == 2


def test_the_nearest_solved_tasks_go_into_the_prompt(roundup: ToolCache) -> None:
    cache = fresh(roundup)
    planner = Planner(_model({"*": ""}), cache)
    from agentjit.planner import CompiledPlan

    solved = {
        "What are the status and the priority of the issue 'Calendar shows the wrong week'?":
            'await goto_issue(title="Calendar shows the wrong week")\nissue = await get_issue()\nresult = issue.status\n',
        "Search the tracker for 'login': which issues come up?":
            'await search_issues(search_text="login")\nfound = await list_issues()\nresult = len(found.items)\n',
        "Who is the issue 'Duplicate entries after import' assigned to?":
            'await goto_issue(title="Duplicate entries after import")\nissue = await get_issue()\nresult = issue.assigned_to\n',
    }
    for task, source in solved.items():
        planner.store(CompiledPlan(task=task, source=source, model="fn"))
    near = solved_examples(cache, "Who is the issue 'Spell checker flags URLs' assigned to and what is its status?", limit=2)
    assert [t for t, _ in near] == ["Who is the issue 'Duplicate entries after import' assigned to?",
                                    "What are the status and the priority of the issue 'Calendar shows the wrong week'?"]
    prompt = plan_messages("Search the tracker for 'export'", cache)[1].content
    assert prompt.index("Search the tracker for 'login'") < prompt.index("Who is the issue")
