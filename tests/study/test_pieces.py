"""The study's small pieces on fixtures built in code: number formatting, folder names,
paired significance, time-binned step curves, the cross matrix and the paragraph."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitesim.study.cross import matrix, predictions
from sitesim.study.figures import binned
from sitesim.study.narrative import paragraph
from sitesim.sweep.run import slug
from sitesim.study.tables import metric_entries, number, ranking
from sitesim.sweep.grid import Point


@pytest.mark.parametrize(("value", "text"), [
    (0.0, "0"), (1.5, "1.5"), (12.345, "12.35"), (999.94, "999.9"), (1234.4, "1,234"),
    (-20.1245, "-20.12"), (0.012345, "0.01235"), (None, "–"),
])
def test_number(value: float | None, text: str) -> None:
    assert number(value) == text


@given(st.text(min_size=1, max_size=40))
def test_slug_is_a_safe_folder_name_and_tells_specs_apart(spec: str) -> None:
    name = slug(spec)
    assert name and "/" not in name and ":" not in name and name not in (".", "..")
    assert slug(spec + "x") != name


def rows_of(values: dict[str, list[float]], metric: str = "mean_wait") -> list[dict[str, str]]:
    return [{"scheduler": p, "users": "10", "seed": str(s), metric: str(v)}
            for p, vs in values.items() for s, v in enumerate(vs)]


def test_paired_significance_and_best() -> None:
    # b is better than a by exactly 10 on every seed: significant however wide the spread.
    rows = rows_of({"a": [110.0, 510.0, 1010.0], "b": [100.0, 500.0, 1000.0], "c": [90.0, 900.0, 2000.0]})
    entries = metric_entries(rows, 10, ["a", "b", "c"], "mean_wait")
    assert entries["b"].best and not entries["a"].best
    assert entries["a"].significant
    assert not entries["c"].significant  # c's differences from b change sign in size: not clear
    assert ranking(rows, 10, ["a", "b", "c"], "mean_wait") == ["b", "a", "c"]


def test_no_best_when_every_policy_is_alike() -> None:
    rows = rows_of({"a": [0.0, 0.0], "b": [0.0, 0.0]}, "completed")
    entries = metric_entries(rows, 10, ["a", "b"], "completed")
    assert not any(e.best or e.significant for e in entries.values())


@given(st.lists(st.tuples(st.integers(1, 50), st.integers(0, 9)), min_size=1, max_size=30),
       st.integers(1, 20))
def test_binned_means_keep_the_area(steps: list[tuple[int, int]], width: int) -> None:
    """The time-weighted bin means of a step curve integrate to the curve's own area."""
    times = np.cumsum([0] + [d for d, _ in steps]).astype(float)
    value = np.array([v for _, v in steps] + [0], dtype=float)
    edges = np.arange(0.0, times[-1] + width, width)
    if len(edges) < 2:
        edges = np.array([0.0, float(width)])
    means = binned(times, value, edges)
    area = float(np.sum(value[:-1] * np.diff(times)))
    assert float(np.sum(means * np.diff(edges))) == pytest.approx(area)
    assert np.all(means >= -1e-9) and np.all(means <= 9 + 1e-9)


def _site(policy: str, seed: int, wait: float) -> dict[str, str]:
    return {"users": "10", "scheduler": policy, "seed": str(seed), "mean_wait": str(wait),
            "mean_response": str(wait + 100), "mean_slowdown": "2", "mean_bounded_slowdown": "2",
            "offered_load": "0.5", "completed": "100", "utilization": "0.5", "throughput_per_day": "10"}


def test_cross_matrix_and_paragraph_from_fixed_numbers() -> None:
    """Two policies, two seeds: b is better at site level, but a's trace replayed puts a
    first; the paragraph says so, from the numbers alone."""
    sources = []
    site_rows = []
    for policy, waits in (("a", (200.0, 220.0)), ("b", (100.0, 110.0))):
        for seed, wait in enumerate(waits):
            point = Point(mode="site", scheduler=policy, estimates="exact", seed=seed, users=10)
            sources.append((f"runs/{policy}-u10-s{seed}/trace.swf", point))
            site_rows.append(_site(policy, seed, wait))
    conventional = {("a", "a"): 200.0, ("a", "b"): 400.0, ("b", "a"): 300.0, ("b", "b"): 100.0}
    replay_rows = []
    for (source, evaluated), wait in conventional.items():
        for seed in (0, 1):
            row = _site(evaluated, seed, wait * (1 + 0.1 * seed))
            row["trace"] = f"runs/{source}-u10-s{seed}/trace.swf"
            replay_rows.append(row)
    cells = matrix(predictions(site_rows, replay_rows, sources), ["a", "b"])
    wait = {(c.trace_policy, c.evaluated): c for c in cells if c.metric == "mean_wait"}
    assert wait["a", "b"].error.mean == pytest.approx(300.0)  # 400 against 100, 440 against 110
    assert wait["a", "b"].inaccuracy.mean == pytest.approx(300.0)
    assert wait["b", "a"].error.mean == pytest.approx(50.0)
    assert wait["a", "a"].error.mean == pytest.approx(0.0) and wait["a", "a"].error.n == 2
    text = paragraph(site_rows, cells, 10, ["a", "b"], 2)
    assert "are: b (105 s), a (210 s)." in text
    assert "a's trace puts a before b" in text
    assert "The open model errs most on b: the other policies' traces replayed under it give a mean wait +300%" in text
    assert not math.isnan(wait["b", "b"].error.mean)
