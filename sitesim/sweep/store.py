"""The sweep's CSV file: one row per finished run, appended as runs finish.

The CSV is both the result and the sweep's memory (docs/sweeps.md, "Resume"):

- a row is written and flushed as soon as its run finishes, so an interrupted sweep
  loses only the runs in progress;
- on reopening, rows already present are recognised by their config key and not run
  again. A last line cut short by a crash (no final newline) is dropped, since its
  run cannot be trusted to be complete;
- when a sweep completes, the file is rewritten (atomically) sorted by config key, so
  its bytes do not depend on which run happened to finish first.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from sitesim.errors import InputError
from sitesim.sweep.grid import CONFIG_COLUMNS, OPTIONAL_COLUMNS, Key
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
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    rows = [dict(zip(header, cells, strict=True)) for cells in reader if len(cells) == len(header)]
    return header, rows


class CsvStore:
    """Append-only writer over a sweep CSV with a fixed column order."""

    def __init__(self, path: str | os.PathLike[str], columns: Iterable[str]) -> None:
        self.path = Path(path)
        self.columns = list(columns)
        self.rows: dict[Key, Row] = {}
        self._handle: IO[str] | None = None
        self._writer: csv.DictWriter[str] | None = None
        if self.path.exists() and self.path.stat().st_size > 0:
            header, rows = read_rows(self.path)
            if header != self.columns:
                raise InputError(
                    "the CSV has other columns than this version of sitesim writes;"
                    " use a new file", path=str(self.path),
                )
            for row in rows:
                self.rows.setdefault(row_key(row), row)
            self._truncate_partial_line()

    def _truncate_partial_line(self) -> None:
        with open(self.path, "rb+") as handle:
            data = handle.read()
            if not data.endswith(b"\n"):
                handle.truncate(data.rfind(b"\n") + 1)

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
        with atomic_text_write(self.path) as out:
            writer = csv.DictWriter(out, self.columns, lineterminator="\n")
            writer.writeheader()
            for key in sorted(self.rows, key=sort_key):
                writer.writerow(self.rows[key])
