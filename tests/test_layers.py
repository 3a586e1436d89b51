"""Imports point down the layers (the order in agentjit/__init__.py's docstring), and the never-rules hold.

The order alone lets a layer import anything below it; the never-rules forbid
some of those imports too (issue 11):

* protocol knows no browser and no model: no playwright, openai or google
  imports, no agentjit.llm or agentjit.runtime;
* the planner and the scheduler never import the runtime;
* the runtime never imports the planner, the scheduler or the bench (the
  parallel strategy is handed the plan's usage);
* nothing in agentjit imports toolcache (toolcache imports agentjit);
* agentjit.plan imports only the standard library, agentjit.exceptions and
  agentjit.plan: the sandboxed child process loads it with a stub package.

Every import counts, also one inside a function or under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import agentjit

ROOT = Path(agentjit.__file__).parent
LAYERS = ["_version", "exceptions", "plan", "protocol", "cache", "llm", "planner", "scheduler", "runtime", "agent",
          "session", "bench"]
TOP = {"api", "sync", "testing", "cli", "__init__"}  # entry points may import any layer

#: (package the rule is about, import prefixes it may never use, why)
NEVER: list[tuple[str, tuple[str, ...], str]] = [
    ("agentjit.protocol", ("playwright", "openai", "google", "agentjit.llm", "agentjit.runtime"),
     "protocol knows no browser and no model"),
    ("agentjit.planner", ("agentjit.runtime",), "the planner never imports the runtime"),
    ("agentjit.scheduler", ("agentjit.runtime",), "the scheduler never imports the runtime"),
    ("agentjit.runtime", ("agentjit.planner", "agentjit.scheduler", "agentjit.bench"),
     "the runtime never imports the planner, the scheduler or the bench"),
    ("agentjit", ("toolcache",), "nothing in agentjit imports toolcache"),
]  # fmt: skip
PLAN_MAY_IMPORT = ("agentjit.exceptions", "agentjit.plan")


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "agentjit":
        return None
    if len(parts) == 1 or parts[1] in TOP:
        return len(LAYERS)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def imports(source: str, module: str, *, package: bool = False) -> list[tuple[str, int]]:
    """Every module ``source`` (the text of ``module``) imports, with its line; relative imports resolved."""
    tree = ast.parse(source)
    found = []
    base_package = module if package else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = base_package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name in ("agentjit", "agentjit.plan"):  # `from agentjit import llm` imports agentjit.llm
                found += [(f"{name}.{a.name}", node.lineno) for a in node.names]
            else:
                found.append((name, node.lineno))
    return found


def violations(module: str, source: str, *, package: bool = False) -> list[str]:
    """Every import of ``module`` (given its source) that breaks the order or a never-rule."""
    here = layer_of(module)
    if here is None:
        return []
    bad = []
    for target, line in imports(source, module, package=package):
        there = layer_of(target)
        if there is not None and there > here:
            bad.append(f"{module}:{line}: {module} (layer {here}) imports {target} (layer {there})")
        for scope, banned, why in NEVER:
            if _within(module, scope) and any(_within(target, b) for b in banned):
                bad.append(f"{module}:{line}: imports {target}: {why}")
        if _within(module, "agentjit.plan"):
            top = target.split(".")[0]
            if not (top in sys.stdlib_module_names or any(_within(target, ok) for ok in PLAN_MAY_IMPORT)):
                bad.append(f"{module}:{line}: imports {target}: agentjit.plan imports only the standard "
                           "library, agentjit.exceptions and agentjit.plan")
    return bad


def _modules() -> list[tuple[str, Path, bool]]:
    out = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        if "plans" in rel.parts:  # plan files are plans, not modules
            continue
        package = rel.name == "__init__"
        out.append((".".join(rel.parts[:-1] if package else rel.parts), path, package))
    return out


def test_the_tree_keeps_the_order_and_the_never_rules():
    bad = []
    for module, path, package in _modules():
        bad += violations(module, path.read_text(encoding="utf-8"), package=package)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        ("agentjit.protocol.trace", "from playwright.async_api import Page", "no browser and no model"),
        ("agentjit.protocol.trace", "import openai", "no browser and no model"),
        ("agentjit.protocol.trace", "from google import genai", "no browser and no model"),
        ("agentjit.planner.checker", "def f():\n    from agentjit.runtime import Runtime", "planner never imports the runtime"),
        ("agentjit.scheduler.usage", "from agentjit.runtime.strategies import ParallelStrategy", "scheduler never imports"),
        ("agentjit.runtime.strategies", "from agentjit.planner.sandbox import check_sandbox", "runtime never imports"),
        ("agentjit.runtime.strategies", "if TYPE_CHECKING:\n    from agentjit.scheduler.usage import PlanUsage", "runtime never imports"),
        ("agentjit.runtime.runner", "from agentjit.bench import harness", "runtime never imports"),
        ("agentjit.runtime.runner", "from agentjit import scheduler", "runtime never imports"),
        ("agentjit.cache.store", "import toolcache.extract", "nothing in agentjit imports toolcache"),
        ("agentjit.cli", "from toolcache import cli", "nothing in agentjit imports toolcache"),
        ("agentjit.plan.guard", "import pydantic", "only the standard library"),
        ("agentjit.plan.child", "from agentjit.protocol.trace import StepEvent", "only the standard library"),
        ("agentjit.plan.machine", "from ..runtime import vm", "only the standard library"),
        ("agentjit.cache.store", "from agentjit.llm import Model", "imports agentjit.llm (layer"),
        ("agentjit.session", "from agentjit.bench.apps import get_app", "imports agentjit.bench.apps (layer"),
        ("agentjit.runtime.runner", "from agentjit.session import Session", "imports agentjit.session (layer"),
    ],
)  # fmt: skip
def test_a_violation_is_caught(module: str, source: str, why: str) -> None:
    found = violations(module, source)
    assert found and any(why in f for f in found), found


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("agentjit.protocol.trace", "import json\nfrom agentjit.exceptions import TraceError"),
        ("agentjit.runtime.strategies", "from agentjit.plan.sandbox import check_sandbox\nfrom agentjit.protocol import trace"),
        ("agentjit.planner.checker", "from agentjit.plan.trips import trip_count\nfrom .cfg import build_cfg"),
        ("agentjit.plan.sandbox", "import ast\nfrom .guard import SAFE_EXCEPTIONS\nfrom agentjit.exceptions import PlanError"),
        ("agentjit.bench.harness", "from agentjit.runtime import Runtime\nfrom agentjit.scheduler import plan_usage"),
        ("agentjit.cli", "from agentjit.bench import harness"),
        ("agentjit.session", "from agentjit.runtime import Runtime\nfrom agentjit.planner.gate import admit\n"
                             "from agentjit.scheduler.usage import plan_usage"),
        ("agentjit.bench.harness", "from agentjit.session import Session"),
    ],
)  # fmt: skip
def test_a_legal_import_passes(module: str, source: str) -> None:
    assert violations(module, source) == []


def test_every_layer_is_documented():
    for layer in LAYERS[1:]:
        assert layer in (agentjit.__doc__ or "")
