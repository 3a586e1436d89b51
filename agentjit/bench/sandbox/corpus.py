"""The hostile-plan corpus: ``<class>/NNN_name.py`` files, their headers and placeholders."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentjit.exceptions import ConfigError

__all__ = ["CorpusPlan", "DEFAULT_CORPUS", "EXPECTS", "PLACEHOLDERS", "CANARY_NAME", "load_corpus", "parse_header",
           "substitute"]  # fmt: skip

#: tests/security/corpus of the source checkout this module lives in.
DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "tests" / "security" / "corpus"

EXPECTS = ("reject", "stopped", "ok")
PLACEHOLDERS = ("MARKER_PATH", "CANARY_NAME", "LISTENER_URL", "LISTENER_PORT")
CANARY_NAME = "AGENTJIT_BENCH_CANARY_TOKEN"

_FILE_RE = re.compile(r"^\d{3}_[a-z0-9_]+\.py$")
_HEADER_RE = re.compile(r"^#\s*([a-z]+):\s?(.*)$")


@dataclass(frozen=True)
class CorpusPlan:
    """One hostile (or benign look-alike) plan and its expected verdict."""

    id: str
    """``<class>/<file name>``, relative to the corpus directory."""
    path: Path
    cls: str
    expect: str
    why: str
    source: str
    result: Any = None
    """The expected ``result`` of an ``ok`` plan (parsed from the header)."""


def parse_header(text: str, where: str = "<plan>") -> dict[str, str]:
    """The ``# key: value`` lines at the top of a corpus file; raises ConfigError on a bad header.

    The header is the leading block of comment lines; it must hold ``expect``
    (one of :data:`EXPECTS`), ``class`` and a one-line ``why``, and ``result``
    exactly when ``expect`` is ``ok``.
    """
    header: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        m = _HEADER_RE.match(line)
        if m and m.group(1) in ("expect", "class", "why", "result"):
            if m.group(1) in header:
                raise ConfigError(f"{where}: header key {m.group(1)!r} given twice")
            header[m.group(1)] = m.group(2).strip()
    for key in ("expect", "class", "why"):
        if not header.get(key):
            raise ConfigError(f"{where}: the header has no '# {key}:' line")
    if header["expect"] not in EXPECTS:
        raise ConfigError(f"{where}: expect must be one of {', '.join(EXPECTS)}, not {header['expect']!r}")
    if header["expect"] == "ok":
        if "result" not in header:
            raise ConfigError(f"{where}: an 'ok' plan needs a '# result:' line")
        try:
            ast.literal_eval(header["result"])
        except (ValueError, SyntaxError) as exc:
            raise ConfigError(f"{where}: '# result:' is not a Python literal: {exc}") from None
    elif "result" in header:
        raise ConfigError(f"{where}: only 'ok' plans have a '# result:' line")
    return header


def load_corpus(corpus: str | Path | None = None) -> list[CorpusPlan]:
    """Every plan of ``corpus`` (default :data:`DEFAULT_CORPUS`), sorted by id.

    Raises ConfigError for a missing directory, a file name that is not
    ``NNN_name.py``, a bad header, or a ``# class:`` that is not the file's
    directory.
    """
    root = Path(corpus) if corpus is not None else DEFAULT_CORPUS
    if not root.is_dir():
        raise ConfigError(f"corpus directory {root} does not exist")
    plans: list[CorpusPlan] = []
    for path in sorted(root.glob("*/*.py")):
        pid = f"{path.parent.name}/{path.name}"
        if not _FILE_RE.match(path.name):
            raise ConfigError(f"{pid}: corpus files are named NNN_name.py (lower case)")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{pid}: cannot read: {exc}") from None
        header = parse_header(text, pid)
        if header["class"] != path.parent.name:
            raise ConfigError(f"{pid}: '# class: {header['class']}' is not its directory {path.parent.name!r}")
        result = ast.literal_eval(header["result"]) if header["expect"] == "ok" else None
        plans.append(CorpusPlan(pid, path, header["class"], header["expect"], header["why"], text, result))
    if not plans:
        raise ConfigError(f"corpus directory {root} has no <class>/NNN_name.py plans")
    return plans


def substitute(source: str, *, marker_path: str, canary_name: str, listener_port: int) -> str:
    """``source`` with the placeholders replaced by their text."""
    url = f"http://127.0.0.1:{listener_port}/"
    return (
        source.replace("MARKER_PATH", marker_path)
        .replace("CANARY_NAME", canary_name)
        .replace("LISTENER_URL", url)
        .replace("LISTENER_PORT", str(listener_port))
    )

