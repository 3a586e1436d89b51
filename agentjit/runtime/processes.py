"""The processes below this one, read from ``/proc`` (Linux; none where there is no ``/proc``).

One walk for everything that needs them: Ctrl-C's last resort in the CLI, the
fault bench's browser crash, the sandbox bench's leak check and the memory bench.
"""

from __future__ import annotations

import os

__all__ = ["descendants"]


def _parents() -> dict[int, list[int]]:
    """Parent pid -> child pids of every live process."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not a process entry
        children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(root: int | None = None) -> list[int]:
    """Pids of every live process below ``root`` (default: this process), parents before children."""
    children = _parents()
    out: list[int] = []
    stack = [root if root is not None else os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out
