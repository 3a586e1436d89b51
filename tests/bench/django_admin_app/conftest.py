"""The Django admin tests: one site for the directory, skipped when Django is not installed.

Django's settings are process-wide, so the site is started once here (not in
tests/conftest.py) and every test of this directory shares it, reset to its seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("django", reason="the Django admin bench app needs django (pip install 'agentjit[dev]')")


@pytest.fixture(scope="session")
def django_admin_session() -> Iterator[Any]:
    from agentjit.bench.django_admin import DjangoAdminSite

    with DjangoAdminSite() as site:
        yield site


@pytest.fixture
def django_admin_site(django_admin_session: Any) -> Any:
    """The shared Django admin site, its database restored to the seed."""
    django_admin_session.reset()
    return django_admin_session
