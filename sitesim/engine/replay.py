"""The open-model job source: submit each trace job at its recorded time.

Records are pulled from the SWF stream one at a time, and each submission schedules
the next, so a replay holds only the jobs in flight, never the whole trace. Which
records become jobs, which are refused, and how load scaling moves them:
:mod:`sitesim.workload.replay` and docs/replay.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

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


class TraceReplay:
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
    ) -> None:
        if not (load_factor > 0 and math.isfinite(load_factor) and math.isfinite(1.0 / load_factor)):
            raise InputError(
                f"load factor must be a positive finite number, got {load_factor}",
                field="--load-factor",
            )
        self.site = site
        self.reader = reader
        self.estimates = estimates
        self.load_factor = load_factor
        self.rng = rng
        self.failures = failures
        #: Called on each job at its submission instant (moldable replacement,
        #: docs/moldable.md): what it returns is submitted.
        self.shaper = shaper
        #: Processors per node of a machine whose nodes go whole to jobs: a record's
        #: size (processors) becomes its node demand (sitesim.workload.replay).
        self.per_node = per_node
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

    def accepted(self) -> Iterator[Job]:
        """The trace's jobs that will be submitted, in trace order, at their recorded
        (unscaled) times; skipped records are counted in :attr:`counts`.

        This loop runs once per record of every replay, so the usual case (a new job
        number, times in range, a job that fits) is tested first in a few comparisons,
        and each check spells out its error only when it fails.
        """
        counts = self.counts
        nodes = self.site.machine.nodes
        admits = self.site.scheduler.admits
        estimates, rng, failures, per_node = self.estimates, self.rng, self.failures, self.per_node
        previous = 0  # submit times are non-negative and non-decreasing
        reader = self.reader
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
            submit = job.submit
            if not previous <= submit <= MAX_SECONDS or job.runtime > MAX_SECONDS or (
                record.requested_time > MAX_SECONDS
            ):
                self._reject_times(job, record.requested_time, previous)
            previous = submit
            if job.size > nodes:
                counts.too_large += 1
                continue
            if not admits(job):
                counts.unroutable += 1
                continue
            if self.first_submit is None:
                self.first_submit = submit
            yield job
        counts.malformed = reader.skipped + duplicates

    def _reject_times(self, job: Job, requested: float, previous: int) -> None:
        """The input error for a job whose times break a rule (see :meth:`accepted`)."""
        path, line = self.reader.path, self.reader.line
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
