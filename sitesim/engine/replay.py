"""The open-model job source: submit each trace job at its recorded time.

Records are pulled from the SWF stream one at a time, and each submission schedules
the next, so a replay holds only the jobs in flight, never the whole trace. Which
records become jobs, which are refused, and how load scaling moves them:
:mod:`sitesim.workload.replay` and docs/replay.md.

:class:`TraceReplay` reads the records and makes each job by those rules as it goes;
a caller that replays one trace several times (the fit's replays of a log) makes them
once (:class:`CheckedJobs`) and replays fresh copies (:class:`CheckedReplay`). Both
share the site's part of the rules and the submission loop (:class:`OpenReplay`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from itertools import starmap
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import attrs

from sitesim.engine.events import SUBMISSION, At, due_now
from sitesim.engine.site import Site
from sitesim.errors import InputError
from sitesim.limits import MAX_SECONDS, years
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job
from sitesim.workload.replay import ReplayCounts, job_from_record
from sitesim.workload.swf import SwfReader

if TYPE_CHECKING:  # only annotations: a replay with trace estimates never loads numpy
    import numpy as np


class SeenIds:
    """Job numbers seen so far: the latest run of consecutive numbers as two bounds, the
    others as a bitmap for the usual small non-negative numbers.

    A set of every job number of a multi-million-job log would cost hundreds of MB; a
    bit per number up to the largest costs an eighth of a byte per job of a log whose
    numbers run 1, 2, 3, ... (all logs of the archive). Others go to a set. Such a log's
    numbers are one run, kept as ``[start, next)``, so the usual number (``next``, one
    more than the largest seen) costs one comparison; a run is moved to the bitmap
    only when a number beyond it starts another, so each number is marked once at most.
    """

    __slots__ = ("_bits", "_other", "_start", "_next")

    #: Numbers above this go to the set (the bitmap would be 128 MB at this bound).
    BITMAP_LIMIT = 2**30

    def __init__(self) -> None:
        self._bits = bytearray()
        self._other: set[int] = set()
        #: Every number in ``[_start, _next)`` was seen, none at ``_next`` or beyond.
        self._start = self._next = 0

    def add(self, number: int) -> bool:
        """Record ``number``; False if it was seen before."""
        if number == self._next:
            self._next = number + 1
            return True
        if number > self._next:  # a gap: the run so far goes to the bitmap
            for seen in range(self._start, self._next):
                self._mark(seen)
            self._start, self._next = number, number + 1
            return True
        if number >= self._start:
            return False
        return self._mark(number)

    def _mark(self, number: int) -> bool:
        """Record ``number`` outside the run; False if it was there already."""
        if 0 <= number < self.BITMAP_LIMIT:
            byte, bit = number >> 3, 1 << (number & 7)
            bits = self._bits
            if byte >= len(bits):
                bits.extend(bytes(max(byte + 1 - len(bits), len(bits))))
            if bits[byte] & bit:
                return False
            bits[byte] |= bit
            return True
        if number in self._other:
            return False
        self._other.add(number)
        return True


class OpenReplay(ABC):
    """Feeds a site jobs at their (scaled) submit times in the open model.

    Which jobs, and how each is made, is the subclass's :meth:`checked`: a trace's
    records by the record rules (:class:`TraceReplay`), or jobs those rules already
    made once (:class:`CheckedReplay`). What this class adds is the site's part of
    :meth:`accepted` (a job larger than the machine, or one no partition admits, is
    counted, never run) and the submission loop.
    """

    def __init__(
        self,
        site: Site,
        *,
        load_factor: float = 1.0,
        shaper: Callable[[Job], Job] | None = None,
    ) -> None:
        if not (load_factor > 0 and math.isfinite(load_factor) and math.isfinite(1.0 / load_factor)):
            raise InputError(
                f"load factor must be a positive finite number, got {load_factor}",
                field="--load-factor",
            )
        self.site = site
        self.load_factor = load_factor
        #: Called on each job at its submission instant (moldable replacement,
        #: docs/moldable.md): what it returns is submitted.
        self.shaper = shaper
        self.counts = ReplayCounts()
        self.first_submit: int | None = None
        self._scale = 1.0 / load_factor
        self._jobs = self.accepted()

    def start(self) -> None:
        """Schedule the first submission; the simulated clock is the trace's clock."""
        self._schedule_next()

    def report(self) -> dict[str, Any]:
        """Extra entries for the run summary from this job source (default: none)."""
        return {}

    def scaled(self, time: int) -> int:
        """A recorded submit time after load scaling: t0 + round((time - t0) / X)."""
        if self._scale == 1.0 or self.first_submit is None:
            return time
        t0 = self.first_submit
        return t0 + round((time - t0) * self._scale)

    @abstractmethod
    def checked(self) -> Iterator[Job]:
        """The jobs in trace order, each made and checked by the record rules (fresh
        objects: a run changes them), the records that become none counted in
        :attr:`counts`."""

    def accepted(self) -> Iterator[Job]:
        """The trace's jobs that will be submitted, in trace order, at their recorded
        (unscaled) times; skipped records are counted in :attr:`counts`."""
        counts = self.counts
        nodes = self.site.machine.nodes
        admits = self.site.scheduler.admits
        for job in self.checked():
            if job.size > nodes:
                counts.too_large += 1
                continue
            if not admits(job):
                counts.unroutable += 1
                continue
            if self.first_submit is None:
                self.first_submit = job.submit
            yield job

    def _schedule_next(self) -> None:
        job = next(self._jobs, None)
        if job is None:
            return
        env = self.site.env
        At(env, self.scaled(job.submit) - int(env.now), SUBMISSION, self._submit, job)

    def _submit(self, event: At) -> None:
        """Submit the job due now, and any next ones due at this very instant.

        A next job due now is submitted here rather than from an event of its own when
        no other event is due now: that event would have been the very next one, so
        the order of everything is the same at a fraction of the cost.
        """
        site = self.site
        env = site.env
        now = event.time
        shaper = self.shaper
        counts = self.counts
        jobs = self._jobs
        unscaled = self._scale == 1.0
        job: Job | None = event.payload
        while job is not None:
            site.enter(job if shaper is None else shaper(job))
            counts.submitted += 1
            job = next(jobs, None)
            if job is None:
                break
            when = job.submit if unscaled else self.scaled(job.submit)
            if when != now or due_now(env):
                At(env, when - now, SUBMISSION, self._submit, job)
                break
        site.settle(now)


class TraceReplay(OpenReplay):
    """Feeds a site from an SWF reader in the open model."""

    def __init__(
        self,
        site: Site,
        reader: SwfReader,
        estimates: EstimateModel,
        *,
        load_factor: float = 1.0,
        rng: np.random.Generator | None = None,
        failures: bool = True,
        shaper: Callable[[Job], Job] | None = None,
        per_node: int = 1,
        recorded_waits: Mapping[int, int] | None = None,
    ) -> None:
        self.reader = reader
        self.estimates = estimates
        self.rng = rng
        self.failures = failures
        #: Processors per node of a machine whose nodes go whole to jobs: a record's
        #: size (processors) becomes its node demand (sitesim.workload.replay).
        self.per_node = per_node
        #: Each job's recorded wait by number, where the trace's field 3 is not it (a
        #: site-level run's trace: sitesim.workload.recorded_waits); None: field 3.
        self.recorded_waits = recorded_waits
        super().__init__(site, load_factor=load_factor, shaper=shaper)

    def checked(self) -> Iterator[Job]:
        return check_records(self.reader, self.estimates, self.rng, self.counts, failures=self.failures,
                             per_node=self.per_node, recorded_waits=self.recorded_waits)


class CheckedJobs:
    """A trace's jobs made and checked once by the record rules (:func:`check_records`),
    to be replayed many times: each iteration gives fresh jobs (a run changes them).

    Why: a fit replays the same log several times (sitesim.runs.service_policy,
    sitesim.runs.service_calibration), and making each record's job again, with its
    checks, was a fifth of such a replay. The jobs are the same each time, estimates
    drawn through ``rng`` included (drawn once, here).
    """

    __slots__ = ("_fields", "counts")

    def __init__(
        self,
        reader: SwfReader,
        estimates: EstimateModel,
        rng: np.random.Generator | None = None,
        *,
        failures: bool = True,
        per_node: int = 1,
    ) -> None:
        #: What the record rules counted (read, unknown, malformed).
        self.counts = ReplayCounts()
        fields = attrgetter(*_JOB_ARGUMENTS)
        self._fields = [fields(job) for job in check_records(reader, estimates, rng, self.counts,
                                                             failures=failures, per_node=per_node)]

    def __len__(self) -> int:
        return len(self._fields)

    def __iter__(self) -> Iterator[Job]:
        return starmap(Job, self._fields)


class CheckedReplay(OpenReplay):
    """Feeds a site, in the open model, the jobs of a trace checked once (:class:`CheckedJobs`)."""

    def __init__(
        self,
        site: Site,
        jobs: CheckedJobs,
        *,
        load_factor: float = 1.0,
        shaper: Callable[[Job], Job] | None = None,
    ) -> None:
        self.jobs = jobs
        super().__init__(site, load_factor=load_factor, shaper=shaper)
        self.counts.read, self.counts.unknown, self.counts.malformed = (
            jobs.counts.read, jobs.counts.unknown, jobs.counts.malformed)

    def checked(self) -> Iterator[Job]:
        return iter(self.jobs)


#: A job's arguments, in :class:`Job`'s order: all of its state, so that ``Job(*args)``
#: is a copy.
_JOB_ARGUMENTS = tuple(a.name for a in attrs.fields(Job) if a.init)


def check_records(
    reader: SwfReader,
    estimates: EstimateModel,
    rng: np.random.Generator | None,
    counts: ReplayCounts,
    *,
    failures: bool = True,
    per_node: int = 1,
    recorded_waits: Mapping[int, int] | None = None,
) -> Iterator[Job]:
    """The jobs of ``reader``'s records, in trace order, by the record rules (module
    docstring of :mod:`sitesim.workload.replay`): a record of unknown size or runtime
    is counted (``counts.unknown``), a repeated job number or a time out of order or
    range is an input error naming the record's line. ``recorded_waits``: each job's
    recorded wait by number, in place of its field 3 (a job not in it has none, -1).

    This loop runs once per record of every replay, so the usual case (a new job
    number, times in range) is tested first in a few comparisons, and each check
    spells out its error only when it fails.
    """
    previous = 0  # submit times are non-negative and non-decreasing
    seen = SeenIds().add
    duplicates = 0
    for record in reader:
        if not seen(record.job_number):
            if reader.skip_malformed:
                duplicates += 1
                continue
            raise InputError(
                f"job number {record.job_number} appears twice (job numbers must be unique:"
                " dependencies in field 17 name jobs by number)",
                path=reader.path, line=reader.line, field="field 1 (job_number)",
            )
        counts.read += 1
        job = job_from_record(record, estimates, rng, failures=failures, per_node=per_node)
        if job is None:
            counts.unknown += 1
            continue
        if recorded_waits is not None:  # field 3 is the job's wait in a run, not in its log
            job.recorded_wait = recorded_waits.get(record.job_number, -1)
        submit = job.submit
        if not previous <= submit <= MAX_SECONDS or job.runtime > MAX_SECONDS or (
            record.requested_time > MAX_SECONDS
        ):
            _reject_times(reader, job, record.requested_time, previous)
        previous = submit
        yield job
    counts.malformed = reader.skipped + duplicates


def _reject_times(reader: SwfReader, job: Job, requested: float, previous: int) -> None:
    """The input error for a job whose times break a rule (see :func:`check_records`)."""
    path, line = reader.path, reader.line
    if job.submit < 0:
        raise InputError(
            f"submit time {job.submit} is negative (times count from the log's start)",
            path=path, line=line, field="field 2 (submit_time)",
        )
    if job.submit < previous:
        raise InputError(
            f"submit time {job.submit} is earlier than the previous job's {previous}"
            " (SWF requires non-decreasing submit times)",
            path=path, line=line, field="field 2 (submit_time)",
        )
    for value, label in (
        (job.submit, "field 2 (submit_time)"),
        (job.runtime, "field 4 (run_time)"),
        (requested, "field 9 (requested_time)"),
    ):
        if value > MAX_SECONDS:
            raise InputError(
                f"{value} s is beyond the limit of {MAX_SECONDS} s ({years(MAX_SECONDS)})",
                path=path, line=line, field=label,
            )
