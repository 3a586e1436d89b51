"""Plan templates: a compiled plan reused, with no model call, for a task that differs only in its values.

A *slot* is a value that occurs verbatim both in the task and among the plan's
literals: a quoted string (``'Calendar shows the wrong week'``), a number (``3``,
or ``three`` in the task), or a name (``Petco``, ``deferred``). The task with its
slots masked (``what are the status and the priority of the issue '{s0}'``) is the
template's key. A new task matches a template when its text equals the masked
task outside the slots; the values it has in the slots are then *typed*:

* a number slot takes a number (digits, or a number word up to twelve);
* a string slot that flows into a tool input with an ``enum`` (the site's own
  values: statuses, priorities, users) takes one of those values and nothing
  else; other inputs' ``pattern``, ``minLength``, ``maxLength``, ``minimum`` and
  ``maximum`` hold too;
* an unquoted name (a slot only when it flows into a tool input: a bare word the
  plan merely compares with may be the very thing the task asks about) takes a
  name of the same shape (same leading case, no
  connective such as ``and``, ``not``, ``except``: ``Petco or Winstop`` is not a
  store name).

The plan's literals are then replaced by the new values and the whole plan goes
through the full static check again before it may run. A template is derived
from its stored task and plan each time it is loaded (never from a stored
pattern): a plan cache file is untrusted input.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentjit.cache import ToolCache
from agentjit.plan.parsed import Plan, as_plan

__all__ = ["Slot", "Template", "make_template", "NUMBER_WORDS", "template_entry_key", "TEMPLATE_PREFIX"]

TEMPLATE_PREFIX = "template:"
"""Plan cache keys of templates start with this (exact plans start with the cache's fingerprint)."""

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12,
}  # fmt: skip

_CONNECTIVES = frozenset({
    "and", "or", "not", "no", "nor", "but", "except", "without", "than", "other", "others", "any", "all", "every",
    "each", "none", "never", "neither", "either", "only", "also", "plus", "minus", "versus", "instead",
})  # fmt: skip
"""Words that change what a name means; an unquoted name slot never takes a value with one."""

_QUOTES = {"'": "'", '"': '"', "\u2018": "\u2019", "\u201c": "\u201d", "`": "`"}
_SPACE = re.compile(r"\s+")
_EDGE = " \t\n.,;:!?()[]{}"
_NUMBER = re.compile(r"(?<![\w.\-])(\d+(?:\.\d+)?)(?![\w\-]|\.\d)")
_PLACEHOLDER = re.compile(r"\{(s\d+)\}")
_MIN_STR = 2
_EXTRA_WORDS = 3
"""An unquoted name slot takes at most this many words more than the name it was made from."""


def _clean(task: str) -> str:
    """Whitespace collapsed, punctuation (not quotes) stripped at both ends, case kept."""
    return _SPACE.sub(" ", task).strip(_EDGE)


def template_entry_key(fingerprint: str, model: str, masked: str) -> str:
    """The plan cache key of a template."""
    return f"{TEMPLATE_PREFIX}{fingerprint}:{model}:{masked}"


@dataclass(frozen=True)
class Slot:
    """One value of a template: where it is in the task and the plan, and what it may be."""

    name: str
    kind: str
    """``str``, ``int`` or ``float``."""
    value: str | int | float
    """The value in the plan the template was made from."""
    quoted: bool = False
    """Written between quotes in the task."""
    inputs: tuple[str, ...] = ()
    """``tool.param`` of every tool input the literal flows into."""
    enum: tuple[Any, ...] | None = None
    """The values every one of those inputs accepts (None: no enum)."""
    schemas: tuple[Mapping[str, Any], ...] = ()
    """The input schemas the literal flows into."""
    places: tuple[tuple[int, int, int, int], ...] = ()
    """``(line, col, end_line, end_col)`` of each literal in the plan that is the value (``ast`` positions)."""
    inner: tuple[tuple[int, int, int, int], ...] = ()
    """Strings and f-strings of the plan that hold the value as a word among other text (``"top item at
    Petco"``): the value is replaced in their text too, so an answer names the new value."""

    def accepts(self, text: str) -> str | int | float | None:
        """The typed value of ``text`` (as the new task has it) in this slot, or None when it does not fit."""
        text = text.strip()
        if not text:
            return None
        if self.kind in ("int", "float"):
            low = text.lower()
            number: int | float
            if low in NUMBER_WORDS:
                number = NUMBER_WORDS[low]
            elif re.fullmatch(r"\d+", text):
                number = int(text)
            elif self.kind == "float" and re.fullmatch(r"\d+\.\d+", text):
                number = float(text)
            else:
                return None
            if self.kind == "float":
                number = float(number)
            return number if self._fits_schemas(number) else None
        if self.enum is not None:
            for option in self.enum:
                if isinstance(option, str) and option.lower() == text.lower():
                    return option
            return None
        if self.quoted:
            if any(q in text for q in (*_QUOTES, *_QUOTES.values())):
                return None  # 'a' and 'b': two values, not one
        else:
            words = text.split(" ")
            original = str(self.value).split(" ")
            if any(w.lower().strip(",.;:") in _CONNECTIVES for w in words) or re.search(r"[,;:!?()\"'\u2018\u2019\u201c\u201d]", text):
                return None
            if len(words) > len(original) + _EXTRA_WORDS:
                return None
            if text[0].isupper() != str(self.value)[0].isupper() or text[0].isdigit() != str(self.value)[0].isdigit():
                return None
        return text if self._fits_schemas(text) else None

    def _fits_schemas(self, value: str | int | float) -> bool:
        for schema in self.schemas:
            if isinstance(value, str):
                if schema.get("type") not in (None, "string"):
                    return False
                if len(value) < int(schema.get("minLength", 0)) or len(value) > int(schema.get("maxLength", 10**9)):
                    return False
                pattern = schema.get("pattern")
                if isinstance(pattern, str) and re.search(pattern, value) is None:
                    return False
            else:
                if schema.get("type") not in (None, "integer", "number"):
                    return False
                if schema.get("type") == "integer" and not float(value).is_integer():
                    return False
                if "minimum" in schema and value < schema["minimum"]:
                    return False
                if "maximum" in schema and value > schema["maximum"]:
                    return False
            if "enum" in schema and value not in schema["enum"]:
                return False
        return True


@dataclass(frozen=True)
class Template:
    """A plan with typed slots, keyed by its task with the slots masked."""

    task: str
    source: str
    masked: str
    """The task, cleaned, with each slot's text replaced by ``{s0}``, ``{s1}``, ... (case kept)."""
    slots: tuple[Slot, ...]
    _pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        """The masked task lowercased: what the plan cache keys the template by."""
        return self.masked.lower()

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is not None:
            return self._pattern
        by_name = {s.name: s for s in self.slots}
        parts: list[str] = ["^"]
        seen: set[str] = set()
        pos = 0
        for m in _PLACEHOLDER.finditer(self.masked):
            parts.append(_literal_regex(self.masked[pos:m.start()]))
            name = m.group(1)
            if name in seen:
                parts.append(f"(?P={name})")
            else:
                seen.add(name)
                slot = by_name[name]
                words = "|".join(NUMBER_WORDS)
                body = rf"\d+(?:\.\d+)?|{words}" if slot.kind != "str" else ".+?"
                parts.append(f"(?P<{name}>{body})")
            pos = m.end()
        parts.append(_literal_regex(self.masked[pos:]) + "$")
        compiled = re.compile("".join(parts), re.IGNORECASE)
        object.__setattr__(self, "_pattern", compiled)
        return compiled

    def match(self, task: str) -> dict[str, str | int | float] | None:
        """The typed slot values of ``task`` if it is this template with other values, else None."""
        m = self.pattern().match(_clean(task))
        if m is None:
            return None
        values: dict[str, str | int | float] = {}
        for slot in self.slots:
            typed = slot.accepts(m.group(slot.name))
            if typed is None:
                return None
            values[slot.name] = typed
        return values

    def instantiate(self, values: Mapping[str, str | int | float]) -> str:
        """The plan with every slot's literals replaced by ``values``.

        A literal that is the value becomes ``repr(new value)``; a string that holds the value among other
        text is rewritten with the new value in its text (an f-string only outside its ``{...}`` parts, the
        value's braces and backslashes escaped). Nothing of the new value reaches the plan unescaped.
        """
        lines = [line.encode("utf-8") for line in self.source.splitlines(keepends=True)]

        def segment(place: tuple[int, int, int, int]) -> str:
            line, col, end_line, end_col = place
            if line == end_line:
                return lines[line - 1][col:end_col].decode("utf-8")
            return b"".join([lines[line - 1][col:], *lines[line:end_line - 1], lines[end_line - 1][:end_col]]).decode("utf-8")

        edits: dict[tuple[int, int, int, int], str] = {}
        for slot in self.slots:
            for place in slot.places:
                edits[place] = repr(values[slot.name])
        for slot in self.slots:
            for place in slot.inner:
                if place in edits and not any(place in s.inner for s in self.slots if s is not slot):
                    continue
                text = edits.get(place, segment(place))
                edits[place] = _replace_in_literal(text, str(slot.value), str(values[slot.name]))
        for (line, col, end_line, end_col), text in sorted(edits.items(), reverse=True):
            head, tail = lines[line - 1][:col], lines[end_line - 1][end_col:]
            lines[line - 1:end_line] = [head + text.encode("utf-8") + tail]
        return b"".join(lines).decode("utf-8")

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task, "masked": self.masked,
            "slots": [{"name": s.name, "kind": s.kind, "value": s.value, "quoted": s.quoted, "inputs": list(s.inputs),
                       "enum": list(s.enum) if s.enum is not None else None} for s in self.slots],
        }  # fmt: skip


def _word(value: str) -> re.Pattern[str]:
    left = r"(?<!\w)" if value[:1].isalnum() or value[:1] == "_" else ""
    right = r"(?!\w)" if value[-1:].isalnum() or value[-1:] == "_" else ""
    return re.compile(left + re.escape(value) + right)


def _replace_in_literal(text: str, old: str, new: str) -> str:
    """``text``, the source of a string or f-string literal, with the word ``old`` in its text made ``new``."""
    node = ast.parse(text, mode="eval").body
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return repr(_word(old).sub(lambda _m: new, node.value))
    # an f-string: replace only in its literal text, outside {...}; the new text escaped for an f-string
    escaped = (new.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'").replace("\n", "\\n")
               .replace("\r", "\\r").replace("{", "{{").replace("}", "}}"))
    out: list[str] = []
    depth, i, start = 0, 0, 0
    while i < len(text):
        ch = text[i]
        if depth == 0 and text.startswith(("{{", "}}"), i):
            i += 2
            continue
        if ch == "{":
            if depth == 0:
                out.append(_word(old).sub(lambda _m: escaped, text[start:i]))
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
                start = i + 1
        i += 1
    out.append(_word(old).sub(lambda _m: escaped, text[start:]) if depth == 0 else text[start:])
    return "".join(out)


def _literal_regex(text: str) -> str:
    return r"\s+".join(re.escape(w) for w in text.split(" ")) if text else ""


# -- slot extraction -------------------------------------------------------------------


@dataclass
class _Literal:
    value: str | int | float
    places: list[tuple[int, int, int, int]] = field(default_factory=list)
    inputs: set[str] = field(default_factory=set)
    schemas: list[Mapping[str, Any]] = field(default_factory=list)


def _is_value(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (str, int, float)


class _Literals(ast.NodeVisitor):
    """The plan's literals in value positions, and the tool inputs each flows into.

    Value positions: tool and builtin arguments, assignments, list/tuple/set elements, comparisons,
    subscripts and slices. Not: dict keys, f-string pieces, the prompt of ``ai_eval`` (its text is
    the model's, not the task's).
    """

    def __init__(self, tools: Mapping[str, Any]) -> None:
        self.tools = tools
        self.found: dict[tuple[type, Any], _Literal] = {}
        self.names: dict[str, list[ast.Constant]] = {}
        self.skip: set[int] = set()
        self.texts: list[tuple[tuple[int, int, int, int], str]] = []
        """Every string and f-string literal: its place and its literal text (an f-string's pieces joined)."""

    def text(self, node: ast.Constant | ast.JoinedStr) -> None:
        place = (node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
        if isinstance(node, ast.Constant):
            self.texts.append((place, str(node.value)))
        else:
            pieces = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            self.texts.append((place, "\x00".join(pieces)))

    def add(self, node: ast.Constant) -> _Literal | None:
        if id(node) in self.skip or not _is_value(node):
            return None
        value: str | int | float = node.value  # type: ignore[assignment]  # _is_value: str, int or float
        lit = self.found.setdefault((type(value), value), _Literal(value))
        place = (node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
        if place not in lit.places:
            lit.places.append(place)
        return lit

    def constants(self, node: ast.AST) -> list[ast.Constant]:
        """The literal(s) ``node`` stands for: itself, the elements of a list/tuple, a name bound to them."""
        if isinstance(node, ast.Constant) and _is_value(node):
            return [node]
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return [c for e in node.elts for c in self.constants(e)]
        if isinstance(node, ast.Name):
            return list(self.names.get(node.id, []))
        return []

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self.text(node)
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                self.visit(v.value)

    def visit_Dict(self, node: ast.Dict) -> None:
        for v in node.values:
            self.visit(v)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.names[target.id] = self.constants(node.value)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if isinstance(node.target, ast.Name):
            self.names[node.target.id] = self.constants(node.iter)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name == "ai_eval" and node.args and isinstance(node.args[0], ast.Constant):
            self.skip.add(id(node.args[0]))
        tool = self.tools.get(name) if name else None
        if tool is not None:
            props = tool.parameters
            for kw in node.keywords:
                if kw.arg is None:
                    continue
                schema = props.get(kw.arg)
                for const in self.constants(kw.value):
                    lit = self.add(const)
                    if lit is not None and isinstance(schema, Mapping):
                        lit.inputs.add(f"{name}.{kw.arg}")
                        lit.schemas.append(_scalar(schema))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.text(node)
        self.add(node)


def _scalar(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema a single literal must meet where ``schema`` is the input's (an array's items)."""
    if schema.get("type") == "array" and isinstance(schema.get("items"), Mapping):
        return schema["items"]
    return schema


def _enum(schemas: Iterable[Mapping[str, Any]]) -> tuple[Any, ...] | None:
    allowed: list[Any] | None = None
    for schema in schemas:
        options = schema.get("enum")
        if isinstance(options, list):
            allowed = list(options) if allowed is None else [o for o in allowed if o in options]
    return tuple(allowed) if allowed is not None else None


@dataclass
class _Span:
    start: int
    end: int
    text: str
    lit: _Literal
    quoted: bool


def _task_spans(task: str, lit: _Literal) -> list[_Span]:
    """Where ``lit`` occurs in ``task``: verbatim (a string, at word boundaries), or as a number."""
    value = lit.value
    spans: list[_Span] = []
    if isinstance(value, str):
        if len(value.strip()) < _MIN_STR or value != value.strip():
            return []
        for m in _word(value).finditer(task):
            before, after = task[m.start() - 1:m.start()], task[m.end():m.end() + 1]
            quoted = bool(before) and before in _QUOTES and after == _QUOTES[before]
            spans.append(_Span(m.start(), m.end(), value, lit, quoted))
        return spans
    if isinstance(value, bool) or value < 0:
        return []
    for m in _NUMBER.finditer(task):
        if float(m.group(1)) == float(value):
            spans.append(_Span(m.start(1), m.end(1), m.group(1), lit, False))
    if isinstance(value, int):
        for word, n in NUMBER_WORDS.items():
            if n == value:
                for m in re.finditer(rf"(?<!\w){word}(?!\w)", task, re.IGNORECASE):
                    spans.append(_Span(m.start(), m.end(), m.group(0), lit, False))
    return spans


def make_template(task: str, source: str | Plan, cache: ToolCache) -> Template | None:
    """The template of ``source``, a plan for ``task`` (its text, or a :class:`~agentjit.plan.parsed.Plan`
    whose tree is read as it is: no second parse), or None when it has no slot (or cannot be parsed)."""
    plan = as_plan(source)
    tree = plan.tree
    if tree is None:
        return None
    source = plan.source
    walker = _Literals(cache.tools)
    walker.visit(tree)
    cleaned = _clean(task)
    candidates: list[_Span] = []
    for lit in walker.found.values():
        spans = _task_spans(cleaned, lit)
        if len(spans) != 1:  # a value said twice (or a number that could be either of two) is not a slot
            continue
        if isinstance(lit.value, str) and not spans[0].quoted and not lit.inputs:
            continue  # a bare word the plan only compares with ('priority', 'year') may be what the task asks
        candidates.append(spans[0])
    # longest first; a span inside a longer one (the 1 of 'demo-pass-1') is not a slot of its own
    chosen: list[_Span] = []
    for span in sorted(candidates, key=lambda s: (-(s.end - s.start), s.start)):
        if all(span.end <= c.start or span.start >= c.end for c in chosen):
            chosen.append(span)
    if not chosen:
        return None
    chosen.sort(key=lambda s: s.start)
    slots: list[Slot] = []
    masked_parts: list[str] = []
    pos = 0
    for i, span in enumerate(chosen):
        name = f"s{i}"
        lit = span.lit
        kind = "str" if isinstance(lit.value, str) else ("int" if isinstance(lit.value, int) else "float")
        inner: list[tuple[int, int, int, int]] = []
        if isinstance(lit.value, str):
            word = _word(lit.value)
            inner = sorted({place for place, text in walker.texts if place not in lit.places and word.search(text)})
        slots.append(Slot(
            name=name, kind=kind, value=lit.value, quoted=span.quoted, inputs=tuple(sorted(lit.inputs)),
            enum=_enum(lit.schemas), schemas=tuple(lit.schemas), places=tuple(sorted(lit.places)), inner=tuple(inner),
        ))  # fmt: skip
        masked_parts.append(cleaned[pos:span.start].replace("{", "{{").replace("}", "}}"))
        masked_parts.append("{" + name + "}")
        pos = span.end
    masked_parts.append(cleaned[pos:].replace("{", "{{").replace("}", "}}"))
    masked = "".join(masked_parts)
    if "{{" in masked or "}}" in masked:
        return None  # braces in the task itself: not worth the ambiguity
    return Template(task=task, source=source, masked=masked, slots=tuple(slots))
