"""Offline builder: recorded browser traces in, a verified Agent-JIT tool cache out.

The pipeline (:func:`build_cache`, or ``toolcache build``) runs these stages in order
(:data:`STAGES`):

1. **record** (before a build): :func:`record_script` / :func:`record_scripts` replay demonstration
   scripts in Chromium and write traces; :func:`import_history` converts browser-use
   ``AgentHistoryList`` files into the same trace format (``traces/README.md``).
2. **load**: read every trace; a bad one (truncated, unknown version, missing snapshot) is reported
   in :class:`BuildReport` with its file and line, and the build goes on.
3. **extract**: page schemas from the DOM snapshots (:func:`extract_snapshot` -> :class:`PageSchema`).
4. **label**: each step mapped to its element from the recorded target (a model only where no
   target was recorded).
5. **codegen**: deterministic tool synthesis (:func:`synthesize`).
6. **verify**: every tool run on the live site, kept only when its checks pass; provider to
   consumer relations kept by LIBRA's counterfactual test (:func:`verify_tools`).
7. **fit**: latency distributions per element and per tool.
8. **save**: the cache written atomically.

:func:`compare_caches` then runs each hand-written tool and its built counterpart from the same
state on the live site and reports the coverage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded on first use: `toolcache --help` must not import the whole builder (scipy)
    from .browser_use import import_history
    from .build import STAGES, BuildReport, build_cache, load_traces, trace_files
    from .codegen import Synth, synthesize
    from .compare import Comparison, compare_caches
    from .extract import PageSchema, SiteSchema, extract_snapshot
    from .record import record_script, record_scripts, reset_site
    from .script import Script, load_script
    from .verify import ToolVerdict, VerifyReport, verify_tools

_LAZY = {
    "import_history": "browser_use",
    **dict.fromkeys(("STAGES", "BuildReport", "build_cache", "load_traces", "trace_files"), "build"),
    **dict.fromkeys(("Synth", "synthesize"), "codegen"),
    **dict.fromkeys(("Comparison", "compare_caches"), "compare"),
    **dict.fromkeys(("PageSchema", "SiteSchema", "extract_snapshot"), "extract"),
    **dict.fromkeys(("record_script", "record_scripts", "reset_site"), "record"),
    **dict.fromkeys(("Script", "load_script"), "script"),
    **dict.fromkeys(("ToolVerdict", "VerifyReport", "verify_tools"), "verify"),
}

__all__ = [
    "STAGES",
    "BuildReport",
    "Comparison",
    "PageSchema",
    "Script",
    "SiteSchema",
    "Synth",
    "ToolVerdict",
    "VerifyReport",
    "build_cache",
    "compare_caches",
    "extract_snapshot",
    "import_history",
    "load_script",
    "load_traces",
    "record_script",
    "record_scripts",
    "reset_site",
    "synthesize",
    "trace_files",
    "verify_tools",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562; ``python -m toolcache.compare`` runs cleanly)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolcache' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
