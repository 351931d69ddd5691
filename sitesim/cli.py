"""The ``sitesim`` command, in the shape of the paper's SiteSim:

    sitesim [-d] [-c <swf> | [-u <#>] [-m <model>] [-w <pool>]] [-s <policy>] [options]
    sitesim {fit,sweep,study,plot,convert} ...

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
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from sitesim.errors import InputError
from sitesim.runs import options
from sitesim.version import __version__
from sitesim.exits import EXIT_INPUT, EXIT_OK, run_command  # noqa: F401  (EXIT_INPUT: importers)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (0 <= value <= 1 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a fraction in [0, 1], got {value}")
    return value


#: The subcommands: name, module whose ``main(argv)`` runs it, and its one-line summary
#: (``sitesim -h`` lists them; each has its own ``-h``).
COMMANDS: dict[str, tuple[str, str]] = {
    "fit": ("sitesim.runs.fit", "fit a living population and its site to an SWF log"),
    "sweep": ("sitesim.sweep.cli", "run a parameter grid into a resumable CSV, or summarize one"),
    "study": ("sitesim.study.cli", "compare policies on one site: site-level runs, replays, a report"),
    "plot": ("sitesim.plot.cli", "draw a schedule (gantt) or its load over time"),
    "convert": ("sitesim.workload.convert", "convert Slurm accounting (sacct) to SWF"),
}


def _option_type(o: options.Option) -> Callable[[str], Any]:
    """An argparse ``type`` from an option's kind: read the text, then check it in the
    option's unit, so a bad value is a one-line usage error naming the flag."""

    def parse(text: str) -> Any:
        try:
            value = o.kind.parse(text)
            o.convert(value)  # checked now; converted when the configuration is built
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.message) from None
        return value

    parse.__name__ = o.name  # argparse names the type in some messages
    return parse


def add_option_arguments(parser: argparse.ArgumentParser, mode: str | None = None) -> None:
    """One flag per declared run option (:mod:`sitesim.runs.options`): name, unit, help
    and checks from the declaration. Every default is None, so that a flag not given
    leaves the site file's or the mode's own default in place."""
    for o in options.options(mode):
        flags = [*([o.short] if o.short else []), o.flag, *("--" + a.replace("_", "-") for a in o.aliases
                                                            if not a.endswith("_days"))]
        text = options.describe(o).replace("%", "%%")
        if isinstance(o.kind, options.Switch):
            parser.add_argument(*flags, dest=o.name, action="store_true", default=None, help=text)
            continue
        extra: dict[str, Any] = {} if o.const is None else {"nargs": "?", "const": o.const}
        action = parser.add_argument(*flags, dest=o.name, type=_option_type(o), metavar=o.kind.metavar,
                                     help=text, **extra)
        if o.name in _LATE_HELP:
            parser.add_late_help(action, _LATE_HELP[o.name])  # type: ignore[attr-defined]


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


def _scheduler_help() -> str:
    from sitesim.runs.policy import policy_help

    return f"{options.describe(options.option('scheduler'))}. {policy_help()}".replace("%", "%%")


def _estimates_help() -> str:
    from sitesim.workload.estimates import estimate_models

    models = "; ".join(f"{n}: {c.summary}" for n, c in sorted(estimate_models().items()))
    return f"{options.describe(options.option('estimates'))}. {models}".replace("%", "%%")


def _moldable_policy_help() -> str:
    from sitesim.moldable.gas import REQUEST_POLICIES

    described = options.describe(options.option("moldable_policy"))
    return f"{described}; with --moldable in a replay too. {REQUEST_POLICIES.help()}".replace("%", "%%")


#: Help texts that list a registry, written only when help is shown (see _Parser).
_LATE_HELP: dict[str, Callable[[], str]] = {
    "scheduler": _scheduler_help, "estimates": _estimates_help, "moldable_policy": _moldable_policy_help,
}


def _add_moldable_arguments(parser: _Parser) -> None:
    """The moldable-replacement experiment of a replay (docs/moldable.md): settings of
    that experiment, not run options, so they are not in the declaration."""
    parser.add_argument(
        "--moldable", type=_fraction, metavar="FRACTION",
        help="replay only: replace this share of the jobs by moldable ones sized at"
        " submission by --moldable-policy (docs/moldable.md)",
    )
    parser.add_argument(
        "--moldable-table", metavar="CSV",
        help="replay with --moldable: measured applications (application,processors,runtime)"
        " instead of Downey's model",
    )
    parser.add_argument(
        "--slice-days", type=_positive_float, metavar="DAYS",
        help="replay with --moldable: replay the log in slices of DAYS days (the paper: 30)",
    )


def _commands_help() -> str:
    width = max(map(len, COMMANDS))
    return "commands (each with its own -h):\n" + "\n".join(
        f"  sitesim {name:<{width}}  {summary}" for name, (_module, summary) in COMMANDS.items()
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sitesim",
        usage="sitesim [-d] [-c <swf> | [-u <#>] [-m <model>] [-w <pool>]] [-s <policy>] [options]\n"
        "       sitesim {" + ",".join(COMMANDS) + "} ...",
        description=(
            "Site-level simulation of a parallel-job scheduler: simulated users submit "
            "batches of jobs and wait for them, so the workload reacts to the scheduler. "
            "With -c, replay an SWF trace instead (conventional open-model simulation)."
        ),
        epilog=_commands_help() + "\n\nExit status: 0 success, 2 usage error or bad input."
        " Docs: docs/index.md in the source tree.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-d", "--debug", action="store_true", help="print every job event to stderr")
    add_option_arguments(parser)
    parser.add_argument(
        "--partitions", type=Path, metavar="TOML",
        help="split the machine into the [[partitions]] of this TOML file (e.g."
        " models/partitions.toml; other keys ignored), each with its own queue and policy;"
        " replaces -s, and the machine size is their total (docs/partitions.md)",
    )
    parser.add_argument(
        "--site", metavar="NAME|TOML",
        help="site-level: a shipped site by name (paper, the default; measured; closed;"
        " partitions) or a site file; other options override it (docs/fidelity.md); with -c,"
        " only its machine and policy (a fitted site's service, docs/service.md)",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR",
        help="write summary.json, stats.txt and the SWF schedule/trace into DIR",
    )
    _add_moldable_arguments(parser)
    parser.add_argument("--version", action="version", version=f"sitesim {__version__}")
    return parser


def _given(args: argparse.Namespace, mode: str) -> dict[str, Any]:
    """The run options given on the command line, as a person gave them (days), checked
    against the mode: an option of the other kind of run is a usage error."""
    given = {o.name: getattr(args, o.name) for o in options.OPTIONS if getattr(args, o.name) is not None}
    for name in given:
        o = options.option(name)
        if mode not in o.modes and not (name == "moldable_policy" and args.moldable is not None):
            flag = o.short or o.flag
            if mode == options.REPLAY:
                raise _Usage(f"{flag} describes simulated users and cannot be combined with -c")
            raise _Usage(f"{flag} applies to trace replay (-c) only")
    return given


def _partitions(args: argparse.Namespace, given: dict[str, Any]) -> None:
    """``--partitions FILE`` names the policy that owns a site file's ``[[partitions]]``
    table (``partitioned:FILE``), as a site file holding that table does."""
    if args.partitions is None:
        return
    from sitesim.schedulers.base import available

    (policy,) = [name for name, cls in available().items() if cls.site_table == "partitions"]
    if "scheduler" in given:
        raise InputError(f"scheduler {given['scheduler']!r} given with partitions: each partition sets its own"
                         " policy", field="--scheduler")
    given["scheduler"] = f"{policy}:{args.partitions}"


class _Usage(Exception):
    """A usage error found after parsing (printed by the parser, exit 2)."""


def _stored(given: dict[str, Any], mode: str) -> dict[str, Any]:
    """Stored values (seconds) of the given options; errors name the flag."""
    try:
        return options.from_person({k: v for k, v in given.items() if k != "moldable_policy" or mode == options.SITE},
                                   mode)
    except InputError as exc:
        o = options.option(exc.field or "")
        raise InputError(exc.message, field=o.flag) from None


def _replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from sitesim.runs.output import SYSTEM_HEADER
    from sitesim.runs.replay import ReplayConfig, run_replay

    if args.moldable is None:
        for flag, value in (("--moldable-table", args.moldable_table), ("--slice-days", args.slice_days)):
            if value is not None:
                parser.error(f"{flag} applies with --moldable only")
    given = _stored(_given(args, options.REPLAY), options.REPLAY)
    _partitions(args, given)
    origin = None
    taken: set[str] = set()
    if args.site is not None:  # the site's machine and policy (a fitted site's service)
        from sitesim.runs.sitefile import load_site_file, replay_on_site, site_path

        on_site = replay_on_site(load_site_file(args.site), given)
        taken = set(on_site) - set(given)
        given = on_site
        origin = str(site_path(args.site))
    try:
        config = ReplayConfig(**given)
    except InputError as exc:
        from sitesim.runs.sitefile import flag_of

        raise InputError(exc.message, path=exc.path, line=exc.line, field=flag_of(exc.field or "")) from None
    _check_out(args, [config.trace, args.moldable_table, origin], config.scheduler)
    if args.moldable is not None:
        from sitesim.experiments.moldable import run_replay_command

        return run_replay_command(args, config)
    started = time.perf_counter()
    blamed: AbstractContextManager[None] = nullcontext()
    if origin is not None:  # a value the site gave is blamed on the site (sitefile only then: it is heavy)
        from sitesim.runs.sitefile import blamed_on_site

        blamed = blamed_on_site(origin, taken)
    with blamed:
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

    if args.moldable is not None or args.moldable_table is not None or args.slice_days is not None:
        parser.error("--moldable, --moldable-table and --slice-days apply to trace replay (-c) only")
    base = load_site_file(args.site) if args.site is not None else {}
    overrides = _stored(_given(args, options.SITE), options.SITE)
    _partitions(args, overrides)  # replaces the site file's partitions or scheduler
    origin = str(site_path(args.site)) if args.site is not None else None
    config = site_config(base, overrides, origin=origin)
    empirical = config.empirical if config.empirical.endswith(".json") else None
    _check_out(args, [origin, config.population, empirical], config.scheduler)
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
    if s["submitted"] == 0:  # a run that measured nothing says why, instead of a row of zeros
        fitted = " (a fitted population's users arrive when they did in the log)" if config.population else ""
        span = "the run" if config.duration is None else f"{config.duration / DAY:g} simulated days"
        print(f"# note: no job was submitted in {span}: no user arrived and"
              f" submitted in that time{fitted}; give a longer --duration or more --users")
    _print_partitions(s.get("partitions", {}))
    if "adaptive" in s:
        a = s["adaptive"]
        rigid = "" if a["rigid_mean_wait"] is None else f"; the {a['rigid_users']} rigid users' mean wait {a['rigid_mean_wait']:.0f} s"
        turnaround = "none completed" if a["mean_turnaround"] is None else f"mean turn-around {a['mean_turnaround']:.0f} s"
        print(f"# adaptive users ({config.moldable_policy}): {a['users']}, {turnaround}{rigid}")
    return EXIT_OK


def _check_out(args: argparse.Namespace, inputs: list[str | None], scheduler: str) -> None:
    """``--out DIR`` is replaced whole: it may not be, or hold, one of the run's inputs
    (``-c DIR/schedule.swf --out DIR``), nor a file the policy reads."""
    if args.out is None:
        return
    from sitesim.runs.policy import policy_files
    from sitesim.workload.files import check_output

    check_output(args.out, [*inputs, *policy_files(scheduler)], field="--out", folder=True)


def _print_partitions(partitions: dict[str, dict[str, object]]) -> None:
    for name, p in partitions.items():
        print(
            f"# partition {name}: {p['nodes']} nodes, {p['scheduler']}, {p['routed']} jobs routed,"
            f" {p['started']} started, mean wait {p['mean_wait']:.0f} s,"
            f" utilisation {p['utilization']:.3f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in COMMANDS:
        import importlib

        command: Callable[[list[str]], int] = importlib.import_module(COMMANDS[argv[0]][0]).main
        return command(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)

    def body() -> int:
        try:
            if args.trace is not None:
                return _replay(args, parser)
            return _site_level(args, parser)
        except _Usage as exc:
            parser.error(str(exc))

    return run_command("sitesim", body)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
