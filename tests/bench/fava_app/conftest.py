"""The Fava site, started once per session; skipped when Fava is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

pytest.importorskip("fava", reason="the Fava bench app needs fava (pip install 'agentjit[dev]')")

if TYPE_CHECKING:
    from agentjit.bench.fava import FavaSite


@pytest.fixture(scope="session")
def fava_site_session() -> Iterator[FavaSite]:
    from agentjit.bench.fava import FavaSite

    with FavaSite() as site:
        yield site


@pytest.fixture
def fava_site(fava_site_session: FavaSite) -> FavaSite:
    """The shared Fava site with its generated ledger restored."""
    fava_site_session.reset()
    return fava_site_session
