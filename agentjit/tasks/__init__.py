"""Tasks on sites: the app registry, task files, judges, and running a set of tasks.

The product side of "run these tasks on that site and judge each"
(``agentjit demo``, ``agentjit batch``, ``agentjit tasks``), above the session
and below the bench:

* :mod:`agentjit.tasks.apps`: named site profiles (a site, a tool cache, tasks)
  and their registry; installed packages add apps through the
  ``agentjit.apps`` entry points (the bundled bench apps are one such package);
* :mod:`agentjit.tasks.task`: the :class:`Task` type and the judge helpers;
* :mod:`agentjit.tasks.taskfile`: user task files (JSONL or TOML);
* :mod:`agentjit.tasks.runner`: a plan per task, checked, run from a freshly
  reset site and judged; a task list on one browser (:func:`run_demo`) or
  spread over several (:func:`run_batch`);
* :mod:`agentjit.tasks.effectlog`: each task's writes under a shared effect log
  (``RUN_ID/TASK_ID``), strategies that gate them;
* :mod:`agentjit.tasks.distributed`: a batch on Ray workers (:func:`run_batch_ray`;
  Ray is the ``ray`` extra, imported only when such a batch runs).

The names below load on first use (the runner pulls in the runtime).
"""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

if _TYPE_CHECKING:
    from .apps import App, RemoteSite, Site, app_names, get_app, register_app
    from .distributed import run_batch_ray
    from .runner import DemoReport, TaskResult, jsonable, run_batch, run_demo, run_task, run_tasks
    from .task import JudgeResult, Task, select_tasks
    from .taskfile import is_task_file, load_tasks

__all__ = [
    "App", "Site", "RemoteSite", "get_app", "register_app", "app_names",
    "Task", "JudgeResult", "select_tasks", "load_tasks", "is_task_file",
    "TaskResult", "DemoReport", "jsonable", "run_task", "run_tasks", "run_demo", "run_batch", "run_batch_ray",
]  # fmt: skip

_LAZY: dict[str, str] = {
    **dict.fromkeys(["App", "Site", "RemoteSite", "get_app", "register_app", "app_names"], ".apps"),
    **dict.fromkeys(["Task", "JudgeResult", "select_tasks"], ".task"),
    **dict.fromkeys(["load_tasks", "is_task_file"], ".taskfile"),
    **dict.fromkeys(["TaskResult", "DemoReport", "jsonable", "run_task", "run_tasks", "run_demo", "run_batch"], ".runner"),
    "run_batch_ray": ".distributed",
}


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
