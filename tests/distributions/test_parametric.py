"""Fitted scipy.stats alternatives, selectable by name."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.distributions import distribution_from_dict, load_empirical
from sitesim.distributions.parametric import ParametricDistribution, fit_parametric
from sitesim.errors import InputError


def test_lognormal_fit_recovers_parameters() -> None:
    data = np.random.default_rng(4).lognormal(3.0, 1.5, 20_000)
    d = fit_parametric("lognorm", data)
    shape, loc, scale = d.params
    assert shape == pytest.approx(1.5, rel=0.03) and loc == 0
    assert np.log(scale) == pytest.approx(3.0, abs=0.05)
    back = distribution_from_dict(d.to_dict())
    assert isinstance(back, ParametricDistribution) and back.params == pytest.approx(d.params)


def test_parametric_sampling_uses_the_generator() -> None:
    d = ParametricDistribution("expon", (0.0, 10.0))
    a = d.sample(np.random.default_rng(1), 5)
    b = d.sample(np.random.default_rng(1), 5)
    assert a.tolist() == b.tolist()
    assert isinstance(d.sample(np.random.default_rng(1)), float)
    assert d.cdf(d.quantile(0.3)) == pytest.approx(0.3)
    assert d.mean() == pytest.approx(10.0)


def test_model_fit_by_name_and_unknown_name() -> None:
    m = load_empirical("KTH-SP2")
    fit = m.fitted("runtime", "gamma")
    assert fit.name == "gamma" and fit.mean() > 0
    with pytest.raises(InputError, match="unknown parametric distribution"):
        m.fitted("runtime", "cauchy-ish")
    with pytest.raises(InputError, match="too few"):
        fit_parametric("lognorm", [0.0, -1.0])
