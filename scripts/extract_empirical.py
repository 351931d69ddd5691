#!/usr/bin/env python3
"""Regenerate the empirical model tables (``empirical/*.json``) from the real traces.

    python scripts/extract_empirical.py --traces "$SITESIM_TRACES" --out empirical

Writes one table per trace (SDSC-SP2, CTC-SP2, KTH-SP2) and ``combined`` (all three
pooled). The output is deterministic: re-running on the same traces gives the same
bytes, which tests/analysis/test_reproducible.py checks.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sitesim.analysis.tables import build_table, pool, write_table
from sitesim.analysis.trace import TraceAnalysis, analyze_trace
from sitesim.errors import InputError

#: Model name -> trace file, in the order the combined table lists them.
TRACES: dict[str, str] = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
COMMAND = 'python scripts/extract_empirical.py --traces "$SITESIM_TRACES" --out empirical'


def extract(traces: Path, out: Path, *, verbose: bool = False) -> dict[str, TraceAnalysis]:
    """Analyse the traces in ``traces`` and write every table into ``out``."""
    missing = [f for f in TRACES.values() if not (traces / f).is_file()]
    if missing:
        raise InputError(f"trace files missing: {', '.join(missing)}", path=str(traces))
    analyses = {name: analyze_trace(traces / f, name) for name, f in TRACES.items()}
    out.mkdir(parents=True, exist_ok=True)
    for name, analysis in analyses.items():
        write_table(out / f"{name}.json", build_table(analysis, [analysis], COMMAND))
    combined = pool(list(analyses.values()), "combined")
    write_table(out / "combined.json", build_table(combined, list(analyses.values()), COMMAND))
    analyses["combined"] = combined
    if verbose:
        for name, a in analyses.items():
            s = a.summary()
            print(
                f"{name:9s} jobs={s['jobs']:6d} neg_think={s['negative_think_fraction']:.3f} "
                f"w1={s['width1_fraction']:.3f} w2={s['width2_fraction']:.3f} "
                f"mean_width={s['mean_batch_width']:.3f}"
            )
    return analyses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--traces",
        type=Path,
        default=os.environ.get("SITESIM_TRACES"),
        help="directory holding the SWF traces (default: $SITESIM_TRACES)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent.parent / "empirical",
        help="output directory (default: the repository's empirical/)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="do not print the summary")
    args = parser.parse_args(argv)
    if args.traces is None:
        parser.error("no trace directory: pass --traces or set SITESIM_TRACES")
    try:
        extract(Path(args.traces), args.out, verbose=not args.quiet)
    except InputError as exc:
        print(f"extract_empirical: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
