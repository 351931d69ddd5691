"""How alike a user's consecutive jobs waited, measured on a log and fitted as a copula.

A fitted service draws each job's *level* (the uniform its delay is read at:
:mod:`sitesim.schedulers.service`) per user, dependent on the user's previous level
by the time since that submission. This module measures that dependence on a log per
class of that time (the *gap*), in one of two ways (``sitesim fit --levels``; the
default, ``recorded``, fits no dependence at all: each job's level is where its own
recorded wait falls among its size class's, :func:`_recorded`):

- ``gaussian``: the rank correlation of the pairs' waits, as the
  correlation of a Gaussian copula (:func:`level_correlation`);
- ``mixture``: on the pairs' *levels* (each job's wait ranked among its size
  class's), a mixture of two copulas (:func:`level_dependence`): with probability
  ``repeat`` the job takes its user's previous level again, otherwise a Gaussian
  copula of correlation ``rho`` with it.

Why a mixture, and not the Gaussian copula alone: a Gaussian copula gives far too
little *persistence of long waits*. Of SDSC-SP2's pairs whose first job waited in its
size class's top 1%, the second did too in 0.89, 0.79, 0.57 and 0.37 of the pairs
under a minute, 1-10 minutes, 10-60 minutes and 1 hour to 1 day apart, against 0.56,
0.16, 0.07 and 0.11 for the Gaussian copula at its fitted correlations
(docs/service.md, "Sessions too long where the service delays much"): the copula's
tails are independent, the log's are not. Drawn that way, the delays' long
tail fell on too many sessions' openers, and sessions came out too long.

Both signatures are linear in the mixture: S = p + (1 − p) S_G(ρ) and the persistence
λ = p + (1 − p) λ_G(ρ, q), where S_G(ρ) = (6/π) asin(ρ/2) and λ_G is the Gaussian
copula's. So :func:`repeat_mixture` finds the one ``repeat`` p in [0, S] whose ``rho``
(keeping S) gives the log's λ; when even the Gaussian copula of the log's S persists
as much as the log, p is 0. Every level stays uniform on [0, 1) either way, so the
delays' distribution is the table's. Validated on the six shared logs, the mixture
shortened SDSC-SP2's sessions but lengthened held-out LANL-CM5's beyond its rule
(docs/service.md, "Per-user levels").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import asin, pi, sin, sqrt
from statistics import NormalDist

import numpy as np
from attrs import define

from sitesim.analysis.cleaning import TraceJob
from sitesim.errors import InputError
from sitesim.limits import MAX_TABLE_SECONDS

#: How the fitted service draws its jobs' levels (its ``levels``, among the names
#: :data:`sitesim.schedulers.service.LEVELS` declares for the table, which sits above
#: this layer; a test holds every model's to them): per user, dependent on the user's
#: previous level (the copulas), or where the job's recorded wait falls (:func:`_recorded`).
PER_USER_LEVELS = "per-user"
RECORDED_LEVELS = "recorded"
#: Upper edges (s) of the gap classes: a minute, ten minutes, an hour, a day, and beyond.
LEVEL_GAPS = (60.0, 600.0, 3600.0, 86400.0)
#: Pairs a gap class needs before its dependence is measured (else independent).
MIN_PAIRS = 30
#: The top share of the first jobs' levels whose persistence is fitted: 3%, three times
#: the pairs of the top 1% (the tail that lengthened sessions). Either is noisy: on
#: sampled Gaussian autoregressions of 0.7, which have no repeats, the top 1% fitted
#: repeats up to 0.36 on 4,000 pairs and 0.13 on 20,000, the top 3% up to 0.28 and 0.18
#: (a few seeds each); on the shared logs the two agree closely (docs/service.md,
#: "Per-user levels") ...
TAIL = 0.03
#: ... but at least this many pairs in it (a smaller class's tail is its top 50 pairs) ...
MIN_TAIL_PAIRS = 50
#: ... and no wider than this: a class with fewer pairs has no tail to fit (repeat 0).
MAX_TAIL = 0.1
#: The largest correlation a class is given (a copula of 1 would repeat levels forever).
MAX_RHO = 0.99

_NORMAL = NormalDist()


def size_class_index(size: np.ndarray, size_classes: Sequence[int]) -> np.ndarray:
    """Each job's size class, as :meth:`sitesim.schedulers.service.DelayModel.class_of`
    gives it: the first whose largest size is at least the job's, the last for any larger."""
    return np.minimum(np.searchsorted(np.asarray(size_classes), size, side="left"), len(size_classes) - 1)


@define(slots=True, frozen=True)
class LevelDependence:
    """Per gap class: the mixture fitted (``repeat``, ``rho``) and what it was fitted to
    (the log's Spearman S, tail share and persistence, pairs), for the fit's report."""

    gaps: tuple[float, ...]
    repeat: tuple[float, ...]
    rho: tuple[float, ...]
    spearman: tuple[float, ...]
    tail: tuple[float, ...]
    persistence: tuple[float, ...]
    pairs: tuple[int, ...]

    def findings(self) -> dict[str, object]:
        """JSON-ready, for the site's provenance."""
        return {"gaps_s": list(self.gaps), "repeat": list(self.repeat), "rho": list(self.rho),
                "log_spearman": list(self.spearman), "log_tail_share": list(self.tail),
                "log_tail_persistence": list(self.persistence), "pairs": list(self.pairs)}


def spearman_of(rho: float) -> float:
    """Spearman's S of a Gaussian copula of correlation ``rho``."""
    return 6.0 / pi * asin(rho / 2.0)


def rho_of(spearman: float) -> float:
    """The Gaussian copula's correlation of Spearman's S ``spearman``."""
    return 2.0 * sin(pi * spearman / 6.0)


def gaussian_persistence(rho: float, tail: float, points: int = 801) -> float:
    """P(V > 1 − tail | U > 1 − tail) for a Gaussian copula of correlation ``rho`` in [0, 1): the
    orthant probability of two standard normals over ``tail``, by the trapezoid rule on
    the first's density times the second's conditional upper tail (the stdlib's normal
    distribution: a fit need not import scipy for this)."""
    if rho == 0.0:  # independent
        return tail
    z = _NORMAL.inv_cdf(1.0 - tail)
    x = np.linspace(z, z + 12.0, points)
    scale = sqrt(1.0 - rho * rho)
    upper = np.array([1.0 - _NORMAL.cdf((z - rho * v) / scale) for v in x])
    density = np.exp(-0.5 * x * x) / sqrt(2.0 * pi)
    y = density * upper
    return float(np.sum((y[1:] + y[:-1]) * 0.5 * (x[1] - x[0]))) / tail


def repeat_mixture(spearman: float, persistence: float, tail: float) -> tuple[float, float]:
    """The mixture (repeat p, Gaussian rho) with Spearman's S ``spearman`` whose top
    ``tail`` persists as ``persistence``: p in [0, S], by bisection (the mixture's
    persistence grows with p at a fixed S, from the Gaussian copula's at p = 0 to
    S + (1 − S) tail at p = S, where rho is 0)."""
    spearman = min(max(spearman, 0.0), spearman_of(MAX_RHO))

    def mixed(p: float) -> tuple[float, float]:
        rho = rho_of((spearman - p) / (1.0 - p)) if p < 1.0 else 0.0
        return rho, p + (1.0 - p) * gaussian_persistence(rho, tail)

    if spearman == 0.0 or persistence <= mixed(0.0)[1]:
        return 0.0, rho_of(spearman)
    if persistence >= mixed(spearman)[1]:
        return spearman, 0.0
    low, high = 0.0, spearman
    for _ in range(40):
        mid = 0.5 * (low + high)
        if mixed(mid)[1] < persistence:
            low = mid
        else:
            high = mid
    p = 0.5 * (low + high)
    return p, mixed(p)[0]


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks of ``x`` from 1, ties given their average rank (numpy alone: a fit need not
    import scipy.stats, a second and a half of CPU, for this)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    average = np.cumsum(counts) - (counts - 1) / 2.0
    return average[inverse]


def _pairs_by_gap(
    jobs: Sequence[TraceJob], values: np.ndarray, gaps: Sequence[float]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per class of the time between a user's consecutive submissions (upper edges
    ``gaps``, and beyond; a gap on an edge in the class above it, as the service reads
    it), the ``values`` (one per job, in ``jobs``' order) of each such pair's first and
    second job. Jobs of unknown users (-1) pair with none."""
    n = len(jobs)
    user = np.fromiter((j.user for j in jobs), np.int64, n)
    submit = np.fromiter((j.submit for j in jobs), np.float64, n)
    order = np.lexsort((submit, user))
    user, submit, values = user[order], submit[order], values[order]
    pair = (user[1:] == user[:-1]) & (user[1:] >= 0)
    klass = np.searchsorted(np.asarray(gaps), submit[1:] - submit[:-1], side="right")
    out = []
    for k in range(len(gaps) + 1):
        mask = pair & (klass == k)
        out.append((values[:-1][mask], values[1:][mask]))
    return out


def level_correlation(jobs: Sequence[TraceJob], gaps: Sequence[float] = LEVEL_GAPS) -> list[float]:
    """Per class of the time between a user's consecutive submissions (upper edges
    ``gaps``, and beyond), how alike the two jobs waited: the rank correlation of their
    waits, as the correlation of a Gaussian copula (2 sin(π S / 6)), in [0, 0.99].
    Why: it sets how a fitted user's delays go together (sitesim.schedulers.service)."""
    wait = np.fromiter((j.wait for j in jobs), np.float64, len(jobs))
    rho = []
    for first, second in _pairs_by_gap(jobs, wait, gaps):
        # too few pairs, or waits all alike on one side (no ranks to correlate): independent
        if len(first) < MIN_PAIRS or np.ptp(first) == 0 or np.ptp(second) == 0:
            rho.append(0.0)
            continue
        value = float(np.corrcoef(_ranks(first), _ranks(second))[0, 1])  # Spearman's S
        rho.append(round(float(min(max(2 * np.sin(np.pi * value / 6), 0.0), MAX_RHO)), 3))
    return rho


def level_dependence(
    jobs: Sequence[TraceJob], size_classes: Sequence[int], gaps: Sequence[float] = LEVEL_GAPS
) -> LevelDependence:
    """Per class of the time between a user's consecutive submissions (upper edges
    ``gaps``, and beyond), how alike the two jobs' *levels* were, fitted as the mixture
    (:func:`repeat_mixture`) of the pairs' Spearman S and the persistence of their top
    :data:`TAIL`. A job's level is the rank of its wait among its size class's
    (``size_classes``, as the service reads them: the last takes every larger job), as
    the service draws a level within the job's class: measured on the raw waits, a user
    who keeps submitting wide jobs, which wait longer, would count as persistence of
    levels what the simulated users already repeat in their sizes. (The service's table
    holds the calibrated fit-waits, not the raw waits; the raw waits are ranked, as the
    default's correlation is measured on them, because they are what the users saw.)
    A gap class with fewer than :data:`MIN_PAIRS` pairs, or whose levels are all alike
    on one side, or whose S is negative, is independent (0, 0)."""
    n = len(jobs)
    wait = np.fromiter((j.wait for j in jobs), np.float64, n)
    klass = size_class_index(np.fromiter((j.size for j in jobs), np.int64, n), size_classes)
    level = np.zeros(n)
    for k in np.unique(klass):
        mine = np.flatnonzero(klass == k)
        level[mine] = _ranks(wait[mine]) / len(mine)
    rows = []  # per class: repeat, rho, S, tail share, persistence, pairs
    for first, second in _pairs_by_gap(jobs, level, gaps):
        count = len(first)
        if count < MIN_PAIRS or np.ptp(first) == 0 or np.ptp(second) == 0:
            rows.append((0.0, 0.0, 0.0, 0.0, 0.0, count))
            continue
        r1, r2 = _ranks(first), _ranks(second)
        s = max(float(np.corrcoef(r1, r2)[0, 1]), 0.0)  # Spearman's S
        tail = max(TAIL, MIN_TAIL_PAIRS / count)
        top1, top2 = r1 > count * (1.0 - tail), r2 > count * (1.0 - tail)
        if tail > MAX_TAIL or not top1.any():
            lam, (p, g) = 0.0, (0.0, rho_of(s))
        else:
            lam = float((top1 & top2).sum() / top1.sum())
            p, g = repeat_mixture(s, lam, tail)
        rows.append((round(p, 3), round(min(g, MAX_RHO), 3), round(s, 3), round(tail, 4), round(lam, 3), count))
    repeat, rho, spearman, tails, persistence, pairs = (tuple(column) for column in zip(*rows, strict=True))
    return LevelDependence(tuple(gaps), repeat, rho, spearman, tails, persistence, pairs)


@define(slots=True, frozen=True)
class FittedLevels:
    """What a level model fitted, as the ``[service]`` table takes it: how levels are
    drawn (``levels``); per gap class (upper edges ``gaps``) the Gaussian correlation
    and the chance of a repeat (empty: never); or per size class the log's wait
    quantiles a recorded wait is ranked among (``recorded``); and what it measured,
    for the provenance, under ``findings_key``."""

    gaps: tuple[float, ...]
    rho: tuple[float, ...]
    repeat: tuple[float, ...]
    findings_key: str
    findings: dict[str, object]
    levels: str = PER_USER_LEVELS
    recorded: tuple[tuple[float, ...], ...] = ()


def _gaussian(jobs: Sequence[TraceJob], size_classes: Sequence[int], quantiles: int) -> FittedLevels:
    rho = level_correlation(jobs)
    return FittedLevels(LEVEL_GAPS, tuple(rho), (), "level_rho", {"gaps_s": list(LEVEL_GAPS), "rho": rho})


def _mixture(jobs: Sequence[TraceJob], size_classes: Sequence[int], quantiles: int) -> FittedLevels:
    found = level_dependence(jobs, size_classes)
    return FittedLevels(found.gaps, found.rho, found.repeat, "level_dependence", found.findings())


def _recorded(jobs: Sequence[TraceJob], size_classes: Sequence[int], quantiles: int) -> FittedLevels:
    """Per size class, the quantiles of the log's waits (capped where a run's tables
    stop) at ``quantiles`` evenly spaced levels: what a job's recorded wait is ranked
    among (:meth:`sitesim.schedulers.service.DelayModel.level_of`). Nothing is fitted
    of the dependence: the recorded waits carry the log's own."""
    n = len(jobs)
    wait = np.minimum(np.fromiter((j.wait for j in jobs), np.float64, n), MAX_TABLE_SECONDS)
    klass = size_class_index(np.fromiter((j.size for j in jobs), np.int64, n), size_classes)
    levels = np.linspace(0.0, 1.0, quantiles)
    rows, counts = [], []
    for k in range(len(size_classes)):  # the fit's classes each hold some job (analysis.service.size_classes)
        mine = wait[klass == k]
        counts.append(int(mine.size))
        rows.append(tuple(float(v) for v in np.round(np.quantile(mine, levels))))
    findings: dict[str, object] = {
        "jobs_per_class": counts,
        "why": "each job's level is where its recorded wait falls among its size class's waits in the log",
    }
    return FittedLevels((), (), (), "level_recorded", findings, RECORDED_LEVELS, tuple(rows))


#: How ``sitesim fit`` gives the service its jobs' levels (``--levels``), by name: each
#: job's recorded wait ranked among its size class's (the first, the default:
#: :func:`_recorded`); or per user, a Gaussian copula of the raw waits' rank
#: correlation (:func:`level_correlation`), or the mixture fitted on levels
#: (:func:`level_dependence`). Why the recorded levels: in the closed loop they met
#: more of the validation's rules than either copula, on the development logs and held
#: out (docs/service.md, "Levels from the recorded waits").
LEVEL_MODELS: dict[str, Callable[[Sequence[TraceJob], Sequence[int], int], FittedLevels]] = {
    RECORDED_LEVELS: _recorded,
    "gaussian": _gaussian,
    "mixture": _mixture,
}
FIT_LEVEL_MODELS = tuple(LEVEL_MODELS)
FIT_LEVEL_MODEL = FIT_LEVEL_MODELS[0]


def check_level_model(model: str) -> None:
    """Refuse a level model ``sitesim fit`` does not know (``--levels``)."""
    if model not in LEVEL_MODELS:
        raise InputError(f"unknown levels {model!r} (known: {', '.join(FIT_LEVEL_MODELS)})", field="--levels")


def fit_levels(model: str, jobs: Sequence[TraceJob], size_classes: Sequence[int], quantiles: int) -> FittedLevels:
    """The levels of a log's kept ``jobs`` by ``model`` (:data:`LEVEL_MODELS`), on the
    service's ``size_classes`` (``quantiles``: the levels of its delays' tables)."""
    check_level_model(model)
    return LEVEL_MODELS[model](jobs, size_classes, quantiles)
