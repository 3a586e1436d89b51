"""Tasks and their judges (app-independent; the bench apps' tasks and user task files build on them).

A :class:`Task` is a natural-language instruction for one app, a reference plan
(a Python plan file over the app's tools) and a *judge*: a callable
``judge(answer, state_before, state_after) -> JudgeResult`` where the states are
the site's ``GET /__state`` snapshots (``{"cart", "orders", "log"}``) taken
before and after the run. Read tasks are judged on the answer (and on leaving
the state alone); write tasks on the state diff: how many new orders, what they
contain, their totals, and that nothing else changed.

The helpers here build judges; :func:`all_of` combines them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from agentjit.protocol.schema import to_plain

__all__ = [
    "Task",
    "SiteJudge",
    "select_tasks",
    "ran_to_completion",
    "JudgeResult",
    "Judge",
    "answer_text",
    "numbers_in",
    "norm_text",
    "norm_answer",
    "answers_match",
    "answer_is",
    "all_of",
    "contains_numbers",
    "contains_texts",
    "unchanged",
    "new_orders",
    "new_log",
    "orders_placed",
    "cart_holds",
    "from_task",
    "reads_task",
    "TaskJudge",
    "unknown_value",
]

State = dict[str, Any]
_J = TypeVar("_J", bound=Callable[..., Any])


@dataclass(frozen=True)
class JudgeResult:
    ok: bool
    reason: str
    lacks: bool = False
    """The task names a value the site's seed data does not have (:func:`unknown_value`): no run can pass."""

    def __bool__(self) -> bool:
        return self.ok


Judge = Callable[[Any, State, State], JudgeResult]


SiteJudge = Callable[["Task", Any, str], Any]
"""A judge that reads the site's own storage: ``judge(task, result, site_url)``.

``result`` is the run's :class:`~agentjit.runtime.RunResult` (``result.value``
is the plan's answer); the judge returns ``bool``, ``(bool, reason)`` or a
:class:`JudgeResult`.
"""


def ran_to_completion(answer: Any, before: State, after: State) -> JudgeResult:
    """The judge of a task with no expected answer and no judge: the plan ran."""
    return JudgeResult(True, "ran to completion (no answer or judge to compare with)")


@dataclass(frozen=True)
class Task:
    """One task. ``expected`` documents the right answer (judges compute their own).

    The reference plan is ``plan_text`` if given, else the file ``reference_plan``.
    ``site_judge`` (from a task file's ``judge``) runs after ``judge``; both must accept.
    """

    id: str
    app: str
    task: str
    kind: str
    """``read``, ``write`` or ``""`` (not said)."""
    reference_plan: Path | None
    judge: Judge = ran_to_completion
    cardinality: int = 1
    expected: Any = None
    plan_text: str | None = None
    site_judge: SiteJudge | None = None
    origin: str = ""
    """Where the task was defined (``tasks.toml, task #3``), for messages."""

    @property
    def has_plan(self) -> bool:
        return self.plan_text is not None or self.reference_plan is not None

    def plan_source(self) -> str:
        if self.plan_text is not None:
            return self.plan_text
        if self.reference_plan is None:
            from agentjit.exceptions import ConfigError

            raise ConfigError(f"task {self.id!r} has no reference plan: compile it with --model")
        return self.reference_plan.read_text(encoding="utf-8")

    @property
    def judges_read_task(self) -> bool:
        """Whether every judge of the task reads its expected values from the task's text (a
        :class:`TaskJudge`, a site judge marked :func:`reads_task`), so a literal variant of the task
        (other values in the same words) is judged on its own values."""
        judges = [j for j in (self.judge, self.site_judge) if j is not None and j is not ran_to_completion]
        return bool(judges) and all(getattr(j, "reads_task", False) for j in judges)

    def evaluate(self, result: Any, before: State, after: State, site_url: str) -> JudgeResult:
        """Judge a finished run: ``judge`` on the answer and the state snapshots, then ``site_judge``."""
        judge = self.judge.build(self.task) if isinstance(self.judge, TaskJudge) else self.judge
        verdict = judge(result.value, before, after)
        if not verdict.ok or self.site_judge is None:
            return verdict
        try:
            raw = self.site_judge(self, result, site_url)
        except Exception as exc:  # a user's judge failing is the task's failure, not the harness's
            return JudgeResult(False, f"judge raised {type(exc).__name__}: {exc}")
        return _as_verdict(raw)

    def seed_lacks(self, state: State, site_url: str) -> str:
        """Why no run can pass this task on the site as seeded (it names a value the seed data lacks, so
        its judge says so before any run: ``state`` is the untouched site's snapshot), or ``""``."""
        verdict = self.evaluate(_NO_ANSWER, state, state, site_url)
        return verdict.reason if verdict.lacks else ""

    def to_json(self) -> dict[str, Any]:
        plan = str(self.reference_plan) if self.reference_plan is not None else ("inline" if self.plan_text else None)
        return {"id": self.id, "task": self.task, "kind": self.kind, "reference_plan": plan}


@dataclass(frozen=True)
class _NoRun:
    value: Any = None


_NO_ANSWER = _NoRun()


def _as_verdict(raw: Any) -> JudgeResult:
    if isinstance(raw, JudgeResult):
        return raw
    if isinstance(raw, bool):
        return JudgeResult(raw, "judge accepted" if raw else "judge rejected")
    if isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[0], bool):
        return JudgeResult(raw[0], str(raw[1]))
    return JudgeResult(False, f"judge returned {raw!r}, not a bool or (bool, reason)")


def select_tasks(tasks: Sequence[Task], task_ids: Sequence[str] | None) -> list[Task]:
    """The tasks named by ``task_ids`` in that order (all without ids); unknown ids and an
    empty selection are errors."""
    from agentjit.exceptions import ConfigError

    if task_ids:
        known = {t.id: t for t in tasks}
        missing = [t for t in task_ids if t not in known]
        if missing:
            have = ", ".join(known) or "none"
            raise ConfigError(f"unknown task id(s): {', '.join(missing)} (have: {have})")
        tasks = [known[t] for t in task_ids]
    if not tasks:
        raise ConfigError("no tasks to run")
    return list(tasks)


# -- answers -----------------------------------------------------------------

def answer_text(answer: Any) -> str:
    """The answer as text: strings as they are; pydantic objects, dicts and lists as JSON."""
    if isinstance(answer, str):
        return answer
    try:
        return json.dumps(to_plain(answer, stringify=True), ensure_ascii=False)
    except (TypeError, ValueError):
        return str(answer)


_NUMBER = re.compile(r"(?<![\w.])-?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number in ``text`` (``$1,234.50`` -> 1234.5)."""
    out = []
    for m in _NUMBER.finditer(text):
        out.append(float(m.group(1).replace(",", "") + (m.group(2) or "")))
    return out


def from_task(task: Any, pattern: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """The values ``pattern``'s groups find in the task's text, or ``default`` (the bundled task's own values).

    A site judge that reads what was asked from the task holds for the task with other values too (a literal
    variant: another ticket, status or comment, as ``agentjit bench templates --run`` makes).
    """
    text = getattr(task, "task", None)
    m = re.search(pattern, text) if isinstance(text, str) else None
    return tuple(m.groups()) if m is not None else default


@dataclass(frozen=True)
class TaskJudge:
    """A :data:`Judge` whose expected values come from the task's text: ``build(text)`` reads the values
    (a store, a number, an item) and returns the judge of that text, so a literal variant of the task is
    judged on its own values. :meth:`Task.evaluate` builds it from the task it judges; called bare it
    judges ``text``, the bundled task's own."""

    build: Callable[[str], Judge]
    text: str
    reads_task: ClassVar[bool] = True

    def __call__(self, answer: Any, before: State, after: State) -> JudgeResult:
        return self.build(self.text)(answer, before, after)


def unknown_value(what: str) -> JudgeResult:
    """The verdict on a task (a literal variant) that names ``what``, which the site's seed data lacks."""
    return JudgeResult(False, f"the task names {what}, which the seed data does not have", lacks=True)


def reads_task(judge: _J) -> _J:
    """Mark a site judge as one that reads its expected values from the task's text (see :func:`from_task`):
    the template benches run literal variants only against such judges."""
    judge.reads_task = True  # type: ignore[attr-defined]
    return judge


def norm_text(text: str) -> str:
    """Lower case, straight quotes, single spaces: for containment tests."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text.lower()).strip()


def judge_read(diff: Sequence[tuple[str, ...]], answer: Any, wanted: Sequence[str], *,
               unwanted: Sequence[str] = ()) -> JudgeResult:
    """A read task's verdict from the database's changes since the seed (``diff``, which must be
    empty) and the answer, which must name every ``wanted`` value and no ``unwanted`` one."""
    if diff:
        return JudgeResult(False, f"a read task changed the database: {list(diff)[:3]}")
    text = norm_text(answer_text(answer))
    missing = [w for w in wanted if norm_text(w) not in text]
    if missing:
        return JudgeResult(False, f"answer lacks {missing}")
    wrong = [w for w in unwanted if norm_text(w) in text]
    if wrong:
        return JudgeResult(False, f"answer names {wrong}, which it should not")
    return JudgeResult(True, f"answer names {len(wanted)} expected value(s), database unchanged")


def judge_count(diff: Sequence[tuple[str, ...]], answer: Any, expected: int) -> JudgeResult:
    """A counting read task's verdict: the database unchanged (``diff`` empty), the answer the
    number ``expected`` or a text holding it."""
    if diff:
        return JudgeResult(False, f"a read task changed the database: {list(diff)[:3]}")
    found = [float(answer)] if isinstance(answer, int | float) and not isinstance(answer, bool) else numbers_in(answer_text(answer))
    if float(expected) not in found:
        return JudgeResult(False, f"answer {answer!r} is not {expected}")
    return JudgeResult(True, f"answer is {expected}")


def judge_exact(diff: Sequence[tuple[str, ...]], want: Sequence[tuple[str, ...]]) -> JudgeResult:
    """A write task's verdict: the database differs from the seed by ``want`` and nothing else
    (``diff``, sorted, is every change; a change made twice is two)."""
    wanted = sorted(want)
    if list(diff) == wanted:
        return JudgeResult(True, f"exactly the change(s) asked for: {wanted}")
    extra = list(diff)
    for w in wanted:
        if w in extra:
            extra.remove(w)
    if len(extra) == len(diff) - len(wanted):
        return JudgeResult(False, f"the change was made, with others or twice: {extra[:4]}")
    return JudgeResult(False, f"wanted {wanted}, the database shows {list(diff)[:4] or 'no change'}")


def norm_answer(text: str) -> str:
    """:func:`norm_text` without surrounding quotes and trailing full stops."""
    return norm_text(text).strip("\"'").rstrip(".").strip()


def answers_match(expected: Any, answer: Any, *, tolerance: float = 0.005) -> bool:
    """Whether ``answer`` is ``expected`` after normalisation.

    Strings compare by :func:`norm_answer`; a number matches a number within
    ``tolerance`` or a text holding exactly that one number (``"$12.50"``);
    booleans also match ``yes``/``no``/``true``/``false``; lists match item by
    item in order; dicts key by key.
    """
    answer = to_plain(answer, stringify=True)
    if isinstance(expected, bool):
        if isinstance(answer, str):
            return norm_answer(answer) in (("yes", "true") if expected else ("no", "false"))
        return answer is expected
    if isinstance(expected, int | float):
        if isinstance(answer, bool):
            return False
        if isinstance(answer, int | float):
            return abs(float(answer) - expected) <= tolerance
        found = numbers_in(answer) if isinstance(answer, str) else []
        return len(found) == 1 and abs(found[0] - expected) <= tolerance
    if isinstance(expected, str):
        if isinstance(answer, int | float) and not isinstance(answer, bool):
            return answers_match(answer, expected, tolerance=tolerance)
        return norm_answer(answer_text(answer)) == norm_answer(expected)
    if isinstance(expected, list):
        return (
            isinstance(answer, list | tuple)
            and len(answer) == len(expected)
            and all(answers_match(e, a, tolerance=tolerance) for e, a in zip(expected, answer, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(answer, dict)
            and set(answer) == set(expected)
            and all(answers_match(v, answer[k], tolerance=tolerance) for k, v in expected.items())
        )
    return bool(answer == expected)


def answer_is(expected: Any) -> Judge:
    """The answer is ``expected`` after normalisation (:func:`answers_match`)."""

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        if answers_match(expected, answer):
            return JudgeResult(True, f"answer is {expected!r}")
        return JudgeResult(False, f"answer {answer_text(answer)[:200]!r} is not {expected!r}")

    return judge


def contains_numbers(*expected: float, tolerance: float = 0.005) -> Judge:
    """The answer mentions every number in ``expected`` (within ``tolerance``)."""

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        if isinstance(answer, bool):
            return JudgeResult(False, f"answer {answer!r} is not a number")
        found = [float(answer)] if isinstance(answer, int | float) else numbers_in(answer_text(answer))
        missing = [x for x in expected if not any(abs(x - f) <= tolerance for f in found)]
        if missing:
            return JudgeResult(False, f"answer lacks {missing} (numbers found: {found[:10]})")
        return JudgeResult(True, f"answer mentions {list(expected)}")

    return judge


def contains_texts(texts: Iterable[str], *, label: str = "text") -> Judge:
    """The answer contains every string of ``texts`` (case-insensitive)."""
    wanted = list(texts)

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        text = norm_text(answer_text(answer))
        missing = [t for t in wanted if norm_text(t) not in text]
        if missing:
            return JudgeResult(False, f"answer lacks {label} {missing}")
        return JudgeResult(True, f"answer names every {label} ({len(wanted)})")

    return judge


def all_of(*judges: Judge) -> Judge:
    """Every judge must accept; the first rejection is the verdict."""

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        reasons = []
        for j in judges:
            r = j(answer, before, after)
            if not r.ok:
                return r
            reasons.append(r.reason)
        return JudgeResult(True, "; ".join(reasons))

    return judge


# -- state diffs -------------------------------------------------------------

def new_orders(before: State, after: State) -> list[dict[str, Any]]:
    known = {o["id"] for o in before.get("orders", [])}
    return [o for o in after.get("orders", []) if o["id"] not in known]


def new_log(before: State, after: State) -> list[dict[str, Any]]:
    last = max((e["seq"] for e in before.get("log", [])), default=0)
    return [e for e in after.get("log", []) if e["seq"] > last]


def _cart_key(lines: Sequence[dict[str, Any]]) -> list[tuple[str, str, str, int]]:
    return sorted(
        (ln["store"], ln["item_name"], json.dumps(ln.get("options", {}), sort_keys=True), ln["quantity"]) for ln in lines
    )


def unchanged() -> Judge:
    """Nothing was written: no new orders, no state-changing request, the same cart."""

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        if new_orders(before, after):
            return JudgeResult(False, f"a read task placed {len(new_orders(before, after))} order(s)")
        writes = new_log(before, after)
        if writes:
            return JudgeResult(False, f"a read task changed the site: {[(e['method'], e['path']) for e in writes]}")
        if _cart_key(before.get("cart", [])) != _cart_key(after.get("cart", [])):
            return JudgeResult(False, "a read task changed the cart")
        return JudgeResult(True, "state unchanged")

    return judge


LineTest = Callable[[dict[str, Any]], bool]

_ORDER_PATHS = frozenset({"/api/cart", "/api/cart/remove", "/checkout/place"})


def orders_placed(
    *,
    count: int = 1,
    line: LineTest | None = None,
    line_desc: str = "a matching item",
    only_matching: bool = False,
    max_total: float | None = None,
    mode: str | None = None,
    quantity: int | None = None,
) -> Judge:
    """Exactly ``count`` new orders, each with a line passing ``line`` (all lines when
    ``only_matching``), total under ``max_total``, the given ``mode`` and total matching-line
    ``quantity``; no other change: only cart and checkout requests, one successful
    placement per order, the cart left as before.
    """

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        orders = new_orders(before, after)
        if len(orders) != count:
            return JudgeResult(False, f"expected exactly {count} new order(s), found {len(orders)}")
        for order in orders:
            lines = order.get("lines", [])
            matching = [ln for ln in lines if line is None or line(ln)]
            if not matching:
                names = [ln["item_name"] for ln in lines]
                return JudgeResult(False, f"order {order['id']} has no {line_desc} (lines: {names})")
            if only_matching and len(matching) != len(lines):
                extra = [ln["item_name"] for ln in lines if ln not in matching]
                return JudgeResult(False, f"order {order['id']} has other items too: {extra}")
            if quantity is not None and sum(ln["quantity"] for ln in matching) != quantity:
                got = sum(ln["quantity"] for ln in matching)
                return JudgeResult(False, f"order {order['id']} has {got} of {line_desc}, expected {quantity}")
            if max_total is not None and not order["total"] < max_total:
                return JudgeResult(False, f"order {order['id']} total ${order['total']:.2f} is not under ${max_total:.2f}")
            if mode is not None and order.get("mode") != mode:
                return JudgeResult(False, f"order {order['id']} is {order.get('mode')}, expected {mode}")
        writes = new_log(before, after)
        stray = [e["path"] for e in writes if e["path"] not in _ORDER_PATHS]
        if stray:
            return JudgeResult(False, f"unexpected state changes: {stray}")
        placed = [e for e in writes if e["path"] == "/checkout/place" and e.get("status", 303) < 400]
        if len(placed) != count:
            return JudgeResult(False, f"{len(placed)} successful order placements logged, expected {count}")
        if _cart_key(after.get("cart", [])) != _cart_key(before.get("cart", [])):
            return JudgeResult(False, "the cart was left changed after ordering")
        totals = ", ".join(f"{o['id']} ${o['total']:.2f}" for o in orders)
        return JudgeResult(True, f"{count} new order(s) with {line_desc}: {totals}")

    return judge


def cart_holds(expected: Sequence[dict[str, Any]]) -> Judge:
    """The cart is exactly ``expected`` lines (``item_name``, ``quantity``, optional ``options``
    subset), in any order, and no order was placed."""

    def matches(line: dict[str, Any], want: dict[str, Any]) -> bool:
        if norm_text(line["item_name"]) != norm_text(want["item_name"]):
            return False
        if line["quantity"] != want.get("quantity", 1):
            return False
        for key, value in (want.get("options") or {}).items():
            if norm_text(str(line.get("options", {}).get(key))) != norm_text(str(value)):
                return False
        return True

    def judge(answer: Any, before: State, after: State) -> JudgeResult:
        if new_orders(before, after):
            return JudgeResult(False, "an order was placed; the task only fills the cart")
        cart = list(after.get("cart", []))
        if len(cart) != len(expected):
            return JudgeResult(False, f"cart has {len(cart)} line(s), expected {len(expected)}: "
                               f"{[ln['item_name'] for ln in cart]}")
        remaining = list(cart)
        for want in expected:
            hit = next((ln for ln in remaining if matches(ln, want)), None)
            if hit is None:
                return JudgeResult(False, f"cart lacks {want} (cart: {[(ln['item_name'], ln['options'], ln['quantity']) for ln in cart]})")
            remaining.remove(hit)
        return JudgeResult(True, f"cart holds the {len(expected)} expected line(s)")

    return judge
