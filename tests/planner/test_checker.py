"""The plan checker: every diagnostic code at the right line, and the CFG state-flow examples."""

from __future__ import annotations

from agentjit.cache import ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.planner import ALL_CODES, PreconditionNotMet, render

from .helpers import assert_codes, check_src, food_tools


def test_valid_plan_has_no_diagnostics_and_a_cost() -> None:
    r = assert_codes(
        """
        stores = await list_stores()
        await goto_store(name=stores.items[0].name)
        d = await get_store_details()
        result = f"{d.name}: {d.rating}"
        """
    )
    assert r.cost is not None and abs(r.cost - 0.3) < 1e-9
    assert [c.tool for c in r.calls] == ["list_stores", "goto_store", "get_store_details"]


# -- one test per code, with its line ---------------------------------------------------------


def test_syntax() -> None:
    r = assert_codes("x = (1,\nresult = x\n", "syntax")
    assert r.diagnostics[0].line == 1


def test_forbidden_import_dunder_exec() -> None:
    assert_codes(
        """
        import os
        x = await list_stores()
        y = x.__class__
        z = exec("print(1)")
        w = eval("1")
        result = "{0.__class__}".format(x)
        """,
        "forbidden", "forbidden", "forbidden", "forbidden", "forbidden",
        lines=[2, 4, 5, 6, 7],
    )  # fmt: skip


def test_forbidden_nodes_outside_the_allow_list() -> None:
    assert_codes(
        """
        def helper():
            return 1
        f = lambda: 2
        with x:
            pass
        result: int = 3
        del result
        """,
        "forbidden", "forbidden", "forbidden", "forbidden", "forbidden", "no-result",
        lines=[2, 4, 5, 7, 8, 8],
    )  # fmt: skip


def test_forbidden_frame_walk_and_except_names() -> None:
    assert_codes(
        """
        c = list_stores
        g = c.cr_frame
        try:
            pass
        except OSError:
            pass
        result = g["__builtins__"]
        """,
        "forbidden", "forbidden", "forbidden",
        lines=[3, 6, 8],
    )  # fmt: skip


def test_unknown_name_never_assigned() -> None:
    r = assert_codes("stores = await list_stores()\nresult = len(storse.items)\n", "unknown-name", lines=[2])
    assert "'storse' is not defined" in r.diagnostics[0].message


def test_unknown_name_on_some_path() -> None:
    r = assert_codes(
        """
        stores = await list_stores()
        if stores.count:
            best = stores.items[0]
        result = best.name
        """,
        "unknown-name",
        lines=[5],
    )
    assert "may be unassigned" in r.diagnostics[0].message


def test_names_assigned_on_every_path_are_known() -> None:
    assert_codes(
        """
        stores = await list_stores()
        if stores.count:
            best = stores.items[0].name
        else:
            best = None
        try:
            await goto_store(name="x")
            n = 1
        except ToolError as e:
            n = str(e)
        result = [best, n]
        """
    )


def test_unknown_tool() -> None:
    r = assert_codes("await goto_store(name='a')\nresult = await get_menu()\n", "unknown-tool", lines=[2])
    assert "get_menu" in r.diagnostics[0].message


def test_missing_and_unexpected_argument() -> None:
    assert_codes(
        """
        await goto_store()
        await goto_home()
        await goto_store("a", "b")
        await goto_home()
        await goto_store(name="a", slug="b")
        result = 1
        """,
        "missing-argument", "unexpected-argument", "unexpected-argument",
        lines=[2, 4, 6],
    )  # fmt: skip


def test_argument_type_of_literals() -> None:
    r = assert_codes(
        """
        await goto_store(name=42)
        await add_to_cart(item="Fries", quantity=0)
        await add_to_cart(item="Fries", quantity="two")
        await add_to_cart(item="Fries", quantity=2)
        result = 1
        """,
        "argument-type", "argument-type", "argument-type",
        lines=[2, 3, 4],
    )  # fmt: skip
    assert "is less than the minimum of 1" in r.diagnostics[1].message


def test_unknown_field_follows_items_index_and_loops() -> None:
    assert_codes(
        """
        stores = await list_stores()
        a = stores.itmes
        b = stores.items[0].nmae
        for s in stores.items[:3]:
            c = s.title
        names = [t.label for t in stores.items]
        for i, s2 in enumerate(stores.items):
            d = s2.slug
        e = stores.items.name
        f = stores["cnt"]
        result = [s.name for s in stores.items]
        """,
        "unknown-field", "unknown-field", "unknown-field", "unknown-field", "unknown-field", "unknown-field",
        lines=[3, 4, 6, 7, 10, 11],
    )  # fmt: skip


def test_effect_not_awaited_and_write_in_comprehension() -> None:
    assert_codes(
        """
        await goto_store(name="a")
        menu = list_menu_items()
        m = await list_menu_items()
        added = [await add_to_cart(item=i.name) for i in m.items]
        result = menu
        """,
        "effect", "effect",
        lines=[3, 5],
    )  # fmt: skip


def test_write_in_a_for_loop_is_fine() -> None:
    assert_codes(
        """
        await goto_store(name="a")
        m = await list_menu_items()
        for i in m.items[:2]:
            await add_to_cart(item=i.name, quantity=1)
        result = 1
        """
    )


def test_precondition_straight_line_names_the_call() -> None:
    r = assert_codes(
        """
        stores = await list_stores()
        d = await get_store_details()
        result = d
        """,
        "precondition",
        lines=[3],
    )
    assert r.diagnostics[0].message == ("get_store_details() needs page='store', but in the initial state, 'page' is "
                                         "'home'; call goto_store() first: it gives page='store'")


def test_precondition_names_the_tools_that_lead_there_and_none_when_no_tool_does() -> None:
    # goto_checkout gives page='checkout' but needs a cart first: still named, as the way there
    r = assert_codes("await goto_home()\nresult = await place_order()\n", "precondition", lines=[2])
    assert r.diagnostics[0].message.endswith("; call goto_checkout() first: it gives page='checkout'")
    # from the search page, only goto_home gives page='home' (search and browse_category give other pages)
    r = assert_codes("await search(query='x')\nresult = await list_stores()\n", "precondition", lines=[2])
    assert r.diagnostics[0].message.endswith("'page' is 'search'; call goto_home() first: it gives page='home'")
    # no tool of the cache gives what place_order needs: no advice is made up
    tools = [t for t in food_tools() if t.name != "goto_checkout"]
    cache = ToolCache(CacheInfo(app="food-test", initial_state={"page": "home"}), tools)
    r = assert_codes("result = await place_order()\n", "precondition", lines=[1], cache=cache)
    assert "call " not in r.diagnostics[0].message and r.diagnostics[0].message.endswith("'page' is 'home'")


def test_every_code_is_covered() -> None:
    # the tests above produce every code the checker has
    assert set(ALL_CODES) == {
        "syntax", "forbidden", "unknown-name", "unknown-tool", "missing-argument", "unexpected-argument",
        "argument-type", "unknown-field", "effect", "precondition", "too-complex", "no-result",
    }  # fmt: skip


# -- the four CFG examples of issue 3 -----------------------------------------------------------


def test_call_after_an_if_whose_branch_navigates_away_is_rejected() -> None:
    r = assert_codes(
        """
        await goto_store(name="Pizza Palace")
        d = await get_store_details()
        if d.rating is not None and d.rating < 3:
            await goto_home()
        menu = await list_menu_items()
        result = menu.items
        """,
        "precondition",
        lines=[6],
    )
    msg = r.diagnostics[0].message
    assert "after the if at line 4" in msg and "'page' may be 'home' or 'store'" in msg


def test_if_with_both_branches_reaching_the_page_is_accepted() -> None:
    assert_codes(
        """
        await goto_store(name="Pizza Palace")
        d = await get_store_details()
        if d.rating is not None and d.rating < 3:
            await goto_home()
            await goto_store(name="Burger Barn")
        else:
            await goto_home()
            await goto_store(name="Taco Town")
        menu = await list_menu_items()
        result = menu.items
        """
    )


def test_loop_that_returns_home_each_iteration_is_accepted() -> None:
    r = assert_codes(
        """
        stores = await list_stores()
        reviews = {}
        for s in stores.items[:5]:
            await goto_store(name=s.name)
            d = await get_store_details()
            reviews[s.name] = d.review_count
            await goto_home()
        result = reviews
        """
    )
    assert r.cost is not None and abs(r.cost - (0.1 + 5 * 0.3)) < 1e-9


def test_loop_that_leaves_the_page_changed_is_rejected_at_the_top_of_the_body() -> None:
    r = assert_codes(
        """
        stores = await list_stores()
        reviews = {}
        for s in stores.items[:5]:
            await goto_store(name=s.name)
            d = await get_store_details()
            reviews[s.name] = d.review_count
        result = reviews
        """,
        "precondition",
        lines=[5],
    )
    msg = r.diagnostics[0].message
    assert "at the top of the for loop at line 4 (after an iteration of its body)" in msg
    assert "'store'" in msg


# -- other control flow ---------------------------------------------------------------------------


def test_try_finally_restores_the_page() -> None:
    assert_codes(
        """
        try:
            await goto_store(name="a")
            d = await get_store_details()
        finally:
            await goto_home()
        stores = await list_stores()
        result = stores
        """
    )


def test_except_path_may_skip_the_navigation() -> None:
    assert_codes(
        """
        try:
            await goto_store(name="a")
        except ToolError:
            pass
        d = await get_store_details()
        result = d
        """,
        "precondition",
        lines=[6],
    )


def test_while_else_and_break() -> None:
    assert_codes(
        """
        i = 0
        while i < 3:
            i += 1
            if i == 2:
                await goto_store(name="a")
                break
        else:
            await goto_store(name="b")
        d = await get_store_details()
        result = d
        """
    )
    assert_codes(
        """
        i = 0
        while i < 3:
            i += 1
            if i == 2:
                await goto_store(name="a")
                break
        d = await get_store_details()
        result = d
        """,
        "precondition",
        lines=[8],
    )


def test_while_true_exits_only_through_break() -> None:
    assert_codes(
        """
        while True:
            found = await goto_store(name="a")
            break
        d = await get_store_details()
        result = [found.slug, d.name]
        """
    )


def test_await_in_comprehension_is_a_loop() -> None:
    # each element navigates to a store: the second iteration starts on 'store'
    r = assert_codes(
        """
        stores = await list_stores()
        slugs = [(await goto_store(name=s.name)).slug for s in stores.items]
        result = slugs
        """,
        "precondition",
        lines=[3],
    )
    assert "comprehension" in r.diagnostics[0].message
    r = assert_codes(
        """
        await goto_store(name="a")
        m = await list_menu_items()
        got = [await list_menu_items() for _ in range(3)]
        result = got
        """
    )
    assert r.calls[-1].loop_depth == 1 and r.calls[-1].in_comprehension and r.calls[-1].trip_counts == [3]


def test_short_circuit_call_is_conditional() -> None:
    assert_codes(
        """
        stores = await list_stores()
        ok = stores.count > 0 and await goto_store(name="a")
        d = await get_store_details()
        result = d
        """,
        "precondition",
        lines=[4],
    )


def test_render_for_people_and_for_the_model() -> None:
    src = "stores = await list_stores()\nd = await get_store_details()\nresult = d\n"
    r = check_src(src)
    human = render(r.diagnostics, src)
    assert human.splitlines()[0].startswith("plan.py:2:11: precondition: get_store_details()")
    assert human.splitlines()[2] == "    " + " " * 10 + "^"
    model = render(r.diagnostics, src, for_model=True)
    assert model.splitlines()[0].startswith("1. line 2, column 11 [precondition]")
    assert model.splitlines()[1] == "     2 | d = await get_store_details()"
    assert isinstance(r.diagnostics[0], PreconditionNotMet)
    assert r.to_dict()["diagnostics"][0] == {
        "code": "precondition", "message": r.diagnostics[0].message, "line": 2, "col": 11,
    }  # fmt: skip
