"""The plan and repair prompts, and code extraction from a model's answer.

Structure after the paper's Prompt 1 (appendix I): a fixed system message
(role, rules, few-shot examples) and a user message (the tool stubs, the
current abstract state, the task). A repair keeps the conversation, adds the
failed candidate as the assistant's turn and the rendered diagnostics as the
next user turn. Wording and examples are our own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agentjit.cache import ToolCache
from agentjit.llm import Message
from agentjit.plan.diagnostics import Diagnostic, render
from agentjit.protocol.manifest import ToolManifest

from .stubs import render_stubs

__all__ = ["SYSTEM_PROMPT", "EXAMPLE_TOOLS", "plan_messages", "repair_messages", "extract_code", "solved_examples", "run_repair_messages"]

SYSTEM_PROMPT = """\
You write short Python programs ("plans") that finish a user's task on a website by calling \
the site's tools. A plan runs top to bottom in an async context with the tools already in scope.

Rules:
- Call every tool, ai_eval and ask_human with await, and only with the parameters its stub declares.
- Put the final answer in a variable named result (a string, number, list or dict).
- No imports, no function or class definitions, no lambda, no with, no names starting with _.
- Each tool has a precondition (pre) on the STATE and a postcondition (post). Before every call \
the STATE must guarantee its pre on every path through ifs and loops; navigate first if needed. \
In a loop, leave the STATE at the end of the body as the top of the body needs it.
- Read only fields that the output models declare.
- Prefer plain code over ai_eval: compare, count, filter and format with Python. Use ai_eval only \
for judgement code cannot make (matching a vague user phrase, summarising free text), and never \
inside a loop when one call after the loop would do.
- WRITE tools change the site: call them in plain statements or for loops, never inside comprehensions.
- Answer with one ```python block and nothing else.

Examples. They are from ANOTHER, MADE-UP site: open_shop, read_menu, list_shops, shop_info, back_to_start, \
put_in_basket, go_to_payment and confirm_payment are NOT tools of the site you write for. Learn the form \
from them; call only the tools of the stubs in the user message.

Task: what is the cheapest item on the menu of Luigi's?
```python
await open_shop(name="Luigi's")
menu = await read_menu()
cheapest = None
for e in menu.entries:
    if cheapest is None or e.price < cheapest.price:
        cheapest = e
result = f"{cheapest.title} at ${cheapest.price:.2f}" if cheapest else "The menu is empty"
```

Task: which of the first three shops has the best score?
```python
shops = await list_shops()
scores = {}
for s in shops.entries[:3]:
    await open_shop(name=s.title)
    info = await shop_info()
    scores[s.title] = info.score
    await back_to_start()
result = max(scores, key=scores.get) if scores else "No shops found"
```

Task: order something that sounds like 'spicy noodles' from Wok Star.
```python
await open_shop(name="Wok Star")
menu = await read_menu()
choice = await ai_eval("Which of {names} best matches 'spicy noodles'? Answer with the exact name only.", \
names=[e.title for e in menu.entries])
await put_in_basket(item=choice, count=1)
await go_to_payment()
receipt = await confirm_payment()
result = f"Ordered {choice}; order {receipt.number}"
```
"""

EXAMPLE_TOOLS: frozenset[str] = frozenset({
    "open_shop", "read_menu", "list_shops", "shop_info", "back_to_start", "put_in_basket", "go_to_payment",
    "confirm_payment",
})  # fmt: skip
"""The made-up tools of :data:`SYSTEM_PROMPT`'s examples (the checker says so when a plan calls one)."""

MAX_SOLVED_EXAMPLES = 3
MAX_SOLVED_CHARS = 1200
_WORD = re.compile(r"\w+")


def solved_examples(cache: ToolCache, task: str, *, limit: int = MAX_SOLVED_EXAMPLES) -> list[tuple[str, str]]:
    """``(task, plan)`` of up to ``limit`` other tasks this cache's plan cache solved under its current tools.

    Only short plans the checker still accepts, the nearest tasks first (most words shared with ``task``,
    then the shortest plan): examples of this site's own tools, for tasks like this one, that a model can
    copy from without copying a tool that is not there.
    """
    from .checker import (
        check,  # the checker imports nothing of the prompts; a late import keeps it so
    )
    from .planner import normalize_task

    prefix = f"{cache.fingerprint()}:"
    own = normalize_task(task)
    found: dict[str, tuple[str, str]] = {}
    for key, raw in cache.plans.items():
        if not key.startswith(prefix) or not isinstance(raw, dict):
            continue
        other, source = raw.get("task"), raw.get("source")
        if not isinstance(other, str) or not isinstance(source, str) or len(source) > MAX_SOLVED_CHARS:
            continue
        if normalize_task(other) == own or normalize_task(other) in found:
            continue
        found[normalize_task(other)] = (other.strip(), source.strip() + "\n")
    out: list[tuple[str, str]] = []
    words = set(_WORD.findall(own))

    def nearness(entry: tuple[str, str]) -> tuple[float, int, str]:
        theirs = set(_WORD.findall(normalize_task(entry[0])))
        return (-len(words & theirs) / max(len(words | theirs), 1), len(entry[1]), entry[0])

    for other, source in sorted(found.values(), key=nearness):
        if len(out) >= limit:
            break
        if check(source, cache).valid:
            out.append((other, source))
    return out


def _state_repr(state: Mapping[str, Any]) -> str:
    return json.dumps(dict(state), ensure_ascii=False, sort_keys=True) if state else "{}"


def plan_messages(task: str, cache: ToolCache, *, now: str | None = None, state: Mapping[str, Any] | None = None,
                  tools: Sequence[ToolManifest] | None = None) -> list[Message]:  # fmt: skip
    """System and user messages asking for a plan for ``task`` over ``cache``'s tools (``tools``: only these,
    a menu of them in its order, see :mod:`agentjit.planner.menu`)."""
    start = cache.info.initial_state if state is None else state
    parts: list[str] = []
    if now:
        parts.append(f"Now is {now}.")
    if cache.info.description:
        parts.append(f"Site: {cache.info.description}")
    parts.append(_tools_part(cache, tools))
    solved = solved_examples(cache, task)
    if solved:
        parts.append("Plans that solved other tasks on THIS site (its real tools):\n\n" + "\n\n".join(
            f"Task: {t}\n```python\n{src}```" for t, src in solved))
    parts.append(f"STATE at the start (read-only): {_state_repr(start)}")
    parts.append(f"TASK: {task.strip()}")
    parts.append("Write the plan now: one ```python block.")
    return [Message(role="system", content=SYSTEM_PROMPT), Message(role="user", content="\n\n".join(parts))]


def _tools_part(cache: ToolCache, tools: Sequence[ToolManifest] | None) -> str:
    if tools is None:
        return "Tools (stubs generated from the tool manifests):\n```python\n" + render_stubs(cache.tools.values()) + "\n```"
    return (f"Tools: a menu of {len(tools)} of the site's {len(cache.tools)} tools for this task, the tools that make a "
            "state or a value listed before the tools that need it (stubs generated from the tool manifests):\n"
            "```python\n" + render_stubs(tools, ordered=True) + "\n```")


def more_tools_message(tools: Sequence[ToolManifest]) -> str:
    """The repair feedback's note of tools added to a menu (a finding named a tool the menu left out)."""
    return ("More tools of this site, added to the menu for the problems below:\n```python\n"
            + render_stubs(tools, ordered=True, builtins=False) + "\n```\n\n")


def repair_messages(
    messages: Sequence[Message], candidate: str, diagnostics: Sequence[Diagnostic], *, more: str = ""
) -> list[Message]:
    """The conversation so far plus the failed ``candidate`` and its findings as feedback (after ``more``, the
    stubs of tools a widened menu adds)."""
    same = any(m.role == "assistant" and extract_code(m.content) == extract_code(candidate) for m in messages)
    feedback = more + (
        ("This is the same plan as your last answer, and the same problems remain: change the lines below.\n"
         if same else "")
        + "The checker rejected this plan:\n"
        + render(diagnostics, candidate, for_model=True)
        + "\n\nFix every problem and answer with the whole corrected plan in one ```python block."
    )
    return [*messages, Message(role="assistant", content=f"```python\n{candidate}\n```"), Message(role="user", content=feedback)]


def run_repair_messages(messages: Sequence[Message], candidate: str, error: str) -> list[Message]:
    """The plan prompt, the plan that passed the checker but failed when it ran, and the run's error."""
    feedback = (
        "This plan passed the checker but failed when it ran, before it changed anything on the site:\n"
        + error
        + "\n\nFix the cause and answer with the whole corrected plan in one ```python block."
    )
    return [*messages, Message(role="assistant", content=f"```python\n{candidate}\n```"), Message(role="user", content=feedback)]


_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(text: str) -> str:
    """The plan in a model's answer: the first ```python fence, else the first fence, else the text."""
    blocks = _FENCE.findall(text)
    for lang, body in blocks:
        if lang.lower() in ("python", "py", "python3"):
            return body.strip("\n").rstrip() + "\n"
    if blocks:
        return blocks[0][1].strip("\n").rstrip() + "\n"
    return text.strip("\n").rstrip() + "\n"
