"""Ray is an extra: the core imports without it, and a batch on Ray names the extra when it is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentjit.exceptions import ConfigError


def test_the_core_never_imports_ray_or_psycopg() -> None:
    code = ("import sys, agentjit, agentjit.cli, agentjit.tasks.distributed, agentjit.runtime.effectstore, "
            "agentjit.bench.batch_bench, agentjit.bench.faults_processes; "
            "print(sorted(m for m in ('ray', 'psycopg') if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


async def test_a_ray_batch_without_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    from agentjit.tasks.distributed import run_batch_ray

    with pytest.raises(ConfigError, match=r"pip install 'agentjit\[ray\]'"):
        await run_batch_ray([], app_name="food")


def test_a_postgres_store_without_psycopg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    from agentjit.runtime.effectstore import open_store

    with pytest.raises(ConfigError, match=r"pip install 'agentjit\[postgres\]'"):
        open_store("postgresql://127.0.0.1:1/x")
