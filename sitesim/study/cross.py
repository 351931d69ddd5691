"""The conventional-vs-site-level matrix: the paper's Tables 3-4 for every pair of policies.

The paper replays the EASY site's trace under FCFS (Table 3) and the FCFS site's trace
under EASY (Table 4), and compares each prediction with the evaluated scheduler's own
site-level run with the same users and seed. A study does that for every ordered pair
of its policies, and for each policy with its own trace. Each cell is computed per seed
exactly as sitesim/experiments/ does (:class:`~sitesim.experiments.prediction.Prediction`;
mean and 95% CI over seeds with :class:`~sitesim.experiments.fidelity.Estimate`). Besides
the paper's inaccuracy, ``|conventional - site| / site``, the cell keeps its sign:
positive where the open model predicts a longer wait than the users would see.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from attrs import define

from sitesim.experiments.fidelity import Estimate
from sitesim.experiments.prediction import METRICS, Prediction
from sitesim.sweep.grid import Point, format_cell
from sitesim.sweep.run import Row

CROSS = "cross.csv"
#: cross.csv's columns: the pair and metric, then mean and CI half-width of each quantity.
COLUMNS: tuple[str, ...] = (
    "users", "trace_policy", "evaluated_policy", "metric", "n",
    "site_mean", "site_ci", "conventional_mean", "conventional_ci",
    "error_pct_mean", "error_pct_ci", "inaccuracy_pct_mean", "inaccuracy_pct_ci",
)


@define(frozen=True, slots=True)
class Cell:
    """One (trace policy, evaluated policy, metric) over the seeds."""

    users: int
    trace_policy: str
    evaluated: str
    metric: str
    site: Estimate
    conventional: Estimate
    #: Signed: 100 (conventional - site) / site.
    error: Estimate
    #: The paper's: 100 |conventional - site| / site.
    inaccuracy: Estimate

    def row(self) -> dict[str, str]:
        out = {"users": format_cell(self.users), "trace_policy": self.trace_policy,
               "evaluated_policy": self.evaluated, "metric": self.metric, "n": format_cell(self.site.n)}
        for name, e in (("site", self.site), ("conventional", self.conventional),
                        ("error_pct", self.error), ("inaccuracy_pct", self.inaccuracy)):
            out[f"{name}_mean"] = format_cell(e.mean)
            out[f"{name}_ci"] = format_cell(e.ci)
        return out


def _metrics(row: Row) -> dict[str, float]:
    return {m: float(row[m]) for m in (*METRICS, "offered_load", "completed", "utilization")}


def predictions(site_rows: Iterable[Row], replay_rows: Iterable[Row],
                sources: Sequence[tuple[str, Point]]) -> list[tuple[int, Prediction]]:
    """(users, prediction) for every replay row whose site-level runs are at hand."""
    site = {(int(r["users"]), r["scheduler"], int(r["seed"])): _metrics(r) for r in site_rows}
    source_of = dict(sources)
    out = []
    for r in replay_rows:
        point = source_of.get(r["trace"])
        if point is None or point.users is None or not has_metrics(r):
            continue
        key = (point.users, point.scheduler, point.seed)
        own = (point.users, r["scheduler"], point.seed)
        if key in site and own in site:
            out.append((point.users, Prediction(trace_scheduler=point.scheduler, evaluated=r["scheduler"],
                                                seed=point.seed, source=site[key],
                                                conventional=_metrics(r), site_level=site[own])))
    return out


def has_metrics(row: Row) -> bool:
    """Whether a replay row has metrics: a replay of a trace without jobs has none."""
    return all(row.get(m, "") != "" for m in METRICS)


def no_jobs(replay_rows: Iterable[Row], sources: Sequence[tuple[str, Point]],
            cells: Sequence[Cell]) -> list[tuple[int, str, str]]:
    """(users, trace policy, evaluated policy) of the pairs whose replays all had no
    jobs to replay (their site-level runs submitted none): cross.csv and the report say
    "no jobs" there instead of leaving the pair out as if it had not run."""
    source_of = dict(sources)
    found = {(c.users, c.trace_policy, c.evaluated) for c in cells}
    empty = set()
    for r in replay_rows:
        point = source_of.get(r["trace"])
        if point is not None and point.users is not None and not has_metrics(r):
            pair = (point.users, point.scheduler, r["scheduler"])
            if pair not in found:
                empty.add(pair)
    return sorted(empty)


def _error(p: Prediction, metric: str) -> float:
    site = p.site_level[metric]
    return math.nan if site == 0 else 100 * (p.conventional[metric] - site) / site


def matrix(found: Sequence[tuple[int, Prediction]], policies: Sequence[str]) -> list[Cell]:
    """Every cell, in the order users, trace policy, evaluated policy (the study's
    order), metric; cells without a prediction are left out."""
    groups: dict[tuple[int, str, str], list[Prediction]] = {}
    for users, p in found:
        groups.setdefault((users, p.trace_scheduler, p.evaluated), []).append(p)
    order = {name: i for i, name in enumerate(policies)}
    cells = []
    for key in sorted(groups, key=lambda k: (k[0], order.get(k[1], 0), order.get(k[2], 0))):
        users, source, evaluated = key
        runs = sorted(groups[key], key=lambda p: p.seed)
        for metric in METRICS:
            cells.append(Cell(
                users=users, trace_policy=source, evaluated=evaluated, metric=metric,
                site=Estimate.of([p.site_level[metric] for p in runs]),
                conventional=Estimate.of([p.conventional[metric] for p in runs]),
                error=Estimate.of([_error(p, metric) for p in runs]),
                inaccuracy=Estimate.of([abs(_error(p, metric)) for p in runs]),
            ))
    return cells


def write_cross(path: Path, cells: Sequence[Cell], empty: Sequence[tuple[int, str, str]] = ()) -> None:
    """cross.csv, written whole or not at all; a pair in ``empty`` (no jobs to replay)
    gets ``n`` = 0 and empty numbers for every metric."""
    from sitesim.workload.files import atomic_text_write

    rows = [c.row() for c in cells]
    for users, source, evaluated in empty:
        for metric in METRICS:
            rows.append({"users": format_cell(users), "trace_policy": source, "evaluated_policy": evaluated,
                         "metric": metric, "n": "0"})
    with atomic_text_write(path) as out:
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\n", restval="")
        writer.writeheader()
        writer.writerows(rows)
