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


def open_text_read(path: str | os.PathLike[str]) -> IO[str]:
    """Open a text file for reading; ``.gz`` files are decompressed on the fly."""
    p = Path(path)
    if p.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8", errors="replace")
    return open(p, encoding="utf-8", errors="replace")


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
