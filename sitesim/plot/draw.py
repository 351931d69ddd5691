"""Draw a schedule: Gantt chart (jobs on processors over time) and load over time.

matplotlib is imported here, inside the drawing functions' module, which only
``sitesim plot`` imports: simulations and replays never load it.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

import numpy as np

from sitesim.errors import InputError
from sitesim.plot.schedule import assign_processors, load_curves, read_schedule

DAY = 86_400


def _axis_unit(span: float) -> tuple[float, str]:
    """Seconds per tick unit: hours for spans up to three days, days beyond."""
    return (3600.0, "hours") if span <= 3 * DAY else (float(DAY), "days")


def _save(fig: object, out: str | os.PathLike[str]) -> None:
    path = Path(out)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise InputError("output must end in .png, .svg or .pdf", path=str(path), field="-o")
    tmp = path.with_name(f".{path.name}.part{path.suffix}")
    try:
        fig.savefig(tmp, dpi=130)  # type: ignore[attr-defined]
        os.replace(tmp, path)
    except OSError as exc:  # name the path the user gave, not the staging file
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the picture: {exc.strerror or exc}", path=str(out)) from None


def gantt(trace: str | os.PathLike[str], out: str | os.PathLike[str], start: int | None, end: int | None) -> int:
    """Jobs running in [start, end) as rectangles on processors, coloured by user;
    returns the number of jobs drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    s = read_schedule(trace)
    lo = int(s.start.min()) if start is None else start
    hi = int(s.end.max()) if end is None else end
    if hi <= lo:
        raise InputError(f"empty time window: --from {lo} is not before --to {hi}", field="--to")
    runs = assign_processors(s)
    shown = np.flatnonzero((s.start < hi) & (s.end > lo))
    unit, label = _axis_unit(hi - lo)
    users = np.unique(s.user[shown]) if len(shown) else np.empty(0, dtype=np.int64)
    colour_of = {int(u): k for k, u in enumerate(users)}
    cmap = plt.get_cmap("tab20")
    polys, colours = [], []
    for i in shown:
        x0 = (max(int(s.start[i]), lo) - lo) / unit
        x1 = (min(int(s.end[i]), hi) - lo) / unit
        colour = cmap(colour_of[int(s.user[i])] % 20)
        for first, count in runs[i]:
            polys.append([(x0, first), (x1, first), (x1, first + count), (x0, first + count)])
            colours.append(colour)
    fig, ax = plt.subplots(figsize=(11, 5))
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors="black", linewidths=0.2))
    ax.set_xlim(0, (hi - lo) / unit)
    ax.set_ylim(0, s.machine)
    ax.set_xlabel(f"{label} from t = {lo} s")
    ax.set_ylabel("processor")
    ax.set_title(f"{Path(trace).name}: {len(shown)} jobs, {len(users)} users (colour = user)")
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)
    return len(shown)


def load(trace: str | os.PathLike[str], out: str | os.PathLike[str], start: int | None = None,
         end: int | None = None) -> float:
    """Utilisation and queue length over time; returns the mean utilisation drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = read_schedule(trace)
    t, busy, queue = load_curves(s)
    lo = int(t[0]) if start is None else start
    hi = int(t[-1]) if end is None else end
    if hi <= lo:
        raise InputError(f"empty time window: --from {lo} is not before --to {hi}", field="--to")
    unit, label = _axis_unit(hi - lo)
    # The state holding at lo, then every change inside the window, up to hi.
    k = max(int(np.searchsorted(t, lo, side="right")) - 1, 0)
    inside = (t > lo) & (t < hi)
    x = np.r_[lo, t[inside], hi]
    util = np.r_[busy[k], busy[inside], busy[inside][-1] if inside.any() else busy[k]] / s.machine
    qlen = np.r_[queue[k], queue[inside], queue[inside][-1] if inside.any() else queue[k]]
    mean = float(np.sum(util[:-1] * np.diff(x)) / (hi - lo))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 5), sharex=True)
    xs = (x - lo) / unit
    top.step(xs, util, where="post", linewidth=0.7)
    top.set_ylim(0, 1.05)
    top.set_ylabel("utilisation")
    top.set_title(f"{Path(trace).name}: {s.machine} processors, mean utilisation {mean:.3f}")
    bottom.step(xs, qlen, where="post", linewidth=0.7, color="tab:red")
    bottom.set_ylabel("queued jobs")
    bottom.set_xlabel(f"{label} from t = {lo} s")
    bottom.set_xlim(0, (hi - lo) / unit)
    fig.tight_layout()
    _save(fig, out)
    plt.close(fig)
    return mean
