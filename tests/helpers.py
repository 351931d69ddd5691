"""Helpers for engine and scheduler tests: run hand-made jobs through a fresh site.

Tests build jobs in code with :func:`job`, run them with :func:`run_jobs` (a new
``simpy.Environment`` each time, so no state leaks between examples) and inspect the
:class:`Recorder`'s event trace, in the spirit of SimPy's own tests: a list of
``(time, event, job id)`` in the order the site reported them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import simpy

from sitesim.engine.events import SUBMISSION, At
from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.schedulers import make_scheduler
from sitesim.schedulers.base import Scheduler
from sitesim.workload.job import Job
from sitesim.workload.swf import STATUS_COMPLETED, SwfRecord, write_swf

Event = tuple[int, str, int]


def job(id: int, submit: int, size: int, runtime: int, estimate: int | None = None) -> Job:
    """A job record; the estimate defaults to the runtime (exact estimates)."""
    return Job(
        id=id,
        submit=submit,
        size=size,
        runtime=runtime,
        estimate=runtime if estimate is None else estimate,
    )


class Recorder:
    """Site observer keeping the event trace and checking node accounting as it goes."""

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes
        self.events: list[Event] = []
        self.started: list[Job] = []
        self.ended: list[Job] = []
        #: (job id, start, end) of every killed run.
        self.killed: list[tuple[int, int, int]] = []
        self.busy = 0
        self.max_busy = 0

    def on_submit(self, job: Job) -> None:
        self.events.append((job.submit, "submit", job.id))

    def on_start(self, job: Job) -> None:
        self.events.append((job.start, "start", job.id))
        self.started.append(job)
        self.busy += job.size
        self.max_busy = max(self.max_busy, self.busy)

    def on_end(self, job: Job) -> None:
        self.events.append((job.end, "end", job.id))
        self.ended.append(job)
        self.busy -= job.size

    def on_kill(self, job: Job) -> None:
        """A run killed by a preempting scheduler (timed-run): its nodes are free again."""
        self.events.append((job.end, "kill", job.id))
        self.killed.append((job.id, job.start, job.end))
        self.busy -= job.size

    def starts(self) -> dict[int, int]:
        """Start time of each job, by id."""
        return {j.id: j.start for j in self.started}


def run_jobs(
    jobs: Sequence[Job],
    nodes: int,
    scheduler: str | Scheduler,
    *,
    observers: Sequence[object] = (),
) -> Recorder:
    """Submit ``jobs`` at their submit times (list order breaks ties) and run to the end.

    The jobs are updated in place (start, end, killed, seq); pass fresh ones each run.
    """
    env = simpy.Environment()
    policy = make_scheduler(scheduler, nodes) if isinstance(scheduler, str) else scheduler
    site = Site(env, Machine(nodes), policy)
    recorder = Recorder(nodes)
    site.observe(recorder)
    for observer in observers:
        site.observe(observer)
    for j in jobs:
        At(env, j.submit, SUBMISSION, lambda event: site.submit(event.value), j)
    env.run()
    return recorder


def max_concurrent_nodes(jobs: Sequence[Job]) -> int:
    """Peak of the nodes in use over time, from start/end alone (ends free nodes first).

    Independent of the site's own accounting: a sweep over the jobs' intervals
    ``[start, end)``, so zero-length jobs never count.
    """
    points: list[tuple[int, int]] = []
    for j in jobs:
        if j.end > j.start:
            points.append((j.start, j.size))
            points.append((j.end, -j.size))
    busy = peak = 0
    for _, delta in sorted(points, key=lambda p: (p[0], p[1])):
        busy += delta
        peak = max(peak, busy)
    return peak


def stress_trace(path: Path, n: int = 1500, seed: int = 14, nodes: int = 32) -> Path:
    """Write ``n`` seeded jobs on ``nodes`` nodes (SWF), busy enough that queues form.

    What scheduler optimisations get wrong is in it: equal submit times, zero runtimes,
    requests below the runtime (kills), missing requests (-1), loose estimates.
    """
    rng = np.random.default_rng(seed)
    gaps = np.where(rng.random(n) < 0.2, 0, rng.exponential(420, size=n).astype(int))
    submit = np.cumsum(gaps)
    runtime = np.where(rng.random(n) < 0.03, 0, rng.lognormal(np.log(300), 1.4, size=n).astype(int))
    factor = rng.uniform(0.7, 4.0, size=n)  # some underestimates: killed at the request
    requested = np.where(rng.random(n) < 0.05, -1, np.ceil(runtime * factor).astype(int))
    sizes = np.minimum(nodes, 2 ** rng.integers(0, 6, size=n) + rng.integers(0, 2, size=n))
    records = [
        SwfRecord(
            job_number=i + 1,
            submit_time=int(submit[i]),
            run_time=int(runtime[i]),
            allocated_processors=int(sizes[i]),
            requested_time=int(requested[i]),
            status=STATUS_COMPLETED,
            user_id=1 + i % 7,
        )
        for i in range(n)
    ]
    write_swf(path, records, [f"; MaxProcs: {nodes}"])
    return path


def one_line_error(argv: list[str], capsys: object, *, sweep: bool = False) -> str:
    """Run the command in-process; assert exit 2 with one error line; return that line.

    argparse refusals (SystemExit 2) count too: they also print one line of error
    (after the usage line).
    """
    from sitesim.cli import main

    try:
        code = main((["sweep"] if sweep else []) + argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert code == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


def partitioned(directory, specs) -> str:
    """``partitioned:FILE`` for partition records written to a TOML file in ``directory``
    (a partitioned machine is a policy that reads its partitions from a file)."""
    from pathlib import Path

    lines = []
    for p in specs:
        lines += ["[[partitions]]", f'name = "{p.name}"', f"nodes = {p.nodes}", f'scheduler = "{p.scheduler}"']
        lines += [f"max_size = {p.max_size}"] if p.max_size is not None else []
        lines += [f"max_estimate = {p.max_estimate}"] if p.max_estimate is not None else []
    path = Path(directory) / f"partitions-{abs(hash(tuple(specs)))}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"partitioned:{path}"
