"""Observations kept within what a run accepts: the values ``sitesim fit`` caps.

A log may hold values beyond the limits the table loaders set (an estimate ratio of
46 million: a job asking for 738,738,720 s that ran 16 s). The fit used to write them,
report success, and leave a site that its own loader refused. The limits are declared
once, where the loaders read them (:data:`sitesim.distributions.model.VALUE_BOUNDS`
for the empirical tables, :data:`sitesim.limits.POPULATION_BOUNDS` for the population),
and the fit caps each observation at the bound it passes: capped, not dropped, so a
job stays a job and the tail keeps its mass (as an estimate ratio, 10^6 and 4.6 * 10^7
mean the same to a scheduler: the request says nothing about the runtime). Each field
counts the observations it capped; the tables' provenance and the fit's report say how
many.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from attrs import define, field
from numpy.typing import ArrayLike, NDArray


@define(slots=True)
class Capped:
    """How many observations of each field were moved onto a bound, by field name."""

    counts: dict[str, int] = field(factory=dict)

    def clip(self, name: str, values: ArrayLike, low: float, high: float) -> NDArray[Any]:
        """``values`` with those outside ``low..high`` moved onto the bound they pass,
        counted under ``name``; whole numbers stay whole (the bounds of whole-number
        fields are whole)."""
        array = np.asarray(values)
        outside = int(np.count_nonzero((array < low) | (array > high)))
        if not outside:
            return array
        self.counts[name] = self.counts.get(name, 0) + outside
        return np.clip(array, low, high).astype(array.dtype)

    def value(self, name: str, value: float, low: float, high: float) -> float:
        """One observation, as :meth:`clip` keeps it."""
        if low <= value <= high:
            return value
        self.counts[name] = self.counts.get(name, 0) + 1
        return min(max(value, low), high)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))

    def describe(self) -> str:
        """``estimate_ratio 3, thinks 1`` (``none`` when nothing was capped)."""
        return ", ".join(f"{name} {n:,}" for name, n in sorted(self.counts.items())) or "none"
