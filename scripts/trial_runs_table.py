#!/usr/bin/env python3
"""Regenerate the table in docs/trial-runs.md: timed-run scheduling on the real traces.

    python scripts/trial_runs_table.py --traces "$SITESIM_TRACES" --out docs/trial-runs.md

SDSC-SP2, CTC-SP2 and KTH-SP2 under fcfs, timed:fcfs, easy and timed:easy, with the
users' requested times as estimates and the traces' failures (``--estimates trace
--failures trace``). Only the text between the table markers of ``--out`` is replaced,
so the prose around it is edited by hand; without ``--out`` the table is printed. The
output is deterministic (no timings, no paths).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.files import atomic_text_write

TRACES: dict[str, str] = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
SCHEDULERS = ("fcfs", "timed:fcfs", "easy", "timed:easy")
BEGIN = "<!-- trial-runs table: begin (scripts/trial_runs_table.py) -->"
END = "<!-- trial-runs table: end -->"


def hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f}"


def table(traces: Path) -> list[str]:
    rows = [
        "| trace | scheduler | jobs | mean response (h) | mean bounded slowdown "
        "| wait all: mean / max (h) | short jobs | wait short: mean / max (h) "
        "| failed short | wait failed short: mean / max (h) | restarted | lost work | utilisation |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, file in TRACES.items():
        for scheduler in SCHEDULERS:
            config = ReplayConfig(
                trace=str(traces / file), scheduler=scheduler, estimates="trace", failures="trace"
            )
            s = run_replay(config).summary
            # Share of the occupied node-seconds that went to killed (restarted) runs.
            lost = 1 - s["useful_utilization"] / s["utilization"] if s["utilization"] else 0.0
            rows.append(
                f"| {name} | {scheduler} | {s['completed']} | {hours(s['mean_response'])} "
                f"| {s['mean_bounded_slowdown']:.1f} "
                f"| {hours(s['mean_wait'])} / {hours(s['max_wait'])} | {s['short_jobs']} "
                f"| {hours(s['mean_wait_short'])} / {hours(s['max_wait_short'])} "
                f"| {s['failed_short_jobs']} "
                f"| {hours(s['mean_wait_failed_short'])} / {hours(s['max_wait_failed_short'])} "
                f"| {s['restarted']} | {100 * lost:.2f}% | {s['utilization']:.4f} |"
            )
            print(rows[-1], file=sys.stderr)
    return rows


def splice(text: str, rows: list[str]) -> str:
    """``text`` with the lines between the markers replaced by ``rows``."""
    head, begin, rest = text.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"table markers not found: {BEGIN} ... {END}")
    return "".join([head, BEGIN, "\n", "\n".join(rows), "\n", END, tail])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, default=os.environ.get("SITESIM_TRACES"),
                        help="directory holding the archive logs (default $SITESIM_TRACES)")
    parser.add_argument("--out", type=Path, help="markdown file whose table to replace")
    args = parser.parse_args(argv)
    if args.traces is None:
        parser.error("--traces (or SITESIM_TRACES) is required")
    rows = table(args.traces)
    if args.out is None:
        print("\n".join(rows))
        return 0
    text = splice(args.out.read_text(), rows)
    with atomic_text_write(args.out) as out:
        out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
