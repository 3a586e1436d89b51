"""Named site profiles: a site factory, a tool cache directory and tasks, by name.

A profile is only a convenience over what every command takes directly (a
site URL, a cache directory and a task list): ``agentjit run --app food`` is
``--site`` of a food site started for you plus ``--cache`` of the food cache.
The registry is open: another module registers its own profile with
:func:`register_app`. Every part of a profile is named by import path and
loaded on first use, so a profile whose optional dependency is missing breaks
only itself, with a :class:`~agentjit.exceptions.ConfigError` naming the extra.

A site factory is called as ``factory(port=0, seed=0, latency_scale=1.0)`` and
returns a :class:`Site` (not yet started).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentjit.cache import ToolCache
from agentjit.exceptions import ConfigError, SiteUnreachable

if TYPE_CHECKING:
    from .tasks import Task

__all__ = ["App", "Site", "RemoteSite", "get_app", "register_app", "app_names", "APP_NAMES"]


class Site(Protocol):
    """What a site offers the harness: a URL, its mutable state, a reset, start and stop."""

    url: str
    latency_scale: float

    def start(self) -> Any: ...

    def stop(self) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def reset(self, draws: str = "") -> None:
        """Back to the seed state. ``draws`` names the stream of injected latencies from here on
        (runs reset with the same name meet the same delays); sites without injected latency
        ignore it."""
        ...


class RemoteSite:
    """A site somebody else runs (``--site URL``): nothing to start or stop.

    With ``state_path`` / ``reset_path`` (a profile's, e.g. the food site's
    ``/__state`` and ``/__reset``) it snapshots and resets over HTTP; without
    them :meth:`state` is ``{}`` and :meth:`reset` does nothing, and judges read
    the site's own storage (see :mod:`agentjit.bench.taskfile`).
    """

    latency_scale = 0.0

    def __init__(self, url: str, *, state_path: str | None = None, reset_path: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.state_path = state_path
        self.reset_path = reset_path

    def start(self) -> RemoteSite:
        return self

    def stop(self) -> None:
        pass

    def state(self) -> dict[str, Any]:
        if self.state_path is None:
            return {}
        data: dict[str, Any] = json.loads(self._request("GET", self.state_path) or b"{}")
        return data

    def reset(self, draws: str = "") -> None:
        if self.reset_path is not None:
            query = "?" + urllib.parse.urlencode({"draws": draws}) if draws else ""
            self._request("POST", self.reset_path + query)

    def _request(self, method: str, path: str) -> bytes:
        request = urllib.request.Request(self.url + path, method=method, data=b"" if method == "POST" else None)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                body: bytes = response.read()
                return body
        except OSError as exc:  # URLError and timeouts are OSErrors
            raise SiteUnreachable(f"{method} {self.url + path}: {exc}") from exc


@dataclass(frozen=True)
class App:
    """A named profile.

    ``module`` is the profile's package, imported on first use; ``site_class``
    the site factory in it (``""``: the profile has no site of its own and
    needs ``--site``). ``cache`` is the tool cache directory, relative to the
    package's directory unless absolute. ``task_source`` is where the tasks come
    from: ``"module:ATTR"`` (a list of :class:`~agentjit.bench.tasks.Task`), a
    task file relative to the package directory (``tasks.toml``), or ``None``
    for ``<module>.tasks:TASKS``. ``extra`` names the pip extra that provides
    the profile's dependencies, for the error when one is missing.
    """

    name: str
    module: str
    site_class: str = ""
    cache: str = "cache"
    task_source: str | None = None
    extra: str | None = None
    description: str = ""
    state_path: str | None = None
    """A path answering ``GET`` with the site's state as JSON, so that a site given by URL
    can be snapshotted for the judges; ``reset_path`` answers ``POST`` with a reset."""
    reset_path: str | None = None

    def _import(self, name: str) -> Any:
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            hint = f" (pip install 'agentjit[{self.extra}]')" if self.extra else ""
            raise ConfigError(f"app {self.name!r} cannot load {name}: {exc}{hint}") from exc

    def _mod(self) -> Any:
        return self._import(self.module)

    @property
    def package_dir(self) -> Path:
        spec = importlib.util.find_spec(self.module)
        if spec is None or spec.origin is None:
            return Path(self._mod().__file__).parent
        return Path(spec.origin).parent

    @property
    def cache_dir(self) -> Path:
        path = Path(self.cache)
        return path if path.is_absolute() else self.package_dir / path

    def load_cache(self) -> ToolCache:
        return ToolCache.load(self.cache_dir)

    def site(self, *, port: int = 0, seed: int = 0, latency_scale: float = 1.0) -> Site:
        if not self.site_class:
            raise ConfigError(f"app {self.name!r} has no site of its own: give --site URL")
        factory = getattr(self._mod(), self.site_class)
        site: Site = factory(port=port, seed=seed, latency_scale=latency_scale)
        return site

    def tasks(self) -> list[Task]:
        source = self.task_source or f"{self.module}.tasks:TASKS"
        if ":" in source and not source.endswith((".toml", ".jsonl")):
            module, _, attr = source.partition(":")
            tasks: list[Task] = list(getattr(self._import(module), attr))
            return tasks
        from .taskfile import load_tasks

        return load_tasks(self.package_dir / source, app=self.name)

    def task(self, task_id: str) -> Task:
        for t in self.tasks():
            if t.id == task_id:
                return t
        raise ConfigError(f"app {self.name!r} has no task {task_id!r}")


_APPS: dict[str, App] = {}


def register_app(app: App, *, replace: bool = False) -> App:
    """Add a profile to the registry (``replace=True`` to redefine one); returns it."""
    if app.name in _APPS and not replace and _APPS[app.name] != app:
        raise ConfigError(f"app {app.name!r} is already registered")
    _APPS[app.name] = app
    return app


def app_names() -> tuple[str, ...]:
    """The names of the registered profiles, in registration order."""
    return tuple(_APPS)


def get_app(name: str) -> App:
    try:
        return _APPS[name]
    except KeyError:
        raise ConfigError(f"unknown app {name!r} (registered apps: {', '.join(_APPS)})") from None


register_app(
    App(
        "food", "agentjit.bench.food", "FoodSite", description="the bundled food-delivery site",
        state_path="/__state", reset_path="/__reset",
    )
)  # fmt: skip
register_app(App("fava", "agentjit.bench.fava", "FavaSite", task_source="tasks.toml", extra="dev",
                 description="Fava, the Beancount web UI, over a generated example ledger"))
register_app(App("roundup", "agentjit.bench.roundup", "RoundupSite", task_source="tasks.toml", extra="dev",
                 description="the Roundup issue tracker (classic template) with generated issues",
                 state_path="/__state", reset_path="/__reset"))
register_app(App("django_admin", "agentjit.bench.django_admin", "DjangoAdminSite", task_source="tasks.toml", extra="dev",
                 description="Django's admin over a small lending-library app (authors, books, loans)",
                 state_path="/__state", reset_path="/__reset"))
register_app(App("trac", "agentjit.bench.trac", "TracSite", task_source="tasks.toml", extra="dev",
                 description="Trac 1.6 (tickets, custom queries, reports, wiki) with fixed seed data",
                 state_path="/__state", reset_path="/__reset"))
APP_NAMES = app_names()
"""The profiles registered when this module was imported (:func:`app_names` for the current list)."""
