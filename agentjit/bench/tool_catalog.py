"""The large tool catalog ``agentjit bench menus`` measures menus on.

The tools of every bundled app's cache (food, roundup, fava, django_admin, trac, and the datasette
example of a checkout) in one cache, plus generated distractor tools of made-up sites (help desk,
bug tracker, shops, bank, CRM, ...) whose names, descriptions and schemas share the bench tasks'
words: ``book``, ``issue``, ``ticket``, ``store``, ``price``, ``status``, ``priority``... Every
bench task with a reference plan is a ground-truth task: the tools its plan calls are its chain.

Two things keep the sites apart, as they are apart in the browser (each its own origin):
a tool name two sources share is prefixed with its source's name (``roundup_login``,
``trac_login``) everywhere in that source (its ``pre_tools`` and its tasks' chains too), and every
state key is prefixed with its source's name (``food.page``), the start state being every
source's start state together.

:func:`large_catalog` is deterministic in its ``seed``.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agentjit.cache import CacheInfo, ToolCache
from agentjit.protocol.manifest import ToolManifest
from agentjit.protocol.state import apply, satisfies, unmet

__all__ = ["Catalog", "CatalogTask", "bench_sources", "distractor_tools", "large_catalog", "plan_tools"]

log = logging.getLogger(__name__)

DATASETTE = Path(__file__).resolve().parents[2] / "examples" / "datasette"
"""The datasette example of a checkout (not installed with the package: left out when absent)."""


@dataclass(frozen=True)
class CatalogTask:
    """A bench task with its ground truth: ``chain``, the catalog tools its reference plan calls (in the
    order of their first call), and ``pairs``, the producer -> consumer pairs among them."""

    app: str
    id: str
    task: str
    chain: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...] = ()
    start: Mapping[str, Any] = field(default_factory=dict)
    """The state the task starts in: its own site's start state (the catalog's keys)."""


@dataclass
class Catalog:
    cache: ToolCache
    tasks: list[CatalogTask]
    sources: dict[str, int] = field(default_factory=dict)
    """Tools per source (each app, and ``distractors``)."""


@dataclass
class _Source:
    name: str
    tools: list[ToolManifest]
    start: dict[str, Any]
    tasks: list[tuple[str, str, str]] = field(default_factory=list)
    """``(id, task, plan source)``."""


def plan_tools(source: str, tools: Mapping[str, Any]) -> list[str]:
    """The tools of ``tools`` that ``source`` calls, in the order of their first call."""
    calls: list[tuple[int, int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in tools:
            calls.append((node.lineno, node.col_offset, node.func.id))
    return list(dict.fromkeys(name for _, _, name in sorted(calls)))


def bench_sources() -> list[_Source]:
    """Every bundled app's tools, start state and tasks with reference plans (and datasette's in a checkout)."""
    from agentjit.tasks.apps import app_names, get_app
    from agentjit.tasks.taskfile import load_tasks

    out: list[_Source] = []
    for name in app_names():
        app = get_app(name)
        try:
            cache, tasks = app.load_cache(), app.tasks()
        except Exception as exc:  # an app whose extra is not installed: measured without it, and said so
            log.warning("menus catalog: app %s left out: %s", name, exc)
            continue
        out.append(_Source(name, list(cache.tools.values()), dict(cache.info.initial_state),
                           [(t.id, t.task, t.plan_source()) for t in tasks if t.has_plan]))  # fmt: skip
    if (DATASETTE / "cache" / "cache.json").exists():
        cache = ToolCache.load(DATASETTE / "cache")
        tasks = load_tasks(DATASETTE / "tasks.toml", app="datasette")
        out.append(_Source("datasette", list(cache.tools.values()), dict(cache.info.initial_state),
                           [(t.id, t.task, t.plan_source()) for t in tasks if t.has_plan]))  # fmt: skip
    return out


# -- distractors ----------------------------------------------------------------------------

_SITES: dict[str, dict[str, list[str]]] = {
    "helpdesk": {"ticket": ["title", "status", "priority", "assignee", "queue", "created"],
                 "agent": ["name", "email", "team"], "queue": ["name", "open_count"]},
    "bugzilla": {"bug": ["summary", "status", "priority", "severity", "owner", "component", "milestone"],
                 "product": ["name", "description"], "comment": ["author", "text", "date"]},
    "jira": {"issue": ["key", "summary", "status", "priority", "assignee", "sprint"],
             "sprint": ["name", "start", "end"], "board": ["name", "columns"]},
    "bookshop": {"book": ["title", "author", "price", "genre", "year", "in_stock"],
                 "order": ["number", "total", "status", "date"], "review": ["author", "rating", "text"]},
    "library_catalog": {"book": ["title", "author", "isbn", "year", "pages", "genre"],
                        "member": ["name", "email", "country"], "loan": ["book", "member", "due", "status"]},
    "grocery": {"store": ["name", "rating", "delivery", "category"], "product": ["name", "price", "unit", "brand"],
                "cart": ["items", "total"], "coupon": ["code", "discount"]},
    "reservations": {"restaurant": ["name", "cuisine", "rating", "price_range"],
                     "reservation": ["date", "time", "party_size", "status"], "menu": ["dish", "price"]},
    "bank": {"account": ["name", "balance", "currency", "number"],
             "transaction": ["date", "payee", "amount", "narration", "category"], "payee": ["name", "iban"]},
    "expenses": {"expense": ["date", "amount", "category", "merchant", "report"],
                 "report": ["title", "total", "status"], "receipt": ["merchant", "amount", "date"]},
    "confluence": {"page": ["title", "space", "author", "updated"], "space": ["key", "name"],
                   "attachment": ["name", "size"]},
    "crm": {"contact": ["name", "email", "company", "phone"], "deal": ["name", "amount", "stage", "owner"],
            "company": ["name", "industry", "country"]},
    "hr": {"employee": ["name", "team", "manager", "start_date"], "leave": ["employee", "from", "to", "status"],
           "payslip": ["month", "gross", "net"]},
    "calendar": {"event": ["title", "date", "location", "attendees"], "invite": ["event", "status"]},
    "shipping": {"shipment": ["tracking_number", "status", "carrier", "eta"], "parcel": ["weight", "size"]},
}

_DESCRIBE = {
    "goto_list": ["Open the {plural} page.", "Go to the list of all {plural}.", "Navigate to the {plural} overview."],
    "list": ["List the {plural} shown on the current page: {fields}.", "Read every {entity} row of the table ({fields})."],
    "search": ["Search the {plural} for a text; the results list opens.", "Full-text search over {plural} by keyword."],
    "filter": ["Filter the {plural} list by {field}.", "Show only the {plural} whose {field} matches."],
    "sort": ["Sort the {plural} list by a column.", "Order the {plural} table by {field}."],
    "goto_item": ["Open one {entity} by its {key}.", "Open the {entity} page of the given {key}."],
    "details": ["Read the details of the open {entity}: {fields}.", "Get the open {entity}'s {fields}."],
    "update": ["Change the {field} of the open {entity} and save.", "Set a new {field} on the current {entity}."],
    "create": ["Create a new {entity} with {fields} and save it.", "Add a {entity}: fill the form ({fields}) and submit."],
    "delete": ["Delete the open {entity} (asks for confirmation).", "Remove the current {entity} for good."],
    "export": ["Export the {plural} list as CSV.", "Download the {plural} table."],
    "count": ["Count the {plural} on the current page.", "How many {plural} the list shows."],
}


_SITE_WIDE = frozenset({"goto_home", "login", "observe_page"})
"""A made-up site's own tools that a bench app hosting it as a section already has."""


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch")) else "s")


def _schema(props: Sequence[str], *, numbers: Sequence[str] = ()) -> dict[str, Any]:
    num = {"price", "total", "amount", "balance", "rating", "pages", "year", "discount", "gross", "net", "weight",
           "open_count", "party_size", "size"}  # fmt: skip
    return {"type": "object", "properties": {
        p: {"type": "number" if p in num or p in numbers else "string"} for p in props}}  # fmt: skip


def distractor_tools(n_sites: int | None = None, *, seed: int = 0) -> list[tuple[str, ToolManifest, dict[str, Any]]]:
    """``(site, tool, start state)`` of generated tools of made-up sites: per entity a list page, list,
    search, filter, sort, open, details, update, create, delete, export and count tool (each kept with
    a seeded chance), plus each site's home, login and observe tools. Names and state are per site
    (the catalog prefixes them)."""
    rng = np.random.default_rng(seed)
    sites = list(_SITES)[: n_sites or len(_SITES)]
    out: list[tuple[str, ToolManifest, dict[str, Any]]] = []

    def say(kind: str, **kw: str) -> str:
        options = _DESCRIBE[kind]
        return options[int(rng.integers(len(options)))].format(**kw)

    def add(site: str, **kw: Any) -> None:
        kw.setdefault("input_schema", {"type": "object", "properties": {}})
        kw.setdefault("execute", "return null;")
        out.append((site, ToolManifest(**kw), {"page": "home"}))

    for site in sites:
        add(site, name="goto_home", description=f"Open the {site} start page.", type="gotoField",
            pre={"page": "*"}, post={"page": "home"}, navigates=True)  # fmt: skip
        add(site, name="login", description="Sign in with a username and a password.", type="setFields",
            input_schema={"type": "object", "properties": {"username": {"type": "string"}, "password": {"type": "string"}},
                          "required": ["username", "password"]},
            pre={"page": "*"}, post={"page": "home"}, effect="WRITE", navigates=True)  # fmt: skip
        add(site, name="observe_page", description="Describe the current page: headings, forms and links.",
            type="observe", output_schema=_schema(["title", "url", "text"]))  # fmt: skip
        for entity, fields in _SITES[site].items():
            plural, key = _plural(entity), fields[0]
            listed = f"{entity}_list"
            shown = ", ".join(fields[:4])
            items = {"type": "object", "properties": {
                "items": {"type": "array", "items": _schema(["id", *fields])}}}  # fmt: skip
            kept = lambda: bool(rng.random() < 0.75)  # noqa: E731 - one draw per optional tool
            add(site, name=f"goto_{plural}", description=say("goto_list", plural=plural), type="gotoField",
                pre={"page": "*"}, post={"page": listed}, navigates=True)  # fmt: skip
            add(site, name=f"list_{plural}", description=say("list", plural=plural, entity=entity, fields=shown),
                type="listItems", pre={"page": listed}, output_schema=items)  # fmt: skip
            if kept():
                add(site, name=f"search_{plural}", description=say("search", plural=plural), type="setFilter",
                    input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
                    pre={"page": "*"}, post={"page": listed}, navigates=True)  # fmt: skip
            for f in fields[1:]:
                if rng.random() < 0.35:
                    add(site, name=f"filter_{plural}_by_{f}", description=say("filter", plural=plural, field=f),
                        type="setFilter", input_schema={"type": "object", "properties": {f: {"type": "string"}}, "required": [f]},
                        pre={"page": listed}, post={"page": listed})  # fmt: skip
            if kept():
                add(site, name=f"sort_{plural}", description=say("sort", plural=plural, field=fields[1]), type="setFilter",
                    input_schema={"type": "object", "properties": {"by": {"type": "string", "enum": list(fields)}}},
                    pre={"page": listed}, post={"page": listed})  # fmt: skip
            add(site, name=f"goto_{entity}", description=say("goto_item", entity=entity, key=key), type="gotoItem",
                input_schema={"type": "object", "properties": {key: {"type": "string"}}, "required": [key]},
                output_schema=_schema(["id", key]), pre={"page": f"{listed}|home"},
                post={"page": entity, entity: "$id"}, pre_tools={key: [f"list_{plural}"]}, navigates=True)  # fmt: skip
            add(site, name=f"get_{entity}_details", description=say("details", entity=entity, fields=shown),
                type="getFields", pre={"page": entity}, output_schema=_schema(["id", *fields]))  # fmt: skip
            for f in fields[1:]:
                if rng.random() < 0.3:
                    add(site, name=f"update_{entity}_{f}", description=say("update", entity=entity, field=f), type="setFields",
                        input_schema={"type": "object", "properties": {f: {"type": "string"}}, "required": [f]},
                        pre={"page": entity}, post={"page": entity}, effect="WRITE")  # fmt: skip
            if kept():
                add(site, name=f"create_{entity}", description=say("create", entity=entity, fields=shown), type="setFields",
                    input_schema={**_schema(fields), "required": [key]}, output_schema=_schema(["id"]),
                    pre={"page": listed}, post={"page": entity, entity: "$id"}, effect="WRITE", navigates=True)  # fmt: skip
            if kept():
                add(site, name=f"delete_{entity}", description=say("delete", entity=entity), type="setFields",
                    pre={"page": entity}, post={"page": listed}, effect="WRITE", navigates=True)  # fmt: skip
            if rng.random() < 0.4:
                add(site, name=f"export_{plural}", description=say("export", plural=plural), type="getFields",
                    pre={"page": listed}, output_schema=_schema(["csv"]))  # fmt: skip
            if rng.random() < 0.4:
                add(site, name=f"count_{plural}", description=say("count", plural=plural), type="getFields",
                    pre={"page": listed}, output_schema=_schema(["count"], numbers=["count"]))  # fmt: skip
    return out


# -- the catalog ----------------------------------------------------------------------------


def _prefixed(pattern: Mapping[str, Any], source: str) -> dict[str, Any]:
    return {f"{source}.{k}": v for k, v in pattern.items()}


def _pairs(chain: Sequence[str], tools: Mapping[str, ToolManifest], start: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(producer, consumer)`` among ``chain``: the producer comes first in the plan and is a verified provider
    of the consumer's input, or its ``post`` makes a key of the consumer's ``pre`` the start state lacks."""
    out: list[tuple[str, str]] = []
    for j, c in enumerate(chain):
        consumer = tools[c]
        missing = unmet(start, consumer.pre)
        for p in chain[:j]:
            producer = tools[p]
            related = any(p in ps for ps in consumer.pre_tools.values())
            makes = any(k in producer.post and satisfies(apply(start, {k: producer.post[k]}), {k: consumer.pre[k]})
                        for k in missing)  # fmt: skip
            if related or makes:
                out.append((p, c))
    return out


def large_catalog(*, seed: int = 0, distractor_sites: int | None = None, sources: list[_Source] | None = None,
                  hosted: bool = False) -> Catalog:  # fmt: skip
    """Every bench app's tools and the distractors of :func:`distractor_tools` in one cache, with every bench
    task that has a reference plan as a :class:`CatalogTask`. ``hosted``: one made-up site per app becomes a
    section of that app (competitors in its own state space); otherwise every made-up site stays apart."""
    srcs = list(sources if sources is not None else bench_sources())
    fake: dict[str, _Source] = {}
    for site, tool, site_start in distractor_tools(distractor_sites, seed=seed):
        fake.setdefault(site, _Source(site, [], site_start)).tools.append(tool)
    # one made-up site per bench app becomes a section of that app (its tools in the app's own state space and
    # reachable from its start: the competitors a large real site has); the other made-up sites stay apart
    real = {s.name: len(s.tools) for s in srcs}
    order = [list(fake)[i] for i in np.random.default_rng(seed + 1).permutation(len(fake))]
    n_hosted = 0
    for host, site in zip(list(srcs) if hosted else [], order, strict=False):
        taken = {t.name for t in host.tools}
        for t in fake.pop(site).tools:
            if t.name in _SITE_WIDE:
                continue
            host.tools.append(t if t.name not in taken else t.model_copy(update={"name": f"{site}_{t.name}"}))
            n_hosted += 1
    srcs += list(fake.values())
    owners: dict[str, set[str]] = {}
    for s in srcs:
        for t in s.tools:
            owners.setdefault(t.name, set()).add(s.name)
    tools: list[ToolManifest] = []
    start: dict[str, Any] = {}
    tasks: list[CatalogTask] = []
    counts: dict[str, int] = {}
    for s in srcs:
        rename = {t.name: (f"{s.name}_{t.name}" if len(owners[t.name]) > 1 else t.name) for t in s.tools}
        own: dict[str, ToolManifest] = {}
        for t in s.tools:
            moved = t.model_copy(update={
                "name": rename[t.name], "pre": {"site": s.name, **_prefixed(t.pre, s.name)}, "post": _prefixed(t.post, s.name),
                "pre_tools": {k: [rename.get(p, p) for p in v] for k, v in t.pre_tools.items()},
            })  # fmt: skip
            own[moved.name] = moved
        tools += own.values()
        s_start = {"site": s.name, **_prefixed(s.start, s.name)}
        start.update(_prefixed(s.start, s.name))
        if s.name in fake:
            counts["distractors"] = counts.get("distractors", 0) + len(own)
        for task_id, text, source in s.tasks:
            chain = [rename[n] for n in plan_tools(source, rename)]
            if chain:
                tasks.append(CatalogTask(s.name, task_id, text, tuple(chain), tuple(_pairs(chain, own, s_start)), s_start))
    for app, n in real.items():  # an app's count is its own tools, not the section it hosts
        counts[app] = n
    counts["distractors_in_apps"] = n_hosted
    info = CacheInfo(app="menus-catalog", description="Every bench app's tools and generated distractors (agentjit bench menus).",
                     initial_state=start)  # fmt: skip
    return Catalog(ToolCache(info, tools), tasks, counts)
