"""Empirical discrete/continuous distributions: known answers, JSON, samplers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sitesim.distributions import (
    EmpiricalContinuous,
    EmpiricalDiscrete,
    distribution_from_dict,
    make_sampler,
)
from sitesim.errors import InputError


def test_discrete_known_values() -> None:
    d = EmpiricalDiscrete([4, 1, 2], [1, 2, 1])
    assert d.values.tolist() == [1, 2, 4]
    assert d.mean() == pytest.approx((1 * 2 + 2 + 4) / 4)
    assert d.cdf(0) == 0 and d.cdf(1) == 0.5 and d.cdf(3) == 0.75 and d.cdf(4) == 1
    assert d.quantile(0) == 1 and d.quantile(0.5) == 1 and d.quantile(0.51) == 2 and d.quantile(1) == 4
    assert d.cdf([1, 4]).tolist() == [0.5, 1.0]
    rng = np.random.default_rng(0)
    s = d.sample(rng, 40_000)
    assert set(s.tolist()) == {1, 2, 4}
    assert np.mean(s == 1) == pytest.approx(0.5, abs=0.01)
    assert isinstance(d.sample(rng), int)


def test_discrete_clip_and_truncate() -> None:
    d = EmpiricalDiscrete([1, 64, 256], [2, 1, 1])
    c = d.clipped(128)
    assert c.values.tolist() == [1, 64, 128] and c.counts.tolist() == [2, 1, 1]
    assert d.clipped(64).values.tolist() == [1, 64] and d.clipped(64).counts.tolist() == [2, 2]
    t = d.truncated(128)
    assert t.values.tolist() == [1, 64] and t.n == 3
    with pytest.raises(InputError):
        d.truncated(0)


def test_continuous_known_values() -> None:
    c = EmpiricalContinuous([0, 0.5, 1], [0, 10, 30])
    assert c.mean() == pytest.approx(0.5 * 5 + 0.5 * 20)
    assert c.quantile(0.25) == pytest.approx(5) and c.quantile(0.75) == pytest.approx(20)
    assert c.cdf(-1) == 0 and c.cdf(5) == pytest.approx(0.25) and c.cdf(30) == 1 and c.cdf(99) == 1
    assert isinstance(c.sample(np.random.default_rng(0)), float)


def test_continuous_atoms() -> None:
    # an atom at 0 holding 40 % of the mass, then uniform on [0, 100]
    c = EmpiricalContinuous([0, 0.4, 1], [0, 0, 100])
    assert c.cdf(0) == pytest.approx(0.4)
    assert c.quantile(0.2) == 0
    s = c.sample(np.random.default_rng(1), 50_000)
    assert np.mean(s == 0) == pytest.approx(0.4, abs=0.01)


def test_from_samples_keeps_extremes_and_mean() -> None:
    rng = np.random.default_rng(2)
    data = rng.lognormal(5, 2, 100_000)
    c = EmpiricalContinuous.from_samples(data, knots=257, tail_knots=48)
    assert c.q.size < 400
    assert c.support() == (data.min(), data.max())
    assert c.mean() == pytest.approx(data.mean(), rel=0.02)
    for q in (0.01, 0.5, 0.9, 0.999):
        assert c.quantile(q) == pytest.approx(np.quantile(data, q), rel=0.03)


def test_json_round_trip_is_exact() -> None:
    d = EmpiricalDiscrete.from_samples([1, 1, 2, 8, 8, 8])
    c = EmpiricalContinuous.from_samples(np.arange(1000) ** 1.5)
    for dist in (d, c):
        text = json.dumps(dist.to_dict(), sort_keys=True)
        back = distribution_from_dict(json.loads(text))
        assert json.dumps(back.to_dict(), sort_keys=True) == text
        assert back.mean() == pytest.approx(dist.mean(), rel=1e-9)


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "discrete", "values": [1, 1], "counts": [1, 1]},
        {"kind": "discrete", "values": [1], "counts": [0]},
        {"kind": "continuous", "q": [0, 0.5], "x": [0, 1]},
        {"kind": "continuous", "q": [0, 1], "x": [2, 1]},
        {"kind": "continuous", "q": [0, 1]},
        {"kind": "weird"},
        {},
    ],
)
def test_bad_dicts_are_input_errors(bad: dict) -> None:
    with pytest.raises(InputError):
        distribution_from_dict(bad, where="model.json")


def test_sampler_matches_block_draws_and_is_reproducible() -> None:
    d = EmpiricalContinuous.from_samples(np.arange(100.0))
    draw = make_sampler(d, np.random.default_rng(5), block=16)
    got = [draw() for _ in range(40)]
    rng = np.random.default_rng(5)
    want = np.concatenate([d.sample(rng, 16) for _ in range(3)])[:40].tolist()
    assert got == want
    assert all(isinstance(v, float) for v in got)
    with pytest.raises(InputError):
        make_sampler(d, rng, block=0)


@pytest.mark.parametrize("table", ["combined", "CTC-SP2", "KTH-SP2", "SDSC-SP2"])
def test_small_blocks_draw_the_same_stream_as_large_ones(table: str) -> None:
    """Users' samplers refill 64 values at a time (memory); the values must be the ones
    one 4,096-value block gives, so the block size never changes a run's bytes."""
    from sitesim.distributions import load_empirical
    from sitesim.distributions.model import FIELDS

    tables = load_empirical(table)
    dists = [tables.distribution(f) for f in FIELDS if getattr(tables, f) is not None]
    dists.append(tables.size_for_machine(128, per_run=True))
    for seed, dist in enumerate(dists):
        small = make_sampler(dist, np.random.default_rng(seed), block=64)
        large = make_sampler(dist, np.random.default_rng(seed), block=4096)
        # Crossing a 4,096 boundary too: the second large block against small ones.
        assert [small() for _ in range(4200)] == [large() for _ in range(4200)]


@pytest.mark.parametrize("family", ["expon", "gamma", "lognorm", "weibull_min", "norm"])
def test_small_blocks_keep_fitted_streams(family: str) -> None:
    from sitesim.distributions import load_empirical

    dist = load_empirical("combined").fitted("run_runtime", family)
    small = make_sampler(dist, np.random.default_rng(3), block=7)
    large = make_sampler(dist, np.random.default_rng(3), block=500)
    assert [small() for _ in range(600)] == [large() for _ in range(600)]


def test_sampler_memory_is_a_small_block() -> None:
    """A sampler holds its current block only, as 8-byte values."""
    import sys

    from sitesim.distributions.empirical import SAMPLER_BLOCK

    draw = make_sampler(EmpiricalDiscrete.from_samples(np.arange(1000)), np.random.default_rng(0))
    draw()
    buf = next(c.cell_contents for c in draw.__closure__ if c.cell_contents.__class__.__name__ == "array")
    assert len(buf) == SAMPLER_BLOCK - 1 and sys.getsizeof(buf) < 16 * SAMPLER_BLOCK


def test_sampling_uses_only_the_given_generator() -> None:
    d = EmpiricalDiscrete.from_samples([1, 2, 3, 4])
    np.random.seed(0)
    a = d.sample(np.random.default_rng(9), 100)
    np.random.seed(1)
    b = d.sample(np.random.default_rng(9), 100)
    assert a.tolist() == b.tolist()
