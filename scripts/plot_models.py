#!/usr/bin/env python3
"""Plot the measured user and workpool models (analogues of the paper's Figs 3, 5-10).

    python scripts/plot_models.py                       # from the shipped empirical/ tables
    python scripts/plot_models.py --swf SIM=out/run.swf  # any SWF, e.g. a simulator run

Each figure overlays the models (one curve or panel per trace) and is written to
``docs/figures/`` as PNG. Histograms of continuous quantities are bin probabilities
``cdf(hi) - cdf(lo)`` of the stored distributions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sitesim.distributions import EmpiricalModel, load_empirical  # noqa: E402
from sitesim.errors import InputError  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_MODELS = ["SDSC-SP2", "CTC-SP2", "KTH-SP2"]
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]


def model_from_swf(name: str, path: Path) -> EmpiricalModel:
    """Analyse an SWF file into an in-memory model (same code as the shipped tables)."""
    from sitesim.analysis.tables import build_table
    from sitesim.analysis.trace import analyze_trace

    analysis = analyze_trace(path, name)
    return EmpiricalModel.from_dict(
        build_table(analysis, [analysis], "plot_models.py"), where=str(path), allow_missing=True
    )


def second_edges(top: float, per_decade: int = 8) -> np.ndarray:
    """Bin edges for whole-second data on a log axis: a bin for 0, then log-spaced
    half-integer edges (so every bin holds at least one whole second)."""
    decades = int(np.ceil(np.log10(top)))
    edges = np.unique(np.round(np.geomspace(1, top, decades * per_decade + 1))) - 0.5
    return np.concatenate(([-0.5], edges))


def bin_probs(dist, edges: np.ndarray) -> np.ndarray:
    c = np.asarray(dist.cdf(edges), dtype=float)
    return np.diff(c)


def fig_think_cdf(models: dict[str, EmpiricalModel], ax) -> None:
    x = np.concatenate((-np.geomspace(1e7, 1, 300), [0], np.geomspace(1, 1e7, 300)))
    for (name, m), color in zip(models.items(), COLORS):
        if m.think_time_all is None:
            continue
        ax.plot(x, m.think_time_all.cdf(x), color=color, label=f"{name} ({m.think_time_all.cdf(-1e-9):.0%} < 0)")
    ax.set_xscale("symlog", linthresh=60)
    ticks = [-1e6, -1e4, -1e2, 0, 1e2, 1e4, 1e6]
    ax.set_xticks(ticks, ["-11.6 d", "-2.8 h", "-100 s", "0", "100 s", "2.8 h", "11.6 d"])
    ax.axvline(0, color="grey", lw=0.8)
    ax.axvline(1200, color="grey", lw=0.8, ls="--")
    ax.text(1300, 0.05, "20 min", fontsize=8, color="grey")
    ax.set_xlabel("think time [s] (symlog; negative = submitted before the previous job ended)")
    ax.set_ylabel("CDF")
    ax.set_title("Fig. 3 analogue: think times")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)


def fig_discrete_bars(field: str, title: str, xlabel: str, maxv: int) -> Callable:
    def draw(models: dict[str, EmpiricalModel], ax) -> None:
        k = len(models)
        values = np.arange(1, maxv + 1)
        for i, ((name, m), color) in enumerate(zip(models.items(), COLORS)):
            dist = getattr(m, field)
            if dist is None:
                continue
            p = dist.cdf(values) - dist.cdf(values - 1)
            ax.bar(values + (i - (k - 1) / 2) * 0.8 / k, p, width=0.8 / k, color=color, label=name)
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("fraction")
        ax.set_title(title)
        ax.set_xticks(values[:: max(1, maxv // 20)])
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3, axis="y")

    return draw


def fig_sizes(models: dict[str, EmpiricalModel], ax) -> None:
    for (name, m), color, marker in zip(models.items(), COLORS, "os^Dv"):
        d = m.size
        ax.plot(d.values, d.probabilities(), marker, color=color, ms=4, alpha=0.8,
                label=f"{name} (machine {m.source_machine_size})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("job size [processors] (log2)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title("Fig. 8 analogue: job sizes (modal at powers of two)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def panels(field: str, title: str, xlabel: str, edges: np.ndarray, logx: bool, logy: bool = False) -> Callable:
    def draw(models: dict[str, EmpiricalModel], axes) -> None:
        for ax, (name, m), color in zip(axes, models.items(), COLORS):
            dist = getattr(m, field)
            ax.set_xlabel(xlabel)
            if dist is None:
                ax.set_title(f"{name}  (no data)", fontsize=9)
                continue
            p = bin_probs(dist, edges)
            ax.stairs(p, edges, fill=True, color=color, alpha=0.7)
            ax.set_title(f"{name}  (mean {dist.mean():.4g})", fontsize=9)
            if logx:
                ax.set_xscale("symlog", linthresh=1, linscale=0.4)
                ax.set_xlim(left=-0.5)
            if logy:
                ax.set_yscale("log")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("fraction per bin")
        axes[0].figure.suptitle(title)

    return draw


def repetition_panels(models: dict[str, EmpiricalModel], axes) -> None:
    for ax, (name, m), color in zip(axes, models.items(), COLORS):
        d = m.repetitions
        ax.loglog(d.values, d.probabilities(), "o", color=color, ms=3)
        ax.set_title(f"{name}  (mean {d.mean():.3f})", fontsize=9)
        ax.set_xlabel("repetitions (run length)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("fraction of runs")
    axes[0].figure.suptitle("Fig. 9 analogue: repetitions (locality of sampling)")


SINGLE = {
    "fig03_think_time_cdf.png": fig_think_cdf,
    "fig05_batch_width.png": fig_discrete_bars(
        "batch_width", "Fig. 5 analogue: batch widths", "batch width [jobs]", 20),
    "fig08_job_sizes.png": fig_sizes,
}
PANELS = {
    "fig06_inter_submission.png": panels(
        "inter_submission", "Fig. 6 analogue: inter-submission times within batches",
        "time between submits [s] (first bar: 0 s)", second_edges(1e7), True),
    "fig07_think_between_batches.png": panels(
        "think_time", "Fig. 7 analogue: think times between batches (0-1200 s)",
        "think time [s]", np.arange(0, 1260, 60.0), False),
    "fig09_repetitions.png": repetition_panels,
    "fig10_runtimes.png": panels(
        "runtime", "Fig. 10 analogue: job runtimes", "runtime [s]",
        second_edges(1e6), True),
}


def plot_all(models: dict[str, EmpiricalModel], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for fname, draw in SINGLE.items():
        fig, ax = plt.subplots(figsize=(8, 4.5))
        draw(models, ax)
        fig.tight_layout()
        written.append(_save(fig, out / fname))
    for fname, draw in PANELS.items():
        fig, axes = plt.subplots(1, len(models), figsize=(4 * len(models), 3.6), sharey=True, squeeze=False)
        draw(models, list(axes[0]))
        fig.tight_layout()
        written.append(_save(fig, out / fname))
    return written


def _save(fig, path: Path) -> Path:
    # metadata pinned so that re-running gives the same bytes
    tmp = path.with_name(f".{path.name}.part")
    fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    tmp.replace(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                        help="empirical model names to plot (default: the three traces)")
    parser.add_argument("--empirical", type=Path, default=None,
                        help="directory of model tables (default: $SITESIM_EMPIRICAL or empirical/)")
    parser.add_argument("--swf", action="append", default=[], metavar="NAME=FILE",
                        help="analyse an SWF file instead (repeatable)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "figures")
    args = parser.parse_args(argv)
    try:
        if args.swf:
            models = {}
            for item in args.swf:
                name, sep, path = item.partition("=")
                if not sep:
                    parser.error(f"--swf expects NAME=FILE, got {item!r}")
                models[name] = model_from_swf(name, Path(path))
        else:
            models = {n: load_empirical(n, args.empirical) for n in args.models}
        for path in plot_all(models, args.out):
            print(path)
    except InputError as exc:
        print(f"plot_models: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
