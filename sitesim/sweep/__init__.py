"""Parameter sweeps: many runs in parallel into one tidy, resumable CSV (docs/sweeps.md)."""

from sitesim.sweep.aggregate import aggregate, mean_ci
from sitesim.sweep.grid import CONFIG_COLUMNS, Grid, Point
from sitesim.sweep.run import COLUMNS, METRIC_COLUMNS, run_point
from sitesim.sweep.runner import SweepReport, run_sweep

__all__ = [
    "COLUMNS", "CONFIG_COLUMNS", "METRIC_COLUMNS", "Grid", "Point", "SweepReport",
    "aggregate", "mean_ci", "run_point", "run_sweep",
]
