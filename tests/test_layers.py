"""Imports point down the layers only (the order in agentjit/__init__.py's docstring)."""

import ast
from pathlib import Path

import agentjit

ROOT = Path(agentjit.__file__).parent
LAYERS = ["_version", "exceptions", "plan", "protocol", "cache", "llm", "planner", "scheduler", "runtime", "agent", "bench"]
TOP = {"api", "sync", "testing", "cli", "__init__"}  # entry points may import any layer


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "agentjit":
        return None
    if len(parts) == 1 or parts[1] in TOP:
        return len(LAYERS)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def imports(path: Path, module: str) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name == "agentjit":  # `from agentjit import llm` imports agentjit.llm
                found += [(f"agentjit.{a.name}", node.lineno) for a in node.names]
            else:
                found.append((name, node.lineno))
    return found


def test_imports_point_down():
    bad = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        here = layer_of(module)
        if here is None or "plans" in rel.parts:
            continue
        for target, line in imports(path, module):
            if target.startswith("toolcache"):
                bad.append(f"{path}:{line} imports toolcache")
            there = layer_of(target)
            if there is not None and there > here:
                bad.append(f"{path}:{line}: {module} (layer {here}) imports {target} (layer {there})")
    assert not bad, "\n".join(bad)


def test_every_layer_is_documented():
    for layer in LAYERS[1:]:
        assert layer in agentjit.__doc__
