"""Run a sweep: expand the grid, skip runs already in the CSV, run the rest in parallel."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from attrs import define, evolve, field

from sitesim.sweep.executors import make_executor
from sitesim.sweep.grid import Grid, Key, Point
from sitesim.sweep.run import METRIC_COLUMNS, RunFunction, columns_for, run_point
from sitesim.sweep.store import CsvLock, CsvStore, is_number_cell, read_rows, row_key


@define(slots=True)
class SweepReport:
    """How a sweep went: points in the grid, found already done, run now, failed."""

    total: int = 0
    existing: int = 0
    #: Rows copied from other sweeps' CSVs (``reuse``), not run again.
    reused: int = 0
    ran: int = 0
    failed: list[tuple[Key, str]] = field(factory=list)
    #: Rows of the CSV dropped as damaged (their runs were redone).
    damaged: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed


def run_sweep(
    grid: Grid | Iterable[Point],
    csv_path: str | os.PathLike[str],
    executor: Any = None,
    replications: int | None = None,
    *,
    jobs: int | None = None,
    run: RunFunction = run_point,
    progress: bool = True,
    reuse: Sequence[str | os.PathLike[str]] = (),
) -> SweepReport:
    """Run every point of ``grid`` not yet in ``csv_path``, appending one row per run.

    ``executor``: None or ``"processes"`` (local processes, ``jobs`` of them, default
    one per CPU), ``"serial"``, a ``dask.distributed.Client``, or an object with
    ``map_unordered`` (see :mod:`sitesim.sweep.executors`). ``replications``
    overrides the grid's. ``run`` is the per-point function (replaceable for tests;
    it must be picklable for process and dask executors). When every point has a row,
    the CSV is rewritten sorted by config key; failed points are reported and left
    out, so running the sweep again retries exactly them.
    """
    if isinstance(grid, Grid):
        if replications is not None:
            grid = evolve(grid, replications=replications)
        points = grid.points()
    else:
        if replications is not None:
            raise ValueError("replications applies to a Grid, not to a list of points")
        points = list({p.key(): p for p in grid}.values())
    with CsvLock(csv_path):
        return _run_locked(points, csv_path, executor, jobs=jobs, run=run, progress=progress, reuse=reuse)


def _run_locked(
    points: list[Point], csv_path: str | os.PathLike[str], executor: Any, *,
    jobs: int | None, run: RunFunction, progress: bool, reuse: Sequence[str | os.PathLike[str]],
) -> SweepReport:
    store = CsvStore(csv_path, columns_for(points), numeric=METRIC_COLUMNS)
    todo = [p for p in points if p.key() not in store]
    report = SweepReport(total=len(points), existing=len(points) - len(todo), damaged=store.damaged)
    for other in reuse:
        report.reused += _copy_rows(other, store, todo)
    todo = [p for p in todo if p.key() not in store]
    bar = _progress(len(points), report.existing + report.reused, enabled=progress)
    try:
        for outcome in make_executor(executor, jobs=jobs).map_unordered(run, todo):
            if outcome.row is not None:
                store.append(outcome.row)
                report.ran += 1
            else:
                report.failed.append((outcome.point.key(), outcome.error or "failed"))
                bar.write(f"sitesim sweep: run {_describe(outcome.point)} failed: {outcome.error}")
            bar.update(1)
    finally:
        bar.close()
        store.close()
    store.finalize()
    return report


def _copy_rows(path: str | os.PathLike[str], store: CsvStore, points: Sequence[Point]) -> int:
    """Append to ``store`` the complete rows of the CSV at ``path`` for ``points``; how many.

    A missing file, other columns, or a row with a damaged metric are passed over: the
    points are then run as usual.
    """
    if not os.path.exists(path):
        return 0
    header, rows = read_rows(path)
    if header != store.columns:
        return 0
    wanted = {p.key() for p in points}
    copied = 0
    for row in rows:
        key = row_key(row)
        if key in wanted and key not in store and all(is_number_cell(row[c]) for c in METRIC_COLUMNS):
            store.append(row)
            copied += 1
    return copied


def _describe(point: Point) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.cells().items() if v != "")


def _progress(total: int, done: int, *, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="run", desc="sweep", disable=not enabled,
                file=sys.stderr, dynamic_ncols=True)
