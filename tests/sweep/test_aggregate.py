"""Confidence intervals over replications, on data with known answers."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest

from sitesim.sweep.aggregate import aggregate, mean_ci, t_quantile
from sitesim.sweep.cli import main
from sitesim.sweep.grid import Grid
from sitesim.sweep.runner import run_sweep

from tests.sweep.helpers import fake_run, small_trace


def test_t_quantiles_match_the_table() -> None:
    # Student t, two-sided 95%: the textbook table.
    for dof, value in ((1, 12.706), (4, 2.776), (9, 2.262), (29, 2.045)):
        assert t_quantile(0.975, dof) == pytest.approx(value, abs=1e-3)


@pytest.mark.parametrize("probability", [0.9, 0.95, 0.975, 0.995])
def test_t_quantiles_are_scipy_stats_own(probability: float) -> None:
    """The light-import quantile is bit for bit the one scipy.stats gives (summaries and
    their CSVs do not change with the import)."""
    from scipy.stats import t

    for dof in (1, 2, 3, 5, 9, 29, 100, 1000):
        assert t_quantile(probability, dof) == float(t.ppf(probability, dof))


def test_mean_and_half_width() -> None:
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    assert mean == 3.0
    assert half == pytest.approx(2.7764451 * math.sqrt(2.5 / 5))
    assert mean_ci([7.0, 7.0, 7.0]) == (7.0, 0.0)
    assert mean_ci([4.0]) == (4.0, None)
    _, half90 = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0], confidence=0.90)
    assert half90 == pytest.approx(2.1318468 * math.sqrt(0.5))


def rows(values: dict[str, list[float]]) -> list[dict[str, str]]:
    base = dict.fromkeys(("mode", "trace", "load_factor", "users", "submittal", "workpool",
                          "scheduler", "estimates", "nodes", "duration", "model"), "")
    out = []
    for scheduler, series in values.items():
        for seed, value in enumerate(series):
            out.append({**base, "mode": "site", "scheduler": scheduler, "seed": str(seed),
                        "mean_wait": str(value), "violations_submission": ""})
    return out


def test_groups_are_config_minus_seed() -> None:
    summary = aggregate(rows({"fcfs": [1, 2, 3, 4, 5], "easy": [10, 10]}),
                        metrics=["mean_wait", "violations_submission"])
    assert [s["scheduler"] for s in summary] == ["easy", "fcfs"]
    easy, fcfs = summary
    assert (easy["n"], easy["mean_wait_mean"], easy["mean_wait_ci"]) == ("2", "10", "0")
    assert fcfs["mean_wait_mean"] == "3"
    assert float(fcfs["mean_wait_ci"]) == pytest.approx(1.963243, abs=1e-6)
    assert fcfs["violations_submission_mean"] == "" and "seed" not in fcfs


def test_summarize_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = str(small_trace(tmp_path / "t.swf", jobs=5))
    runs = tmp_path / "runs.csv"
    run_sweep(Grid(mode="replay", trace=trace, load_factor=(1, 2), replications=3), runs,
              "serial", run=fake_run, progress=False)
    assert main(["--summarize", str(runs), "--metrics", "mean_wait"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["load_factor"], r["n"], r["mean_wait_mean"]) for r in table] == [
        ("1", "3", "2"), ("2", "3", "4")]
    assert float(table[0]["mean_wait_ci"]) == pytest.approx(t_quantile(0.975, 2) / math.sqrt(3))
    out = tmp_path / "summary.csv"
    assert main(["--summarize", str(runs), "--output", str(out)]) == 0
    assert out.read_text().startswith("mode,trace,load_factor,")
    assert main(["--summarize", str(runs), "--metrics", "happiness"]) == 2


def test_intervals_do_not_import_scipy_stats() -> None:
    """The quantile's import is scipy.special, not the much heavier scipy.stats (checked
    in a fresh interpreter: this test process may have imported it already)."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from sitesim.sweep.aggregate import mean_ci\n"
        "mean_ci([1.0, 2.0, 4.0])\n"
        "sys.exit(3 if 'scipy.stats' in sys.modules else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
