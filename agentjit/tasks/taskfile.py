"""User task files: your own tasks for your own site, in JSONL or TOML.

One task per JSONL line, or one ``[[task]]`` table per task in TOML::

    [[task]]
    id = "open-issues"                     # required, unique
    task = "How many open issues are there?"  # required: the instruction
    plan = "plans/open_issues.py"           # optional reference plan: a path relative
                                            # to this file, or the plan's source inline
    answer = 3                              # optional expected answer (normalised compare)
    judge = "judges.py:issue_created"       # optional: module:function or file.py:function
    kind = "read"                           # optional: read | write

A task with ``answer`` passes when the plan's value matches it after
normalisation (:func:`agentjit.tasks.task.answers_match`: case, spacing,
quotes, a trailing full stop; numbers within 0.005, also inside a text). A
``judge`` is called after the run as ``judge(task, result, site_url)`` where
``task`` is the :class:`~agentjit.tasks.task.Task`, ``result`` the run's
:class:`~agentjit.runtime.RunResult` (``result.value`` is the answer) and
``site_url`` the site's base URL; it reads the site's own storage and returns
``bool``, ``(bool, reason)`` or a :class:`~agentjit.tasks.task.JudgeResult`.
``module:function`` is imported normally, or from ``module.py`` next to the task
file; ``file.py:function`` is loaded from that path relative to the task file.
With both, both must accept; with neither, a task passes when its plan runs.

Every mistake in a file is a :class:`~agentjit.exceptions.ConfigError` naming
the file, the line (JSONL) or entry (TOML) and the field.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentjit.exceptions import ConfigError

from .task import SiteJudge, Task, answer_is, ran_to_completion

__all__ = ["load_tasks", "TASK_FIELDS", "is_task_file"]

TASK_FIELDS = ("id", "task", "plan", "answer", "judge", "kind")
_SUFFIXES = (".jsonl", ".toml")


def is_task_file(value: str) -> bool:
    """Whether ``value`` names a task file (by suffix or because the file exists)."""
    return value.endswith(_SUFFIXES) or Path(value).is_file()


def load_tasks(path: str | Path, *, app: str = "") -> list[Task]:
    """Read the tasks of a JSONL or TOML task file; judges are imported now, so errors show early."""
    path = Path(path)
    if path.suffix not in _SUFFIXES:
        raise ConfigError(f"{path}: a task file is .jsonl or .toml")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the task file: {exc.strerror or exc}") from exc
    entries = _jsonl_entries(path, text) if path.suffix == ".jsonl" else _toml_entries(path, text)
    tasks: list[Task] = []
    seen: dict[str, str] = {}
    for where, entry in entries:
        task = _task(path, where, entry, app or path.stem)
        if task.id in seen:
            raise ConfigError(f"{path}: {where}: field 'id': duplicate id {task.id!r} (first at {seen[task.id]})")
        seen[task.id] = where
        tasks.append(task)
    if not tasks:
        raise ConfigError(f"{path}: no tasks in the file")
    return tasks


def _jsonl_entries(path: Path, text: str) -> list[tuple[str, Any]]:
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            out.append((f"line {lineno}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: line {lineno}: invalid JSON at column {exc.colno}: {exc.msg}") from exc
    return out


def _toml_entries(path: Path, text: str) -> list[tuple[str, Any]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    extra = sorted(set(data) - {"task"})
    if extra:
        raise ConfigError(f"{path}: unknown top-level key(s) {extra}; tasks are [[task]] tables")
    entries = data.get("task", [])
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: 'task' must be an array of tables ([[task]])")
    return [(f"task #{i}", entry) for i, entry in enumerate(entries, 1)]


def _task(path: Path, where: str, entry: Any, app: str) -> Task:
    def fail(field: str, message: str) -> ConfigError:
        return ConfigError(f"{path}: {where}: field {field!r}: {message}")

    if not isinstance(entry, dict):
        raise ConfigError(f"{path}: {where}: a task is an object with fields {', '.join(TASK_FIELDS)}")
    unknown = sorted(set(entry) - set(TASK_FIELDS))
    if unknown:
        raise fail(unknown[0], f"unknown field (known: {', '.join(TASK_FIELDS)})")
    for field in ("id", "task"):
        value = entry.get(field)
        if not isinstance(value, str) or not value.strip():
            raise fail(field, "required, a non-empty string")
    for field in ("plan", "judge", "kind"):
        if field in entry and not isinstance(entry[field], str):
            raise fail(field, "must be a string")
    kind = entry.get("kind", "")
    if kind not in ("", "read", "write"):
        raise fail("kind", f"{kind!r} is not read or write")
    plan_file, plan_text = None, None
    plan = entry.get("plan")
    if plan is not None:
        if "\n" not in plan and plan.strip().endswith(".py"):
            plan_file = (path.parent / plan.strip()).resolve()
            if not plan_file.is_file():
                raise fail("plan", f"no plan file {plan_file}")
        elif plan.strip():
            plan_text = plan
        else:
            raise fail("plan", "empty")
    judge = answer_is(entry["answer"]) if "answer" in entry else ran_to_completion
    site_judge = _judge(path, entry["judge"], fail) if "judge" in entry else None
    return Task(
        entry["id"], app, entry["task"], kind, plan_file, judge,
        expected=entry.get("answer"), plan_text=plan_text, site_judge=site_judge, origin=f"{path.name}, {where}",
    )  # fmt: skip


def _judge(path: Path, spec: str, fail: Callable[[str, str], ConfigError]) -> SiteJudge:
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name.isidentifier():
        raise fail("judge", f"{spec!r} is not module:function or file.py:function")
    if target.endswith(".py"):
        module = _module_from_file(path.parent / target, fail)
    else:
        local = path.parent / (target.replace(".", "/") + ".py")
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            missing_itself = exc.name in (target, target.split(".")[0])
            if not missing_itself or not local.is_file():
                raise fail("judge", f"cannot import {target}: {exc}") from exc
            module = _module_from_file(local, fail)
        except Exception as exc:
            raise fail("judge", f"importing {target} failed: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, name, None)
    if not callable(fn):
        raise fail("judge", f"{target} has no function {name!r}")
    judge: SiteJudge = fn
    return judge


def _module_from_file(file: Path, fail: Callable[[str, str], ConfigError]) -> Any:
    file = file.resolve()
    if not file.is_file():
        raise fail("judge", f"no judge file {file}")
    digest = hashlib.sha256(str(file).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(f"agentjit_judges_{file.stem}_{digest}", file)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py path always has a loader
        raise fail("judge", f"cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise fail("judge", f"loading {file} failed: {type(exc).__name__}: {exc}") from exc
    return module
