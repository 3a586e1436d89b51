"""One local Ray cluster and one PostgreSQL server for the package's distributed tests (each starts in
seconds on 2 cores: started once, stopped after the package's last test)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agentjit.bench.postgres import Postgres, PostgresUnavailable, start_postgres


@pytest.fixture(scope="package")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    from agentjit.tasks.distributed import init_ray

    init_ray(ray, num_cpus=2)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="package")
def postgres() -> Iterator[Postgres]:
    """PostgreSQL from Debian's package where it can start here, else why not."""
    try:
        with start_postgres() as url:
            yield Postgres(url)
    except PostgresUnavailable as exc:
        yield Postgres(None, str(exc))
