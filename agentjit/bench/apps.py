"""The registry of bundled bench apps: their site, tool cache and tasks, by name."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentjit.cache import ToolCache
from agentjit.exceptions import ConfigError

if TYPE_CHECKING:
    from .tasks import Task

__all__ = ["App", "Site", "get_app", "APP_NAMES"]


class Site(Protocol):
    """What a bench site offers: a URL, its mutable state, a reset, start and stop."""

    url: str
    latency_scale: float

    def start(self) -> Any: ...

    def stop(self) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def reset(self) -> None: ...


@dataclass(frozen=True)
class App:
    name: str
    module: str
    site_class: str

    def _mod(self) -> Any:
        return importlib.import_module(self.module)

    @property
    def cache_dir(self) -> Path:
        return Path(self._mod().__file__).parent / "cache"

    def load_cache(self) -> ToolCache:
        return ToolCache.load(self.cache_dir)

    def site(self, *, port: int = 0, seed: int = 0, latency_scale: float = 1.0) -> Site:
        site: Site = getattr(self._mod(), self.site_class)(port=port, seed=seed, latency_scale=latency_scale)
        return site

    def tasks(self) -> list[Task]:
        tasks: list[Task] = list(importlib.import_module(self.module + ".tasks").TASKS)
        return tasks

    def task(self, task_id: str) -> Task:
        for t in self.tasks():
            if t.id == task_id:
                return t
        raise ConfigError(f"app {self.name!r} has no task {task_id!r}")


_APPS = {"food": App("food", "agentjit.bench.food", "FoodSite")}
APP_NAMES = tuple(_APPS)


def get_app(name: str) -> App:
    try:
        return _APPS[name]
    except KeyError:
        raise ConfigError(f"unknown app {name!r} (bundled apps: {', '.join(APP_NAMES)})") from None
