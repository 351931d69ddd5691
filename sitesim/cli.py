"""The ``sitesim`` command, in the shape of the paper's SiteSim:

    sitesim [-d] [-c <swf> | [-u <#>] [-m <model>] [-w <pool>]] [-s <fcfs|easy>]

``-c`` replays a trace (conventional, open model); otherwise users are simulated
(site-level, closed loop). Exit status: 0 success, 2 usage error or bad input, 130/143
interrupted (SIGINT/SIGTERM), 141 standard output closed (see :mod:`sitesim.exits`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sitesim.version import __version__
from sitesim.limits import MAX_LOAD_FACTOR, MAX_SECONDS, MIN_LOAD_FACTOR, years
from sitesim.exits import EXIT_INPUT, EXIT_OK, run_command  # noqa: F401  (EXIT_INPUT: importers)


def _checked(
    convert: Callable[[str], Any], ok: Callable[[Any], bool], kind: str, rule: str
) -> Callable[[str], Any]:
    """An argparse ``type``: convert the text, then check it, with one-line messages."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{rule}, got {value}")
        return value

    return parse


_positive_int = _checked(int, lambda v: v >= 1, "a whole number", "must be at least 1")
_positive_float = _checked(
    float, lambda v: v > 0 and math.isfinite(v), "a number", "must be a positive finite number"
)
_load_factor = _checked(
    float, lambda v: MIN_LOAD_FACTOR <= v <= MAX_LOAD_FACTOR, "a number",
    f"must be a number in {MIN_LOAD_FACTOR:g}..{MAX_LOAD_FACTOR:g}",
)
_seed = _checked(int, lambda v: v >= 0, "a whole number", "seeds are non-negative")
_days = _checked(
    float, lambda v: 0 < v <= MAX_SECONDS / 86_400, "a number",
    f"must be a positive number of days, at most {MAX_SECONDS // 86_400} ({years(MAX_SECONDS)})",
)
_fraction = _checked(
    float, lambda v: 0 <= v <= 1 and math.isfinite(v), "a number", "must be a fraction in [0, 1]"
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose costly help texts are written only when help is shown.

    Why: some help lists a registry whose module imports numpy (the moldable request
    policies); building that text for every run would put numpy on the start-up of a
    plain trace replay, which otherwise never loads it (docs/performance.md).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._late_help: list[tuple[argparse.Action, Callable[[], str]]] = []

    def add_late_help(self, action: argparse.Action, text: Callable[[], str]) -> None:
        """Set ``action``'s help to ``text()`` when the help is first formatted."""
        self._late_help.append((action, text))

    def format_help(self) -> str:
        for action, text in self._late_help:
            action.help = text()
        self._late_help.clear()
        return super().format_help()


def _moldable_policy_help() -> str:
    from sitesim.moldable.gas import REQUEST_POLICIES

    return f"how moldable jobs choose their size (default gas). {REQUEST_POLICIES.help()}".replace("%", "%%")


def _add_moldable_arguments(parser: _Parser) -> None:
    """Moldable jobs (docs/moldable.md): replay replacement and adaptive users."""
    parser.add_argument(
        "--moldable", type=_fraction, metavar="FRACTION",
        help="replay only: replace this share of the jobs by moldable ones sized at"
        " submission by --moldable-policy (docs/moldable.md)",
    )
    policy = parser.add_argument("--moldable-policy", metavar="POLICY")
    parser.add_late_help(policy, _moldable_policy_help)
    parser.add_argument(
        "--moldable-table", metavar="CSV",
        help="replay with --moldable: measured applications (application,processors,runtime)"
        " instead of Downey's model",
    )
    parser.add_argument(
        "--slice-days", type=_positive_float, metavar="DAYS",
        help="replay with --moldable: replay the log in slices of DAYS days (the paper: 30)",
    )
    parser.add_argument(
        "--adaptive", type=_fraction, metavar="FRACTION",
        help="site-level: this share of the users submit moldable jobs sized by"
        " --moldable-policy (docs/moldable.md)",
    )


def build_parser() -> argparse.ArgumentParser:
    from sitesim.runs.policy import policy_help
    from sitesim.workload.estimates import estimate_models

    # Summaries are plain text; argparse would read a '%' in them as a format directive.
    schedulers = policy_help()
    estimates = "; ".join(f"{n}: {c.summary}" for n, c in sorted(estimate_models().items()))
    schedulers, estimates = schedulers.replace("%", "%%"), estimates.replace("%", "%%")
    parser = _Parser(
        prog="sitesim",
        usage="sitesim [-d] [-c <swf> | [-u <#>] [-m <model>] [-w <pool>]] [-s <policy>] [options]",
        description=(
            "Site-level simulation of a parallel-job scheduler: simulated users submit "
            "batches of jobs and wait for them, so the workload reacts to the scheduler. "
            "With -c, replay an SWF trace instead (conventional open-model simulation)."
        ),
        epilog="Exit status: 0 success, 2 usage error or bad input. Docs: docs/ in the source tree.",
    )
    parser.add_argument("-d", "--debug", action="store_true", help="print every job event to stderr")
    parser.add_argument(
        "-c", "--conventional", metavar="SWF",
        help="replay this SWF trace (.swf or .swf.gz) in the open model",
    )
    parser.add_argument("-u", "--users", type=_positive_int, metavar="N", help="number of users (default 10)")
    parser.add_argument("-m", "--submittal", metavar="MODEL", help="users' submittal model (default batch)")
    parser.add_argument("-w", "--workpool", metavar="POOL", help="users' workpool model (default plain)")
    parser.add_argument(
        "-s", "--scheduler", metavar="POLICY",
        help=f"scheduling policy (default fcfs). {schedulers}",
    )
    parser.add_argument(
        "--estimates", metavar="MODEL",
        help=f"runtime estimates (default: trace in replay, exact otherwise). {estimates}",
    )
    parser.add_argument(
        "--nodes", type=_positive_int, metavar="N",
        help="machine size (default 128; in replay the trace header's MaxProcs/MaxNodes)",
    )
    parser.add_argument(
        "--load-factor", type=_load_factor, default=1.0, metavar="X",
        help="replay only: multiply inter-arrival times by 1/X (X > 1 raises the load)",
    )
    parser.add_argument(
        "--feedback", nargs="?", const="absolute", choices=("absolute", "gap"), metavar="STARTS",
        help="replay only: replay with feedback -- each batch waits for the batch its user"
        " waited for, then the recorded think time; session starts keep their recorded"
        " times (absolute, the default) or their gap after the previous batch (gap)"
        " (docs/feedback-replay.md)",
    )
    parser.add_argument(
        "--skip-malformed", action="store_true",
        help="replay only: skip and count malformed SWF lines instead of stopping",
    )
    parser.add_argument(
        "--partitions", type=Path, metavar="TOML",
        help="split the machine into the [[partitions]] of this TOML file (e.g."
        " models/partitions.toml; other keys ignored), each with its own queue and policy;"
        " replaces -s, and the machine size is their total (docs/partitions.md)",
    )
    parser.add_argument(
        "--failures", choices=("trace", "none"), metavar="MODE",
        help="replay only: trace (default) replays status-0 jobs as failing at their recorded"
        " runtime; none counts them as completed (docs/failures.md)",
    )
    parser.add_argument("--seed", type=_seed, help="random seed, a non-negative integer (default 0)")
    parser.add_argument(
        "--site", metavar="NAME|TOML",
        help="site-level: a shipped site by name (paper, the default; measured; closed;"
        " partitions) or a site file; other options override it (docs/fidelity.md)",
    )
    parser.add_argument(
        "--duration", type=_days, metavar="DAYS",
        help="site-level: simulated days (default 365; unlimited with --jobs alone)",
    )
    parser.add_argument(
        "--jobs", type=_positive_int, metavar="N",
        help="site-level: stop submitting after N jobs (and run until they end)",
    )
    parser.add_argument(
        "--empirical", metavar="NAME",
        help="site-level: empirical tables from empirical/NAME.json (default combined)",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR",
        help="write summary.json, stats.txt and the SWF schedule/trace into DIR",
    )
    _add_moldable_arguments(parser)
    parser.add_argument("--version", action="version", version=f"sitesim {__version__}")
    return parser


def _replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from sitesim.runs.output import SYSTEM_HEADER
    from sitesim.runs.replay import ReplayConfig, run_replay
    from sitesim.schedulers.partitioned import PARTITIONED

    for flag, value in (
        ("-u", args.users), ("-m", args.submittal), ("-w", args.workpool), ("--site", args.site),
        ("--duration", args.duration), ("--jobs", args.jobs), ("--empirical", args.empirical),
        ("--adaptive", args.adaptive),
    ):
        if value is not None:
            parser.error(f"{flag} describes simulated users and cannot be combined with -c")
    if args.moldable is None:
        for flag, value in (("--moldable-table", args.moldable_table), ("--slice-days", args.slice_days)):
            if value is not None:
                parser.error(f"{flag} applies with --moldable only")
    partitions: tuple[Any, ...] = ()
    if args.partitions is not None:  # site files (and their TOML parser) only when asked for
        from sitesim.runs.policy import load_partitions

        partitions = load_partitions(args.partitions)
    config = ReplayConfig(
        trace=args.conventional,
        scheduler=args.scheduler or (PARTITIONED if partitions else "fcfs"),
        partitions=partitions,
        failures=args.failures or "trace",
        estimates=args.estimates or "trace",
        nodes=args.nodes,
        load_factor=args.load_factor,
        seed=args.seed or 0,
        skip_malformed=args.skip_malformed,
        feedback=args.feedback,
    )
    if args.moldable is not None:
        from sitesim.experiments.moldable import run_replay_command

        return run_replay_command(args, config)
    started = time.perf_counter()
    result = run_replay(config, out=args.out, debug=args.debug)
    elapsed = time.perf_counter() - started
    counts = result.counts
    print(SYSTEM_HEADER)
    print(result.system_line())
    s = result.summary
    print(
        f"# {counts['submitted']} jobs replayed on {result.nodes} nodes in {elapsed:.2f} s;"
        f" skipped: {counts['unknown']} unknown size/runtime, {counts['too_large']} larger"
        f" than the machine, {counts['unroutable']} fitting no partition,"
        f" {counts['malformed']} malformed lines; killed at estimate: {s['killed']},"
        f" failed: {s['failed']}"
    )
    print(
        f"# offered load {s['offered_load']:.3f}, accepted load {s['accepted_load']:.3f},"
        f" utilisation {s['utilization']:.3f}, throughput {s['throughput_per_day']:.1f} jobs/day,"
        f" mean bounded slowdown {s['mean_bounded_slowdown']:.2f}"
    )
    v = result.violations
    print(
        f"# dependency violations (docs/violations.md): submission {v['submission']}"
        f" ({v['submission_fraction']:.2%}), execution ordering {v['execution']}"
        f" ({v['execution_fraction']:.2%}) of {v['jobs']} jobs;"
        f" {v['no_dependency']} without a dependency, {v['unresolved']} naming a job not replayed"
    )
    if result.feedback:
        f = result.feedback
        print(
            f"# feedback (docs/feedback-replay.md), dependencies from {f['source']}:"
            f" {f['dependent_batches']} of {f['batches']} batches ({f['dependent_jobs']} jobs)"
            f" waited for their user's previous batch; {f['root_batches']} at recorded times"
            f" ({f['session_start_batches']} session starts, {f['overlapping_session_starts']}"
            f" of them while the previous batch was unfinished)"
        )
    _print_partitions(result.partitions)
    return EXIT_OK


def _site_level(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from sitesim.runs.site import DAY, run_site
    from sitesim.runs.sitefile import load_site_file, site_config, site_path

    if (
        args.load_factor != 1.0 or args.skip_malformed or args.failures is not None
        or args.feedback is not None
    ):
        parser.error(
            "--load-factor, --skip-malformed, --failures and --feedback apply to trace replay (-c) only"
        )
    if args.moldable is not None or args.moldable_table is not None or args.slice_days is not None:
        parser.error("--moldable, --moldable-table and --slice-days apply to trace replay (-c) only")
    base = load_site_file(args.site) if args.site is not None else {}
    from_flags: dict[str, Any] = {}
    if args.partitions is not None:  # replaces the site file's partitions or scheduler
        from sitesim.runs.policy import load_partitions
        from sitesim.schedulers.partitioned import PARTITIONED, total_nodes

        from_flags["partitions"] = load_partitions(args.partitions)
        from_flags["scheduler"] = PARTITIONED
        from_flags["nodes"] = total_nodes(from_flags["partitions"])
    elif args.scheduler is not None and "nodes" not in base:
        from sitesim.runs.policy import machine_nodes

        declared = machine_nodes(args.scheduler, None)  # -s partitioned:FILE, as --partitions FILE
        if declared is not None:
            from_flags["nodes"] = declared
    overrides: dict[str, Any] = {
        "users": args.users,
        "submittal": args.submittal,
        "workpool": args.workpool,
        "scheduler": args.scheduler,
        "estimates": args.estimates,
        "nodes": args.nodes,
        "seed": args.seed,
        "empirical": args.empirical,
        "max_jobs": args.jobs,
        "adaptive": args.adaptive,
        "moldable_policy": args.moldable_policy,
    }
    if args.duration is not None:
        overrides["duration"] = round(args.duration * DAY)
    elif args.jobs is not None and "duration" not in base:
        base["duration"] = None
    for key, value in from_flags.items():
        if overrides.get(key) is None:
            overrides[key] = value
    origin = str(site_path(args.site)) if args.site is not None else None
    config = site_config(base, overrides, origin=origin)
    started = time.perf_counter()
    result = run_site(config, out=args.out, debug=args.debug)
    elapsed = time.perf_counter() - started
    for line in result.table():
        print(line)
    s = result.summary
    print(
        f"# {s['submitted']} jobs submitted, {s['completed']} completed"
        f" ({s['unfinished_queued']} queued and {s['unfinished_running']} running at the end)"
        f" in {s['makespan'] / DAY:.1f} simulated days; simulated in {elapsed:.2f} s"
    )
    print(
        f"# throughput {s['throughput_per_day']:.1f} jobs/day, utilisation {s['utilization']:.3f},"
        f" mean wait {s['mean_wait']:.0f} s, mean response {s['mean_response']:.0f} s,"
        f" mean bounded slowdown {s['mean_bounded_slowdown']:.2f}, killed {s['killed']},"
        f" failed {s['failed']}"
    )
    _print_partitions(s.get("partitions", {}))
    if "adaptive" in s:
        a = s["adaptive"]
        rigid = "" if a["rigid_mean_wait"] is None else f"; the {a['rigid_users']} rigid users' mean wait {a['rigid_mean_wait']:.0f} s"
        turnaround = "none completed" if a["mean_turnaround"] is None else f"mean turn-around {a['mean_turnaround']:.0f} s"
        print(f"# adaptive users ({config.moldable_policy}): {a['users']}, {turnaround}{rigid}")
    return EXIT_OK


def _print_partitions(partitions: dict[str, dict[str, object]]) -> None:
    for name, p in partitions.items():
        print(
            f"# partition {name}: {p['nodes']} nodes, {p['scheduler']}, {p['routed']} jobs routed,"
            f" {p['started']} started, mean wait {p['mean_wait']:.0f} s,"
            f" utilisation {p['utilization']:.3f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["sweep"]:
        from sitesim.sweep.cli import main as sweep_main

        return sweep_main(argv[1:])
    if argv[:1] == ["plot"]:
        from sitesim.plot.cli import main as plot_main

        return plot_main(argv[1:])
    if argv[:1] == ["fit"]:
        from sitesim.runs.fit import main as fit_main

        return fit_main(argv[1:])
    if argv[:1] == ["study"]:
        from sitesim.study.cli import main as study_main

        return study_main(argv[1:])
    if argv[:1] == ["convert"]:
        from sitesim.workload.convert import main as convert_main

        return convert_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)

    def body() -> int:
        if args.conventional is not None:
            return _replay(args, parser)
        return _site_level(args, parser)

    return run_command("sitesim", body)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
