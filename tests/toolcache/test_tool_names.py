"""A built tool's name is one a plan can call: never a Python keyword, a builtin a plan uses, or a
name the plan sandbox refuses (a pager's "Next" link made ``next``, which no plan could call)."""

from __future__ import annotations

from agentjit.plan.sandbox import FORBIDDEN_NAMES
from toolcache.codegen.base import _Namer


def test_names_a_plan_cannot_call_get_a_prefix() -> None:
    namer = _Namer()
    assert [namer(n) for n in ("next", "sorted", "class", "open", "next_page", "next")] == [
        "do_next", "do_sorted", "do_class", "do_open", "next_page", "do_next_2"]
    assert "next" in FORBIDDEN_NAMES  # what made the rule: the sandbox refuses `next` in a plan

