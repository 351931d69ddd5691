"""Plots of sweep results: a metric against a swept parameter, one line per scheduler.

Points are replication means with 95% confidence intervals as error bars
(:func:`sitesim.sweep.aggregate`). matplotlib is imported here only, so the
simulator itself never pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sitesim.sweep.aggregate import GROUP_COLUMNS, aggregate

Row = dict[str, str]


def _label(value: str) -> str:
    """A legend label: ``partitioned:models/partitions.toml`` -> ``partitioned:partitions.toml``."""
    name, sep, arg = value.partition(":")
    return f"{name}{sep}{arg.rpartition('/')[2]}" if "/" in arg else value


def series(rows: Iterable[Row], x: str, metric: str, by: str = "scheduler") -> dict[str, list[tuple[float, float, float]]]:
    """``{group: [(x, mean, ci half-width), ...]}`` sorted by x, from raw sweep rows.

    ``x`` is a configuration column (users, load_factor) or a metric (offered_load),
    in which case each point sits at the metric's mean over its replications. ``by``
    names one configuration column, or several separated by commas.
    """
    out: dict[str, list[tuple[float, float, float]]] = {}
    for row in aggregate(list(rows), metrics=(metric, x) if x not in GROUP_COLUMNS else (metric,)):
        mean = row[f"{metric}_mean"]
        if mean in ("", "nan"):
            continue
        ci = row[f"{metric}_ci"]
        where = float(row[x] if x in GROUP_COLUMNS else row[f"{x}_mean"])
        group = " ".join(_label(row[column]) for column in by.split(","))
        out.setdefault(group, []).append((where, float(mean), float(ci) if ci else 0.0))
    return {k: sorted(v) for k, v in sorted(out.items())}


def plot_metric(ax: Any, rows: Sequence[Row], x: str, metric: str, *, by: str = "scheduler",
                label: str = "{group}", style: str = "o-") -> None:
    """Draw ``metric`` against ``x`` on ``ax``, one errorbar line per ``by`` group."""
    for group, points in series(rows, x, metric, by).items():
        xs, means, cis = zip(*points, strict=True)
        ax.errorbar(xs, means, yerr=cis, fmt=style, ms=3, capsize=2, label=label.format(group=group))


def throughput_figure(rows: Sequence[Row], *, by: str = "scheduler", title: str | None = None) -> Any:
    """Figure 18: throughput (jobs / 24 h) and utilisation against the number of users."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 4.8))
    plot_metric(ax, rows, "users", "throughput_per_day", by=by, label="{group} throughput")
    ax.set_xlabel("number of sessions (users)")
    ax.set_ylabel("throughput [jobs / 24 h] (solid)")
    ax.grid(alpha=0.3)
    util = ax.twinx()
    plot_metric(util, rows, "users", "utilization", by=by, label="{group} utilisation", style="s--")
    util.set_ylabel("utilisation (dashed)")
    util.set_ylim(0, 1.02)
    handles, labels = ax.get_legend_handles_labels()
    more_handles, more_labels = util.get_legend_handles_labels()
    # Outside the axes: with many schedulers a legend inside hides the curves.
    ax.legend(handles + more_handles, labels + more_labels, fontsize=8,
              loc="upper left", bbox_to_anchor=(1.1, 1.0))
    ax.set_title(title or "Utilisation and throughput vs sessions (mean, 95% CI over seeds)")
    fig.subplots_adjust(left=0.07, right=0.64, bottom=0.12)
    return fig
