"""Latency fits: parameter recovery, AIC choice, bootstrap, latency.json, refit from traces."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from agentjit.exceptions import CacheError
from agentjit.protocol import StepEvent
from agentjit.scheduler import (
    MAX_KEPT_SAMPLES,
    Empirical,
    FitResult,
    fit_latency,
    fits_from_json,
    fits_to_json,
    refit_from_traces,
)

N = 2000


def _close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * abs(b)


@pytest.mark.parametrize(
    ("family", "draw", "truth"),
    [
        ("weibull_min", lambda r: 2.0 * r.weibull(1.5, N), {"c": 1.5, "scale": 2.0}),
        ("gamma", lambda r: r.gamma(2.5, 0.4, N), {"a": 2.5, "scale": 0.4}),
        ("lognorm", lambda r: r.lognormal(math.log(0.8), 0.5, N), {"s": 0.5, "scale": 0.8}),
        ("expon", lambda r: r.exponential(0.3, N), {"scale": 0.3}),
    ],
)
def test_fit_recovers_parameters_and_aic_picks_the_family(family, draw, truth):
    x = draw(np.random.default_rng(7))
    # each family alone recovers its own parameters
    own = fit_latency(x, families=[family])
    assert isinstance(own, FitResult) and own.family == family
    for name, value in truth.items():
        assert _close(own.params[name], value, 0.06), (name, own.params[name], value)
    # AIC over all four picks the family the samples came from
    best = fit_latency(x)
    assert isinstance(best, FitResult)
    assert best.family == family, (best.family, family)
    assert best.ks is not None and best.ks < 0.03
    assert best.n == N
    assert best.loglik is not None and best.aic == pytest.approx(2 * len(truth) - 2 * best.loglik)
    # summary numbers agree with scipy's frozen law and the data
    rv = best.rv()
    assert best.mean == pytest.approx(rv.mean())
    assert best.p95 == pytest.approx(rv.ppf(0.95))
    assert _close(best.mean, float(np.mean(x)), 0.05)
    # the log-likelihood is scipy's, at location zero
    assert best.loglik == pytest.approx(float(np.sum(rv.logpdf(x))))


def test_sample_is_vectorized_and_follows_the_fit():
    rng = np.random.default_rng(3)
    for fit in (
        FitResult(
            family="weibull_min", n=1, mean=0, p50=0, p95=0, params={"c": 3.6, "scale": 10.25}
        ),
        FitResult(family="gamma", n=1, mean=0, p50=0, p95=0, params={"a": 1.31, "scale": 18.95}),
        FitResult(family="lognorm", n=1, mean=0, p50=0, p95=0, params={"s": 0.4, "scale": 2.0}),
        FitResult(family="expon", n=1, mean=0, p50=0, p95=0, params={"scale": 0.5}),
    ):
        draws = fit.sample(rng, (400, 50))
        assert draws.shape == (400, 50)
        assert (draws > 0).all()
        assert _close(float(draws.mean()), float(fit.rv().mean()), 0.03)
        assert stats.kstest(draws.ravel()[:5000], fit.rv().cdf).statistic < 0.03


def test_fewer_than_five_samples_bootstrap():
    dist = fit_latency([0.2, 0.4, 0.3])
    assert isinstance(dist, Empirical)
    assert dist.family == "empirical" and dist.n == 3
    assert dist.loglik is None and dist.aic is None and dist.ks is None
    assert dist.mean == pytest.approx(0.3)
    draws = dist.sample(np.random.default_rng(0), (1000, 3))
    assert draws.shape == (1000, 3)
    assert set(np.unique(draws)) == {0.2, 0.3, 0.4}
    # identical samples cannot be fitted either
    assert isinstance(fit_latency([0.5] * 20), Empirical)


def test_bad_samples_are_rejected():
    with pytest.raises(ValueError, match="no latency samples"):
        fit_latency([])
    with pytest.raises(ValueError, match="non-negative"):
        fit_latency([0.1, -0.2])
    with pytest.raises(ValueError, match="unknown families"):
        fit_latency([0.1] * 10, families=["normal"])


def test_json_round_trip_through_a_file(tmp_path):
    rng = np.random.default_rng(11)
    fits = {
        "get_price": fit_latency(rng.gamma(2.0, 0.1, 300)),
        "get_price/price_label": fit_latency(rng.gamma(2.0, 0.1, 300)),
        "place_order": fit_latency([1.0, 1.5]),
    }
    data = fits_to_json(fits)
    entry = data["get_price"]
    assert set(entry) >= {
        "family",
        "params",
        "loglik",
        "aic",
        "ks",
        "n",
        "mean",
        "p50",
        "p95",
        "samples",
    }
    assert len(entry["samples"]) == MAX_KEPT_SAMPLES  # only the most recent are kept
    path = tmp_path / "latency.json"
    path.write_text(json.dumps(data))
    back = fits_from_json(json.loads(path.read_text()), source=str(path))
    assert set(back) == set(fits)
    for key, fit in fits.items():
        again = back[key]
        assert type(again) is type(fit)
        assert again.family == fit.family and again.n == fit.n
        assert again.params == pytest.approx(fit.params)
        assert again.mean == pytest.approx(fit.mean) and again.p95 == pytest.approx(fit.p95)
        assert again.samples == pytest.approx(fit.samples, abs=1e-6)
    assert fits_to_json(back) == json.loads(path.read_text())


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"family": "weibull", "params": {"c": 1, "scale": 1}}, "family"),
        ({"family": "gamma", "params": {"scale": 1}}, "params.a"),
        ({"family": "gamma", "params": {"a": -1, "scale": 1}}, "params.a"),
        ({"family": "expon", "params": "fast"}, "params"),
        ({"family": "expon", "params": {"scale": 1}, "mean": "slow"}, "mean"),
        ({"family": "expon", "params": {"scale": 1}, "samples": [0.1, "x"]}, "samples[1]"),
        ({"family": "empirical", "params": {}, "samples": []}, "samples"),
        ("gamma", "<entry>"),
    ],
)
def test_malformed_entry_names_key_and_field(entry, field):
    with pytest.raises(CacheError) as info:
        fits_from_json(
            {"ok_tool": {"family": "expon", "params": {"scale": 0.2}}, "bad_tool": entry},
            source="cache/latency.json",
        )
    message = str(info.value)
    assert "'bad_tool'" in message and f"'{field}'" in message and "cache/latency.json" in message


def test_missing_summary_numbers_are_computed():
    back = fits_from_json({"t": {"family": "expon", "params": {"scale": 0.5}}})
    assert back["t"].mean == pytest.approx(0.5)
    assert back["t"].p95 == pytest.approx(0.5 * -math.log(0.05))


def _step(i: int, tool: str | None, duration: float, **kw) -> StepEvent:
    return StepEvent(
        index=i,
        action=kw.pop("action", "tool"),
        tool=tool,
        start=100.0 + i,
        end=100.0 + i + duration,
        **kw,
    )


def test_refit_from_steps_merges_samples():
    rng = np.random.default_rng(5)
    old = {"get_price": fit_latency(rng.gamma(2.0, 0.1, 50)), "go_home": fit_latency([0.2, 0.3])}
    steps = [
        *(
            _step(i, "get_price", d, elements=["price_label"])
            for i, d in enumerate(rng.gamma(2.0, 0.1, 30))
        ),
        _step(40, "get_price", 9.0, ok=False),  # failed: not a latency sample
        _step(41, "place_order", 5.0, replayed=True),  # answered from the effect log
        _step(42, None, 0.05, action="click"),  # a primitive action, not a tool
        _step(43, "go_home", 0.25),
        _step(44, "list_items", 0.4),
    ]
    new = refit_from_traces(old, steps)
    assert new["get_price"].n == 80
    assert new["get_price"].samples[:50] == old["get_price"].samples
    assert new["get_price/price_label"].n == 30
    assert isinstance(new["go_home"], Empirical) and new["go_home"].n == 3
    assert new["list_items"].n == 1 and new["list_items"].mean == pytest.approx(0.4)
    assert "place_order" not in new
    assert old["get_price"].n == 50  # the input is not changed
    # the raw latency.json object works as well
    raw = refit_from_traces(fits_to_json(old), steps)
    assert raw["get_price"].n == 80 and raw["go_home"].n == 3


def test_refit_keeps_only_recent_samples():
    old = {"t": fit_latency(np.linspace(0.1, 1.0, MAX_KEPT_SAMPLES))}
    new = refit_from_traces(old, [_step(i, "t", 5.0) for i in range(10)])
    assert new["t"].n == MAX_KEPT_SAMPLES + 10
    assert len(new["t"].samples) == MAX_KEPT_SAMPLES
    assert new["t"].samples[-10:] == pytest.approx([5.0] * 10)
