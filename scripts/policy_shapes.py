#!/usr/bin/env python3
"""Which base policy's wait *shape* matches each development log (issue 33, item 4;
docs/service.md, "Which base policy").

    python scripts/policy_shapes.py --traces "$SITESIM_TRACES" [--logs CTC-SP2 ...] [--policies easy sjbf ...]

Each log is replayed on its nominal machine (the header's size) under each policy of
:data:`POLICIES` (the registered policies that need no extra file, but ``cons-sjbf``,
``cons``'s order variant), and each replayed
job's wait (from ``schedule.swf``) is set beside its wait in the log. Per log and policy:
the mean wait, the wait quantiles (50/90/99 %) overall and per size class
(:data:`SIZE_EDGES`), the rank correlation (Spearman) of the users' mean waits with the
log's (:func:`service_table.figures`), and the distance the fit's choice of base policy uses
(:func:`sitesim.runs.service_policy.quantile_distance`: mean absolute gap between the two
log(1 + wait) quantile functions at 1..99 %). Development logs only: the held-out pair is
never measured here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_table import DEVELOPMENT, figures, waits  # noqa: E402

from sitesim.runs.replay import ReplayConfig, run_replay  # noqa: E402
from sitesim.runs.service_policy import quantile_distance  # noqa: E402

#: The registered policies that need no extra file (docs/schedulers.md).
POLICIES = ("easy", "sjbf", "easy++", "los", "multifactor", "creasy", "cons", "fcfs")
#: Upper edges (processors, inclusive) of the size classes the quantiles are split by.
SIZE_EDGES = (1, 4, 16, 64)
QUANTILES = (0.5, 0.9, 0.99)


def sizes(path: Path) -> dict[int, int]:
    from sitesim.workload.swf import SwfReader

    with SwfReader(path) as reader:
        return {int(r.job_number): int(max(r.allocated_processors, r.requested_processors)) for r in reader}


def by_class(replayed: dict[int, tuple[int, int]], log: dict[int, tuple[int, int]],
             size: dict[int, int]) -> dict[str, dict[str, float]]:
    jobs = sorted(set(replayed) & set(log))
    out = {}
    lo = 0
    for hi in (*SIZE_EDGES, None):
        sel = [j for j in jobs if size[j] > lo and (hi is None or size[j] <= hi)]
        name = f"{lo + 1}-{hi}" if hi is not None else f">{lo}"
        if sel:
            mine = np.array([replayed[j][1] for j in sel], float)
            theirs = np.array([log[j][1] for j in sel], float)
            out[name] = {"jobs": len(sel), "mean": float(mine.mean()), "log_mean": float(theirs.mean()),
                         **{f"q{q * 100:g}": float(np.quantile(mine, q)) for q in QUANTILES},
                         **{f"log_q{q * 100:g}": float(np.quantile(theirs, q)) for q in QUANTILES},
                         "distance": quantile_distance(mine, theirs)}
        lo = hi if hi is not None else lo
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, required=True)
    parser.add_argument("--logs", nargs="*", default=list(DEVELOPMENT))
    parser.add_argument("--policies", nargs="*", default=list(POLICIES))
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.logs:
            if name not in DEVELOPMENT:
                parser.error(f"{name}: development logs only ({', '.join(DEVELOPMENT)})")
            (trace,) = sorted(args.traces.glob(f"{name}-*.swf*"))
            log = waits(trace)
            size = sizes(trace)
            for policy in args.policies:
                start = time.process_time()
                out = Path(tmp) / name / policy
                run_replay(ReplayConfig(str(trace), scheduler=policy), out=out, progress=False)
                replayed = waits(out / "schedule.swf")
                fig = figures(replayed, log)
                jobs = sorted(set(replayed) & set(log))
                dist = quantile_distance(np.array([replayed[j][1] for j in jobs], float),
                                    np.array([log[j][1] for j in jobs], float))
                row = {"log": name, "policy": policy, "cpu_s": time.process_time() - start,
                       "distance": dist, **fig, "classes": by_class(replayed, log, size)}
                results.append(row)
                print(f"{name:9s} {policy:12s} d={dist:5.2f} mean={fig['mean']:9,.0f} (log {fig['log_mean']:,.0f})"
                      f" q50/90/99={fig['q50']:,.0f}/{fig['q90']:,.0f}/{fig['q99']:,.0f}"
                      f" (log {fig['log_q50']:,.0f}/{fig['log_q90']:,.0f}/{fig['log_q99']:,.0f})"
                      f" rho={fig['spearman']:.2f} cpu={row['cpu_s']:.0f}s", flush=True)
                for cls, c in row["classes"].items():
                    print(f"    {cls:7s} n={c['jobs']:6d} d={c['distance']:5.2f} q50/90/99={c['q50']:,.0f}/"
                          f"{c['q90']:,.0f}/{c['q99']:,.0f} (log {c['log_q50']:,.0f}/{c['log_q90']:,.0f}/"
                          f"{c['log_q99']:,.0f})", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
