"""Output of every command: results on stdout (tables, or one JSON document with ``--json``),
progress and warnings on stderr, never console markup from data.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["emit_json", "json_only_stdout", "styled"]

_json_out: TextIO | None = None
"""Where :func:`emit_json` writes while :func:`json_only_stdout` holds stdout for the document."""


def json_stream() -> TextIO:
    """Where a JSON document goes: the real stdout, also while :func:`json_only_stdout` holds it."""
    return _json_out or sys.stdout


@contextmanager
def json_only_stdout(enabled: bool) -> Iterator[None]:
    """With ``--json``, stdout carries the JSON document and nothing else: while the command runs,
    whatever else writes to file descriptor 1 (a library's print, Ray's raylet or a browser
    process the command started) goes to stderr, and :func:`emit_json` writes to the real stdout.
    A stdout with no file descriptor (a test's capture) is left as it is."""
    global _json_out
    if not enabled or _json_out is not None:
        yield
        return
    try:
        fd = sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    _json_out = os.fdopen(os.dup(saved), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), fd)
    try:
        yield
    finally:
        sys.stdout.flush()
        _json_out.close()
        _json_out = None
        os.dup2(saved, fd)
        os.close(saved)


def _out() -> Console:
    """The console for results. Markup is off: plans, tasks, tool names and site text print
    literally (``[s.name for s in xs]`` is code, not a style); styles come from :func:`styled`."""
    # piped or captured output gets a wide table instead of an 80-column guess
    wide = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(highlight=False, markup=False, soft_wrap=True, width=160 if wide else None)


def _columns(table: Table, names: tuple[str, ...], *, ids: set[str] | frozenset[str] = frozenset()) -> None:
    """Add ``names`` as columns of ``table``. The ``ids`` columns (task ids, tool names) never
    wrap nor get cut (``food-custo...``): at 80 columns Rich wraps the others instead."""
    for name in names:
        table.add_column(name, no_wrap=name in ids)


def _err() -> Console:
    """The console for progress and warnings (stderr); markup off as in :func:`_out`."""
    return Console(stderr=True, highlight=False, markup=False, soft_wrap=True)  # one line stays one line


def styled(label: str, style: str, rest: str = "") -> Text:
    """``label`` in ``style`` followed by ``rest``, both literal (no console markup is parsed)."""
    return Text.assemble((label, style), rest)


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " | ", text.strip())


def _warn(text: str) -> None:
    """One warning line on stderr, plain text (never wrapped, no markup), whatever the terminal."""
    sys.stderr.write(_printable(f"warning: {_one_line(text)}") + "\n")


def _printable(text: str) -> str:
    """``text`` with lone surrogates (which no stream can encode) as ``\\udXXX`` escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def emit_json(data: Any) -> None:
    # a lone surrogate becomes the JSON escape \udXXX, so the document stays valid JSON
    # NaN and infinity become null: the output is strict JSON whatever a plan computed
    from agentjit.protocol import jsonio  # not at start-up: `agentjit --help` stays fast

    out = json_stream()
    out.write(_printable(jsonio.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n")
    out.flush()


def _write_json_file(path: str, data: Any) -> None:
    """Write a report as JSON, creating its folder (atomically: temp file, then rename)."""
    from agentjit.cache.store import atomic_write_json

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(Path(path), data)
