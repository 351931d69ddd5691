"""Run one sweep point and turn its result into a CSV row.

This is what executors ship to workers, so it is a plain module-level function of a
picklable :class:`~sitesim.sweep.grid.Point`, and it imports the simulation lazily
(``sitesim.runs.site`` is only needed by site-mode points).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sitesim.sweep.grid import CONFIG_COLUMNS, OPTIONAL_COLUMNS, Point, format_cell

Row = dict[str, str]
RunFunction = Callable[[Point], Row]

#: Result columns taken from the run summary (same keys for site and replay runs).
SUMMARY_COLUMNS: tuple[str, ...] = (
    "submitted", "completed", "killed",
    "mean_wait", "mean_response", "mean_slowdown", "mean_bounded_slowdown",
    "utilization", "offered_load", "accepted_load", "throughput_per_day", "makespan",
)
#: Dependency-violation columns (replay only; empty for site runs).
VIOLATION_COLUMNS: tuple[str, ...] = (
    "violations_submission", "violations_execution",
    "violations_submission_fraction", "violations_execution_fraction",
    "violations_no_dependency", "violations_unresolved",
)
METRIC_COLUMNS: tuple[str, ...] = ("nodes_used", *SUMMARY_COLUMNS, *VIOLATION_COLUMNS)
#: The users' productivity (the run's ``productivity`` section, docs/metrics.md): site
#: runs only, empty for replays. The last columns of every sweep, so that a CSV written
#: before them is their exact prefix and is upgraded on resuming (sitesim/sweep/store.py).
PRODUCTIVITY_COLUMNS: tuple[str, ...] = (
    "sessions_started", "sessions_completed", "batches_per_session", "jobs_per_session",
    "mean_session_hours", "ended_after_long_response", "jobs_per_active_day",
)
COLUMNS: tuple[str, ...] = (*CONFIG_COLUMNS, *METRIC_COLUMNS, *PRODUCTIVITY_COLUMNS)
#: Adaptive-user metrics (the run summary's ``adaptive`` block), in sweeps over them.
ADAPTIVE_COLUMNS: tuple[str, ...] = (
    "adaptive_mean_turnaround", "rigid_mean_wait", "rigid_mean_turnaround",
)


def columns_for(points: Iterable[Point]) -> tuple[str, ...]:
    """The CSV columns of a sweep: :data:`COLUMNS`, with the optional options it varies
    (and the adaptive metrics, if it varies adaptive users)."""
    points = list(points)
    optional = tuple(c for c in OPTIONAL_COLUMNS if any(getattr(p, c) is not None for p in points))
    if not optional:
        return COLUMNS
    adaptive = ADAPTIVE_COLUMNS if "adaptive" in optional else ()
    return (*CONFIG_COLUMNS, *optional, *METRIC_COLUMNS, *adaptive, *PRODUCTIVITY_COLUMNS)


def make_row(point: Point, nodes_used: int, summary: Mapping[str, Any],
             violations: Mapping[str, Any] | None = None,
             productivity: Mapping[str, Any] | None = None) -> Row:
    """The CSV row of a finished run: config cells, then formatted metrics (the
    productivity cells empty without ``productivity``)."""
    row = point.cells()
    row["nodes_used"] = format_cell(nodes_used)
    for name in SUMMARY_COLUMNS:
        row[name] = format_cell(summary.get(name))
    for name in VIOLATION_COLUMNS:
        value = None if violations is None else violations.get(name.removeprefix("violations_"))
        row[name] = format_cell(value)
    adaptive = summary.get("adaptive")
    if point.adaptive is not None:
        row["adaptive_mean_turnaround"] = format_cell(adaptive["mean_turnaround"] if adaptive else None)
        row["rigid_mean_wait"] = format_cell(adaptive["rigid_mean_wait"] if adaptive else summary.get("mean_wait"))
        row["rigid_mean_turnaround"] = format_cell(
            adaptive["rigid_mean_turnaround"] if adaptive else summary.get("mean_response")
        )
    for name in PRODUCTIVITY_COLUMNS:
        row[name] = format_cell(None if productivity is None else productivity.get(name))
    return row


def run_point(point: Point) -> Row:
    """Simulate one point (no output files) and return its row: the point's options on
    top of its base (its site file, else the declared defaults), as the command line
    puts flags on top of ``--site``."""
    if point.mode == "replay":
        from sitesim.runs.replay import ReplayConfig, run_replay

        replayed = run_replay(ReplayConfig(**point.settings()))
        return make_row(point, replayed.nodes, replayed.summary, replayed.violations)
    if point.mode == "site":
        from sitesim.runs.site import run_site

        config = site_config_of(point)
        result = run_site(config)
        return make_row(point, config.nodes, result.summary, productivity=result.productivity)
    raise ValueError(f"unknown mode {point.mode!r}")


def site_config_of(point: Point) -> Any:
    """The site configuration a site-level point runs."""
    from sitesim.runs.sitefile import load_site_file, site_config, site_path

    base = load_site_file(point.site) if point.site is not None else {}
    origin = str(site_path(point.site)) if point.site is not None else None
    return site_config(base, point.settings(), origin=origin)
