"""``sitesim study``: compare schedulers on one site, end to end (docs/study.md).

    sitesim study --site SITE -s POLICY[,POLICY...] --seeds N [--users LIST]
                  [--duration DAYS] [--jobs N | --scheduler-address ADDR | --serial] -o DIR
    sitesim study --from DIR/study.toml [-o DIR2]

Exit status: 0 done, 1 some runs failed (run again to retry them), 2 bad input (one
line; nothing is written), 130/143 interrupted (run again to resume).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitesim.errors import InputError
from sitesim.exits import EXIT_FAILED, EXIT_OK, run_command
from sitesim.runs import options
from sitesim.schedulers.options import split_specs
from sitesim.study.config import SETTINGS


def _users(text: str) -> list[int]:
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"empty value in the list {text!r}")
    try:
        return [int(item) for item in items]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _policies(text: str) -> list[str]:
    items = split_specs(text)
    if not all(items):
        raise argparse.ArgumentTypeError(f"empty value in the list {text!r}")
    return items


def _setting(o: options.Option) -> Any:
    def parse(text: str) -> Any:
        try:
            return o.kind.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitesim study",
        description="Compare scheduling policies on one site: site-level runs over seeds, each"
        " policy's trace replayed under every other (what a conventional study would predict),"
        " and a self-contained report (results.csv, cross.csv, report.html, study.toml).",
        epilog="Docs: docs/study.md.",
    )
    parser.add_argument("--site", metavar="SITE", help="a shipped site (paper, measured, closed, ...),"
                        " a fitted site.toml, or a site file")
    parser.add_argument("-s", "--scheduler", dest="policies", type=_policies, metavar="POLICY[,POLICY...]",
                        help="the policies to compare (any specs, module:Class, key=value options)")
    parser.add_argument("--seeds", type=int, metavar="N", help="replications: seeds 0..N-1")
    parser.add_argument("--users", type=_users, metavar="LIST", help="user counts (default: the site's)")
    for name in SETTINGS:  # every other site-level option, set on the site (sitesim/runs/options.py)
        o = options.option(name)
        parser.add_argument(o.flag, dest=name, type=_setting(o), metavar=o.kind.metavar,
                            help=options.describe(o).replace("%", "%%") + " (default: the site's)")
    parser.add_argument("--from", dest="source", type=Path, metavar="STUDY_TOML",
                        help="rerun the study a study.toml describes (default output: its folder)")
    parser.add_argument("-o", "--out", type=Path, metavar="DIR", help="the study's folder (resumed if it exists)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("-j", "--jobs", type=int, metavar="N", help="local worker processes (default: CPUs)")
    where.add_argument("--scheduler-address", metavar="ADDR", help="run on this dask.distributed scheduler")
    where.add_argument("--serial", action="store_true", help="run in this process, one run at a time")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--figures", type=Path, metavar="DIR", help="also write the figures as DIR/study_*.png")
    return parser


def _study(args: argparse.Namespace) -> tuple[Any, Path, Path | None, dict[str, Any]]:
    """The study the arguments name, its output folder, where relative sites are read
    from, and what a ``--from`` file recorded (version, model; empty otherwise)."""
    from sitesim.study.config import StudyConfig, read_study_file, seeds_of, settings_of

    settings = {name: getattr(args, name) for name in SETTINGS if getattr(args, name) is not None}
    if args.source is not None:
        given = [flag for flag, value in (("--site", args.site), ("--scheduler", args.policies),
                                          ("--seeds", args.seeds), ("--users", args.users),
                                          *((options.option(n).flag, v) for n, v in settings.items()))
                 if value is not None]
        if given:
            raise InputError(f"{', '.join(given)}: the study comes from the file; give either", field="--from")
        study, recorded = read_study_file(args.source)
        return study, args.out if args.out is not None else args.source.parent, args.source.parent, recorded
    missing = [flag for flag, value in (("--site", args.site), ("-s", args.policies), ("--seeds", args.seeds),
                                        ("-o", args.out)) if value is None]
    if missing:
        raise InputError(f"missing {', '.join(missing)} (or --from STUDY_TOML)")
    try:
        stored = settings_of(settings)
    except InputError as exc:
        raise InputError(exc.message, field=options.option(exc.field or "").flag) from None
    study = StudyConfig(site=args.site, policies=args.policies, seeds=seeds_of(args.seeds),
                        users=args.users or (), settings=stored)
    return study, args.out, None, {}


def _check_folder(folder: Path) -> None:
    """A folder the study may write into: an existing folder, or one whose nearest
    existing parent is a folder (it is made when the figures are written)."""
    if folder.exists() and not folder.is_dir():
        raise InputError("exists and is not a folder", path=str(folder), field="--figures")
    parent = next((p for p in folder.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise InputError(f"cannot write: {parent} is not a folder", path=str(folder), field="--figures")


def differences(recorded: dict[str, Any], base: Any) -> str | None:
    """What differs between the model fingerprint and version a ``study.toml`` recorded
    and the current ones, as one warning line (None when nothing does).

    A rerun still runs: the sweeps drop rows of another model and run their points
    again, so the new rows carry the new fingerprint; but the person rerunning a study
    should know its results will not be the recorded ones."""
    from sitesim.version import __version__
    from sitesim.study.config import model_fingerprint

    now = {"model": model_fingerprint(base), "sitesim": __version__}
    then = {"model": recorded.get("model"), "sitesim": recorded.get("sitesim_version")}
    changed = [f"{key} {then[key]}, now {now[key]}" for key in now if then[key] is not None and then[key] != now[key]]
    if not changed:
        return None
    return (f"# sitesim study: warning: study.toml recorded {'; '.join(changed)}: runs of another model"
            " are made again, their rows carry the new fingerprint")


def _run(args: argparse.Namespace) -> int:
    from sitesim.study.build import check_outputs, prepare, run_study

    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"must be at least 1, got {args.jobs}", field="--jobs")
    study, out, base_dir, recorded = _study(args)
    if args.figures is not None:  # checked before the study runs, not after
        _check_folder(args.figures)
    prepared = prepare(study, out, base_dir=base_dir)
    check_outputs(prepared, out)
    warning = differences(recorded, prepared.base)
    if warning:
        print(warning, file=sys.stderr)
    from sitesim.sweep.executors import executor_for

    executor = executor_for(args.scheduler_address, args.serial)
    progress = not args.no_progress and sys.stderr.isatty()
    runs = run_study(prepared, out, executor, jobs=args.jobs, progress=progress, figures=args.figures)
    print(f"# sitesim study: {runs.describe()}", file=sys.stderr)
    if not runs.ok:
        for key, error in (*runs.sites.failed, *runs.replays.failed):
            print(f"# failed: {', '.join(c for c in key if c)}: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"# wrote {out}/results.csv, cross.csv, report.html, study.toml", file=sys.stderr)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    return run_command("sitesim study", lambda: _run(args), note="run the same command again to resume")
