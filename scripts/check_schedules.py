#!/usr/bin/env python3
"""Schedule identity: replay every shipped log and compare schedule hashes to a baseline.

    python scripts/check_schedules.py                 # check against schedule_hashes.txt
    python scripts/check_schedules.py --record        # (re)write the baseline
    python scripts/check_schedules.py --only CTC --jobs 2

Every ``*.swf.gz`` log in ``$SITESIM_TRACES`` (or ``--traces DIR``) is replayed under
``fcfs``, ``easy``, ``cons`` and ``timed:easy`` with the users' own estimates, and under
``easy`` and ``cons`` with random ``f:4`` estimates (seed 0, which makes conservative
backfilling compress hard). The schedule each run writes (``schedule.swf``, the SWF
records without comment lines, so a change of the header wording does not count) is
hashed with SHA-256. Why hashes: a refactor or optimisation of a scheduler must leave
every start time of every job unchanged, and one hash per run says so for hundreds of
thousands of jobs; the baseline was recorded before the scheduler speed-ups.

Exit status 0 when every run matches, 1 when some differ (each difference is listed),
2 on bad input. Logs or runs missing from the baseline are reported and fail the check.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sitesim.runs.replay import ReplayConfig, run_replay

BASELINE = Path(__file__).with_name("schedule_hashes.txt")
#: (scheduler, estimates) pairs replayed on every log.
RUNS = (
    ("fcfs", "trace"),
    ("easy", "trace"),
    ("cons", "trace"),
    ("timed:easy", "trace"),
    ("easy", "f:4"),
    ("cons", "f:4"),
)
Key = tuple[str, str, str]


def schedule_hash(path: Path) -> str:
    """SHA-256 of the SWF records of a schedule file, comment lines left out."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for line in f:
            if not line.startswith(b";"):
                digest.update(line)
    return digest.hexdigest()


def one_run(task: tuple[str, str, str, str]) -> tuple[Key, str, int, float]:
    """Replay one (log, scheduler, estimates); return its key, hash, jobs and CPU seconds."""
    name, path, scheduler, estimates = task
    with tempfile.TemporaryDirectory(prefix="sitesim-check-") as tmp:
        out = Path(tmp) / "out"
        cpu = time.process_time()
        result = run_replay(ReplayConfig(trace=path, scheduler=scheduler, estimates=estimates, seed=0), out=out)
        cpu = time.process_time() - cpu
        return (name, scheduler, estimates), schedule_hash(out / "schedule.swf"), result.counts["read"], cpu


def read_baseline(path: Path) -> dict[Key, str]:
    """``LOG SCHEDULER ESTIMATES SHA256`` per line; ``#`` starts a comment."""
    baseline: dict[Key, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 4:
            raise SystemExit(f"{path}:{number}: expected LOG SCHEDULER ESTIMATES SHA256")
        baseline[(fields[0], fields[1], fields[2])] = fields[3]
    return baseline


def write_baseline(path: Path, hashes: dict[Key, str]) -> None:
    lines = [
        "# Schedule hashes of every shipped log (scripts/check_schedules.py --record).",
        "# LOG SCHEDULER ESTIMATES SHA256 of schedule.swf without comment lines; seed 0.",
    ]
    lines += [f"{n} {s} {e} {h}" for (n, s, e), h in sorted(hashes.items())]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--traces", type=Path, default=os.environ.get("SITESIM_TRACES"),
        help="directory holding the shipped logs (default $SITESIM_TRACES)",
    )
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="hash file (default: next to this script)")
    parser.add_argument("--record", action="store_true", help="write the baseline instead of checking it")
    parser.add_argument("--only", default="", help="comma-separated substrings of log names to keep")
    parser.add_argument("--schedulers", default="", help="comma-separated schedulers to keep (default all)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    if args.traces is None or not Path(args.traces).is_dir():
        print("check_schedules: no traces directory (set SITESIM_TRACES or pass --traces)", file=sys.stderr)
        return 2
    logs = sorted(Path(args.traces).glob("*.swf.gz"))
    only = [s for s in args.only.split(",") if s]
    if only:
        logs = [p for p in logs if any(s in p.name for s in only)]
    keep = {s for s in args.schedulers.split(",") if s}
    tasks = [
        (p.name.removesuffix(".swf.gz"), str(p), s, e)
        for p in logs
        for s, e in RUNS
        if not keep or s in keep
    ]
    if not tasks:
        print("check_schedules: no logs selected", file=sys.stderr)
        return 2
    # Longest logs first, so parallel workers finish together.
    tasks.sort(key=lambda t: -os.path.getsize(t[1]))
    hashes: dict[Key, str] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for key, digest, read, cpu in pool.map(one_run, tasks):
            hashes[key] = digest
            print(f"{' '.join(key):45s} {read:>7} jobs {cpu:7.1f} s CPU  {digest[:16]}", flush=True)
    if args.record:
        merged = read_baseline(args.baseline) if args.baseline.exists() else {}
        merged.update(hashes)
        write_baseline(args.baseline, merged)
        print(f"recorded {len(hashes)} hashes in {args.baseline}")
        return 0
    baseline = read_baseline(args.baseline)
    bad = 0
    for key, digest in sorted(hashes.items()):
        want = baseline.get(key)
        if want is None:
            print(f"NOT IN BASELINE: {' '.join(key)}")
            bad += 1
        elif want != digest:
            print(f"DIFFERENT SCHEDULE: {' '.join(key)}")
            bad += 1
    print(f"{len(hashes) - bad} of {len(hashes)} schedules identical to the baseline")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
