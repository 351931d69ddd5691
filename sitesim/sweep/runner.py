"""Run a sweep: expand the grid, skip runs already in the CSV, run the rest in parallel."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, cast

from attrs import define, field

from sitesim.sweep.executors import make_executor
from sitesim.sweep.fingerprint import stamp
from sitesim.sweep.grid import CONFIG_COLUMNS, Grid, Key, Point
from sitesim.sweep.run import METRIC_COLUMNS, PRODUCTIVITY_COLUMNS, RunFunction, columns_for, run_point
from sitesim.sweep.store import CsvLock, CsvStore, is_number_cell, is_older_header, read_rows, row_key, upgraded


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
    #: Rows of the CSV made with another model than the grid's points (another
    #: ``model`` fingerprint): dropped, and their points run with the current model.
    stale: int = 0
    #: Rows of a CSV written before the productivity columns: kept, those cells empty.
    upgraded: int = 0

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
    finite: Sequence[str] = (),
) -> SweepReport:
    """Run every point of ``grid`` not yet in ``csv_path``, appending one row per run.

    ``executor``: None or ``"processes"`` (local processes, ``jobs`` of them, default
    one per CPU), ``"serial"``, a ``dask.distributed.Client``, or an object with
    ``map_unordered`` (see :mod:`sitesim.sweep.executors`). ``replications``
    overrides the grid's. ``run`` is the per-point function (replaceable for tests;
    it must be picklable for process and dask executors). When every point has a row,
    the CSV is rewritten sorted by config key; failed points are reported and left
    out, so running the sweep again retries exactly them.

    Every point is first stamped with the fingerprint of its model
    (:mod:`sitesim.sweep.fingerprint`). A row of the CSV for one of the points but made
    with another model is stale: it is dropped (counted in ``stale``) and the point
    run again, never kept. ``reuse`` copies only rows with the same fingerprint.
    ``finite``: metric columns a finished run never leaves ``nan`` (a study's summary
    metrics): a row with one is damaged, dropped and run again.
    """
    if isinstance(grid, Grid):
        if replications is not None:
            grid = grid.with_replications(replications)
        points = grid.points()
    else:
        if replications is not None:
            raise ValueError("replications applies to a Grid, not to a list of points")
        points = list({p.key(): p for p in cast(Iterable[Point], grid)}.values())
    points = list({p.key(): p for p in stamp(points)}.values())
    with CsvLock(csv_path):
        return _run_locked(points, csv_path, executor, jobs=jobs, run=run, progress=progress, reuse=reuse,
                           finite=finite)


def _run_locked(
    points: list[Point], csv_path: str | os.PathLike[str], executor: Any, *,
    jobs: int | None, run: RunFunction, progress: bool, reuse: Sequence[str | os.PathLike[str]],
    finite: Sequence[str] = (),
) -> SweepReport:
    store = CsvStore(
        csv_path, columns_for(points), numeric=(*METRIC_COLUMNS, *PRODUCTIVITY_COLUMNS),
        appended=PRODUCTIVITY_COLUMNS, finite=finite,
    )
    stale = _drop_stale(store, points)
    todo = [p for p in points if p.key() not in store]
    report = SweepReport(total=len(points), existing=len(points) - len(todo), damaged=store.damaged,
                         stale=stale, upgraded=store.upgraded)
    for other in reuse:
        report.reused += _copy_rows(other, store, todo)
    # Biggest runs first (cost grows with users and load), so that the sweep does not
    # end on one long run while the other workers idle; the CSV's order is the key's.
    todo = sorted((p for p in todo if p.key() not in store), key=_size, reverse=True)
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


_MODEL = CONFIG_COLUMNS.index("model")


def _without_model(key: Key) -> Key:
    return key[:_MODEL] + key[_MODEL + 1:]


def _drop_stale(store: CsvStore, points: Sequence[Point]) -> int:
    """Forget the rows of ``store`` that are one of ``points`` made with another model."""
    current = {_without_model(p.key()): p.key() for p in points}
    stale = [key for key in store.rows if current.get(_without_model(key), key) != key]
    for key in stale:
        del store.rows[key]
    return len(stale)


def _size(point: Point) -> float:
    """A rough cost of a run, for ordering only: users, or the replay's load factor."""
    return float(point.users or point.load_factor or 0)


def _copy_rows(path: str | os.PathLike[str], store: CsvStore, points: Sequence[Point]) -> int:
    """Append to ``store`` the complete rows of the CSV at ``path`` for ``points``; how many.

    A missing file, other columns, or a row with a damaged metric are passed over: the
    points are then run as usual. Rows of a CSV written before the productivity columns
    are copied with those cells empty, as resuming keeps them.
    """
    if not os.path.exists(path):
        return 0
    header, rows = read_rows(path)
    if is_older_header(header, store.columns, PRODUCTIVITY_COLUMNS):
        rows = upgraded(rows, store.columns)
    elif header != store.columns:
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
