"""The bundled apps' profiles, registered through entry points.

Each name below is an :class:`~agentjit.tasks.apps.App` that ``pyproject.toml``
lists under ``[project.entry-points."agentjit.apps"]``; the registry in
:mod:`agentjit.tasks.apps` reads that group, so the core finds these apps
without importing the bench. This module stays light (no site is imported until
a profile's site or tasks are asked for).
"""

from __future__ import annotations

from agentjit.tasks.apps import App

__all__ = ["FOOD", "FOOD_BUILT", "FAVA", "ROUNDUP", "DJANGO_ADMIN", "TRAC"]

FOOD = App(
    "food", "agentjit.bench.food", "FoodSite", description="the bundled food-delivery site",
    state_path="/__state", reset_path="/__reset",
)  # fmt: skip
FOOD_BUILT = App(
    "food_built", "agentjit.bench.food", "FoodSite", cache="built_cache", task_source="agentjit.bench.food.tasks:BUILT_TASKS",
    description="the food site with the tools toolcache built from traces/food (no hand-written tool)",
    state_path="/__state", reset_path="/__reset",
)  # fmt: skip
FAVA = App("fava", "agentjit.bench.fava", "FavaSite", task_source="tasks.toml", extra="dev",
           description="Fava, the Beancount web UI, over a generated example ledger")
ROUNDUP = App("roundup", "agentjit.bench.roundup", "RoundupSite", task_source="tasks.toml", extra="dev",
              description="the Roundup issue tracker (classic template) with generated issues",
              state_path="/__state", reset_path="/__reset")
DJANGO_ADMIN = App("django_admin", "agentjit.bench.django_admin", "DjangoAdminSite", task_source="tasks.toml", extra="dev",
                   description="Django's admin over a small lending-library app (authors, books, loans)",
                   state_path="/__state", reset_path="/__reset")
TRAC = App("trac", "agentjit.bench.trac", "TracSite", task_source="tasks.toml", extra="dev",
           description="Trac 1.6 (tickets, custom queries, reports, wiki) with fixed seed data",
           state_path="/__state", reset_path="/__reset")
