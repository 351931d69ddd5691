"""Brent's bounded minimum (sitesim/analysis/minimize.py): the point scipy's bounded
``minimize_scalar`` finds, float for float, so fitted tables keep their bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import gammaln

from sitesim.analysis.day_cycles import HOURS, STRENGTH_RANGE, prior_strength, site_profile
from sitesim.analysis.minimize import bounded_minimum


def _scipy(f, low: float, high: float, xatol: float, max_evaluations: int = 500) -> float:
    found = minimize_scalar(f, bounds=(low, high), method="bounded",
                            options={"xatol": xatol, "maxiter": max_evaluations})
    return float(found.x)


SHAPES = {
    "parabola": lambda c: (lambda x: (x - c) ** 2),
    "quartic": lambda c: (lambda x: (x - c) ** 4 + 0.1 * x),
    "abs": lambda c: (lambda x: abs(x - c)),  # a kink: golden steps
    "cosine": lambda c: (lambda x: math.cos(x + c)),  # several minima
    "flat": lambda c: (lambda x: 1.0),
    "edge": lambda c: (lambda x: -x),  # the minimum at the upper end
    "log-gamma": lambda c: (lambda x: float(gammaln(math.exp(x)) - c * x)),
}


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    centre=st.floats(-50, 50),
    low=st.floats(-100, 10),
    width=st.floats(1e-6, 200),
    xatol=st.sampled_from([1e-8, 1e-5, 1e-4, 0.1]),
    max_evaluations=st.sampled_from([3, 10, 500]),
)
def test_the_same_point_as_scipy(shape: str, centre: float, low: float, width: float, xatol: float,
                                 max_evaluations: int) -> None:
    f = SHAPES[shape](centre)
    high = low + width
    mine = bounded_minimum(f, low, high, xatol=xatol, max_evaluations=max_evaluations)
    assert mine == _scipy(f, low, high, xatol, max_evaluations)
    assert low <= mine <= high


@settings(derandomize=True, max_examples=60, deadline=None, database=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.floats(0.05, 50))
def test_prior_strength_as_scipy_found_it(seed: int, users: int, concentration: float) -> None:
    """The fitted strength (6 significant digits in population.json) is scipy's, from
    users whose hours are alike, unlike or in between."""
    rng = np.random.default_rng(seed)
    site = rng.dirichlet(np.ones(HOURS))
    counts = [rng.multinomial(int(rng.integers(1, 80)), rng.dirichlet(concentration * HOURS * site + 1e-9))
              for _ in range(users)]
    c = np.asarray(counts, dtype=float)
    c = c[c.sum(axis=1) > 0]
    if len(c) < 2:
        return
    p = site_profile(c)
    seen = p > 0
    c, p = c[:, seen], p[seen]
    n = c.sum(axis=1)

    def minus_log_likelihood(log_a: float) -> float:
        a = math.exp(log_a)
        return -float(np.sum(gammaln(a) - gammaln(n + a)) + np.sum(gammaln(c + a * p) - gammaln(a * p)))

    low, high = (math.log(b) for b in STRENGTH_RANGE)
    assert prior_strength(counts) == math.exp(_scipy(minus_log_likelihood, low, high, 1e-4))


@pytest.mark.parametrize(("low", "high"), [(1.0, 0.0), (0.0, math.inf), (math.nan, 1.0)])
def test_an_interval_that_is_not_one_is_refused(low: float, high: float) -> None:
    with pytest.raises(ValueError, match="not a finite interval"):
        bounded_minimum(lambda x: x, low, high)
