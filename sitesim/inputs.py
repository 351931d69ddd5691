"""The one bounded reader of every file sitesim reads (docs/reliability.md, "Limits").

SWF and sacct logs are streamed through :func:`open_text_read` (gzip recognised by its
magic bytes, lines of at most :data:`~sitesim.limits.MAX_LINE_BYTES`); every file read
whole (site, partition, grid and study files, empirical tables, populations, moldable
tables, sweep CSVs) through :func:`read_document`, on the same byte source with the
same line bound and a bound on the whole (:data:`~sitesim.limits.MAX_DOCUMENT_BYTES`).
A reader that opened a file itself would be a reader ``/dev/zero`` fills the memory
through, so there is no other (``tests/test_bounded_reads.py`` greps the package).

On the lowest layers, beside the limits, so that every package may read through it.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from typing import IO, TYPE_CHECKING, Any, cast

from sitesim.errors import InputError
from sitesim.limits import MAX_DOCUMENT_BYTES, MAX_LINE_BYTES

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["GZIP_MAGIC", "LineTooLong", "open_text_read", "open_bytes_read", "read_document", "read_document_bytes"]


#: The first two bytes of every gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"


class LineTooLong(OSError):
    """A line longer than :data:`~sitesim.limits.MAX_LINE_BYTES`: not a text log.

    An :class:`OSError`, so every reader's "cannot read" path reports it on one line
    with the line number, as it does a truncated gzip stream. It carries the file's
    name (``filename``), so that even a reader that does not say which file it was
    reading has the error name it (:func:`sitesim.exits.run_command`)."""

    def __init__(self, message: str, filename: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.filename = filename

    def __str__(self) -> str:
        return self.message


class _Source(io.RawIOBase):
    """The bytes of ``inner``, after ``prefix`` (bytes already taken from it), refusing
    a line longer than ``cap`` bytes.

    Why: a pipe cannot be reopened or rewound, so the bytes read to recognise gzip must
    be served again from here; and a text reader looks for the end of a line before it
    returns it, so ``/dev/zero`` would fill the memory unless the bytes themselves are
    cut off. Checking each chunk for a newline costs one C-level search per 8 KB.
    """

    def __init__(self, inner: IO[bytes], prefix: bytes = b"", cap: int | None = None, name: str | None = None) -> None:
        super().__init__()
        self._name = name
        self._inner = inner
        self._prefix = prefix
        self._cap = cap
        self._run = 0  # bytes since the last newline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        if self._prefix:
            data, self._prefix = self._prefix[:size], self._prefix[size:]
        else:
            data = self._inner.read(size)
        n = len(data)
        buffer[:n] = data
        if self._cap is not None and n:
            first = data.find(b"\n")
            if first < 0:
                self._run += n
            elif self._run + first > self._cap:  # the line this chunk ends
                self._run += first
            else:
                self._run = n - data.rfind(b"\n") - 1
            if self._run > self._cap:
                raise LineTooLong(f"a line longer than {self._cap:,} bytes (not a text file?)", self._name)
        return n

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()


def open_text_read(path: str | os.PathLike[str]) -> IO[str]:
    """Open a text file for reading, decompressing gzip on the fly.

    Compression is recognised by the magic bytes, not the name (``.SWF.GZ``, or a
    plain file called ``.gz``, both read right). A UTF-8 byte-order mark is skipped
    (``utf-8-sig``), since editors on some systems add one. The file is opened once,
    so a pipe (``/dev/stdin``, ``<(zcat LOG.gz)``) is read whole, and a line longer
    than :data:`~sitesim.limits.MAX_LINE_BYTES` is an :class:`OSError`
    (:class:`LineTooLong`) instead of a memory exhausted.
    """
    return io.TextIOWrapper(open_bytes_read(path), encoding="utf-8-sig", errors="replace")


def open_bytes_read(path: str | os.PathLike[str], line_cap: int | None = MAX_LINE_BYTES) -> IO[bytes]:
    """The bytes of a file, decompressed if it is gzip, in lines of at most
    ``line_cap`` bytes (see :func:`open_text_read`; None: lines of any length)."""
    raw = open(path, "rb", buffering=0)
    try:
        head = b""
        while len(head) < 2:  # a pipe may deliver one byte at a time
            more = raw.read(2 - len(head))
            if not more:
                break
            head += more
        packed: IO[bytes] = cast(IO[bytes], _Source(cast(IO[bytes], raw), head))
        if head == GZIP_MAGIC:
            packed = cast(IO[bytes], gzip.GzipFile(fileobj=io.BufferedReader(cast(Any, packed)), mode="rb"))
        return cast(IO[bytes], io.BufferedReader(_Source(packed, cap=line_cap, name=os.fspath(path))))
    except BaseException:
        raw.close()
        raise


def read_document(path: str | os.PathLike[str] | Traversable, what: str, *, long_lines: bool = False) -> str:
    """The UTF-8 text of a file sitesim reads whole (see :func:`read_document_bytes`)."""
    data = read_document_bytes(path, what, long_lines=long_lines)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}: {exc.reason}): a {what} is UTF-8 text",
                         path=str(path)) from None


def read_document_bytes(path: str | os.PathLike[str] | Traversable, what: str, *, long_lines: bool = False) -> bytes:
    """The bytes of a file read whole (a site, partition, grid or study file, a table,
    a population, a CSV), decompressed if gzip, or an input error naming it and
    ``what`` it is.

    The one reader of every such file, so that none of them is missed: it holds them to
    the bounds of an SWF log (:data:`~sitesim.limits.MAX_LINE_BYTES` a line; with
    ``long_lines``, for JSON tables whose writer keeps a list on one line, none) and to
    :data:`~sitesim.limits.MAX_DOCUMENT_BYTES` in all, and refuses a NUL byte at once (no
    text file holds one): ``/dev/zero`` or a binary file given by mistake is one line,
    exit 2, within the first block, not a memory exhausted.
    """
    where = str(path)
    data = bytearray()
    try:
        if isinstance(path, (str, os.PathLike)):
            if os.path.isfile(path) and os.path.getsize(path) > MAX_DOCUMENT_BYTES:
                raise _too_large(what, where)
            handle: IO[bytes] = open_bytes_read(path, None if long_lines else MAX_LINE_BYTES)
        else:  # a shipped file (importlib.resources), perhaps inside an archive
            handle = cast(IO[bytes], path.open("rb"))
        with handle:
            while chunk := handle.read(1 << 20):
                nul = chunk.find(b"\0")
                if nul >= 0:
                    raise InputError(f"not a {what}: binary data (a NUL byte at byte {len(data) + nul:,})",
                                     path=where)
                data += chunk
                if len(data) > MAX_DOCUMENT_BYTES:
                    raise _too_large(what, where)
    except InputError:
        raise
    except (OSError, EOFError, zlib.error) as exc:  # missing, a folder, cut short, a line beyond the cap
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise InputError(f"cannot read {what}: {message}", path=where) from None
    return bytes(data)


def _too_large(what: str, where: str) -> InputError:
    return InputError(f"larger than {MAX_DOCUMENT_BYTES:,} bytes: not a {what} (sitesim.limits.MAX_DOCUMENT_BYTES)",
                      path=where)


