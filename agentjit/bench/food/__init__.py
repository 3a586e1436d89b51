"""The food-delivery bench site (after the paper's Dashdish), its tools and tasks.

``FoodSite`` serves it on 127.0.0.1; :data:`CACHE_DIR` is its hand-written tool
cache; :mod:`agentjit.bench.food.tasks` holds its tasks, judges and reference plans.
:data:`BUILT_CACHE_DIR` is the cache ``toolcache build traces/food`` wrote (never edited
by hand) and :data:`BUILT_PLANS_DIR` the reference plans over its tools only
(:func:`agentjit.bench.food.tasks.built_tasks`).
"""

from pathlib import Path

from .server import FoodSite, serve_forever

CACHE_DIR = Path(__file__).parent / "cache"
"""The hand-written tool cache of the site (load with ``ToolCache.load(CACHE_DIR)``)."""
PLANS_DIR = Path(__file__).parent / "plans"
"""Reference plans, one ``<task_id>.py`` per task."""
BUILT_CACHE_DIR = Path(__file__).parent / "built_cache"
"""The tool cache ``toolcache build traces/food -o BUILT_CACHE_DIR --app food`` wrote."""
BUILT_PLANS_DIR = Path(__file__).parent / "built_plans"
"""Reference plans over the built cache's tools only, one ``<task_id>.py`` per task."""

__all__ = ["FoodSite", "serve_forever", "CACHE_DIR", "PLANS_DIR", "BUILT_CACHE_DIR", "BUILT_PLANS_DIR"]
