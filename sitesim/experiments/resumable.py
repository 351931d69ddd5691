"""A CSV of results that a long experiment appends to row by row, and resumes from.

The real-log experiments (docs/moldable.md) run for hours on a shared machine. Each
finished run is appended as one row at once, so an interrupted script loses at most
the run in progress; started again with the same output, it skips every run whose key
columns are already there.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from sitesim.inputs import read_document


class ResumableCsv:
    """Rows keyed by some of their columns; :meth:`done` tells what is already there."""

    def __init__(self, path: Path, fields: Sequence[str], key: Sequence[str]) -> None:
        self.path = path
        self.fields = list(fields)
        self.key = list(key)
        self._done: set[tuple[str, ...]] = set()
        if path.exists():
            text = read_document(path, "results CSV")
            self._done = {tuple(row[k] for k in self.key) for row in csv.DictReader(io.StringIO(text, newline=""))}
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", newline="") as f:
                csv.DictWriter(f, self.fields).writeheader()

    def done(self, *key: object) -> bool:
        """Whether a row with these key values (compared as text) is already written."""
        return tuple(str(k) for k in key) in self._done

    def append(self, rows: Sequence[Mapping[str, object]]) -> None:
        """Write ``rows`` at the end of the file (one run's rows together)."""
        with open(self.path, "a", newline="") as f:
            writer = csv.DictWriter(f, self.fields)
            for row in rows:
                writer.writerow(row)
                self._done.add(tuple(str(row[k]) for k in self.key))
