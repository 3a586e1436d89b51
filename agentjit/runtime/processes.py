"""The processes below this one, read from ``/proc`` (Linux; none where there is no ``/proc``).

One walk for everything that needs them: Ctrl-C's last resort in the CLI, the
fault bench's browser crash, the sandbox bench's leak check and the memory bench.
And :func:`run_command`, a command run as a process of its own with a time limit.
"""

from __future__ import annotations

import asyncio
import os

__all__ = ["descendants", "run_command"]


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


async def run_command(argv: list[str], timeout_s: float, *, stdin: str | None = None) -> tuple[int | None, str, str]:
    """Run ``argv`` as a process of its own (its own session; ``stdin`` its input, else none): its exit code (None
    when it ran past ``timeout_s`` and was killed), stdout and stderr. Cancelled, it kills the process."""
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
                                                start_new_session=True)  # fmt: skip
    code: int | None
    try:
        out, err = await asyncio.wait_for(proc.communicate(None if stdin is None else stdin.encode()), timeout_s)
        code = proc.returncode
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        code = None
    except BaseException:  # cancelled: the command does not outlive its caller
        proc.kill()
        raise
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
