"""The Trac tests: one site for the directory, skipped when Trac is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("trac", reason="the Trac bench app needs trac (pip install 'agentjit[dev]')")


@pytest.fixture(scope="session")
def trac_session() -> Iterator[Any]:
    from agentjit.bench.trac import TracSite

    with TracSite() as site:
        yield site


@pytest.fixture
def trac_site(trac_session: Any) -> Any:
    """The shared Trac site, its database restored to the seed."""
    trac_session.reset()
    return trac_session
