"""Django's admin as a bench app: a real, widely used back office nobody here wrote.

``DjangoAdminSite`` serves the admin of a small lending-library app
(:mod:`.library`: authors, books, loans) over sqlite on 127.0.0.1 with fixed
seed data (:mod:`.data`); :data:`CACHE_DIR` holds the tool cache built by
``toolcache build traces/django_admin`` (never hand-written); ``tasks.toml``
the tasks, :mod:`.judges` their judges (they read the database) and
``plans/`` the reference plans. Django itself is imported only when a site
starts (``pip install 'agentjit[dev]'``).
"""

from pathlib import Path

from .data import DATA, PASSWORD, USERNAME
from .site import DjangoAdminSite, read_state

CACHE_DIR = Path(__file__).parent / "cache"
PLANS_DIR = Path(__file__).parent / "plans"

__all__ = ["DjangoAdminSite", "read_state", "DATA", "USERNAME", "PASSWORD", "CACHE_DIR", "PLANS_DIR"]
