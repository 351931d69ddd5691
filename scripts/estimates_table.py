"""Replay real logs under EASY and conservative backfilling with several estimate models.

The experiment of Mu'alem & Feitelson (2001, section 4): how does the accuracy of the
runtime estimates change backfilling performance? Each trace is replayed under
``easy`` and ``cons`` with the users' own estimates (``trace``), exact ones (``f:1``)
and the badness factors ``f:2``, ``f:4``, ``f:11`` (seed 0), and the mean response
time, mean bounded slowdown, mean wait and utilisation are tabulated. Each run's
wall-clock time is printed on stderr, not written to the tables, so that the tables
regenerate byte-identical (any change in them is a change in behaviour).

Traces are looked up in ``$SITESIM_TRACES`` (or ``--traces DIR``); missing ones are
skipped. With ``--doc FILE`` the tables replace whatever lies between the
``<!-- estimates-table:start -->`` and ``<!-- estimates-table:end -->`` markers of
FILE, so the hand-written discussion around them is kept.

    python scripts/estimates_table.py --doc docs/backfilling-results.md [--jobs N]

The replays run on ``--jobs`` processes (default every CPU), in the sweep executor.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.sweep.executors import map_in_order

TRACES = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
SCHEDULERS = ("easy", "cons")
ESTIMATES = ("trace", "f:1", "f:2", "f:4", "f:11")
START, END = "<!-- estimates-table:start -->", "<!-- estimates-table:end -->"


def one_run(args: tuple[str, str, str, str, int]) -> dict:
    """Replay one (trace, scheduler, estimates) cell; returns the row and its timing."""
    name, path, scheduler, estimates, seed = args
    t0 = time.perf_counter()
    result = run_replay(ReplayConfig(trace=path, scheduler=scheduler, estimates=estimates, seed=seed))
    seconds = time.perf_counter() - t0
    s = result.summary
    return {
        "trace": name,
        "scheduler": scheduler,
        "estimates": estimates,
        "jobs": s["completed"],
        "killed": s["killed"],
        "response": s["mean_response"],
        "bsld": s["mean_bounded_slowdown"],
        "wait": s["mean_wait"],
        "util": s["utilization"],
        "seconds": seconds,
    }


def markdown(rows: list[dict], seed: int) -> str:
    lines = [
        f"Seed {seed}. Response and wait in seconds; bounded slowdown with a 10 s threshold.",
        "",
    ]
    for trace in dict.fromkeys(r["trace"] for r in rows):
        mine = [r for r in rows if r["trace"] == trace]
        lines += [
            f"### {trace} ({mine[0]['jobs']:,} jobs)",
            "",
            "| estimates | scheduler | mean response | mean bounded slowdown | mean wait"
            " | utilisation | killed |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for r in mine:
            lines.append(
                f"| {r['estimates']} | {r['scheduler']} | {r['response']:,.0f} | {r['bsld']:.1f}"
                f" | {r['wait']:,.0f} | {r['util']:.3f} | {r['killed']:,} |"
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_doc(doc: Path, table: str, start: str = START, end: str = END) -> None:
    """Replace what lies between the ``start`` and ``end`` markers of ``doc`` by ``table``."""
    text = doc.read_text() if doc.exists() else f"# Backfilling results\n\n{start}\n{end}\n"
    if start not in text or end not in text:
        raise SystemExit(f"{doc}: markers {start} / {end} not found")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{table}{end}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"), help="directory of the SWF logs")
    parser.add_argument("--only", nargs="*", choices=sorted(TRACES), help="traces to run (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None, help="replays run in parallel (default: every CPU)")
    parser.add_argument("--doc", type=Path, help="markdown file whose table section to replace")
    args = parser.parse_args(argv)
    if not args.traces:
        print("SITESIM_TRACES is not set (or give --traces): nothing to replay", file=sys.stderr)
        return 0
    cells = []
    for name in args.only or TRACES:
        path = Path(args.traces) / TRACES[name]
        if not path.exists():
            print(f"skipping {name}: {path.name} not in {args.traces}", file=sys.stderr)
            continue
        cells += [(name, str(path), s, e, args.seed) for e in ESTIMATES for s in SCHEDULERS]
    rows = map_in_order(one_run, cells, jobs=args.jobs)
    for row in rows:
        print(
            f"{row['trace']:9} {row['scheduler']:5} {row['estimates']:6}"
            f" response {row['response']:10.0f}  bsld {row['bsld']:7.1f}  {row['seconds']:6.1f} s",
            file=sys.stderr,
        )
    table = markdown(rows, args.seed)
    if args.doc:
        write_doc(args.doc, table)
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
