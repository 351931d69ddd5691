"""File helpers: transparent gzip, deterministic compression and all-or-nothing output.

Outputs are written to a temporary sibling and renamed into place only when the whole
run succeeded, so a failed run never leaves a half-written result behind.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, cast

from sitesim.errors import InputError
from sitesim.limits import MAX_LINE_BYTES


#: The first two bytes of every gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"


class LineTooLong(OSError):
    """A line longer than :data:`~sitesim.limits.MAX_LINE_BYTES`: not a text log.

    An :class:`OSError`, so every reader's "cannot read" path reports it on one line
    with the line number, as it does a truncated gzip stream."""


class _Source(io.RawIOBase):
    """The bytes of ``inner``, after ``prefix`` (bytes already taken from it), refusing
    a line longer than ``cap`` bytes.

    Why: a pipe cannot be reopened or rewound, so the bytes read to recognise gzip must
    be served again from here; and a text reader looks for the end of a line before it
    returns it, so ``/dev/zero`` would fill the memory unless the bytes themselves are
    cut off. Checking each chunk for a newline costs one C-level search per 8 KB.
    """

    def __init__(self, inner: IO[bytes], prefix: bytes = b"", cap: int | None = None) -> None:
        super().__init__()
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
                raise LineTooLong(f"a line longer than {self._cap:,} bytes (not a text log?)")
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


def open_bytes_read(path: str | os.PathLike[str]) -> IO[bytes]:
    """The bytes of a file, decompressed if it is gzip, in lines of at most
    :data:`~sitesim.limits.MAX_LINE_BYTES` (see :func:`open_text_read`)."""
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
        return cast(IO[bytes], io.BufferedReader(_Source(packed, cap=MAX_LINE_BYTES)))
    except BaseException:
        raw.close()
        raise


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a pipe, socket or character device (``/dev/stdin``,
    ``<(zcat LOG.gz)``, ``/dev/zero``): something that can be read only once."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False  # missing or unreadable: the reader that opens it says why
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


@contextmanager
def rereadable(path: str | os.PathLike[str]) -> Iterator[Path]:
    """``path`` itself, or for a pipe or device a temporary file holding its
    (decompressed) bytes, removed on exit.

    Why: a command that reads its input twice (``sitesim fit`` reads the log, then
    may replay it for its starts and hashes it) would find a pipe empty the second time.
    Copying goes through :func:`open_bytes_read`, so ``/dev/zero`` is refused at the
    line cap instead of filling the disk.
    """
    if not is_stream(path):
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="sitesim-input-") as tmp:
        copy = Path(tmp) / "input.swf"
        try:
            with open_bytes_read(path) as src, open(copy, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        except (OSError, EOFError, zlib.error) as exc:  # cut short, corrupt, a line beyond the cap
            raise InputError(f"cannot read input: {exc}", path=os.fspath(path)) from None
        yield copy


@contextmanager
def atomic_text_write(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Write a text file all-or-nothing; ``.gz`` paths are gzip-compressed.

    The gzip header carries no file name and a zero timestamp, so equal content gives
    byte-identical files (the reproducibility promise covers compressed outputs too).
    """
    p = Path(path)
    tmp = p.with_name(f".{p.name}.part")
    try:
        raw = open(tmp, "wb")
    except OSError as exc:
        raise _cannot_write(p, exc) from None
    try:
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if p.suffix == ".gz" else None
        stream = cast(IO[bytes], gz if gz is not None else raw)
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
        yield text
        # Detach before closing the gzip stream: detaching flushes, which must not
        # reach an already closed GzipFile.
        text.flush()
        text.detach()
        if gz is not None:
            gz.close()
        raw.close()
        os.replace(tmp, p)
    except OSError as exc:  # a full disk, a directory in the way: name the user's path
        _discard(raw, tmp)
        raise _cannot_write(p, exc) from None
    except BaseException:
        _discard(raw, tmp)
        raise


def _cannot_write(path: Path, exc: OSError) -> InputError:
    """One line naming the path the user gave, never the hidden staging file."""
    return InputError(f"cannot write: {exc.strerror or exc}", path=str(path))


def _discard(raw: IO[bytes], tmp: Path) -> None:
    with suppress(OSError):
        raw.close()
    with suppress(OSError):
        tmp.unlink(missing_ok=True)
