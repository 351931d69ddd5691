"""Slurm accounting (``sacct``) to SWF: what ``sitesim convert sacct`` does.

The input is the output of (docs/population.md, "Fit your own Slurm site"):

    sacct --allusers --parsable2 --starttime START --endtime END \\
          --format JobID,User,Group,Partition,Submit,Start,End,Timelimit,AllocCPUS,ReqCPUS,NNodes,State

a header line naming the columns, then one ``|``-separated line per job or step.
Columns are found by name, so their order is free; ``JobID``, ``User``, ``Submit``,
``Start``, ``End``, ``State`` and one of ``AllocCPUS``/``ReqCPUS``/``NCPUS`` are needed,
the others are used when present. Decisions:

- **Steps** (``1234.batch``, ``1234.extern``, ``1234.0``) are skipped: the job is
  the allocation a user waits for, its steps run inside it.
- **Array jobs**: each task (``1234_7``) is a job of its own; a line for tasks that
  are still pending together (``1234_[8-15%4]``) stands for each of them, up to
  :data:`~sitesim.limits.MAX_ARRAY_TASKS` tasks in all the pending lines of a log (a
  line naming more is malformed: ``105_[1-99999999]`` used to expand for minutes).
- **Heterogeneous jobs**: the components (``1234+0``, ``1234+1``) were submitted as one
  job and started together; they become one SWF job of their summed sizes, from the
  earliest start to the latest end, with the state of component 0.
- **States** map to SWF status (:data:`STATUS`): COMPLETED 1; FAILED, NODE_FAIL,
  TIMEOUT, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED 0 (killed or failed; the
  archive logs give a job killed at its time limit status 0, too); CANCELLED and
  REVOKED 5; PENDING, RUNNING, SUSPENDED, REQUEUED, RESIZING -1 (not over when the
  log was taken). A job that never started has wait -1 and run -1, except a
  cancelled one, whose wait is the time to its cancellation (the archive's rule);
  a running one has its wait and run -1.
- **Times** are the local wall-clock times sacct prints, read in ``timezone`` (an
  IANA name; sacct prints the zone of the machine it runs on, or ``$TZ``), so a run
  across a daylight-saving change has its true length. ``Unknown``, ``None`` and empty
  times are unknown. SWF times count seconds from the first submission; the header
  says when that was (``UnixStartTime``), the zone's offset then (``TimeZone``) and
  its name (``TimeZoneString``). A time must lie in 1970..2106 (the Unix times SWF
  fields hold, :data:`~sitesim.limits.MAX_SECONDS`), and exist in the zone: a wall-clock
  time the clocks skipped at a daylight-saving change (``02:30`` on the spring-forward
  night in Europe) is malformed, since no instant had it.
- **Order**: a start before the submission, or an end before the start (or, for a job
  cancelled before it started, before the submission) is malformed: the record
  contradicts itself, and any wait or runtime made from it would be invented.
- **Sizes**: CPU and node counts, and their sums over a heterogeneous job, are at most
  :data:`~sitesim.limits.MAX_NODES` (the largest machine a header may declare); time
  limits at most :data:`~sitesim.limits.MAX_SECONDS`.
- **Users and groups** are numbered 1, 2, ... in order of first appearance
  (anonymised); **partitions** become queues numbered the same way, named in the
  header (``; Queue: 1 batch``). The names can be written beside the output.
- **Machine size**: ``MaxProcs`` and ``MaxNodes`` are the given ones, else the largest
  job's CPUs and nodes (say so in a note: the machine is likely larger).
- A malformed line (wrong number of fields, a time, number or state that does not
  parse, or beyond the rules above) is an :class:`~sitesim.errors.InputError` naming
  file, line and column, or with ``skip_malformed`` skipped and counted, as for SWF
  input. A file that cannot be read to its end (a truncated or fake ``.gz``, a line
  over :data:`~sitesim.limits.MAX_LINE_BYTES`) is an error naming the file and line.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from attrs import define, field

from sitesim.errors import InputError
from sitesim.limits import MAX_ARRAY_TASKS, MAX_NODES, MAX_SECONDS, years
from sitesim.workload.files import open_text_read
from sitesim.workload.swf import SwfRecord, _read_error

#: Columns the conversion needs, and those it uses when present.
REQUIRED = ("JobID", "User", "Submit", "Start", "End", "State")
SIZE_COLUMNS = ("AllocCPUS", "ReqCPUS", "NCPUS")
OPTIONAL = ("Group", "Partition", "Timelimit", "NNodes")
#: Slurm job state (first word of the State column) -> SWF status (field 11).
STATUS: dict[str, int] = {
    "COMPLETED": 1,
    "FAILED": 0,
    "NODE_FAIL": 0,
    "TIMEOUT": 0,
    "OUT_OF_MEMORY": 0,
    "BOOT_FAIL": 0,
    "DEADLINE": 0,
    "PREEMPTED": 0,
    "CANCELLED": 5,
    "REVOKED": 5,
    "PENDING": -1,
    "RUNNING": -1,
    "SUSPENDED": -1,
    "REQUEUED": -1,
    "REQUEUE_HOLD": -1,
    "REQUEUE_FED": -1,
    "RESIZING": -1,
}
#: States whose job has not started, or has not ended, when the log was taken.
NOT_STARTED = frozenset({"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED"})
NOT_ENDED = frozenset({"RUNNING", "SUSPENDED", "RESIZING"})
_UNKNOWN_TIMES = frozenset({"", "unknown", "none", "n/a"})
_JOBID = re.compile(r"^(?P<base>\d+)(?:_(?P<task>\d+|\[[^\]]*\]))?(?:\+(?P<het>\d+))?$")


@define(slots=True)
class SacctJob:
    """One job (or array task, or merged heterogeneous job) as sacct describes it."""

    line: int
    key: str
    submit: float
    start: float | None
    end: float | None
    state: str
    user: str
    group: str
    partition: str
    alloc: int
    requested: int
    nodes: int
    limit: int


@define(slots=True)
class SacctCounts:
    """What the conversion did with the lines of the input."""

    lines: int = 0
    jobs: int = 0
    steps: int = 0
    array_tasks: int = 0
    pending_array_lines: int = 0
    het_components: int = 0
    malformed: int = 0
    by_state: dict[str, int] = field(factory=dict)


def zone_of(name: str) -> ZoneInfo:
    """The IANA time zone ``name``; an unknown one is an input error."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(f"unknown time zone {name!r} (an IANA name such as Europe/Stockholm)", field="--timezone") from None


class TimeRefused(ValueError):
    """A time that parses but cannot be a sacct time: its message says why."""


def parse_time(text: str, zone: ZoneInfo) -> float | None:
    """Seconds since the epoch of a sacct local time (``2024-03-31T01:59:00``); None if unknown.

    Why zoneinfo: sacct prints wall-clock time, so across a daylight-saving change only
    the zone's rules give the true interval (an ambiguous autumn hour is read as its
    first occurrence, Python's ``fold=0``). A time that does not parse is a
    :class:`ValueError`; one outside 1970..2106, or skipped by the zone's clocks, a
    :class:`TimeRefused` saying so (Python would read a skipped ``02:30`` with the
    offset before the change, an hour away from its neighbours: runtimes of 0)."""
    if text.strip().lower() in _UNKNOWN_TIMES:
        return None
    stamp = datetime.fromisoformat(text.strip())
    wall = stamp if stamp.tzinfo is None else None
    if wall is not None:
        stamp = stamp.replace(tzinfo=zone)
    seconds = stamp.timestamp()
    if not 0 <= seconds <= MAX_SECONDS:
        raise TimeRefused(f"{text.strip()!r} is outside 1970..2106 (SWF times are Unix seconds up to"
                          f" {years(MAX_SECONDS)} after 1970)")
    if wall is not None and stamp.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) != wall:
        raise TimeRefused(f"{text.strip()!r} does not exist in {zone.key}: the clocks skipped it at a"
                          " daylight-saving change (is --timezone the zone sacct printed in?)")
    return seconds


def parse_limit(text: str) -> int:
    """Seconds of a Slurm time limit (``[D-]HH:MM:SS``, ``MM:SS``, ``MM``, ``D-HH[:MM]``);
    -1 for ``UNLIMITED``, ``Partition_Limit``, ``INVALID`` or empty."""
    text = text.strip()
    if not text or not (text[0].isdigit()):
        if text.upper() in ("", "UNLIMITED", "PARTITION_LIMIT", "INVALID", "NONE"):
            return -1
        raise ValueError(text)
    days = 0
    if "-" in text:
        day, text = text.split("-", 1)
        days = int(day)
        parts = [int(p) for p in text.split(":")]
        parts += [0] * (3 - len(parts))  # D-HH, D-HH:MM
    else:
        parts = [int(p) for p in text.split(":")]
        parts = {1: [0, parts[0], 0], 2: [0, *parts], 3: parts}[len(parts)]  # MM, MM:SS
    hours, minutes, seconds = parts
    total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    if total > MAX_SECONDS:
        raise ValueError(text)
    return total


def _array_tasks(spec: str) -> int:
    """How many tasks ``[1-3,7,9-15%4]`` names (the ``%`` limit is not a count); a
    :class:`ValueError` for a range that runs backwards or a step below 1."""
    body = spec.strip("[]").split("%", 1)[0]
    count = 0
    for part in body.split(","):
        lo, sep, hi = part.partition("-")
        step = 1
        if ":" in hi:
            hi, step_text = hi.split(":", 1)
            step = int(step_text)
        if not sep:
            count += int(lo) >= 0
            continue
        first, last = int(lo), int(hi)
        if step < 1 or last < first or first < 0:
            raise ValueError(spec)
        count += (last - first) // step + 1
    if count < 1:
        raise ValueError(spec)
    return count


def _int(text: str) -> int:
    text = text.strip()
    if not text:
        return -1
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def _too_large(value: int) -> bool:
    """Whether a CPU or node count is beyond any machine (:data:`~sitesim.limits.MAX_NODES`)."""
    return value > MAX_NODES


class SacctReader:
    """Parse ``sacct --parsable2`` text into jobs (steps skipped, het jobs merged).

    Errors name the file, line and column; with ``skip_malformed`` a bad line is
    skipped and counted in :attr:`counts`.
    """

    def __init__(self, path: str | Path, zone: ZoneInfo, *, skip_malformed: bool = False) -> None:
        self.path = str(path)
        self.zone = zone
        self.skip_malformed = skip_malformed
        self.counts = SacctCounts()
        #: Tasks the pending array lines read so far stand for (bounded by MAX_ARRAY_TASKS).
        self._pending_tasks = 0

    def jobs(self) -> list[SacctJob]:
        """Every job of the file, in file order (het components merged into the first)."""
        merged: dict[str, SacctJob] = {}
        out: list[SacctJob] = []
        for job, het in self._lines():
            if het is None:
                out.append(job)
                continue
            self.counts.het_components += 1
            first = merged.get(job.key)
            if first is None:
                merged[job.key] = job
                out.append(job)
                continue
            oversized = next((column for column, name in (("AllocCPUS", "alloc"), ("ReqCPUS", "requested"),
                                                          ("NNodes", "nodes"))
                              if _too_large(getattr(first, name) + getattr(job, name))), None)
            if oversized is None:
                _merge(first, job, leader=het == 0)
            elif self.skip_malformed:
                self.counts.malformed += 1
            else:
                raise InputError(f"the components of heterogeneous job {job.key} add up to more than"
                                 f" {MAX_NODES:,} (the largest machine)", path=self.path, line=job.line,
                                 field=oversized)
        self.counts.jobs = len(out)
        for job in out:
            self.counts.by_state[job.state] = self.counts.by_state.get(job.state, 0) + 1
        return out

    def _lines(self) -> Iterator[tuple[SacctJob, int | None]]:
        try:
            handle = open_text_read(self.path)
        except OSError as exc:
            raise InputError(f"cannot read sacct output: {exc.strerror or exc}", path=self.path) from None
        with handle:
            columns: dict[str, int] | None = None
            trailing = False
            number = 0
            try:
                for number, raw in enumerate(handle, 1):
                    text = raw.rstrip("\r\n")
                    if not text.strip():
                        continue
                    if columns is None:
                        columns, trailing = self._header(text, number)
                        continue
                    self.counts.lines += 1
                    values = text.split("|")
                    if trailing and values and values[-1] == "":
                        values.pop()
                    try:
                        yield from self._records(values, columns, number)
                    except _Malformed as bad:
                        if not self.skip_malformed:
                            raise InputError(bad.message, path=self.path, line=number, field=bad.column) from None
                        self.counts.malformed += 1
            except (OSError, EOFError, zlib.error) as exc:  # a truncated or fake gzip stream, a line over the cap
                raise InputError(f"cannot read sacct output: {_read_error(exc)}", path=self.path,
                                 line=number + 1) from None
            if columns is None:
                raise InputError("no header line: not sacct --parsable2 output", path=self.path)

    def _header(self, text: str, number: int) -> tuple[dict[str, int], bool]:
        trailing = text.endswith("|")  # sacct --parsable (not 2) ends every line with |
        names = text.split("|")
        if trailing:
            names.pop()
        columns = {name.strip().lower(): i for i, name in enumerate(names)}
        missing = [c for c in REQUIRED if c.lower() not in columns]
        if not any(c.lower() in columns for c in SIZE_COLUMNS):
            missing.append("/".join(SIZE_COLUMNS))
        if missing:
            raise InputError(
                "the first line must be sacct's header naming the columns (run sacct without"
                f" --noheader, with --format including {', '.join(missing)})",
                path=self.path, line=number,
            )
        return columns, trailing

    def _records(self, values: list[str], columns: dict[str, int], number: int) -> Iterator[tuple[SacctJob, int | None]]:
        if len(values) != len(columns):
            raise _Malformed(f"expected {len(columns)} fields separated by '|', got {len(values)}", None)

        def get(column: str) -> str:
            i = columns.get(column.lower())
            return values[i].strip() if i is not None else ""

        jobid = get("JobID")
        if "." in jobid:  # a step: 1234.batch, 1234.0, 1234_5.extern, 1234+0.0
            self.counts.steps += 1
            return
        match = _JOBID.match(jobid)
        if match is None:
            raise _Malformed(f"{jobid!r} is not a Slurm job id", "JobID")
        state_text = get("State")
        state = state_text.split()[0].upper() if state_text else ""
        if state not in STATUS:
            raise _Malformed(f"unknown job state {state_text!r} (known: {', '.join(sorted(STATUS))})", "State")
        times: dict[str, float | None] = {}
        for column in ("Submit", "Start", "End"):
            try:
                times[column] = parse_time(get(column), self.zone)
            except TimeRefused as refused:
                raise _Malformed(str(refused), column) from None
            except ValueError:
                raise _Malformed(f"{get(column)!r} is not a time (YYYY-MM-DDTHH:MM:SS)", column) from None
        submit = times["Submit"]
        if submit is None:
            raise _Malformed("the submit time is unknown", "Submit")
        start = None if state in NOT_STARTED else times["Start"]
        end = None if state in NOT_STARTED or state in NOT_ENDED else times["End"]
        _check_order(submit, start, end, get)
        sizes = {}
        for column in (*SIZE_COLUMNS, "NNodes"):
            try:
                sizes[column] = _int(get(column))
            except ValueError:
                raise _Malformed(f"{get(column)!r} is not a count", column) from None
            if _too_large(sizes[column]):
                raise _Malformed(f"{sizes[column]} is more than the {MAX_NODES:,} a machine may have", column)
        try:
            limit = parse_limit(get("Timelimit"))
        except (ValueError, KeyError):
            raise _Malformed(f"{get('Timelimit')!r} is not a time limit (at most {years(MAX_SECONDS)})",
                             "Timelimit") from None
        # NCPUS is the allocated CPUs of a job that started, else the requested ones
        ncpus = sizes["NCPUS"] if sizes["NCPUS"] > 0 else -1
        started = state not in NOT_STARTED and times["Start"] is not None
        alloc = sizes["AllocCPUS"] if sizes["AllocCPUS"] > 0 else (ncpus if started else -1)
        requested = sizes["ReqCPUS"] if sizes["ReqCPUS"] > 0 else ncpus
        task = match.group("task")
        copies = 1
        if task is not None and task.startswith("["):
            try:
                copies = _array_tasks(task)
            except ValueError:
                raise _Malformed(f"{jobid!r}: cannot read the array's task list", "JobID") from None
            if self._pending_tasks + copies > MAX_ARRAY_TASKS:
                earlier = f" (and earlier lines {self._pending_tasks:,})" if self._pending_tasks else ""
                raise _Malformed(
                    f"{jobid!r} names {copies:,} pending array tasks{earlier}: more than the {MAX_ARRAY_TASKS:,}"
                    " a log's pending array lines may stand for", "JobID")
            self._pending_tasks += copies
            self.counts.pending_array_lines += 1
        self.counts.array_tasks += copies if task is not None else 0
        het = match.group("het")
        for _ in range(copies):
            yield (
                SacctJob(
                    line=number,
                    key=match.group("base") + (f"_{task}" if task else ""),
                    submit=submit,
                    start=start,
                    end=end,
                    state=state,
                    user=get("User"),
                    group=get("Group"),
                    partition=get("Partition").split(",")[0],
                    alloc=alloc,
                    requested=requested,
                    nodes=sizes["NNodes"],
                    limit=limit,
                ),
                None if het is None else int(het),
            )


def _check_order(submit: float, start: float | None, end: float | None, get: Callable[[str], str]) -> None:
    """A malformed line unless submit <= start <= end (of the times the record uses)."""
    if start is not None and start < submit:
        raise _Malformed(f"{get('Start')!r} is before the submission ({get('Submit')})", "Start")
    if end is not None and start is not None and end < start:
        raise _Malformed(f"{get('End')!r} is before the start ({get('Start')})", "End")
    if end is not None and start is None and end < submit:
        raise _Malformed(f"{get('End')!r} is before the submission ({get('Submit')})", "End")


class _Malformed(Exception):
    def __init__(self, message: str, column: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


def _merge(into: SacctJob, part: SacctJob, *, leader: bool) -> None:
    """Fold heterogeneous component ``part`` into the job ``into`` stands for."""
    into.submit = min(into.submit, part.submit)
    starts = [t for t in (into.start, part.start) if t is not None]
    into.start = min(starts) if starts else None
    into.end = None if into.end is None or part.end is None else max(into.end, part.end)
    for name in ("alloc", "requested", "nodes"):
        a, b = getattr(into, name), getattr(part, name)
        setattr(into, name, a + b if a > 0 and b > 0 else max(a, b))
    into.limit = max(into.limit, part.limit)
    if leader:
        into.state = part.state


def swf_record(job: SacctJob, number: int, origin: float, user: int, group: int, queue: int) -> SwfRecord:
    """The SWF record of ``job`` (times in seconds from ``origin``)."""
    submit = round(job.submit - origin)
    status = STATUS[job.state]
    wait = run = -1
    if job.start is not None:
        wait = max(0, round(job.start - job.submit))
        if job.end is not None:
            run = max(0, round(job.end - max(job.start, job.submit)))
    elif job.state == "CANCELLED" and job.end is not None:
        wait = max(0, round(job.end - job.submit))  # waited until cancelled (the archive's rule)
    return SwfRecord(
        number, submit, wait, run, job.alloc, -1, -1, job.requested, job.limit, -1, status,
        user, group, -1, queue, -1, -1, -1,
    )
