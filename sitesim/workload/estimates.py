"""Runtime-estimate models: where the scheduler's ``estimate`` of each job comes from.

Backfilling schedulers plan with user estimates, never with real runtimes. A model is
named on the command line (``--estimates NAME`` or ``NAME:ARG``) and registered here by
class. A job that runs past its estimate is killed at the estimate (see docs/metrics.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

import numpy as np

from sitesim.errors import InputError

_REGISTRY: dict[str, type[EstimateModel]] = {}

E = TypeVar("E", bound="type[EstimateModel]")


class EstimateModel(ABC):
    """Turns a job's real runtime (and, in replay, its requested time) into an estimate."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    #: True if the model needs the trace's requested time (replay only).
    needs_trace: ClassVar[bool] = False
    #: True if the model draws random numbers.
    random: ClassVar[bool] = False

    def __init__(self, arg: str | None = None) -> None:
        if arg is not None:
            raise InputError(f"estimate model {self.name!r} takes no argument", field="--estimates")

    @property
    def spec(self) -> str:
        """The name that recreates this model (what ``--estimates`` was given)."""
        return self.name

    @abstractmethod
    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        """Estimate in whole seconds; ``requested`` is -1 when unknown."""


def register_estimates(cls: E) -> E:
    if cls.name in _REGISTRY:
        raise ValueError(f"estimate model {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def estimate_models() -> dict[str, type[EstimateModel]]:
    return dict(_REGISTRY)


def make_estimates(spec: str) -> EstimateModel:
    """Build a model from ``NAME`` or ``NAME:ARG`` (unknown names are input errors)."""
    name, _, arg = spec.partition(":")
    cls = _REGISTRY.get(name)
    if cls is None:
        known = ", ".join(sorted(_REGISTRY))
        raise InputError(f"unknown estimate model {spec!r} (known: {known})", field="--estimates")
    return cls(arg or None)


@register_estimates
class ExactEstimates(EstimateModel):
    """Perfect knowledge: the estimate is the real runtime (the paper's setting)."""

    name = "exact"
    summary = "estimate = actual runtime"

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return runtime


@register_estimates
class TraceEstimates(EstimateModel):
    """The user's requested time from the trace (SWF field 9), else the real runtime.

    A requested time of -1 or 0 is taken as missing. Jobs whose trace runtime exceeds
    their request are killed at the request, as the real system would have done.
    """

    name = "trace"
    summary = "requested time from the trace (field 9), runtime where missing"
    needs_trace = True

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return requested if requested > 0 else runtime
