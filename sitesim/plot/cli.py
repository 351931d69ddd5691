"""``sitesim plot gantt|load SCHEDULE.swf [--from T] [--to T] -o FILE.png``."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

from sitesim.exits import run_command

_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


def _time(text: str) -> int:
    """Seconds of the trace's clock: ``3600``, or with a unit, ``90m``, ``2.5d``, ``1w``."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time (seconds, or a number with s, m, h, d or w)")
    return round(float(m.group(1)) * _UNITS[m.group(2)])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitesim plot",
        description="Pictures of an SWF schedule or trace (the simulator's own, or a log).",
    )
    sub = parser.add_subparsers(dest="kind", required=True, metavar="{gantt,load}")
    for kind, help_text in (
        ("gantt", "jobs as rectangles on processors over time, coloured by user"),
        ("load", "utilisation and queue length over time"),
    ):
        p = sub.add_parser(kind, help=help_text, description=help_text)
        p.add_argument("swf", metavar="SCHEDULE.swf", help="an SWF file (.swf or .swf.gz)")
        p.add_argument("--from", dest="start", type=_time, metavar="T",
                       help="window start, trace seconds or e.g. 10d (default: the first event)")
        p.add_argument("--to", dest="end", type=_time, metavar="T",
                       help="window end (default: the last event)")
        p.add_argument("-o", "--out", required=True, metavar="FILE.png", help="picture to write (.png, .svg, .pdf)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    def body() -> int:
        from sitesim.plot import draw
        from sitesim.workload.files import check_output

        check_output(args.out, [args.swf], field="--out")
        if args.kind == "gantt":
            n = draw.gantt(args.swf, args.out, args.start, args.end)
            print(f"sitesim plot: {n} jobs drawn into {args.out}")
        else:
            mean = draw.load(args.swf, args.out, args.start, args.end)
            print(f"sitesim plot: mean utilisation {mean:.3f} drawn into {args.out}")
        return 0

    return run_command("sitesim plot", body)


