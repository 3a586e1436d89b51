"""State-path tool menus: a short ordered subset of a large cache's tools for the plan prompt.

After the State-Path paper (``shared/papers/004_*``) without its learned parts, and LIBRA's
runtime-verified relations (``002_*``):

1. **Relevance.** BM25 (the ``bm25s`` package) over each tool's name, description, input and
   output fields and the state values of its ``pre``/``post`` ranks the tools for the task. The
   query also holds each pair of adjacent task words run together ("log in" -> ``login``).
2. **Routes.** Each tool in relevance order (a *target*) brings its route: for every key of its
   ``pre`` the start state does not guarantee, the tool whose ``post`` makes it (a *producer*;
   READ producers first, then the more relevant), recursively back to a tool that runs from the
   start state (the *entry*); the providers ``toolcache build`` verified for its inputs
   (``pre_tools``, a *relation*); and for a route tool that another route tool leaves unrunnable
   (a loop that opens an item and must come back to the list), the tool that restores its ``pre``
   (a *restore*). A route goes in whole or not at all while the menu has room for it (``k`` tools).
3. **Order.** Producers before consumers (a topological order of the route edges), ties in the
   order the tools were chosen.

:func:`build_menu` is the entry point; :class:`ToolIndex` keeps the BM25 index of one cache for
repeated menus (the planner holds one). ``widen`` adds the tools a checker finding names
(a tool the plan invented, a call whose ``pre`` no path met) for the repair round.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentjit.cache import ToolCache
from agentjit.plan.diagnostics import Diagnostic, PreconditionNotMet, UnknownTool
from agentjit.protocol.manifest import Effect, ToolManifest
from agentjit.protocol.state import apply, satisfies, unmet

from .intent import NoWrite, is_sign_in

__all__ = [
    "DEFAULT_MENU_K", "DEFAULT_MENU_THRESHOLD", "Menu", "MenuEntry", "ToolIndex", "build_menu", "tokenize",
]  # fmt: skip

log = logging.getLogger(__name__)

DEFAULT_MENU_K = 16
"""Tools in a menu unless told otherwise (``agentjit bench menus`` measures 8, 16 and 32)."""
DEFAULT_MENU_THRESHOLD = 64
"""A cache with more tools than this gets a menu in the plan prompt instead of every stub."""
MAX_ROUTE_DEPTH = 4
ALTERNATES = 2
"""Producers a target gets for each state key it lacks (its producers' producers get one each)."""
"""Producers of producers followed back at most this far from a target."""

_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+|[a-z]+")
_STOP = frozenset(
    "a an and any are as at be by do does for from get give has have how i in into is it its me my "
    "of on or than that the their them then there these this to was what when where which who with "
    "you your all each".split()
)  # fmt: skip


def _stem(word: str) -> str:
    """A light plural stem: ``issues`` -> ``issue``, ``categories`` -> ``category``; ``status`` stays."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lowercase stemmed words of ``text``; identifiers split at ``_`` and camelCase, stop words out."""
    out: list[str] = []
    for raw in _WORD.findall(text):
        word = raw.lower()
        if word not in _STOP:
            out.append(_stem(word))
    return out


_HINTS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("how", "much"): ("price", "cost", "amount", "total"),
    ("how", "many"): ("count", "number", "total"),
    ("who",): ("owner", "author", "assignee", "name"),
    ("when",): ("date", "time"),
    ("where",): ("location", "address"),
    ("cheapest",): ("price",), ("expensive",): ("price",),
    ("latest",): ("date",), ("recent",): ("date",), ("oldest",): ("date", "year"),
}  # fmt: skip
"""Question words and the field names their answers usually sit in (a question asks for a value a schema names)."""


def _query_tokens(task: str) -> list[str]:
    """The task's words, each adjacent pair run together ("log in" -> ``login``, "check out"), and the field
    names of :data:`_HINTS` its question words point to."""
    words = [w.lower() for w in _WORD.findall(task)]
    joined = [_stem(a + b) for a, b in zip(words, words[1:], strict=False)]
    hints = [h for cue, fields in _HINTS.items()
             if any(tuple(words[i:i + len(cue)]) == cue for i in range(len(words))) for h in fields]  # fmt: skip
    return tokenize(task) + joined + hints


def _schema_words(schema: Any, depth: int = 0) -> list[str]:
    """Property names, descriptions and enum values of a JSON schema, a few levels deep."""
    if not isinstance(schema, Mapping) or depth > 4:
        return []
    words: list[str] = []
    if isinstance(schema.get("description"), str):
        words.append(schema["description"])
    for value in schema.get("enum", []) or []:
        if isinstance(value, str):
            words.append(value)
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            words.append(str(name))
            words += _schema_words(sub, depth + 1)
    if isinstance(schema.get("items"), Mapping):
        words += _schema_words(schema["items"], depth + 1)
    return words


def _state_words(pattern: Mapping[str, Any]) -> list[str]:
    return [str(v) for v in pattern.values() if isinstance(v, str) and not v.startswith("$") and v != "*"]


def tool_document(tool: ToolManifest) -> list[str]:
    """The tokens BM25 indexes for ``tool``; the name counts three times (it is the densest field)."""
    name = tokenize(tool.name)
    text = [tool.description, *_schema_words(tool.input_schema), *_schema_words(tool.output_schema),
            *_state_words(tool.pre), *_state_words(tool.post)]  # fmt: skip
    return name * 3 + tokenize(" ".join(text))


@dataclass(frozen=True)
class MenuEntry:
    """One tool of a menu: why it is there (``role``), its BM25 score, and what it is for."""

    name: str
    role: str
    """``target`` (relevant to the task), ``producer`` (makes a state a route tool needs), ``relation`` (a verified
    provider of an input), ``restore`` (brings back a state another route tool leaves), ``reader`` (reads the state a
    target leaves), ``follows`` (runs in a state the menu's tools lead to), ``relevant`` (the relevance-only
    baseline), ``widened`` (added for a repair)."""
    score: float
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "score": round(self.score, 4), "why": self.why}


@dataclass
class Menu:
    """The ordered tools shown to the model for one task (producers before consumers)."""

    task: str
    k: int
    total: int
    """Tools in the cache."""
    entries: list[MenuEntry] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)
    """``(producer, consumer)`` pairs among the menu's tools."""

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def __len__(self) -> int:
        return len(self.entries)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task, "k": self.k, "total": self.total, "tools": self.names,
            "entries": [e.to_dict() for e in self.entries], "edges": [list(e) for e in self.edges],
        }  # fmt: skip


@dataclass
class _Route:
    tools: list[str] = field(default_factory=list)
    """Producers first, the target last."""
    roles: dict[str, tuple[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)
    complete: bool = True


class ToolIndex:
    """The BM25 index and the state graph of a set of tools, built once, asked for many menus.

    ``start`` is the state a plan begins in (the cache's ``initial_state``).
    """

    def __init__(self, tools: Iterable[ToolManifest], start: Mapping[str, Any] | None = None) -> None:
        import bm25s  # a third of a second to import: only when a menu is wanted

        # bm25s sets its own logger to DEBUG on import, which would print its records through whatever handler the
        # application has; NOTSET gives the application's levels back
        logging.getLogger("bm25s").setLevel(logging.NOTSET)

        self.tools: dict[str, ToolManifest] = {t.name: t for t in sorted(tools, key=lambda t: t.name)}
        self.names = list(self.tools)
        self.start: dict[str, Any] = dict(start or {})
        self._bm25 = bm25s.BM25()
        docs = [tool_document(t) or ["_"] for t in self.tools.values()]
        if docs:
            self._bm25.index(docs, show_progress=False)
        self._by_key: dict[str, list[str]] = {}
        self._producers: dict[tuple[str, Any, Any], list[str]] = {}
        for t in self.tools.values():
            for key in t.post:
                self._by_key.setdefault(key, []).append(t.name)

    @classmethod
    def of(cls, cache: ToolCache) -> ToolIndex:
        return cls(cache.tools.values(), cache.info.initial_state)

    # -- relevance ------------------------------------------------------------------

    def scores(self, query: str) -> dict[str, float]:
        """BM25 score of every tool for ``query`` (0 for a tool that shares no word with it)."""
        words = _query_tokens(query)
        if not self.names or not words:
            return dict.fromkeys(self.names, 0.0)
        raw = self._bm25.get_scores(words)
        return {name: float(s) for name, s in zip(self.names, raw, strict=True)}

    def ranked(self, query: str) -> list[str]:
        """The tools by BM25 score for ``query``, best first (ties by name); tools with score 0 last."""
        scores = self.scores(query)
        return sorted(self.names, key=lambda n: (-scores[n], n))

    # -- the state graph --------------------------------------------------------------

    def producers(self, key: str, pattern: Any, state: Mapping[str, Any], *, exclude: str = "") -> list[str]:
        """Tools whose ``post`` makes ``state`` guarantee ``key`` = ``pattern``."""
        before = state.get(key)
        memo = (key, pattern, before)
        found = self._producers.get(memo)
        if found is None:
            found = []
            for name in self._by_key.get(key, []):
                after = apply({key: before} if before is not None else {}, {key: self.tools[name].post[key]})
                if satisfies(after, {key: pattern}):
                    found.append(name)
            self._producers[memo] = found
        return [n for n in found if n != exclude]

    def _best(self, names: Sequence[str], scores: Mapping[str, float], state: Mapping[str, Any], n: int = 1) -> list[str]:
        """The ``n`` producers to use: READ before WRITE (a write is a poor bridge), runnable from ``state``
        before one that needs more producers, then the more relevant, then by name."""
        def rank(name: str) -> tuple[int, int, float, str]:
            t = self.tools[name]
            return (int(t.is_write), len(unmet(state, t.pre)), -scores.get(name, 0.0), name)
        return sorted(names, key=rank)[:n]

    def route(self, target: str, scores: Mapping[str, float], start: Mapping[str, Any] | None = None) -> _Route:
        """``target``'s route from ``start`` (default: the index's start state): its producers (recursively),
        verified providers and restores, producers first. ``complete`` says whether every ``pre`` key
        the start state lacks found a producer (the route is executable from ``start``)."""
        begin = self.start if start is None else start
        r = _Route()
        self._expand(target, scores, r, begin, depth=0, seen=set())
        self._reader(target, scores, r, begin)
        self._restores(r, scores, begin)
        r.roles.setdefault(target, ("target", "relevant to the task"))
        return r

    def _expand(self, name: str, scores: Mapping[str, float], r: _Route, start: Mapping[str, Any], *, depth: int,
                seen: set[str], relations_only_state: bool = False) -> None:  # fmt: skip
        if name in seen:
            return
        seen.add(name)
        tool = self.tools[name]
        missing = unmet(start, tool.pre)
        if missing and depth >= MAX_ROUTE_DEPTH:
            r.complete = False
        if depth < MAX_ROUTE_DEPTH:
            for key in missing:
                found = self.producers(key, tool.pre[key], start, exclude=name)
                found = [f for f in found if f not in seen] or found
                if not found:
                    r.complete = False
                    continue
                # the target gets its best few producers (a route the model may take another way), deeper ones one
                for p in self._best(found, scores, start, n=ALTERNATES if depth == 0 else 1):
                    r.roles.setdefault(p, ("producer", f"makes {key}={tool.pre[key]!r} for {name}"))
                    r.edges.append((p, name))
                    self._expand(p, scores, r, start, depth=depth + 1, seen=seen,
                                 relations_only_state=relations_only_state)
            # the verified provider of each input (the best one, like a state producer) of the target and of its
            # state producers; a provider's own providers are not followed (a dense relation graph would pull
            # half the site into every route)
            if not relations_only_state:
                for param, providers in sorted(tool.pre_tools.items()):
                    known = [p for p in providers if p in self.tools and p != name]
                    for p in self._best(known, scores, start) if known else []:
                        r.roles.setdefault(p, ("relation", f"gives {param} to {name} (verified)"))
                        r.edges.append((p, name))
                        self._expand(p, scores, r, start, depth=depth + 1, seen=seen, relations_only_state=True)
        if name not in r.tools:
            r.tools.append(name)

    def _reader(self, target: str, scores: Mapping[str, float], r: _Route, start: Mapping[str, Any]) -> None:
        """After a target that changes the state (opens a page, filters a list), the most relevant tool that only
        reads the state it leaves: what a plan calls next to see the outcome."""
        tool = self.tools[target]
        if not tool.post:
            return
        after = apply(start, tool.post)
        keys = set(tool.post)
        readers = [n for n, t in self.tools.items() if n != target and not t.post and not t.is_write
                   and scores.get(n, 0.0) > 0 and keys & set(t.pre) and not unmet(after, t.pre)]
        if not readers:
            return
        best = max(readers, key=lambda n: (scores.get(n, 0.0), -len(n), n))
        if best not in r.tools:
            r.roles.setdefault(best, ("reader", f"reads what {target} leaves"))
            r.edges.append((target, best))
            r.tools.append(best)

    def _restores(self, r: _Route, scores: Mapping[str, float], start: Mapping[str, Any]) -> None:
        """For a route tool another route tool leaves unrunnable, the tool that brings its ``pre`` back."""
        for name in list(r.tools):
            tool = self.tools[name]
            if not tool.pre:
                continue
            for other in list(r.tools):
                if other == name:
                    continue
                after = apply(start, self.tools[other].post)
                missing = unmet(after, tool.pre)
                if not missing:
                    continue
                key = missing[0]
                found = [p for p in self.producers(key, tool.pre[key], after, exclude=name)
                         if not unmet(after, self.tools[p].pre)]  # fmt: skip
                if not found or any(f in r.tools for f in found):
                    continue
                p = self._best(found, scores, after)[0]
                r.roles.setdefault(p, ("restore", f"brings {key}={tool.pre[key]!r} back for {name} after {other}"))
                r.edges.append((p, name))
                r.tools.insert(r.tools.index(name), p)
                break

    # -- menus ------------------------------------------------------------------------

    def menu(self, task: str, k: int = DEFAULT_MENU_K, *, state_path: bool = True, include: Sequence[str] = (),
             start: Mapping[str, Any] | None = None) -> Menu:  # fmt: skip
        """The menu of at most ``k`` tools for ``task`` from the state ``start`` (default: the index's);
        ``state_path=False`` gives the relevance-only top ``k`` (the baseline). ``include`` names tools
        (with their routes) that go in first.

        Targets are tried by BM25 score, those whose route is executable from ``start`` before those
        whose route is not (a ``pre`` no tool makes from there); a route goes in whole while it fits."""
        if k < 1:
            raise ValueError(f"need k >= 1 (got {k})")
        scores = self.scores(task)
        ranked = sorted(self.names, key=lambda n: (-scores[n], n))
        if not state_path:
            entries = [MenuEntry(n, "relevant", scores[n]) for n in ranked[:k]]
            return Menu(task, k, len(self.names), entries)
        routes: dict[str, _Route] = {}

        def route(n: str) -> _Route:
            if n not in routes:
                routes[n] = self.route(n, scores, start)
            return routes[n]

        def runnable() -> Iterator[str]:
            for n in ranked:
                if scores[n] <= 0:
                    return
                if route(n).complete:
                    yield n

        chosen: dict[str, tuple[str, str]] = {}
        edges: list[tuple[str, str]] = []
        def following() -> Iterator[str]:
            """Tools that run from the start (entries) or in a state a chosen tool leaves (reading a page a route
            opens), READ first, by score."""
            states = [begin, *(apply(begin, self.tools[n].post) for n in chosen if self.tools[n].post)]
            keys = set(begin) | {k for n in chosen for k in self.tools[n].post}
            near = [n for n, t in self.tools.items() if n not in chosen and keys & set(t.pre)
                    and any(not unmet(st, t.pre) for st in states)]  # fmt: skip
            for n in sorted(near, key=lambda n: (self.tools[n].is_write, -scores[n], n)):
                followers.add(n)
                yield n

        begin = self.start if start is None else start
        followers: set[str] = set()
        relevant = [n for n in ranked if scores[n] > 0]  # a tool that shares no word with the task is no target
        for name in itertools.chain([n for n in include if n in self.tools], runnable(), _Lazy(following), relevant):
            if len(chosen) >= k:
                break
            if name in chosen:
                continue
            r = route(name)
            new = [t for t in r.tools if t not in chosen]
            if len(chosen) + len(new) > k:
                continue  # a route goes in whole or not at all; a shorter one further down may fit
            for t in new:
                follows = t == name and name in followers and scores[name] <= 0
                chosen[t] = ("follows", "runs where the menu's tools lead") if follows else r.roles.get(t, ("target", ""))
            edges += [e for e in r.edges if e not in edges]
        order = _producers_first(list(chosen), edges)
        entries = [MenuEntry(n, chosen[n][0], scores[n], chosen[n][1]) for n in order]
        inside = set(chosen)
        return Menu(task, k, len(self.names), entries, [e for e in edges if e[0] in inside and e[1] in inside])

    def widen(self, menu: Menu, diagnostics: Sequence[Diagnostic], *, extra: int = 4) -> list[str]:
        """Tools of the cache a repair round should add to ``menu`` for ``diagnostics``, best first.

        An ``unknown-tool`` finding (a name the model invented) brings the ``extra`` tools most like
        that name, with their routes; a ``precondition`` finding brings the route of the tool whose
        ``pre`` no path met; a ``no-write`` finding the ``extra`` WRITE tools nearest the task, with
        their routes.
        """
        shown = set(menu.names)
        add: list[str] = []

        def take(names: Iterable[str]) -> None:
            for n in names:
                if n in self.tools and n not in shown and n not in add:
                    add.append(n)

        for d in diagnostics:
            if isinstance(d, UnknownTool):
                m = re.match(r"'([A-Za-z_][A-Za-z0-9_]*)'", d.message)
                if m is None:
                    continue
                scores = self.scores(m.group(1).replace("_", " "))
                for name in [n for n in sorted(self.names, key=lambda n: (-scores[n], n)) if scores[n] > 0][:extra]:
                    take(self.route(name, scores).tools)
            elif isinstance(d, PreconditionNotMet):
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\(\) needs", d.message)
                if m is not None and m.group(1) in self.tools:
                    take(self.route(m.group(1), self.scores(menu.task)).tools)
            elif isinstance(d, NoWrite):  # the task asks for a change: the tools that write, nearest the task first
                scores = self.scores(menu.task)
                writers = [n for n in self.names if self.tools[n].effect is Effect.WRITE and not is_sign_in(self.tools[n])]
                for name in sorted(writers, key=lambda n: (-scores[n], n))[:extra]:
                    take(self.route(name, scores).tools)
        return add


class _Lazy:
    """An iterable that calls ``make`` only when iteration reaches it (after the sources before it in a chain)."""

    def __init__(self, make: Callable[[], Iterator[str]]) -> None:
        self.make = make

    def __iter__(self) -> Iterator[str]:
        return self.make()


def _producers_first(names: list[str], edges: Sequence[tuple[str, str]]) -> list[str]:
    """``names`` in a topological order of ``edges`` (producer before consumer), ties by position;
    a cycle is broken at the earliest tool still waiting."""
    pos = {n: i for i, n in enumerate(names)}
    succ: dict[str, set[str]] = {n: set() for n in names}
    indeg = dict.fromkeys(names, 0)
    for p, c in edges:
        if p in pos and c in pos and p != c and c not in succ[p]:
            succ[p].add(c)
            indeg[c] += 1
    ready = [(pos[n], n) for n in names if indeg[n] == 0]
    heapq.heapify(ready)
    out: list[str] = []
    done: set[str] = set()
    while len(out) < len(names):
        if not ready:  # a cycle: release the earliest waiting tool
            n = min((x for x in names if x not in done), key=pos.__getitem__)
            indeg[n] = 0
            ready = [(pos[n], n)]
        _, n = heapq.heappop(ready)
        if n in done:
            continue
        done.add(n)
        out.append(n)
        for c in sorted(succ[n], key=pos.__getitem__):
            indeg[c] -= 1
            if indeg[c] == 0 and c not in done:
                heapq.heappush(ready, (pos[c], c))
    return out


def build_menu(task: str, cache: ToolCache, k: int = DEFAULT_MENU_K, *, state_path: bool = True) -> Menu:
    """The state-path menu of at most ``k`` of ``cache``'s tools for ``task`` (see the module docstring)."""
    return ToolIndex.of(cache).menu(task, k, state_path=state_path)
