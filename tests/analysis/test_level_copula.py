"""The per-user levels' dependence: the Gaussian copula's tail persistence against a
sampled one, the mixture's fit recovering known parameters, and the measure on logs
built in code."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest
from scipy.special import ndtr

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.level_copula import (
    LEVEL_MODELS,
    MAX_RHO,
    fit_levels,
    gaussian_persistence,
    level_correlation,
    level_dependence,
    repeat_mixture,
    rho_of,
    spearman_of,
)


def _pairs(repeat: float, rho: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` pairs of uniforms from the mixture: the first again with chance ``repeat``,
    else a Gaussian copula of ``rho`` with it."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    b = np.where(rng.random(n) < repeat, a, rho * a + np.sqrt(1 - rho * rho) * rng.standard_normal(n))
    return ndtr(a), ndtr(b)


@pytest.mark.parametrize("rho", [0.2, 0.6, 0.9])
def test_gaussian_persistence_is_the_sampled_copulas(rho: float) -> None:
    a, b = _pairs(0.0, rho, 400_000, seed=1)
    for tail in (0.01, 0.1):
        top = a > 1 - tail
        sampled = float((b[top] > 1 - tail).mean())
        assert abs(gaussian_persistence(rho, tail) - sampled) < 4 * np.sqrt(sampled * (1 - sampled) / top.sum())
    assert gaussian_persistence(0.0, 0.01) == 0.01
    assert gaussian_persistence(0.3, 0.01) < gaussian_persistence(0.6, 0.01) < gaussian_persistence(0.9, 0.01)


def test_spearman_and_rho_are_inverses() -> None:
    for rho in (0.0, 0.3, 0.909, MAX_RHO):
        assert abs(rho_of(spearman_of(rho)) - rho) < 1e-12


@pytest.mark.parametrize(("repeat", "rho"), [(0.0, 0.5), (0.4, 0.3), (0.75, 0.6), (0.5, 0.0)])
def test_the_mixture_is_recovered_from_its_spearman_and_tail_persistence(repeat: float, rho: float) -> None:
    # the mixture's S and top-1% persistence, in closed form, give back its parameters
    spearman = repeat + (1 - repeat) * spearman_of(rho)
    persistence = repeat + (1 - repeat) * gaussian_persistence(rho, 0.01)
    p, g = repeat_mixture(spearman, persistence, 0.01)
    assert abs(p - repeat) < 1e-3 and abs(g - rho) < 2e-3
    # the fit keeps S whatever the persistence
    assert abs(p + (1 - p) * spearman_of(g) - spearman) < 1e-9


def test_the_mixture_falls_back_to_the_gaussian_copula_or_to_repeats_alone_at_its_ends() -> None:
    s = spearman_of(0.5)
    assert repeat_mixture(s, 0.0, 0.01) == (0.0, pytest.approx(0.5))  # no more persistence than Gaussian
    assert repeat_mixture(s, 1.0, 0.01) == (pytest.approx(s), 0.0)  # all of S in repeats
    assert repeat_mixture(0.0, 0.9, 0.01) == (0.0, 0.0)  # no rank correlation: independent


def job(n: int, submit: float, wait: float, user: int) -> TraceJob:
    return TraceJob(n, submit, wait, 10, 1, 10, 1, user, -1)


def _log(repeat: float, rho: float, users: int, per_user: int, gap: float, seed: int) -> list[TraceJob]:
    """Users whose consecutive jobs, ``gap`` s apart, wait by the mixture (levels times
    10,000 s)."""
    rng = np.random.default_rng(seed)
    jobs: list[TraceJob] = []
    for u in range(users):
        score = rng.standard_normal()
        for k in range(per_user):
            if k and rng.random() >= repeat:
                score = rho * score + np.sqrt(1 - rho * rho) * rng.standard_normal()
            jobs.append(job(len(jobs), k * gap, round(10_000 * NormalDist().cdf(score), 3), u))
    return jobs


def test_level_dependence_measures_the_mixture_in_its_gap_class() -> None:
    # 20,000 pairs 30 s apart: the first class; none in the others (independent, no pairs)
    found = level_dependence(_log(0.6, 0.4, 40, 501, 30.0, seed=5), (1,), (60.0, 3600.0))
    assert found.pairs == (20_000, 0, 0)
    assert abs(found.repeat[0] - 0.6) < 0.1 and abs(found.rho[0] - 0.4) < 0.15  # a top of 600 pairs
    assert found.repeat[1:] == (0.0, 0.0) and found.rho[1:] == (0.0, 0.0)
    # a Gaussian copula alone: its top persists no more than the copula's, no repeat
    # (the persistence of the top 600 pairs is noisy: seeds 0-7 gave repeats up to 0.18)
    gaussian = level_dependence(_log(0.0, 0.7, 40, 501, 120.0, seed=6), (1,), (60.0, 3600.0))
    assert gaussian.repeat[1] < 0.2 and abs(gaussian.rho[1] - 0.7) < 0.1
    assert gaussian.findings()["pairs"] == [0, 20_000, 0]


def test_levels_are_ranked_within_size_classes_not_across_them() -> None:
    # Two users, one submitting 1-node jobs, the other 8-node ones; within each size
    # the waits are independent, but the wide jobs all wait longer: ranked as one class
    # (as the raw waits) the users' pairs go together, ranked within the sizes they do not.
    rng = np.random.default_rng(8)
    jobs = [TraceJob(i, i * 30, float(rng.integers(0, 1000)) + (10_000 if i % 2 else 0), 10, 8 if i % 2 else 1,
                     10, 1, i % 2, -1) for i in range(8000)]
    apart = level_dependence(jobs, (1, 8), (60.0, 3600.0))
    together = level_dependence(jobs, (8,), (60.0, 3600.0))
    assert apart.repeat[1] < 0.1 and apart.spearman[1] < 0.05
    assert together.spearman[1] > 0.7


def test_a_class_with_too_few_pairs_for_a_tail_keeps_the_gaussian_copula() -> None:
    # 150 pairs: a top of 50 pairs would be a third of them, wider than the tail fitted
    found = level_dependence(_log(0.9, 0.0, 3, 51, 30.0, seed=7), (1,), (60.0,))
    assert found.pairs[0] == 150 and found.repeat[0] == 0.0 and found.rho[0] > 0.5


def test_level_correlation_measures_how_alike_a_users_consecutive_jobs_waited_by_the_gap() -> None:
    # Two users; jobs 30 s apart wait alike (the same wait per user and day), jobs a
    # day apart at random: the first gap class is near 1 (capped at 0.99), the day's 0.
    rng = np.random.default_rng(3)
    jobs = []
    for user in (1, 2):
        for day in range(60):
            wait = float(rng.integers(0, 10_000))
            for k in range(3):
                jobs.append(job(len(jobs), day * 200_000 + 30 * k, wait + k, user))
    rho = level_correlation(jobs, (60.0, 100_000.0))
    assert rho[0] == MAX_RHO and abs(rho[2]) < 0.35 and rho[1] == 0.0  # no pair between 60 s and 100 ks
    assert all(0.0 <= r <= MAX_RHO for r in rho)


def test_recorded_levels_rank_each_class_by_its_log_waits_quantiles() -> None:
    # 1-node jobs wait 0..99 s, 2-4-node ones 1,000 s each but one beyond what a table holds
    from sitesim.limits import MAX_TABLE_SECONDS

    jobs = [TraceJob(i, i * 10, float(i), 10, 1, 10, 1, i % 5, -1) for i in range(100)]
    jobs += [TraceJob(100 + i, i * 10, 1000.0 if i else 9e9, 10, 4, 10, 1, i % 5, -1) for i in range(50)]
    found = fit_levels("recorded", jobs, (1, 4), 5)
    assert found.levels == "recorded" and not found.rho and not found.gaps
    assert found.recorded[0] == tuple(float(v) for v in np.round(np.quantile(np.arange(100.0), np.linspace(0, 1, 5))))
    assert found.recorded[1] == (1000.0, 1000.0, 1000.0, 1000.0, float(MAX_TABLE_SECONDS))  # capped
    assert found.findings["jobs_per_class"] == [100, 50]


def test_every_level_model_writes_levels_a_service_table_reads() -> None:
    from sitesim.schedulers.service import LEVELS

    jobs = [TraceJob(i, i * 30, float(i % 97), 10, 1 + i % 4, 10, 1, i % 7, -1) for i in range(600)]
    for model in LEVEL_MODELS:
        assert fit_levels(model, jobs, (1, 4), 11).levels in LEVELS, model
