"""The log hash of sitesim/analysis/trace.py: of the content, whatever the file's name."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from sitesim.analysis.trace import sha256_uncompressed
from sitesim.errors import InputError

LOG = b"; MaxNodes: 8\n1 0 5 60 2 -1 -1 2 60 -1 1 1 1 1 1 -1 -1 -1\n2 30 5 90 4 -1 -1 4 90 -1 1 2 1 1 1 -1 -1 -1\n"


def test_gzip_log_hashes_alike_whatever_its_name(tmp_path: Path) -> None:
    """A gzip log named without .gz, with .gz, and the plain log: one hash, the content's."""
    packed = gzip.compress(LOG, mtime=0)
    named = tmp_path / "log.swf.gz"
    unnamed = tmp_path / "log.swf"
    plain = tmp_path / "plain.swf"
    named.write_bytes(packed)
    unnamed.write_bytes(packed)
    plain.write_bytes(LOG)
    expected = hashlib.sha256(LOG).hexdigest()
    assert sha256_uncompressed(named) == sha256_uncompressed(unnamed) == sha256_uncompressed(plain) == expected


def test_plain_file_named_gz_is_hashed_as_is(tmp_path: Path) -> None:
    path = tmp_path / "log.swf.gz"
    path.write_bytes(LOG)
    assert sha256_uncompressed(path) == hashlib.sha256(LOG).hexdigest()


def test_truncated_gzip_is_one_input_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.swf"
    path.write_bytes(gzip.compress(LOG * 50, mtime=0)[:40])
    with pytest.raises(InputError, match="cannot read trace"):
        sha256_uncompressed(path)
