"""The Roundup issue tracker as a bench app: a real open-source web app nobody here wrote.

``RoundupSite`` serves the classic template over sqlite on 127.0.0.1 with
generated data (:mod:`.data`); :data:`CACHE_DIR` holds the tool cache built by
``toolcache build traces/roundup`` (never hand-written); :mod:`.tasks` the
tasks, judges and reference plans. Roundup itself is imported only when a
site starts (``pip install 'agentjit[dev]'``).
"""

from pathlib import Path

from .data import PASSWORD, generate
from .server import RoundupSite, read_state

CACHE_DIR = Path(__file__).parent / "cache"
PLANS_DIR = Path(__file__).parent / "plans"

__all__ = ["RoundupSite", "read_state", "generate", "PASSWORD", "CACHE_DIR", "PLANS_DIR"]
