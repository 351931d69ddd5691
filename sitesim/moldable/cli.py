"""The command-line options of moldable jobs.

Kept here so the main CLI only registers them: ``--moldable``, ``--moldable-policy``,
``--moldable-table`` and ``--slice-days`` (replay; run by
:func:`sitesim.experiments.moldable.run_replay_command`), and ``--adaptive``
(site-level).
"""

from __future__ import annotations

import argparse
import math

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
