"""Named site profiles: a site factory, a tool cache directory and tasks, by name.

A profile is only a convenience over what every command takes directly (a
site URL, a cache directory and a task list): ``agentjit run --app food`` is
``--site`` of a food site started for you plus ``--cache`` of the food cache.
Every part of a profile is named by import path and loaded on first use, so a
profile whose optional dependency is missing breaks only itself, with a
:class:`~agentjit.exceptions.ConfigError` naming the extra.

How profiles are found. The registry lives in the core, and the core never
imports the bench (``tests/test_layers.py``), so the bundled apps cannot be
listed here. They register themselves through Python entry points: a
distribution declares, in its ``pyproject.toml``::

    [project.entry-points."agentjit.apps"]
    food = "agentjit.tasks.apps:FOOD"

and the registry reads the group ``agentjit.apps`` with
:func:`importlib.metadata.entry_points` the first time a name is looked up;
each entry point is an :class:`App` (or a callable returning one). Entry
points rather than an import of a known module or an ``AGENTJIT_APPS``
variable because they are the packaging standard for plugins (pytest's
``pytest11``, setuptools' own commands): an installed package brings its apps
with it, agentjit's own bench is one such package, and nothing in the core
names it. The price is that a checkout must be installed (``make venv``,
``pip install -e .``) for the bundled apps to be found; :func:`get_app`'s error
says so. A program may still call :func:`register_app` itself (tests do).

A site factory is called as ``factory(port=0, seed=0, latency_scale=1.0)`` and
returns a :class:`Site` (not yet started).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import logging
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentjit.cache import ToolCache
from agentjit.exceptions import ConfigError, SiteUnreachable

if TYPE_CHECKING:
    from .task import Task

__all__ = ["App", "Site", "RemoteSite", "get_app", "register_app", "app_names", "ENTRY_POINT_GROUP"]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "agentjit.apps"
"""The entry point group the bundled (and any installed) apps register under."""


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
    the site's own storage (see :mod:`agentjit.tasks.taskfile`).
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
    from: ``"module:ATTR"`` (a list of :class:`~agentjit.tasks.Task`), a
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
_loaded = False


def _load_entry_points() -> None:
    """Register every app of the ``agentjit.apps`` entry point group, once (a name registered
    by hand first keeps its profile)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            found = ep.load()
            app = found() if callable(found) and not isinstance(found, App) else found
        except Exception as exc:  # a broken plugin must not take the others down
            log.warning("app entry point %s = %s failed to load: %s", ep.name, ep.value, exc)
            continue
        if not isinstance(app, App):
            log.warning("app entry point %s = %s is not an App", ep.name, ep.value)
            continue
        _APPS.setdefault(app.name, app)


def register_app(app: App, *, replace: bool = False) -> App:
    """Add a profile to the registry (``replace=True`` to redefine one); returns it."""
    _load_entry_points()
    if app.name in _APPS and not replace and _APPS[app.name] != app:
        raise ConfigError(f"app {app.name!r} is already registered")
    _APPS[app.name] = app
    return app


def app_names() -> tuple[str, ...]:
    """The names of the registered profiles: the entry points' in their order, then the ones
    registered by hand."""
    _load_entry_points()
    return tuple(_APPS)


def get_app(name: str) -> App:
    _load_entry_points()
    try:
        return _APPS[name]
    except KeyError:
        known = ", ".join(_APPS) or "none: is agentjit installed (pip install -e .)? the bundled apps " \
                                     f"register through the {ENTRY_POINT_GROUP!r} entry points"
        raise ConfigError(f"unknown app {name!r} (registered apps: {known})") from None
