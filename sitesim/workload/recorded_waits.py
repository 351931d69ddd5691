"""Each job's recorded wait, kept beside a site-level run's trace (``trace.recorded-waits``).

Why: a fitted user's resampled batch carries each job's wait in the log it came from
(``Job.recorded_wait``), and two things read it: ``hold``, which gives it back, and a
fitted service with recorded levels, which ranks it among its size class's waits
(:mod:`sitesim.schedulers.service`). The trace's field 3 holds the wait the job had
in the *run*, and SWF has no field for the other. So a site-level run writes the
recorded waits beside its trace, and a replay of that trace reads them back: replayed
under the run's own policy, each job then gets the same level, and the replay
reproduces the run's schedule exactly (docs/feedback-replay.md). Without the file, a
replayed job's recorded wait is its field 3, as for any log.

The format is text, one job per line in the trace's order: its number (field 1) and
its recorded wait in whole seconds (each at most :data:`~sitesim.limits.MAX_SECONDS`);
lines starting with ``;`` are comments. Only jobs that carry a recorded wait are
listed; a replayed job the file does not list has none (-1).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from sitesim.errors import InputError
from sitesim.inputs import open_text_read
from sitesim.limits import MAX_SECONDS
from sitesim.workload.job import Job

#: What the file's name adds to its trace's (``trace.swf`` -> ``trace.recorded-waits``).
SUFFIX = ".recorded-waits"
_HEADER = ("; sitesim: each job's recorded wait (s), the wait it had in the log its user resampled it from;"
           " the trace's field 3 is its wait in the run\n; job wait\n")


def recorded_waits_path(trace: str | os.PathLike[str]) -> Path:
    """The recorded waits' file of ``trace``: its name without ``.gz`` and ``.swf``, plus :data:`SUFFIX`."""
    path = Path(trace)
    return path.with_name(path.name.removesuffix(".gz").removesuffix(".swf") + SUFFIX)


class RecordedWaitWriter:
    """Site observer: writes each submitted job's recorded wait, in arrival order (the
    trace's), to an open text file. A job's recorded wait is known at its submission,
    so nothing waits for ends."""

    #: Lines collected before they are passed to the file.
    BATCH = 4096

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._lines: list[str] = []
        out.write(_HEADER)

    def on_submit(self, job: Job) -> None:
        if job.recorded_wait >= 0:
            self._lines.append(f"{job.id} {job.recorded_wait}\n")
            if len(self._lines) >= self.BATCH:
                self.close()

    def close(self) -> None:
        """Hand what is collected to the file."""
        self.out.write("".join(self._lines))
        self._lines.clear()


def read_recorded_waits(path: str | os.PathLike[str]) -> Mapping[int, int]:
    """The recorded waits in ``path``, by job number; a malformed line is an input error
    naming its line and field."""
    name = str(path)
    waits: dict[int, int] = {}
    number = 0
    try:
        with open_text_read(path) as f:  # the one bounded reader (sitesim/inputs.py)
            for number, line in enumerate(f, 1):
                if not line.strip() or line.startswith(";"):
                    continue
                fields = line.split()
                if len(fields) != 2:
                    raise InputError(f"expected 2 fields (job, wait), found {len(fields)}", path=name, line=number)
                job = _whole(fields[0], name, number, "field 1 (job)")
                wait = _whole(fields[1], name, number, "field 2 (wait)")
                if job in waits:
                    raise InputError(f"job {job} appears twice", path=name, line=number, field="field 1 (job)")
                waits[job] = wait
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:  # cut short, corrupt, not text
        raise InputError(f"cannot read recorded waits: {exc}", path=name, line=number + 1) from None
    return waits


def _whole(value: str, path: str, line: int, field: str) -> int:
    """A non-negative whole number of the file, or the input error naming its place."""
    if not (value.isascii() and value.isdigit()):
        raise InputError(f"{value!r} is not a non-negative whole number", path=path, line=line, field=field)
    # as a log's times (a typo, not a log); the length first: int() refuses 4,300 digits
    number = int(value) if len(value) <= len(str(MAX_SECONDS)) else MAX_SECONDS + 1
    if number > MAX_SECONDS:
        raise InputError(f"{value[:20]}{'...' if len(value) > 20 else ''} is above {MAX_SECONDS}", path=path,
                         line=line, field=field)
    return number
