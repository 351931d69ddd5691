"""``sitesim convert sacct FILE -o OUT.swf``: other accounting formats to SWF.

Only Slurm's ``sacct`` so far (:mod:`sitesim.workload.sacct`). The output is written
all-or-nothing, and so is the optional mapping of names to numbers beside it
(``OUT.mapping.csv``: users, groups and partitions), so a failed conversion leaves
neither behind. The result is an SWF log like the archive's: ``sitesim fit OUT.swf``
fits it and ``sitesim -c OUT.swf`` replays it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from attrs import define

from sitesim.errors import InputError
from sitesim.exits import run_command
from sitesim.limits import MAX_NODES
from sitesim.workload.files import atomic_text_write, check_output
from sitesim.workload.sacct import SacctCounts, SacctJob, SacctReader, swf_record, zone_of
from sitesim.workload.swf import write_swf
from sitesim.version import __version__


@define(slots=True, frozen=True)
class Converted:
    """What a conversion wrote."""

    jobs: int
    users: int
    counts: SacctCounts
    zone: str
    offset: int
    mapping: Path | None


def _numbering(values: Sequence[str]) -> dict[str, int]:
    """1, 2, ... in order of first appearance; an empty name stays unknown (-1)."""
    numbers: dict[str, int] = {}
    for v in values:
        if v and v not in numbers:
            numbers[v] = len(numbers) + 1
    return numbers


def mapping_path(out: Path) -> Path:
    """Where the names behind the numbers go: beside ``out``."""
    return out.with_name(out.name + ".mapping.csv")


def convert_sacct(
    source: str | Path,
    out: str | Path,
    *,
    timezone: str = "UTC",
    max_procs: int | None = None,
    max_nodes: int | None = None,
    mapping: bool = False,
    skip_malformed: bool = False,
) -> Converted:
    """Convert sacct output at ``source`` into the SWF file ``out`` (see the module docs)."""
    zone = zone_of(timezone)
    src, dst = Path(source), Path(out)
    reader = SacctReader(src, zone, skip_malformed=skip_malformed)
    jobs = reader.jobs()
    counts = reader.counts
    if not jobs:
        what = f"{counts.steps} steps" + (f", {counts.malformed} malformed lines skipped" if counts.malformed else "")
        raise InputError(f"no jobs to convert (only {what})", path=str(src))
    users = _numbering([j.user for j in jobs])
    groups = _numbering([j.group for j in jobs])
    queues = _numbering([j.partition for j in jobs])
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
    origin = round(jobs[order[0]].submit)
    records = [
        swf_record(jobs[i], n, origin, users.get(jobs[i].user, -1), groups.get(jobs[i].group, -1),
                   queues.get(jobs[i].partition, -1))
        for n, i in enumerate(order, 1)
    ]
    start = datetime.fromtimestamp(origin, zone)
    offset = int(start.utcoffset().total_seconds())  # type: ignore[union-attr]
    header = _header(src, jobs, records_count=len(records), origin=origin, start=start, offset=offset,
                     zone=timezone, max_procs=max_procs, max_nodes=max_nodes, queues=queues, counts=counts)
    written: Path | None = None
    try:
        write_swf(dst, records, header)
        if mapping:
            written = mapping_path(dst)
            with atomic_text_write(written) as handle:
                handle.write("kind,name,number\n")
                for kind, names in (("user", users), ("group", groups), ("partition", queues)):
                    for name, number in names.items():
                        handle.write(f"{kind},{_csv(name)},{number}\n")
    except OSError as exc:  # name the path the user gave, not the staging file
        dst.unlink(missing_ok=True)
        raise InputError(f"cannot write: {exc.strerror or exc}", path=str(written or dst)) from None
    except BaseException:
        dst.unlink(missing_ok=True)
        raise
    return Converted(len(records), len(users), counts, timezone, offset, written)


def _csv(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


def _header(
    src: Path, jobs: list[SacctJob], *, records_count: int, origin: int, start: datetime, offset: int,
    zone: str, max_procs: int | None, max_nodes: int | None, queues: dict[str, int], counts: SacctCounts,
) -> list[str]:
    largest_procs = max((max(j.alloc, j.requested) for j in jobs), default=-1)
    largest_nodes = max((j.nodes for j in jobs), default=-1)
    procs = max_procs or (largest_procs if largest_procs > 0 else None)
    nodes = max_nodes or (largest_nodes if largest_nodes > 0 else None)
    states = ", ".join(f"{s} {n}" for s, n in sorted(counts.by_state.items()))
    lines = [
        "; Version: 2.2",
        f"; Conversion: sitesim convert sacct {src.name} (sitesim {__version__})",
        f"; MaxJobs: {records_count}",
        f"; MaxRecords: {records_count}",
        f"; UnixStartTime: {origin}",
        f"; TimeZone: {offset}",
        f"; TimeZoneString: {zone}",
        f"; StartTime: {start.isoformat()}",
        *([f"; MaxNodes: {min(nodes, MAX_NODES)}"] if nodes else []),
        *([f"; MaxProcs: {min(procs, MAX_NODES)}"] if procs else []),
    ]
    guessed = [name for name, given, value in (("MaxProcs", max_procs, procs), ("MaxNodes", max_nodes, nodes))
               if value and not given]
    if guessed:
        lines.append(
            f"; Note: {' and '.join(guessed)} from the largest job (no --max-procs/--max-nodes): the machine may be larger"
        )
    if queues:
        lines.append(f"; MaxQueues: {len(queues)}")
        lines += [f"; Queue: {number} {name}" for name, number in queues.items()]
        lines.append("; Note: queues are the Slurm partitions the jobs ran in (or asked for first)")
    lines.append(
        f"; Note: from Slurm accounting: {counts.steps} steps skipped, {counts.array_tasks} array tasks,"
        f" {counts.het_components} heterogeneous components merged; states {states};"
        " users and groups numbered in order of appearance"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="sitesim convert",
        description="Convert accounting records into an SWF log that sitesim fit and sitesim -c read.",
        epilog="Exit status: 0 success, 2 bad input. Docs: docs/population.md (fit your own Slurm site).",
    )
    sub = parser.add_subparsers(dest="kind", required=True, metavar="{sacct}")
    p = sub.add_parser(
        "sacct", help="Slurm accounting: sacct --allusers --parsable2 --format ... output",
        description="Convert the output of sacct --allusers --parsable2 --format JobID,User,Group,Partition,"
        "Submit,Start,End,Timelimit,AllocCPUS,ReqCPUS,NNodes,State into SWF (docs/population.md).",
    )
    p.add_argument("file", metavar="FILE", help="sacct output (plain or gzip)")
    p.add_argument("-o", "--out", required=True, type=Path, metavar="OUT.swf", help="SWF file to write (.swf or .swf.gz)")
    p.add_argument("--timezone", default="UTC", metavar="ZONE",
                   help="IANA zone sacct printed its times in (the cluster's, or $TZ when sacct ran; default UTC)")
    p.add_argument("--max-procs", type=int, metavar="N", help="the machine's CPUs for the header (default: the largest job's)")
    p.add_argument("--max-nodes", type=int, metavar="N", help="the machine's nodes for the header (default: the largest job's)")
    p.add_argument("--mapping", action="store_true", help="also write OUT.swf.mapping.csv: the names behind user, group and queue numbers")
    p.add_argument("--skip-malformed", action="store_true", help="skip and count malformed lines instead of stopping")
    args = parser.parse_args(argv)
    for flag, value in (("--max-procs", args.max_procs), ("--max-nodes", args.max_nodes)):
        if value is not None and not 1 <= value <= MAX_NODES:
            p.error(f"{flag} must be a whole number in 1..{MAX_NODES}, got {value}")

    def body() -> int:
        check_output(args.out, [args.file], field="--out")
        if args.mapping:
            check_output(mapping_path(args.out), [args.file], field="--mapping")
        done = convert_sacct(
            args.file, args.out, timezone=args.timezone, max_procs=args.max_procs, max_nodes=args.max_nodes,
            mapping=args.mapping, skip_malformed=args.skip_malformed,
        )
        c = done.counts
        print(
            f"# converted {done.jobs} jobs of {done.users} users into {args.out}: {c.steps} steps skipped,"
            f" {c.array_tasks} array tasks, {c.het_components} heterogeneous components merged,"
            f" {c.malformed} malformed lines skipped; time zone {done.zone} (UTC{done.offset / 3600:+g} at the"
            " first submission)"
        )
        if done.mapping is not None:
            print(f"# names behind the numbers: {done.mapping}")
        print(f"# next: sitesim fit {args.out} -o SITE/")
        return 0

    return run_command("sitesim convert", body)
