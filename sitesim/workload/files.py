"""File helpers: pipes read again, deterministic compression and all-or-nothing output.

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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, cast

from sitesim.errors import InputError
# The bounded readers live beside the limits (every layer reads through them); named here too.
from sitesim.inputs import (  # noqa: F401
    GZIP_MAGIC, LineTooLong, open_bytes_read, open_text_read, read_document, read_document_bytes,
)


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


def check_output(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str] | None], *,
                 field: str, folder: bool = False) -> None:
    """An input error unless writing ``output`` leaves every one of ``inputs`` as it is.

    No command may write over one of its own inputs (``sweep --summarize X --output X``
    replaced the raw results by their summary): ``output`` may not be an input, by any
    name (a symbolic or hard link, ``./X``); a ``folder`` output, which is replaced
    whole (:class:`~sitesim.runs.outdir.OutputDir`), may not hold one either. A file
    output may not be an existing folder (one line, not ``[Errno 21]``). Checked before
    the run, by every command, so a refused run has changed nothing.
    """
    out = Path(output)
    if not folder and out.is_dir():
        raise InputError("is a folder: give the file to write", path=str(out), field=field)
    real_out = os.path.realpath(out)
    if folder and os.path.commonpath([real_out, os.getcwd()]) == real_out:
        return  # the current folder or one holding it: refused as such by the output directory
    for given in inputs:
        if given is None or not os.path.exists(given):
            continue
        real_in = os.path.realpath(given)
        same = real_in == real_out or (out.exists() and _same_file(out, given))
        inside = folder and os.path.commonpath([real_out, real_in]) == real_out
        if same or inside:
            what = "is also" if same else "holds"
            raise InputError(f"{what} an input of this command ({os.fspath(given)}), which it would write over;"
                             " write elsewhere", path=str(out), field=field)


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


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
