"""``sitesim sweep``: run a parameter grid into a CSV, or summarize one.

    sitesim sweep --out runs.csv [--grid grid.toml] [--users 5,10,20] [--scheduler fcfs,easy]
                  [--replications 3] [--jobs N | --scheduler-address ADDR | --serial]
    sitesim sweep --summarize runs.csv [--metrics mean_wait,utilization] [--output FILE]

Flags override the same keys of the TOML grid. Exit status: 0 success, 1 some runs
failed (rerun to retry them), 2 usage error or bad input, 130 interrupted (rerun to
resume).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from sitesim.errors import InputError

from sitesim.exits import EXIT_FAILED, EXIT_OK, run_command
from sitesim.runs import options
from sitesim.schedulers.options import split_specs


def _list(convert: Callable[[str], Any], split: Callable[[str], list[str]] | None = None) -> Callable[[str], list[Any]]:
    """A comma-separated list; an empty item (``1,,2``, ``,``) is an error, not skipped.
    ``split`` cuts the text into items (default: at every comma)."""

    def parse(text: str) -> list[Any]:
        items = [item.strip() for item in text.split(",")] if split is None else split(text)
        if not all(items):
            raise argparse.ArgumentTypeError(f"empty value in the list {text!r}")
        try:
            return [convert(item) for item in items]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _nodes(text: str) -> int | str:
    return text if text == "trace" else options.option("nodes").kind.parse(text)


def _converter(o: options.Option) -> Callable[[str], Any]:
    """Text of one list item as the option reads it (``nodes`` also takes ``trace``)."""
    return _nodes if o.name == "nodes" else o.kind.parse


#: Grid flags: (name, converter, help): the grid's modes, then every sweepable option
#: (sitesim/runs/options.py), by its name and in its unit.
GRID_FLAGS: tuple[tuple[str, Callable[[str], Any], str], ...] = (
    ("mode", str, "site and/or replay (default site)"),
    *((o.name, _converter(o), options.describe(o) + (" ('trace' = the trace header's)" if o.name == "nodes" else ""))
      for o in options.OPTIONS if o.sweep),
)


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, with where to look, instead of the whole usage block
    (nine lines in which the error itself is easily missed)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _file(text: str) -> Path:
    """A file to write: an empty name would be the current directory."""
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a file name, got an empty one")
    return Path(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sitesim sweep",
        description="Run a grid of simulations in parallel into a tidy, resumable CSV"
        " (one row per run), or summarize replications with confidence intervals.",
        epilog="Lists are comma-separated. Docs: docs/sweeps.md.",
    )
    parser.add_argument("-o", "--out", type=_file, metavar="CSV", help="the results CSV (resumed if it exists)")
    parser.add_argument("--grid", type=Path, metavar="FILE", help="TOML grid (top level or [grid] table)")
    parser.add_argument("--site", metavar="NAME|TOML",
                        help="site runs start from this site (a shipped name or a site file; default paper's defaults)")
    for name, convert, text in GRID_FLAGS:
        # Policy specs keep their key=value parameters: multifactor:age=1,size=0 is one.
        items = _list(convert, split_specs if name == "scheduler" else None)
        parser.add_argument("--" + name.replace("_", "-"), dest=name, type=items,
                            metavar="LIST", help=text)
    parser.add_argument("--replications", type=int, metavar="N",
                        help="seeds s, s+1, ..., s+N-1 for each base seed s (default 1)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("-j", "--jobs", type=int, metavar="N", help="local worker processes (default: CPUs)")
    where.add_argument("--scheduler-address", metavar="ADDR", help="run on this dask.distributed scheduler")
    where.add_argument("--serial", action="store_true", help="run in this process, one at a time")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none anyway unless stderr is a terminal)")
    parser.add_argument("--summarize", type=_file, metavar="CSV",
                        help="print mean and confidence interval per configuration (over seeds)")
    parser.add_argument("--metrics", type=_list(str), metavar="LIST", help="--summarize: metrics to include")
    parser.add_argument("--confidence", type=float, help="--summarize: level (default 0.95)")
    parser.add_argument("--output", type=_file, metavar="FILE", help="--summarize: write here, not stdout")
    return parser


def grid_spec(args: argparse.Namespace) -> dict[str, Any]:
    """TOML grid, then flags given on the command line on top of it."""
    from sitesim.sweep.grid import load_grid_toml

    spec: dict[str, Any] = dict(load_grid_toml(args.grid)) if args.grid else {}
    for name, _, _ in GRID_FLAGS:
        value = getattr(args, name)
        if value is not None:
            spec[name] = value
    if args.replications is not None:
        spec["replications"] = args.replications
    if args.site is not None:
        spec["site"] = args.site
    return spec


def _summarize(args: argparse.Namespace) -> int:
    from sitesim.sweep.aggregate import summarize_csv
    from sitesim.sweep.run import ADAPTIVE_COLUMNS, METRIC_COLUMNS, PRODUCTIVITY_COLUMNS

    known = (*METRIC_COLUMNS, *ADAPTIVE_COLUMNS, *PRODUCTIVITY_COLUMNS)
    metrics = args.metrics or list(METRIC_COLUMNS)
    unknown = sorted(set(metrics) - set(known))
    if unknown:
        raise InputError(f"unknown metric(s) {', '.join(unknown)} (known: {', '.join(known)})",
                         field="--metrics")
    if args.confidence is None:
        args.confidence = 0.95
    if not 0 < args.confidence < 1:
        raise InputError(f"must be between 0 and 1, got {args.confidence}", field="--confidence")
    if not args.summarize.exists():
        raise InputError("no such file", path=str(args.summarize))
    if args.output is not None:
        from sitesim.workload.files import atomic_text_write, check_output

        check_output(args.output, [args.summarize], field="--output")
        with atomic_text_write(args.output) as out:
            groups = summarize_csv(args.summarize, out, metrics, args.confidence)
        print(f"# {groups} configurations written to {args.output}", file=sys.stderr)
    else:
        summarize_csv(args.summarize, sys.stdout, metrics, args.confidence)
    return EXIT_OK


def _check_out(out: Path, spec: dict[str, Any], grid: Path | None) -> None:
    """The CSV a sweep writes may not be one of its inputs: the grid, a trace, a site."""
    from sitesim.runs.policy import policy_files
    from sitesim.workload.files import check_output

    inputs: list[Any] = [grid]
    for name in ("trace", "site", "population", "empirical"):
        value = spec.get(name)
        inputs.extend(value if isinstance(value, (list, tuple)) else [value])
    schedulers = spec.get("scheduler")
    for scheduler in schedulers if isinstance(schedulers, (list, tuple)) else [schedulers]:
        if isinstance(scheduler, str):
            inputs.extend(policy_files(scheduler))
    check_output(out, [v for v in inputs if isinstance(v, (str, Path))], field="--out")


def _sweep(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from sitesim.sweep.executors import executor_for
    from sitesim.sweep.grid import grid_from_mapping
    from sitesim.sweep.runner import run_sweep

    if args.out is None:
        parser.error("give --out CSV (or --summarize CSV)")
    for flag, value in (("--metrics", args.metrics), ("--confidence", args.confidence),
                        ("--output", args.output)):
        if value is not None:
            parser.error(f"{flag} applies to --summarize only")
    spec = grid_spec(args)
    grid = grid_from_mapping(spec, origin=str(args.grid or "command line"))
    _check_out(args.out, spec, args.grid)
    executor = executor_for(args.scheduler_address, args.serial)
    # A bar only on a terminal: in a log file or a pipe it is thousands of lines of noise.
    progress = not args.no_progress and sys.stderr.isatty()
    report = run_sweep(grid, args.out, executor, jobs=args.jobs, progress=progress)
    print(f"# {report.total} runs: {report.existing} already in {args.out}, {report.ran} run now,"
          f" {len(report.failed)} failed", file=sys.stderr)
    if report.damaged:
        print(f"# {report.damaged} damaged rows of {args.out} were dropped and their runs redone"
              " (a metric cell was not a number)", file=sys.stderr)
    if report.upgraded:
        print(f"# {report.upgraded} rows of {args.out} were made before the productivity columns:"
              " kept, with those cells empty (use a new file to measure them)", file=sys.stderr)
    if report.stale:
        print(f"# {report.stale} rows of {args.out} made with another model (the model column) were"
              " dropped and their runs redone with the current one", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")

    if args.summarize is not None:
        given = [flag for flag, value in (
            ("--out", args.out), ("--grid", args.grid), ("--replications", args.replications), ("--site", args.site),
            *((f"--{name.replace('_', '-')}", getattr(args, name)) for name, _, _ in GRID_FLAGS),
        ) if value is not None]
        if given:
            parser.error(f"{given[0]} describes a sweep to run and is not used with --summarize"
                         " (its output file is --output)")

    def body() -> int:
        if args.summarize is not None:
            return _summarize(args)
        return _sweep(args, parser)

    return run_command("sitesim sweep", body, note="run the same command again to resume")
