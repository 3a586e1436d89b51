"""``ai_exec`` in plans: allowed by the sandbox, priced like ai_eval, and the state after it is UNKNOWN."""

from __future__ import annotations

import pytest

from agentjit.planner import PLAN_BUILTINS
from agentjit.planner.cost import CostModel

from .helpers import assert_codes


def test_ai_exec_is_a_plan_builtin_priced_like_ai_eval():
    assert "ai_exec" in PLAN_BUILTINS
    result = assert_codes(
        """
        stores = await list_stores()
        answer = await ai_exec("open the cart and tell me its total")
        result = answer
        """
    )
    [call] = [c for c in result.calls if c.tool == "ai_exec"]
    assert call.kind == "ai_eval"
    eval_only = assert_codes('result = await ai_eval("2+2?")')
    exec_only = assert_codes('result = await ai_exec("say 4")')
    assert exec_only.cost == pytest.approx(eval_only.cost) == pytest.approx(CostModel().c_eval)


def test_the_state_after_ai_exec_is_unknown():
    result = assert_codes(
        """
        await ai_exec("go somewhere useful")
        stores = await list_stores()
        result = stores
        """,
        "precondition",
        lines=[3],
    )
    assert "UNKNOWN" in str(result.diagnostics[0]) or "may be" in str(result.diagnostics[0])


def test_ai_exec_takes_one_string():
    assert_codes('result = await ai_exec(3)', "argument-type")
    assert_codes("result = await ai_exec()", "missing-argument")
