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
import math
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentjit.cache import ToolCache
from agentjit.plan.diagnostics import Diagnostic, PreconditionNotMet, UnknownTool
from agentjit.protocol.manifest import Effect, ToolManifest
from agentjit.protocol.state import apply, satisfies, unmet

from .intent import NoWrite, is_sign_in

__all__ = [
    "DEFAULT_MENU_K", "DEFAULT_MENU_THRESHOLD", "Menu", "MenuConfig", "MenuEntry", "ToolIndex", "build_menu", "tokenize",
]  # fmt: skip

log = logging.getLogger(__name__)

DEFAULT_MENU_K = 16
"""Tools in a menu unless told otherwise (``agentjit bench menus`` measures 8, 16 and 32)."""
DEFAULT_MENU_THRESHOLD = 64
"""A cache with more tools than this gets a menu in the plan prompt instead of every stub."""
MAX_STATES = 4000
"""Abstract states one menu's search visits at most (a site has tens; a cache of many sites a few hundred)."""


@dataclass(frozen=True)
class MenuConfig:
    """The knobs of a state-path menu (``agentjit bench menus`` picks them on the other apps for each held-out one)."""

    alternates: int = 3
    """Routes a relevant tool brings: its cheapest, then the cheapest through another last producer."""
    alternate_decay: float = 0.7
    """An alternate route's priority against its target's score."""
    write_cost: float = 1.0
    """Extra cost of a WRITE tool as a step of a route (a write is a poor bridge; a login is sometimes the only one)."""
    relevance_weight: float = 0.0
    """Extra cost of a step that shares no word with the task (less for a more relevant one)."""
    targets: int = 48
    per_tool: float = 0.0
    """A route's priority is divided by (the tools it adds) ** per_tool: 0 ranks by relevance alone, 1 by
    relevance per tool of the menu spent."""
    readers: bool = False
    """A target that changes the state brings the most relevant tool that reads the state it leaves."""
    """Relevant tools tried as targets, best first."""

    def to_dict(self) -> dict[str, Any]:
        return {"alternates": self.alternates, "alternate_decay": self.alternate_decay, "write_cost": self.write_cost,
                "relevance_weight": self.relevance_weight, "targets": self.targets, "per_tool": self.per_tool,
                "readers": self.readers}  # fmt: skip

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
    ("latest",): ("date",), ("recent",): ("date",), ("oldest",): ("date", "year"), ("newest",): ("date", "year"),
}  # fmt: skip
"""Question words and the field names their answers usually sit in (a question asks for a value a schema names)."""
_SUPERLATIVE = re.compile(r"^(?:most|least|[a-z]{2,}est)$")
_NOT_SUPERLATIVE = frozenset("best interest request test rest west guest forest honest modest suggest".split())
_NUMBER_WORDS = frozenset("two three four five six seven eight nine ten twelve dozen".split())
_CUES: tuple[tuple[Callable[[str], bool], tuple[str, ...]], ...] = (
    (lambda w: bool(_SUPERLATIVE.match(w)) and w not in _NOT_SUPERLATIVE, ("sort", "order")),
    (lambda w: w in _NUMBER_WORDS, ("quantity", "count")),
)
"""Word classes and the tools' words they point to: a superlative asks for an order (a sort), a count of things
asks for a quantity."""


_QUOTED = re.compile(r"(?<![A-Za-z])'[^']+'(?![A-Za-z])|\"[^\"]+\"|“[^”]+”|‘[^’]+’")
"""A quoted span of a task: a value for a slot (a title, a comment), not words that say which tool to use."""


def _query_tokens(task: str) -> list[str]:
    """The task's words outside quotes, each adjacent pair run together ("log in" -> ``login``, "check out"),
    the field names of :data:`_HINTS` its question words point to and the words of :data:`_CUES`."""
    task = _QUOTED.sub(" ", task)
    words = [w.lower() for w in _WORD.findall(task)]
    joined = [_stem(a + b) for a, b in zip(words, words[1:], strict=False)]
    hints = [h for cue, fields in _HINTS.items()
             if any(tuple(words[i:i + len(cue)]) == cue for i in range(len(words))) for h in fields]  # fmt: skip
    cued = [h for w in dict.fromkeys(words) for test, fields in _CUES if test(w) for h in fields]
    return tokenize(task) + joined + hints + cued


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


_Key = tuple[tuple[str, Any], ...]


def _freeze(state: Mapping[str, Any]) -> _Key:
    return tuple(sorted((k, v if isinstance(v, Hashable) else repr(v)) for k, v in state.items()))


def _show(pattern: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in pattern.items())


@dataclass
class _Paths:
    """One search from a start state: the cheapest cost to and the last step into every state reached, and the
    states each tool runs in (cheapest first)."""

    dist: dict[_Key, float] = field(default_factory=dict)
    parent: dict[_Key, tuple[_Key, str]] = field(default_factory=dict)
    states: dict[_Key, dict[str, Any]] = field(default_factory=dict)
    runs_in: dict[str, list[_Key]] = field(default_factory=dict)
    into: dict[_Key, list[tuple[float, _Key, str]]] = field(default_factory=dict)
    """Every move into a state found: the cost of the path through it, the state before, the tool."""

    def path(self, key: _Key) -> list[tuple[str, str]]:
        """The tools from the start to ``key`` with what each makes, first first."""
        out: list[tuple[str, str]] = []
        while key in self.parent:
            before, name = self.parent[key]
            out.append((name, _show(_made(before, key))))
            key = before
        return out[::-1]

    def keys_on(self, key: _Key) -> list[_Key]:
        """The states the path to ``key`` passes through, ``key`` included."""
        out = [key]
        while key in self.parent:
            key = self.parent[key][0]
            out.append(key)
        return out

    def alternates(self, name: str, n: int) -> list[tuple[_Key, list[tuple[str, str]]]]:
        """Up to ``n`` ways to a state ``name`` runs in, cheapest first, each through another last tool:
        ``(state, steps)``."""
        ways: list[tuple[float, int, _Key, _Key | None, str | None]] = []
        for i, key in enumerate(self.runs_in.get(name, [])):
            if key not in self.parent:
                ways.append((self.dist[key], i, key, None, None))  # the start state itself
            for cost, before, step in self.into.get(key, []):
                if step != name:
                    ways.append((cost, i, key, before, step))
        out: list[tuple[_Key, list[tuple[str, str]]]] = []
        last: set[str | None] = set()
        for _, _, at, came, last_step in sorted(ways, key=lambda w: (w[0], w[1], w[4] or "")):
            if last_step in last:
                continue
            last.add(last_step)
            if came is None or last_step is None:
                out.append((at, []))
            else:
                out.append((at, [*self.path(came), (last_step, _show(_made(came, at)))]))
            if len(out) == n:
                break
        return out


def _made(before: _Key, after: _Key) -> dict[str, Any]:
    was = dict(before)
    return {k: v for k, v in after if was.get(k) != v}


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

    def __init__(self, tools: Iterable[ToolManifest], start: Mapping[str, Any] | None = None,
                 config: MenuConfig | None = None) -> None:  # fmt: skip
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
        self.config = config or MenuConfig()
        groups: dict[_Key, list[str]] = {}
        for t in self.tools.values():
            groups.setdefault(_freeze(t.pre), []).append(t.name)
        self._pre_groups = [(dict(pre), names) for pre, names in groups.items()]
        self._succ: dict[_Key, tuple[list[str], list[tuple[str, _Key, dict[str, Any]]]]] = {}
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

    def _moves(self, key: _Key, state: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, _Key, dict[str, Any]]]]:
        """The tools that run in ``state`` and the moves out of it (a tool whose ``post`` changes the state,
        with the state it leads to); cached per state (the graph does not depend on the task)."""
        found = self._succ.get(key)
        if found is None:
            runs: list[str] = []
            moves: list[tuple[str, _Key, dict[str, Any]]] = []
            for pre, names in self._pre_groups:
                if unmet(state, pre):
                    continue
                runs += names
                for name in names:
                    post = self.tools[name].post
                    if not post:
                        continue
                    after = apply(state, post)
                    after_key = _freeze(after)
                    if after_key != key:
                        moves.append((name, after_key, after))
            found = self._succ[key] = (runs, moves)
        return found

    def search(self, scores: Mapping[str, float], start: Mapping[str, Any] | None = None,
               config: MenuConfig | None = None) -> _Paths:  # fmt: skip
        """The cheapest tool path from ``start`` to every state it reaches (Dijkstra over the abstract states):
        a step costs 1, ``write_cost`` more for a WRITE tool (a poor bridge) and up to ``relevance_weight`` more
        the less relevant the tool is to the task. As deep as the states go (at most ``MAX_STATES`` states)."""
        cfg = config or self.config
        begin = dict(self.start if start is None else start)
        top = max(scores.values(), default=0.0) or 1.0

        def cost(name: str) -> float:
            rel = min(max(scores.get(name, 0.0), 0.0) / top, 1.0)
            return 1.0 + cfg.write_cost * self.tools[name].is_write + cfg.relevance_weight * (1.0 - rel)

        paths = _Paths()
        k0 = _freeze(begin)
        paths.dist[k0], paths.states[k0] = 0.0, begin
        heap: list[tuple[float, int, _Key]] = [(0.0, 0, k0)]
        tick = itertools.count(1)
        done: set[_Key] = set()
        while heap and len(done) < MAX_STATES:
            d, _, key = heapq.heappop(heap)
            if key in done:
                continue
            done.add(key)
            runs, moves = self._moves(key, paths.states[key])
            for name in runs:
                paths.runs_in.setdefault(name, []).append(key)
            for name, after_key, after in moves:
                nd = d + cost(name)
                paths.into.setdefault(after_key, []).append((nd, key, name))
                if nd < paths.dist.get(after_key, math.inf):
                    paths.dist[after_key], paths.parent[after_key], paths.states[after_key] = nd, (key, name), after
                    heapq.heappush(heap, (nd, next(tick), after_key))
        return paths

    def route(self, target: str, scores: Mapping[str, float], start: Mapping[str, Any] | None = None,
              paths: _Paths | None = None, *, alternate: int = 0, config: MenuConfig | None = None) -> _Route:  # fmt: skip
        """``target``'s route from ``start`` (default: the index's start state): the cheapest tool path to a state
        it runs in (``alternate`` > 0: the path to the next-cheapest such state reached by another last tool, or
        another alternative of a ``pre`` like ``"list|search"``), the verified providers of the inputs of every
        tool on it, and restores, producers first. ``complete`` is False when no path reaches a state it runs in."""
        begin = self.start if start is None else start
        paths = paths if paths is not None else self.search(scores, begin)
        r = _Route()
        ways = paths.alternates(target, alternate + 1)
        if len(ways) <= alternate:
            r.complete = False
            r.tools.append(target)
            r.roles[target] = ("target", "relevant to the task")
            return r
        at, steps = ways[alternate]
        for (name, made), nxt in zip(steps, [*(n for n, _ in steps[1:]), target], strict=False):
            r.roles.setdefault(name, ("producer", f"makes {made} for {nxt}"))
            r.edges.append((name, nxt))
            r.tools.append(name)
        r.tools.append(target)
        r.roles.setdefault(target, ("target", "relevant to the task"))
        self._relations(r, scores, paths, at)
        if alternate == 0:
            if (config or self.config).readers:
                self._reader(target, scores, r, paths.states[at])
            self._restores(r, scores, begin)
        return r

    def _relations(self, r: _Route, scores: Mapping[str, float], paths: _Paths, at: _Key) -> None:
        """The verified provider of each input of the route's tools: the best one that runs on the route
        (else the cheapest to reach), with its own path. A provider's providers are not followed (a dense
        relation graph would pull half the site into every route)."""
        on_route = set(paths.keys_on(at))
        for name in list(r.tools):
            for param, providers in sorted(self.tools[name].pre_tools.items()):
                known = [p for p in providers if p in self.tools and p != name and p in paths.runs_in]
                if not known or any(p in r.tools for p in known):
                    continue

                def rank(p: str) -> tuple[bool, float, float, str]:
                    here = any(k in on_route for k in paths.runs_in[p])
                    return (not here, paths.dist[paths.runs_in[p][0]], -scores.get(p, 0.0), p)

                p = min(known, key=rank)
                steps = [] if rank(p)[0] is False else paths.path(paths.runs_in[p][0])
                for step, made in steps:
                    if step not in r.tools:
                        r.roles.setdefault(step, ("producer", f"makes {made} for {p}"))
                        r.edges.append((step, p))
                        r.tools.insert(r.tools.index(name), step)
                r.roles.setdefault(p, ("relation", f"gives {param} to {name} (verified)"))
                r.edges.append((p, name))
                r.tools.insert(r.tools.index(name), p)

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
             start: Mapping[str, Any] | None = None, config: MenuConfig | None = None) -> Menu:  # fmt: skip
        """The menu of at most ``k`` tools for ``task`` from the state ``start`` (default: the index's);
        ``state_path=False`` gives the relevance-only top ``k`` (the baseline). ``include`` names tools
        (with their routes) that go in first.

        Only tools some path from ``start`` lets run are candidates (when none is, the relevance-only menu).
        Routes go in whole, best first: each relevant tool's cheapest route ranked by its score, then its
        alternate routes (another last producer, another alternative of its ``pre``) at ``alternate_decay``
        of it; the room left goes to the tools that add fewest new tools (READ first, then by score)."""
        if k < 1:
            raise ValueError(f"need k >= 1 (got {k})")
        cfg = config or self.config
        scores = self.scores(task)
        ranked = sorted(self.names, key=lambda n: (-scores[n], n))
        if not state_path:
            entries = [MenuEntry(n, "relevant", scores[n]) for n in ranked[:k]]
            return Menu(task, k, len(self.names), entries)
        begin = self.start if start is None else start
        paths = self.search(scores, begin, cfg)
        if not paths.runs_in:
            log.info("no tool runs from the start state: relevance-only menu")
            return self.menu(task, k, state_path=False)
        chosen: dict[str, tuple[str, str]] = {}
        edges: list[tuple[str, str]] = []

        def take(r: _Route, name: str, role: tuple[str, str] | None = None) -> bool:
            new = [t for t in r.tools if t not in chosen]
            if not r.complete or len(chosen) + len(new) > k:
                return False  # a route goes in whole or not at all; a shorter one further down may fit
            for t in new:
                chosen[t] = role if (role is not None and t == name) else r.roles.get(t, ("target", ""))
            edges.extend(e for e in r.edges if e not in edges)
            return True

        for name in include:
            if name in self.tools:
                take(self.route(name, scores, begin, paths, config=cfg), name)
        # routes by priority: a relevant tool's cheapest route at its score, its alternates at a decayed score,
        # each divided by (the tools it adds) ** per_tool (lazy greedy: a popped route's priority is taken
        # again against what the menu holds by then)
        relevant = [n for n in ranked if scores[n] > 0 and n in paths.runs_in][: cfg.targets]
        built: dict[tuple[str, int], _Route] = {}

        def priority(name: str, alt: int) -> float:
            if (name, alt) not in built:
                built[name, alt] = self.route(name, scores, begin, paths, alternate=alt, config=cfg)
            new = sum(t not in chosen for t in built[name, alt].tools)
            return scores[name] * cfg.alternate_decay**alt / max(new, 1) ** cfg.per_tool

        queue = [(-priority(n, 0), i, n, 0) for i, n in enumerate(relevant)]
        heapq.heapify(queue)
        tick = itertools.count(len(queue))
        while queue and len(chosen) < k:
            neg, _, name, alt = heapq.heappop(queue)
            now = -priority(name, alt)
            if queue and now > queue[0][0] + 1e-12:
                heapq.heappush(queue, (now, next(tick), name, alt))
                continue
            r = built[name, alt]
            if not r.complete:
                continue
            take(r, name)
            if alt < cfg.alternates - 1:
                heapq.heappush(queue, (-priority(name, alt + 1), next(tick), name, alt + 1))
        # the room left: what runs where the menu leads, cheapest to add first (READ first, then by score)
        routes = {n: self.route(n, scores, begin, paths, config=cfg) for n in paths.runs_in if n not in chosen}
        while len(chosen) < k and routes:
            def gain(n: str) -> tuple[int, bool, float, bool, str]:
                t = self.tools[n]  # a move to another state before a reader: it opens more of the site to the plan
                return (sum(x not in chosen for x in routes[n].tools), t.is_write, -scores[n], not t.post, n)

            name = min(routes, key=gain)
            r = routes.pop(name)
            if not take(r, name, ("follows", "runs where the menu's tools lead") if scores[name] <= 0 else None):
                continue
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
