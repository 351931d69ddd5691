"""One-call analysis of an SWF trace: cleaning, submission behaviour and workpool.

Works on any SWF file, including the simulator's own output, so generated workloads
can be checked against the measured models (the paper's Figure 11 validation).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from attrs import define

from sitesim.analysis.cleaning import CleaningReport, TraceJob, clean_records
from sitesim.analysis.sessions import SESSION_THRESHOLD, SubmissionBehavior, analyze_submission
from sitesim.analysis.workpool import REPEAT_ABS_TOL, REPEAT_REL_TOL, Workpool, analyze_workpool
from sitesim.errors import InputError
from sitesim.workload.swf import SwfReader


@define(slots=True)
class TraceAnalysis:
    """Everything measured on one trace."""

    name: str
    #: File name only (never a machine path), for provenance.
    source: str
    #: sha256 of the uncompressed trace content ("" when analysed from records).
    sha256: str
    #: Machine size declared by the header (MaxProcs, else MaxNodes); None if absent.
    machine_size: int | None
    cleaning: CleaningReport
    submission: SubmissionBehavior
    workpool: Workpool

    def summary(self) -> dict[str, Any]:
        """Headline numbers (the ones docs/models.md reports)."""
        s, w = self.submission, self.workpool
        return {
            "jobs": self.cleaning.kept,
            "users": s.users,
            "sessions": int(s.session_jobs.size),
            "batches": int(s.batch_widths.size),
            "negative_think_fraction": s.negative_think_fraction,
            "width1_fraction": s.width_fraction(1),
            "width2_fraction": s.width_fraction(2),
            "mean_batch_width": _mean(s.batch_widths),
            "mean_inter_submission": _mean(s.inter_submission),
            "mean_inter_batch_think": _mean(s.inter_batch_think),
            "mean_size": _mean(w.sizes),
            "mean_runtime": _mean(w.runtimes),
            "mean_repetitions": _mean(w.repetitions),
        }


def _mean(a: np.ndarray) -> float:
    return float(np.mean(a)) if a.size else float("nan")


def sha256_uncompressed(path: str | os.PathLike[str]) -> str:
    """sha256 of the file's content, decompressed if it is gzip.

    Compression is told by the magic bytes, through the same opener the readers use
    (:func:`~sitesim.workload.files.open_bytes_read`), not by the name: a gzip log named
    without ``.gz`` (or read from a pipe, which ``sitesim fit`` first copies
    decompressed) gets the hash of the same content as the log named ``.gz``, and the
    hash is of the bytes that were analysed (archive .gz bytes differ)."""
    from sitesim.workload.files import open_bytes_read

    digest = hashlib.sha256()
    try:
        with open_bytes_read(path) as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"cannot read trace: {exc}", path=os.fspath(path)) from None
    return digest.hexdigest()


def analyze_jobs(
    jobs: Sequence[TraceJob],
    cleaning: CleaningReport,
    *,
    name: str = "trace",
    source: str = "",
    sha256: str = "",
    machine_size: int | None = None,
    threshold: float = SESSION_THRESHOLD,
    abs_tol: float = REPEAT_ABS_TOL,
    rel_tol: float = REPEAT_REL_TOL,
) -> TraceAnalysis:
    """Analyse already-cleaned jobs (handy for hand-made traces in tests)."""
    if not jobs:
        raise InputError(f"no usable jobs in {name} after cleaning", path=source or None)
    return TraceAnalysis(
        name=name,
        source=source,
        sha256=sha256,
        machine_size=machine_size,
        cleaning=cleaning,
        submission=analyze_submission(jobs, threshold),
        workpool=analyze_workpool(jobs, abs_tol, rel_tol),
    )


def analyze_trace(
    path: str | os.PathLike[str],
    name: str | None = None,
    *,
    threshold: float = SESSION_THRESHOLD,
    abs_tol: float = REPEAT_ABS_TOL,
    rel_tol: float = REPEAT_REL_TOL,
) -> TraceAnalysis:
    """Read, clean and analyse the SWF file at ``path``."""
    p = Path(path)
    with SwfReader(p) as reader:
        jobs, report = clean_records(reader)
        machine = reader.header.machine_size()
    return analyze_jobs(
        jobs,
        report,
        name=name or p.name.split(".swf")[0],
        source=p.name,
        sha256=sha256_uncompressed(p),
        machine_size=machine,
        threshold=threshold,
        abs_tol=abs_tol,
        rel_tol=rel_tol,
    )
