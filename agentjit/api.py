"""The high-level entry points, also ``agentjit.run``, ``agentjit.compile`` and ``agentjit.check``:
compile a task into a plan, check a plan, run a plan on a site (a URL and a tool cache) or on a
named app profile whose site is started for you. Each is one walk of a
:class:`~agentjit.session.Session`; keep a session yourself for many tasks on one site."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentjit.cache import ToolCache
from agentjit.exceptions import ConfigError, InputFileError
from agentjit.llm.base import Model
from agentjit.plan import PlanLimits
from agentjit.plan.sandbox import MAX_PLAN_BYTES
from agentjit.runtime import BrowserPool, RunResult, Strategy
from agentjit.session import Session, open_cache
from agentjit.tasks.apps import get_app

if TYPE_CHECKING:
    from agentjit.planner import CheckResult, CompiledPlan

__all__ = ["run", "compile", "check", "read_plan"]


def _is_path(source: str | Path) -> bool:
    return isinstance(source, Path) or (isinstance(source, str) and source.endswith(".py") and "\n" not in source)


def read_plan(source: str | Path) -> str:
    """Plan text from a path (``.py``) or the text itself.

    A file that is missing, unreadable, larger than a plan may be
    (:data:`~agentjit.plan.sandbox.MAX_PLAN_BYTES`; only that much is read),
    not UTF-8 or binary raises :class:`~agentjit.exceptions.InputFileError`
    naming it.
    """
    if not _is_path(source):
        return str(source)
    path = Path(source)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
    except FileNotFoundError:
        raise InputFileError("no such plan file", path=str(path)) from None
    except IsADirectoryError:
        raise InputFileError("is a directory, not a plan file", path=str(path)) from None
    except OSError as exc:
        raise InputFileError(f"cannot read the plan file: {exc.strerror or exc}", path=str(path)) from None
    if len(data) > MAX_PLAN_BYTES:
        raise InputFileError(f"larger than a plan may be ({MAX_PLAN_BYTES} bytes)", path=str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): a plan is Python source", path=str(path)
        ) from None
    if "\x00" in text:
        raise InputFileError("contains NUL bytes (a binary file?): a plan is Python source", path=str(path))
    return text


async def run(
    source: str | Path,
    *,
    app: str | None = None,
    site_url: str | None = None,
    cache: ToolCache | str | Path | None = None,
    strategy: str | Strategy = "serial",
    model: Model | None = None,
    latency_scale: float = 0.0,
    trace_dir: str | Path | None = None,
    pool: BrowserPool | None = None,
    task: str | None = None,
    limits: PlanLimits | None = None,
    origin: str | None = None,
    browser: str | None = None,
) -> RunResult:
    """Run a plan on ``site_url`` with ``cache``'s tools (a ToolCache or its directory), or on
    a named app profile.

    With ``site_url`` nothing is started: the run goes to that URL. Without it
    the profile's site is started in-process on a free port (``latency_scale``
    sets its injected latency) and stopped afterwards. ``app`` supplies
    whatever is not given (its cache, its site); with neither ``app`` nor
    ``cache`` the bundled ``food`` profile is used. The run starts at the
    cache's ``info.start_path`` in its ``info.initial_state``.

    The walk is a :class:`~agentjit.session.Session`'s: before anything
    starts, the plan passes the checker's gate (:func:`agentjit.planner.admit`,
    exactly what ``agentjit check`` does): an invalid plan raises
    :class:`~agentjit.exceptions.PlanRejected`, naming ``origin`` (where the
    plan came from; a path ``source`` names itself). ``strategy`` is
    ``serial``, ``parallel``, ``hedge``, ``auto`` (the scheduler picks from the
    cache's latency fits) or a strategy object.
    ``limits`` bounds the run (default: :data:`agentjit.plan.DEFAULT_LIMITS`).
    ``browser`` is a browser spec (``ws://...`` or ``cdp=http://...``, see
    :meth:`BrowserPool.from_spec`) used when no ``pool`` is given; default
    ``AGENTJIT_BROWSER``, else a launched local Chromium.
    """
    text = read_plan(source)
    if origin is None and _is_path(source):
        origin = str(source)
    if app is None and cache is None:
        app = "food"
    profile = get_app(app) if app is not None else None
    if cache is None:
        assert profile is not None
        cache = profile.cache_dir
    session = Session(cache, model=model, pool=pool, browser=browser, trace_dir=trace_dir, limits=limits)
    prepared = session.prepare(text, strategy=strategy, origin=origin)  # the gate, before anything starts
    if site_url is not None:
        return await session.execute(prepared, site_url=site_url, task=task)
    if profile is None:
        raise ConfigError("give site_url (the site to run on) with cache, or an app whose site can be started")
    site = profile.site(latency_scale=latency_scale)
    site.start()
    try:
        return await session.execute(prepared, site_url=site.url, task=task)
    finally:
        site.stop()


def _cache_of(app: str | None, cache: ToolCache | str | Path | None) -> ToolCache:
    """``cache`` (a ToolCache or its directory), else the app's bundled cache opened read-only
    (compiled plans then stay in memory; the installed package is never written)."""
    if isinstance(cache, ToolCache):
        return cache
    if cache is not None:
        return open_cache(cache)
    return open_cache(get_app(app or "food").cache_dir, read_only=True)


async def compile(  # noqa: A001 - agentjit.compile is the public name
    task: str,
    *,
    model: Model,
    app: str | None = None,
    cache: ToolCache | str | Path | None = None,
    use_cache: bool = True,
    **planner_options: Any,
) -> CompiledPlan:
    """Compile ``task`` into the cheapest valid plan over ``cache``'s tools (or the app's; default
    food) with ``model``: candidates sampled, checked, repaired and costed (``planner_options``
    go to :class:`~agentjit.planner.Planner`: ``n``, ``k``, ``max_repairs``, ...). A plan cache
    hit calls no model (``use_cache=False`` always asks)."""
    session = Session(_cache_of(app, cache), model=model, planner_options=planner_options)
    return await session.compile(task, use_cache=use_cache)


def check(source: str | Path, cache: ToolCache | str | Path | None = None, *, app: str | None = None) -> CheckResult:
    """The checker's verdict on a plan (text or a ``.py`` path) against ``cache``'s tools (or the
    app's; default food): sandbox, types, state flow and cost, as ``agentjit check`` gives it.
    Never raises for an invalid plan: read ``.valid`` and ``.diagnostics``."""
    return Session(_cache_of(app, cache)).check(read_plan(source))
