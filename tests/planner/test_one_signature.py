"""One signature, two users: what the checker passes binds at run time, and both say the same thing when not.

And the types the checker follows are the guard's: what the guard would refuse (an attribute of a field
name got by looping over a record, of a str, of a list) is a static finding that says what to write.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentjit.bench.food import FoodSite
from agentjit.cache import ToolCache
from agentjit.exceptions import PlanError, SandboxViolation, ToolInputError
from agentjit.plan.limits import PlanLimits
from agentjit.plan.signatures import PLAN_FUNCTIONS, bind_call
from agentjit.planner import check
from agentjit.runtime import BrowserPool, run_plan
from agentjit.runtime.interpreter import PlanRun, execute_plan

CALLS = [
    'ai_eval("Which?", ["a", "b"])',
    'ai_eval("Which of {names}?", names=["a", "b"])',
    'ai_eval(question="Which?")',
    'ai_eval("Which?", question="twice")',
    "ai_eval()",
    'ask_human("Which?")',
    'ask_human("Which?", "extra")',
    'ask_human(question="Which?")',
    'ask_human(prompt="Which?")',
    'ai_exec("open the cart")',
    'ai_exec("open the cart", page=1)',
    "ai_exec()",
]


async def _answer(*args: Any, **kwargs: Any) -> str:
    return "a"


async def _agent(page: Any, instruction: str) -> str:
    return "done"


def _bind(call: str) -> str | None:
    """The runtime's verdict on ``call``: None when it binds, else its message."""
    name = call.split("(", 1)[0]
    args, kwargs = eval("(lambda *a, **k: (a, k))" + call[len(name):])  # literal arguments only
    try:
        bind_call(name, args, kwargs)
    except ToolInputError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("call", CALLS)
def test_checker_and_runtime_agree_on_every_call(call: str, cache: ToolCache) -> None:
    result = check(f"result = await {call}\n", cache)
    runtime = _bind(call)
    assert result.valid is (runtime is None), (call, [str(d) for d in result.diagnostics], runtime)
    if runtime is not None:
        assert [d.message for d in result.diagnostics] == [runtime]  # the same words on both sides
        assert "<locals>" not in runtime and "_Child" not in runtime


def test_the_stubs_come_from_the_same_table() -> None:
    from agentjit.planner.stubs import builtins_stub

    stub = builtins_stub()
    for name in ("ai_eval", "ask_human"):
        sig = PLAN_FUNCTIONS[name]
        assert f"async def {name}({', '.join(f'{p}: str' for p in sig.params)}" in stub


@pytest.mark.parametrize("isolate", [True, False], ids=["child", "in-process"])
async def test_a_second_positional_argument_fails_without_internal_names(isolate: bool) -> None:
    """The finding: ``ai_eval("Which?", ["a", "b"])`` passed the checker and failed with
    ``_Child.callables.<locals>.ai_eval() takes 1 positional argument``."""
    run = PlanRun({}, None, ai_eval=_answer, ai_exec=_agent, limits=PlanLimits(isolate=isolate))
    with pytest.raises(ToolInputError) as err:
        await execute_plan('result = await ai_eval("Which?", ["a", "b"])\n', run)
    assert "<locals>" not in str(err.value) and "names=" in str(err.value)
    # what binds, runs: a value named like the parameter of the function that serves it included
    assert await execute_plan('result = await ai_eval("Which {prompt}?", prompt=["a"])\n', run) == "a"
    assert await execute_plan('result = await ai_exec(instruction="go")\n', run) == "done"


def test_looping_over_a_tool_output_is_a_static_finding(food_cache: ToolCache) -> None:
    """The finding: ``[s.name for s in await list_stores(limit=3)]`` passed the checker; the guard then
    refused ``attribute 'name' of a str``. The message names the list field to loop over, and the output's shape."""
    result = check("await goto_home()\nresult = [s.name for s in await list_stores(limit=3)]\n", food_cache)
    assert result.codes() == ["unknown-field"]
    message = result.diagnostics[0].message
    assert "for s in (await list_stores(limit=3)).items" in message
    assert "{items: list of {name: str" in message


#: calls the guard refuses because what is called is a value, not a function (``calling 'list' is not allowed``),
#: with what the checker says instead
CALLS_OF_VALUES = [
    ("stores = await list_stores()\nresult = len([s for s in stores.items() if s.rating])\n",
     "the field hides the record's method items(): read it without parentheses, `stores.items`"),
    ("stores = await list_stores()\nresult = stores.items[0].name()\n", "is a field of an item of"),
    ("stores = await list_stores()\nlist = [s.name for s in stores.items]\nresult = list(list)\n",
     "`list` is assigned on line 3, so `list(...)` calls that value"),
    ("list_stores = [\"Petco\"]\nresult = await list_stores()\n", "not the tool list_stores()"),
    ("stores = await list_stores()\nresult = sorted([s.name for s in stores.items], key=str.lower)\n",
     "str is a function, and a plan cannot read its attributes"),
    ("stores = await list_stores()\nresult = sorted(stores.items, key=stores.items[0].name)\n",
     "key= is called on each item"),
]
#: calls of builtins and methods that fail on every value of their arguments' types, with what the checker says
TYPE_ERRORS = [
    ("stores = await list_stores()\nresult = ', '.join(stores.items)\n", "expected str instance, Record found"),
    ("stores = await list_stores()\nresult = round(stores.items[0].rating, '1')\n", "round() fails on values"),
    ("stores = await list_stores()\nresult = stores.items[0].name.replace(7, '')\n", "str.replace() fails on values"),
    ("stores = await list_stores()\nnames = [s.name for s in stores.items]\nresult = names.index(7)\n",
     "never holds 7"),
    ("stores = await list_stores()\nresult = [n for n, r in stores.items]\n", "which do not unpack into values"),
    ("stores = await list_stores()\nfor n, r in stores.items:\n    print(n)\n", "write `for n in stores.items:`"),
]


@pytest.mark.parametrize(
    ("plan", "says"),
    [
        ("stores = await list_stores()\nfor s in stores:\n    print(s.name)\n", "for s in stores.items"),
        ("stores = await list_stores()\nresult = stores[0].name\n", "stores.items[...]"),
        ("stores = await list_stores()\nresult = stores.items.name\n", "stores.items[0].name"),
        ("stores = await list_stores()\nresult = stores.name\n", "loop over `stores.items`"),
        ("stores = await list_stores()\nresult = stores.items[0].name.lowr()\n", "cannot read 'lowr'"),
        ("stores = await list_stores()\nnames = [s.name for s in stores.items]\nresult = names[0].nme\n", "is a str"),
        ("stores = await list_stores()\nfirst = stores.get('items')[0]\nresult = first.nam\n", "has no field 'nam'"),
        ("stores = await list_stores()\nbest = stores.items[0]\nresult = best.rating.real\n", "cannot read 'real'"),
        ("seen = {}\nresult = seen.count\n", 'seen["count"]'),
        ("result = await list_stores(limit=3).items\n", "write `(await list_stores(limit=3)).items`"),
        *CALLS_OF_VALUES,
        *TYPE_ERRORS,
    ],
    ids=["for-record", "index-record", "field-of-list", "record-field", "str-method", "comprehension", "get",
         "number", "dict", "await-attribute", "call-a-list-field", "call-a-str-field", "shadowed-builtin",
         "shadowed-tool", "attribute-of-a-function", "key-a-value", "join-records", "round-str", "replace-int",
         "index-never", "unpack-records-comprehension", "unpack-records-for"],
)
def test_what_the_guard_refuses_is_found_and_explained(plan: str, says: str, food_cache: ToolCache) -> None:
    result = check("await goto_home()\n" + plan + ("result = 1\n" if "result" not in plan else ""), food_cache)
    assert not result.valid
    assert len(result.diagnostics) == 1, [str(d) for d in result.diagnostics]
    assert says in result.diagnostics[0].message, result.diagnostics[0].message


def test_what_it_cannot_type_it_says_so(food_cache: ToolCache) -> None:
    result = check('answer = await ai_eval("Which?")\nresult = answer.strip()\n', food_cache)
    assert result.valid
    assert result.notes == ["line 2: the type of `answer` is not known here, so `.strip` is checked only when the plan runs"]


@pytest.mark.browser
async def test_the_guard_refuses_every_call_of_a_value_the_checker_refuses(
    browser_pool: BrowserPool, food_site: FoodSite, food_cache: ToolCache
) -> None:
    """The finding: a food-v1-3 plan passed the checker and failed with "calling 'list' is not allowed": it called
    a value (a record's field, the field ``items`` hiding the record's method; a builtin's name the plan assigned).
    Each such plan is refused by both, on the food site's real tools."""
    for plan, _ in CALLS_OF_VALUES:
        source = "await goto_home()\n" + plan
        assert not check(source, food_cache).valid, plan
        async with browser_pool.page() as page:
            with pytest.raises(SandboxViolation, match="is not allowed in a plan"):
                await run_plan(source, food_cache, page=page, base_url=food_site.url, timeout_ms=5000)
    for plan, _ in TYPE_ERRORS:  # and the calls the checker finds failing on their arguments' types do fail
        source = "await goto_home()\n" + plan
        assert not check(source, food_cache).valid, plan
        async with browser_pool.page() as page:
            with pytest.raises(PlanError, match="TypeError|ValueError"):
                await run_plan(source, food_cache, page=page, base_url=food_site.url, timeout_ms=5000)


#: calls of safe builtins and of methods of values whose type is known, some of which do not bind
BUILTIN_CALLS = [
    "len([1], [2])", "len()", "sorted([2, 1], reversed=True)", "sorted([2, 1], reverse=True)", "round(2.5, digits=1)",
    "round(2.5, 1)", "min([1, 2], defalt=0)", "max([1, 2], default=0)", "isinstance(1)", "set([1], [2])",
    "list(range(stop=3))", "list(range(1, 5, 2))", "str(1, foo=1)", "int('10', base=2)", "'a b'.split(' ', 1, 2)",
    "'a b'.split(maxsplit=1)", "'abc'.startswith()", "'abc'.count('a', 0, 2)", "{}.get()", "{}.get('a', 1)",
    "'x'.join(['a'], ['b'])", "sum([1], start=2)", "list(enumerate(['a'], start=1))",
]


async def _checked_and_run(source: str, cache: ToolCache) -> tuple[Any, str | None]:
    """The checker's result on ``source`` and the run's error (None when it ran), asserting they agree."""
    result = check(source, cache)
    try:
        await execute_plan(source, PlanRun({}, None, limits=PlanLimits(isolate=False)))
        runtime = None
    except PlanError as exc:
        runtime = str(exc)
    assert result.valid is (runtime is None), (source, [str(d) for d in result.diagnostics], runtime)
    return result, runtime


@pytest.mark.parametrize("call", BUILTIN_CALLS)
async def test_builtin_and_method_calls_bind_alike(call: str, cache: ToolCache) -> None:
    """What the checker passes binds at run time; what it refuses, the guard refuses in the same words (the
    signatures are one table: :func:`~agentjit.plan.signatures.arity_error`), without an internal name."""
    result, runtime = await _checked_and_run(f"result = {call}\n", cache)
    if runtime is not None:
        [finding] = result.diagnostics
        assert finding.message in runtime and "Guard" not in runtime, (finding.message, runtime)


@pytest.mark.parametrize("value", ["range(3)", "{'a': 1}.keys()", "(x for x in [1])", "enumerate([1])",
                                   "zip([1], [2])", "reversed([1])", "sorted([2, 1])", "list(zip([1], [2]))"])
async def test_a_result_that_cannot_leave_the_plan_is_a_finding(value: str, cache: ToolCache) -> None:
    """A lazy value or a dict's view in ``result`` passed the checker and was refused after the run."""
    result, runtime = await _checked_and_run(f"result = {value}\n", cache)
    if runtime is not None:
        assert "cannot leave the plan" in runtime and "write `result = list(" in result.diagnostics[0].message
