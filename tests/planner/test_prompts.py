"""Stubs, prompts, code extraction and the sandbox's public pieces."""

from __future__ import annotations

import ast

from agentjit.planner import (
    SAFE_BUILTINS,
    SYSTEM_PROMPT,
    check,
    check_sandbox,
    extract_code,
    plan_messages,
    render_stubs,
    tool_stub,
)
from agentjit.planner.prompts import repair_messages

from .helpers import check_src, make_cache


def test_tool_stub_states_pre_post_effect_and_producers() -> None:
    cache = make_cache()
    stub = tool_stub(cache.tools["goto_store"])
    assert "class GotoStoreOutput(BaseModel):\n    slug: str\n    name: str" in stub
    assert "async def goto_store(name: str) -> GotoStoreOutput:" in stub
    assert 'pre:    page="home|category|search"' in stub
    assert 'post:   page="store", store="$slug"' in stub
    assert "effect: READ" in stub
    assert "(take it from the output of list_stores)" in stub
    write = tool_stub(cache.tools["add_to_cart"])
    assert "async def add_to_cart(item: str, quantity: int | None = None) -> AddToCartOutput:" in write
    assert "effect: WRITE" in write


def test_stubs_are_valid_python_with_nested_models() -> None:
    src = render_stubs(make_cache().tools.values())
    tree = ast.parse(src)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert classes.index("ListStoresItemsItem") < classes.index("ListStoresOutput")
    assert "async def ai_eval(question: str, **values: Any) -> Any:" in src


def test_plan_prompt_structure() -> None:
    msgs = plan_messages("Find the cheapest fries", make_cache(), now="2026-01-01 12:00")
    assert [m.role for m in msgs] == ["system", "user"]
    assert msgs[0].content == SYSTEM_PROMPT
    user = msgs[1].content
    assert user.startswith("Now is 2026-01-01 12:00.")
    assert 'STATE at the start (read-only): {"page": "home"}' in user
    assert user.index("async def goto_store") < user.index("TASK: Find the cheapest fries")


def test_system_prompt_examples_pass_the_sandbox() -> None:
    # the few-shot plans use made-up tools; everything else in them must be allowed
    blocks = [extract_code(part) for part in SYSTEM_PROMPT.split("Task:")[1:]]
    assert len(blocks) == 3
    for block in blocks:
        findings = check_sandbox(ast.parse(block), callables={"open_shop", "read_menu", "list_shops", "shop_info",
                                 "back_to_start", "put_in_basket", "go_to_payment", "confirm_payment", "ai_eval"})
        assert findings == []


def test_extract_code() -> None:
    assert extract_code("blah\n```python\nresult = 1\n```\nmore") == "result = 1\n"
    assert extract_code("```\nresult = 2\n```") == "result = 2\n"
    assert extract_code("```py\nx = 1\n```\n```python\nresult = 3\n```") == "x = 1\n"
    assert extract_code("result = 4") == "result = 4\n"
    assert extract_code("```python\nresult = 5\n") == "result = 5\n"  # unterminated fence


def test_safe_builtins_are_small_and_harmless() -> None:
    for name in ("exec", "eval", "open", "getattr", "__import__", "type", "compile", "globals"):
        assert name not in SAFE_BUILTINS
    assert SAFE_BUILTINS["len"] is len and SAFE_BUILTINS["ValueError"] is ValueError


def test_checker_checks_a_long_plan_and_reports_its_time() -> None:
    # how fast: `python -m agentjit.planner.bench_checker` (wall and CPU medians), not a timed test
    src = "await goto_home()\nstores = await list_stores()\n" + "x = [s.name for s in stores.items if s.rating]\n" * 37 + "result = x\n"
    cache = make_cache()
    result = check(src, cache)
    assert result.valid, result.diagnostics
    assert len(result.calls) == 2 and result.time_s > 0


def test_the_examples_tools_are_marked_as_not_this_sites() -> None:
    from agentjit.planner.prompts import EXAMPLE_TOOLS

    head = SYSTEM_PROMPT[SYSTEM_PROMPT.index("Examples"):SYSTEM_PROMPT.index("Task:")]
    assert "NOT tools of the site" in head
    assert all(name in head for name in EXAMPLE_TOOLS)
    # the finding: a model copied open_shop from the examples; the checker now says where it came from
    result = check_src('await open_shop(name="Luigi")\nresult = await list_store()\n')
    assert result.codes() == ["unknown-tool", "unknown-tool"]
    assert "made-up tool of the prompt's examples" in result.diagnostics[0].message
    assert "did you mean list_stores()" in result.diagnostics[1].message


def test_solved_tasks_of_the_site_are_the_examples() -> None:
    from agentjit.planner import plan_key

    cache = make_cache()
    good = "await goto_home()\nstores = await list_stores()\nresult = [s.name for s in stores.items]\n"
    cache.plans[plan_key("names of the stores", cache, "m")] = {"task": "names of the stores", "source": good}
    cache.plans[plan_key("broken", cache, "m")] = {"task": "broken", "source": "result = await open_shop()\n"}
    cache.plans["other-fingerprint:m:old tools"] = {"task": "old tools", "source": "result = 1\n"}
    user = plan_messages("cheapest fries", cache)[1].content
    assert "Plans that solved other tasks on THIS site" in user
    assert "Task: names of the stores\n```python\n" + good + "```" in user
    assert "broken" not in user and "old tools" not in user
    assert "Plans that solved" not in plan_messages("names of the stores", cache)[1].content  # not its own task


def test_a_repeated_plan_is_called_out() -> None:
    from agentjit.plan.diagnostics import UnknownField

    msgs = plan_messages("t", make_cache())
    diag = [UnknownField(1, 1, "x")]
    once = repair_messages(msgs, "result = 1\n", diag)
    assert "same plan" not in once[-1].content
    twice = repair_messages(once, "result = 1\n", diag)
    assert twice[-1].content.startswith("This is the same plan as your last answer")
