"""Build the ``empirical/<name>.json`` tables from trace analyses, deterministically.

A table holds every model distribution (see :mod:`sitesim.distributions.model` for
the reader), headline numbers and provenance. The same input gives the same bytes:
sorted keys, fixed rounding, order statistics for the knots, no timestamps.

The ``combined`` table pools the observations of several traces (each trace weighs
as much as it has observations), as the paper's simulations combine the three logs.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from sitesim.analysis.bounds import Capped
from sitesim.analysis.cleaning import REASONS, CleaningReport
from sitesim.analysis.sessions import SubmissionBehavior
from sitesim.analysis.trace import TraceAnalysis
from sitesim.analysis.workpool import REPEAT_ABS_TOL, REPEAT_REL_TOL, Workpool
from sitesim.distributions.empirical import EmpiricalContinuous, EmpiricalDiscrete
from sitesim.distributions.model import VALUE_BOUNDS
from sitesim.workload.files import atomic_text_write
from sitesim.workload.session_rule import SESSION_THRESHOLD
from sitesim.version import __version__

FORMAT = "sitesim-empirical"
FORMAT_VERSION = 1
#: Knots of the continuous distributions (uniform in probability, plus tails).
KNOTS = 257
TAIL_KNOTS = 48

DEFINITIONS: dict[str, Any] = {
    "think_time": "submit time minus the latest completion (submit+wait+run) among the "
    "user's previously submitted jobs; users' first jobs have none",
    "batch": "a job with think time < 0 joins the current batch; think >= 0 (or a user's "
    "first job) starts a new one; batch_width = jobs per batch",
    "session": "new session at a user's first job and where think time > session_threshold_s",
    "session_threshold_s": int(SESSION_THRESHOLD),
    "inter_submission": "submit-to-submit gap between consecutive jobs of one batch (>= 0)",
    "think_time_model": f"inter-batch think times within a session: [0, {SESSION_THRESHOLD:.0f}] s, both ends included",
    "think_time_all": "every think time, negative ones included (paper Figure 3)",
    "size": "processors, field 5 (allocated), else field 8 (requested); per job",
    "runtime": "field 4 (s); per job",
    "repetitions": "run length of a user's consecutive jobs with the same size and either "
    "the same executable (field 14, when informative) or a runtime within "
    f"max({REPEAT_ABS_TOL:g} s, {REPEAT_REL_TOL:.0%}) of the run's first job",
    "run_size, run_runtime": "size and runtime of the first job of each repetition run "
    "(draw these when repeating jobs, so per-job marginals come out right)",
    "estimate_ratio": "field 9 / field 4 for jobs with both > 0",
    "failed_runtime": "runtime of status-0 (failed) jobs; null when the trace has none",
    "size_mapping": "sizes kept as measured on the source machine; clip (default) or "
    "truncate at the simulated machine size when sampling",
    "cleaning": "excluded, first matching rule: " + ", ".join(REASONS),
    "pooling": "combined tables pool all observations of the listed sources",
}


def _num(value: float) -> float | int | None:
    """Deterministic JSON number: 6 significant digits, ints kept, NaN -> null."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    f = float(value)
    if math.isnan(f):
        return None
    return float(f"{f:.6g}")


def pool(analyses: Sequence[TraceAnalysis], name: str = "combined") -> TraceAnalysis:
    """One analysis holding the observations of all ``analyses``."""
    def cat(get: Any) -> np.ndarray:
        return np.concatenate([get(a) for a in analyses])

    subs = [a.submission for a in analyses]
    cleaning = CleaningReport()
    counts: dict[str, int] = {}
    for a in analyses:
        cleaning.total += a.cleaning.total
        cleaning.kept += a.cleaning.kept
        cleaning.size_from_requested += a.cleaning.size_from_requested
        for k, v in a.cleaning.excluded.items():
            cleaning.excluded[k] += v
        for k, v in a.workpool.status_counts.items():
            counts[k] = counts.get(k, 0) + v
    submission = SubmissionBehavior(
        think_times=cat(lambda a: a.submission.think_times),
        batch_widths=cat(lambda a: a.submission.batch_widths),
        inter_submission=cat(lambda a: a.submission.inter_submission),
        inter_batch_think=cat(lambda a: a.submission.inter_batch_think),
        session_batches=cat(lambda a: a.submission.session_batches),
        session_jobs=cat(lambda a: a.submission.session_jobs),
        users=sum(s.users for s in subs),
        threshold=subs[0].threshold,
    )
    workpool = Workpool(
        sizes=cat(lambda a: a.workpool.sizes),
        runtimes=cat(lambda a: a.workpool.runtimes),
        repetitions=cat(lambda a: a.workpool.repetitions),
        run_sizes=cat(lambda a: a.workpool.run_sizes),
        run_runtimes=cat(lambda a: a.workpool.run_runtimes),
        estimate_ratio=cat(lambda a: a.workpool.estimate_ratio),
        status_counts=counts,
        failed_runtimes=cat(lambda a: a.workpool.failed_runtimes),
        executable_used=any(a.workpool.executable_used for a in analyses),
    )
    sizes = [a.machine_size for a in analyses if a.machine_size]
    return TraceAnalysis(
        name=name,
        source="",
        sha256="",
        machine_size=max(sizes) if sizes else None,
        cleaning=cleaning,
        submission=submission,
        workpool=workpool,
    )


def _continuous(data: np.ndarray) -> dict[str, Any] | None:
    if data.size == 0:
        return None
    return EmpiricalContinuous.from_samples(data, KNOTS, TAIL_KNOTS).to_dict()


def _discrete(data: np.ndarray) -> dict[str, Any] | None:
    return EmpiricalDiscrete.from_samples(data).to_dict() if data.size else None


def build_table(analysis: TraceAnalysis, sources: Sequence[TraceAnalysis], command: str) -> dict[str, Any]:
    """The JSON-able table of ``analysis`` (``sources``: the traces it was measured on).

    Observations beyond what the loader accepts (:data:`VALUE_BOUNDS`) are capped at
    the bound (:mod:`sitesim.analysis.bounds`), and the table's provenance counts them
    per field under ``capped`` (a key only tables with such values carry)."""
    s, w = analysis.submission, analysis.workpool
    capped = Capped()

    def within(name: str, data: np.ndarray) -> np.ndarray:
        low, high = VALUE_BOUNDS[name][:2]
        return capped.clip(name, data, low, high)

    observations = {
        "batch_width": (_discrete, s.batch_widths),
        "inter_submission": (_continuous, s.inter_submission),
        "think_time": (_continuous, s.inter_batch_think),
        "think_time_all": (_continuous, s.think_times),
        "size": (_discrete, w.sizes),
        "runtime": (_continuous, w.runtimes),
        "run_size": (_discrete, w.run_sizes),
        "run_runtime": (_continuous, w.run_runtimes),
        "repetitions": (_discrete, w.repetitions),
        "estimate_ratio": (_continuous, w.estimate_ratio),
        "failed_runtime": (_continuous, w.failed_runtimes),
    }
    distributions = {name: build(within(name, data)) for name, (build, data) in observations.items()}
    provenance: dict[str, Any] = {
        "sources": [
            {
                "name": src.name,
                "file": src.source,
                "sha256_uncompressed": src.sha256,
                "machine_size": src.machine_size,
                "cleaning": src.cleaning.to_dict(),
                "repetitions_match_executable": src.workpool.executable_used,
            }
            for src in sources
        ],
        "definitions": DEFINITIONS,
        "generator": command,
        "tool": f"sitesim {__version__}",
        "knots": {"uniform": KNOTS, "tail": TAIL_KNOTS},
    }
    if capped.total:  # per field: how many observations were moved onto [low, high]
        provenance["capped"] = {
            name: {"count": n, "bounds": [_num(v) for v in VALUE_BOUNDS[name][:2]]}
            for name, n in capped.to_dict().items()
        }
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": analysis.name,
        "source_machine_size": analysis.machine_size,
        "distributions": distributions,
        "status_counts": dict(w.status_counts),
        "status_fractions": {k: _num(v) for k, v in w.status_fractions().items()},
        "summary": {k: _num(v) for k, v in analysis.summary().items()},
        "provenance": provenance,
    }


#: One encoder for every leaf of a table: ``json.dumps`` with a non-default option
#: builds a new encoder per call, most of the cost of writing a fitted population.
_LEAF = json.JSONEncoder(allow_nan=False)


#: Types of a JSON leaf that is neither an object nor an array.
_SCALAR_TYPES = frozenset((int, float, bool, str, type(None)))
_NUMBER_TYPES = frozenset((int, float, type(None)))


def _nested(table: list[Any]) -> bool:
    """Whether an item of ``table`` is an object or an array (set of types first: a
    population's lists hold thousands of numbers)."""
    types = set(map(type, table))
    return not types <= _SCALAR_TYPES and any(issubclass(t, (dict, list)) for t in types)


def _rows_of_numbers(table: list[Any]) -> bool:
    """Whether every item of ``table`` is a list of plain numbers (or nulls): their
    encodings hold no brackets, so ``"], ["`` in the whole list's is a row's end."""
    return set(map(type, table)) == {list} and set(map(type, chain.from_iterable(table))) <= _NUMBER_TYPES


def dumps_table(table: Any, indent: int = 0) -> str:
    """JSON text with sorted keys, one key per line, and number lists kept on one line."""
    pad = " " * indent
    if isinstance(table, dict):
        if not table:
            return "{}"
        items = [
            f'{pad} {json.dumps(k)}: {dumps_table(table[k], indent + 1)}' for k in sorted(table)
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(table, list) and _nested(table):
        if _rows_of_numbers(table):
            # One encoding of the whole list, each row put on its own line: a fitted
            # population has 130,000 such rows ((size, runtime) of every job).
            rows = _LEAF.encode(table)[1:-1].replace("], [", "],\n" + pad + " [")
            return "[\n" + pad + " " + rows + "\n" + pad + "]"
        items = [f"{pad} {dumps_table(v, indent + 1)}" for v in table]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return _LEAF.encode(table)


def write_table(path: str | os.PathLike[str], table: dict[str, Any]) -> None:
    """Write one table all-or-nothing."""
    with atomic_text_write(path) as out:
        out.write(dumps_table(table))
        out.write("\n")
