"""The shipped empirical tables: loading, directory resolution, errors, sampling fidelity."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sitesim.distributions import (
    FIELDS,
    empirical_directory,
    known_models,
    load_empirical,
)
from sitesim.errors import InputError

MODELS = ["combined", "SDSC-SP2", "CTC-SP2", "KTH-SP2"]
#: Draws per distribution in the fidelity test, and the KS bound: the 99.9 % critical
#: value of the one-sample KS statistic is 1.95 / sqrt(n) = 0.0087 at n = 50,000.
N_DRAWS = 50_000
KS_BOUND = 0.0087
SEED = 20060101


def test_shipped_models_are_listed_and_load() -> None:
    assert set(MODELS) <= set(known_models())
    for name in MODELS:
        m = load_empirical(name)
        assert m.name == name
        assert m.source_machine_size in (100, 128, 338)
        assert sum(m.status_fractions.values()) == pytest.approx(1, abs=1e-5)
        assert m.provenance["sources"] and all(len(s["sha256_uncompressed"]) == 64 for s in m.provenance["sources"])
        assert m.think_time.support()[0] >= 0 and m.think_time.support()[1] <= 1200
        assert m.batch_width.support()[0] == 1 and m.repetitions.support()[0] == 1


def ks_statistic(dist, sample: np.ndarray) -> float:
    """sup |ECDF - CDF| over both one-sided limits at every observed value.

    Right limits compare ECDF(x) with CDF(x); left limits compare ECDF(x-) with
    CDF(x-), so atoms (e.g. zero-second gaps) are handled exactly.
    """
    uniq, counts = np.unique(sample, return_counts=True)
    ecdf_hi = np.cumsum(counts) / sample.size
    ecdf_lo = ecdf_hi - counts / sample.size
    cdf_hi = np.asarray(dist.cdf(uniq), dtype=float)
    cdf_lo = np.asarray(dist.cdf(np.nextafter(uniq.astype(float), -np.inf)), dtype=float)
    return float(max(np.max(np.abs(ecdf_hi - cdf_hi)), np.max(np.abs(ecdf_lo - cdf_lo))))


@pytest.mark.parametrize("name", MODELS)
def test_samples_match_each_shipped_distribution(name: str) -> None:
    m = load_empirical(name)
    rng = np.random.default_rng(SEED)
    for field in FIELDS:
        dist = getattr(m, field)
        if dist is None:
            continue
        sample = dist.sample(rng, N_DRAWS)
        ks = ks_statistic(dist, sample)
        assert ks < KS_BOUND, f"{name}.{field}: KS {ks:.4f}"
        # mean within 6 standard errors of the distribution's mean
        se = np.std(sample) / np.sqrt(N_DRAWS)
        assert abs(np.mean(sample) - dist.mean()) < 6 * se + 1e-9, f"{name}.{field} mean"


def test_summary_matches_distributions() -> None:
    m = load_empirical("combined")
    assert m.batch_width.mean() == pytest.approx(m.summary["mean_batch_width"], rel=1e-5)
    assert m.batch_width.cdf(1) == pytest.approx(m.summary["width1_fraction"], rel=1e-5)
    assert m.size.mean() == pytest.approx(m.summary["mean_size"], rel=1e-5)
    assert m.runtime.mean() == pytest.approx(m.summary["mean_runtime"], rel=0.02)
    neg = m.think_time_all.cdf(-1e-9)
    assert neg == pytest.approx(m.summary["negative_think_fraction"], abs=0.01)


def test_size_mapping_to_the_simulated_machine() -> None:
    m = load_empirical("CTC-SP2")
    assert m.source_machine_size == 338 and m.size.support()[1] > 128
    clipped = m.size_for_machine(128)
    assert clipped.support()[1] == 128 and clipped.n == m.size.n
    assert clipped.cdf(127) == pytest.approx(m.size.cdf(127))
    truncated = m.size_for_machine(128, "truncate")
    assert truncated.support()[1] <= 128 and truncated.n < m.size.n
    assert m.size_for_machine(128, per_run=True).n == m.run_size.n
    with pytest.raises(InputError, match="rule"):
        m.size_for_machine(128, "stretch")
    with pytest.raises(InputError):
        m.size_for_machine(0)


def test_scaled_sizes_keep_the_fraction_of_the_machine() -> None:
    ctc = load_empirical("CTC-SP2")
    scaled = ctc.size_for_machine(128, "scale")
    # x 128/338, rounded half up: the largest CTC job (336) -> 127; 126-128 -> 48;
    # 1-3 -> 1; the mean falls with the machine (10.99 x 128/338 = 4.16, plus rounding up to 1).
    assert scaled.n == ctc.size.n and scaled.support() == (1, 127)
    assert scaled.cdf(48) - scaled.cdf(47) == pytest.approx(ctc.size.cdf(128) - ctc.size.cdf(125))
    assert scaled.cdf(1) == pytest.approx(ctc.size.cdf(3))
    assert 4.16 < scaled.mean() < 4.6
    sdsc = load_empirical("SDSC-SP2")
    assert np.array_equal(sdsc.size_for_machine(128, "scale").counts, sdsc.size.counts)


def test_a_pooled_table_scales_each_source_by_its_own_machine() -> None:
    combined = load_empirical("combined")
    assert [s.name for s in combined.sources] == ["SDSC-SP2", "CTC-SP2", "KTH-SP2"]
    scaled = combined.size_for_machine(128, "scale", per_run=True)
    parts = [s.size_for_machine(128, "scale", per_run=True) for s in combined.sources]
    assert scaled.n == combined.run_size.n
    assert scaled.mean() * scaled.n == pytest.approx(sum(p.mean() * p.n for p in parts))
    bare = load_empirical("combined")
    bare.sources = ()  # a pooled table without its sources cannot know each job's machine
    with pytest.raises(InputError, match="source tables"):
        bare.size_for_machine(128, "scale")


def test_for_site_with_scale_one_keeps_the_measured_runtimes() -> None:
    m = load_empirical()
    site = m.for_site(128, "clip", 1.0)
    assert site.runtime is m.runtime and site.run_runtime is m.run_runtime
    assert np.array_equal(site.size.counts, m.size_for_machine(128).counts)
    scaled = m.for_site(128, "clip", 0.5)
    assert scaled.runtime.mean() == pytest.approx(m.runtime.mean() / 2)
    assert scaled.failed_runtime.mean() == pytest.approx(m.failed_runtime.mean() / 2)
    with pytest.raises(InputError):
        m.for_site(128, "clip", 0.0)


def test_scalar_samplers_are_fast_and_typed() -> None:
    m = load_empirical()
    rng = np.random.default_rng(0)
    draw_w = m.sampler("batch_width", rng)
    draw_t = m.sampler("think_time", rng)
    assert isinstance(draw_w(), int) and isinstance(draw_t(), float)
    with pytest.raises(InputError, match="unknown model field"):
        m.sampler("nope", rng)


def test_directory_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SITESIM_EMPIRICAL", raising=False)
    repo_dir = empirical_directory()
    assert repo_dir.name == "empirical" and (repo_dir / "combined.json").is_file()
    src = (repo_dir / "KTH-SP2.json").read_text()
    (tmp_path / "mine.json").write_text(src)
    monkeypatch.setenv("SITESIM_EMPIRICAL", str(tmp_path))
    assert known_models() == ["mine"]
    assert load_empirical("mine").source_machine_size == 100
    assert load_empirical("KTH-SP2", directory=repo_dir).name == "KTH-SP2"  # argument wins


def test_unknown_name_lists_known(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"unknown empirical model 'nope' \(known: .*combined"):
        load_empirical("nope")
    with pytest.raises(InputError, match="directory not found"):
        load_empirical("combined", directory=tmp_path / "missing")


def test_bad_tables_are_input_errors(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"format": \n')
    with pytest.raises(InputError) as err:
        load_empirical("broken", directory=tmp_path)
    assert err.value.path and err.value.path.endswith("broken.json") and err.value.line
    table = json.loads((empirical_directory() / "KTH-SP2.json").read_text())
    del table["distributions"]["runtime"]
    (tmp_path / "partial.json").write_text(json.dumps(table))
    with pytest.raises(InputError) as err:
        load_empirical("partial", directory=tmp_path)
    assert err.value.field == "runtime"
    table = json.loads((empirical_directory() / "KTH-SP2.json").read_text())
    table["distributions"]["size"]["counts"][0] = -3
    (tmp_path / "neg.json").write_text(json.dumps(table))
    with pytest.raises(InputError) as err:
        load_empirical("neg", directory=tmp_path)
    assert err.value.field == "size.counts" and "-3 is not a whole number of observations" in err.value.message
    (tmp_path / "other.json").write_text('{"format": "x"}')
    with pytest.raises(InputError, match="not a sitesim-empirical"):
        load_empirical("other", directory=tmp_path)


def test_hot_path_imports_neither_scipy_nor_matplotlib() -> None:
    code = (
        "import sys, numpy as np; from sitesim.distributions import load_empirical;"
        "m = load_empirical(); d = m.sampler('runtime', np.random.default_rng(0)); d();"
        "m.size_for_machine(128).sample(np.random.default_rng(0), 10);"
        "bad = [k for k in sys.modules if k.split('.')[0] in ('scipy', 'matplotlib')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
