"""The progress display on stderr: Rich bars on a terminal, else a line per step.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console

from .output import _err


def _progress() -> Any:
    """A progress display on stderr: Rich bars on a terminal, else (a pipe, a log, CI) one line
    per step, so a long command (``bench scheduler``, ``profile``) is never silent."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    err = _err()
    if not err.is_terminal:
        return _LineProgress(err)
    return Progress(
        TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_err(), transient=True,
    )  # fmt: skip


class _LineProgress:
    """The part of Rich's ``Progress`` the commands use, printing a line per update."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.tasks: list[list[Any]] = []  # [description, completed, total]
        self.t0 = time.perf_counter()

    def __enter__(self) -> _LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None) -> int:
        self.tasks.append([description, 0, total])
        return len(self.tasks) - 1

    def advance(self, task_id: int, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def update(self, task_id: int, *, advance: float = 0, description: str | None = None,
               completed: float | None = None, total: float | None = None) -> None:
        task = self.tasks[task_id]
        if description is not None:
            task[0] = description
        if total is not None:
            task[2] = total
        task[1] = (completed if completed is not None else task[1]) + advance
        of = f"/{task[2]:g}" if task[2] is not None else ""
        self.console.print(f"  {task[0]}: {task[1]:g}{of} ({time.perf_counter() - self.t0:.0f} s)")
