"""The CFG builder: blocks, edges, loop depth, comprehension loops, finally on two paths."""

from __future__ import annotations

import ast
import textwrap

from agentjit.planner import build_cfg, call_sites
from agentjit.planner.cfg import CallEvent

from .helpers import make_cache

TOOLS = make_cache().tools
CALLABLES = set(TOOLS) | {"ai_eval", "ask_human"}


def cfg_of(src: str):  # type: ignore[no-untyped-def]
    return build_cfg(ast.parse(textwrap.dedent(src)), callables=CALLABLES, named_trips={"first": 5})


def test_for_loop_has_header_body_back_edge_and_exit() -> None:
    cfg = cfg_of(
        """
        stores = await list_stores()
        for s in first:
            await goto_store(name=s.name)
        result = 1
        """
    )
    header = next(b for b in cfg.blocks if b.label.startswith("at the top of the for loop"))
    body = next(b for b in cfg.blocks if b.label.startswith("in the body of the loop"))
    after = next(b for b in cfg.blocks if b.label.startswith("after the for loop"))
    assert body in header.succs and after in header.succs
    assert header in body.succs and body.id in header.back_preds
    assert (header.loop_depth, body.loop_depth, after.loop_depth) == (0, 1, 0)
    call = body.calls()[0]
    assert isinstance(call, CallEvent) and call.name == "goto_store" and call.trips == (5,) and call.awaited


def test_comprehension_is_a_nested_loop() -> None:
    cfg = cfg_of("x = [await ai_eval('q {a}', a=a) for s in first for a in s.items]\n")
    (call,) = cfg.calls()
    assert call.comp_depth == 1 and call.trips == (5, None)
    depths = {b.loop_depth for b in cfg.blocks}
    assert depths == {0, 1, 2}


def test_finally_is_modelled_on_the_normal_and_the_exception_path_but_costed_once() -> None:
    src = """
    try:
        await goto_store(name="a")
    finally:
        await goto_home()
    result = 1
    """
    cfg = cfg_of(src)
    assert [c.name for c in cfg.calls()].count("goto_home") == 2
    exc_copy = next(b for b in cfg.blocks if "after an exception" in b.label)
    assert exc_copy.succs == [] and exc_copy.exc_preds
    sites = call_sites(cfg, TOOLS)
    assert [s.tool for s in sites] == ["goto_store", "goto_home"]


def test_break_and_continue_edges() -> None:
    cfg = cfg_of(
        """
        for s in first:
            if s:
                continue
            break
        result = 1
        """
    )
    header = next(b for b in cfg.blocks if b.label.startswith("at the top of the for loop"))
    after = next(b for b in cfg.blocks if b.label.startswith("after the for loop"))
    branch = next(b for b in cfg.blocks if b.label.startswith("in the if branch"))
    assert header in branch.succs and branch.id in header.back_preds
    assert len(after.preds) == 2  # the loop exit and the break
