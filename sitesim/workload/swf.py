"""Standard Workload Format (SWF): records, header and streaming reader for all 18 fields.

The record lives in :mod:`sitesim.workload.swf_record` (which the writer, too, builds
on), the writer in :mod:`sitesim.workload.swf_write` and the header in
:mod:`sitesim.workload.swf_header`; all are re-exported here, so
``from sitesim.workload.swf import SwfRecord, write_swf, SwfHeader`` keeps working.

SWF (Parallel Workloads Archive) is a text format: header comment lines starting with
``;`` (``; MaxNodes: 128`` and the like), then one line per job with 18
whitespace-separated numbers, ``-1`` meaning unknown.

Decisions (see docs/swf.md):

- Values round-trip exactly: integer tokens stay ``int``, tokens with a decimal point
  or exponent become ``float`` and are written back with ``repr`` (shortest exact form).
  Writing what was read and reading it again gives the same values; writing twice gives
  the same bytes. Original column spacing is not preserved; header lines are, verbatim.
- A malformed job line (wrong number of fields, a non-numeric field) raises
  :class:`~sitesim.errors.InputError` naming file, line and field, unless the reader is
  opened with ``skip_malformed=True``, in which case it is skipped and counted.
- Comment lines found after the first job are kept with the header (some logs have them).
- Reading is streaming: records are yielded one at a time, so memory does not grow with
  the trace.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Iterator
from itertools import chain
from operator import itemgetter
from types import TracebackType
from typing import IO

from sitesim.compiled import twin
from sitesim.errors import InputError
from sitesim.workload import swf_ints
from sitesim.workload.files import open_text_read
from sitesim.workload.swf_header import SwfHeader
from sitesim.workload.swf_ints import number_table, read_number
from sitesim.workload.swf_record import (
    FIELDS,
    N_FIELDS,
    STATUS_CANCELLED,
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_PARTIAL,
    WHOLE_FIELDS,
    Number,
    SwfRecord,
    field_label,
)
from sitesim.workload.swf_write import format_record, format_value, format_values, write_swf

__all__ = [
    "FIELDS", "N_FIELDS", "WHOLE_FIELDS", "STATUS_FAILED", "STATUS_COMPLETED", "STATUS_PARTIAL",
    "STATUS_CANCELLED", "Number", "SwfRecord", "SwfHeader", "SwfReader", "field_label", "parse_line",
    "read_swf", "format_value", "format_record", "format_values", "write_swf",
]


#: The record of a line of 18 plain numbers, else None: the compiled twin where it
#: was built, else its Python original (the same answers).
plain_record = getattr(twin("_swf", __package__), "plain_record", swf_ints.plain_record)


def _is_float(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def parse_line(line: str, *, path: str = "<string>", lineno: int = 0) -> SwfRecord:
    """Parse one SWF job line, raising :class:`InputError` that names the bad field."""
    tokens = line.split()
    if len(tokens) == N_FIELDS:
        # Fast path: an all-integer line.
        try:
            return SwfRecord(*map(int, tokens))
        except ValueError:
            pass
    return _parse_tokens(tokens, path, lineno)


#: The values of the whole-number fields, from a line's 18 values.
_whole_values = itemgetter(*WHOLE_FIELDS)


def _parse_tokens(tokens: list[str], path: str, lineno: int) -> SwfRecord:
    """The record of a job line's ``tokens`` that are not all integers: a line with
    some decimal values in one pass, else the field-by-field diagnosis of a bad line."""
    if len(tokens) == N_FIELDS:
        try:
            values = list(map(number_table(), tokens))
        except ValueError:
            pass
        else:
            if float not in map(type, _whole_values(values)):
                # Fields are int or float per column; the record's annotations say which.
                return SwfRecord(*values)  # type: ignore[arg-type]
    if len(tokens) != N_FIELDS:
        what = "truncated line" if len(tokens) < N_FIELDS else "too many fields"
        raise InputError(
            f"{what}: expected {N_FIELDS} fields, found {len(tokens)}", path=path, line=lineno
        )
    checked: list[Number] = []
    for i, token in enumerate(tokens):
        try:
            value = read_number(token)
        except ValueError:
            what = "is not a finite number" if _is_float(token) else "is not a number"
            raise InputError(
                f"{token!r} {what}", path=path, line=lineno, field=field_label(i)
            ) from None
        if i in WHOLE_FIELDS and isinstance(value, float):
            raise InputError(
                f"{token!r} is not a whole number", path=path, line=lineno, field=field_label(i)
            )
        checked.append(value)
    return SwfRecord(*checked)  # type: ignore[arg-type]


def _read_error(exc: BaseException) -> str:
    """One line for a failed read: gzip's errors say what broke, zlib's need context."""
    if isinstance(exc, zlib.error):
        return f"corrupt gzip data ({exc})"
    return str(exc) or type(exc).__name__


class SwfReader:
    """Stream the job records of an SWF (or ``.swf.gz``) file.

    The header (leading comment lines) is read on construction, so ``header`` is
    available before iterating. Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: str | os.PathLike[str], *, skip_malformed: bool = False) -> None:
        self.path = os.fspath(path)
        self.skip_malformed = skip_malformed
        #: Number of malformed lines skipped (only with ``skip_malformed``).
        self.skipped = 0
        #: Number of job records yielded so far.
        self.records = 0
        #: Line number of the record most recently yielded (for error messages).
        self.line = 0
        try:
            self._file: IO[str] = open_text_read(self.path)
        except OSError as exc:
            raise InputError(f"cannot open trace: {exc.strerror or exc}", path=self.path) from None
        self._lineno = 0
        self._pending: str | None = None
        lines: list[str] = []
        numbers: list[int] = []
        try:
            for raw in self._file:
                self._lineno += 1
                stripped = raw.strip()
                if not stripped:
                    continue
                if stripped.startswith(";"):
                    lines.append(raw.rstrip("\r\n"))
                    numbers.append(self._lineno)
                    continue
                self._pending = raw
                break
        except (OSError, EOFError, zlib.error) as exc:  # cut short or corrupt, within the header
            self._file.close()
            raise InputError(
                f"cannot read trace: {_read_error(exc)}", path=self.path, line=self._lineno + 1
            ) from None
        self.header = SwfHeader(lines, path=self.path, numbers=numbers)

    def __iter__(self) -> Iterator[SwfRecord]:
        path = self.path
        header_lines = self.header.lines
        header_numbers = self.header.numbers
        lineno = self._lineno
        plain = plain_record  # this loop runs once per replayed job
        try:
            pending = self._pending
            self._pending = None
            lines: Iterable[str] = self._file
            if pending is not None:  # the first job line, read with the header
                lines = chain((pending,), lines)
                lineno -= 1
            for raw in lines:
                lineno += 1
                record = plain(raw)  # the usual line: 18 plain numbers (swf_ints)
                if record is None:
                    tokens = raw.split()
                    if not tokens:
                        continue
                    if tokens[0][0] == ";":
                        header_lines.append(raw.rstrip("\r\n"))
                        header_numbers.append(lineno)
                        continue
                    record = self._parse(tokens, lineno)
                    if record is None:
                        continue
                else:
                    self.records += 1
                self.line = lineno
                yield record
        except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt gzip stream
            raise InputError(f"cannot read trace: {_read_error(exc)}", path=path, line=lineno + 1) from None
        finally:
            self._lineno = lineno

    def _parse(self, tokens: list[str], lineno: int) -> SwfRecord | None:
        """A job line off the plain path: other number text, a decimal in a whole-number
        field, or a bad line."""
        try:
            record = _parse_tokens(tokens, self.path, lineno)
        except InputError:
            if self.skip_malformed:
                self.skipped += 1
                return None
            raise
        self.records += 1
        return record

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SwfReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_swf(
    path: str | os.PathLike[str], *, skip_malformed: bool = False
) -> tuple[SwfHeader, list[SwfRecord]]:
    """Read a whole SWF file into memory (convenient for analysis and tests)."""
    with SwfReader(path, skip_malformed=skip_malformed) as reader:
        records = list(reader)
        return reader.header, records
