"""A study's cached traces, checked against what their runs recorded before reuse.

A study replays the traces its site-level runs left under ``runs/`` and draws its
figures from them, possibly long after the runs (a resumed study). A trace cut at a
line boundary reads as a valid, shorter log: replayed, it silently gave 891 jobs
instead of 1,793 and moved ``cross.csv``'s errors. So before a trace is reused it must
match its run's row in ``results.csv`` (as many job lines as the row's ``submitted``
jobs, the last line complete) and, once the study has seen it whole, the SHA-256 it
recorded then (``checksums.json``). A trace that does not match is made again:
a run is fixed by its key, so the remade trace is the one the row describes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from attrs import define

from sitesim.errors import InputError
from sitesim.inputs import open_bytes_read, read_document
from sitesim.sweep.grid import Key
from sitesim.workload.files import atomic_text_write

#: Where a study records its traces' checksums, relative to its folder.
CHECKSUMS = "checksums.json"
#: Where the replays' workers take their per-trace locks while the replay sweep runs.
LOCKS = ".trace-locks"


@contextmanager
def trace_lock(root: Path, trace: str) -> Iterator[None]:
    """Hold one cached trace while a worker checks it and, if it must, makes it again.

    Why: every evaluated policy replays the same trace, so with several workers the
    replays of one missing or damaged trace would all make it again at once, and a
    run's output folder is briefly moved aside while it is replaced: another worker
    then found no trace, or a trace half made. The lock (``flock``, released with its
    process) lets the first make it and the others find it whole. The lock files live
    outside the run folders, which are replaced whole, and go with the sweep
    (:func:`drop_locks`). Where ``fcntl`` does not exist the check runs unlocked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    folder = root / LOCKS
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(trace.encode()).hexdigest()[:16]}.lock"
    with open(path, "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def drop_locks(root: Path) -> None:
    """Remove the replay sweep's lock files once it is over."""
    shutil.rmtree(root / LOCKS, ignore_errors=True)


@define(frozen=True, slots=True)
class Expected:
    """What a trace must be: its run's job count, and its checksum once recorded."""

    jobs: int
    sha256: str | None = None


def scan(trace: Path) -> tuple[int, str] | None:
    """Job lines and SHA-256 of a trace; None if it is missing, unreadable or its last
    line is cut short (no final newline)."""
    digest = hashlib.sha256()
    jobs = 0
    last = b"\n"
    try:
        with open_bytes_read(trace) as handle:
            for line in handle:
                digest.update(line)
                last = line
                text = line.strip()
                if text and not text.startswith(b";"):
                    jobs += 1
    except (OSError, EOFError, ValueError):
        return None
    if not last.endswith(b"\n"):
        return None
    return jobs, digest.hexdigest()


def matches(trace: Path, expected: Expected | None) -> bool:
    """Whether ``trace`` is there and is the one its run recorded (no record: any)."""
    found = scan(trace)
    if found is None:
        return False
    if expected is None:
        return True
    jobs, sha256 = found
    return jobs == expected.jobs and expected.sha256 in (None, sha256)


def read_checksums(root: Path) -> dict[str, str]:
    """The checksums the study recorded; a damaged record counts as none (the job
    counts still hold every trace to its row)."""
    path = root / CHECKSUMS
    if not path.is_file():
        return {}
    try:
        data = json.loads(read_document(path, "checksum record"))
    except (InputError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def expectations(rows: Iterable[Mapping[str, str]], traces: Mapping[str, Key], root: Path) -> dict[str, Expected]:
    """Trace → what it must be, from the site-level rows (``traces``: trace → its
    point's key, as :func:`sitesim.study.runs.trace_keys` gives) and the recorded
    checksums. Rows whose job count is not a whole number give no expectation (the
    sweep redoes such rows)."""
    from sitesim.sweep.store import row_key

    by_key = {row_key(dict(r)): r for r in rows}
    sums = read_checksums(root)
    out = {}
    for trace, key in traces.items():
        row = by_key.get(key)
        if row is None:
            continue
        try:
            jobs = int(row["submitted"])
        except (KeyError, ValueError):
            continue
        out[trace] = Expected(jobs, sums.get(trace))
    return out


def discard_damaged(root: Path, expected: Mapping[str, Expected]) -> list[str]:
    """Remove the run folders whose trace is there but does not match: they are made
    again when needed. Returns the traces removed."""
    import shutil

    removed = []
    for trace, want in expected.items():
        path = root / trace
        if path.exists() and not matches(path, want):
            shutil.rmtree(path.parent, ignore_errors=True)
            removed.append(trace)
    return removed


def record_checksums(root: Path, expected: Mapping[str, Expected]) -> None:
    """Record the SHA-256 of every trace that is there and matches its row's job count
    (the checksums already recorded are kept for traces since pruned)."""
    sums = read_checksums(root)
    for trace, want in expected.items():
        found = scan(root / trace)
        if found is not None and found[0] == want.jobs and want.sha256 in (None, found[1]):
            sums[trace] = found[1]
    if not (root / "runs").is_dir():
        return
    with atomic_text_write(root / CHECKSUMS) as out:
        json.dump(dict(sorted(sums.items())), out, indent=1)
        out.write("\n")
