"""The report's figures, drawn with matplotlib into PNG bytes.

Figures are made on matplotlib's object interface (``Figure`` and its Agg canvas), not
pyplot, so no global figure state is left behind in a process that drew a report.
PNG files carry no software version, so the same numbers give the same bytes across
matplotlib upgrades as far as the drawing itself allows.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitesim.study.cross import Cell
from sitesim.study.tables import LABELS, metric_entries
from sitesim.sweep.aggregate import mean_ci
from sitesim.sweep.run import Row

DAY = 86_400


def _figure(width: float = 7.0, height: float = 3.6) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> bytes:
    out = io.BytesIO()
    fig.tight_layout()
    fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


def metric_bars(rows: Sequence[Row], users: int, policies: Sequence[str], metric: str) -> bytes:
    """One bar per policy: the mean over seeds, with its 95% CI."""
    entries = metric_entries(rows, users, policies, metric)
    names = [p for p in policies if p in entries]
    fig = _figure(7.0, 3.0)
    ax = fig.add_subplot()
    means = [entries[p].mean for p in names]
    errors = [entries[p].ci or 0.0 for p in names]
    colours = ["tab:green" if entries[p].best else "tab:blue" for p in names]
    ax.bar(names, means, yerr=errors, capsize=4, color=colours)
    ax.set_ylabel(LABELS.get(metric, metric))
    ax.set_title(f"{LABELS.get(metric, metric)}, {users} users (mean and 95% CI; best in green)")
    ax.tick_params(axis="x", labelrotation=20)
    return _png(fig)


def throughput_vs_users(rows: Sequence[Row], policies: Sequence[str], users: Sequence[int]) -> bytes:
    """Throughput against the number of users, one line per policy (the paper's Figure 13)."""
    fig = _figure()
    ax = fig.add_subplot()
    for policy in policies:
        xs, ys, es = [], [], []
        for u in users:
            values = [float(r["throughput_per_day"]) for r in rows
                      if r["scheduler"] == policy and int(r["users"]) == u]
            if values:
                mean, half = mean_ci(values)
                xs.append(u)
                ys.append(mean)
                es.append(half or 0.0)
        ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3, label=policy)
    ax.set_xlabel("users")
    ax.set_ylabel("throughput [jobs/day]")
    ax.set_title("Throughput against users (mean and 95% CI over seeds)")
    ax.legend(fontsize="small")
    return _png(fig)


def wait_cdfs(waits: Mapping[str, np.ndarray], seed: int) -> bytes:
    """Each policy's distribution of waits (jobs that started), on a log axis."""
    fig = _figure()
    ax = fig.add_subplot()
    for policy, w in waits.items():
        if len(w) == 0:
            continue
        x = np.sort(w.astype(float)) + 1.0
        ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=policy)
    ax.set_xscale("log")
    ax.set_xlabel("wait + 1 [s]")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.01)
    ax.set_title(f"Wait-time distribution per policy (seed {seed})")
    ax.legend(fontsize="small", loc="lower right")
    return _png(fig)


def binned(times: np.ndarray, value: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Time-weighted mean of a step function (``value[i]`` from ``times[i]`` to the next
    time) over each bin of ``edges``: the area under it is piecewise linear, so its
    integral at the edges is exact by interpolation."""
    area = np.r_[0.0, np.cumsum(value[:-1] * np.diff(times))]
    at = np.interp(edges, times, area, left=0.0)
    # Beyond the last event the function holds its last value.
    beyond = edges > times[-1]
    at[beyond] = area[-1] + value[-1] * (edges[beyond] - times[-1])
    return np.diff(at) / np.diff(edges)


def load_over_time(curves: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray, int]], seed: int) -> bytes:
    """Utilisation and queue length over time (weekly means; daily up to 60 days, hourly
    up to 6), one line per policy. ``curves``: policy → (times, busy, queued, machine size)."""
    fig = _figure(7.0, 4.6)
    top, bottom = fig.subplots(2, 1, sharex=True)
    end = max(float(t[-1]) for t, _, _, _ in curves.values())
    # About 30 to 60 points a line, so that several policies stay legible together.
    step, unit = ((3600.0, "hours") if end <= 6 * DAY else (float(DAY), "days") if end <= 60 * DAY
                  else (7.0 * DAY, "weeks"))
    edges = np.arange(0.0, end + step, step)
    if len(edges) < 2:
        edges = np.array([0.0, end or 1.0])
    for policy, (t, busy, queue, machine) in curves.items():
        mid = edges[:-1] / step
        top.plot(mid, binned(t.astype(float), busy / machine, edges), linewidth=0.9, label=policy)
        bottom.plot(mid, binned(t.astype(float), queue.astype(float), edges), linewidth=0.9, label=policy)
    top.set_ylabel("utilisation")
    top.set_ylim(0, 1.05)
    top.set_title(f"Utilisation and queue length over time (seed {seed}; means per {unit[:-1]})")
    bottom.set_ylabel("queued jobs")
    bottom.set_xlabel(unit)
    top.legend(fontsize="small", ncol=min(4, len(curves)))
    return _png(fig)


def heat_map(cells: Sequence[Cell], policies: Sequence[str], users: int, metric: str) -> bytes:
    """The matrix of signed errors (%) of one metric: rows the trace's policy, columns
    the policy it was replayed under; each square shows mean ± CI."""
    from matplotlib.colors import SymLogNorm

    grid = np.full((len(policies), len(policies)), np.nan)
    text: dict[tuple[int, int], str] = {}
    index = {p: i for i, p in enumerate(policies)}
    for c in cells:
        if c.users == users and c.metric == metric and c.trace_policy in index and c.evaluated in index:
            i, j = index[c.trace_policy], index[c.evaluated]
            grid[i, j] = c.error.mean
            ci = "" if c.error.ci is None else f"\n±{_whole(c.error.ci)}"
            sign = "+" if math.isfinite(c.error.mean) and round(c.error.mean) > 0 else ""
            text[i, j] = f"{sign}{_whole(c.error.mean)}{ci}"
    finite = np.abs(grid[np.isfinite(grid)])
    top = max(10.0, float(finite.max()) if finite.size else 10.0)
    size = 1.8 + 0.8 * len(policies)
    fig = _figure(size + 2.4, size)
    ax = fig.add_subplot()
    image = ax.imshow(grid, cmap="RdBu_r", norm=SymLogNorm(linthresh=10.0, vmin=-top, vmax=top))
    for (i, j), label in text.items():
        strong = abs(grid[i, j]) > math.sqrt(top * 10.0)
        ax.text(j, i, label, ha="center", va="center", fontsize=8, color="white" if strong else "black")
    ax.set_xticks(range(len(policies)), policies, rotation=30, ha="right")
    ax.set_yticks(range(len(policies)), policies)
    ax.set_xlabel("replayed under (evaluated policy)")
    ax.set_ylabel("site-level trace of")
    ax.set_title(f"Open-model error of {LABELS.get(metric, metric)}, % ({users} users)", fontsize=10)
    fig.colorbar(image, ax=ax, label="error, % (log scale beyond ±10)")
    return _png(fig)


def _whole(x: float) -> str:
    """A percentage rounded to a whole number, without a minus sign on zero."""
    return f"{round(x) + 0:,}" if math.isfinite(x) else "–"


def save(figures: Mapping[str, bytes], folder: Path, prefix: str = "study_") -> list[Path]:
    """Write each figure as ``folder/PREFIXname.png`` (the docs' pictures)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in figures.items():
        path = folder / f"{prefix}{name}.png"
        path.write_bytes(data)
        paths.append(path)
    return paths
