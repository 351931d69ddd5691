"""Fitted parametric alternatives to the empirical distributions (scipy.stats).

The paper uses empirical data directly; fitted curves are offered for sensitivity
studies ("does the conclusion survive a lognormal runtime?"). scipy is imported only
here and only when a fit is asked for, so the simulator's hot path never pays for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from sitesim.errors import InputError

#: Distributions that may be selected by name, and whether their location is pinned
#: at 0 when fitting (positive quantities such as runtimes and ratios).
FITTABLE: dict[str, bool] = {
    "expon": True,
    "gamma": True,
    "lognorm": True,
    "weibull_min": True,
    "loguniform": False,
    "norm": False,
    "uniform": False,
}


def _scipy_dist(name: str) -> Any:
    if name not in FITTABLE:
        known = ", ".join(sorted(FITTABLE))
        raise InputError(f"unknown parametric distribution {name!r} (known: {known})")
    import scipy.stats  # lazy: keep scipy out of the simulator's import graph

    return getattr(scipy.stats, name)


class ParametricDistribution:
    """A frozen scipy.stats distribution behind the same interface as the empirical ones."""

    __slots__ = ("name", "params", "_frozen")

    def __init__(self, name: str, params: tuple[float, ...]) -> None:
        self.name = name
        self.params = tuple(float(p) for p in params)
        self._frozen = _scipy_dist(name)(*self.params)

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...] | None = None) -> Any:
        out = self._frozen.rvs(size=size, random_state=rng)
        return float(out) if size is None else np.asarray(out, dtype=float)

    def mean(self) -> float:
        return float(self._frozen.mean())

    def quantile(self, q: ArrayLike) -> Any:
        out = self._frozen.ppf(q)
        return float(out) if np.ndim(q) == 0 else out

    def cdf(self, x: ArrayLike) -> Any:
        out = self._frozen.cdf(x)
        return float(out) if np.ndim(x) == 0 else out

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "parametric", "name": self.name, "params": [float(f"{p:.10g}") for p in self.params]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ParametricDistribution:
        return cls(str(data["name"]), tuple(data["params"]))

    def __repr__(self) -> str:
        return f"ParametricDistribution({self.name!r}, {self.params})"


def fit_parametric(name: str, data: ArrayLike) -> ParametricDistribution:
    """Maximum-likelihood fit of the scipy.stats distribution ``name`` to ``data``.

    Positive families are fitted with location 0 on the strictly positive
    observations (a log-scale family cannot hold the zero-second atoms).
    """
    dist = _scipy_dist(name)
    arr = np.asarray(data, dtype=float).ravel()
    arr = arr[np.isfinite(arr)]
    if FITTABLE[name] or name == "loguniform":
        arr = arr[arr > 0]
    if arr.size < 2:
        raise InputError(f"too few usable observations to fit {name!r}")
    if name == "loguniform":
        params: tuple[float, ...] = (float(arr.min()), float(arr.max()))
    elif FITTABLE[name]:
        params = tuple(dist.fit(arr, floc=0.0))
    else:
        params = tuple(dist.fit(arr))
    return ParametricDistribution(name, params)


def fit_to_distribution(name: str, dist: Any, points: int = 2000) -> ParametricDistribution:
    """Fit ``name`` to an empirical distribution through its quantiles at mid-grid points.

    Deterministic (no random draw): the pseudo-sample is ``quantile((i + 0.5) / points)``.
    """
    grid = (np.arange(points) + 0.5) / points
    return fit_parametric(name, np.asarray(dist.quantile(grid), dtype=float))
