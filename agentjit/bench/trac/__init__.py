"""Trac as a bench app: a real issue tracker and wiki nobody here wrote, chosen for its writes.

``TracSite`` serves a fresh Trac 1.6 environment over sqlite on 127.0.0.1 with
fixed seed data (:mod:`.data`: twelve tickets over four components and three
milestones, four wiki pages); :data:`CACHE_DIR` holds the tool cache built by
``toolcache build traces/trac`` (never hand-written); ``tasks.toml`` the tasks,
:mod:`.judges` their judges (they read Trac's database) and ``plans/`` the
reference plans. Trac itself is imported only when a site starts
(``pip install 'agentjit[dev]'``).
"""

from pathlib import Path

from .data import DATA
from .site import TracSite, read_state

CACHE_DIR = Path(__file__).parent / "cache"
PLANS_DIR = Path(__file__).parent / "plans"

__all__ = ["TracSite", "read_state", "DATA", "CACHE_DIR", "PLANS_DIR"]
