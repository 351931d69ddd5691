"""The report's tables: each metric group's mean ± 95% CI per policy, the best marked,
significant differences flagged.

Every policy runs with the same seeds, so two policies are compared seed by seed: the
difference is significant at 95% when the Student-t interval of the per-seed
differences (:func:`sitesim.sweep.aggregate.mean_ci`) excludes zero. Pairing removes
the run-to-run variation the policies share (the same users draw the same jobs), which
an unpaired test would count against the difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from attrs import define

from sitesim.sweep.aggregate import mean_ci
from sitesim.sweep.run import Row

#: (group title, ((metric, label, better)...)); better: "lower", "higher" or "" (no best).
GROUPS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("Waiting and response", (
        ("mean_wait", "mean wait [s]", "lower"),
        ("mean_response", "mean response [s]", "lower"),
        ("mean_slowdown", "mean slowdown", "lower"),
        ("mean_bounded_slowdown", "mean bounded slowdown", "lower"),
    )),
    ("Throughput and load", (
        ("throughput_per_day", "throughput [jobs/day]", "higher"),
        ("completed", "completed jobs", "higher"),
        ("utilization", "utilisation", "higher"),
        ("offered_load", "offered load", "higher"),
    )),
    ("Users' productivity", (
        ("jobs_per_active_day", "jobs per active day", "higher"),
        ("sessions_completed", "sessions completed", "higher"),
        ("jobs_per_session", "jobs per session", "higher"),
        ("batches_per_session", "batches per session", "higher"),
        ("mean_session_hours", "mean session [h]", ""),
        ("ended_after_long_response", "ended after a long response", "lower"),
    )),
)
LABELS: dict[str, str] = {m: label for _, metrics in GROUPS for m, label, _ in metrics}
BETTER: dict[str, str] = {m: better for _, metrics in GROUPS for m, _, better in metrics}


@define(frozen=True, slots=True)
class Entry:
    """One policy's value of one metric: mean and CI half-width over its seeds."""

    mean: float
    ci: float | None
    n: int
    best: bool = False
    #: Differs from the best policy's value, significantly at 95% (paired over seeds).
    significant: bool = False


def values(rows: Sequence[Row], users: int, policy: str, metric: str) -> dict[int, float]:
    """Seed → value of one metric for one policy and user count (empty cells left out)."""
    return {int(r["seed"]): float(r[metric]) for r in rows
            if r["scheduler"] == policy and int(r["users"]) == users and r.get(metric, "") not in ("", "nan")}


def paired_difference(a: dict[int, float], b: dict[int, float]) -> tuple[float, float | None]:
    """Mean and 95% CI half-width of a - b over the seeds both have."""
    common = sorted(set(a) & set(b))
    if not common:
        return math.nan, None
    return mean_ci([a[s] - b[s] for s in common])


def significant(a: dict[int, float], b: dict[int, float]) -> bool:
    mean, half = paired_difference(a, b)
    return half is not None and abs(mean) > half


def metric_entries(rows: Sequence[Row], users: int, policies: Sequence[str], metric: str) -> dict[str, Entry]:
    """Each policy's entry for one metric (policies without a value are left out)."""
    per = {p: values(rows, users, p, metric) for p in policies}
    stats = {p: mean_ci(list(v.values())) for p, v in per.items() if v}
    better = BETTER.get(metric, "")
    best = None
    if better and len({m for m, _ in stats.values()}) > 1:  # all alike: nothing is best
        pick = min if better == "lower" else max
        best = pick(stats, key=lambda p: stats[p][0])
    out = {}
    for p, (mean, half) in stats.items():
        differs = best is not None and p != best and significant(per[p], per[best])
        out[p] = Entry(mean, half, len(per[p]), best=p == best, significant=differs)
    return out


def present(rows: Sequence[Row], metric: str) -> bool:
    """Whether any run has a value of ``metric`` (the productivity figures exist only for
    users with sessions, docs/metrics.md)."""
    return any(r.get(metric, "") not in ("", "nan") for r in rows)


def ranking(rows: Sequence[Row], users: int, policies: Sequence[str], metric: str) -> list[str]:
    """Policies from best to worst by their mean of ``metric``."""
    entries = metric_entries(rows, users, policies, metric)
    sign = -1.0 if BETTER.get(metric) == "higher" else 1.0
    return sorted(entries, key=lambda p: (sign * entries[p].mean, policies.index(p)))


def number(x: float | None) -> str:
    """A value as the report prints it: four significant digits, thousands separated,
    whole numbers from 1,000 on."""
    if x is None or not math.isfinite(x):
        return "–" if x is None else str(x)
    if x == 0:
        return "0"
    size = math.floor(math.log10(abs(x)))
    if size >= 3:
        return f"{x:,.0f}"
    decimals = max(0, 3 - size)
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
