"""File helpers: transparent gzip, deterministic compression and all-or-nothing output.

Outputs are written to a temporary sibling and renamed into place only when the whole
run succeeded, so a failed run never leaves a half-written result behind.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, cast


#: The first two bytes of every gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | os.PathLike[str]) -> bool:
    """Whether the file is gzip-compressed, by its magic bytes, whatever its name."""
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def open_text_read(path: str | os.PathLike[str]) -> IO[str]:
    """Open a text file for reading, decompressing gzip on the fly.

    Compression is recognised by the magic bytes, not the name (``.SWF.GZ``, or a
    plain file called ``.gz``, both read right). A UTF-8 byte-order mark is skipped
    (``utf-8-sig``), since editors on some systems add one.
    """
    p = Path(path)
    if is_gzip(p):
        return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8-sig", errors="replace")
    return open(p, encoding="utf-8-sig", errors="replace")


@contextmanager
def atomic_text_write(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Write a text file all-or-nothing; ``.gz`` paths are gzip-compressed.

    The gzip header carries no file name and a zero timestamp, so equal content gives
    byte-identical files (the reproducibility promise covers compressed outputs too).
    """
    p = Path(path)
    tmp = p.with_name(f".{p.name}.part")
    raw = open(tmp, "wb")
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
    except BaseException:
        raw.close()
        tmp.unlink(missing_ok=True)
        raise
