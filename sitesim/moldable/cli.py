"""The command-line options of moldable jobs, and the moldable replay's report.

Kept here so the main CLI only registers the options and hands over: ``--moldable``,
``--moldable-policy``, ``--moldable-table`` and ``--slice-days`` (replay), and
``--adaptive`` (site-level, :mod:`sitesim.moldable.adaptive`).
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import attrs

from sitesim.moldable.gas import REQUEST_POLICIES


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (0 <= value <= 1 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a fraction in [0, 1], got {value}")
    return value


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of days, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--moldable", type=_fraction, metavar="FRACTION",
        help="replay only: replace this share of the jobs by moldable ones sized at"
        " submission by --moldable-policy (docs/moldable.md)",
    )
    parser.add_argument(
        "--moldable-policy", metavar="POLICY",
        help=f"how moldable jobs choose their size (default gas). {REQUEST_POLICIES.help()}",
    )
    parser.add_argument(
        "--moldable-table", metavar="CSV",
        help="replay only: measured applications (application,processors,runtime) instead"
        " of Downey's model",
    )
    parser.add_argument(
        "--slice-days", type=_days, metavar="DAYS",
        help="replay with --moldable: replay the log in slices of DAYS days (the paper: 30)",
    )
    parser.add_argument(
        "--adaptive", type=_fraction, metavar="FRACTION",
        help="site-level: this share of the users submit moldable jobs sized by"
        " --moldable-policy (docs/moldable.md)",
    )


def replay_options_used(args: argparse.Namespace) -> list[str]:
    """The moldable replay options given without ``--moldable``."""
    used = [("--moldable-table", args.moldable_table), ("--slice-days", args.slice_days)]
    return [flag for flag, value in used if value is not None]


def run_replay_command(args: argparse.Namespace, config: Any) -> int:
    """``sitesim -c LOG --moldable F ...``: replay (by slices), print and write the block."""
    from sitesim.moldable.experiment import run_moldable
    from sitesim.moldable.replace import MoldableSpec

    spec = MoldableSpec(
        policy=args.moldable_policy or "gas", fraction=args.moldable, table=args.moldable_table
    )
    config = attrs.evolve(config, moldable=spec)
    started = time.perf_counter()
    cpu = time.process_time()
    results, document = run_moldable(config, args.slice_days, args.out)
    m = document["moldable"]
    print(
        f"# moldable ({m['policy']}): {m['jobs']} jobs replaced in {len(results)} replay(s);"
        f" turn-around mean {m['mean_turnaround']:.0f} s, median {m['median_turnaround']:.0f} s,"
        f" max {m['max_turnaround']} s; load ratio {m['load_ratio']:.4f}"
    )
    print(
        f"# {sum(r.counts['submitted'] for r in results)} jobs replayed in"
        f" {time.perf_counter() - started:.2f} s ({time.process_time() - cpu:.2f} s CPU)"
    )
    return 0
