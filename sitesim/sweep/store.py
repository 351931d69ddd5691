"""The sweep's CSV file: one row per finished run, appended as runs finish.

The CSV is both the result and the sweep's memory (docs/sweeps.md, "Resume"):

- a row is written and flushed as soon as its run finishes, so an interrupted sweep
  loses only the runs in progress;
- on reopening, rows already present are recognised by their config key and not run
  again. A last line cut short by a crash (no final newline) is dropped, since its
  run cannot be trusted to be complete;
- when a sweep completes, the file is rewritten (atomically) sorted by config key, so
  its bytes do not depend on which run happened to finish first;
- a row whose metric cell is not a number (a hand edit, a disk error) is not trusted:
  it is dropped and its run redone, and the sweep says how many;
- one sweep at a time writes a CSV: :class:`CsvLock` holds an exclusive lock on a
  ``.NAME.lock`` file beside it for the whole sweep, and a second sweep on the same CSV
  is refused with a message instead of losing the first one's rows or running every
  run twice;
- a CSV written before columns were appended to the sweep's (``appended``: the users'
  productivity) is upgraded when reopened: its header gains them and its rows keep their
  cells, the new ones empty (not measured), since every other cell of such a row is
  still what the run gives. Any other difference of columns is refused.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from sitesim.errors import InputError
from sitesim.limits import MAX_LINE_BYTES
from sitesim.sweep.grid import CONFIG_COLUMNS, OPTIONAL_COLUMNS, Key
from sitesim.inputs import read_document
from sitesim.workload.files import atomic_text_write

Row = dict[str, str]


def row_key(row: Row) -> Key:
    """The config cells, then the non-empty optional ones (as :meth:`Point.key`)."""
    return tuple(row[c] for c in CONFIG_COLUMNS) + tuple(row[c] for c in OPTIONAL_COLUMNS if row.get(c))


def sort_key(key: Key) -> tuple[tuple[int, float, str], ...]:
    """Numbers in numeric order (5 before 10), empty cells first, then text."""
    out = []
    for cell in key:
        if cell == "":
            out.append((0, 0.0, ""))
            continue
        try:
            out.append((1, float(cell), ""))
        except ValueError:
            out.append((2, 0.0, cell))
    return tuple(out)


def read_rows(path: str | os.PathLike[str]) -> tuple[list[str], list[Row]]:
    """Header and complete rows of a sweep CSV (a cut-off last line is left out)."""
    text = read_document(path, "sweep CSV")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, [])
        rows = [dict(zip(header, cells, strict=True)) for cells in reader if len(cells) == len(header)]
    except csv.Error as exc:
        raise InputError(f"not a sweep CSV: {exc}", path=str(path), line=reader.line_num) from None
    return header, rows


def is_older_header(header: list[str], columns: list[str], appended: Iterable[str]) -> bool:
    """Whether ``header`` is ``columns`` without some of their last ones, all ``appended``:
    a CSV written before those columns existed."""
    n = len(header)
    return 0 < n < len(columns) and columns[:n] == header and set(columns[n:]) <= set(appended)


def upgraded(rows: list[Row], columns: list[str]) -> list[Row]:
    """``rows`` with an empty cell for each of ``columns`` they lack."""
    return [{c: row.get(c, "") for c in columns} for row in rows]


def is_number_cell(cell: str) -> bool:
    """A metric cell as the sweep writes it: empty (not measured) or a number."""
    if cell == "":
        return True
    try:
        float(cell)
    except ValueError:
        return False
    return True


def is_finite_cell(cell: str) -> bool:
    """A cell that is empty or a finite number (not ``nan``, not ``inf``)."""
    if cell == "":
        return True
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


class CsvStore:
    """Append-only writer over a sweep CSV with a fixed column order."""

    def __init__(
        self, path: str | os.PathLike[str], columns: Iterable[str], numeric: Iterable[str] = (),
        appended: Iterable[str] = (), finite: Iterable[str] = (),
    ) -> None:
        """``numeric``: cells that must be numbers (or empty); ``appended``: columns a CSV
        written before them may lack (it is upgraded, see the module docstring);
        ``finite``: cells that must be finite numbers (or empty) for the row to count as
        a finished run (a ``nan`` there is a damaged row, redone)."""
        self.path = Path(path)
        #: Where the rows really are: a symlinked CSV is rewritten at its target, so the
        #: link stays a link (os.replace onto the link would put a plain file there).
        self._real = Path(os.path.realpath(path))
        self.columns = list(columns)
        self.rows: dict[Key, Row] = {}
        #: Rows dropped on reading because a ``numeric`` cell was not a number: their
        #: runs are redone, and the final rewrite leaves the damaged lines out.
        self.damaged = 0
        #: Rows of a CSV written before the ``appended`` columns, kept with them empty.
        self.upgraded = 0
        self._handle: IO[str] | None = None
        self._writer: csv.DictWriter[str] | None = None
        if self.path.exists() and self.path.stat().st_size > 0:
            header, rows = read_rows(self.path)
            if is_older_header(header, self.columns, appended):
                rows = upgraded(rows, self.columns)
                self.upgraded = len(rows)
                self._rewrite(rows)
                header = self.columns
            if header != self.columns:
                older = header == [c for c in self.columns if c != "model"]
                raise InputError(
                    "the CSV has no model column (made before runs recorded their model), so its"
                    " rows cannot be matched to one; use a new file, or delete it to start over"
                    if older else
                    "the CSV has other columns than this version of sitesim writes;"
                    " use a new file", path=str(self.path),
                )
            numeric, finite = list(numeric), [c for c in finite if c in self.columns]
            for row in rows:
                if all(is_number_cell(row[c]) for c in numeric) and all(is_finite_cell(row[c]) for c in finite):
                    self.rows.setdefault(row_key(row), row)
                else:
                    self.damaged += 1
            self._truncate_partial_line()

    def _rewrite(self, rows: list[Row]) -> None:
        """Replace the file (atomically) by the current header and ``rows``, in their order."""
        with atomic_text_write(self._real) as out:
            writer = csv.DictWriter(out, self.columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    def _truncate_partial_line(self) -> None:
        # Only the tail is read: the rows were read (and bounded) by read_rows, and a
        # line is at most MAX_LINE_BYTES long.
        with open(self.path, "rb+") as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - MAX_LINE_BYTES - 1)
            handle.seek(start)
            tail = handle.read()
            if not tail.endswith(b"\n"):
                handle.truncate(start + tail.rfind(b"\n") + 1 if b"\n" in tail else 0)

    def __contains__(self, key: Key) -> bool:
        return key in self.rows

    def append(self, row: Row) -> None:
        """Write one row and flush it to the OS right away."""
        if self._writer is None:
            new = not self.path.exists() or self.path.stat().st_size == 0
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.path, "a", encoding="utf-8", newline="")
            self._writer = csv.DictWriter(self._handle, self.columns, lineterminator="\n")
            if new:
                self._writer.writeheader()
        assert self._handle is not None
        self._writer.writerow(row)
        self._handle.flush()
        self.rows.setdefault(row_key(row), row)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
            self._writer = None

    def finalize(self) -> None:
        """Rewrite the file with one row per key, sorted by key."""
        self.close()
        with atomic_text_write(self._real) as out:
            writer = csv.DictWriter(out, self.columns, lineterminator="\n")
            writer.writeheader()
            for key in sorted(self.rows, key=sort_key):
                writer.writerow(self.rows[key])


class CsvLock:
    """An exclusive, non-blocking lock on ``.NAME.lock`` beside a sweep CSV.

    ``flock`` locks die with their process, so a crashed or killed sweep never leaves
    the CSV locked; the lock file is removed on a normal exit. Where ``fcntl`` does not
    exist (Windows), sweeps are not locked.
    """

    def __init__(self, csv_path: str | os.PathLike[str]) -> None:
        #: Keyed on the file the path leads to: two names of one CSV (a symlink) are one
        #: lock file; a hard link is caught by also locking the CSV itself (its inode).
        self.csv = Path(os.path.realpath(csv_path))
        self.shown = str(csv_path)
        self.path = self.csv.with_name(f".{self.csv.name}.lock")
        self._fd: int | None = None
        self._csv_fd: int | None = None

    def __enter__(self) -> CsvLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        while True:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:  # a file where a folder should be, no permission, ...
                raise InputError(f"cannot write: {exc.strerror or exc}", path=self.shown) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise self._busy() from None
            # The holder before us may have removed the file after we opened it: lock
            # the file that is at the path now, or try again.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                break
            os.close(fd)
        try:
            self._csv_fd = os.open(self.csv, os.O_RDONLY)
        except OSError:  # no CSV yet (it cannot have another name), or unreadable
            return self
        try:
            fcntl.flock(self._csv_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.__exit__()
            raise self._busy() from None
        return self

    def _busy(self) -> InputError:
        return InputError(
            "another sweep is writing this CSV; wait for it to finish (then run this"
            f" command again to resume) or use another --out (lock: {self.path.name})",
            path=self.shown,
        )

    def __exit__(self, *exc: object) -> None:
        if self._csv_fd is not None:
            os.close(self._csv_fd)
            self._csv_fd = None
        if self._fd is not None:
            self.path.unlink(missing_ok=True)  # while still holding the lock
            os.close(self._fd)
            self._fd = None
