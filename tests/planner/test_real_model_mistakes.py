"""Mistakes Qwen2.5-Coder-1.5B made on the food tasks (2026-12-02) that the checker must refuse, with a message
that says what to write: each plan here is one of its answers, cut to the mistake."""

from __future__ import annotations

import pytest

from agentjit.planner import check
from agentjit.tasks.apps import get_app


@pytest.fixture(scope="module")
def food():  # type: ignore[no-untyped-def]
    return get_app("food").load_cache()


@pytest.mark.parametrize("call", ["sorted(stores)", "len(stores)", "list(stores)", "max(stores)", "enumerate(stores)"])
def test_a_builtin_over_a_record_is_refused(food, call: str) -> None:  # type: ignore[no-untyped-def]
    # `sorted(stores, key=...)` passed the checker; at run time it went over the record's field names (['items'])
    source = f'await goto_home()\nstores = await list_stores(category="Mexican")\nx = {call}\nresult = x\n'
    result = check(source, food)
    [d] = [d for d in result.diagnostics if d.code == "unknown-field"]
    assert not result.valid and d.line == 3
    assert "field names" in d.message and f"{call.split('(')[0]}(stores.items)" in d.message


def test_a_builtin_over_a_list_field_or_a_plain_value_passes(food) -> None:  # type: ignore[no-untyped-def]
    source = ('await goto_home()\nstores = await list_stores(category="Mexican")\nscores = {"a": 1}\n'
              'n = len(stores.items) + len(scores) + len(list(scores))\nresult = sorted(stores.items[:2] and [n])\n')
    result = check(source, food)
    assert result.valid, result.diagnostics


def test_a_lambda_is_refused_with_what_to_write_instead(food) -> None:  # type: ignore[no-untyped-def]
    source = 'await goto_home()\nstores = await list_stores()\nbest = max(stores.items, key=lambda s: s.rating)\nresult = best.name\n'
    [d] = check(source, food).diagnostics
    assert d.code == "forbidden" and "keep the best so far" in d.message and "sorted([(" in d.message
