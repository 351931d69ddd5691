"""Compare schedulers in a few lines: the same users (same seeds) under each policy,
five replications, mean and 95% confidence interval (Student t) of the mean wait."""

from __future__ import annotations

import sys

import numpy as np

import sitesim
from new_scheduler import SmallestFirst  # examples/ is this script's directory
from sitesim.sweep import mean_ci

days = float(sys.argv[1]) if len(sys.argv) > 1 else 60
seeds = range(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
print("| scheduler | mean wait (s) | 95% CI | utilisation |")
print("|---|---:|---:|---:|")
for scheduler in ("fcfs", "easy", "cons", SmallestFirst):
    runs = [sitesim.simulate(users=20, scheduler=scheduler, duration=days, seed=s).summary
            for s in seeds]
    mean, half = mean_ci([r["system"]["mean_wait"] for r in runs])
    util = np.mean([r["system"]["utilization"] for r in runs])
    print(f"| {runs[0]['config']['scheduler']} | {mean:,.0f} | ±{half:,.0f} | {util:.3f} |")
