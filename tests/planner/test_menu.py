"""State-path tool menus: retrieval, expansion along the state graph and relations, order, the bound K,
widening for a repair, the planner's prompt above the threshold, and ``agentjit menu --json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentjit.cache import ToolCache
from agentjit.cache.store import CacheInfo
from agentjit.cli import main
from agentjit.llm import OpenAIModel
from agentjit.llm.fake_server import FakeOpenAIServer, FakeReply
from agentjit.plan.diagnostics import PreconditionNotMet, UnknownTool
from agentjit.planner import Planner
from agentjit.planner.menu import ToolIndex, _producers_first, _query_tokens, tokenize
from agentjit.protocol import ToolManifest

RECEIPT = "Email the receipt to its customer."


def _tool(name: str, description: str, **kw: Any) -> ToolManifest:
    kw.setdefault("type", "observe")
    kw.setdefault("execute", "return {};")
    kw.setdefault("input_schema", {"type": "object", "properties": {}})
    return ToolManifest(name=name, description=description, **kw)


def _one(param: str) -> dict[str, Any]:
    return {"type": "object", "properties": {param: {"type": "string"}}, "required": [param]}


def shop_tools() -> list[ToolManifest]:
    """The paper's receipt example as site tools: the target (send_receipt) names the task's words, its
    producers (goto_orders, open_order, list_orders) share few of them."""
    listed = {"type": "object", "properties": {"items": {"type": "array", "items": _one("number")}}}
    return [
        _tool("goto_home", "Open the start page.", type="gotoItem", pre={"page": "*"}, post={"page": "home"}),
        _tool("goto_orders", "Open the list page.", type="gotoItem", pre={"page": "*"}, post={"page": "orders"}),
        _tool("list_orders", "Rows of the list page: number, date.", type="listItems", pre={"page": "orders"},
              output_schema=listed),
        _tool("open_order", "Open one row by its number.", type="gotoItem", input_schema=_one("number"),
              pre={"page": "orders"}, post={"page": "order"}, pre_tools={"number": ["list_orders"]}),
        _tool("send_receipt", "Email the receipt of the open order to its customer.", type="setFields",
              input_schema=_one("email"), pre={"page": "order"}, effect="WRITE"),
        _tool("print_receipt", "Print the receipt of an order from the archive.", pre={"page": "archive"}),
        _tool("goto_products", "Open the products page.", type="gotoItem", pre={"page": "*"}, post={"page": "products"}),
        _tool("list_products", "Products with their price.", type="listItems", pre={"page": "products"}),
        _tool("delete_product", "Delete the open product.", type="setFields", pre={"page": "product"}, effect="WRITE"),
        _tool("weather_today", "The weather forecast for today."),
    ]  # fmt: skip


def shop_cache() -> ToolCache:
    return ToolCache(CacheInfo(app="shop", initial_state={"page": "home"}), shop_tools())


@pytest.fixture(scope="module")
def index() -> ToolIndex:
    return ToolIndex.of(shop_cache())


def test_tokenize_splits_identifiers_stems_plurals_and_drops_stop_words() -> None:
    assert tokenize("list_orderItems of the Categories") == ["list", "order", "item", "category"]
    assert tokenize("status address") == ["status", "address"]


def test_relevance_ranks_the_target_first(index: ToolIndex) -> None:
    ranked = index.ranked(RECEIPT)
    assert ranked[0] == "send_receipt"
    assert index.scores(RECEIPT)["weather_today"] == 0.0


def test_the_menu_covers_entry_producers_relation_and_target_producers_first(index: ToolIndex) -> None:
    menu = index.menu(RECEIPT, 5)
    names = menu.names
    assert {"goto_orders", "list_orders", "open_order", "send_receipt"} <= set(names)
    assert names.index("goto_orders") < names.index("open_order") < names.index("send_receipt")
    assert names.index("list_orders") < names.index("open_order")
    roles = {e.name: e.role for e in menu.entries}
    assert roles["send_receipt"] == "target" and roles["open_order"] == "producer"
    assert roles["list_orders"] == "relation" and roles["goto_orders"] == "producer"
    assert ("open_order", "send_receipt") in menu.edges


def test_relevance_alone_drops_the_producers(index: ToolIndex) -> None:
    names = index.menu(RECEIPT, 5, state_path=False).names
    assert "send_receipt" in names
    assert not {"goto_orders", "list_orders", "open_order"} <= set(names)


def test_a_route_that_does_not_fit_stays_out_whole(index: ToolIndex) -> None:
    for k in range(1, 9):
        assert len(index.menu(RECEIPT, k)) <= k
    small = index.menu(RECEIPT, 3).names
    assert "send_receipt" not in small  # its route is four tools: none of it half-way


def test_a_route_no_tool_can_start_goes_after_the_runnable_ones(index: ToolIndex) -> None:
    # print_receipt matches "receipt" but needs page=archive, which no tool makes
    assert index.route("print_receipt", index.scores(RECEIPT)).complete is False
    assert "print_receipt" not in index.menu(RECEIPT, 4).names
    assert "print_receipt" in index.menu(RECEIPT, 4, state_path=False).names
    roles = {e.name: e.role for e in index.menu(RECEIPT, 5).entries}
    assert "print_receipt" not in roles  # room left goes first to a tool that runs where the route leads
    assert "follows" in roles.values()


def test_the_start_state_decides_what_is_an_entry(index: ToolIndex) -> None:
    # already on the order: the target runs as it is, its route is itself
    assert index.menu(RECEIPT, 1, start={"page": "order"}).names == ["send_receipt"]
    assert index.route("send_receipt", index.scores(RECEIPT), {"page": "order"}).tools == ["send_receipt"]


def test_producers_first_keeps_ties_in_place_and_breaks_cycles() -> None:
    assert _producers_first(["a", "b", "c"], [("c", "a"), ("a", "b")]) == ["c", "a", "b"]
    assert _producers_first(["x", "a", "b"], [("a", "b"), ("b", "a")]) == ["x", "a", "b"]
    assert _producers_first(["a", "b"], []) == ["a", "b"]


def test_widen_adds_the_tools_a_finding_names(index: ToolIndex) -> None:
    menu = index.menu("What products are there?", 2)
    assert "send_receipt" not in menu.names
    unknown = UnknownTool(1, 1, "'email_receipt' is not a tool, ai_eval, ask_human or a safe builtin")
    assert "send_receipt" in index.widen(menu, [unknown])
    pre = PreconditionNotMet(2, 7, "open_order() needs page='orders', but here 'page' is 'home'")
    added = index.widen(menu, [pre])
    assert "goto_orders" in added and "open_order" in added


def test_bad_k_is_refused(index: ToolIndex) -> None:
    with pytest.raises(ValueError, match="k >= 1"):
        index.menu(RECEIPT, 0)


def test_a_route_is_as_deep_as_the_target_needs() -> None:
    # a wizard of six steps, each page only reachable from the one before: the target needs all six
    steps = [_tool(f"wizard_step_{i}", f"Continue to wizard step {i}.", type="gotoItem", pre={"page": f"s{i - 1}"},
                   post={"page": f"s{i}"}) for i in range(1, 7)]  # fmt: skip
    finish = _tool("submit_application", "Submit the visa application.", type="setFields", pre={"page": "s6"},
                   effect="WRITE")  # fmt: skip
    index = ToolIndex([*steps, finish, *shop_tools()], {"page": "s0"})
    route = index.route("submit_application", index.scores("Submit my visa application"))
    assert route.complete and route.tools == [*(t.name for t in steps), "submit_application"]
    assert index.menu("Submit my visa application", 7).names == route.tools


def test_a_write_bridge_is_taken_when_it_is_the_only_way() -> None:
    # only the login (a WRITE) leaves the login page; the reads that make 'home|orders' all need one of them
    tools = [
        _tool("login", "Sign in.", type="setFields", pre={"page": "login"}, post={"page": "home"}, effect="WRITE"),
        _tool("goto_orders", "Open the orders.", type="gotoItem", pre={"page": "home|orders"}, post={"page": "orders"}),
        _tool("goto_home", "Open the start page.", type="gotoItem", pre={"page": "home|orders"}, post={"page": "home"}),
        _tool("list_orders", "Rows of the orders: number, date.", type="listItems", pre={"page": "orders"}),
    ]  # fmt: skip
    index = ToolIndex(tools, {"page": "login"})
    assert index.menu("List the orders", 3).names == ["login", "goto_orders", "list_orders"]


def test_a_tool_no_path_reaches_stays_out_however_relevant() -> None:
    other = _tool("send_receipt_elsewhere", "Email the receipt to its customer on the other site.",
                  pre={"site": "other"}, effect="WRITE")  # fmt: skip
    index = ToolIndex([*shop_tools(), other], {"page": "home", "site": "shop"})
    assert index.scores(RECEIPT)["send_receipt_elsewhere"] > 0
    assert "send_receipt_elsewhere" not in index.menu(RECEIPT, 10).names
    assert "send_receipt_elsewhere" in index.menu(RECEIPT, 10, state_path=False).names


def test_an_alternate_route_comes_in_when_there_is_room() -> None:
    search = _tool("find_order", "Find an order by number; opens it.", type="gotoItem", input_schema=_one("number"),
                   pre={"page": "*"}, post={"page": "order"})  # fmt: skip
    index = ToolIndex([*shop_tools(), search], {"page": "home"})
    scores = index.scores(RECEIPT)
    first = index.route("send_receipt", scores)
    second = index.route("send_receipt", scores, alternate=1)
    assert first.tools == ["find_order", "send_receipt"]  # the cheapest way to the order page
    assert {"goto_orders", "list_orders", "open_order"} <= set(second.tools)  # the way through the list
    assert {"find_order", "goto_orders", "list_orders", "open_order", "send_receipt"} <= set(index.menu(RECEIPT, 6).names)


def test_quoted_values_are_not_query_words_and_cues_add_theirs() -> None:
    words = _query_tokens("Close the ticket 'Export drops the last row' as fixed.")
    assert "export" not in words and "row" not in words and "ticket" in words
    assert "sort" in _query_tokens("Which is the oldest book?") and "sort" not in _query_tokens("The best book")
    assert "quantity" in _query_tokens("Order two mochi sets")


PLAN = "await goto_orders()\norders = await list_orders()\nresult = len(orders.items)\n"


async def _prompt_of(threshold: int) -> str:
    with FakeOpenAIServer([FakeReply(text=f"```python\n{PLAN}```", usage=(10, 10))]) as srv:
        model = OpenAIModel("menu-test", base_url=srv.base_url, api_key="k")
        try:
            planner = Planner(model, shop_cache(), n=1, k=1, max_repairs=0, menu_threshold=threshold, menu_k=5)
            plan = await planner.compile("List the order numbers.", use_cache=False)
        finally:
            await model.aclose()
    assert plan.source.strip() == PLAN.strip()
    [request] = srv.requests
    return str(request.messages()[-1]["content"])


async def test_the_planner_prompt_shows_a_menu_above_the_threshold() -> None:
    prompt = await _prompt_of(threshold=4)
    assert "a menu of" in prompt and "of the site's 10 tools" in prompt
    assert "async def list_orders(" in prompt and "async def goto_orders(" in prompt
    assert "async def weather_today(" not in prompt and "async def delete_product(" not in prompt
    assert prompt.index("async def goto_orders(") < prompt.index("async def list_orders(")


async def test_the_planner_prompt_has_every_stub_at_or_below_the_threshold() -> None:
    prompt = await _prompt_of(threshold=10)
    assert "a menu of" not in prompt
    assert "async def weather_today(" in prompt


def test_cli_menu_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shop_cache().save(tmp_path / "shop")
    assert main(["menu", RECEIPT, "--cache", str(tmp_path / "shop"), "--k", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 5 and data["total"] == 10 and len(data["tools"]) <= 5
    assert data["tools"][-1] == "send_receipt" or "send_receipt" in data["tools"]
    assert {"goto_orders", "open_order", "send_receipt"} <= set(data["tools"])
    assert all({"name", "role", "score", "why"} == set(e) for e in data["entries"])
    assert main(["menu", RECEIPT, "--cache", str(tmp_path / "shop"), "--k", "0"]) == 2
