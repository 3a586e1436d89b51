"""A built tool's name is one a plan can call: never a Python keyword, a builtin a plan uses, or a
name the plan sandbox refuses (a pager's "Next" link made ``next``, which no plan could call)."""

from __future__ import annotations

import pytest

from agentjit.plan.sandbox import FORBIDDEN_NAMES
from toolcache.codegen.base import _Namer, plural


def test_names_a_plan_cannot_call_get_a_prefix() -> None:
    namer = _Namer()
    assert [namer(n) for n in ("next", "sorted", "class", "open", "next_page", "next")] == [
        "do_next", "do_sorted", "do_class", "do_open", "next_page", "do_next_2"]
    assert "next" in FORBIDDEN_NAMES  # what made the rule: the sandbox refuses `next` in a plan



@pytest.mark.parametrize(("noun", "want"), [
    # already plural: a list's name taken from a route (`/admin/pages/search/`) or a heading
    ("admin_pages", "admin_pages"), ("pages", "pages"), ("issues", "issues"), ("entries", "entries"),
    ("statuses", "statuses"), ("boxes", "boxes"), ("people", "people"), ("children", "children"),
    ("search_results", "search_results"), ("menus", "menus"), ("wikis", "wikis"), ("photos", "photos"),
    ("ideas", "ideas"), ("days", "days"), ("views", "views"), ("matches", "matches"), ("indices", "indices"),
    ("analyses", "analyses"), ("loans", "loans"), ("ids", "ids"),
    # no plural of their own
    ("data", "data"), ("news", "news"), ("series", "series"), ("feedback", "feedback"), ("media", "media"),
    # one thing, though it ends in s
    ("status", "statuses"), ("app_status", "app_statuses"), ("class", "classes"), ("address", "addresses"),
    ("bus", "buses"), ("campus", "campuses"), ("canvas", "canvases"), ("alias", "aliases"), ("gas", "gases"),
    ("lens", "lenses"), ("analysis", "analyses"), ("basis", "bases"), ("axis", "axes"),
    # singular nouns
    ("page", "pages"), ("issue", "issues"), ("entry", "entries"), ("box", "boxes"), ("person", "people"),
    ("child", "children"), ("day", "days"), ("key", "keys"), ("match", "matches"), ("dish", "dishes"),
    ("quiz", "quizzes"), ("leaf", "leaves"), ("hero", "heroes"), ("photo", "photos"), ("wiki", "wikis"),
    ("menu", "menus"), ("history", "histories"), ("currency", "currencies"),
    # widget words dropped first, as before
    ("store_card", "stores"), ("menu_item", "menu_items"), ("category_chip", "categories"),
    ("storage_class", "storage_classes"), ("stats_summary", "stats_summaries"),
])
def test_plural(noun: str, want: str) -> None:
    assert plural(noun) == want


def test_a_live_search_over_a_route_named_list_is_not_pluralised_twice() -> None:
    # the name Wagtail's search got: the list `admin_pages`, from the route `/admin/pages/search/`
    assert f"search_{plural('admin_pages')}" == "search_admin_pages"
    assert f"list_{plural('admin_pages')}" == "list_admin_pages"
    assert plural(plural("entry")) == plural("entry") == "entries"  # plural of a plural: the same
