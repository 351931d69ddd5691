#!/usr/bin/env python3
"""One AppLeS in the system (Cirne & Berman 1999, section 5.2, Table 5.1, Figure 5.2).

    python scripts/moldable_one_apples.py --traces "$SITESIM_TRACES" --per-slice 10 \\
        -o docs/data/moldable-one-apples.csv

Each log (SDSC-SP2, CTC-SP2, KTH-SP2) is cut into 30-day slices; in each slice,
``--per-slice`` jobs are drawn (distinct, uniformly, seeded) and, one at a time,
replaced by a moldable program of the same work on its original size; the slice is
replayed under ``cons`` (requested times as estimates) once with Gas and once with
static sizing. One CSV row per replaced job: the application's turn-around under each.
Resumable: logs already in the CSV are skipped.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from sitesim.experiments.moldable import PAPER_LOGS, one_apples_runs
from sitesim.experiments.resumable import ResumableCsv

FIELDS = ["trace", "slice", "job", "gas", "static"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, default=os.environ.get("SITESIM_TRACES"))
    parser.add_argument("--logs", default=",".join(PAPER_LOGS))
    parser.add_argument("--per-slice", type=int, default=10)
    parser.add_argument("--slice-days", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.traces is None:
        parser.error("give --traces or set SITESIM_TRACES")
    table = ResumableCsv(args.out, FIELDS, key=["trace"])
    for name in args.logs.split(","):
        if table.done(name):
            continue
        cpu = time.process_time()
        rows = one_apples_runs(args.traces / PAPER_LOGS[name], args.per_slice, slice_days=args.slice_days, seed=args.seed)
        table.append([{"trace": name, **row} for row in rows])
        print(f"{name}: {len(rows)} runs, {time.process_time() - cpu:.1f} s CPU", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
