"""A new scheduling policy in about 30 lines: smallest job first, with no backfilling
guarantee (a job may starve while smaller ones keep arriving).

Run it (``python examples/new_scheduler.py``) and the class lives in ``__main__``, as in
a notebook: ``simulate`` and a serial sweep take the class itself. Imported as a module
(``new_scheduler:SmallestFirst`` with examples/ on the path), process and Dask sweeps
find it too, since their workers import it by that name.
"""

from __future__ import annotations

import sys

import sitesim
from sitesim.schedulers import Scheduler
from sitesim.workload.job import Job


class SmallestFirst(Scheduler):
    """Start waiting jobs smallest first (ties in arrival order) while they fit."""

    name = "smallest-first"
    summary = "smallest waiting job first, no reservations"

    def schedule(self, now: int, free: int) -> list[Job]:
        started = []
        for job in sorted(self.queue, key=lambda j: (j.size, j.seq)):
            if job.size <= free:
                free -= job.size
                started.append(job)
        for job in started:
            self.queue.remove(job)
        return started


if __name__ == "__main__":
    import tempfile
    from pathlib import Path

    from sitesim.sweep import Grid, run_sweep
    from sitesim.sweep.store import read_rows

    days = float(sys.argv[1]) if len(sys.argv) > 1 else 30
    result = sitesim.simulate(users=10, scheduler=SmallestFirst, duration=days, seed=1)
    jobs = result.jobs[result.jobs["start"] >= 0]
    print(f"{result.summary['config']['scheduler']}: {len(jobs)} jobs started,"
          f" mean wait {result.summary['system']['mean_wait']:.0f} s,"
          f" longest wait {(jobs['start'] - jobs['submit']).max()} s")
    # The same class in a serial sweep (this process: the class needs no import).
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "sweep.csv"
        grid = Grid(users=10, scheduler=[SmallestFirst, "easy"], duration=days)
        run_sweep(grid, csv, executor="serial", progress=False)
        for row in read_rows(csv)[1]:
            print(f"sweep: {row['scheduler']:15} mean wait {float(row['mean_wait']):8.0f} s")
