"""An SWF job record: the 18 fields in order, their names, and the status codes.

Split from :mod:`sitesim.workload.swf` (reading), which re-exports these names, so that
the reader and the writer (:mod:`sitesim.workload.swf_write`) both build on the record
without importing each other.
"""

from __future__ import annotations

from attrs import define, field

Number = int | float

#: SWF field names, in order (field 1 is ``job_number``).
FIELDS: tuple[str, ...] = (
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)
N_FIELDS = len(FIELDS)

#: SWF status codes (field 11).
STATUS_FAILED = 0
STATUS_COMPLETED = 1
STATUS_PARTIAL = 2
STATUS_CANCELLED = 5



def field_label(index: int) -> str:
    """Human label of the field at 0-based ``index``: ``field 4 (run_time)``."""
    return f"field {index + 1} ({FIELDS[index]})"


@define(slots=True)
class SwfRecord:
    """One job line of an SWF file: the 18 fields, ``-1`` where unknown."""

    job_number: int = -1
    submit_time: Number = -1
    wait_time: Number = -1
    run_time: Number = -1
    allocated_processors: int = -1
    average_cpu_time: Number = -1
    used_memory: Number = -1
    requested_processors: int = -1
    requested_time: Number = -1
    requested_memory: Number = -1
    status: int = -1
    user_id: int = -1
    group_id: int = -1
    executable: int = -1
    queue: int = -1
    partition: int = -1
    preceding_job: int = -1
    think_time: Number = -1
    #: The line the record was read from, when its 18 tokens are each exactly ``str``
    #: of their value (the reader's usual all-integer line), else None: the schedule
    #: writer copies its tokens instead of formatting the values again. Not an
    #: ``__init__`` argument, so a copy made with ``attrs.evolve`` (other values) never
    #: carries stale text; not compared.
    text: str | None = field(default=None, init=False, eq=False, repr=False)

    def with_times(self, submit: Number, wait: Number, run: Number, status: int) -> SwfRecord:
        """A copy with fields 2-4 and 11 replaced (what a simulated schedule changes).

        Same result as ``attrs.evolve`` with those four fields, written out because
        ``evolve`` is several times slower.
        """
        return SwfRecord(*self.values_with_times(submit, wait, run, status))  # type: ignore[arg-type]

    def values_with_times(self, submit: Number, wait: Number, run: Number, status: int) -> tuple[Number, ...]:
        """:meth:`values` of :meth:`with_times`, without building the copy: the schedule
        writer formats one such line per job."""
        return (
            self.job_number,
            submit,
            wait,
            run,
            self.allocated_processors,
            self.average_cpu_time,
            self.used_memory,
            self.requested_processors,
            self.requested_time,
            self.requested_memory,
            status,
            self.user_id,
            self.group_id,
            self.executable,
            self.queue,
            self.partition,
            self.preceding_job,
            self.think_time,
        )

    def values(self) -> tuple[Number, ...]:
        """The 18 values in SWF field order."""
        return (
            self.job_number,
            self.submit_time,
            self.wait_time,
            self.run_time,
            self.allocated_processors,
            self.average_cpu_time,
            self.used_memory,
            self.requested_processors,
            self.requested_time,
            self.requested_memory,
            self.status,
            self.user_id,
            self.group_id,
            self.executable,
            self.queue,
            self.partition,
            self.preceding_job,
            self.think_time,
        )


#: Fields that hold whole numbers (ids, counts, codes); the others may be fractional.
WHOLE_FIELDS: tuple[int, ...] = (0, 4, 7, 10, 11, 12, 13, 14, 15, 16)
