"""``agentjit bench templates``: plan-template hits on literal variants of the bench tasks, and none on near misses.

For each app, every task is compiled once by a stand-in model that answers with the task's reference plan
(the first compile; it stores the plan and its template). Then, with no model call expected:

* **literal variants**: the task with other values in its slots. String values come from the tool input's
  ``enum`` when it has one, else from the values the same tool input takes in the site's other reference
  plans; numbers are moved by one or two (a number word stays a word). Only values the site's seed data
  has, together: the app's site is started, and a candidate the task's judge says names a value the seed
  lacks (another store that does not sell the item, a book title where an author goes) is left out, for
  a candidate that changes fewer slots. A variant *hits* when it compiles with ``origin == "template"``
  and 0 model calls.
* **near misses**: tasks that only look alike and must go to the model: a word of the task swapped for one
  that changes the meaning (``most`` -> ``least``), another target (``status`` -> ``priority``), a clause
  added, a number slot given a word that is no number, an enum slot given a value outside its enum (another
  input's value, so it looks plausible), a quoted slot given two values, a name slot given two names.
  Each near miss is compiled against the plan cache as it was after the first compiles (a near miss the
  model compiled stores a template of its own, which must not count for the next one).

Variants are generated from the templates themselves: nothing here knows a task.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentjit.cache import ToolCache
from agentjit.llm import FunctionModel, Message
from agentjit.planner import Planner, make_template
from agentjit.planner.templates import NUMBER_WORDS, Slot, Template
from agentjit.tasks.apps import get_app
from agentjit.tasks.task import Task

__all__ = ["APPS", "measure_templates", "literal_variants", "near_misses", "value_pool", "seed_check", "variant_values", "TemplateBench"]

APPS = ("food", "roundup", "fava", "django_admin", "trac")

_SWAPS = {
    "most": "least", "least": "most", "highest": "lowest", "lowest": "highest", "first": "last", "last": "first",
    "cheapest": "priciest", "expensive": "cheap", "oldest": "newest", "newest": "oldest", "recent": "oldest",
    "open": "closed", "add": "remove", "set": "clear", "raise": "lower", "new": "old", "under": "over",
    "delete": "restore", "close": "reopen", "create": "delete", "in": "not in", "which": "how many",
    "how many": "which", "are": "are not", "is": "is not", "has": "lacks", "have": "lack", "before": "after",
}  # fmt: skip
_TARGETS = {
    "status": "priority", "priority": "status", "issue": "milestone", "ticket": "milestone", "book": "author",
    "author": "book", "restaurant": "category", "restaurants": "categories", "item": "review", "store": "section",
    "reviews": "items", "account": "payee", "transactions": "postings", "message": "title", "page": "ticket",
    "comment": "description", "balance": "budget", "price": "rating", "country": "city", "loan": "book",
    "category": "section", "issues": "users", "tickets": "milestones", "books": "authors", "wiki": "ticket",
}  # fmt: skip
_NOT_A_NUMBER = "several"

log = logging.getLogger(__name__)


@dataclass
class Probe:
    """One variant or near miss and what compiling it did."""

    kind: str
    task: str
    of: str
    how: str
    origin: str = ""
    model_calls: int = 0
    error: str = ""
    source: str = ""
    judged: bool | None = None
    """With ``run``: the hit's plan ran on the site and the task's judge accepted it (None: not run)."""
    judge_reason: str = ""
    seed_lacks: str = ""
    """With ``run``: why no run can pass (the variant names a value the site's seed data lacks), or ``""``."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "task": self.task, "of": self.of, "how": self.how, "origin": self.origin,
                "model_calls": self.model_calls, "error": self.error, "judged": self.judged,
                "judge_reason": self.judge_reason, "seed_lacks": self.seed_lacks}  # fmt: skip


@dataclass
class TemplateBench:
    """Per app: tasks, how many had a template, and every probe."""

    apps: dict[str, dict[str, Any]] = field(default_factory=dict)
    probes: list[Probe] = field(default_factory=list)
    wall_s: float = 0.0

    def summary(self) -> dict[str, Any]:
        lit = [p for p in self.probes if p.kind == "variant"]
        near = [p for p in self.probes if p.kind == "near_miss"]
        hits = [p for p in lit if p.origin == "template" and p.model_calls == 0]
        near_hits = [p for p in near if p.origin in ("template", "cache")]
        return {
            "tasks": sum(a["tasks"] for a in self.apps.values()),
            "tasks_with_template": sum(a["with_template"] for a in self.apps.values()),
            "variants": len(lit), "variant_hits": len(hits),
            "variant_hit_rate": round(len(hits) / len(lit), 4) if lit else None,
            "near_misses": len(near), "near_miss_hits": len(near_hits),
            "model_calls_on_hits": sum(p.model_calls for p in hits),
            "hits_run": sum(p.judged is not None for p in hits),
            "hits_judged_right": sum(p.judged is True for p in hits),
            "hits_seed_lacks": sum(bool(p.seed_lacks) for p in hits),
            "hits_seed_has_judged_right": sum(p.judged is True for p in hits if not p.seed_lacks),
            "wall_s": round(self.wall_s, 2),
        }  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        per_app = {}
        for app, info in self.apps.items():
            mine = [p for p in self.probes if p.of.startswith(f"{app}/")]
            lit = [p for p in mine if p.kind == "variant"]
            near = [p for p in mine if p.kind == "near_miss"]
            per_app[app] = {**info, "variants": len(lit),
                            "variant_hits": sum(p.origin == "template" and p.model_calls == 0 for p in lit),
                            "near_misses": len(near), "near_miss_hits": sum(p.origin in ("template", "cache") for p in near)}
        return {"summary": self.summary(), "apps": per_app, "probes": [p.to_json() for p in self.probes]}


def _spans(template: Template) -> list[tuple[int, int, str]]:
    """``(start, end, slot name)`` of each placeholder in the masked task."""
    return [(m.start(), m.end(), m.group(1)) for m in re.finditer(r"\{(s\d+)\}", template.masked)]


def _render(template: Template, texts: dict[str, str]) -> str:
    out, pos = [], 0
    for start, end, name in _spans(template):
        out.append(template.masked[pos:start])
        out.append(texts[name])
        pos = end
    out.append(template.masked[pos:])
    return "".join(out)


def _original_texts(template: Template) -> dict[str, str]:
    """Each slot's text as the task wrote it."""
    m = template.pattern().match(re.sub(r"\s+", " ", template.task).strip(" \t\n.,;:!?()[]{}"))
    assert m is not None, template.task
    return {s.name: m.group(s.name) for s in template.slots}


def _alternatives(slot: Slot, written: str, pool: dict[str, list[str]]) -> list[str]:
    """Other texts for ``slot`` (written ``written`` in the task), best first."""
    if slot.kind == "int":
        assert isinstance(slot.value, int)
        out = []
        for n in (slot.value + 1, slot.value + 2):
            word = next((w for w, v in NUMBER_WORDS.items() if v == n), None)
            out.append(word if written.lower() in NUMBER_WORDS and word else str(n))
        return out
    if slot.kind == "float":
        assert isinstance(slot.value, float)
        return [f"{slot.value + 1.25:.2f}", f"{slot.value + 3.5:.2f}"]
    if slot.enum is not None:
        return [str(v) for v in slot.enum if isinstance(v, str) and v != slot.value and v.strip()]
    seen: list[str] = []
    for inp in slot.inputs:
        for v in pool.get(inp, []):
            if v != slot.value and v not in seen:
                seen.append(v)
    return seen


def literal_variants(template: Template, pool: dict[str, list[str]], *, limit: int = 3,
                     seed_lacks: Callable[[str], str] | None = None, tries: int = 24) -> list[tuple[str, str]]:  # fmt: skip
    """Up to ``limit`` ``(task, how)``: the template's task with other values in some of its slots.

    Candidates give every slot that has other values another value first, then fewer slots at a time (a
    store kept, a quantity changed). With ``seed_lacks`` (the reason the site's own data cannot answer a
    task's text, or ``""``), a candidate that names a value the site lacks, or values it does not have
    together (an item at a store that does not sell it, a book title where an author goes), is left out;
    at most ``tries`` candidates are asked about."""
    written = _original_texts(template)
    options = {s.name: _alternatives(s, written[s.name], pool) for s in template.slots}
    movable = [s.name for s in template.slots if options[s.name]]
    seen = {_render(template, written)}
    out: list[tuple[str, str]] = []
    asked = 0
    for size in range(len(movable), 0, -1):
        for subset in itertools.combinations(movable, size):
            for i in range(max(limit, *(len(options[n]) for n in subset))):
                if len(out) >= limit or asked >= tries:
                    return out
                texts = dict(written)
                for name in subset:
                    texts[name] = options[name][i % len(options[name])]
                task = _render(template, texts)
                if task in seen:
                    continue
                seen.add(task)
                if seed_lacks is not None:
                    asked += 1
                    why = seed_lacks(task)
                    if why:
                        log.info("templates: variant %r left out: %s", task, why)
                        continue
                out.append((task, ", ".join(f"{n}={texts[n]!r}" for n in subset)))
    return out


def variant_values(template: Template, variant: str) -> dict[str, str]:
    """Each literal of the template's task (as written, and its typed value as the plan has it: ``two`` and
    ``2``) mapped to the one ``variant`` has in the same slot; slots the variant keeps are left out. Empty
    when ``variant`` is not the template's task with other values."""
    typed = template.match(variant)
    m = template.pattern().match(re.sub(r"\s+", " ", variant).strip(" \t\n.,;:!?()[]{}"))
    if typed is None or m is None:
        return {}
    written = _original_texts(template)
    out: dict[str, str] = {}
    for slot in template.slots:
        new = m.group(slot.name)
        if new == written[slot.name]:
            continue
        out[written[slot.name]] = new
        if str(slot.value) != written[slot.name]:
            out[str(slot.value)] = str(typed[slot.name])
    return out


def _swap_word(text: str, table: dict[str, str]) -> tuple[str, str] | None:
    """``text`` with its first word (outside slots) found in ``table`` replaced, and what was swapped."""
    for m in re.finditer(r"[A-Za-z]+(?: many)?", text):
        word = m.group(0)
        low = word.lower()
        if low in table and not _in_placeholder(text, m.start()):
            new = table[low]
            new = new[:1].upper() + new[1:] if word[:1].isupper() else new
            return text[:m.start()] + new + text[m.end():], f"{word} -> {new}"
    return None


def _in_placeholder(text: str, pos: int) -> bool:
    return any(m.start() <= pos < m.end() for m in re.finditer(r"\{s\d+\}", text))


def near_misses(template: Template, other_enums: Sequence[Sequence[Any]],
                pool: dict[str, list[str]]) -> list[tuple[str, str]]:  # fmt: skip
    """``(task, how)`` of tasks that look like the template's but mean something else (an enum slot gets a value
    of another enum of the site, else another input's value)."""
    written = _original_texts(template)
    out: list[tuple[str, str]] = []
    for table, how in ((_SWAPS, "meaning"), (_TARGETS, "target")):
        swapped = _swap_word(template.masked, table)
        if swapped is not None:
            masked, what = swapped
            out.append((_render(Template(template.task, template.source, masked, template.slots), written),
                        f"{how}: {what}"))
    out.append((_render(template, written).rstrip(" .?!") + ", and then delete it", "clause added"))
    for slot in template.slots:
        texts = dict(written)
        if slot.kind in ("int", "float"):
            texts[slot.name] = _NOT_A_NUMBER
            out.append((_render(template, texts), f"{slot.name}: not a number"))
        elif slot.enum is not None:
            inside = {str(x).lower() for x in slot.enum}
            foreign = next((str(v) for e in [*other_enums, *pool.values()] for v in e
                            if isinstance(v, str) and v.strip() and v.lower() not in inside), None)
            if foreign is not None:
                texts[slot.name] = foreign
                out.append((_render(template, texts), f"{slot.name}: {foreign!r} outside the enum"))
        elif slot.quoted:
            q = template.masked[template.masked.index("{" + slot.name + "}") - 1]
            closing = {"\u201c": "\u201d", "\u2018": "\u2019"}.get(q, q)
            texts[slot.name] = f"{written[slot.name]}{closing} and {q}{written[slot.name]} too"
            out.append((_render(template, texts), f"{slot.name}: two values"))
        else:
            texts[slot.name] = f"{written[slot.name]} or {written[slot.name]}s"
            out.append((_render(template, texts), f"{slot.name}: two names"))
    return out


async def _run_hits(cache: ToolCache, site: Any, runnable: list[tuple[Probe, Task]]) -> None:
    """Run each hit's plan on the app's own ``site`` (running; reset before each) and record its judge's verdict,
    and whether the variant names a value the site's seed data lacks (none should: see :func:`literal_variants`)."""
    from agentjit.tasks.runner import run_tasks

    site.reset()
    seeded = site.state()
    for probe, task in runnable:
        probe.seed_lacks = task.seed_lacks(seeded, site.url)
    report = await run_tasks([task for _, task in runnable], cache=cache, site=site,
                             plan_for=lambda task, _cache: (task.plan_source(), "template"))  # fmt: skip
    verdicts = {r.id: r for r in report.tasks}
    for probe, task in runnable:
        res = verdicts.get(task.id)
        probe.judged = bool(res is not None and res.ok)
        probe.judge_reason = res.reason if res is not None else "not run"


def seed_check(task: Task, seeded: dict[str, Any], site_url: str) -> Callable[[str], str] | None:
    """A function from the text of a variant of ``task`` to the reason the site's seed data cannot answer it
    (``""`` when it can), asked of the task's judge against ``seeded`` (the untouched site's state; the site
    runs at ``site_url``); None when the judge does not read its values from the task (it cannot tell)."""
    if not task.judges_read_task:
        return None
    return lambda text: dataclasses.replace(task, task=text).seed_lacks(seeded, site_url)


def value_pool(templates: Iterable[Template]) -> dict[str, list[str]]:
    """For each tool input, the string values the site's reference plans give it (the site's own values)."""
    pool: dict[str, list[str]] = {}
    for t in templates:
        for s in t.slots:
            if isinstance(s.value, str):
                for inp in s.inputs:
                    if s.value not in pool.setdefault(inp, []):
                        pool[inp].append(s.value)
    return pool


async def measure_templates(apps: Sequence[str] = APPS, *, variants: int = 3, run: bool = False,
                            on_probe: Any = None) -> TemplateBench:  # fmt: skip
    """Compile every task of ``apps`` once, then its literal variants and near misses (see the module).

    With ``run``, every hit whose task has a judge that reads its values from the task's text (a site judge
    marked ``reads_task``) runs on the app's own site, started here, and that judge says whether it is right.
    """
    bench = TemplateBench()
    t0 = time.perf_counter()
    for app_name in apps:
        await _measure_app(app_name, bench, variants=variants, run=run, on_probe=on_probe)
    bench.wall_s = time.perf_counter() - t0
    return bench


async def _measure_app(app_name: str, bench: TemplateBench, *, variants: int, run: bool, on_probe: Any) -> None:
    app = get_app(app_name)
    tasks = [t for t in app.tasks() if t.has_plan]
    cache: ToolCache = copy.copy(app.load_cache())
    cache.plans, cache.path, cache.plans_path = {}, None, None  # in memory only: the bundled cache is not touched
    answer = {"source": ""}

    def reply(_messages: list[Message], answer: dict[str, str] = answer) -> str:
        return f"```python\n{answer['source']}```"

    model = FunctionModel(reply, name="reference-plans")
    planner = Planner(model, cache, n=1, k=1)
    templates: list[tuple[str, Template]] = []
    for task in tasks:
        answer["source"] = task.plan_source()
        await planner.compile(task.task)
        t = make_template(task.task, answer["source"], cache)
        if t is not None:
            templates.append((task.id, t))
    bench.apps[app_name] = {"tasks": len(tasks), "with_template": len(templates),
                            "without_template": [t.id for t in tasks if t.id not in {i for i, _ in templates}]}
    after_first = dict(cache.plans)
    pool = value_pool(t for _, t in templates)
    enums = [tuple(p.get("enum", ())) for tool in cache.tools.values() for p in tool.parameters.values()
             if isinstance(p, dict) and p.get("enum")]  # fmt: skip

    async def probe(kind: str, text: str, of: str, how: str, source: str) -> None:
        answer["source"] = source
        calls = len(model.calls)
        p = Probe(kind, text, of, how)
        try:
            plan = await planner.compile(text)
            p.origin, p.source = plan.origin, plan.source
        except Exception as exc:  # a stand-in answer the checker rejects for this task: still a model call
            p.origin, p.error = "model", f"{type(exc).__name__}: {exc}"[:200]
        p.model_calls = len(model.calls) - calls
        bench.probes.append(p)
        if on_probe is not None:
            on_probe(p)

    by_id = {t.id: t for t in tasks}
    runnable: list[tuple[Probe, Task]] = []
    # the app's own site, started even without ``run``: a variant's values must be ones its seed data has
    site = app.site(latency_scale=0.0)
    site.start()
    try:
        site.reset()
        seeded = site.state()
        for task_id, t in templates:
            original = by_id[task_id]
            check = seed_check(original, seeded, site.url)
            for n, (text, how) in enumerate(literal_variants(t, pool, limit=variants, seed_lacks=check)):
                await probe("variant", text, f"{app_name}/{task_id}", how, t.source)
                hit = bench.probes[-1]
                if hit.origin == "template" and original.judges_read_task:
                    runnable.append((hit, dataclasses.replace(original, id=f"{task_id}~{n}", task=text,
                                                              plan_text=hit.source)))  # fmt: skip
        if run and runnable:
            await _run_hits(cache, site, runnable)
    finally:
        site.stop()
    for task_id, t in templates:
        for text, how in near_misses(t, enums, pool):
            cache.plans = dict(after_first)
            await probe("near_miss", text, f"{app_name}/{task_id}", how, t.source)
    cache.plans = after_first
