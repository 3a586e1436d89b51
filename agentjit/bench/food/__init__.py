"""The food-delivery bench site (after the paper's Dashdish), its tools and tasks.

``FoodSite`` serves it on 127.0.0.1; :data:`CACHE_DIR` is its hand-written tool
cache; :mod:`agentjit.bench.food.tasks` holds its tasks, judges and reference plans.
"""

from pathlib import Path

from .server import FoodSite, serve_forever

CACHE_DIR = Path(__file__).parent / "cache"
"""The hand-written tool cache of the site (load with ``ToolCache.load(CACHE_DIR)``)."""
PLANS_DIR = Path(__file__).parent / "plans"
"""Reference plans, one ``<task_id>.py`` per task."""

__all__ = ["FoodSite", "serve_forever", "CACHE_DIR", "PLANS_DIR"]
