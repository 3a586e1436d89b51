"""Latency distributions: fit per-tool durations, store them in ``latency.json``, refit from traces.

Each tool (and each ``tool/element`` pair when traces name elements) gets a
parametric fit chosen by AIC among Weibull, gamma, log-normal and exponential,
all with the location fixed at zero: durations start at zero, and free-location
fits on a few dozen samples are both worse and slower (BROWSER.md). With fewer
than :data:`MIN_FIT_SAMPLES` samples there is nothing to choose between, so the
samples themselves are kept and resampled (:class:`Empirical`).

Sampling uses numpy's ``Generator`` methods directly (in float32) rather than
``scipy.stats.*.rvs``: the Monte Carlo draws one matrix per tool per strategy,
and the numpy calls are several times faster than scipy's dispatch.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from agentjit.exceptions import CacheError
from agentjit.protocol.trace import StepEvent

__all__ = [
    "FAMILIES",
    "MIN_FIT_SAMPLES",
    "MAX_KEPT_SAMPLES",
    "Distribution",
    "FitResult",
    "Empirical",
    "fit_latency",
    "fits_to_json",
    "fits_from_json",
    "refit_from_traces",
    "durations_from_steps",
]

log = logging.getLogger(__name__)

FAMILIES: tuple[str, ...] = ("weibull_min", "gamma", "lognorm", "expon")
"""The parametric families tried, by their ``scipy.stats`` names."""

MIN_FIT_SAMPLES = 5
"""Below this many samples :func:`fit_latency` returns an :class:`Empirical` bootstrap."""

MAX_KEPT_SAMPLES = 200
"""How many of the most recent raw samples a fit keeps, so a later refit can merge new ones."""

_SHAPE_PARAM: dict[str, str | None] = {
    "weibull_min": "c",
    "gamma": "a",
    "lognorm": "s",
    "expon": None,
}
_MIN_DURATION = 1e-6  # seconds; zero durations would break log-likelihoods of weibull/lognorm


def _clean(samples: Iterable[float]) -> np.ndarray:
    x = np.asarray(list(samples), dtype=float).ravel()
    if x.size and not np.all(np.isfinite(x)):
        raise ValueError("latency samples must be finite numbers")
    if x.size and np.any(x < 0):
        raise ValueError("latency samples must be non-negative (seconds)")
    return np.maximum(x, _MIN_DURATION)


def _kept(x: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in x[-MAX_KEPT_SAMPLES:])


@dataclass(frozen=True, kw_only=True)
class Distribution:
    """What every latency distribution offers: summary numbers, vectorized sampling, JSON."""

    family: str
    n: int
    mean: float
    p50: float
    p95: float
    params: dict[str, float] = field(default_factory=dict)
    loglik: float | None = None
    aic: float | None = None
    ks: float | None = None
    samples: tuple[float, ...] = field(default=(), repr=False)
    """Up to :data:`MAX_KEPT_SAMPLES` most recent raw samples (seconds)."""

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    @staticmethod
    def from_dict(
        data: Mapping[str, Any], *, key: str = "<entry>", source: str | None = None
    ) -> Distribution:
        """Parse one ``latency.json`` entry; a malformed one raises CacheError naming key and field."""
        return _parse_entry(key, data, source)


@dataclass(frozen=True, kw_only=True)
class FitResult(Distribution):
    """A parametric fit (location fixed at zero), like ``scipy.stats.fit``'s result.

    ``params`` are the scipy keyword arguments without ``loc`` (``c``/``a``/``s``
    and ``scale``), so ``getattr(scipy.stats, family)(**params)`` is the fitted law.
    """

    def rv(self) -> Any:
        """The frozen ``scipy.stats`` distribution (for pdf/cdf plots)."""
        return getattr(stats, self.family)(loc=0.0, **self.params)

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Draw ``size`` samples (float32: latencies need no more, and it is about 1.5x faster)."""
        p = self.params
        scale = np.float32(p["scale"])
        f32 = np.float32
        if self.family == "weibull_min":
            # E ** (1/c) is Weibull(c) for a standard exponential E
            return rng.standard_exponential(size, dtype=f32) ** f32(1.0 / p["c"]) * scale
        if self.family == "gamma":
            return rng.standard_gamma(p["a"], size, dtype=f32) * scale
        if self.family == "lognorm":
            z = rng.standard_normal(size, dtype=f32)
            z *= f32(p["s"])
            return np.exp(z, out=z) * scale
        if self.family == "expon":
            return rng.standard_exponential(size, dtype=f32) * scale
        raise ValueError(f"unknown family {self.family!r}")  # pragma: no cover - checked at parse

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "family": self.family,
            "params": dict(self.params),
            "loglik": self.loglik,
            "aic": self.aic,
            "ks": self.ks,
            "n": self.n,
            "mean": self.mean,
            "p50": self.p50,
            "p95": self.p95,
        }
        if self.samples:
            out["samples"] = [round(v, 6) for v in self.samples]
        return out


@dataclass(frozen=True, kw_only=True)
class Empirical(Distribution):
    """A bootstrap over the observed samples, for tools seen fewer than five times.

    ``loglik``, ``aic`` and ``ks`` are ``None``: there is no model to score.
    """

    family: str = "empirical"

    @classmethod
    def of(cls, samples: Iterable[float]) -> Empirical:
        x = _clean(samples)
        if x.size == 0:
            raise ValueError("an empirical distribution needs at least one sample")
        return cls(
            n=int(x.size),
            mean=float(x.mean()),
            p50=float(np.percentile(x, 50)),
            p95=float(np.percentile(x, 95)),
            samples=_kept(x),
        )

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        return rng.choice(np.asarray(self.samples, dtype=float), size=size, replace=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": "empirical",
            "params": {},
            "loglik": None,
            "aic": None,
            "ks": None,
            "n": self.n,
            "mean": self.mean,
            "p50": self.p50,
            "p95": self.p95,
            "samples": [round(v, 6) for v in self.samples],
        }


def _fit_family(family: str, x: np.ndarray) -> FitResult | None:
    dist = getattr(stats, family)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fitted = dist.fit(x, floc=0)
        except (ValueError, RuntimeError, FloatingPointError) as exc:
            log.debug("fit of %s failed: %s", family, exc)
            return None
        *shapes, _loc, scale = fitted
        loglik = float(np.sum(dist.logpdf(x, *shapes, loc=0, scale=scale)))
        if (
            not math.isfinite(loglik)
            or not scale > 0
            or any(not (s > 0 and math.isfinite(s)) for s in shapes)
        ):
            return None
        frozen = dist(*shapes, loc=0, scale=scale)
        ks = float(stats.kstest(x, frozen.cdf).statistic)
        mean, p50, p95 = float(frozen.mean()), float(frozen.ppf(0.5)), float(frozen.ppf(0.95))
    shape_name = _SHAPE_PARAM[family]
    params = {shape_name: float(shapes[0])} if shape_name else {}
    params["scale"] = float(scale)
    k = len(params)
    if not all(math.isfinite(v) for v in (mean, p50, p95)):
        return None
    return FitResult(
        family=family,
        n=int(x.size),
        mean=mean,
        p50=p50,
        p95=p95,
        params=params,
        loglik=loglik,
        aic=2 * k - 2 * loglik,
        ks=ks,
    )


def fit_latency(samples: Iterable[float], families: Sequence[str] = FAMILIES) -> Distribution:
    """Fit ``samples`` (seconds) with each family (loc = 0) and return the one with the lowest AIC.

    Fewer than :data:`MIN_FIT_SAMPLES` samples, or samples that are all equal,
    give an :class:`Empirical` bootstrap instead. The result keeps the last
    :data:`MAX_KEPT_SAMPLES` samples so :func:`refit_from_traces` can merge.
    """
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown families {unknown} (choose from {list(FAMILIES)})")
    x = _clean(samples)
    if x.size == 0:
        raise ValueError("no latency samples to fit")
    if x.size < MIN_FIT_SAMPLES or float(np.ptp(x)) <= 1e-9 * float(x.max()):
        return Empirical.of(x)
    fits = [f for f in (_fit_family(family, x) for family in families) if f is not None]
    if not fits:
        log.warning("no family fits %d samples; keeping them as an empirical distribution", x.size)
        return Empirical.of(x)
    best = min(fits, key=lambda f: f.aic if f.aic is not None else math.inf)
    return FitResult(
        family=best.family,
        n=best.n,
        mean=best.mean,
        p50=best.p50,
        p95=best.p95,
        samples=_kept(x),
        params=best.params,
        loglik=best.loglik,
        aic=best.aic,
        ks=best.ks,
    )


# -- latency.json -----------------------------------------------------------------------


def fits_to_json(fits: Mapping[str, Distribution]) -> dict[str, Any]:
    """The ``latency.json`` object: ``{key: {family, params, loglik, aic, ks, n, mean, p50, p95, samples}}``."""
    return {key: dist.to_dict() for key, dist in fits.items()}


def fits_from_json(
    data: Mapping[str, Any], *, source: str | None = None
) -> dict[str, Distribution]:
    """Parse a ``latency.json`` object; a malformed entry raises CacheError naming key and field."""
    if not isinstance(data, Mapping):
        raise CacheError("latency data must be a JSON object", path=source)
    return {str(key): _parse_entry(str(key), entry, source) for key, entry in data.items()}


def _bad(key: str, fieldname: str, message: str, source: str | None) -> CacheError:
    return CacheError(f"latency entry {key!r}: field '{fieldname}': {message}", path=source)


def _number(
    key: str, entry: Mapping[str, Any], name: str, source: str | None, *, optional: bool = False
) -> float | None:
    value = entry.get(name)
    if value is None:
        if optional:
            return None
        raise _bad(key, name, "missing", source)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _bad(key, name, f"must be a finite number, got {value!r}", source)
    return float(value)


def _parse_entry(key: str, entry: Any, source: str | None) -> Distribution:
    if not isinstance(entry, Mapping):
        raise _bad(key, "<entry>", "must be an object", source)
    family = entry.get("family")
    if family not in (*FAMILIES, "empirical"):
        raise _bad(
            key, "family", f"must be one of {[*FAMILIES, 'empirical']}, got {family!r}", source
        )
    raw_samples = entry.get("samples", [])
    if not isinstance(raw_samples, list):
        raise _bad(key, "samples", "must be a list of numbers", source)
    for i, v in enumerate(raw_samples):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
            raise _bad(key, f"samples[{i}]", f"must be a non-negative number, got {v!r}", source)
    kept = tuple(float(v) for v in raw_samples[-MAX_KEPT_SAMPLES:])
    if family == "empirical":
        if not kept:
            raise _bad(key, "samples", "an empirical entry needs at least one sample", source)
        base = Empirical.of(kept)
        n = _number(key, entry, "n", source, optional=True)
        return Empirical(
            n=int(n) if n is not None else base.n,
            mean=_number(key, entry, "mean", source, optional=True) or base.mean,
            p50=_number(key, entry, "p50", source, optional=True) or base.p50,
            p95=_number(key, entry, "p95", source, optional=True) or base.p95,
            samples=kept,
        )
    params = entry.get("params")
    if not isinstance(params, Mapping):
        raise _bad(key, "params", "must be an object", source)
    shape_name = _SHAPE_PARAM[family]
    wanted = ([shape_name] if shape_name else []) + ["scale"]
    clean: dict[str, float] = {}
    for name in wanted:
        value = params.get(name)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not (math.isfinite(value) and value > 0)
        ):
            raise _bad(key, f"params.{name}", f"must be a positive number, got {value!r}", source)
        clean[name] = float(value)
    extra = set(params) - set(wanted) - {"loc"}
    if extra:
        raise _bad(key, "params", f"unexpected parameters {sorted(extra)} for {family}", source)
    if params.get("loc", 0) not in (0, 0.0):
        raise _bad(key, "params.loc", "the location must be 0", source)
    frozen = getattr(stats, family)(loc=0.0, **clean)
    mean = _number(key, entry, "mean", source, optional=True)
    p50 = _number(key, entry, "p50", source, optional=True)
    p95 = _number(key, entry, "p95", source, optional=True)
    n = _number(key, entry, "n", source, optional=True)
    return FitResult(
        family=family,
        n=int(n) if n is not None else len(kept),
        mean=mean if mean is not None else float(frozen.mean()),
        p50=p50 if p50 is not None else float(frozen.ppf(0.5)),
        p95=p95 if p95 is not None else float(frozen.ppf(0.95)),
        samples=kept,
        params=clean,
        loglik=_number(key, entry, "loglik", source, optional=True),
        aic=_number(key, entry, "aic", source, optional=True),
        ks=_number(key, entry, "ks", source, optional=True),
    )


# -- refitting from traces ---------------------------------------------------------------


def durations_from_steps(steps: Iterable[StepEvent]) -> dict[str, list[float]]:
    """Durations of successful tool steps, keyed by tool and by ``tool/element``.

    Failed steps and WRITEs answered from the effect log (``replayed``) say
    nothing about the site's latency and are skipped.
    """
    out: dict[str, list[float]] = {}
    for step in steps:
        if step.action != "tool" or not step.tool or not step.ok or step.replayed:
            continue
        duration = step.end - step.start
        if not math.isfinite(duration) or duration < 0:
            log.warning("step %d (%s) has a negative duration; skipped", step.index, step.tool)
            continue
        out.setdefault(step.tool, []).append(duration)
        for element in step.elements:
            out.setdefault(f"{step.tool}/{element}", []).append(duration)
    return out


def refit_from_traces(
    existing: Mapping[str, Distribution] | Mapping[str, Any],
    steps: Iterable[StepEvent],
    *,
    families: Sequence[str] = FAMILIES,
) -> dict[str, Distribution]:
    """Merge new step durations into the stored samples and refit the keys that got new data.

    A key's new fit is made from its kept samples (at most the last
    :data:`MAX_KEPT_SAMPLES`) plus the new durations; keys without new data are
    returned unchanged. A stored fit without kept samples is refitted from the
    new durations alone (its old parameters cannot be merged). ``existing`` may
    also be the raw ``latency.json`` object.
    """
    if any(isinstance(v, Mapping) for v in existing.values()):
        existing = fits_from_json(existing)  # raw latency.json entries
    fresh = durations_from_steps(steps)
    merged: dict[str, Distribution] = dict(existing)
    for key, durations in fresh.items():
        old = existing.get(key)
        previous = list(old.samples) if old is not None else []
        if old is not None and not previous:
            log.info(
                "latency %r has no kept samples; refitting from %d new ones", key, len(durations)
            )
        merged[key] = fit_latency(previous + durations, families)
    return merged
