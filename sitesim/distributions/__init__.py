"""Distributions the site-level simulator draws from, and the empirical model loader.

Hot-path safe: importing this package pulls in numpy only (scipy is imported lazily
by :mod:`~sitesim.distributions.parametric`, and only when a fit is requested).
"""

from sitesim.distributions.empirical import (
    Distribution,
    EmpiricalContinuous,
    EmpiricalDiscrete,
    distribution_from_dict,
    make_sampler,
)
from sitesim.distributions.model import (
    FIELDS,
    SIZE_MAPPINGS,
    EmpiricalModel,
    empirical_directory,
    known_models,
    load_empirical,
)

__all__ = [
    "FIELDS",
    "SIZE_MAPPINGS",
    "Distribution",
    "EmpiricalContinuous",
    "EmpiricalDiscrete",
    "EmpiricalModel",
    "distribution_from_dict",
    "empirical_directory",
    "known_models",
    "load_empirical",
    "make_sampler",
]
