"""A new user model: users who submit one job at a time and think for an exponentially
distributed time (mean 10 minutes) after each completion, instead of the paper's
batches with empirical think times. The workpool (what they run) stays the measured one.

A submittal model answers three questions per user, from that user's own random
stream: how many jobs in the next batch, the gap between them, the think time after.
"""

from __future__ import annotations

import sys

import numpy as np

import sitesim
from sitesim.distributions import EmpiricalModel
from sitesim.users import SubmittalModel


class SteadyUser(SubmittalModel):
    """One job per batch; think times exponential with mean ``MEAN_THINK`` seconds."""

    name = "steady"
    summary = "one job at a time, exponential think times (mean 10 min)"
    MEAN_THINK = 600.0

    def __init__(self, tables: EmpiricalModel, rng: np.random.Generator) -> None:
        super().__init__(tables, rng)

    def batch_width(self) -> int:
        return 1

    def gap(self) -> int:
        return 0

    def think(self) -> int:
        return int(round(self.rng.exponential(self.MEAN_THINK)))


if __name__ == "__main__":
    days = float(sys.argv[1]) if len(sys.argv) > 1 else 30
    for model in ("batch", SteadyUser):
        r = sitesim.simulate(users=10, submittal=model, scheduler="easy", duration=days, seed=3)
        s, jobs = r.summary["system"], r.jobs
        think = jobs["think"][jobs["think"] >= 0]
        print(f"{r.summary['config']['submittal']:7} {s['submitted']:6} jobs, utilisation"
              f" {s['utilization']:.3f}, median think time {np.median(think):7.0f} s")
