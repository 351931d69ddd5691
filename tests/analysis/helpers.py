"""Hand-made trace jobs for the definition tests."""

from __future__ import annotations

from sitesim.analysis.cleaning import TraceJob


def tj(
    job: int,
    submit: float,
    run: float,
    *,
    wait: float = 0,
    user: int = 1,
    size: int = 1,
    exe: int = -1,
    status: int = 1,
    req: float = -1,
) -> TraceJob:
    """A kept job; completion = submit + wait + run."""
    return TraceJob(
        job=job, submit=submit, wait=wait, run=run, size=size,
        requested_time=req, status=status, user=user, executable=exe,
    )
